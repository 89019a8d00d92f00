"""TF 1.15's signatures of public functions, constructors and methods (session 27 sweep).

TF 1.x programs pass arguments by position and lean on defaults, so each pinned callable takes
TF 1.15's parameters in TF's order with TF's defaults. Every expected list below was measured
with ``inspect.signature`` in TF 1.15.0 (tensorflow-cpu, CPython 3.7); each fixed signature also
gets a call by position that binds the way TF's does.
"""

import inspect

import numpy as np
import pytest

import tideflow as tf

_E = inspect.Parameter.empty


def _params(fn):
    """(name, default) pairs, ``self`` dropped; ``*args``/``**kwargs`` as '*name'/'**name'."""
    out = []
    for p in inspect.signature(fn).parameters.values():
        if p.name == "self":
            continue
        prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        out.append((prefix + p.name, p.default))
    return out


# --- the variable enums as defaults (TF: VariableSynchronization.AUTO, VariableAggregation.NONE)

_SYNC = tf.VariableSynchronization.AUTO
_AGG = tf.VariableAggregation.NONE


def test_variable_signature_enum_defaults():
    # measured in TF 1.15: tf.Variable.__init__
    assert _params(tf.Variable.__init__) == [
        ("initial_value", None), ("trainable", None), ("collections", None),
        ("validate_shape", True), ("caching_device", None), ("name", None),
        ("variable_def", None), ("dtype", None), ("expected_shape", None),
        ("import_scope", None), ("constraint", None), ("use_resource", None),
        ("synchronization", _SYNC), ("aggregation", _AGG), ("shape", None)]
    # the same objects as the public enums, as TF's
    d = inspect.signature(tf.Variable.__init__).parameters
    assert d["synchronization"].default is tf.VariableSynchronization.AUTO
    assert d["aggregation"].default is tf.VariableAggregation.NONE


@pytest.mark.parametrize("fn", ["get_variable", "get_local_variable"])
def test_get_variable_enum_defaults(fn):
    # measured in TF 1.15: the last two parameters of tf.get_variable / tf.get_local_variable
    tail = _params(getattr(tf, fn))[-2:]
    assert tail == [("synchronization", _SYNC), ("aggregation", _AGG)]
    assert tail[0][1] is tf.VariableSynchronization.AUTO


def test_variable_scope_and_slim_variable_enum_defaults():
    # measured in TF 1.15: VariableScope.get_variable, contrib.framework.(model_)variable
    for fn in (tf.VariableScope.get_variable, tf.contrib.framework.variable,
               tf.contrib.framework.model_variable):
        assert _params(fn)[-2:] == [("synchronization", _SYNC), ("aggregation", _AGG)], fn


def test_layers_add_weight_order():
    # measured in TF 1.15: tf.layers.Layer.add_weight puts synchronization and aggregation
    # before partitioner
    assert _params(tf.layers.Layer.add_weight) == [
        ("name", _E), ("shape", _E), ("dtype", None), ("initializer", None),
        ("regularizer", None), ("trainable", None), ("constraint", None),
        ("use_resource", None), ("synchronization", _SYNC), ("aggregation", _AGG),
        ("partitioner", None), ("**kwargs", _E)]
    # measured in TF 1.15: tf.keras.layers.Layer.add_weight
    assert _params(tf.keras.layers.Layer.add_weight) == [
        ("name", None), ("shape", None), ("dtype", None), ("initializer", None),
        ("regularizer", None), ("trainable", None), ("constraint", None),
        ("partitioner", None), ("use_resource", None), ("synchronization", _SYNC),
        ("aggregation", _AGG), ("**kwargs", _E)]


def test_layers_add_weight_by_position():
    with tf.Graph().as_default():
        layer = tf.layers.Layer(name="lyr")
        # by position as TF 1.15 binds it: the 11th argument is the partitioner
        v = layer.add_weight("w", [4, 2], tf.float32, tf.zeros_initializer(), None, False, None,
                             None, tf.VariableSynchronization.ON_READ,
                             tf.VariableAggregation.MEAN, None)
        assert v.name == "lyr/w:0"
        assert v not in tf.trainable_variables()  # (TF: ON_READ is never trainable)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(v), np.zeros((4, 2), np.float32))


def test_layers_add_weight_on_read_trainable_error():
    with tf.Graph().as_default():
        layer = tf.layers.Layer(name="lyr")
        # message measured in TF 1.15
        with pytest.raises(ValueError, match="Synchronization value can be set to "
                                             "VariableSynchronization.ON_READ only for "
                                             "non-trainable variables"):
            layer.add_weight("w", [2], trainable=True,
                             synchronization=tf.VariableSynchronization.ON_READ)


def test_keras_add_weight_by_position():
    with tf.Graph().as_default():
        layer = tf.keras.layers.Layer(name="kl")
        v = layer.add_weight("w", (3,), "float32", "ones", None, False, None, None, None,
                             tf.VariableSynchronization.ON_READ, tf.VariableAggregation.MEAN)
        assert v.synchronization == tf.VariableSynchronization.ON_READ
        assert v.aggregation == tf.VariableAggregation.MEAN
        assert layer.non_trainable_weights == [v]
