"""Error parity, eighteenth session: the exception class and message TF 1.x programs meet.

Each expected message below is what real TF 1.15 printed for the same snippet (the
'Caused by op' / node tail of run-time errors is not compared); the tests need only tideflow.
"""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def test_empty_graph_run_message_has_tf_spacing():
    with tf.Session() as s, pytest.raises(RuntimeError) as e:
        s.run(None)
    assert str(e.value) == ("The Session graph is empty.  Add operations to the graph before "
                            "calling run().")


def test_strided_slice_error_lists_only_the_strides_as_computed():
    with pytest.raises(ValueError) as e:
        tf.zeros([2, 3])[0, 0, 0]
    assert str(e.value) == (
        "Index out of range using input dim 2; input has only 2 dims for 'strided_slice' "
        "(op: 'StridedSlice') with input shapes: [2,3], [3], [3], [3] and with computed input "
        "tensors: input[3] = <1 1 1>.")


@pytest.mark.parametrize("b,e,s,msg", [
    ([0, 0], [1, 1], [1, 1, 1], "but are 2 and 3. Shapes are [2] and [3]."),
    ([0, 0, 0], [1, 1], [1, 1], "but are 3 and 2. Shapes are [3] and [2]."),
])
def test_strided_slice_spec_lengths_are_merged_as_shapes(b, e, s, msg):
    with pytest.raises(ValueError) as err:
        tf.strided_slice(tf.zeros([2, 3]), b, e, s)
    assert str(err.value).startswith("Dimension 0 in both shapes must be equal, " + msg)


def test_static_rank_asserts_keep_the_message_separator():
    with pytest.raises(ValueError) as e:
        tf.assert_rank(tf.zeros([2, 3]), 3)
    assert str(e.value) == ".  Tensor zeros:0 must have rank 3.  Received rank 2, shape (2, 3)"
    with pytest.raises(ValueError) as e:
        tf.assert_rank_at_least(tf.zeros([2], name="z1"), 3, message="m")
    assert str(e.value) == ("m.  Tensor z1:0 must have rank at least 3.  Received rank 1, "
                            "shape (2,)")
    with pytest.raises(ValueError) as e:
        tf.assert_rank_in(tf.zeros([2], name="z2"), [0, 2])
    assert str(e.value) == (".  Tensor z2:0 must have rank in (array(0, dtype=int32), "
                            "array(2, dtype=int32)).  Received rank 1, shape (2,)")


def test_assert_shapes_static_message():
    with pytest.raises(ValueError) as e:
        tf.debugging.assert_shapes([(tf.zeros([2, 3]), ("N", "Q")), (tf.zeros([3]), ("N",))])
    assert str(e.value) == (".  Specified by tensor zeros:0 dimension 0.  Tensor zeros_1:0 "
                            "dimension 0 must have size 2.  Received size 3, shape (3,)")


def test_assert_type_message():
    with pytest.raises(TypeError) as e:
        tf.assert_type(tf.zeros([2]), tf.int32, message="tmsg")
    assert str(e.value) == "tmsg  zeros:0 must be of type <dtype: 'int32'>"


@pytest.mark.parametrize("make,msg", [
    (lambda: tf.fill([2, -3], 1.0), "Invalid value in tensor used for shape: -3"),
    (lambda: tf.zeros([2, -3]), "Invalid value in tensor used for shape: -3"),
    (lambda: tf.reshape(tf.zeros([2]), [-2]), "Invalid value in tensor used for shape: -2"),
    (lambda: tf.reshape(tf.zeros([2]), tf.constant([1, -5])),
     "Invalid value in tensor used for shape: -5"),
    (lambda: tf.random_normal([2, -3]), "Invalid value in tensor used for shape: -3"),
    (lambda: tf.broadcast_to(1.0, [2, -2]), "Invalid value in tensor used for shape: -2"),
    (lambda: tf.tile(tf.ones([2, 3]), [-2, 1]), "Invalid value in tensor used for shape: -2"),
    (lambda: tf.zeros([2, -1]),
     ("Fill dimensions must be >= 0 for 'zeros' (op: 'Fill') with input shapes: [2], [] and "
     "with input tensors computed as partial shapes: input[0] = [2,?].")),
    (lambda: tf.fill([2, -1], 1.0),
     ("Fill dimensions must be >= 0 for 'Fill' (op: 'Fill') with input shapes: [2], [] and "
     "with input tensors computed as partial shapes: input[0] = [2,?].")),
    (lambda: tf.pad(tf.ones([2, 2]), [[-2, 1], [3, 4]]),
     ("Paddings must be non-negative for 'Pad' (op: 'Pad') with input shapes: [2,2], [2,2] and "
     "with computed input tensors: input[1] = <[-2 1][3 4]>.")),
])
def test_shape_tensor_values_below_minus_one_fail_as_tfs_refiner(make, msg):
    # below -1 the refiner fails before the op's shape function: no op named
    with pytest.raises(ValueError) as e:
        make()
    assert str(e.value) == msg


def test_zeros_and_ones_of_list_shapes_follow_tfs_paths():
    assert tf.ones([2.5, 3]).shape.as_list() == [2, 3]  # small: int() of each entry
    with pytest.raises(TypeError, match=r"^Expected int32, got 2000.0 of type 'float' instead"):
        tf.zeros([2000.0, 1.5])
    with pytest.raises(TypeError, match=r"^Expected int32, got None of type 'NoneType' instead"):
        tf.zeros([2, None])


@pytest.mark.parametrize("kw,cls,msg", [
    ({"dtype": "nope"}, TypeError, "Expected DataType for argument 'dtype' not 'nope'."),
    ({"dtype": tf.float32, "shape": "abc"}, TypeError,
     ("Error converting shape to a TensorShape: A string has ambiguous TensorShape, please wrap "
     "in a list or convert to an int: abc.")),
    ({"dtype": tf.float32, "shape": [-1, 3]}, ValueError,
     "Error converting shape to a TensorShape: Dimension -1 must be >= 0."),
])
def test_placeholder_attr_errors(kw, cls, msg):
    with pytest.raises(cls) as e:
        tf.placeholder(**kw)
    assert str(e.value) == msg


def _run_error(make, a, b):
    x, f = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    y = make(x, f)
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError) as e:
        s.run(y, {x: np.zeros(a), f: np.zeros(b)})
    return e.value.message.split("\n")[0]


@pytest.mark.parametrize("make,a,b,msg", [
    (lambda x, f: tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"), [1, 5, 5, 3], [3, 3, 4, 8],
     "input depth must be evenly divisible by filter depth: 3 vs 4"),
    (lambda x, f: tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"), [5, 5, 3], [3, 3, 3, 8],
     "input must be 4-dimensional[5,5,3]"),
    (lambda x, f: tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"), [1, 5, 5, 3], [3, 3, 8],
     "filter must be 4-dimensional: [3,3,8]"),
    (lambda x, f: tf.nn.conv3d(x, f, [1] * 5, "SAME"), [1, 5, 5, 5, 3], [3, 3, 3, 4, 8],
     "Input depth must be evenly divisible by filter depth: 3 vs 4"),
    (lambda x, f: tf.nn.conv3d(x, f, [1] * 5, "SAME"), [5, 5, 5, 3], [3, 3, 3, 3, 8],
     "input must be 5-dimensional"),
    (lambda x, f: tf.nn.depthwise_conv2d_native(x, f, [1, 1, 1, 1], "SAME"), [1, 5, 5, 3],
     [3, 3, 4, 2], "input and filter must have the same depth: 3 vs 4"),
    (lambda x, f: tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"), [5, 5, 3], [1],
     "tensor_in_shape must have 2 spatial dimensions. 3 0"),
    (lambda x, f: tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"), [5, 5, 3], [1],
     "tensor_in_shape must have 2 spatial dimensions. 3 0"),
    (lambda x, f: tf.nn.max_pool3d(x, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "SAME"), [5, 5, 3],
     [1], "tensor_in must be 5-dimensional"),
    (lambda x, f: tf.matmul(x, f), [3], [3, 2], "In[0] ndims must be >= 2: 1"),
    (lambda x, f: tf.matmul(x, f), [2, 3], [3], "In[1] ndims must be >= 2: 1"),
    (lambda x, f: tf.matmul(x, f), [2, 2, 3], [2, 4, 2],
     "In[0] mismatch In[1] shape: 3 vs. 4: [2,2,3] [2,4,2] 0 0"),
    (lambda x, f: tf.matmul(x, f, adjoint_b=True), [2, 2, 3], [3, 4, 2],
     "In[0] and In[1] must have compatible batch dimensions: [2,2,3] vs. [3,4,2]"),
])
def test_kernel_shape_errors_use_tf115_words(make, a, b, msg):
    assert _run_error(make, a, b) == msg


@pytest.mark.parametrize("a,b,kw,msg", [
    ([2, 2, 3], [2, 4, 2], {}, "In[0] mismatch In[1] shape: 3 vs. 4: [2,2,3] [2,4,2] 0 0"),
    ([2, 2, 3], [2, 4, 2], {"adj_x": True},
     "In[0] mismatch In[1] shape: 2 vs. 4: [2,2,3] [2,4,2] 1 0"),
    ([2, 2, 3], [3, 3, 2], {},
     "In[0].dim(0) and In[1].dim(0) must be the same: [2,2,3] vs [3,3,2]"),
    ([2, 2, 3], [3, 2], {}, "In[0] and In[1] has different ndims: [2,2,3] vs. [3,2]"),
    ([3], [3], {}, "In[0] and In[1] ndims must be >= 2: 1"),
])
def test_batch_matmul_v1_run_time_words(a, b, kw, msg):
    assert _run_error(lambda x, f: tf.raw_ops.BatchMatMul(x=x, y=f, **kw), a, b) == msg


def test_tensor_array_errors_name_the_array_with_tfs_count():
    # TF's kernel names each array made "<op or tensor_array_name>_<process-wide count>"
    ta = tf.TensorArray(tf.float32, size=2, tensor_array_name="foo")
    r = ta.read(0)
    seen = []
    with tf.Session() as s:
        for _ in range(2):
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                s.run(r)
            seen.append(int(e.value.message.split(":")[0].rsplit("_", 1)[1]))
            assert e.value.message.startswith("TensorArray foo_")
    assert seen[1] == seen[0] + 1


def test_saver_var_list_tensors_must_come_from_variables():
    v = tf.Variable(1.0, name="v")
    for bad, shown in [(tf.constant(1.0), "Const:0"), (v.value(), "v/read:0"),
                       (tf.identity(v), "Identity:0")]:
        with pytest.raises(TypeError) as e:
            tf.train.Saver([bad])
        assert str(e.value) == (f'Variable to save is not a Variable: Tensor("{shown}", '
                                'shape=(), dtype=float32)')
    tf.train.Saver([v])


def test_restore_from_a_missing_folder_is_tfs_not_found(tmp_path):
    tf.Variable(1.0, name="a")
    saver = tf.train.Saver()
    with tf.Session() as s, pytest.raises(tf.errors.NotFoundError) as e:
        saver.restore(s, str(tmp_path / "gone" / "model.ckpt"))
    assert str(e.value) == f"{tmp_path / 'gone'}; No such file or directory"


@pytest.mark.parametrize("make,msg", [
    (lambda: tf.bitcast(tf.zeros([3]), tf.float64),
     ("Cannot bitcast due to shape. 3 does not match 2 for 'Bitcast' (op: 'Bitcast') with "
     "input shapes: [3].")),
    (lambda: tf.bitcast(tf.constant(1.0), tf.float64),
     ("Shape must be at least rank 1 but is rank 0 for 'Bitcast' (op: 'Bitcast') with input "
     "shapes: [].")),
    (lambda: tf.multinomial(tf.zeros([3]), 2),
     ("Shape must be rank 2 but is rank 1 for 'multinomial/Multinomial' (op: 'Multinomial') "
     "with input shapes: [3], [].")),
    (lambda: tf.nn.top_k(tf.zeros([3]), -1),
     ("Dimension size, given by scalar input 1, must be non-negative but is -1 for 'TopKV2' "
     "(op: 'TopKV2') with input shapes: [3], [] and with computed input tensors: input[1] = "
     "<-1>.")),
    (lambda: tf.layers.conv2d(tf.zeros([1, 4, 4, 3]), 4, 3, padding="full"),
     ('The `padding` argument must be a list/tuple or one of "valid", "same" (or "causal", '
     "only for `Conv1D). Received: full")),
])
def test_construction_messages(make, msg):
    with pytest.raises(ValueError) as e:
        make()
    assert str(e.value) == msg


def test_bitcast_run_time_names_the_dtype_enums():
    assert _run_error(lambda x, f: tf.bitcast(x, tf.float64), [3], [1]) == (
        "Cannot bitcast from 1 to 2")


def test_assert_non_positive_runs_tfs_two_strings_together():
    x = tf.placeholder(tf.float32, [3], name="x")
    a = tf.assert_non_positive(x)
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError) as e:
        s.run(a, {x: [1, 0, 2]})
    assert e.value.message.split("\n")[0] == (
        "assertion failed: [] [Condition x <= 0 did not hold element-wise:x (x:0) = ] [1 0 2]")
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.assert_non_positive(tf.constant([1, 0], name="c"))
    assert str(e.value) == "\nCondition x <= 0 did not hold element-wise:x (c:0) = \n[1 0]"


def test_concat_missing_arguments_use_pythons_words():
    with pytest.raises(TypeError) as e:
        tf.concat([tf.zeros([2])])
    assert str(e.value) == "concat() missing 1 required positional argument: 'axis'"
    with pytest.raises(TypeError) as e:
        tf.concat()
    assert str(e.value) == "concat() missing 2 required positional arguments: 'values' and 'axis'"


def test_sparse_xent_with_no_classes():
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.zeros([2], tf.int32), logits=tf.zeros([2, 0]))
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError) as e:
        s.run(xent)
    assert e.value.message.split("\n")[0] == (
        "Must have at least one class, but got logits shape [2,0]")


def test_placement_on_a_missing_device_uses_tf115_words():
    with tf.device("/device:GPU:9"):
        c = tf.constant(1, name="c")
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError) as e:
        s.run(c)
    msg = e.value.message
    assert msg.startswith("Cannot assign a device for operation c: node c (defined at ")
    assert ")  was explicitly assigned to /device:GPU:9 but available devices are [ " in msg
    assert msg.split("\n")[0].endswith(
        " ]. Make sure the device specification refers to a valid device. The requested device "
        "appears to be a GPU, but CUDA is not enabled.")
    # (a fresh graph: TF places a session's whole graph, so c would fail this step too)
    with tf.Graph().as_default(), tf.device("/job:foo/task:0"):
        d = tf.constant(1, name="d")
        with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError) as e:
            s.run(d)
    assert e.value.message.split("\n")[0].endswith(
        "Make sure the device specification refers to a valid device.")


def test_gradients_of_another_graph_message():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
    y = tf.placeholder(tf.float32) * 2
    with pytest.raises(ValueError) as e:
        tf.gradients(y, x)
    assert str(e.value) == ('Tensor("Placeholder:0", dtype=float32) must be from the same graph '
                            'as Tensor("mul:0", dtype=float32).')


def test_cond_structure_mismatch_is_nests_error_as_is():
    p = tf.placeholder(tf.bool)
    with pytest.raises(ValueError) as e:
        tf.cond(p, lambda: (tf.constant(1), tf.constant(2)), lambda: tf.constant(1))
    assert str(e.value).startswith("The two structures don't have the same nested structure.")


def test_map_fn_checks_fns_result_against_the_dtype_structure():
    with pytest.raises(ValueError) as e:
        tf.map_fn(lambda x: (x, x), tf.zeros([3]))
    assert "First structure: type=DType str=<dtype: 'float32'>" in str(e.value)


@pytest.mark.parametrize("elems,shape", [(np.zeros([0], np.float32), (0,)),
                                         (np.zeros([0, 3], np.float32), (0, 3))])
def test_map_fn_over_no_rows(elems, shape):
    x = tf.placeholder(tf.float32, [None] + list(elems.shape[1:]))
    m = tf.map_fn(lambda r: r * 2, x)
    with tf.Session() as s:
        assert s.run(m, {x: elems}).shape == shape
        assert s.run(tf.map_fn(tf.reduce_sum, tf.zeros([0, 3]))).shape == (0,)


def test_batch_of_unequal_elements_names_the_shapes():
    ds = tf.data.Dataset.from_generator(lambda: iter([[1], [1, 2]]), tf.int32).batch(2)
    n = ds.make_one_shot_iterator().get_next()
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError) as e:
        s.run(n)
    assert e.value.message.split("\n")[0] == (
        "Cannot batch tensors with different shapes in component 0. First element had shape "
        "[1] and element 1 had shape [2].")
    # a batch of a map is TF's fused map-and-batch: its copy checks the size
    ds = tf.data.Dataset.range(2).map(lambda i: tf.range(i + 1)).batch(2)
    n = ds.make_one_shot_iterator().get_next()
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError) as e:
        s.run(n)
    assert e.value.message.split("\n")[0] == (
        "Cannot add tensor to the batch: number of elements does not match. Shapes are: "
        "[tensor]: [2], [batch]: [1]")


def test_updates_of_an_uninitialized_resource_variable_are_not_found():
    v = tf.get_variable("rv", [2], use_resource=True)
    with tf.Session() as s:
        for update in [v.assign_add([1.0, 1.0]), tf.scatter_add(v, [0], [1.0])]:
            with pytest.raises(tf.errors.NotFoundError) as e:
                s.run(update)
            assert e.value.message.split("\n")[0] == (
                "Container localhost does not exist. (Could not find resource: localhost/rv)")
        with pytest.raises(tf.errors.FailedPreconditionError):
            s.run(v.read_value())


def test_glob_needs_the_folder_before_the_first_wildcard(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.txt").write_text("x")
    assert tf.gfile.Glob(str(tmp_path / "*" / "x.txt")) == [str(tmp_path / "a" / "x.txt")]
    assert tf.gfile.Glob(str(tmp_path / "a" / "*.csv")) == []
    with pytest.raises(tf.errors.NotFoundError) as e:  # (TF 1.15: without a wildcard too)
        tf.gfile.Glob(str(tmp_path / "gone" / "x.txt"))
    assert str(e.value) == f"{tmp_path / 'gone'}; No such file or directory"
    with pytest.raises(tf.errors.NotFoundError) as e:
        tf.gfile.Glob(str(tmp_path / "gone" / "b" / "*.txt"))
    assert str(e.value) == f"{tmp_path / 'gone' / 'b'}; No such file or directory"


def test_copy_and_rename_onto_an_existing_file(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("1")
    b.write_text("2")
    for move in (tf.gfile.Copy, tf.gfile.Rename):
        with pytest.raises(tf.errors.AlreadyExistsError) as e:
            move(str(a), str(b))
        assert str(e.value) == "file already exists"


def test_decode_image_of_unknown_bytes():
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError) as e:
        s.run(tf.image.decode_image(tf.constant("abc")))
    assert e.value.message.split("\n")[0] == (
        "assertion failed: [Unable to decode bytes as JPEG, PNG, GIF, or BMP]")


def test_asserts_decide_statically_only_through_tf115s_folded_ops():
    c = tf.constant([0, 3])
    with tf.control_dependencies([tf.no_op()]):
        ident = tf.identity(c)
    a = tf.assert_less(ident, 2)  # an Identity stops TF's constant_value: a run-time check
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError) as e:
        s.run(a)
    assert e.value.message.startswith("assertion failed: [Condition x < y did not hold")
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.assert_less(tf.cast(c, tf.float32), 2.0)  # a Cast of a Const is folded


def test_learning_rate_decay_of_a_none_step():
    with pytest.raises(ValueError) as e:
        tf.train.exponential_decay(0.1, None, 10, 0.9)
    assert str(e.value) == "None values not supported."


def test_linalg_square_checks():
    with pytest.raises(ValueError) as e:
        tf.matrix_determinant(tf.zeros([2, 3]))
    assert str(e.value).startswith("Dimensions must be equal, but are 3 and 2 for")
    with pytest.raises(ValueError) as e:
        tf.linalg.slogdet(tf.zeros([2, 3]))
    assert str(e.value).startswith("Dimensions must be equal, but are 3 and 2 for")
    assert _run_error(lambda x, f: tf.matrix_inverse(x), [2, 3], [1]) == (
        "Input matrix must be square.")
    assert _run_error(lambda x, f: tf.matrix_determinant(x), [3], [1]) == (
        "Input tensor 0 must have rank >= 2, got 1")
    assert _run_error(lambda x, f: tf.matrix_solve(x, f), [2, 3], [2, 1]) == (
        "First input (lhs) must be a square matrix.")


def test_sparse_out_of_order_names_the_fix():
    sp = tf.SparseTensor([[1, 0], [0, 0]], [1.0, 2.0], [2, 2])
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError) as e:
        s.run(tf.sparse_tensor_to_dense(sp))
    assert e.value.message.split("\n\t [[")[0] == (
        "indices[1] = [0,0] is out of order. Many sparse ops require sorted indices.\n"
        "    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n")


def test_unsorted_segment_sum_of_a_negative_count():
    with pytest.raises(ValueError) as e:
        tf.unsorted_segment_sum([1.0, 2.0], [0, 1], -1)
    assert str(e.value).startswith(
        "Dimension size, given by scalar input 2, must be non-negative but is -1 for "
        "'UnsortedSegmentSum'")


def test_layer_and_metric_construction_messages():
    with pytest.raises(ValueError) as e:
        tf.contrib.layers.fully_connected(tf.placeholder(tf.float32, [None, None]), 2)
    assert str(e.value) == ("The last dimension of the inputs to `Dense` should be defined. "
                            "Found `None`.")
    with tf.Graph().as_default(), pytest.raises(ValueError) as e:
        tf.contrib.layers.fully_connected(tf.zeros([3]), 2)
    assert str(e.value) == ("Input 0 of layer fully_connected is incompatible with the layer: "
                            ": expected min_ndim=2, found ndim=1. Full shape received: [3]")
    with pytest.raises(ValueError) as e:
        tf.layers.batch_normalization(tf.placeholder(tf.float32, [None, None]))
    assert str(e.value) == ("('Input has undefined `axis` dimension. Input shape: ', "
                            "TensorShape([Dimension(None), Dimension(None)]))")
    with pytest.raises(ValueError) as e:
        tf.contrib.layers.l2_regularizer(-1.0)
    assert str(e.value) == "Setting a scale less than 0 on a regularizer: -1."
    with pytest.raises(ValueError) as e:
        tf.contrib.layers.l1_regularizer(-1.0)
    assert str(e.value) == "Setting a scale less than 0 on a regularizer: -1"
    with pytest.raises(ValueError) as e:
        tf.metrics.accuracy(tf.zeros([2]), tf.zeros([3]))
    assert str(e.value) == "Shapes (3,) and (2,) are incompatible"
    with pytest.raises(ValueError) as e:
        tf.layers.conv2d(tf.zeros([1, 8, 8, 3]), 2, 3, strides=2, dilation_rate=2)
    assert str(e.value) == "strides > 1 not supported in conjunction with dilation_rate > 1"
    with pytest.raises(ValueError) as e:
        tf.layers.conv2d(tf.zeros([1, 4, 4, 3]), 2, [3, 3, 3])
    assert str(e.value) == ("The `kernel_size` argument must be a tuple of 2 integers. "
                            "Received: [3, 3, 3]")
