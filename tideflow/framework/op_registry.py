"""The op registry: one declaration per op type (signature, attrs, shape, kernel, gradient).

Declarations use TF's REGISTER_OP notation for arguments and attributes, e.g.
``inputs=["values: N * T", "axis: Tidx"]``, ``attrs=["N: int >= 2", "T: type",
"Tidx: {int32, int64} = DT_INT32"]``, so the NodeDefs we write carry exactly TF's attrs.
"""

import ast
import functools
import inspect
import sys

import numpy as np

from tideflow.framework import dtypes

_REGISTRY = {}
# op type -> {"type": fn (None: not differentiable), "location": where registered}; entries are
# TF's shape, since programs that override gradients by editing ``ops._gradient_registry``
# rewrite an entry's "type" in place
_GRADIENTS = {}

# type groups usable as an attr's type constraint
_GROUPS = {
    "numbertype": "float32 float64 int32 uint8 int16 int8 complex64 int64 qint8 quint8 qint32 "
    "bfloat16 uint16 complex128 float16 uint32 uint64",
    "realnumbertype": "float32 float64 int32 uint8 int16 int8 int64 bfloat16 uint16 float16 "
    "uint32 uint64",
    "floatingtype": "float16 bfloat16 float32 float64",
    "quantizedtype": "qint8 quint8 qint32 qint16 quint16",
}


class ArgSpec:
    """One input or output argument of an op."""

    __slots__ = ("fixed_type", "is_ref", "name", "number_attr", "type_attr", "type_list_attr")

    def __init__(self, text):
        name, _, typ = (s.strip() for s in text.partition(":"))
        self.name = name
        self.type_attr = self.number_attr = self.type_list_attr = self.fixed_type = None
        self.is_ref = False
        if typ.startswith("Ref(") and typ.endswith(")"):
            self.is_ref = True
            typ = typ[4:-1].strip()
        if "*" in typ:
            n, _, typ = (s.strip() for s in typ.partition("*"))
            self.number_attr = n
        try:
            self.fixed_type = dtypes.as_dtype(typ)
        except TypeError:
            self.type_attr = typ  # resolved to type_list_attr once attrs are known

    @property
    def is_list(self):
        return self.number_attr is not None or self.type_list_attr is not None


class AttrSpec:
    """One attribute of an op: its type, default and allowed values."""

    __slots__ = ("allowed", "default", "has_default", "minimum", "name", "type")

    def __init__(self, text):
        name, _, rest = (s.strip() for s in text.partition(":"))
        self.name = name
        self.has_default = False
        self.default = None
        self.allowed = None  # a dict of the allowed values, in the order declared (as TF lists them)
        self.minimum = None
        m = _DEFAULT_SPLIT.search(rest)
        if m is None:
            typ, eq, default = rest, "", ""
        else:
            typ, eq, default = rest[:m.start()], "=", rest[m.end():]
        typ = typ.strip()
        if ">=" in typ:
            typ, _, m = typ.partition(">=")
            typ = typ.strip()
            self.minimum = int(m)
        if typ.startswith("{"):
            items = [s.strip() for s in typ.strip("{}").split(",") if s.strip()]
            if items and items[0][0] in "'\"":
                self.type = "string"
                self.allowed = dict.fromkeys(ast.literal_eval(s) for s in items)
            else:
                self.type = "type"  # (a group among the names stands for its types)
                self.allowed = dict.fromkeys(dtypes.as_dtype(t) for s in items
                                             for t in _GROUPS.get(s, s).split())
        elif typ in _GROUPS:
            self.type = "type"
            self.allowed = dict.fromkeys(dtypes.as_dtype(s) for s in _GROUPS[typ].split())
        elif typ.startswith("list(") and typ[5:-1] in _GROUPS:
            self.type = "list(type)"
            self.allowed = dict.fromkeys(dtypes.as_dtype(s) for s in _GROUPS[typ[5:-1]].split())
        elif typ.startswith("list({"):
            self.type = "list(type)"
            self.allowed = dict.fromkeys(dtypes.as_dtype(s.strip()) for s in typ[6:-2].split(","))
        else:
            self.type = typ
        if eq:
            self.has_default = True
            self.default = _parse_default(default.strip(), self.type)


def _parse_default(text, typ):
    if text.startswith("DT_"):
        return dtypes.as_dtype(_DT_NAMES[text])
    if text in ("true", "false"):
        return text == "true"
    if typ == "shape":
        return None if text == "unknown" else ast.literal_eval(text)
    value = ast.literal_eval(text)
    if typ == "float":  # float attrs are float32, as in TF's AttrValue
        return float(np.float32(value))
    if typ == "list(float)":
        return [float(np.float32(v)) for v in value]
    if typ == "list(type)":
        return [dtypes.as_dtype(v) for v in value]
    return value


_DEFAULT_SPLIT = __import__("re").compile(r"(?<![<>!=])=(?!=)")

_DT_NAMES = {
    "DT_FLOAT": "float32",
    "DT_DOUBLE": "float64",
    "DT_HALF": "float16",
    "DT_BFLOAT16": "bfloat16",
    "DT_INT32": "int32",
    "DT_INT64": "int64",
    "DT_INT16": "int16",
    "DT_INT8": "int8",
    "DT_UINT8": "uint8",
    "DT_UINT16": "uint16",
    "DT_BOOL": "bool",
    "DT_STRING": "string",
    "DT_COMPLEX64": "complex64",
    "DT_COMPLEX128": "complex128",
    "DT_RESOURCE": "resource",
    "DT_QINT8": "qint8",
    "DT_QUINT8": "quint8",
    "DT_QINT16": "qint16",
    "DT_QUINT16": "quint16",
    "DT_QINT32": "qint32",
}

_SPECIAL_KERNEL_PARAMS = ("ctx", "step", "out")


class OpDef:
    """Everything about one op type. Built by :func:`declare`; read by graph and runtime.
    TF's ``OpDef`` proto fields (``op.op_def.input_arg``, ``.output_arg``, ``.attr``) are
    answered from the proto form, made on first use."""

    # f(attrs) run once per plan when the op's kernel is bound, before any step runs: TF's
    # kernel-construction checks of attrs (bad strides fail even when an input is never fed)
    check_attrs = None
    # attrs TF 1.15's op lacks (added by later TF): left out of the NodeDef while they hold
    # their default, so a GraphDef imports into TF 1.x (and 1.x-era GraphDef tools read it)
    newer_attrs = frozenset()

    def __getattr__(self, name):
        if name.startswith("__") or name == "_proto":
            raise AttributeError(name)
        return getattr(self._as_proto(), name)

    def _as_proto(self):
        proto = self.__dict__.get("_proto")
        if proto is None:
            from tideflow.framework.meta_graph import op_def_proto

            proto = self.__dict__["_proto"] = op_def_proto(self)
        return proto

    def __str__(self):  # as printing TF's OpDef proto
        return str(self._as_proto())

    def __init__(self, name, inputs, outputs, attrs, shape, kernel, kernel_factory, stateful,
                 is_random, where, ref_outputs_alias, doc, inplace=None, device_types=None):
        self.name = name
        self.inputs = [ArgSpec(s) for s in inputs]
        self.outputs = [ArgSpec(s) for s in outputs]
        self.attrs = {}
        for s in attrs:
            a = AttrSpec(s)
            self.attrs[a.name] = a
        for arg in self.inputs + self.outputs:
            if arg.type_attr is not None:
                spec = self.attrs.get(arg.type_attr)
                if spec is None:
                    raise ValueError(f"op {name}: arg {arg.name} names unknown attr {arg.type_attr}")
                if spec.type == "list(type)":
                    arg.type_list_attr, arg.type_attr = arg.type_attr, None
        self.shape_fn = shape
        self.kernel = kernel
        self.kernel_factory = kernel_factory
        self.is_stateful = stateful
        self.is_random = is_random
        self.where = where
        # outputs (indices) that may alias a variable's buffer (ref forwarding)
        self.ref_outputs_alias = ref_outputs_alias
        self.doc = doc
        # index of the input whose buffer the output may take over when that input dies here
        # (TF's buffer forwarding); the kernel must accept ``out=``
        self.inplace = inplace
        # device types the declared kernel runs on: a string kernel names a function of the
        # device's array module, so it runs everywhere; a Python kernel is CPU-only unless
        # declared otherwise (other device types register their own, see register_kernel)
        if device_types is None:
            device_types = None if (kernel is None and kernel_factory is None) or isinstance(
                kernel, str) else ("CPU",)
        self.device_types = None if device_types is None else tuple(device_types)
        self.kernel_attrs = ()
        self.kernel_wants_ctx = False
        self.kernel_wants_step = False
        if kernel is not None and not isinstance(kernel, str):
            params = inspect.signature(kernel).parameters.values()
            kw = [p.name for p in params if p.kind is p.KEYWORD_ONLY]
            self.kernel_attrs = tuple(k for k in kw if k not in _SPECIAL_KERNEL_PARAMS)
            self.kernel_wants_ctx = "ctx" in kw
            self.kernel_wants_step = "step" in kw
            for k in self.kernel_attrs:
                if k not in self.attrs:
                    raise ValueError(f"op {name}: kernel keyword '{k}' is not an attr of the op")

    @functools.cached_property
    def has_ref_input(self):
        """Whether an input is a ref (fixed at declaration: read once per op built)."""
        return any(a.is_ref for a in self.inputs)

    def __repr__(self):
        return f"<OpDef {self.name}>"


def _caller():
    f = sys._getframe(2)
    return f"{f.f_code.co_filename}:{f.f_lineno}"


def declare(name, inputs=(), outputs=(), attrs=(), shape=None, kernel=None, kernel_factory=None,
            grad=None, differentiable=None, stateful=False, is_random=False,
            ref_outputs_alias=(), doc=None, inplace=None, device_types=None,
            check_attrs=None, newer_attrs=()):
    """Declares op type ``name``.

    kernel: a NumPy function taking the inputs positionally (list arguments as Python lists)
      and, as keyword-only parameters, any attrs it needs plus optionally ``ctx`` (the node's
      KernelContext, bound once per plan) and ``step`` (the running step). It returns the
      output, or a sequence of all outputs when the op has several or a list output. A string
      names a function of the device's array module (``"add"`` is ``numpy.add`` on CPU).
    kernel_factory: instead of kernel, ``f(ctx) -> callable`` called once per plan.
    inplace: the index of an input (same shape and dtype as the output) whose buffer the
      kernel may write its result into, via ``out=``, when that value is not used afterwards.
    device_types: the device types the kernel runs on (default: every type for a string
      kernel, ``("CPU",)`` for a Python one); see :func:`register_kernel` for the others.
    grad: the gradient function ``f(op, *grads)``; ``differentiable=False`` declares the op
      not differentiable. Leaving both unset means "no gradient defined" (an error when asked).
    check_attrs: ``f(attrs)`` raising an OpError for attrs TF's kernel refuses when it is
      constructed; run once per plan, when the kernel is bound, before any step.
    newer_attrs: attrs TF 1.15's op does not have; a NodeDef omits them at their default.
    """
    where = _caller()
    old = _REGISTRY.get(name)
    if old is not None:
        raise ValueError(f"Op {name!r} declared twice: at {old.where} and at {where}")
    d = OpDef(name, inputs, outputs, attrs, shape, kernel, kernel_factory, stateful, is_random,
              where, tuple(ref_outputs_alias), doc, inplace, device_types)
    if check_attrs is not None:
        d.check_attrs = check_attrs
    if newer_attrs:
        d.newer_attrs = frozenset(newer_attrs)
    _REGISTRY[name] = d
    if grad is not None:
        register_gradient(name, grad, where)
    elif differentiable is False:
        register_gradient(name, None, where)
    return d


class DeviceKernel:
    """A kernel registered for one device type apart from the op's declaration."""

    __slots__ = ("kernel", "kernel_attrs", "kernel_factory", "kernel_wants_ctx",
                 "kernel_wants_step", "where")

    def __init__(self, op_def, kernel, kernel_factory, where):
        self.kernel = kernel
        self.kernel_factory = kernel_factory
        self.where = where
        self.kernel_attrs = ()
        self.kernel_wants_ctx = self.kernel_wants_step = False
        if kernel is not None and not isinstance(kernel, str):
            params = inspect.signature(kernel).parameters.values()
            kw = [p.name for p in params if p.kind is p.KEYWORD_ONLY]
            self.kernel_attrs = tuple(k for k in kw if k not in _SPECIAL_KERNEL_PARAMS)
            self.kernel_wants_ctx = "ctx" in kw
            self.kernel_wants_step = "step" in kw
            for k in self.kernel_attrs:
                if k not in op_def.attrs:
                    raise ValueError(
                        f"op {op_def.name}: kernel keyword '{k}' is not an attr of the op")


_DEVICE_KERNELS = {}  # (op type, device type) -> DeviceKernel


def register_kernel(op_type, device_type, kernel=None, kernel_factory=None):
    """Registers the kernel of ``op_type`` for ``device_type`` ("CPU", "GPU"), when the
    declaration's kernel does not serve that device type (or must differ there)."""
    where = _caller()
    d = get(op_type)
    key = (op_type, device_type.upper())
    old = _DEVICE_KERNELS.get(key)
    if old is not None:
        raise ValueError(f"Kernel for {op_type} on {key[1]} registered twice: at {old.where} "
                         f"and at {where}")
    if (kernel is None) == (kernel_factory is None):
        raise ValueError("register_kernel needs exactly one of kernel and kernel_factory")
    _DEVICE_KERNELS[key] = DeviceKernel(d, kernel, kernel_factory, where)


def device_kernel(op_type, device_type):
    """The kernel registered for ``op_type`` on ``device_type``, or None."""
    return _DEVICE_KERNELS.get((op_type, device_type)) if _DEVICE_KERNELS else None


def supports_device_type(op_def, device_type):
    """True when ``op_def`` has a kernel for ``device_type``."""
    types = op_def.device_types
    if types is None or device_type in types:
        return True
    return (op_def.name, device_type) in _DEVICE_KERNELS


def get(name):
    d = _REGISTRY.get(name)
    if d is None:
        raise KeyError(name)
    return d


def lookup(name):
    return _REGISTRY.get(name)


# modules outside tideflow.ops that declare ops
_OP_MODULES_ELSEWHERE = ("tideflow.summary.summary_ops", "tideflow.distributed.remote_rendezvous",
                         "tideflow.feature_column.sparse_cross")


def load_all_op_modules():
    """Imports every module that declares ops, so that a graph read from a file (a SavedModel,
    a meta graph) may use ops its program never imported (``import tideflow`` loads the
    common ones only)."""
    import importlib
    import pkgutil

    from tideflow import ops as ops_package

    for info in pkgutil.iter_modules(ops_package.__path__):
        importlib.import_module(f"{ops_package.__name__}.{info.name}")
    for name in _OP_MODULES_ELSEWHERE:
        importlib.import_module(name)


def lookup_or_load(name):
    """``lookup``, loading every op module first when ``name`` is not registered yet."""
    op_def = _REGISTRY.get(name)
    if op_def is None:
        load_all_op_modules()
        op_def = _REGISTRY.get(name)
    return op_def


def registered_ops():
    return dict(_REGISTRY)


def register_gradient(op_type, fn, where=None):
    """Registers ``fn`` (or None: not differentiable) as the gradient of ``op_type``."""
    where = where or _caller()
    old = _GRADIENTS.get(op_type)
    if old is not None:
        raise KeyError(  # TF's words, with both sites
            f"Registering two gradient with name '{op_type}'! (Previous registration was in "
            f"{old['location']}; this one in {where})"
        )
    _GRADIENTS[op_type] = {"type": fn, "location": where}


def gradient_function(op_type):
    """The gradient of ``op_type``: a function, None if not differentiable.

    Raises LookupError "No gradient defined for operation ..." when none was declared.
    """
    entry = _GRADIENTS.get(op_type)
    if entry is None:
        raise LookupError(f"No gradient defined for operation type {op_type!r}")
    return entry["type"]


def has_gradient_entry(op_type):
    return op_type in _GRADIENTS


class GradientRegistry:
    """TF's ``ops._gradient_registry``: ``register``, ``lookup``, ``list`` and the ``_registry``
    dict itself, which is the table tf.gradients consults."""

    _name = "gradient"
    _registry = _GRADIENTS

    def register(self, candidate, name=None):
        register_gradient(name or candidate.__name__, candidate, _caller())

    def list(self):
        return _GRADIENTS.keys()

    def lookup(self, name):
        if isinstance(name, bytes):
            name = name.decode()
        entry = _GRADIENTS.get(name)
        if entry is None:
            raise LookupError(f"gradient registry has no entry for: {name}")
        return entry["type"]


gradient_registry = GradientRegistry()
