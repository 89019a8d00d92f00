"""``tf.raw_ops``: every registered op as a function of keyword arguments (its input and
attr names, plus ``name``), as TF's generated ``tf.raw_ops.<OpType>``.

A function returns the op's only output as a Tensor, several outputs as a namedtuple of
TF's output names, a list output as a list, and the Operation when there are no outputs.
"""

import collections as _collections
import functools as _functools
import importlib as _importlib

# the namespaces whose import declares further ops (loaded on the first unknown name)
_OP_MODULES = ("tideflow.nn", "tideflow.image", "tideflow.data", "tideflow.train",
               "tideflow.summary", "tideflow.io", "tideflow.linalg", "tideflow.strings",
               "tideflow.random", "tideflow.ops.session_ops", "tideflow.ops.tf1_misc_ops",
               "tideflow.sparse", "tideflow.sets", "tideflow.bitwise", "tideflow.audio",
               "tideflow.quantization", "tideflow.lookup", "tideflow.metrics")
_loaded = [False]

# TF's Python names for op arguments its api_defs rename (``tf.raw_ops.Sum(input, axis)``
# for the op's ``reduction_indices`` input): TF name -> op-def name
_REDUCE = {"axis": "reduction_indices"}
_RENAMES = {
    "All": _REDUCE, "Any": _REDUCE, "Max": _REDUCE, "Mean": _REDUCE, "Min": _REDUCE,
    "Prod": _REDUCE, "Sum": _REDUCE, "ExpandDims": {"axis": "dim"},
    "Select": {"x": "t", "y": "e"}, "Split": {"axis": "split_dim"},
    "SplitV": {"axis": "split_dim"}, "Squeeze": {"axis": "squeeze_dims"},
    "Where": {"condition": "input"},
}


def _make(op_def):
    from tideflow.framework import ops

    renames = _RENAMES.get(op_def.name, {})
    back = {v: k for k, v in renames.items()}
    in_names = [back.get(a.name, a.name) for a in op_def.inputs]
    out_tuple = None
    if len(op_def.outputs) > 1:
        out_tuple = _collections.namedtuple(op_def.name, [a.name for a in op_def.outputs])

    def raw_op(**kwargs):
        name = kwargs.pop("name", None)
        for k in [k for k in kwargs if k in back]:
            kwargs[back[k]] = kwargs.pop(k)  # the op-def name is taken too (``split_dim``)
        missing = [n for n in in_names if n not in kwargs]
        if missing:
            raise TypeError(f"tf.raw_ops.{op_def.name}: missing argument(s) {missing}")
        inputs = [kwargs.pop(n) for n in in_names]
        for k in [k for k in kwargs if k in renames]:
            kwargs[renames[k]] = kwargs.pop(k)  # a renamed attr (Squeeze's axis)
        unknown = [k for k in kwargs if k not in op_def.attrs]
        if unknown:
            raise TypeError(f"tf.raw_ops.{op_def.name} got unexpected keyword argument(s) "
                            f"{unknown}")
        op = ops.apply_op(op_def.name, inputs, kwargs, name=name)
        if not op_def.outputs:
            return op
        outs = list(op._outputs)
        if out_tuple is None:
            return outs if op_def.outputs[0].is_list else outs[0]
        grouped, i = [], 0
        for arg in op_def.outputs:
            if arg.is_list:
                k = (op._attrs[arg.number_attr] if arg.number_attr
                     else len(op._attrs[arg.type_list_attr]))
                grouped.append(outs[i:i + k])
                i += k
            else:
                grouped.append(outs[i])
                i += 1
        return out_tuple(*grouped)

    raw_op.__name__ = op_def.name
    raw_op.__doc__ = (f"The {op_def.name} op: inputs {in_names}, attrs "
                      f"{sorted(back.get(a, a) for a in op_def.attrs)}; keyword arguments only.")
    return _functools.wraps(raw_op)(lambda *args, **kwargs: _keywords_only(
        op_def.name, raw_op, args, kwargs))


def _keywords_only(op_type, fn, args, kwargs):
    if args:
        raise TypeError(f"tf.raw_ops.{op_type} only takes keyword args (possible keys: "
                        f"{fn.__doc__})")
    return fn(**kwargs)


def __getattr__(name):
    from tideflow.framework import op_registry

    op_def = op_registry.lookup(name)
    if op_def is None and not _loaded[0]:
        _loaded[0] = True
        for m in _OP_MODULES:
            try:
                _importlib.import_module(m)
            except ImportError:
                pass
        op_def = op_registry.lookup(name)
    if op_def is None and not name.startswith("_"):
        op_def = op_registry.lookup_or_load(name)  # an op of a module no namespace imports
    if op_def is None or name.startswith("_"):
        raise AttributeError(f"module 'tideflow.raw_ops' has no attribute {name!r}")
    fn = _make(op_def)
    globals()[name] = fn
    return fn


def __dir__():
    # every op's name, as TF's dir(tf.raw_ops) lists them (loads all op modules)
    from tideflow.framework import op_registry

    op_registry.load_all_op_modules()
    ops = (n for n in op_registry.registered_ops() if not n.startswith("_"))
    return sorted(set(globals()) | set(ops))
