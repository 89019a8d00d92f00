"""TFLite models as plain Python objects, and their flatbuffer form (schema version 3).

:func:`read_model` parses the bytes of a ``.tflite`` file (tideflow's or TF's converter's);
:func:`write_model` serializes a :class:`Model` into those bytes.
"""

import numpy as np

from tideflow.lite import flatbuffer as fb
from tideflow.lite import schema


class TensorInfo:
    """One tensor of a subgraph: its name, shape, TensorType code, buffer index and
    quantization (scale, zero_point) lists."""

    def __init__(self, name, shape, type, buffer=0, scale=None, zero_point=None,
                 is_variable=False):
        self.name = name
        self.shape = [int(d) for d in shape]
        self.type = int(type)
        self.buffer = int(buffer)
        self.scale = list(scale or [])
        self.zero_point = list(zero_point or [])
        self.is_variable = bool(is_variable)

    def __repr__(self):
        return (f"TensorInfo({self.name!r}, {self.shape}, "
                f"{schema.TENSOR_TYPE_NAMES[self.type]}, buffer={self.buffer})")


class OperatorInfo:
    """One operator: its builtin name (or "CUSTOM" with ``custom_code``), version, input and
    output tensor indices and builtin options (a dict, by the option table's field names)."""

    def __init__(self, op, inputs, outputs, options=None, options_name=None, version=1,
                 custom_code=None, custom_options=None):
        self.op = op
        self.inputs = [int(i) for i in inputs]
        self.outputs = [int(i) for i in outputs]
        self.options = dict(options or {})
        self.options_name = options_name
        self.version = int(version)
        self.custom_code = custom_code
        self.custom_options = custom_options

    def __repr__(self):
        return f"OperatorInfo({self.op}, {self.inputs} -> {self.outputs}, {self.options})"


class Model:
    """A model of one subgraph: tensors, operators (in execution order), the input and output
    tensor indices and the buffers (``bytes``; buffer 0 is the empty sentinel)."""

    def __init__(self, tensors=None, operators=None, inputs=None, outputs=None, buffers=None,
                 description="", subgraph_name=None, version=schema.SCHEMA_VERSION):
        self.tensors = list(tensors or [])
        self.operators = list(operators or [])
        self.inputs = list(inputs or [])
        self.outputs = list(outputs or [])
        self.buffers = list(buffers) if buffers is not None else [b""]
        self.description = description
        self.subgraph_name = subgraph_name
        self.version = version


# ------------------------------------------------------------------------------------------
# reading
# ------------------------------------------------------------------------------------------


def _read_options(table, name):
    if name not in schema.OPTION_FIELDS:
        return {}
    out = {}
    for slot, (field, fmt, default) in enumerate(schema.OPTION_FIELDS[name]):
        if table is None:  # (an absent table reads as all defaults)
            out[field] = [] if fmt.startswith("[") else default
        elif fmt.startswith("["):
            vec = table.vector(slot, fmt[1:])
            out[field] = [] if vec is None else vec.tolist()
        else:
            out[field] = table.scalar(slot, fmt, default)
    return out


def read_model(data):
    """A :class:`Model` from the bytes of a TFLite flatbuffer (its first subgraph)."""
    try:
        root = fb.root(data, schema.FILE_IDENTIFIER)
    except (ValueError, IndexError) as e:
        raise ValueError(f"Could not open the model: {e}") from None
    version = root.scalar(0, "I", 0)
    if version != schema.SCHEMA_VERSION:
        raise ValueError(f"Model provided is schema version {version} not equal to supported "
                         f"version {schema.SCHEMA_VERSION}.")
    codes = []
    for oc in root.tables(1):
        code = oc.scalar(0, "b", 0)
        codes.append((schema.OPERATOR_NAMES.get(code, f"BUILTIN_{code}"), oc.string(1),
                      oc.scalar(2, "i", 1)))
    buffers = []
    for b in root.tables(4):
        buffers.append(b.raw_bytes(0) or b"")
    subgraphs = root.tables(2)
    if not subgraphs:
        raise ValueError("Could not open the model: it has no subgraph")
    sg = subgraphs[0]
    tensors = []
    for t in sg.tables(0):
        shape = t.vector(0, "i")
        q = t.table(4)
        scale = zero = None
        if q is not None:
            s = q.vector(2, "f")
            z = q.vector(3, "q")
            scale = None if s is None else s.tolist()
            zero = None if z is None else z.tolist()
        tensors.append(TensorInfo(t.string(3) or "", [] if shape is None else shape.tolist(),
                                  t.scalar(1, "b", 0), t.scalar(2, "I", 0), scale, zero,
                                  t.scalar(5, "?", False)))
    operators = []
    for o in sg.tables(3):
        op, custom, version = codes[o.scalar(0, "I", 0)]
        opt_type = o.scalar(3, "B", 0)
        opt_name = schema.BUILTIN_OPTIONS[opt_type - 1] if opt_type else None
        options = _read_options(o.table(4), opt_name)
        ins = o.vector(1, "i")
        outs = o.vector(2, "i")
        operators.append(OperatorInfo(op, [] if ins is None else ins, [] if outs is None
                                      else outs, options, opt_name, version, custom,
                                      o.raw_bytes(5)))
    ins = sg.vector(1, "i")
    outs = sg.vector(2, "i")
    return Model(tensors, operators, [] if ins is None else ins.tolist(),
                 [] if outs is None else outs.tolist(), buffers, root.string(3) or "",
                 sg.string(4), version)


# ------------------------------------------------------------------------------------------
# writing
# ------------------------------------------------------------------------------------------


def _options_table(name, options):
    fields = []
    for slot, (field, fmt, default) in enumerate(schema.OPTION_FIELDS.get(name, [])):
        value = options.get(field, default)
        if fmt.startswith("["):
            if value is not None:
                fields.append((slot, "o", fb.Vector(fmt[1:], np.asarray(value, np.int32))))
        elif value != default:
            fields.append((slot, fmt, value))
    return fb.Table(fields)


def write_model(model):
    """The flatbuffer bytes of ``model``."""
    codes, code_index = [], {}
    for op in model.operators:
        key = (op.op, op.custom_code, op.version)
        if key not in code_index:
            code_index[key] = len(codes)
            codes.append(key)
    code_tables = []
    for name, custom, version in codes:
        code_tables.append(fb.Table([
            (0, "b", schema.BUILTIN_OPERATORS[name] or None),
            (1, "o", custom),
            (2, "i", version if version != 1 else None),
        ]))
    tensors = []
    for t in model.tensors:
        quant = fb.Table([
            (2, "o", fb.Vector("f", t.scale) if t.scale else None),
            (3, "o", fb.Vector("q", t.zero_point) if t.zero_point else None),
        ])
        tensors.append(fb.Table([
            (0, "o", fb.Vector("i", np.asarray(t.shape, np.int32))),
            (1, "b", t.type or None),
            (2, "I", t.buffer or None),
            (3, "o", t.name),
            (4, "o", quant),
            (5, "?", True if t.is_variable else None),
        ]))
    operators = []
    for op in model.operators:
        opt = op.options_name
        operators.append(fb.Table([
            (0, "I", code_index[(op.op, op.custom_code, op.version)] or None),
            (1, "o", fb.Vector("i", np.asarray(op.inputs, np.int32))),
            (2, "o", fb.Vector("i", np.asarray(op.outputs, np.int32))),
            (3, "B", schema.OPTIONS_TYPE[opt] if opt else None),
            (4, "o", _options_table(opt, op.options) if opt else None),
            (5, "o", fb.Vector("B", op.custom_options) if op.custom_options else None),
        ]))
    subgraph = fb.Table([
        (0, "o", fb.Vector("o", tensors)),
        (1, "o", fb.Vector("i", np.asarray(model.inputs, np.int32))),
        (2, "o", fb.Vector("i", np.asarray(model.outputs, np.int32))),
        (3, "o", fb.Vector("o", operators)),
        (4, "o", model.subgraph_name),
    ])
    buffers = [fb.Table([(0, "o", fb.Vector("B", data, align=16) if data else None)])
               for data in model.buffers]
    root = fb.Table([
        (0, "I", model.version),
        (1, "o", fb.Vector("o", code_tables)),
        (2, "o", fb.Vector("o", [subgraph])),
        (3, "o", model.description),
        (4, "o", fb.Vector("o", buffers)),
    ])
    return fb.build(root, schema.FILE_IDENTIFIER)
