"""Printed text of TF 1.x programs (errors, reprs, logs) against TF 1.15's: each expected
string below was measured in TF 1.15 (timings and paths normalized where noted)."""

import re

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _error(sess, fetches, feed=None):
    with pytest.raises(tf.errors.OpError) as info:
        sess.run(fetches, feed)
    return info.value


def test_uninitialized_variable_fetched_as_it_is_names_its_retval_node():
    # measured in TF 1.15: the fetch's _Retval node, its index the place of the fetch's
    # name among the step's fetched names in sorted order
    with tf.variable_scope("sc"):
        v = tf.get_variable("v", [2])
    a = tf.get_variable("a", [2])
    z = tf.Variable(1.0, name="zz")
    with tf.Session() as sess:
        e = _error(sess, v)
        assert type(e) is tf.errors.FailedPreconditionError
        assert str(e) == "Attempting to use uninitialized value sc/v\n\t [[{{node _retval_sc/v_0_0}}]]"
        assert str(_error(sess, [tf.constant(1), tf.constant(2), z])) == (
            "Attempting to use uninitialized value zz\n\t [[{{node _retval_zz_0_2}}]]")
        assert str(_error(sess, [z, tf.assign(a, [1.0, 2.0])])) == (
            "Attempting to use uninitialized value zz\n\t [[{{node _retval_zz_0_1}}]]")
        assert str(_error(sess, {"k": v})) == (
            "Attempting to use uninitialized value sc/v\n\t [[{{node _retval_sc/v_0_0}}]]")
        # two uninitialized variables fetched: TF names one of them (which varies by run)
        msg = str(_error(sess, [a, v]))
        assert msg in ("Attempting to use uninitialized value sc/v\n\t [[{{node _retval_sc/v_0_1}}]]",
                       "Attempting to use uninitialized value a\n\t [[{{node _retval_a_0_0}}]]")


def test_an_op_error_names_its_node_as_tf_does():
    # TF 1.15: "\t [[node x (defined at <file>:<line>) ]]" (TF 1.15 itself names a frame of
    # its own ops.py there; the file:line form is what its message is made of)
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    v = tf.Variable(1.0, name="v")
    with tf.Session() as sess:
        msg = str(_error(sess, x * 2))
        first, node = msg.split("\n")[:2]
        assert first == ("You must feed a value for placeholder tensor 'x' with dtype float and "
                         "shape [?,3]")
        assert re.fullmatch(r"\t \[\[node x \(defined at .*test_printed_output_parity23\.py:\d+\) \]\]",
                            node), node
        msg = _error(sess, v + 1).message  # (str() adds the stack that made v/read)
        assert re.fullmatch(r"Attempting to use uninitialized value v\n\t \[\[node v/read "
                            r"\(defined at \S+:\d+\) \]\]", msg), msg
        it = tf.data.Dataset.range(1).make_one_shot_iterator().get_next()
        sess.run(it)
        e = _error(sess, it)
        assert type(e) is tf.errors.OutOfRangeError
        assert re.fullmatch(r"End of sequence\n\t \[\[node IteratorGetNext \(defined at \S+:\d+\) \]\]",
                            e.message), e.message
        assert str(_error(sess, tf.gather([1, 2], 5))).startswith(
            "indices = 5 is not in [0, 2)\n\t [[node GatherV2 (defined at ")


def test_restoring_a_missing_checkpoint_raises_tfs_error_classes(tmp_path):
    # measured in TF 1.15: a missing folder is NotFoundError (the prefix's glob fails first),
    # a missing prefix in an existing folder a plain ValueError
    tf.Variable(1.0)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.NotFoundError) as info:
            saver.restore(sess, str(tmp_path / "no_dir" / "m.ckpt"))
        assert type(info.value) is tf.errors.NotFoundError
        assert str(info.value) == f"{tmp_path / 'no_dir'}; No such file or directory"
        with pytest.raises(ValueError) as info:
            saver.restore(sess, str(tmp_path / "m.ckpt"))
        assert type(info.value) is ValueError
        assert str(info.value) == f"The passed save_path is not a valid checkpoint: {tmp_path}/m.ckpt"


def test_profiler_reports_incomplete_shapes_on_stderr(capsys):
    # measured in TF 1.15: the Python logger counts the ops whose FLOPs need a shape it does
    # not know; tfprof prints two "Incomplete shape." lines per partially known placeholder
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    tf.placeholder(tf.float32, name="unknown_rank")
    w = tf.get_variable("w", [4, 3])
    tf.matmul(x, w)
    tf.matmul(x, w)
    tf.reduce_sum(tf.placeholder(tf.float32, [2, 4]))  # fully known: counted
    opts = tf.profiler.ProfileOptionBuilder.trainable_variables_parameter()
    opts["output"] = "none"
    tf.profiler.profile(tf.get_default_graph(), options=opts)
    out, err = capsys.readouterr()
    assert out == "Parsing Inputs...\n"
    assert err == ("2 ops no flops stats due to incomplete shapes.\n"
                   "Incomplete shape.\nIncomplete shape.\n")
    tf.profiler.Profiler(tf.get_default_graph()).profile_name_scope(opts)
    out, err = capsys.readouterr()
    assert err == ("2 ops no flops stats due to incomplete shapes.\n"
                   "Incomplete shape.\nIncomplete shape.\n")


def test_profiler_is_silent_on_stderr_for_known_shapes(capsys):
    x = tf.placeholder(tf.float32, [3, 4], name="x")
    tf.matmul(x, tf.get_variable("w", [4, 3]))
    opts = tf.profiler.ProfileOptionBuilder.float_operation()
    opts["output"] = "none"
    # (TF 1.15: 97, the product's 72 and the initializer's 25)
    assert tf.profiler.profile(tf.get_default_graph(), options=opts).total_float_ops == 97
    assert capsys.readouterr().err == ""


def test_a_ragged_feed_fails_with_numpy_1s_words():
    # measured in TF 1.15 (NumPy 1.18): NumPy's error for the ragged list, its first sentence
    x = tf.placeholder(tf.float32, [2, 2], name="x")
    with tf.Session() as sess, pytest.raises(ValueError) as info:
        sess.run(x, {x: [[1, 2], [3]]})
    assert str(info.value) == "setting an array element with a sequence."


def test_keras_merge_and_conv_layer_errors_are_tfs_words():
    # measured in TF 1.15 (no layer name appended)
    L = tf.keras.layers
    cases = [
        (lambda: L.Dot(1)([tf.zeros([2, 3]), tf.zeros([2, 4])]),
         "Dimension incompatibility 3 != 4. Layer shapes: (2, 3), (2, 4)"),
        (lambda: L.Multiply()([tf.zeros([2, 3]), tf.zeros([2, 4])]),
         "Operands could not be broadcast together with shapes (3,) (4,)"),
        (lambda: L.Add()([tf.keras.Input((3,)), tf.keras.Input((4,))]),
         "Operands could not be broadcast together with shapes (3,) (4,)"),
        (lambda: L.SeparableConv1D(2, 3)(tf.placeholder(tf.float32, [None, 5, None])),
         "The channel dimension of the inputs should be defined. Found `None`."),
        (lambda: L.DepthwiseConv2D(3)(tf.placeholder(tf.float32, [None, 5, 5, None])),
         ("The channel dimension of the inputs to `DepthwiseConv2D` should be defined. "
         "Found `None`.")),
        (lambda: L.Concatenate(axis=1)([tf.keras.Input((3, 2)), tf.keras.Input((3, 4))]),
         ("A `Concatenate` layer requires inputs with matching shapes except for the concat "
         "axis. Got inputs shapes: [(None, 3, 2), (None, 3, 4)]")),
    ]
    for make, want in cases:
        with pytest.raises(ValueError) as info:
            make()
        assert str(info.value) == want


def test_keras_hdf5_load_errors_are_tfs_words(tmp_path):
    pytest.importorskip("h5py")
    # measured in TF 1.15 (h5py 2.10)
    m = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,))])
    missing = str(tmp_path / "none.h5")
    with pytest.raises(OSError) as info:
        m.load_weights(missing)
    assert str(info.value) == (
        f"Unable to open file (unable to open file: name = '{missing}', errno = 2, error "
        "message = 'No such file or directory', flags = 0, o_flags = 0)")
    junk = tmp_path / "junk.h5"
    junk.write_text("junk\n")
    with pytest.raises(OSError) as info:
        m.load_weights(str(junk))
    assert str(info.value) == "Unable to open file (file signature not found)"
    for path in (missing, str(junk)):
        with pytest.raises(OSError) as info:
            tf.keras.models.load_model(path)
        assert str(info.value) == (
            f"SavedModel file does not exist at: {path}/{{saved_model.pbtxt|saved_model.pb}}")
    weights = str(tmp_path / "w.h5")
    m.save_weights(weights)
    with pytest.raises(ValueError) as info:
        tf.keras.models.load_model(weights)
    assert str(info.value) == "No model found in config file."


def test_inspect_checkpoint_prints_tf_1_15s_lines(tmp_path, capsys):
    from tideflow.python.tools import inspect_checkpoint

    with tf.variable_scope("net"):
        tf.get_variable("w", [2, 3], initializer=tf.constant_initializer(0.5))
    tf.Variable("hello", name="s")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "model.ckpt"))
    capsys.readouterr()
    # measured in TF 1.15 (its print(a, b) of "tensor_name: " and the name: two spaces)
    inspect_checkpoint.print_tensors_in_checkpoint_file(path, "", all_tensors=True)
    assert capsys.readouterr().out == (
        "tensor_name:  net/w\n[[0.5 0.5 0.5]\n [0.5 0.5 0.5]]\n"
        "tensor_name:  s\nb'hello'\n# Total number of params: 7\n")
    inspect_checkpoint.print_tensors_in_checkpoint_file(path, "nope", False)
    assert capsys.readouterr().out == "tensor_name:  nope\nKey nope not found in checkpoint\n"


def test_closed_file_writer_warning_shows_tfs_source_line(tmp_path):
    # TF 1.15 prints the warning with the source line of its call:
    #   warnings.warn("Attempting to use a closed FileWriter. "
    import linecache
    import warnings

    w = tf.summary.FileWriter(str(tmp_path))
    w.close()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        w.add_summary(tf.Summary(), 1)
    assert [str(c.message) for c in caught] == [
        ("Attempting to use a closed FileWriter. The operation will be a noop unless the "
        "FileWriter is explicitly reopened.")]
    line = linecache.getline(caught[0].filename, caught[0].lineno).strip()
    assert line == 'warnings.warn("Attempting to use a closed FileWriter. "'


def _parse_for_map(x):
    y = x * 2
    return _helper_for_map(y)


def _helper_for_map(y):
    return y + 0.5


def test_an_error_in_a_dataset_function_is_autographs_converted_code_error():
    # measured in TF 1.15: the same class, "in converted code:", the user's frames (marked
    # "  *" where converted, a lambda named None) down to the raise, then the error itself
    with pytest.raises(TypeError) as info:
        tf.data.Dataset.range(3).map(_parse_for_map)
    lines = str(info.value).split("\n")
    # (frames under one folder are shown relative to it, as TF: here the checkout)
    if lines[1].startswith("    relative to "):
        del lines[1]
    assert lines[:2] == ["in converted code:", ""]
    assert re.fullmatch(r"    \S*test_printed_output_parity23\.py:\d+ _parse_for_map  \*", lines[2])
    assert lines[3] == "        return _helper_for_map(y)"
    assert re.fullmatch(r"    \S*test_printed_output_parity23\.py:\d+ _helper_for_map  \*", lines[4])
    assert lines[5] == "        return y + 0.5"
    assert lines[-3:] == ["", ("    TypeError: Input 'y' of 'AddV2' Op has type float32 that does "
                          "not match type int64 of argument 'x'."), ""]
    with pytest.raises(ValueError) as info:
        tf.data.Dataset.range(3).map(lambda x: tf.reshape(x, [2]))
    lines = [line for line in str(info.value).split("\n") if "relative to" not in line]
    assert re.fullmatch(r"    \S*test_printed_output_parity23\.py:\d+ None  \*", lines[2])
    assert lines[-2] == (
        "    ValueError: Cannot reshape a tensor with 1 elements to shape [2] (2 elements) for "
        "'Reshape' (op: 'Reshape') with input shapes: [], [1] and with input tensors computed "
        "as partial shapes: input[1] = [2].")
    with pytest.raises(KeyError) as info:
        tf.data.Dataset.range(3).map(lambda x: {}["k"])
    assert type(info.value).__name__ == "KeyError"
    assert str(info.value).startswith("in converted code:\n")
    assert str(info.value).endswith("\n\n    KeyError: 'k'\n")
    # TF's own checks after the function returns are not rewritten
    with pytest.raises(TypeError) as info:
        tf.data.Dataset.range(3).map(lambda x: None)
    assert str(info.value) == "Unsupported return value from function passed to Dataset.map(): None."


class _AddsAnInt(tf.keras.layers.Layer):
    def call(self, x):
        return x + tf.constant(1, tf.int32)


class _Outer(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.inner = _AddsAnInt()

    def call(self, x):
        y = x * 2
        return self.inner(y)


def _frame_lines(msg):
    """The (file-less) frame lines of a converted-code message: 'name  *' and the code."""
    out = []
    for line in msg.split("\n"):
        m = re.fullmatch(r"    \S*test_printed_output_parity23\.py:\d+ (.*)", line)
        if m:
            out.append(m.group(1))
        elif out and line.startswith("        ") and len(out) % 2:
            out.append(line.strip())
    return out


def test_errors_in_user_layers_and_tf_functions_are_converted_code_errors():
    # measured in TF 1.15: a subclassed layer's or model's call and a tf.function are
    # converted by AutoGraph (each nesting adds its frame); a Lambda layer's function is not
    with pytest.raises(TypeError) as info:
        _Outer()(tf.zeros([2]))
    msg = str(info.value)
    assert msg.startswith("in converted code:\n")
    assert _frame_lines(msg) == ["call  *", "return self.inner(y)",
                                 "call  *", "return x + tf.constant(1, tf.int32)"]
    assert msg.endswith("\n\n    TypeError: Input 'y' of 'AddV2' Op has type int32 that does not "
                        "match type float32 of argument 'x'.\n")

    @tf.function
    def f(x):
        return x + tf.constant(1, tf.int32)

    with pytest.raises(TypeError) as info:
        f(tf.zeros([2]))
    assert _frame_lines(str(info.value)) == ["f  *", "return x + tf.constant(1, tf.int32)"]
    with pytest.raises(TypeError) as info:
        tf.keras.layers.Lambda(lambda x: x + tf.constant(1, tf.int32))(tf.zeros([2]))
    assert str(info.value) == ("Input 'y' of 'AddV2' Op has type int32 that does not match "
                               "type float32 of argument 'x'.")


def test_a_feed_numpy_cannot_convert_fails_with_tf_1_15s_python_words():
    # measured in TF 1.15 (Python 3.7): "... or a number, not ..." (3.10 says "a real number")
    x = tf.placeholder(tf.float32, name="x")
    i = tf.placeholder(tf.int32, name="i")
    with tf.Session() as sess:
        with pytest.raises(TypeError) as info:
            sess.run(x, {x: {"a": 1}})
        assert str(info.value) == "float() argument must be a string or a number, not 'dict'"
        with pytest.raises(TypeError) as info:
            sess.run(i, {i: object()})
        assert str(info.value) == ("int() argument must be a string, a bytes-like object or a "
                                   "number, not 'object'")


def test_keras_fit_warns_of_a_dataset_it_knows_is_not_shuffled(caplog):
    # measured in TF 1.15: the warning when every transformation of fit's dataset is one Keras
    # knows keeps the order; none after a shuffle, for a generator or with shuffle=False
    x = np.zeros([8, 4], np.float32)
    y = np.zeros([8, 1], np.float32)
    m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(4,))])
    m.compile("sgd", "mse")
    base = tf.data.Dataset.from_tensor_slices((x, y))
    want = ("Expected a shuffled dataset but input dataset `x` is not shuffled. Please invoke "
            "`shuffle()` on input dataset.")
    gen = tf.data.Dataset.from_generator(lambda: iter([(x[:4], y[:4])]),
                                         (tf.float32, tf.float32), ([4, 4], [4, 1]))
    for ds, kw, warned in [
            (base.batch(4).repeat(), {}, True),
            (base.shuffle(8).batch(4).repeat(), {}, False),
            (base.batch(4).repeat(), {"shuffle": False}, False),
            (gen.repeat(), {}, False),
            (base.cache().batch(4).prefetch(2).repeat(), {}, True),
            (base.batch(4).repeat().with_options(tf.data.Options()), {}, True)]:
        caplog.clear()
        with caplog.at_level("WARNING"):
            m.fit(ds, steps_per_epoch=2, verbose=0, **kw)
        assert [r.getMessage() for r in caplog.records if "shuffle" in r.getMessage()] == (
            [want] if warned else [])


def test_tf_test_assertion_reports_are_numpy_1s():
    # measured in TF 1.15 (NumPy 1.18): no list of mismatched indices, " x: "/" y: "
    t = tf.test.TestCase("__init__")
    with pytest.raises(AssertionError) as info:
        t.assertAllEqual([1, 2, 3], [1, 5, 3])
    assert str(info.value).split("\n")[-4:] == [
        "Max absolute difference: 3", "Max relative difference: 0.6",
        " x: array([1, 2, 3])", " y: array([1, 5, 3])"]
    with pytest.raises(AssertionError) as info:
        t.assertAllClose([1.0, np.nan], [1.0, 2.0])
    assert str(info.value).split("\n")[-3:] == [
        "x and y nan location mismatch:", " x: array([ 1., nan])", " y: array([1., 2.])"]
    with pytest.raises(AssertionError) as info:
        t.assertAllClose(np.ones([2, 3], np.float32), np.ones([2, 3]) * 1.1)
    lines = str(info.value).split("\n")
    assert "Mismatched elements: 6 / 6 (100%)" in lines
    i = lines.index("Mismatched elements: 6 / 6 (100%)")
    assert lines[i + 1:i + 4] == ["Max absolute difference: 0.1",
                                  "Max relative difference: 0.09090909",
                                  " x: array([[1., 1., 1.],"]


def test_an_uninitialized_resource_variable_fetched_names_its_read_op():
    # measured in TF 1.15: a resource variable is fetched through "<name>/Read/ReadVariableOp"
    r = tf.Variable(1.0, use_resource=True, name="r")
    with tf.Session() as sess:
        for fetch in (r, [r, tf.constant(1.0)]):
            msg = _error(sess, fetch).message
            assert msg.startswith("Error while reading resource variable r from Container: "
                                  "localhost. This could mean that the variable was "
                                  "uninitialized. Not found: Container localhost does not "
                                  "exist. (Could not find resource: localhost/r)\n\t [[node "
                                  "r/Read/ReadVariableOp (defined at "), msg
            assert msg.endswith(") ]]")
