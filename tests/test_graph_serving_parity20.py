"""Programs that build, edit, freeze and ship graphs (py_func, custom gradients, GraphDef and
SavedModel round trips), run under TF 1.15 and tideflow; expected values are TF 1.15's."""

import re

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_custom_gradient_using_variables_needs_variables_kwarg():
    # TF 1.15: TypeError with these words when grad_fn cannot take `variables`.
    w = tf.Variable(1.0, name="w")

    @tf.custom_gradient
    def scale(x):
        def grad(dy):
            return dy
        return x * w, grad

    with pytest.raises(TypeError) as e:
        scale(tf.constant(1.0))
    assert str(e.value) == (
        "If using @custom_gradient with a function that uses variables, then grad_fn must "
        "accept a keyword argument 'variables'.")


def test_extract_sub_graph_keeps_colocation_groups_and_wants_node_names():
    # TF 1.15 follows `_class` "loc:@side" as an input, and asserts on "b:0" (not a node name)
    a = tf.constant(1.0, name="a")
    side = tf.constant(5.0, name="side")
    with tf.colocate_with(side):
        tf.add(a, 2.0, name="b")
    gd = tf.get_default_graph().as_graph_def()
    sub = tf.graph_util.extract_sub_graph(gd, ["b"])
    assert [n.name for n in sub.node] == ["a", "side", "b/y", "b"]
    for bad in ("b:0", "^b"):
        with pytest.raises(AssertionError, match=re.escape(f"{bad} is not in graph")):
            tf.graph_util.extract_sub_graph(gd, [bad])
    with pytest.raises(AssertionError, match="probs:0 is not in graph"):
        tf.graph_util.convert_variables_to_constants(None, gd, ["probs:0"])


def test_contrib_predictor_keys_repr_and_argument_checks(tmp_path):
    # TF 1.15's SavedModelPredictor: an input may be left out, an unknown key fails with
    # these words; its repr names the tensor dicts; it checks its arguments first.
    export_dir = str(tmp_path / "m")
    a = tf.placeholder(tf.float32, [None], name="a")
    b = tf.placeholder_with_default(tf.constant([10.0]), [None], name="b")
    with tf.Session() as sess:
        tf.saved_model.simple_save(sess, export_dir, inputs={"a": a, "b": b},
                                   outputs={"s": tf.identity(b, name="s")})
    pred = tf.contrib.predictor.from_saved_model(export_dir)
    assert pred({"a": [1.0]})["s"].tolist() == [10.0]
    with pytest.raises(ValueError) as e:
        pred({"nope": [1.0]})
    assert str(e.value).startswith("Got unexpected keys in input_dict: {'nope'}\nexpected: ")
    assert repr(pred).startswith("SavedModelPredictor with feed tensors {")
    empty = tf.contrib.predictor.from_saved_model(export_dir, signature_def_key="zzz")
    assert (empty.feed_tensors, empty.fetch_tensors, empty({})) == ({}, {}, {})
    with pytest.raises(ValueError, match="input_names and output_names must both be"):
        tf.contrib.predictor.from_saved_model(export_dir, input_names={"a": "a:0"})
    with pytest.raises(ValueError, match="You must specify at most one of signature_def_key"):
        tf.contrib.predictor.from_saved_model(export_dir, signature_def_key="serving_default",
                                              input_names={}, output_names={})


def _ge_chain():
    a = tf.placeholder(tf.float64, [2], name="a")
    b = tf.placeholder(tf.float64, [2], name="b")
    c = tf.add(a, b, name="c")
    d = tf.multiply(c, 2.0, name="d")
    e = tf.sin(d, name="e")
    f = tf.subtract(c, b, name="f")
    return a, b, c, d, e, f


def test_graph_editor_selection_as_tf():
    # TF 1.15: tensors are those the ops read, then those they produce; a regex needs graph=;
    # restrict_*_regex keeps only the marked regexes; each selector takes the other's flag.
    ge = tf.contrib.graph_editor
    g = tf.get_default_graph()
    a, _b, c, d, e, _f = _ge_chain()

    def names(xs):
        return [x.name for x in xs]

    assert names(ge.filter_ts([d.op], True)) == ["c:0", "d/y:0", "d:0"]
    assert names(ge.filter_ts_from_regex([d.op, e.op], "^d")) == ["d/y:0", "d:0"]
    assert names(ge.select_ts(".*", graph=g)) == [
        "a:0", "b:0", "c:0", "d/y:0", "d:0", "e:0", "f:0"]
    assert names(ge.select_ops("^d", "(?#ops)^e", graph=g, restrict_ops_regex=True)) == ["e"]
    assert names(ge.select_ts("^d", "(?#ts)^e", graph=g, restrict_ts_regex=True)) == ["e:0"]
    assert names(ge.select_ts(a, restrict_ops_regex=True)) == ["a:0"]
    assert names(ge.select_ops(a.op, restrict_ts_regex=True)) == ["a"]
    assert [names(x) for x in ge.select_ops_and_ts("^d", "(?#ts)^c", graph=g)] == [
        ["d/y", "d"], ["c:0"]]
    for call in (lambda: ge.select_ops("^d", e.op, restrict_ops_regex=True),
                 lambda: ge.select_ops_and_ts(c, "^e")):
        with pytest.raises(ValueError, match="Use the keyword argument 'graph' to use regex."):
            call()
    with pytest.raises(TypeError, match="^Expected a tf.Graph, got <class 'int'>$"):
        ge.select_ts("^a", graph=3)
    with pytest.raises(TypeError, match="^Expected a tf.Graph, got: <class 'int'>$"):
        ge.select_ops("^a", graph=3)


def test_graph_editor_view_str_and_detached_placeholders():
    # TF 1.15 prints a view one name a line, passthrough tensors starred; detach_inputs'
    # placeholders carry the dtype only
    ge = tf.contrib.graph_editor
    _a, _b, c, _d, e, f = _ge_chain()
    g_id = id(tf.get_default_graph())
    assert str(ge.sgv()) == "SubGraphView: empty"
    assert str(ge.SubGraphView([c.op], [f])) == (
        f"SubGraphView (graphid={g_id}):\n** ops[1]:\n  c\n** inputs[3]:\n  a:0\n  b:0\n"
        "  f:0 *\n** outputs[2]:\n  c:0\n  f:0 *\n")
    _, (ph,) = ge.detach_inputs(ge.sgv(e.op))
    assert ph.get_shape().ndims is None and ph.dtype == tf.float64


def test_saved_model_load_unknown_tags_lists_available_tag_sets(tmp_path):
    # TF 1.15's RuntimeError ends with "\navailable_tags: [{...}, ...]" (the tag sets as sets)
    export_dir = str(tmp_path / "m")
    x = tf.placeholder(tf.float32, [None], name="x")
    builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
    with tf.Session() as sess:
        builder.add_meta_graph_and_variables(sess, ["serve"])
        builder.add_meta_graph(["eval"], signature_def_map={
            "p": tf.saved_model.signature_def_utils.predict_signature_def({"x": x}, {"y": x})})
    builder.save()
    with tf.Session(graph=tf.Graph()) as sess, pytest.raises(RuntimeError) as e:
        tf.saved_model.loader.load(sess, ("train",), export_dir)
    assert str(e.value) == (
        "MetaGraphDef associated with tags ('train',) could not be found in SavedModel. To "
        "inspect available tag-sets in the SavedModel, please use the SavedModel CLI: "
        "`saved_model_cli`\navailable_tags: [{'serve'}, {'eval'}]")


def test_stateless_py_func_on_constants_runs_once_per_plan():
    # TF 1.15 folds a PyFuncStateless whose inputs are constants (or none) when it builds the
    # step: three runs call it once, whatever it returns; fed inputs call it every run.
    calls = {}

    def counted(key, value):
        def f(*args):
            calls[key] = calls.get(key, 0) + 1
            return value
        return f

    c = tf.constant(2.0)
    ph = tf.placeholder(tf.float32, [])
    fetches = [tf.py_func(counted("none", np.float32(1)), [], tf.float32, stateful=False),
               tf.py_func(counted("const", np.float32(1)), [c * 3.0], tf.float32,
                          stateful=False),
               tf.py_func(counted("str", b"ab"), [c], tf.string, stateful=False),
               tf.py_func(counted("fed", np.float32(1)), [ph], tf.float32, stateful=False),
               tf.py_func(counted("stateful", np.float32(1)), [c], tf.float32)]
    with tf.control_dependencies([c]):
        fetches.append(tf.py_func(counted("ctrl", np.float32(1)), [c], tf.float32,
                                  stateful=False))
    with tf.Session() as sess:
        for _ in range(3):
            out = sess.run(fetches, {ph: 1.0})
    assert out[2] == b"ab"
    assert calls == {"none": 1, "const": 1, "str": 1, "fed": 3, "stateful": 3, "ctrl": 1}


def test_py_func_registers_its_function_before_checking_tout():
    # TF 1.15: a Tout of None fails after the function took a token (pyfunc_0, then pyfunc_2)
    def token():
        return int(tf.py_func(lambda: 1, [], tf.int64).op.get_attr("token").split(b"_")[1])

    first = token()
    with pytest.raises(TypeError, match="Expected DataType for argument 'Tout' not None."):
        tf.py_func(lambda: 1, [], None)
    assert token() == first + 2


def _import_error(text):
    from google.protobuf import text_format

    with pytest.raises(Exception) as e:
        tf.import_graph_def(text_format.Parse(text, tf.GraphDef()), name="i")
    return str(e.value)


def test_import_errors_summarize_the_op_def_as_tf():
    # TF 1.15's SummarizeOpDef: signature, attrs with defaults/minimums/allowed values (a list
    # of 15 or more shows its first 5, "...", its last 5) and the op's flags
    bogus = 'attr { key: "zzz" value { i: 1 } }'
    assert _import_error(f'node {{ name: "q" op: "MatMul" {bogus} }}').startswith(
        "NodeDef mentions attr 'zzz' not in Op<name=MatMul; signature=a:T, b:T -> product:T; "
        "attr=transpose_a:bool,default=false; attr=transpose_b:bool,default=false; "
        "attr=T:type,allowed=[DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, "
        "DT_COMPLEX64, DT_COMPLEX128]>; NodeDef: {{node i/q}}. (Check whether your")
    assert _import_error(f'node {{ name: "q" op: "BiasAdd" {bogus} }}').startswith(
        "NodeDef mentions attr 'zzz' not in Op<name=BiasAdd; signature=value:T, bias:T -> "
        "output:T; attr=T:type,allowed=[DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, "
        "..., DT_UINT16, DT_COMPLEX128, DT_HALF, DT_UINT32, DT_UINT64]; "
        'attr=data_format:string,default="NHWC",allowed=["NHWC", "NCHW"]>')
    for op, summary in (
            ("Placeholder", ("signature= -> output:dtype; attr=dtype:type; "
                            "attr=shape:shape,default=<unknown>>")),
            ("Assign", ("signature=ref:Ref(T), value:T -> output_ref:Ref(T); attr=T:type; "
                       "attr=validate_shape:bool,default=true; "
                       "attr=use_locking:bool,default=true; allows_uninitialized_input=true>")),
            ("Split", ("signature=split_dim:int32, value:T -> output:num_split*T; "
                      "attr=num_split:int,min=1; attr=T:type>")),
            ("PyFunc", ("signature=input: -> output:; attr=token:string; "
                       "attr=Tin:list(type),min=0; attr=Tout:list(type),min=0; "
                       "is_stateful=true>"))):
        assert f"Op<name={op}; {summary}; NodeDef" in _import_error(
            f'node {{ name: "q" op: "{op}" {bogus} }}')


def test_import_cycle_and_unknown_op_messages():
    # TF 1.15 counts the nodes left in (or behind) a cycle without naming them, and its
    # unknown-op NotFoundError ends with a note on lazily registered contrib ops
    ident = 'node {{ name: "{}" op: "Identity" input: "{}" attr {{ key: "T" value {{ type: ' \
            'DT_FLOAT }} }} }}'
    cycle = ident.format("a", "b") + ident.format("b", "a") + ident.format("c", "b")
    assert _import_error(cycle) == "3 nodes in a cycle"
    message = _import_error('node { name: "q" op: "NoSuchOp246" }')
    assert message.endswith(
        "registered in the binary running in this process. Note that if you are loading a "
        "saved graph which used ops from tf.contrib, accessing (e.g.) `tf.contrib.resampler` "
        "should be done before importing the graph, as contrib ops are lazily registered when "
        "the module is first accessed.")


def test_graph_def_rewrites_keep_what_tf_keeps(caplog):
    # TF 1.15: extract_sub_graph keeps library and versions, convert_variables_to_constants
    # the library only, remove_training_nodes neither; a scoped export leaves out the empty
    # library; an unserializable collection is skipped with TF's warning
    g = tf.get_default_graph()
    tf.constant(1.0, name="c")
    gd = g.as_graph_def()
    sub = tf.graph_util.extract_sub_graph(gd, ["c"])
    assert (sub.HasField("library"), sub.HasField("versions")) == (True, True)
    with tf.Session() as sess:
        frozen = tf.graph_util.convert_variables_to_constants(sess, gd, ["c"])
    assert (frozen.HasField("library"), frozen.HasField("versions")) == (True, False)
    bare = tf.graph_util.remove_training_nodes(gd)
    assert (bare.HasField("library"), bare.HasField("versions")) == (False, False)
    assert not tf.train.export_meta_graph(export_scope="nope").graph_def.HasField("library")
    tf.add_to_collection("mixed", "text")
    tf.add_to_collection("mixed", 3)
    with caplog.at_level("WARNING"):
        mg = tf.train.export_meta_graph()
    assert "mixed" not in mg.collection_def
    assert ("Issue encountered when serializing mixed.\nType is unsupported, or the types of "
            "the items don't match field type in CollectionDef. Note this is a warning and "
            "probably safe to ignore.\nExpected binary or unicode string, got 3") in caplog.text


def test_graph_editor_copy_in_the_same_graph_reads_new_placeholders():
    # TF 1.15's Transformer: ops copied one at a time, each read of an input of the view a
    # new placeholder (even in the view's graph), copies joining their originals' collections
    # (a user collection renamed into the destination scope); the copy's view has no inputs
    ge = tf.contrib.graph_editor
    g = tf.get_default_graph()
    a = tf.placeholder(tf.float32, [2], name="a")
    c = tf.add(a, a, name="c")
    d = tf.multiply(c, 2.0, name="d")
    tf.add_to_collection("mine", d)
    tf.add_to_collection(tf.GraphKeys.ACTIVATIONS, c)
    view, info = ge.copy(ge.sgv(c.op, d.op))
    assert [op.name for op in g.get_operations()] == [
        "a", "c", "d/y", "d", "geph__a_0", "geph__a_0_1", "c_1", "geph__y_0", "d_1"]
    assert (view.inputs, [t.name for t in view.outputs]) == ((), ["d_1:0"])
    assert [t.name for t in tf.get_collection("mine")] == ["d:0", "d_1:0"]
    assert [t.name for t in tf.get_collection(tf.GraphKeys.ACTIVATIONS)] == ["c:0", "c_1:0"]
    ge.copy(ge.sgv(c.op, d.op), dst_scope="cp")
    assert [t.name for t in tf.get_collection("cp/mine")] == ["cp/d:0"]
    ge.copy(ge.sgv(c.op, d.op), dst_scope="cp", reuse_dst_scope=True)
    assert [op.name for op in g.get_operations()][-5:] == [
        "cp/geph__a_0_2", "cp/geph__a_0_3", "cp/c_1", "cp/geph__y_0_1", "cp/d_1"]
    _, replaced = ge.copy_with_input_replacements(
        ge.sgv(d.op), {c: tf.constant([1.0, 2.0], name="k")}, dst_scope="rep")
    with tf.Session() as sess:
        assert sess.run(replaced.transformed(d)).tolist() == [2.0, 4.0]
        got = sess.run(info.transformed(d), {"geph__a_0:0": [1.0, 2.0],
                                             "geph__a_0_1:0": [3.0, 4.0], "geph__y_0:0": 10.0})
    assert got.tolist() == [40.0, 60.0]
    with pytest.raises(ValueError, match="c does not belong to source scope: zz/."):
        ge.copy(ge.sgv(c.op), src_scope="zz")


def test_py_func_gets_writable_copies_of_its_inputs():
    # TF 1.15: changing the argument in place reaches neither the variable, the constant nor
    # the fed array, and the argument is writable even for a folded constant
    def bump(a):
        writable = a.flags.writeable
        a[0] = 99.0
        return np.float32(writable)

    v = tf.Variable([1.0, 2.0])
    ph = tf.placeholder(tf.float32, [2])
    c = tf.constant([1.0, 2.0])
    fed = np.array([1.0, 2.0], np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for src in (c, v, ph, c * 2.0, tf.identity(v)):
            assert sess.run(tf.py_func(bump, [src], tf.float32), {ph: fed}) == 1.0
        assert sess.run(v).tolist() == [1.0, 2.0] and sess.run(c).tolist() == [1.0, 2.0]
    assert fed.tolist() == [1.0, 2.0]


def test_py_func_result_is_a_copy_of_the_returned_array():
    # TF 1.15 copies what the function returns: changing the function's array afterwards
    # changes neither a fetched result nor a later consumer's input
    kept = np.array([1.0, 2.0], np.float32)
    out = tf.py_func(lambda: kept, [], tf.float32)
    neg = tf.negative(tf.py_func(lambda: kept, [], tf.float32))
    with tf.Session() as sess:
        got = sess.run(out)
        assert got is not kept
        kept[0] = 5.0
        assert got.tolist() == [1.0, 2.0]
        assert sess.run(neg).tolist() == [-5.0, -2.0]
    assert kept.tolist() == [5.0, 2.0]


def test_graph_editor_list_checks_in_tf_words():
    # TF 1.15's util: types checked through get_unique_graph; without check_graph nothing is
    # checked and non-ops are dropped; remove_control_inputs names the op, then the input
    ge = tf.contrib.graph_editor
    c = tf.constant(1.0, name="c")
    d = tf.identity(c, name="d")
    n1 = tf.no_op(name="n1")
    with pytest.raises(TypeError) as e:
        ge.make_list_of_op([c])
    assert str(e.value) == (f"Expected a type in ({tf.Operation}), got: {tf.Tensor}")
    assert ge.make_list_of_op([c, d.op], check_graph=False) == [d.op]
    assert ge.make_list_of_op([c, d.op], ignore_ts=True) == [d.op]
    with pytest.raises(TypeError, match="^allow_graph is False: cannot convert a tf.Graph.$"):
        ge.make_list_of_t(tf.get_default_graph(), allow_graph=False)
    with pytest.raises(TypeError, match="is not iterable"):
        ge.get_unique_graph(c)
    with pytest.raises(ValueError, match="^d is not a control_input of n1$"):
        ge.remove_control_inputs(d.op, [n1])


def test_contrib_predictor_from_estimator(tmp_path):
    # TF 1.15's CoreEstimatorPredictor: model_fn in PREDICT mode on the receiver's features,
    # the export output's signature, variables from the estimator's latest checkpoint
    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [2, 1], initializer=tf.constant_initializer([[1.0], [2.0]]))
        pred = tf.matmul(features["x"], w)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"p": pred}, export_outputs={
                "serving_default": tf.estimator.export.PredictOutput({"p": pred})})
        loss = tf.reduce_mean(tf.square(pred - labels))
        train = tf.train.GradientDescentOptimizer(0.0).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)

    def receiver():
        x = tf.placeholder(tf.float32, [None, 2], name="xin")
        return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "md"))
    est.train(tf.estimator.inputs.numpy_input_fn(
        {"x": np.ones((2, 2), np.float32)}, np.ones((2, 1), np.float32), batch_size=2,
        shuffle=False), steps=1)
    pred = tf.contrib.predictor.from_estimator(est, receiver)
    assert sorted(pred.feed_tensors) == ["x"] and pred.feed_tensors["x"].name == "xin:0"
    assert pred({"x": [[2.0, 1.0]]})["p"].tolist() == [[4.0]]
    with pytest.raises(KeyError, match="output_key must be one of"):
        tf.contrib.predictor.from_estimator(est, receiver, output_key="nope")


def test_import_input_map_value_from_another_graph_is_found_by_name():
    # TF 1.15's C importer looks an input_map value up by name in the importing graph: a
    # namesake there is used, none is an error in its words
    src = tf.Graph()
    with src.as_default():
        a = tf.constant(1.0, name="a")
        b_src = tf.constant(7.0, name="b")
        tf.identity(a * 2.0, name="out")
    gd = src.as_graph_def()
    tf.constant(2.0, name="b")
    out, = tf.import_graph_def(gd, input_map={"a:0": b_src}, return_elements=["out:0"])
    with tf.Session() as sess:
        assert sess.run(out) == 4.0
    with pytest.raises(ValueError) as e:
        tf.import_graph_def(gd, input_map={"a:0": a}, name="w")
    assert str(e.value) == ("node 'a' in input_map does not exist in graph (input_map entry: "
                            "a:0->a:0)")


def test_gradient_count_mismatch_prints_the_node_def():
    # TF 1.15: "Num gradients N generated for op <its NodeDef> do not match num inputs M";
    # custom_gradient leaves a wrong count to that check and words its variables check so
    x = tf.constant(3.0, name="x")
    y = tf.constant(4.0, name="y")

    @tf.RegisterGradient("BadCount246t")
    def _bad(op, grad):
        return [grad]

    with tf.get_default_graph().gradient_override_map({"Mul": "BadCount246t"}):
        m = tf.multiply(x, y, name="mm")
    with pytest.raises(ValueError) as e:
        tf.gradients(m, [x, y])
    assert str(e.value) == (
        'Num gradients 1 generated for op name: "mm"\nop: "Mul"\ninput: "x"\ninput: "y"\n'
        'attr {\n  key: "T"\n  value {\n    type: DT_FLOAT\n  }\n}\nattr {\n  key: '
        '"_gradient_op_type"\n  value {\n    s: "BadCount246t"\n  }\n}\n do not match num '
        'inputs 2')

    @tf.custom_gradient
    def wrong_count(a, b):
        return a * b, lambda dy: dy

    with pytest.raises(ValueError, match='^Num gradients 2 generated for op name: "IdentityN"'):
        tf.gradients(wrong_count(x, y), [x, y])
    v = tf.Variable(1.0)

    @tf.custom_gradient
    def with_var(a):
        def grad(dy, variables=None):
            return dy, []
        return a * v, grad

    with pytest.raises(ValueError, match="^Must return gradient for each variable from "
                                         "@custom_gradient grad_fn.$"):
        tf.gradients(with_var(x), [x])


def test_saved_model_utils_missing_model_names_the_directory(tmp_path):
    # TF 1.15's tools/saved_model_utils.read_saved_model: IOError naming the directory only
    from tideflow.python.tools import saved_model_utils

    where = str(tmp_path / "nowhere")
    with pytest.raises(OSError) as e:
        saved_model_utils.read_saved_model(where)
    assert str(e.value) == f"SavedModel file does not exist at: {where}"


def test_write_graph_of_something_not_a_proto_fails_as_tf(tmp_path):
    # TF 1.15: the directory is made, then its proto printer fails on the object
    with pytest.raises(AttributeError, match="^'str' object has no attribute 'DESCRIPTOR'$"):
        tf.io.write_graph("notagraph", str(tmp_path / "d"), "g.pbtxt")
    assert (tmp_path / "d").is_dir() and not (tmp_path / "d" / "g.pbtxt").exists()


def test_py_function_returned_tensor_of_another_dtype_is_not_cast():
    # TF 1.15 converts what func returns with convert_to_tensor(value, Tout): a tensor (the
    # result of tensor ops) of another dtype fails, NumPy values are converted
    def run(func, tout, inp):
        with tf.Session() as sess:
            return sess.run(tf.py_function(func, [inp], tout))

    assert run(lambda a: np.sqrt(a), tf.float32, tf.constant(4)) == 2.0
    assert run(lambda a: a.numpy() * 2.5, tf.float32, tf.constant(4)) == 10.0
    assert run(lambda a: a * 2.0, tf.float32, tf.constant(4.0)) == 8.0
    for func, tout, inp, src in ((lambda a: a * 2, tf.float32, tf.constant(4), "int32"),
                                 (lambda a: tf.cast(a, tf.float64), tf.float32,
                                  tf.constant(4.0), "float64"),
                                 (lambda a: a / 0, tf.int32, tf.constant(1), "float64")):
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=f"ValueError: Tensor conversion requested dtype {tout.name} "
                                 f"for Tensor with dtype {src}: <tf.Tensor: id="):
            run(func, tout, inp)


def test_exports_from_a_given_graph_def_keep_its_library(tmp_path):
    # TF 1.15: Saver.export_meta_graph (and so SavedModel builders) pass the GraphDef in, and
    # a scoped or device-cleared copy of a given GraphDef copies its (empty) library
    x = tf.placeholder(tf.float32, [None], name="x")
    v = tf.Variable(1.0)
    saver = tf.train.Saver()
    assert saver.export_meta_graph(clear_devices=True).graph_def.HasField("library")
    assert not tf.train.export_meta_graph(clear_devices=True).graph_def.HasField("library")
    with tf.Session() as sess:
        sess.run(v.initializer)
        tf.saved_model.simple_save(sess, str(tmp_path / "m"), {"x": x}, {"y": x * v})
    with tf.Session(graph=tf.Graph()) as sess:
        mg = tf.saved_model.loader.load(sess, ["serve"], str(tmp_path / "m"))
    assert mg.graph_def.HasField("library")
