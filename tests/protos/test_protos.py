"""Tests of the generated protobuf modules: freshness, TensorFlow wire compatibility, text format."""

import importlib
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from google.protobuf import text_format

from tideflow.protos import (
    attr_value_pb2,
    config_pb2,
    event_pb2,
    example_pb2,
    feature_pb2,
    graph_pb2,
    master_pb2,
    master_service_pb2,
    meta_graph_pb2,
    node_def_pb2,
    summary_pb2,
    tensor_pb2,
    tensor_shape_pb2,
    types_pb2,
    worker_pb2,
    worker_service_pb2,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
PROTO_DIR = REPO_ROOT / "tideflow" / "protos"


# -- (a) the committed generated code is what the pinned generator makes ------------------------


def test_generated_modules_are_fresh(tmp_path):
    pytest.importorskip(
        "grpc_tools.protoc",
        reason="grpc_tools (grpcio-tools==1.85.1, extra 'protos') is not installed, so the "
        "committed *_pb2.py files cannot be regenerated and compared",
    )
    from tideflow.protos import generate

    out_dir = generate.generate(tmp_path)
    expected = generate.expected_outputs()
    fresh = sorted(p.name for p in out_dir.iterdir() if p.suffix == ".py")
    assert fresh == expected
    committed = sorted(
        p.name for p in PROTO_DIR.iterdir() if p.name.endswith(("_pb2.py", "_pb2_grpc.py"))
    )
    assert committed == expected, (
        "stale or missing generated modules; run python -m tideflow.protos.generate"
    )
    stale = [n for n in expected if (out_dir / n).read_bytes() != (PROTO_DIR / n).read_bytes()]
    assert not stale, (
        f"{stale} differ from the .proto files; run python -m tideflow.protos.generate"
    )


def test_generator_refuses_other_grpcio_tools(monkeypatch, tmp_path):
    from tideflow.protos import generate

    monkeypatch.setattr(generate.metadata, "version", lambda name: "1.0.0")
    with pytest.raises(RuntimeError, match=r"grpcio-tools 1.0.0 is installed .*==1\.85\.1"):
        generate.generate(tmp_path)
    assert not list(tmp_path.iterdir())


def test_every_generated_module_imports_and_uses_our_package():
    from tideflow.protos import generate

    for name in generate.expected_outputs():
        module = importlib.import_module(f"tideflow.protos.{name[:-3]}")
        if name.endswith("_pb2.py"):
            assert module.DESCRIPTOR.package in ("tideflow", "tideflow.error"), name
            assert module.DESCRIPTOR.name == f"tideflow/protos/{name[:-7]}.proto"


def test_importing_the_package_loads_no_generated_module():
    code = (
        "import sys, tideflow.protos; "
        "print([m for m in sys.modules if m.startswith('tideflow.protos.')])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


# -- (b) wire compatibility: bytes computed by hand from TF's field numbers ---------------------


def _varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _key(field, wire_type):
    return _varint(field << 3 | wire_type)


def _len(field, payload):
    return _key(field, 2) + _varint(len(payload)) + payload


def test_hand_encoder_matches_spec_examples():
    assert _len(1, b"a") == b"\x0a\x01a"
    assert _varint(300) == b"\xac\x02"
    assert _varint(-1) == b"\xff" * 9 + b"\x01"


def test_datatype_enum_is_tensorflows():
    expected = {
        "DT_INVALID": 0, "DT_FLOAT": 1, "DT_DOUBLE": 2, "DT_INT32": 3, "DT_UINT8": 4,
        "DT_INT16": 5, "DT_INT8": 6, "DT_STRING": 7, "DT_COMPLEX64": 8, "DT_INT64": 9,
        "DT_BOOL": 10, "DT_QINT8": 11, "DT_QUINT8": 12, "DT_QINT32": 13, "DT_BFLOAT16": 14,
        "DT_QINT16": 15, "DT_QUINT16": 16, "DT_UINT16": 17, "DT_COMPLEX128": 18, "DT_HALF": 19,
        "DT_RESOURCE": 20, "DT_VARIANT": 21, "DT_UINT32": 22, "DT_UINT64": 23,
    }  # fmt: skip
    for name, value in list(expected.items()):
        if value:
            expected[name + "_REF"] = value + 100
    assert dict(types_pb2.DataType.items()) == expected


def test_node_def_bytes():
    node = node_def_pb2.NodeDef(name="a", op="Add", input=["x", "y:1", "^z"], device="/cpu:0")
    node.attr["T"].type = types_pb2.DT_FLOAT
    attr_value = _key(6, 0) + b"\x01"  # AttrValue.type = 6
    entry = _len(1, b"T") + _len(2, attr_value)
    expected = (
        _len(1, b"a")
        + _len(2, b"Add")
        + _len(3, b"x")
        + _len(3, b"y:1")
        + _len(3, b"^z")
        + _len(4, b"/cpu:0")
        + _len(5, entry)
    )
    assert (
        expected == b"\x0a\x01a\x12\x03Add\x1a\x01x\x1a\x03y:1\x1a\x02^z\x22\x06/cpu:0"
        b"\x2a\x07\x0a\x01T\x12\x02\x30\x01"
    )
    assert node.SerializeToString(deterministic=True) == expected
    assert node_def_pb2.NodeDef.FromString(expected) == node


def test_attr_value_variants_bytes():
    cases = [
        (attr_value_pb2.AttrValue(s=b"VALID"), _len(2, b"VALID")),
        (attr_value_pb2.AttrValue(i=-2), _key(3, 0) + _varint(-2)),
        (attr_value_pb2.AttrValue(f=0.5), _key(4, 5) + struct.pack("<f", 0.5)),
        (attr_value_pb2.AttrValue(b=True), _key(5, 0) + b"\x01"),
        (
            attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(i=[1, 2, 2])),
            _len(1, _len(3, b"\x01\x02\x02")),  # list.i is packed
        ),
        (
            attr_value_pb2.AttrValue(
                list=attr_value_pb2.AttrValue.ListValue(type=[types_pb2.DT_INT32])
            ),
            _len(1, _len(6, b"\x03")),
        ),
        (attr_value_pb2.AttrValue(placeholder="T"), _len(9, b"T")),
        (
            attr_value_pb2.AttrValue(func=attr_value_pb2.NameAttrList(name="f")),
            _len(10, _len(1, b"f")),
        ),
    ]
    for message, expected in cases:
        assert message.SerializeToString() == expected, message


def test_tensor_shape_bytes():
    shape = tensor_shape_pb2.TensorShapeProto(
        dim=[
            tensor_shape_pb2.TensorShapeProto.Dim(size=2),
            tensor_shape_pb2.TensorShapeProto.Dim(size=-1),
            tensor_shape_pb2.TensorShapeProto.Dim(size=3, name="n"),
        ]
    )
    expected = (
        b"\x12\x02\x08\x02"
        + b"\x12\x0b\x08" + b"\xff" * 9 + b"\x01"
        + b"\x12\x05\x08\x03\x12\x01n"
    )  # fmt: skip
    assert shape.SerializeToString() == expected
    unknown = tensor_shape_pb2.TensorShapeProto(unknown_rank=True)
    assert unknown.SerializeToString() == b"\x18\x01"


def test_tensor_proto_bytes():
    content = struct.pack("<2f", 1.0, 2.0)
    assert content == b"\x00\x00\x80\x3f\x00\x00\x00\x40"
    tensor = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_FLOAT,
        tensor_shape=tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=2)]
        ),
        tensor_content=content,
    )
    expected = b"\x08\x01" + b"\x12\x04\x12\x02\x08\x02" + b"\x22\x08" + content
    assert tensor.SerializeToString() == expected
    assert tensor_pb2.TensorProto.FromString(expected) == tensor

    typed = [
        (tensor_pb2.TensorProto(float_val=[1.0]), _len(5, struct.pack("<f", 1.0))),
        (tensor_pb2.TensorProto(double_val=[1.0]), _len(6, struct.pack("<d", 1.0))),
        (tensor_pb2.TensorProto(int_val=[1, 300]), _len(7, b"\x01\xac\x02")),
        (tensor_pb2.TensorProto(string_val=[b"ab", b""]), _len(8, b"ab") + _len(8, b"")),
        (tensor_pb2.TensorProto(scomplex_val=[1.0, 2.0]), _len(9, struct.pack("<2f", 1, 2))),
        (tensor_pb2.TensorProto(int64_val=[-1]), _len(10, _varint(-1))),
        (tensor_pb2.TensorProto(bool_val=[True, False]), _len(11, b"\x01\x00")),
        (tensor_pb2.TensorProto(dcomplex_val=[1.0, 2.0]), _len(12, struct.pack("<2d", 1, 2))),
        (tensor_pb2.TensorProto(half_val=[0x3C00]), _len(13, _varint(0x3C00))),
        (tensor_pb2.TensorProto(uint32_val=[7]), _len(16, b"\x07")),
        (tensor_pb2.TensorProto(uint64_val=[7]), _len(17, b"\x07")),
        (tensor_pb2.TensorProto(version_number=1), _key(3, 0) + b"\x01"),
    ]
    for message, expected in typed:
        assert message.SerializeToString() == expected, message


def test_event_bytes():
    event = event_pb2.Event(wall_time=1.5, step=7)
    event.summary.value.add(tag="loss", simple_value=0.5)
    value = _len(1, b"loss") + _key(2, 5) + struct.pack("<f", 0.5)
    expected = _key(1, 1) + struct.pack("<d", 1.5) + _key(2, 0) + b"\x07" + _len(5, _len(1, value))
    assert expected == (
        b"\x09\x00\x00\x00\x00\x00\x00\xf8\x3f\x10\x07\x2a\x0d\x0a\x0b"
        b"\x0a\x04loss\x15\x00\x00\x00\x3f"
    )
    assert event.SerializeToString() == expected
    assert event_pb2.Event.FromString(expected) == event

    header = event_pb2.Event(wall_time=0.0, file_version="brain.Event:2")
    assert header.SerializeToString() == b"\x1a\x0dbrain.Event:2"
    graph = event_pb2.Event(graph_def=b"\x0a\x00")
    assert graph.SerializeToString() == b"\x22\x02\x0a\x00"
    log = event_pb2.Event(session_log=event_pb2.SessionLog(status=event_pb2.SessionLog.START))
    assert log.SerializeToString() == _len(7, b"\x08\x01")
    tagged = event_pb2.Event(
        tagged_run_metadata=event_pb2.TaggedRunMetadata(tag="s", run_metadata=b"x")
    )
    assert tagged.SerializeToString() == _len(8, _len(1, b"s") + _len(2, b"x"))
    assert event_pb2.Event(meta_graph_def=b"m").SerializeToString() == _len(9, b"m")


def test_summary_value_kinds_bytes():
    histo = summary_pb2.HistogramProto(min=0.0, max=1.0, num=2.0, bucket_limit=[1.0], bucket=[2.0])
    assert histo.SerializeToString() == (
        _key(2, 1) + struct.pack("<d", 1.0)
        + _key(3, 1) + struct.pack("<d", 2.0)
        + _len(6, struct.pack("<d", 1.0))
        + _len(7, struct.pack("<d", 2.0))
    )  # fmt: skip
    image = summary_pb2.Summary.Image(height=2, width=3, colorspace=1, encoded_image_string=b"P")
    assert image.SerializeToString() == b"\x08\x02\x10\x03\x18\x01" + _len(4, b"P")
    value = summary_pb2.Summary.Value(
        tag="t",
        metadata=summary_pb2.SummaryMetadata(
            plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars")
        ),
        tensor=tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[1.0]),
    )
    tensor_bytes = b"\x08\x01" + _len(5, struct.pack("<f", 1.0))
    assert value.SerializeToString() == (
        _len(1, b"t") + _len(8, tensor_bytes) + _len(9, _len(1, _len(1, b"scalars")))
    )


def test_example_bytes():
    example = example_pb2.Example()
    feature = example.features.feature
    feature["a"].int64_list.value.extend([1, 2])
    feature["b"].float_list.value.append(1.0)
    feature["c"].bytes_list.value.append(b"hi")

    def entry(key, feature_bytes):
        return _len(1, _len(1, key) + _len(2, feature_bytes))

    int64_feature = _len(3, _len(1, b"\x01\x02"))  # Feature.int64_list = 3, packed values
    float_feature = _len(2, _len(1, struct.pack("<f", 1.0)))  # Feature.float_list = 2, packed
    bytes_feature = _len(1, _len(1, b"hi"))  # Feature.bytes_list = 1
    features = entry(b"a", int64_feature) + entry(b"b", float_feature) + entry(b"c", bytes_feature)
    expected = _len(1, features)
    # Example.features(1) { feature(1) map entry { key(1) "a" value(2) Feature { int64_list(3)
    # { value(1) packed [1, 2] } } } ... }: 41 bytes in all.
    assert expected[:2] == b"\x0a\x29"
    assert expected[2:15] == b"\x0a\x0b\x0a\x01a\x12\x06\x1a\x04\x0a\x02\x01\x02"
    assert example.SerializeToString(deterministic=True) == expected
    assert example_pb2.Example.FromString(expected) == example


def test_sequence_example_bytes():
    seq = example_pb2.SequenceExample()
    seq.context.feature["len"].int64_list.value.append(2)
    steps = seq.feature_lists.feature_list["tok"].feature
    steps.add().int64_list.value.append(5)
    steps.add().int64_list.value.append(6)
    context = _len(1, _len(1, b"len") + _len(2, _len(3, _len(1, b"\x02"))))
    feature_list = _len(1, _len(3, _len(1, b"\x05"))) + _len(1, _len(3, _len(1, b"\x06")))
    lists = _len(1, _len(1, b"tok") + _len(2, feature_list))
    assert seq.SerializeToString(deterministic=True) == _len(1, context) + _len(2, lists)
    assert feature_pb2.FeatureLists.DESCRIPTOR.fields_by_name["feature_list"].number == 1


def test_graph_def_bytes():
    graph = graph_pb2.GraphDef()
    graph.node.add(name="c", op="NoOp")
    graph.versions.producer = 27
    graph.library.gradient.add(function_name="f", gradient_func="g")
    node = _len(1, b"c") + _len(2, b"NoOp")
    expected = (
        _len(1, node) + _len(2, _len(2, _len(1, b"f") + _len(2, b"g"))) + _len(4, b"\x08\x1b")
    )
    assert graph.SerializeToString() == expected


# Field numbers of TensorFlow's messages that are not exercised byte-for-byte above.
TF_FIELD_NUMBERS = [
    (config_pb2.ConfigProto, {
        "device_count": 1, "intra_op_parallelism_threads": 2, "placement_period": 3,
        "device_filters": 4, "inter_op_parallelism_threads": 5, "gpu_options": 6,
        "allow_soft_placement": 7, "log_device_placement": 8, "use_per_session_threads": 9,
        "graph_options": 10, "operation_timeout_in_ms": 11, "session_inter_op_thread_pool": 12,
        "rpc_options": 13, "cluster_def": 14, "isolate_session_state": 15, "experimental": 16,
    }),
    (config_pb2.GPUOptions, {
        "per_process_gpu_memory_fraction": 1, "allocator_type": 2, "allow_growth": 4,
        "visible_device_list": 5, "force_gpu_compatible": 8,
    }),
    (config_pb2.GraphOptions, {
        "optimizer_options": 3, "build_cost_model": 4, "infer_shapes": 5,
        "place_pruned_graph": 6, "enable_bfloat16_sendrecv": 7, "timeline_step": 8,
        "rewrite_options": 10,
    }),
    (config_pb2.OptimizerOptions, {
        "do_common_subexpression_elimination": 1, "do_constant_folding": 2, "opt_level": 3,
        "do_function_inlining": 4, "global_jit_level": 5, "max_folded_constant_in_bytes": 6,
    }),
    (config_pb2.RunOptions, {
        "trace_level": 1, "timeout_in_ms": 2, "inter_op_thread_pool": 3,
        "output_partition_graphs": 5, "debug_options": 6,
        "report_tensor_allocations_upon_oom": 7,
    }),
    (config_pb2.RunMetadata, {"step_stats": 1, "cost_graph": 2, "partition_graphs": 3}),
    (meta_graph_pb2.MetaGraphDef, {
        "meta_info_def": 1, "graph_def": 2, "saver_def": 3, "collection_def": 4,
        "signature_def": 5, "asset_file_def": 6,
    }),
    (meta_graph_pb2.MetaGraphDef.MetaInfoDef, {
        "meta_graph_version": 1, "stripped_op_list": 2, "any_info": 3, "tags": 4,
        "tensorflow_version": 5, "tensorflow_git_version": 6, "stripped_default_attrs": 7,
    }),
    (meta_graph_pb2.CollectionDef, {
        "node_list": 1, "bytes_list": 2, "int64_list": 3, "float_list": 4, "any_list": 5,
    }),
    (master_pb2.RunStepRequest, {
        "session_handle": 1, "feed": 2, "fetch": 3, "target": 4, "options": 5,
        "partial_run_handle": 6, "store_errors_in_response_body": 7, "request_id": 8,
    }),
    (master_pb2.RunStepResponse, {
        "tensor": 1, "metadata": 2, "status_code": 3, "status_error_message": 4,
    }),
    (master_pb2.ExtendSessionResponse, {"new_graph_version": 4}),
    (worker_pb2.RunGraphRequest, {
        "graph_handle": 1, "step_id": 2, "send": 3, "recv_key": 4, "exec_opts": 5,
        "is_partial": 6, "is_last_partial_run": 7, "session_handle": 8,
        "store_errors_in_response_body": 9, "create_worker_session_called": 10,
        "request_id": 11,
    }),
    (worker_pb2.RunGraphResponse, {
        "recv": 1, "step_stats": 2, "cost_graph": 3, "partition_graph": 4, "status_code": 5,
        "status_error_message": 6,
    }),
    (worker_pb2.RegisterGraphRequest, {
        "session_handle": 1, "graph_def": 2, "has_control_flow": 3, "graph_options": 4,
        "debug_options": 5, "create_worker_session_called": 6, "collective_graph_key": 7,
        "config_proto": 8,
    }),
    (worker_pb2.RecvTensorRequest, {
        "step_id": 1, "rendezvous_key": 2, "dma_ok": 3, "client_locality": 4,
        "server_locality": 5, "transport_options": 6, "request_id": 7,
    }),
    (worker_pb2.RecvTensorResponse, {
        "tensor": 1, "is_dead": 2, "send_start_micros": 3, "transport_options": 4,
        "require_ack": 5,
    }),
]  # fmt: skip


@pytest.mark.parametrize(
    "message, numbers", TF_FIELD_NUMBERS, ids=lambda m: getattr(m, "__name__", "")
)
def test_field_numbers_match_tensorflow(message, numbers):
    fields = message.DESCRIPTOR.fields_by_name
    assert {name: fields[name].number for name in numbers} == numbers


def test_services_declare_tensorflows_methods():
    master = master_service_pb2.DESCRIPTOR.services_by_name["MasterService"]
    for name in ["CreateSession", "ExtendSession", "PartialRunSetup", "RunStep", "CloseSession",
                 "ListDevices", "Reset"]:  # fmt: skip
        method = master.methods_by_name[name]
        assert method.input_type.name == f"{name}Request"
        assert method.output_type.name == f"{name}Response"
    worker = worker_service_pb2.DESCRIPTOR.services_by_name["WorkerService"]
    for name in ["GetStatus", "CreateWorkerSession", "RegisterGraph", "DeregisterGraph",
                 "RunGraph", "CleanupGraph", "CleanupAll", "RecvTensor", "Logging", "Tracing"]:  # fmt: skip
        method = worker.methods_by_name[name]
        assert method.input_type.name == f"{name}Request"
        assert method.output_type.name == f"{name}Response"
    pytest.importorskip("grpc")
    from tideflow.protos import master_service_pb2_grpc, worker_service_pb2_grpc

    assert hasattr(master_service_pb2_grpc, "MasterServiceStub")
    assert hasattr(master_service_pb2_grpc, "add_MasterServiceServicer_to_server")
    assert hasattr(worker_service_pb2_grpc, "WorkerServiceServicer")


# -- (c) text format ----------------------------------------------------------------------------

GRAPH_PBTXT = r"""
node {
  name: "x"
  op: "Placeholder"
  attr {
    key: "dtype"
    value {
      type: DT_FLOAT
    }
  }
  attr {
    key: "shape"
    value {
      shape {
        dim {
          size: -1
        }
        dim {
          size: 2
        }
      }
    }
  }
}
node {
  name: "w"
  op: "Const"
  device: "/job:ps/task:0"
  attr {
    key: "dtype"
    value {
      type: DT_FLOAT
    }
  }
  attr {
    key: "value"
    value {
      tensor {
        dtype: DT_FLOAT
        tensor_shape {
          dim {
            size: 2
          }
        }
        tensor_content: "\000\000\200?\000\000\000@"
      }
    }
  }
}
node {
  name: "y"
  op: "MatMul"
  input: "x"
  input: "w"
  input: "^init"
  attr {
    key: "transpose_a"
    value {
      b: false
    }
  }
}
versions {
  producer: 27
}
"""


def test_graph_def_text_format_round_trip():
    graph = text_format.Parse(GRAPH_PBTXT, graph_pb2.GraphDef())
    assert [n.name for n in graph.node] == ["x", "w", "y"]
    assert graph.node[0].attr["shape"].shape.dim[0].size == -1
    content = graph.node[1].attr["value"].tensor.tensor_content
    assert struct.unpack("<2f", content) == (1.0, 2.0)
    assert list(graph.node[2].input) == ["x", "w", "^init"]
    assert graph.versions.producer == 27

    text = text_format.MessageToString(graph)
    again = text_format.Parse(text, graph_pb2.GraphDef())
    assert again == graph
    assert text_format.MessageToString(again) == text
    assert graph_pb2.GraphDef.FromString(graph.SerializeToString()) == graph
