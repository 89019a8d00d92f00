"""``tensorflow.core.*`` proto import paths: the same message classes as tideflow's own, so a
program that builds a proto from one path hands it to tideflow's API."""
import numpy as np

import tideflow as tf


def test_core_paths_are_tideflows_proto_modules():
    from tideflow.core.example import example_pb2, feature_pb2
    from tideflow.core.framework import graph_pb2, summary_pb2, tensor_pb2
    from tideflow.core.protobuf import config_pb2, meta_graph_pb2, saver_pb2
    from tideflow.core.util import event_pb2

    from tideflow.protos import event_pb2 as own_event_pb2

    assert graph_pb2.GraphDef is tf.GraphDef
    assert summary_pb2.Summary is tf.Summary
    assert config_pb2.ConfigProto is tf.ConfigProto
    assert example_pb2.Example is tf.train.Example
    assert feature_pb2.Feature is tf.train.Feature
    assert event_pb2 is own_event_pb2
    assert saver_pb2.SaverDef.V2 == 2
    assert meta_graph_pb2.MetaGraphDef is tf.MetaGraphDef
    assert tensor_pb2.TensorProto is type(tf.make_tensor_proto(1.0))


def test_a_graph_def_built_from_the_core_path_imports():
    import tideflow.core.framework.graph_pb2  # the dotted import form

    with tf.Graph().as_default() as g:
        tf.constant([1.0, 2.0], name="a")
        tf.multiply(tf.get_default_graph().get_tensor_by_name("a:0"), 3.0, name="b")
    gd = tideflow.core.framework.graph_pb2.GraphDef()
    gd.ParseFromString(g.as_graph_def().SerializeToString())
    with tf.Graph().as_default():
        (b,) = tf.import_graph_def(gd, return_elements=["b:0"], name="")
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(b), [3.0, 6.0])


def test_summary_proto_from_the_core_path_goes_to_a_file_writer(tmp_path):
    from tideflow.core.framework import summary_pb2
    from tideflow.core.util import event_pb2

    s = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="loss", simple_value=0.5)])
    with tf.summary.FileWriter(str(tmp_path)) as w:
        w.add_summary(s, global_step=7)
    events = [e for p in tmp_path.iterdir() for e in tf.train.summary_iterator(str(p))]
    got = [(e.step, v.tag, v.simple_value) for e in events for v in e.summary.value]
    assert got == [(7, "loss", 0.5)]
    assert all(isinstance(e, event_pb2.Event) for e in events)
