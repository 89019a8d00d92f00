"""What TF 1.15 programs print about graphs, sessions and traced steps, found by running the
same small programs under real TF 1.15 and tideflow; expected values are TF 1.15's outputs."""

import json

import numpy as np
import pytest

import tideflow as tf
from tideflow.protos import step_stats_pb2
from tideflow.python.client import timeline


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _step_stats():
    """Two devices' hand-made stats: two Consts that overlap in time, a Split, a Recv and an
    Add reading the Recv, the Split's second output and a control input, and a RecvTensor."""
    ss = step_stats_pb2.StepStats()
    d0 = ss.dev_stats.add(device="/cpu:0")
    d1 = ss.dev_stats.add(device="/cpu:1")

    def node(dev, name, label, start, dur, out_bytes):
        n = dev.node_stats.add(node_name=name, timeline_label=label, all_start_micros=start,
                               all_end_rel_micros=dur, thread_id=77)
        for k, nbytes in enumerate(out_bytes):
            ad = n.output.add(slot=k).tensor_description.allocation_description
            ad.requested_bytes = nbytes
            ad.allocator_name = "cpu"

    node(d0, "x", "x = Const()", 100, 5, [8])
    node(d0, "y", "y = Const()", 102, 5, [8])
    node(d0, "sp", "sp = Split(x, y)", 110, 10, [4, 4])
    node(d1, "x/_2", "x/_2 = _Recv()", 125, 3, [4])
    node(d1, "z", "z = Add(x/_2, sp:1, ^y)", 130, 4, [4])
    node(d1, "RecvTensor", "", 131, 1, [])
    return ss


def _op(name, op, pid, tid, ts, dur, *inputs):
    args = {"name": name, "op": op}
    args.update((f"input{i}", inp) for i, inp in enumerate(inputs))
    return {"ph": "X", "cat": "Op", "name": op, "pid": pid, "tid": tid, "ts": ts, "dur": dur,
            "args": args}


def _flow(ph, name, pid, tid, ts, flow_id):
    return {"ph": ph, "cat": "DataFlow", "name": name, "pid": pid, "tid": tid, "ts": ts,
            "id": flow_id}


_PIDS = [{"name": "process_name", "ph": "M", "pid": pid, "args": {"name": name}}
         for pid, name in enumerate(["Allocators", "/cpu:0 Compute", "/cpu:0 Tensors",
                                     "/cpu:1 Compute", "/cpu:1 Tensors"])]


def test_chrome_trace_is_tf_client_timeline_json():
    # TF 1.15: an Allocators process, a Compute and a Tensors process per device, ops on
    # lanes by time (thread_id rewritten), an op's output 0 named by the op, flows between
    # lanes or devices numbered from 0, the JSON indented 4
    ss = _step_stats()
    text = timeline.Timeline(ss).generate_chrome_trace_format()
    assert text.startswith('{\n    "traceEvents": [\n        {\n            "name": '
                           '"process_name",\n            "ph": "M",\n')
    assert json.loads(text)["traceEvents"] == _PIDS + [
        _op("x", "Const", 1, 0, 100, 5),
        _op("y", "Const", 1, 1, 102, 5),
        _op("sp", "Split", 1, 0, 110, 10, "x", "y"),
        _flow("s", "y", 1, 1, 107, 0), _flow("t", "y", 1, 0, 110, 0),
        _op("x/_2", "_Recv", 3, 0, 125, 3),
        _op("z", "Add", 3, 0, 130, 4, "x/_2", "sp:1", "^y"),
        _flow("s", "sp:1", 1, 0, 120, 1), _flow("t", "sp:1", 3, 0, 130, 1),
        _op("RecvTensor", "RecvTensor", 3, 1, 131, 1)]
    assert [n.thread_id for d in ss.dev_stats for n in d.node_stats] == [0, 1, 0, 0, 0, 1]


def test_step_analysis_memory_objects_and_allocator_peak():
    analysis = timeline.Timeline(_step_stats()).analyze_step_stats(show_dataflow=False)
    events = json.loads(analysis.chrome_trace.format_to_string())["traceEvents"]
    assert events[:5] == _PIDS
    # each output is an object created at its op's start, snapshotted at its end - 1 ...
    assert [(e["ph"], e["name"], e["pid"], e["tid"], e["ts"], e["id"]) for e in events[5:9]] == [
        ("N", "x", 2, 0, 100, 0), ("O", "x", 2, 0, 104, 0),
        ("N", "y", 2, 1, 102, 1), ("O", "y", 2, 1, 106, 1)]
    assert events[6]["args"] == {"snapshot": {
        "tensor_description": "allocation_description {\n  requested_bytes: 8\n"
                              "  allocator_name: cpu\n}\n"}}
    # ... deleted after its last reader, and counted on the Allocators process
    deletes = [(e["name"], e["pid"], e["ts"]) for e in events if e["ph"] == "D"]
    assert deletes == [("x", 2, 119), ("y", 2, 119), ("sp", 2, 120), ("sp:1", 2, 133),
                       ("x/_2", 4, 133), ("z", 4, 134)]
    counters = [(e["ts"], e["args"]["cpu"]) for e in events if e["ph"] == "C"]
    assert counters == [(100, 8), (102, 16), (110, 20), (110, 24), (119, 16), (119, 8),
                        (120, 4), (125, 8), (130, 12), (133, 8), (133, 4), (134, 0)]
    assert all(e["pid"] == 0 and e["cat"] == "Memory" for e in events if e["ph"] == "C")
    peak = analysis.allocator_maximums["cpu"]
    assert (peak.timestamp, peak.num_bytes, peak.tensors) == (110, 24, {"x", "y", "sp", "sp:1"})
    no_memory = timeline.Timeline(_step_stats()).analyze_step_stats(show_memory=False)
    assert no_memory.allocator_maximums == {}


def test_traced_session_step_makes_a_tf_shaped_trace():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    loss = tf.reduce_mean(tf.nn.relu(tf.matmul(x, tf.ones([3, 2]), name="mm")), name="loss")
    md = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(loss, {x: np.ones((4, 3))}, run_metadata=md,
                 options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))
    nodes = {n.node_name: n for n in md.step_stats.dev_stats[-1].node_stats}
    # TF 1.15 writes a scalar's empty shape: `shape {\n  }` in the printed description
    assert nodes["loss"].output[0].tensor_description.HasField("shape")
    events = json.loads(timeline.Timeline(md.step_stats).generate_chrome_trace_format())
    mm = [e["args"] for e in events["traceEvents"] if e.get("name") == "MatMul"]
    assert mm[0]["input1"] == "ones" and ":" not in mm[0]["input0"]
    assert [e["args"]["name"] for e in events["traceEvents"] if e["ph"] == "M"] == [
        "Allocators", "/job:localhost/replica:0/task:0/device:CPU:0 Compute",
        "/job:localhost/replica:0/task:0/device:CPU:0 Tensors"]


def _grad_ops(fn, nargs=1):
    """The ops tf.gradients adds for fn of [3, 3] placeholders after its seed, each with its
    control inputs when it has any (as a printed GraphDef shows them)."""
    xs = [tf.placeholder(tf.float32, [3, 3], name=f"x{i}") for i in range(nargs)]
    y = fn(*xs)
    g = tf.get_default_graph()
    n0 = len(g.get_operations()) + 3  # gradients/Shape, grad_ys_0, Fill
    tf.gradients(y, xs)
    return [(op.name, [c.name for c in op.control_inputs]) if op.control_inputs else op.name
            for op in g.get_operations()[n0:]]


_FILL = ["gradients/Fill"]


@pytest.mark.parametrize("fn,nargs,want", [
    # TF 1.15 (forward-compatibility horizon 2019-08-21) builds these gradients under a control
    # dependency on the incoming gradient, with Reciprocal/mul and truediv, not Xdivy/MulNoNan
    (tf.cos, 1, ["gradients/Cos_grad/Neg", ("gradients/Cos_grad/Sin", _FILL),
                 "gradients/Cos_grad/mul"]),
    (tf.tan, 1, [("gradients/Tan_grad/Cos", _FILL), "gradients/Tan_grad/Reciprocal",
                 "gradients/Tan_grad/Square", "gradients/Tan_grad/mul"]),
    (tf.asin, 1, [("gradients/Asin_grad/Square", _FILL), ("gradients/Asin_grad/Const", _FILL),
                  "gradients/Asin_grad/Sub", "gradients/Asin_grad/Sqrt",
                  "gradients/Asin_grad/Reciprocal", "gradients/Asin_grad/mul"]),
    (tf.acosh, 1, [("gradients/Acosh_grad/Sinh", _FILL), "gradients/Acosh_grad/truediv"]),
    (tf.erf, 1, ["gradients/Erf_grad/Const", "gradients/Erf_grad/mul",
                 ("gradients/Erf_grad/Square", _FILL), "gradients/Erf_grad/Neg",
                 "gradients/Erf_grad/Exp", "gradients/Erf_grad/mul_1"]),
    (tf.sign, 1, ["gradients/Sign_grad/Shape", "gradients/Sign_grad/zeros/Const",
                  "gradients/Sign_grad/zeros"]),
    (tf.atan2, 2, [("gradients/Atan2_grad/Square", _FILL),
                   ("gradients/Atan2_grad/Square_1", _FILL), "gradients/Atan2_grad/add",
                   "gradients/Atan2_grad/truediv", "gradients/Atan2_grad/mul",
                   ("gradients/Atan2_grad/Neg", _FILL), "gradients/Atan2_grad/mul_1"]),
    (tf.polygamma, 2, ["gradients/Polygamma_grad/Shape", "gradients/Polygamma_grad/Shape_1",
                       "gradients/Polygamma_grad/BroadcastGradientArgs",
                       ("gradients/Polygamma_grad/add/y", _FILL), "gradients/Polygamma_grad/add",
                       "gradients/Polygamma_grad/Polygamma", "gradients/Polygamma_grad/mul",
                       "gradients/Polygamma_grad/Sum", "gradients/Polygamma_grad/Reshape"]),
], ids=lambda v: getattr(v, "__name__", "_"))
def test_math_gradient_ops_as_tf_prints_them(fn, nargs, want):
    assert _grad_ops(fn, nargs) == want


def test_square_gradient_const_waits_for_the_incoming_gradient():
    # print(graph.as_graph_def()) in TF 1.15: Square_grad/Const has input "^<grad op>"
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    loss = tf.reduce_mean(tf.square(x - 1.0))
    tf.gradients(loss, x)
    nodes = {n.name: list(n.input) for n in tf.get_default_graph().as_graph_def().node}
    assert nodes["gradients/Square_grad/Const"] == ["^gradients/Mean_grad/truediv"]
    assert nodes["gradients/Square_grad/Mul"] == ["sub", "gradients/Square_grad/Const"]


def test_forward_compatible_is_tf_115s_horizon():
    # TF 1.15.0: horizon 2019-08-21; forward_compatible(d) is True only for d before it
    assert tf.compat.forward_compatible(2019, 8, 20)
    assert not tf.compat.forward_compatible(2019, 8, 21)
    assert not tf.compat.forward_compatible(2019, 9, 14)
    with tf.compat.forward_compatibility_horizon(2019, 9, 20):
        assert tf.compat.forward_compatible(2019, 9, 14)


def test_list_local_devices_prints_the_cpus_empty_locality():
    # TF 1.15's str() of the CPU's DeviceAttributes has "locality {\n}" after memory_limit
    from tideflow.python.client import device_lib

    cpu = device_lib.list_local_devices()[0]
    text = str(cpu)
    assert text.startswith('name: "/device:CPU:0"\ndevice_type: "CPU"\nmemory_limit: 268435456\n'
                           'locality {\n}\nincarnation: ')


def test_reshape_gradient_of_indexed_slices_names_as_tf():
    # TF 1.15: Reshape's gradient takes shape(x) first, and the IndexedSlices from the gather
    # (boolean_mask, or the "last relevant output" gather of a reshaped RNN output) is made
    # dense inside the Reshape's scope, as its `tensor` input
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    y = tf.boolean_mask(x, [True, False])
    g = tf.get_default_graph()
    n0 = len(g.get_operations())
    tf.gradients(y, x)
    tail = [op.name for op in g.get_operations()[n0:]][-7:]
    assert tail == ["gradients/boolean_mask/Reshape_grad/Shape",
                    "gradients/boolean_mask/Reshape_grad/Reshape/strided_slice/stack",
                    "gradients/boolean_mask/Reshape_grad/Reshape/strided_slice/stack_1",
                    "gradients/boolean_mask/Reshape_grad/Reshape/strided_slice/stack_2",
                    "gradients/boolean_mask/Reshape_grad/Reshape/strided_slice",
                    "gradients/boolean_mask/Reshape_grad/Reshape/tensor",
                    "gradients/boolean_mask/Reshape_grad/Reshape"]


def test_resize_nearest_gradient_size_is_the_ops_input():
    # TF 1.15: ResizeNearestNeighbor_grad/ResizeNearestNeighborGrad/size, no separate Const
    x = tf.placeholder(tf.float32, [1, 2, 2, 1], name="x")
    y = tf.image.resize_nearest_neighbor(x, [4, 4])
    g = tf.get_default_graph()
    n0 = len(g.get_operations()) + 3  # gradients/Shape, grad_ys_0, Fill
    tf.gradients(y, x)
    assert [op.name for op in g.get_operations()[n0:]] == [
        "gradients/ResizeNearestNeighbor_grad/ResizeNearestNeighborGrad/size",
        "gradients/ResizeNearestNeighbor_grad/ResizeNearestNeighborGrad"]


def _second_order(fn):
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [3], name="x")
        gr = tf.gradients(fn(x), x)
        n0 = len(g.get_operations()) + 3  # gradients_1/Shape, grad_ys_0, Fill
        gg = tf.gradients(gr, x)
        ops_ = [(op.name, [c.name for c in op.control_inputs]) if op.control_inputs else op.name
                for op in g.get_operations()[n0:]]
        with tf.Session() as sess:
            return ops_, sess.run(gg, {x: [1e-9, 0.5, 2.0]})[0]


def test_fused_gradient_ops_gradients_as_tf_115():
    # TF 1.15's TanhGrad/SigmoidGrad gradients: under a control dependency on the incoming
    # gradient, the second input's gradient the fused op again
    p = "gradients_1/gradients/Tanh_grad/TanhGrad_grad/"
    ops_, val = _second_order(tf.tanh)
    assert ops_ == [(p + "mul/y", ["gradients_1/Fill"]), p + "mul", p + "mul_1", p + "mul_2",
                    p + "TanhGrad", "gradients_1/Tanh_grad/TanhGrad"]
    np.testing.assert_allclose(val, [-0.0, -0.726862, -0.136219], rtol=1e-5, atol=1e-7)
    p = "gradients_1/gradients/Sigmoid_grad/SigmoidGrad_grad/"
    ops_, val = _second_order(tf.sigmoid)
    assert ops_ == [p + "mul", (p + "mul_1/x", ["gradients_1/Fill"]), p + "mul_1", p + "mul_2",
                    p + "sub", p + "SigmoidGrad", "gradients_1/Sigmoid_grad/SigmoidGrad"]
    np.testing.assert_allclose(val, [0.0, -0.057557, -0.079963], rtol=1e-5, atol=1e-7)
    # SqrtGrad's: g / y, then -ga * z and 0.5 * ga (TF printed these values)
    p = "gradients_1/gradients/Sqrt_grad/SqrtGrad_grad/"
    ops_, val = _second_order(tf.sqrt)
    assert ops_ == [p + "truediv", p + "Neg", p + "mul", (p + "mul_1/x", ["gradients_1/Fill"]),
                    p + "mul_1", "gradients_1/Sqrt_grad/SqrtGrad"]
    np.testing.assert_allclose(val, [-7.905693e+12, -7.071068e-01, -8.838835e-02], rtol=1e-5)


def test_bessel_i1e_gradient_takes_tiny_x_as_eps():
    # TF 1.15: |x| <= eps gives the slope 1/2; its ops, Select (tf.where v1) and all
    _, val = _second_order(tf.math.bessel_i1e)
    np.testing.assert_allclose(val, [0.0, -0.39025, -0.017828], rtol=1e-4, atol=1e-7)
    x = tf.placeholder(tf.float32, [3], name="x")
    y = tf.math.bessel_i1e(x)
    names = [op.name for op in tf.get_default_graph().get_operations()]
    n0 = len(names) + 3
    tf.gradients(y, x)
    p = "gradients/BesselI1e_grad/"
    assert [op.name for op in tf.get_default_graph().get_operations()[n0:]] == [
        p + n for n in ("zeros_like", "Abs", "Greater/y", "Greater", "add/x", "add", "Select",
                        "BesselI0e", "Sign", "Reciprocal", "add_1", "mul", "sub", "add_2/x",
                        "add_2", "Select_1", "mul_1")]


def test_relu_and_elu_second_order_ops_as_tf_115():
    # the gradient penalty of a WGAN-GP differentiates ReluGrad/EluGrad: TF 1.15 gives the
    # second input zeros(shape(x)) (three ops) and builds EluGrad before its Select
    ops_, _ = _second_order(tf.nn.relu)
    p = "gradients_1/gradients/Relu_grad/ReluGrad_grad/"
    assert ops_ == [p + "ReluGrad", p + "Shape", p + "zeros/Const", p + "zeros",
                    "gradients_1/Relu_grad/ReluGrad"]
    ops_, _ = _second_order(tf.nn.elu)
    p = "gradients_1/gradients/Elu_grad/EluGrad_grad/"
    assert ops_ == [p + "EluGrad", p + "Less/y", p + "Less", p + "mul", p + "zeros_like",
                    p + "Select", "gradients_1/Elu_grad/EluGrad"]


def test_complex_and_determinant_gradient_ops_as_tf_115():
    # TF 1.15: Complex's gradient always sums through BroadcastGradientArgs and reshapes,
    # Real's takes a scalar zero Const, ComplexAbs's is div_no_nan((g + 0j) * x, |x| + 0j)
    re, im = tf.placeholder(tf.float32, [3], name="re"), tf.placeholder(tf.float32, [3], name="im")
    y = tf.abs(tf.complex(re, im))
    g = tf.get_default_graph()
    n0 = len(g.get_operations()) + 3
    tf.gradients(y, [re, im])
    assert [op.name for op in g.get_operations()[n0:]] == [
        "gradients/Abs_grad/" + n for n in ("zeros_like", "Complex", "mul", "zeros_like_1",
                                            "Complex_1", "div_no_nan")] + [
        "gradients/Complex_grad/" + n for n in ("Shape", "Shape_1", "BroadcastGradientArgs",
                                                "Real", "Sum", "Reshape", "Imag", "Sum_1",
                                                "Reshape_1")]
    det = tf.matrix_determinant(tf.placeholder(tf.float64, [2, 3, 3], name="m"))
    n1 = len(g.get_operations()) + 3
    tf.gradients(det, det.op.inputs[0])
    assert [op.name for op in g.get_operations()[n1:]] == [
        "gradients_1/MatrixDeterminant_grad/" + n for n in (
            "MatrixInverse", "mul", "Shape", "concat/values_1", "concat/axis", "concat",
            "Reshape", "mul_1")]
    x = tf.placeholder(tf.float32, [3], name="x")
    r = tf.real(tf.complex(x, 1.0))
    n2 = len(g.get_operations()) + 3
    tf.gradients(r, x)
    assert [op.name for op in g.get_operations()[n2:]][:2] == [
        "gradients_2/Real_grad/Const", "gradients_2/Real_grad/Complex"]
    fd = {re: [1.0, 0.0, -2.0], im: [2.0, 0.0, 0.5]}
    with tf.Session() as sess:
        # TF 1.15 printed [0.44721, 0.0, -0.97014] and [0.89443, 0.0, 0.24254]
        got = sess.run(tf.gradients(tf.reduce_sum(y), [re, im]), fd)
    np.testing.assert_allclose(got, [[0.44721, 0.0, -0.97014], [0.89443, 0.0, 0.24254]],
                               atol=1e-5)


def test_cholesky_gradient_and_eye_ops_as_tf_115():
    # TF 1.15: L^-1 by a triangular solve against eye(shape(L)[-1], batch_shape=...), whose
    # ops (Minimum, concat of the batch shape and the size, ones, diag) tf.eye builds whenever
    # a size or the batch shape is a tensor; the symmetrisation through tf.linalg.adjoint
    x = tf.placeholder(tf.float32, [3, 3], name="x")
    y = tf.cholesky(x)
    g = tf.get_default_graph()
    n0 = len(g.get_operations()) + 3
    tf.gradients(y, x)
    names = [op.name[len("gradients/Cholesky_grad/"):] for op in g.get_operations()[n0:]]
    assert names[10:17] == ["eye/Minimum", "eye/concat/values_1", "eye/concat/axis",
                            "eye/concat", "eye/ones/Const", "eye/ones", "eye/diag"]
    assert names[17:] == [
        "MatrixTriangularSolve", "MatMul", "diag_part", "mul/x", "mul", "set_diag",
        "MatrixBandPart/num_lower", "MatrixBandPart/num_upper", "MatrixBandPart", "MatMul_1",
        "MatMul_2", "adjoint/matrix_transpose/transpose/perm",
        "adjoint/matrix_transpose/transpose", "add", "mul_1/y", "mul_1"]
    # tf.eye(True) is a 1 x 1 identity in TF 1.15 (True is an int there)
    assert tf.eye(True).shape.as_list() == [1, 1]


def test_qr_and_eigh_gradients_as_tf_115():
    # TF 1.15: Qr's gradient transposes through tf.linalg.adjoint (adjoint/matrix_transpose
    # scopes), SelfAdjointEigV2's builds under a control dependency on both incoming gradients
    a = tf.placeholder(tf.float32, [3, 3], name="a")
    spd = tf.matmul(a, a, transpose_b=True) + 3 * tf.eye(3)
    chol = tf.reduce_sum(tf.cholesky(spd) * tf.constant(np.arange(9.0).reshape(3, 3),
                                                        tf.float32))
    qr = tf.reduce_sum(tf.qr(a)[1]) + tf.reduce_sum(tf.qr(a)[0] ** 2 * 0.3)
    eig = tf.reduce_sum(tf.self_adjoint_eig(spd)[0] * [1.0, 2.0, 3.0])
    grads = [tf.gradients(t, a)[0] for t in (chol, qr, eig)]
    g = tf.get_default_graph()
    assert g.get_operation_by_name("gradients_1/Qr_grad/adjoint/matrix_transpose/transpose")
    perm = g.get_operation_by_name(
        "gradients_2/SelfAdjointEigV2_grad/adjoint/matrix_transpose/transpose/perm")
    assert [c.name for c in perm.control_inputs] == ["gradients_2/mul_3_grad/Mul",
                                                     "gradients_2/zeros_like"]
    fd = {a: np.array([[1.0, 0.2, -0.3], [0.5, 2.0, 0.1], [-0.4, 0.3, 1.5]])}
    with tf.Session() as sess:
        got = sess.run(grads, fd)
    # TF 1.15's printed values
    np.testing.assert_allclose(got[0], [[-0.1794, 4.2803, 4.796], [1.3689, 3.5583, 3.0523],
                                        [2.8849, 6.2301, 4.5104]], atol=2e-4)
    np.testing.assert_allclose(got[1], [[-0.062, -0.9798, -0.0905], [-2.2195, -1.1312, -1.4869],
                                        [0.0392, -0.895, 0.8836]], atol=2e-4)
    np.testing.assert_allclose(got[2], [[3.2475, 2.0135, -1.6587], [3.48, 11.7693, 1.1629],
                                        [-1.856, 2.1139, 5.8326]], atol=2e-4)


def test_incomplete_gamma_and_beta_gradients_as_tf_115():
    # TF 1.15: shapes and BroadcastGradientArgs first, Sum and Reshape per input; Igammac's
    # two gradients negated after; Betainc's through log(1 - x) and log(x): NaN at x = 0 or 1
    # where a factor is 0 (TF printed [nan, 0, 0, nan])
    a, x = tf.placeholder(tf.float32, [4], name="a"), tf.placeholder(tf.float32, [4], name="x")
    b = tf.placeholder(tf.float32, [4], name="b")
    gi = tf.gradients(tf.reduce_sum(tf.igammac(a, x)), [a, x])
    p = "gradients/Igammac_grad/"
    names = [op.name[len(p):] for op in tf.get_default_graph().get_operations()
             if op.name.startswith(p)]
    assert names[:3] == ["Shape", "Shape_1", "BroadcastGradientArgs"]
    assert names[-2:] == ["Neg_1", "Neg_2"]
    gb = tf.gradients(tf.reduce_sum(tf.betainc(a, b, tf.constant([0.0, 1.0, 0.5, 1.0]) * x)), x)
    fd = {a: [0.5, 1.0, 2.0, 3.0], x: [0.3, 1.0, 0.0, 2.5], b: [1.0, 2.0, 0.5, 1.0]}
    with tf.Session() as sess:
        got_i, got_b = sess.run([gi, gb], fd)
    np.testing.assert_allclose(got_i, [[0.7706, 0.4317, 0.0, 0.2471],
                                       [-0.7631, -0.3679, 0.0, -0.2565]], atol=1e-4)
    np.testing.assert_allclose(got_b[0], [np.nan, 0.0, 0.0, np.nan])


def test_sparse_reduce_sum_gradient_ops_as_tf_115():
    # TF 1.15: reduced_shape's ops (Cast, Size, add, mod, Shape, range, Fill, DynamicStitch),
    # then Reshape, Cast_1, the two floordivs and GatherNd
    v = tf.placeholder(tf.float32, [1], name="v")
    y = tf.sparse_reduce_sum(tf.SparseTensor([[0, 1]], v, [2, 3]))
    g = tf.get_default_graph()
    n0 = len(g.get_operations()) + 3
    tf.gradients(y, v)
    p = "gradients/SparseReduceSum_grad/"
    assert [op.name for op in g.get_operations()[n0:]] == [p + n for n in (
        "Cast", "Size", "add", "mod", "Shape", "range/start", "range/delta", "range",
        "Fill/value", "Fill", "DynamicStitch", "Reshape", "Cast_1", "floordiv", "floordiv_1",
        "GatherNd")]


def test_segment_max_and_crop_and_resize_gradient_ops_as_tf_115():
    # TF 1.15: SegmentMax's gradient makes zeros_like(data) first; CropAndResize's passes a
    # known image shape as the op's image_size input
    d = tf.placeholder(tf.float32, [2, 3], name="d")
    y = tf.math.segment_max(d, [0, 0])
    img = tf.placeholder(tf.float32, [1, 4, 4, 1], name="img")
    c = tf.image.crop_and_resize(img, [[0.0, 0.0, 1.0, 1.0]], [0], [2, 2])
    g = tf.get_default_graph()
    n0 = len(g.get_operations()) + 3
    tf.gradients(y, d)
    assert g.get_operations()[n0].name == "gradients/SegmentMax_grad/zeros_like"
    n1 = len(g.get_operations()) + 3
    tf.gradients(c, img)
    assert [op.name for op in g.get_operations()[n1:]] == [
        "gradients_1/CropAndResize_grad/CropAndResizeGradImage/image_size",
        "gradients_1/CropAndResize_grad/CropAndResizeGradImage",
        "gradients_1/CropAndResize_grad/CropAndResizeGradBoxes"]


def _grad_names(y, x, prefix):
    g = tf.get_default_graph()
    n0 = len(g.get_operations()) + 3
    tf.gradients(y, x)
    return [op.name[len(prefix):] for op in g.get_operations()[n0:] if op.name.startswith(prefix)]


def test_sparse_and_scatter_gradient_ops_as_tf_115():
    # TF 1.15's op lists (printed by the same program there)
    v = tf.placeholder(tf.float32, [2], name="v")
    sp = tf.SparseTensor([[0, 0], [1, 1]], v, [2, 2])
    assert _grad_names(tf.sparse_tensor_to_dense(sp), v, "gradients/SparseToDense_grad/") == [
        "GatherNd", "Const", "Sum", "Const_1", "Sum_1", "sub", "zeros_like", "zeros_like_1"]
    y = tf.sparse_softmax(tf.SparseTensor([[0, 0], [0, 1]], v, [2, 2])).values
    assert _grad_names(y, v, "gradients_1/SparseSoftmax/SparseSoftmax_grad/") == [
        "mul", "SparseReduceSum/reduction_axes", "SparseReduceSum", "Neg",
        "SparseDenseCwiseAdd", "mul_1"]
    x, u = tf.placeholder(tf.float32, [3, 2], name="x"), tf.placeholder(tf.float32, [1, 2])
    y = tf.tensor_scatter_update(x, [[0]], u)
    assert _grad_names(y, [x, u], "gradients_2/TensorScatterUpdate_grad/") == [
        "GatherNd", "Identity", "zeros_like", "TensorScatterUpdate"]
    m, d = tf.placeholder(tf.float32, [3, 3], name="m"), tf.placeholder(tf.float32, [3])
    assert _grad_names(tf.matrix_set_diag(m, d), [m, d], "gradients_3/set_diag_grad/") == [
        "zeros", "set_diag", "diag_part"]
    with tf.Session() as sess:
        # TF printed [-0.3932, 0.3932, 0, 0] for the softmax rows weighted 1..9
        vv = tf.placeholder(tf.float32, [4])
        sp4 = tf.SparseTensor([[0, 0], [0, 2], [1, 1], [2, 0]], vv, [3, 3])
        w = tf.constant(np.arange(1, 10, dtype=np.float32).reshape(3, 3))
        g = tf.gradients(tf.reduce_sum(tf.sparse_tensor_to_dense(tf.sparse_softmax(sp4)) * w),
                         vv)
        got = sess.run(g, {vv: [1.0, 2.0, 0.5, -1.0]})[0]
    np.testing.assert_allclose(got, [-0.3932, 0.3932, 0.0, 0.0], atol=1e-4)


def test_softmax_xent_and_avg_pool_second_order_as_tf_115():
    # TF 1.15: the logits' second-order part is a batched MatMul of grad_grad and softmax,
    # squeezed; the labels' gradient takes no part of grad_grad (TF printed zeros for the
    # labels below); AvgPoolGrad's gradient stops the input shape first
    lg, lb = tf.placeholder(tf.float32, [2, 3]), tf.placeholder(tf.float32, [2, 3])
    loss = tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits_v2(labels=lb, logits=lg)
                         * [1.0, 2.0])
    g1 = tf.gradients(loss, [lg, lb])
    g2 = tf.gradients(tf.reduce_sum(tf.square(g1[0])) + tf.reduce_sum(g1[1] * g1[0]), [lg, lb])
    ops_ = [op.name for op in tf.get_default_graph().get_operations()]
    p = "gradients_1/softmax_cross_entropy_with_logits_grad/"
    assert [p + n in ops_ for n in ("MatMul", "Squeeze", "sub_1")] == [True, True, False]
    fd = {lg: [[0.1, 0.5, -0.3], [1.0, 2.0, 0.5]], lb: [[0.2, 0.3, 0.5], [0.0, 1.0, 0.0]]}
    with tf.Session() as sess:
        d_logits, d_labels = sess.run(g2, fd)
    np.testing.assert_allclose(d_logits, [[-0.04575, -0.20292, 0.24867],
                                          [0.3159, -0.68591, 0.37002]], atol=1e-5)
    assert not d_labels.any()
    x = tf.placeholder(tf.float32, [1, 4, 4, 1], name="x")
    gr = tf.gradients(tf.reduce_sum(tf.square(tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1],
                                                             "VALID"))), x)[0]
    tf.gradients(tf.reduce_sum(tf.square(gr)), x)
    assert tf.get_default_graph().get_operation_by_name(
        "gradients_3/gradients_2/AvgPool_grad/AvgPoolGrad_grad/StopGradient").type == "StopGradient"


def test_select_v2_gradient_ops_as_tf_115():
    # TF 1.15: zeros, SelectV2, Shape(x), Shape_1(out), BroadcastGradientArgs, Sum, Reshape,
    # then the same for the else branch against the one output shape
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    y = tf.where_v2(x > 0, x, 0.0)
    assert _grad_names(y, x, "gradients/SelectV2_grad/") == [
        "zeros", "SelectV2", "Shape", "Shape_1", "BroadcastGradientArgs", "Sum", "Reshape",
        "SelectV2_1", "Shape_2", "BroadcastGradientArgs_1", "Sum_1", "Reshape_1"]


def test_in_top_k_converts_its_inputs_inside_the_op():
    # print(op.node_def) in TF 1.15: input "itk/itk/predictions", "itk/itk/targets", "itk/itk/k"
    t = tf.nn.in_top_k([[0.1, 0.9]], [1], 1, name="itk")
    assert [i.name for i in t.op.inputs] == ["itk/itk/predictions:0", "itk/itk/targets:0",
                                             "itk/itk/k:0"]
    t = tf.nn.in_top_k(tf.constant([[0.1, 0.9]]), tf.constant([1], tf.int64), 1)
    assert t.op.name == "in_top_k/InTopKV2" and t.op.get_attr("T") == tf.int64
