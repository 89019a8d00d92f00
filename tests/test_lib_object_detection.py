"""Differences found by running the TensorFlow Object Detection API (TF 1.x research/
object_detection: box lists, matchers, target assignment, losses, NMS, the preprocessor's
random crops and resizes, SSD meta-architecture) against tideflow, each reduced to the plain
TF 1.x calls the library makes."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ----------------------------------------------------------------------------------------
# a cond branch's captured tensors keep their values from shape inference (TF 1.x: Switch)
# ----------------------------------------------------------------------------------------


def test_cond_branch_reshape_to_sizes_sliced_from_a_captured_vector():
    # the preprocessor's resize of instance masks: the branch for zero masks reshapes to
    # [-1, size[0], size[1]]; TF 1.x's shape inference cannot see size through the Switch,
    # so building it neither fails nor fixes the sizes
    masks = tf.random_uniform([3, 8, 6])
    size = tf.stack([4, 5])
    has_masks = tf.placeholder(tf.bool, [])

    def resize():
        return tf.squeeze(tf.image.resize_nearest_neighbor(masks[..., None], size), 3)

    def reshape():
        return tf.reshape(masks, [-1, size[0], size[1]])

    out = tf.cond(has_masks, resize, reshape)
    assert out.shape.as_list() == [None, None, None]
    with tf.Session() as sess:
        assert sess.run(out, {has_masks: True}).shape == (3, 4, 5)


def test_cond_branch_shapes_from_captured_values():
    ns = tf.stack([3, 4])
    five = tf.constant(5)
    p = tf.placeholder(tf.float32, [5, 6])
    pred = tf.placeholder(tf.bool, [])
    seen = {}

    def branch():
        seen["whole"] = tf.fill(ns, 1.0).shape.as_list()  # the capture itself: known
        seen["shape"] = tf.reshape(p, tf.shape(p)).shape.as_list()
        seen["element"] = tf.fill([ns[0]], 1.0).shape.as_list()
        seen["scalar"] = tf.zeros([five, 2]).shape.as_list()
        seen["sum"] = tf.fill([five + 1], 1.0).shape.as_list()
        seen["slice"] = tf.fill(ns[:1], 1.0).shape.as_list()
        seen["concat"] = tf.fill(tf.concat([ns, [2]], 0), 1.0).shape.as_list()
        seen["reshape"] = tf.reshape(p, [five, -1]).shape.as_list()
        return tf.constant(0)

    tf.cond(pred, branch, lambda: tf.constant(1))
    assert seen == {"whole": [3, 4], "shape": [5, 6], "element": [None], "scalar": [None, 2],
                    "sum": [None], "slice": [None], "concat": [None, None, 2],
                    "reshape": [None, None]}


def test_cond_branch_a_constant_predicate_takes_keeps_the_values():
    size = tf.stack([2, 3])
    seen = []

    def branch(taken):
        def fn():
            out = tf.zeros([size[0], size[1]])
            seen.append((taken, out.shape.as_list()))
            return out
        return fn

    tf.cond(tf.constant(True), branch(True), branch(False))
    assert seen == [(True, [2, 3]), (False, [None, None])]


def test_loop_body_still_sees_captured_values():
    five = tf.constant(5)

    def body(i, x):
        assert tf.zeros([five, 2]).shape.as_list() == [5, 2]
        return i + 1, x

    tf.while_loop(lambda i, x: i < 1, body, [0, 1.0])


# ----------------------------------------------------------------------------------------
# Switch/Merge selectors whose cases build tf.cond and while loops on the switched tensors
# ----------------------------------------------------------------------------------------


def test_cond_on_a_switched_tensor_is_skipped_in_the_untaken_case():
    # the preprocessor's _apply_with_random_selector: switch the input to one of the cases,
    # each case's function (a random crop with a tf.cond inside) runs on its copy, and a
    # merge picks the live result; the other cases' conds see dead inputs and must not run
    from tideflow.python.ops import control_flow_ops

    x = tf.constant([0.25, 3.0])
    sel = tf.placeholder(tf.int32, [])
    keep = tf.placeholder_with_default(True, [])
    cases = []
    for case in range(3):
        xs = control_flow_ops.switch(x, tf.equal(sel, case))[1]
        cases.append(tf.cond(keep, lambda xs=xs, case=case: tf.clip_by_value(xs, 0.0, 1.0) + case,
                             lambda xs=xs: xs))
    out, index = control_flow_ops.merge(cases)
    with tf.Session() as sess:
        for case in range(3):
            v, i = sess.run([out, index], {sel: case})
            np.testing.assert_allclose(v, [0.25 + case, 1.0 + case])
            assert i == case
        np.testing.assert_allclose(sess.run(out, {sel: 1, keep: False}), [0.25, 3.0])


def test_while_loop_on_a_switched_tensor_is_skipped_in_the_untaken_case():
    from tideflow.python.ops import control_flow_ops

    x = tf.constant(2.0)
    pick = tf.placeholder(tf.bool, [])
    off, on = control_flow_ops.switch(x, pick)
    doubled = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2.0), [0, on])[1]
    out = control_flow_ops.merge([doubled, off - 1.0])[0]
    with tf.Session() as sess:
        assert sess.run(out, {pick: True}) == 16.0
        assert sess.run(out, {pick: False}) == 1.0


def test_dead_input_to_a_list_output_op_gives_dead_outputs():
    from tideflow.python.ops import control_flow_ops

    x = tf.constant([1.0, 2.0])
    pick = tf.placeholder(tf.bool, [])
    off, on = control_flow_ops.switch(x, pick)
    (a,) = tf.unstack(tf.reshape(on, [1, 2]), num=1)
    (b,) = tf.identity_n([off * 10.0])
    out = control_flow_ops.merge([a, b])[0]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(out, {pick: True}), [1.0, 2.0])
        np.testing.assert_allclose(sess.run(out, {pick: False}), [10.0, 20.0])


# ----------------------------------------------------------------------------------------
# error messages the library's tests match
# ----------------------------------------------------------------------------------------


def test_split_into_uneven_pieces_names_the_division():
    # position-sensitive crops split the channels into one group per spatial bin
    image = tf.ones([1, 1, 5])
    with pytest.raises(ValueError, match="Dimension size must be evenly divisible by 4 but is 5"
                       ) as err:
        tf.split(image, num_or_size_splits=4, axis=2)
    assert "Number of ways to split should evenly divide the split dimension" in str(err.value)


# ----------------------------------------------------------------------------------------
# Keras
# ----------------------------------------------------------------------------------------


def test_subclassed_model_build_runs_before_its_first_call():
    # the Keras SSD feature extractors make their backbone model in build(input_shape)
    class Extractor(tf.keras.Model):
        def __init__(self):
            super().__init__(name="extractor")
            self.backbone = None
            self.seen_shape = None

        def build(self, input_shape):
            self.seen_shape = tf.TensorShape(input_shape).as_list()
            self.backbone = tf.keras.layers.Dense(3, name="head")
            self.built = True

        def call(self, inputs):
            return self.backbone(inputs)

    ext = Extractor()
    out = ext(tf.ones([2, 4]))
    assert ext.seen_shape == [2, 4]
    assert out.shape.as_list() == [2, 3]
    assert len(ext.trainable_weights) == 2
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(out).shape == (2, 3)


# ----------------------------------------------------------------------------------------
# graph structure programs look up by name
# ----------------------------------------------------------------------------------------


def test_clip_by_value_is_minimum_then_maximum():
    # the FPN feature maps' bounded activations test finds 'top_down/clip_by_value/Minimum'
    x = tf.placeholder(tf.float32, [4], name="x")
    with tf.name_scope("top_down"):
        y = tf.clip_by_value(x, -2.0, 3.0)
    g = tf.get_default_graph()
    assert y.name == "top_down/clip_by_value:0"
    assert y.op.type == "Maximum"
    low = g.get_operation_by_name("top_down/clip_by_value/Minimum")
    assert low.type == "Minimum" and y.op.inputs[0] is low.outputs[0]
    grad = tf.gradients(y, x)[0]
    with tf.Session() as sess:
        v, d = sess.run([y, grad], {x: [-5.0, -2.0, 3.0, 1.5]})
    np.testing.assert_allclose(v, [-2.0, -2.0, 3.0, 1.5])
    np.testing.assert_allclose(d, [0.0, 1.0, 1.0, 1.0])  # a value on a bound passes its grad


def test_clip_by_value_refuses_bounds_that_grow_the_shape():
    x = tf.placeholder(tf.float32, [3])
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2, 3\) are not compatible"):
        tf.clip_by_value(x, tf.zeros([2, 3]), 1.0)
    rows = tf.IndexedSlices(tf.constant([[4.0, -4.0]]), tf.constant([1]), tf.constant([3, 2]))
    clipped = tf.clip_by_value(rows, -1.0, 1.0)
    assert isinstance(clipped, tf.IndexedSlices)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(clipped.values), [[1.0, -1.0]])


def test_keras_applications_build_from_the_layers_given():
    # the Keras MobileNet backbones pass layers= (TF 1.x's module injection) to swap in
    # their own Conv2D (padding 'same'), ZeroPadding2D (none) and Input
    made = []

    class Layers:
        def Conv2D(self, filters, kernel_size, **kwargs):
            kwargs["padding"] = "same"
            made.append("Conv2D")
            return tf.keras.layers.Conv2D(filters, kernel_size, **kwargs)

        def DepthwiseConv2D(self, kernel_size, **kwargs):
            kwargs["padding"] = "same"
            return tf.keras.layers.DepthwiseConv2D(kernel_size, **kwargs)

        def ZeroPadding2D(self, padding, **kwargs):
            return lambda x: x

        def Input(self, shape):
            made.append("Input")
            return tf.keras.layers.Input(shape=shape, name="image")

        def __getattr__(self, item):
            return getattr(tf.keras.layers, item)

    for build in (tf.keras.applications.MobileNet, tf.keras.applications.MobileNetV2):
        made.clear()
        model = build(input_shape=(75, 75, 3), alpha=0.25, include_top=False, weights=None,
                      layers=Layers())
        assert made[0] == "Input" and "Conv2D" in made
        # 'same' stride-2 convolutions: 75 -> 38 -> 19 -> 10 -> 5 -> 3
        assert model.output.shape.as_list()[1:3] == [3, 3]
    default = tf.keras.applications.MobileNet(input_shape=(75, 75, 3), alpha=0.25,
                                              include_top=False, weights=None)
    assert default.output.shape.as_list()[1:3] == [2, 2]  # 'valid' after (0, 1) padding


def test_subclassed_model_inputs_and_updates_after_a_call():
    # ssd_meta_arch.updates(): extractor.get_updates_for(extractor.inputs) must be the
    # batch-norm updates of the call on the images, not those of the backbone's construction
    class Extractor(tf.keras.Model):
        def build(self, input_shape):
            start = tf.keras.layers.Input(
                tensor=tf.placeholder_with_default(tf.zeros([1, 4]), [None, 4]))
            norm = tf.keras.layers.BatchNormalization()(tf.keras.layers.Dense(3)(start))
            self.backbone = tf.keras.Model(start, norm)
            self.built = True

        def call(self, x):
            return self.backbone(x)

    ext = Extractor()
    images = tf.placeholder(tf.float32, [2, 4])
    out = ext(images)
    assert ext.inputs == [images]
    assert ext.get_updates_for(None) == []
    updates = ext.get_updates_for(ext.inputs)
    assert len(updates) == 2  # moving mean and variance, from the images
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([out, updates], {images: np.ones([2, 4], np.float32)})


# ----------------------------------------------------------------------------------------
# contrib modules the exporter imports
# ----------------------------------------------------------------------------------------


def test_graph_matcher_finds_the_reshape_mul_reshape_resize():
    # exporter.rewrite_nn_resize_op: Reshape -> Mul(ones) -> Reshape, then Add
    from tideflow.contrib.quantize.python import graph_matcher

    x = tf.placeholder(tf.float32, [1, 2, 2, 3], name="features")
    up = tf.reshape(tf.reshape(x, [1, 2, 1, 2, 1, 3]) * tf.ones([1, 1, 2, 1, 2, 1]),
                    [1, 4, 4, 3])
    total = up + tf.zeros([1, 4, 4, 3])
    tf.add(x, x)  # an Add the pattern must pass over

    source = graph_matcher.OpTypePattern("*")
    first = graph_matcher.OpTypePattern("Reshape", inputs=[source, "Const"],
                                        ordered_inputs=False)
    mul = graph_matcher.OpTypePattern("Mul", inputs=[first, "Const"], ordered_inputs=False)
    quant = graph_matcher.OpTypePattern("FakeQuantWithMinMaxVars",
                                        inputs=[mul, "Identity", "Identity"],
                                        ordered_inputs=False)
    second = graph_matcher.OpTypePattern(
        "Reshape", inputs=[graph_matcher.OneofPattern([quant, mul]), "Const"],
        ordered_inputs=False)
    add = graph_matcher.OpTypePattern("Add|AddV2", name="sum", inputs=[second, "*"],
                                      ordered_inputs=False)
    matches = list(graph_matcher.GraphMatcher(add).match_graph(tf.get_default_graph()))
    assert len(matches) == 1
    m = matches[0]
    assert m.get_op(source) is x.op and m.get_tensor(source) is x
    assert m.get_op(second) is up.op and m.get_op("sum") is total.op
    assert m.get_op(quant) is None
    assert graph_matcher.GraphMatcher(add).match_op(up.op) is None


def test_contrib_tfprof_model_analyzer_counts_params_and_flops():
    analyzer = tf.contrib.tfprof.model_analyzer
    w = tf.Variable(tf.zeros([3, 4]), name="w")
    tf.matmul(tf.ones([2, 3]), w)
    graph = tf.get_default_graph()
    params = analyzer.print_model_analysis(
        graph, tfprof_options=analyzer.TRAINABLE_VARS_PARAMS_STAT_OPTIONS)
    flops = analyzer.print_model_analysis(graph, tfprof_options=analyzer.FLOAT_OPS_OPTIONS)
    assert params.total_parameters == 12
    assert flops.total_float_ops == 2 * 2 * 3 * 4


# ----------------------------------------------------------------------------------------
# a tensor made in one cond's branch, used later (TF 1.x's branches sit in the graph)
# ----------------------------------------------------------------------------------------


def test_a_branch_tensor_reused_in_another_cond_keeps_its_value():
    # the preprocessor's cache: a random crop window drawn in one cond's branch is reused by
    # the next cond on the same predicate, so both see the same draw
    crop = tf.placeholder(tf.bool, [])
    drawn = {}

    def first():
        drawn["window"] = tf.random_uniform([2], 0, 100, dtype=tf.int32)
        return drawn["window"]

    a = tf.cond(crop, first, lambda: tf.zeros([2], tf.int32))
    b = tf.cond(crop, lambda: drawn["window"] + 1, lambda: tf.ones([2], tf.int32))
    with tf.Session() as sess:
        av, bv = sess.run([a, b], {crop: True})
        np.testing.assert_array_equal(bv, av + 1)  # one draw, seen by both conds
        np.testing.assert_array_equal(sess.run(b, {crop: False}), [1, 1])


def test_merge_all_takes_a_summary_made_in_a_cond_branch():
    # the evaluation's image summaries: tf.cond(is_4d, lambda: tf.summary.image(...), '')
    flag = tf.placeholder_with_default(True, [])
    tf.summary.scalar("outside", 2.0)
    tf.cond(flag, lambda: tf.summary.scalar("inside", 1.5), lambda: tf.constant(""))
    merged = tf.summary.merge_all()
    with tf.Session() as sess:
        summary = tf.Summary.FromString(sess.run(merged))
    assert {v.tag: v.simple_value for v in summary.value} == {"outside": 2.0, "cond/inside": 1.5}


def test_parse_of_a_constant_example_gives_static_shapes():
    # the TF example decoder's tests decode tf.convert_to_tensor(serialized) and check the
    # static shapes of the var-len features made dense (TF's shape inference runs the parse)
    example = tf.train.Example(features=tf.train.Features(feature={
        "area": tf.train.Feature(float_list=tf.train.FloatList(value=[4.0, 5.0, 6.0])),
        "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[3]))}))
    spec = {"area": tf.VarLenFeature(tf.float32), "id": tf.FixedLenFeature([], tf.int64)}
    parsed = tf.parse_single_example(tf.constant(example.SerializeToString()), spec)
    area = tf.sparse_tensor_to_dense(parsed["area"])
    assert area.shape.as_list() == [3]
    fed = tf.placeholder(tf.string, [])
    assert tf.sparse_tensor_to_dense(
        tf.parse_single_example(fed, spec)["area"]).shape.as_list() == [None]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(area), [4.0, 5.0, 6.0])


def test_keras_alias_finder_leaves_other_tideflow_aliases_alone():
    # the harness that runs the library aliases `tensorflow` to tideflow with its own import
    # finder (`from tensorflow.contrib.image.python.ops import image_ops`); the finder for
    # aliases of tf.keras (sys.modules['keras'] = tf.keras) must not answer for those
    import sys

    from tideflow.keras import _AliasedSubmoduleFinder

    finder = _AliasedSubmoduleFinder()
    sys.modules["_od_alias_contrib"] = tf.contrib
    sys.modules["_od_alias_keras"] = tf.keras
    try:
        assert finder.find_spec("_od_alias_contrib.image") is None
        spec = finder.find_spec("_od_alias_keras.backend")
        assert spec is not None and spec.loader.create_module(spec) is tf.keras.backend
    finally:
        del sys.modules["_od_alias_contrib"], sys.modules["_od_alias_keras"]
