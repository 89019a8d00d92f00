"""``tensorflow.python.framework.function.Defun``: TF 1.x's graph-function decorator.

``@Defun(tf.float32, tf.float32) def f(x, y)`` declares a function of typed inputs; TF adds a
FunctionDef to the graph's library and each call one op running it. tideflow builds the
function's ops inline at each call instead (under a name scope named after the function, as
``tf.function`` does here), which computes the same values, and names the results as TF's call
op (an ``IdentityN`` named ``Foo``, ``Foo_1`` or ``name``); a ``python_grad_func(op, *grads)``
or a ``grad_func`` (a function of the inputs followed by the output gradients) replaces the
gradient through those ops, ``op`` standing for the call with its ``inputs`` and ``outputs``.
"""

import inspect
import types

from tideflow.framework import dtypes, errors, ops


class Defun:
    """Decorator making a Python function a graph function of ``input_types``."""

    def __init__(self, *input_types, **kwargs):
        self._input_types = input_types
        self._func_name = kwargs.pop("func_name", None)
        self._grad_func = kwargs.pop("grad_func", None)
        self._python_grad_func = kwargs.pop("python_grad_func", None)
        self._out_names = kwargs.pop("out_names", None)
        self._extra_kwargs = kwargs

    def __call__(self, func):
        if not callable(func):
            raise ValueError(f"function {func} must be callable")  # noqa: TRY004 - as TF
        fn = _DefinedFunction(func, self._input_types, self._func_name, self._grad_func,
                              self._python_grad_func, self._out_names)
        fn._attrs = {k: v for k, v in self._extra_kwargs.items()
                     if k.startswith(("experimental_", "_"))}
        fn._shape_func = self._extra_kwargs.get("shape_func")
        if self._extra_kwargs.get("noinline") is not None:
            fn._attrs["_noinline"] = bool(self._extra_kwargs["noinline"])
        return fn


class _DefinedFunction:
    """A function declared with ``Defun``; calling it builds its ops."""

    def __init__(self, func, input_types, func_name, grad_func, python_grad_func, out_names):
        if grad_func is not None and python_grad_func is not None:
            raise ValueError("Gradient defined twice")
        self._func = func
        self._input_types = tuple(dtypes.as_dtype(t) for t in input_types)
        self._func_name = func_name or func.__name__
        self._arg_names, self._varargs = _parameters(func, len(self._input_types))
        self._grad_func = grad_func
        self._python_grad_func = python_grad_func
        self._out_names = out_names
        self.__doc__ = func.__doc__
        self._attrs = {}
        self._shape_func = None

    @property
    def name(self):
        return self._func_name

    def add_to_graph(self, g):
        """TF adds the FunctionDef to ``g``'s library; tideflow builds the ops at each call, so
        there is nothing to add."""
        del g

    @property
    def definition(self):
        """The function's signature as a FunctionDef (tideflow keeps no body: calls build it
        inline). Builds the body once in a scratch graph, so TF's definition errors (an output
        of None) surface here as in TF."""
        from tideflow.core.framework import function_pb2
        from tideflow.ops.constant_op import placeholder

        if not self._input_types and self._arg_names:
            raise AttributeError("A Defun without input types has a definition per call "
                                 "signature only ('instantiate' is not supported).")
        with ops.Graph().as_default():
            outs = self(*[placeholder(t.base_dtype) for t in self._input_types])
        fd = function_pb2.FunctionDef()
        fd.signature.name = self._func_name
        for arg, t in zip(self._arg_names, self._input_types):
            fd.signature.input_arg.add(name=arg, type=t.base_dtype.as_datatype_enum)
        outs = [] if isinstance(outs, ops.Operation) else (
            list(outs) if isinstance(outs, tuple) else [outs])
        names = self._out_names or [f"{self._func_name}_{k}" for k in range(len(outs))]
        for out_name, t in zip(names, outs):
            fd.signature.output_arg.add(name=out_name, type=t.dtype.as_datatype_enum)
        for key, value in self._attrs.items():
            if isinstance(value, bool):
                fd.attr[key].b = value
            elif isinstance(value, int):
                fd.attr[key].i = value
            elif isinstance(value, float):
                fd.attr[key].f = value
            elif isinstance(value, (str, bytes)):
                fd.attr[key].s = value.encode() if isinstance(value, str) else value
            else:
                msg = f"Unsupported attribute type for {key} with type {type(value)}"
                raise ValueError(msg)  # noqa: TRY004 - as TF
        return fd

    @property
    def captured_inputs(self):
        """The outer tensors a call captures: none, as calls use them directly."""
        return []

    @property
    def declared_input_types(self):
        return self._input_types

    @property
    def python_grad_func(self):
        return self._python_grad_func

    @property
    def grad_func_name(self):
        return self._grad_func.name if self._grad_func is not None else None

    def __call__(self, *args, **kwargs):
        name = kwargs.pop("name", None)
        if kwargs:
            raise ValueError(f"Unknown keyword arguments: {list(kwargs)}")
        expected = len(self._input_types or self._arg_names)
        if (self._input_types or not self._varargs) and len(args) != expected:
            raise ValueError(f"Expected number of arguments: {expected}, "
                             f"received: {len(args)}")  # TF's words
        types_ = self._input_types or (None,) * len(args)
        graph = ops.get_default_graph()
        n_ops = len(graph._ops) if hasattr(graph, "_ops") else None
        with ops.name_scope(name, self._func_name) as scope:
            # a ref type (a ref variable's dtype) declares its base type, as TF's signatures
            inputs = [ops.convert_to_tensor(a, dtype=t and t.base_dtype)
                      for a, t in zip(args, types_)]
            if self._python_grad_func is None and self._grad_func is None:
                result = self._func(*inputs)
            else:
                result = self._with_gradient(inputs)
            return self._call_result(result, scope, graph, n_ops, inputs)

    def _call_result(self, result, scope, graph, n_ops, inputs):
        """What TF's call returns, named as TF's call op (the scope's name: ``Foo``,
        ``Foo_1``, or ``name``): for no outputs an op running the body's ops, for one output
        the Tensor ``<call>:0``, else a tuple of ``<call>:k``."""
        from tideflow.ops.array_ops import identity_n
        from tideflow.ops.control_flow_ops import group

        if result is None:
            body = graph._ops[n_ops:] if n_ops is not None else []
            return group(*body, name=scope)
        outs = list(result) if isinstance(result, (list, tuple)) else [result]
        if any(o is None for o in outs):
            raise ValueError(f"Function {self._func_name} can not return None.")
        if self._out_names and len(self._out_names) != len(outs):
            raise errors.InvalidArgumentError(
                None, None, "output names must be either empty or equal in size to outputs. "
                f"output names size = {len(self._out_names)} outputs size = {len(outs)}")
        if any(isinstance(o, ops.Operation) for o in outs):
            return outs[0] if len(outs) == 1 else tuple(outs)
        # (IdentityN wants at least one input: a function returning no tensors returns [])
        outs = identity_n([ops.convert_to_tensor(o) for o in outs], name=scope) if outs else []
        if self._shape_func is not None:  # TF's shape_func(op) gives the call's output shapes
            call = types.SimpleNamespace(inputs=list(inputs), outputs=list(outs),
                                         name=scope.rstrip("/"))
            for t, shape in zip(outs, self._shape_func(call)):
                t.set_shape(shape)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _with_gradient(self, inputs):
        from tideflow.ops.misc_ops import custom_gradient

        func, python_grad, grad_func = self._func, self._python_grad_func, self._grad_func

        @custom_gradient
        def call(*xs):
            result = func(*xs)
            outs = list(result) if isinstance(result, (list, tuple)) else [result]
            op = types.SimpleNamespace(inputs=list(xs), outputs=outs, name=self._func_name)

            def grad(*dys):
                if python_grad is not None:
                    dx = python_grad(op, *dys)
                else:
                    dx = grad_func(*xs, *dys)
                return dx

            return result, grad

        return call(*inputs)


def _parameters(func, num_types):
    """``func``'s positional parameter names (less a bound method's self) and whether it takes
    ``*args``, with TF's decoration-time checks against ``num_types`` declared input types."""
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return [], True
    if any(p.default is not p.empty or p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD)
           for p in params):
        raise ValueError("Functions with argument defaults or keyword arguments are not "
                         "supported.")
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
    if num_types and (num_types < len(names) or (not varargs and num_types > len(names))):
        raise ValueError("The function has fewer arguments than the number of specified input "
                         "types.")
    return names, varargs
