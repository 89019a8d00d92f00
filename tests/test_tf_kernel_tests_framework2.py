"""Second audit of tensorflow/python/framework and util against TF 1.15's behaviour:
nest's structures, paths and error messages; graph_util; meta graphs; seeds."""

import collections
import re

import numpy as np
import pytest

import tideflow as tf
from tideflow.python.util import nest


class _Mapping(collections.abc.Mapping):
    def __init__(self, *args, **kwargs):
        self._d = dict(*args, **kwargs)

    def __getitem__(self, key):
        return self._d[key]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)


_Pair = collections.namedtuple("Pair", ["left", "right"])
_PairAgain = collections.namedtuple("Pair", ["left", "right"])
_OtherPair = collections.namedtuple("OtherPair", ["left", "right"])


class _Field:
    def __init__(self, name):
        self.name = name


class _AttrsLike:
    """Looks like an ``attrs`` class to nest: fields listed in ``__attrs_attrs__``."""

    __attrs_attrs__ = (_Field("second"), _Field("first"))

    def __init__(self, second, first):
        self.second, self.first = second, first

    def __eq__(self, other):
        return type(other) is type(self) and (self.second, self.first) == (other.second,
                                                                           other.first)


def test_nest_sequences_views_and_leaves():
    od = collections.OrderedDict([("z", 10), ("m", 20)])
    assert nest.is_sequence(od.keys()) and nest.is_sequence(od.items())
    assert nest.is_sequence(range(3))
    assert not nest.is_sequence({1, 2}) and not nest.is_sequence(b"ab")
    assert nest.flatten(od.items()) == ["z", 10, "m", 20]
    assert nest.pack_sequence_as(od.values(), [7, 8]) == [7, 8]
    assert nest.flatten(_AttrsLike(1, [2, 3])) == [1, 2, 3]
    rebuilt = nest.pack_sequence_as(_AttrsLike(0, [0, 0]), [4, 5, 6])
    assert rebuilt == _AttrsLike(4, [5, 6])
    # flatten orders any mapping by key; packing keeps the template's order and type
    packed = nest.pack_sequence_as(_Mapping([("y", 0), ("x", 0)]), ["X", "Y"])
    assert isinstance(packed, _Mapping) and list(packed) == ["y", "x"]
    assert packed["x"] == "X"
    dd = collections.defaultdict(list, {"k": 1})
    out = nest.map_structure(lambda v: v + 1, dd)
    assert isinstance(out, collections.defaultdict) and out.default_factory is list
    with pytest.raises(TypeError, match="sortable keys"):
        nest.flatten({1: "a", "b": 2})


def test_nest_pack_errors():
    with pytest.raises(ValueError, match="Structure is a scalar but len"):
        nest.pack_sequence_as(3, [1, 2])
    with pytest.raises(TypeError, match="flat_sequence must be a sequence"):
        nest.pack_sequence_as([1], "xy")
    assert nest.pack_sequence_as("leaf", [np.arange(2)]).tolist() == [0, 1]
    with pytest.raises(ValueError, match="Structure had 3 elements, but flat_sequence had 1"):
        nest.pack_sequence_as((1, (2, 3)), [9])


def test_nest_assert_same_structure_messages():
    with pytest.raises(ValueError) as e:
        nest.assert_same_structure(([1], 2), ("ab", 3))
    msg = str(e.value)
    assert msg.startswith("The two structures don't have the same nested structure.\n\n"
                          "First structure: type=tuple str=([1], 2)\n\n")
    assert ('More specifically: Substructure "type=list str=[1]" is a sequence, while '
            'substructure "type=str str=ab" is not') in msg
    assert msg.endswith("Entire first structure:\n([.], .)\nEntire second structure:\n(., .)")
    with pytest.raises(ValueError, match="same number of elements"):
        nest.map_structure(lambda a, b: a, [1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="same set of keys"):
        nest.assert_same_structure({"p": 1}, {"q": 1})
    with pytest.raises(TypeError, match="same sequence type"):
        nest.assert_same_structure((1, 2), [1, 2])
    # namedtuples alike by name and fields; mappings of different classes alike
    nest.assert_same_structure(_Pair(1, 2), _PairAgain(3, 4))
    nest.assert_same_structure({"k": 1}, _Mapping(k=2))
    with pytest.raises(TypeError):
        nest.assert_same_structure(_Pair(1, 2), _OtherPair(1, 2))
    with pytest.raises(TypeError, match="func must be callable"):
        nest.map_structure(None, [1])
    with pytest.raises(ValueError, match="Only valid keyword argument.*bogus"):
        nest.map_structure(lambda a: a, [1], bogus=1)
    assert nest.map_structure(lambda a, b: a * b, 6, 7) == 42


def test_nest_shallow_structures_and_paths():
    with pytest.raises(ValueError, match=re.escape(
            "The shallow_tree's keys are not a subset of the input_tree's keys. The "
            "shallow_tree has the following keys that are not in the input_tree: ['w'].")):
        nest.assert_shallow_structure({"v": 1, "w": 2}, {"v": 1, "u": 2})
    with pytest.raises(ValueError, match=re.escape(
            "Input structure has length 1, while shallow structure has length 2.")):
        nest.assert_shallow_structure([1, 2], [1])
    with pytest.raises(TypeError, match=re.escape(
            "If shallow structure is a sequence, input must also be a sequence. Input has "
            "type: <class 'float'>.")):
        nest.flatten_up_to([1], 2.5)
    tree = {"b": [10, (20, 30)], "a": 5}
    assert nest.flatten_up_to({"a": 0, "b": [0, 0]}, tree) == [5, 10, (20, 30)]
    assert list(nest.yield_flat_paths(tree)) == [("a",), ("b", 0), ("b", 1, 0), ("b", 1, 1)]
    assert nest.flatten_with_joined_string_paths(_Pair(1, [2])) == [("left", 1),
                                                                     ("right/0", 2)]
    assert nest.flatten_with_tuple_paths([7]) == [((0,), 7)]
    pairs = nest.flatten_with_tuple_paths_up_to({"a": 0}, {"a": 1, "z": 2},
                                                check_subtrees_length=False)
    assert pairs == [(("a",), 1)]
    out = nest.map_structure_with_paths(lambda p, x, y: (p, x + y), {"q": [1, 2]},
                                        {"q": [3, 4]})
    assert out == {"q": [("q/0", 4), ("q/1", 6)]}
    out = nest.map_structure_up_to((0, 0), lambda x: len(x), ([1, 2], "abc"))
    assert out == (2, 3)
    shallow = nest.get_traverse_shallow_structure(lambda s: not isinstance(s, list),
                                                 (1, [2, 3], {"k": (4,)}))
    assert shallow == (True, False, {"k": (True,)})
    with pytest.raises(TypeError, match="non-bool scalar"):
        nest.get_traverse_shallow_structure(lambda s: 2, [1])
    assert nest.flatten_dict_items({("a", ("b",)): (1, (2,)), "c": 3}) == {"a": 1, "b": 2,
                                                                          "c": 3}
    with pytest.raises(ValueError, match="not unique"):
        nest.flatten_dict_items({("a", "a"): (1, 2)})


def test_seed_rules_follow_tf1():
    from tideflow.python.framework import random_seed

    cases = [(None, None, (None, None)), (None, 4, (random_seed.DEFAULT_GRAPH_SEED, 4)),
             (2**31 - 1, 0, (0, 2**31 - 1)), (0, 2**31 - 1, (0, 2**31 - 1)), (3, None, (3, 0))]
    for graph_seed, op_seed, expected in cases:
        with tf.Graph().as_default():
            tf.set_random_seed(graph_seed)
            assert random_seed.get_seed(op_seed) == expected
    with tf.Graph().as_default() as g:
        tf.set_random_seed(9)
        tf.random_uniform([2])  # shape, min and max constants come first: op seed 3
        seeds = [(op.get_attr("seed"), op.get_attr("seed2")) for op in g.get_operations()
                 if op.type == "RandomUniform"]
    assert seeds == [(9, 3)]


def test_defun_signature_checks_and_call_results():
    from tideflow.python.framework import function

    # checked when decorating, as TF
    with pytest.raises(ValueError, match="fewer arguments than the number of specified"):
        @function.Defun(tf.float32)
        def two_params(a, b):
            return a + b

    with pytest.raises(ValueError, match="argument defaults or keyword arguments"):
        @function.Defun(tf.float32, tf.float32)
        def with_default(a, b=1.0):
            return a * b

    @function.Defun()
    def untyped(a, b):
        return a - b

    @function.Defun(tf.float32)
    def one_in_a_list(a):
        return [a * 4.0]

    @function.Defun(tf.float32)
    def pair(a):
        return [a + 1.0, 2.5]

    @function.Defun(tf.float32)
    def some_none(a):
        return a, None

    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.constant(1.5)
        with pytest.raises(ValueError, match="Expected number of arguments: 2, received: 1"):
            untyped(x)
        with pytest.raises(ValueError, match="Unknown keyword arguments"):
            untyped(x, x, device="/cpu:0")
        assert sess.run(untyped(x, 0.5)) == 1.0
        single = one_in_a_list(x)
        assert isinstance(single, tf.Tensor) and sess.run(single) == 6.0
        both = pair(x)
        assert isinstance(both, tuple) and isinstance(both[1], tf.Tensor)
        assert sess.run(list(both)) == [2.5, 2.5]
        with pytest.raises(ValueError, match="some_none can not return None"):
            some_none(x)
        with pytest.raises(ValueError, match="some_none can not return None"):
            _ = some_none.definition
        sig = pair.definition.signature
        assert [a.name for a in sig.input_arg] == ["a"] and len(sig.output_arg) == 2


def test_smart_cond_and_smart_case():
    from tideflow.python.framework import smart_cond as sc

    def never():
        raise AssertionError("this branch must not be built")

    with tf.Graph().as_default(), tf.Session() as sess:
        a, b = tf.constant(3), tf.constant(-4)
        # folds from constants: only the true branch is built
        out = sc.smart_cond(a * b < 0, lambda: tf.constant(11), never)
        assert sess.run(out) == 11
        with_default = tf.placeholder_with_default(5, shape=())
        out = sc.smart_cond(with_default > 0, lambda: tf.constant(1), lambda: tf.constant(2))
        assert sess.run(out, {with_default: -5}) == 2
        assert sc.smart_constant_value(1) is True and sc.smart_constant_value(False) is False
        assert sc.smart_constant_value(tf.placeholder(tf.bool, [])) is None
        with pytest.raises(TypeError, match="`pred` must be a Tensor, or a Python bool"):
            sc.smart_constant_value("yes")
        with pytest.raises(TypeError, match="`false_fn` must be callable."):
            sc.smart_cond(True, lambda: a, b)
        p = tf.placeholder(tf.int32, [])
        picked = sc.smart_case([(p > 7, lambda: tf.constant(70)), (b > 0, never), (False, never),
                                (True, lambda: tf.constant(30))], default=never)
        assert [sess.run(picked, {p: v}) for v in (8, 0)] == [70, 30]
        last = sc.smart_case([(p < 0, lambda: tf.constant(-1)), (p >= 0, lambda: tf.constant(1))])
        assert sess.run(last, {p: 4}) == 1


def test_subscribe_moves_consumers_onto_side_effects():
    from tideflow.python.framework import subscribe

    with tf.Graph().as_default():
        seen = []

        def record(t):
            return tf.py_func(lambda v: (seen.append(int(v)), v)[1], [t], [t.dtype])

        x = tf.constant(5) * 2
        with tf.control_dependencies([x]):
            after = tf.constant(0)
        doubled = x + x
        sub = subscribe.subscribe(x, record)
        assert subscribe._is_subscribed_identity(sub)
        assert sub.op.name == x.op.name + "/subscription/Identity"
        assert sub.op in after.op.control_inputs and x.op not in after.op.control_inputs
        # subscribing again (the tensor or its subscription) extends the one subscription
        assert subscribe.subscribe(x, [record]) is sub
        assert subscribe.subscribe(sub, record) is sub
        with tf.Session() as sess:
            assert sess.run(doubled) == 20  # first input rewired: both values still 10
            assert sorted(seen) == [10, 10, 10]
            sess.run(after)
        assert len(seen) == 6
        ta = tf.TensorArray(tf.float32, size=1)
        assert subscribe.subscribe(ta.handle, record) is ta.handle
        pair = subscribe.subscribe({"k": tf.constant(1.0)}, [])
        assert subscribe._is_subscribed_identity(pair["k"])
        with pytest.raises(TypeError, match="has invalid type"):
            subscribe.subscribe("not a tensor", record)


def test_registry_names_and_duplicates():
    from tideflow.python.framework import registry

    reg = registry.Registry("widgets")

    def knob():
        return 1

    with pytest.raises(LookupError, match="widgets registry has no entry for: knob"):
        reg.lookup("knob")
    reg.register(knob)
    reg.register(knob, "dial")
    assert reg.lookup(b"dial") is knob and sorted(reg.list()) == ["dial", "knob"]
    with pytest.raises(KeyError, match=r"Registering two widgets with name 'dial'! \(Previous "
                                       r"registration was in \S+ .*\.py:\d+\)"):
        reg.register(knob, "dial")


def test_scoped_meta_graphs_share_one_library_without_renaming():
    from tideflow.python.framework import meta_graph

    with tf.Graph().as_default() as g:
        with tf.name_scope("first"):
            tf.Variable(tf.ones([2]), name="w")
        with tf.name_scope("second"):
            _, acc = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0),
                                   [0, tf.ones([2])])
            tf.identity(acc, name="out")
        first, _ = meta_graph.export_scoped_meta_graph(graph=g, export_scope="first")
        second, _ = meta_graph.export_scoped_meta_graph(graph=g, export_scope="second")
    with tf.Graph().as_default() as g2:
        # both carry the whole library: the second import meets the loop's functions again
        meta_graph.import_scoped_meta_graph(first, import_scope="a")
        meta_graph.import_scoped_meta_graph(second, import_scope="b")
        again, _ = meta_graph.export_scoped_meta_graph(graph=g2, export_scope="b")
        names = sorted(f.signature.name for f in again.graph_def.library.function)
        assert names == sorted(f.signature.name for f in second.graph_def.library.function)
        with tf.Session() as sess:
            assert sess.run("b/out:0").tolist() == [8.0, 8.0]


def test_defun_call_is_named_like_tfs_call_op():
    from tideflow.python.framework import errors_impl, function

    @function.Defun(tf.float32, func_name="Scale")
    def scale(a):
        return a * 3.0

    @function.Defun(tf.float32)
    def split(a):
        return a + 1.0, a - 1.0

    @function.Defun(tf.float32, out_names=["p", "q"])
    def one_output(a):
        return a

    @function.Defun(tf.float32)
    def no_output(a):
        tf.add_to_collection("h11_side", a * 2.0)

    with tf.Graph().as_default(), tf.Session() as sess:
        assert scale([1.0]).op.name == "Scale" and scale([1.0]).op.name == "Scale_1"
        assert scale([2.0], name="tripled").name == "tripled:0"
        with tf.name_scope("outer"):
            assert scale([2.0], name="inner").op.name == "outer/inner"
        assert sess.run("tripled:0").tolist() == [6.0]
        plus, minus = split(tf.constant(5.0))
        assert (plus.name, minus.name) == ("split:0", "split:1")
        assert sess.run([plus, minus]) == [6.0, 4.0]
        x = tf.constant(2.0)
        assert sess.run(tf.gradients(scale(x), x)[0]) == 3.0
        with pytest.raises(errors_impl.InvalidArgumentError,
                           match="output names size = 2 outputs size = 1"):
            one_output(x)
        call = no_output(x)
        assert isinstance(call, tf.Operation) and call.name == "no_output"
        sess.run(call)


def test_defun_definition_attrs_and_overloads():
    from tideflow.python.framework import function

    @function.Defun(tf.float32, experimental_marker="m1", _implements="some.api")
    def marked(v):
        return v + 1.0

    @function.Defun(tf.float32, noinline=True)
    def kept(v):
        return v

    assert kept.definition.attr["_noinline"].b
    attrs = marked.definition.attr
    assert attrs["experimental_marker"].s == b"m1" and attrs["_implements"].s == b"some.api"
    assert marked.captured_inputs == []

    @function.Defun()
    def back(x, dy):
        return x * dy * 10.0

    @function.Defun(grad_func=back)
    def untyped(x):
        return x * x

    for dtype in (tf.float32, tf.float64):
        with tf.Graph().as_default(), tf.Session() as sess:
            x = tf.constant(0.5, dtype)
            y = untyped(x)
            assert y.dtype == dtype
            assert sess.run(tf.gradients(y, x)[0]) == 5.0


def test_attr_value_errors_use_op_def_library_words():
    from tideflow.python.ops import gen_array_ops, gen_math_ops, gen_nn_ops

    with tf.Graph().as_default():
        x = tf.zeros([1, 2, 2, 1])
        with pytest.raises(TypeError, match="Expected DataType for argument 'DstT' not 'bogus'."):
            gen_math_ops.cast(tf.constant(1), DstT="bogus")
        with pytest.raises(TypeError, match="Expected list for attr strides"):
            gen_nn_ops.conv2d(x, tf.zeros([1, 1, 1, 1]), strides=2, padding="SAME")
        with pytest.raises(TypeError, match="Error converting shape to a TensorShape"):
            gen_array_ops.placeholder(tf.float32, shape="bad")  # (TF 1.15: a TypeError)


def test_dimension_at_index():
    from tideflow.python.framework import tensor_shape

    assert tensor_shape.dimension_at_index(tf.TensorShape(None), 4).value is None
    assert tensor_shape.dimension_at_index(tf.TensorShape([5, None]), 0).value == 5
    assert tensor_shape.dimension_at_index([2, 7], 1).value == 7


def test_make_specific_exception():
    import warnings

    from tideflow.python.framework import errors_impl

    assert isinstance(errors_impl._make_specific_exception(None, None, "gone", 5),
                      errors_impl.NotFoundError)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exc = errors_impl._make_specific_exception(None, None, "odd", 99)
    assert isinstance(exc, errors_impl.UnknownError) and exc.message == "odd"
    assert any("Unknown error code: 99" in str(w.message) for w in caught)


def test_sparse_tensor_consumers():
    with tf.Graph().as_default():
        sp = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 3.0], [3, 4])
        assert sp.consumers() == []
        out = tf.sparse_tensor_dense_matmul(sp, tf.ones([4, 1]))
        assert [op.name for op in sp.consumers()] == [out.op.name]


def test_defun_shape_func_sets_call_shapes():
    from tideflow.python.framework import function

    @function.Defun(tf.float32, shape_func=lambda op: [op.inputs[0].get_shape()])
    def opaque(x):
        return tf.py_func(lambda v: v * 2, [x], tf.float32)  # shape unknown to the graph

    with tf.Graph().as_default(), tf.Session() as sess:
        y = opaque(tf.constant([1.0, 2.0, 3.0]))
        assert y.shape.as_list() == [3]
        assert sess.run(y).tolist() == [2.0, 4.0, 6.0]


def test_default_attr_stripping_reaches_function_bodies():
    from tideflow.python.framework import meta_graph

    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, name="x")
        r = tf.cond(x > 0, lambda: tf.real(tf.complex(x, 2.0)), lambda: tf.imag(tf.complex(x, 1.0)))
        tf.identity(r, name="out")
        stripped, _ = meta_graph.export_scoped_meta_graph(graph=g, strip_default_attrs=True)
        kept, _ = meta_graph.export_scoped_meta_graph(graph=g)
    bodies = [nd for fd in stripped.graph_def.library.function for nd in fd.node_def
              if nd.op == "Complex"]
    assert len(bodies) == 2 and all("T" not in nd.attr and "Tout" not in nd.attr for nd in bodies)
    assert not kept.meta_info_def.stripped_default_attrs
    meta_graph.strip_graph_default_valued_attrs(kept)
    assert kept.meta_info_def.stripped_default_attrs
    assert kept.graph_def.library == stripped.graph_def.library
    with tf.Graph().as_default():
        meta_graph.import_scoped_meta_graph(stripped)
        with tf.Session() as sess:
            assert sess.run("out:0", {"x:0": 3.0}) == 3.0 and sess.run("out:0", {"x:0": -1.0}) == 1.0
