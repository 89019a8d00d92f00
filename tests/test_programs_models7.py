"""Fixes found by running public TF 1.x model programs (SeqGAN, WaveNet, show-attend-and-tell,
facenet, SSD, tacotron, tutorials) under tideflow: each test pins one behaviour those programs
rely on, with values checked against NumPy or hand-derived numbers."""

import numpy as np

import tideflow as tf


def test_python_ops_control_flow_ops_has_while_loop_cond_and_case():
    # SeqGAN's generator imports control_flow_ops from tensorflow.python.ops and calls
    # control_flow_ops.while_loop; TF 1.x's module holds while_loop, cond and case too
    from tideflow.python.ops import control_flow_ops, tensor_array_ops

    with tf.Graph().as_default():
        xs = tf.constant(np.arange(1.0, 6.0, dtype=np.float32))
        ta = tensor_array_ops.TensorArray(dtype=tf.float32, size=5)

        def body(i, acc, ta):
            v = xs[i] * xs[i]
            return i + 1, acc + v, ta.write(i, v)

        _, total, ta = control_flow_ops.while_loop(
            lambda i, *_: i < 5, body, (tf.constant(0), tf.constant(0.0), ta))
        picked = control_flow_ops.cond(total > 50.0, lambda: total, lambda: -total)
        branch = control_flow_ops.case([(tf.less(total, 0.0), lambda: tf.constant(1.0))],
                                       default=lambda: tf.constant(2.0))
        with tf.Session() as sess:
            t, p, b, sq = sess.run([total, picked, branch, ta.stack()])
    expected = np.arange(1.0, 6.0) ** 2
    np.testing.assert_allclose(sq, expected)
    assert t == expected.sum() == p == 55.0
    assert b == 2.0
    assert control_flow_ops.group is tf.group


def test_contrib_implementation_paths_for_custom_slim_layers():
    # SSD-Tensorflow's custom_layers imports add_arg_scope/variables from
    # tensorflow.contrib.framework.python.ops and utils/initializers from
    # tensorflow.contrib.layers.python.layers to write an L2-normalization layer
    from tideflow.contrib.framework.python.ops import add_arg_scope, arg_scope, variables
    from tideflow.contrib.layers.python.layers import initializers, utils

    @add_arg_scope
    def scaled_l2(inputs, scale_init=1.0, variables_collections=None,
                  outputs_collections=None, scope=None):
        with tf.variable_scope(scope, "Scaled", [inputs]) as sc:
            norm = tf.nn.l2_normalize(inputs, [1], epsilon=1e-12)
            gamma = variables.model_variable(
                "gamma", shape=inputs.get_shape()[-1:],
                initializer=tf.constant_initializer(scale_init),
                collections=utils.get_variable_collections(variables_collections, "scale"))
            return utils.collect_named_outputs(outputs_collections, sc.original_name_scope,
                                               norm * gamma)

    x = np.array([[3.0, 4.0], [1.0, 0.0]], np.float32)
    with tf.Graph().as_default():
        with arg_scope([scaled_l2], scale_init=2.0):
            y = scaled_l2(tf.constant(x), variables_collections={"scale": ["my_scales"]},
                          outputs_collections="ends", scope="L2")
        assert [v.op.name for v in tf.get_collection("my_scales")] == ["L2/gamma"]
        assert [v.op.name for v in tf.contrib.framework.get_model_variables()] == ["L2/gamma"]
        assert list(utils.convert_collection_to_dict("ends")) == ["L2"]
        init = initializers.xavier_initializer()
        w = tf.get_variable("w", [6, 10], initializer=init)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, wv = sess.run([y, w])
    np.testing.assert_allclose(got, 2.0 * x / np.linalg.norm(x, axis=1, keepdims=True),
                               rtol=1e-6)
    assert np.abs(wv).max() <= np.sqrt(6.0 / 16.0)  # Glorot uniform limit for 6x10


def test_contrib_layers_utils_helpers():
    from tideflow.contrib.layers.python.layers import utils

    assert utils.get_variable_collections({"beta": ["a"]}, "beta") == ["a"]
    assert utils.get_variable_collections({"beta": ["a"]}, "gamma") is None
    assert utils.get_variable_collections(["c"], "beta") == ["c"]
    with tf.Graph().as_default():
        assert utils.constant_value(True) is True
        assert utils.constant_value(tf.constant(3)) == 3
        assert utils.constant_value(tf.placeholder(tf.bool)) is None
        assert utils.constant_value(tf.Variable(1.0)) is None
        try:
            utils.constant_value(tf.constant(1.0), dtype=tf.int32)
        except ValueError as e:
            assert "wrong type" in str(e)
        else:
            raise AssertionError("no error for a float tensor asked as int32")
        p = tf.placeholder(tf.bool, [])
        dyn = utils.smart_cond(p, lambda: tf.constant(1.0), lambda: tf.constant(2.0))
        static = utils.smart_cond(tf.constant(False), lambda: 1.0, lambda: 2.0)
        assert static == 2.0
        with tf.Session() as sess:
            assert sess.run(dyn, {p: True}) == 1.0 and sess.run(dyn, {p: False}) == 2.0
    assert utils.last_dimension(tf.TensorShape([None, 7])) == 7
    for bad in (tf.TensorShape(None), tf.TensorShape([3, None])):
        try:
            utils.last_dimension(bad)
        except ValueError:
            pass
        else:
            raise AssertionError(f"no error for {bad}")
    assert utils.two_element_tuple(3) == (3, 3)
    assert utils.two_element_tuple([2, 5]) == (2, 5)
    assert utils.two_element_tuple(tf.TensorShape([4, 1])) == (4, 1)
    assert utils.n_positive_integers(3, 2) == (2, 2, 2)


def test_flags_come_after_absl_logging_and_name_the_calling_program():
    # TF 1.x's tf.app brings absl.logging (and its --log_dir flag) in before a program's own
    # DEFINEs: burness' chinese_rec.py redefines log_dir and fails right at its DEFINE
    import absl.flags
    import pytest

    flags = tf.app.flags
    assert "log_dir" in absl.flags.FLAGS and "verbosity" in absl.flags.FLAGS
    with pytest.raises(absl.flags.DuplicateFlagError, match="First from absl.logging"):
        flags.DEFINE_string("log_dir", "./log", "the logging dir")
    flags.DEFINE_integer("models7_steps", 3, "steps")
    module = absl.flags.FLAGS.find_module_defining_flag("models7_steps")
    assert module.endswith("test_programs_models7"), module
    assert flags.FLAGS.models7_steps == 3


def test_unfed_placeholder_message_names_the_shape_only_above_rank_zero():
    # TF's PlaceholderOp: "... with dtype float" for a scalar (chinese_rec.py's keep_prob) or an
    # unknown-rank placeholder, "... with dtype float and shape [?,3]" otherwise
    import pytest

    with tf.Graph().as_default():
        keep = tf.placeholder(tf.float32, shape=[], name="keep_prob")
        images = tf.placeholder(tf.float32, shape=[None, 3], name="images")
        anything = tf.placeholder(tf.int64, name="anything")
        with tf.Session() as sess:
            for tensor, expected in (
                    (keep, "placeholder tensor 'keep_prob' with dtype float"),
                    (images, "placeholder tensor 'images' with dtype float and shape [?,3]"),
                    (anything, "placeholder tensor 'anything' with dtype int64")):
                with pytest.raises(tf.errors.InvalidArgumentError) as info:
                    sess.run(tensor)
                first_line = info.value.message.split("\n")[0]
                assert first_line == "You must feed a value for " + expected, first_line


def test_contrib_metrics_set_ops_path_and_names():
    # SSD-Tensorflow's tf_extended imports tensorflow.contrib.metrics.python.ops.set_ops;
    # TF 1.x's tf.contrib.metrics also held set_size/set_intersection/...
    from tideflow.contrib.metrics.python.ops import metric_ops, set_ops

    with tf.Graph().as_default():
        a = tf.constant([[1, 2, 3, 5], [4, 4, 6, 7]])
        b = tf.constant([[2, 3, 9, 9], [4, 7, 8, 8]])
        inter = set_ops.set_intersection(a, b)
        sizes = tf.contrib.metrics.set_size(inter)
        union_sizes = set_ops.set_size(tf.contrib.metrics.set_union(a, b))
        diff_sizes = set_ops.set_size(set_ops.set_difference(a, b))
        with tf.Session() as sess:
            got = sess.run([sizes, union_sizes, diff_sizes])
    rows = [({1, 2, 3, 5}, {2, 3, 9}), ({4, 6, 7}, {4, 7, 8})]
    np.testing.assert_array_equal(got[0], [len(x & y) for x, y in rows])
    np.testing.assert_array_equal(got[1], [len(x | y) for x, y in rows])
    np.testing.assert_array_equal(got[2], [len(x - y) for x, y in rows])
    assert metric_ops.streaming_mean is tf.contrib.metrics.streaming_mean


def test_python_ops_gen_image_ops_and_other_generated_modules():
    # SSD-Tensorflow's tf_image imports tensorflow.python.ops.gen_image_ops; TF's other generated
    # op modules answer snake_case op names the same way
    import colorsys

    from tideflow.python.ops import gen_data_flow_ops, gen_image_ops, gen_state_ops  # noqa: F401

    x = np.arange(12, dtype=np.float32).reshape(1, 2, 2, 3)
    rgb = np.array([[0.2, 0.4, 0.6], [0.9, 0.1, 0.3]], np.float32)
    with tf.Graph().as_default():
        up = gen_image_ops.resize_nearest_neighbor(x, [4, 4], align_corners=False)
        hsv = gen_image_ops.rgb_to_hsv(rgb)
        with tf.Session() as sess:
            got_up, got_hsv = sess.run([up, hsv])
    np.testing.assert_array_equal(got_up, x.repeat(2, axis=1).repeat(2, axis=2))
    np.testing.assert_allclose(got_hsv, [colorsys.rgb_to_hsv(*p) for p in rgb], rtol=1e-5)
