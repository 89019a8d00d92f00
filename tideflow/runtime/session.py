"""``tf.Session``: fetch and feed handling, the plan cache, and partial runs."""

import collections
import collections.abc
import contextlib
import re
import threading
import time
import typing
import warnings
import weakref

import numpy as np

from tideflow.framework import dtypes, errors, ops
from tideflow.framework.ops import Operation, Tensor
from tideflow.kernels import threads
from tideflow.runtime import allocator, cost_model, parallel, partition, placer
from tideflow.runtime.device_attributes import DeviceAttributes as _DeviceAttributes  # noqa: F401
from tideflow.runtime.device_mgr import DeviceMgr, device_mapping_text
from tideflow.runtime.executor import Plan, Step, prune, topo_order

# ------------------------------------------------------------------------------------------
# fetches
# ------------------------------------------------------------------------------------------


def _plain_quantized(v):
    v = np.asarray(v)
    return v.view(v.dtype[0]) if v.dtype.names else v


# type -> (fetch_fn, feed_fn, feed_fn_for_partial_run), TF's
# register_session_run_conversion_functions
_CONVERSIONS = {}


def register_session_run_conversion_functions(tensor_type, fetch_function, feed_function=None,
                                              feed_function_for_partial_run=None):
    """Lets objects of ``tensor_type`` be fetched and fed: ``fetch_function(obj)`` returns
    ``(fetches, contract)`` with ``contract(values)`` rebuilding the result;
    ``feed_function(obj, value)`` returns ``(tensor, value)`` pairs and
    ``feed_function_for_partial_run(obj)`` the tensors to feed."""
    for known in _CONVERSIONS:
        if issubclass(tensor_type, known):
            raise ValueError(f"{tensor_type} has already been registered so ignore it.")  # noqa: TRY004 - TF's class
    _CONVERSIONS[tensor_type] = (fetch_function, feed_function, feed_function_for_partial_run)


def _conversion(obj, index):
    for cls, fns in _CONVERSIONS.items():
        if isinstance(obj, cls):
            return fns[index]
    return None


class InaccessibleTensorError(ValueError):
    """TF's error for fetching an op marked not fetchable (not part of ``tf.errors``)."""


def _not_fetchable(op):
    raise InaccessibleTensorError(
        f"Operation {op.name!r} has been marked as not fetchable. Typically this happens when "
        "it is defined in another function or code block. Use return values,explicit Python "
        "locals or TensorFlow collections to access it.")


class _FetchHandler:
    """Flattens a fetch structure into unique graph elements, and rebuilds the results."""

    def __init__(self, graph, fetches):
        self.graph = graph
        self.tensors = []  # unique tensors to compute
        self.targets = []  # ops to run
        self._index = {}
        self.builder = self._build(fetches)

    def _element(self, f):
        if isinstance(f, (Tensor, Operation)) and _in_body_of(f, self.graph):
            _not_fetchable(f if isinstance(f, Operation) else f.op)
        try:
            el = self.graph.as_graph_element(f, allow_tensor=True, allow_operation=True)
        except TypeError as e:
            raise TypeError(
                f"Fetch argument {f!r} has invalid type {type(f)}, must be a string or Tensor. "
                f"({e})"
            ) from None
        except ValueError as e:
            raise ValueError(f"Fetch argument {f!r} cannot be interpreted as a Tensor. ({e})") from None
        except KeyError as e:  # str() of a KeyError quotes its message, as TF shows it
            raise ValueError(f"Fetch argument {f!r} cannot be interpreted as a Tensor. ({e})"
                             ) from None
        if not self.graph.is_fetchable(el):
            _not_fetchable(el if isinstance(el, Operation) else el.op)
        return el

    def _leaf(self, f):
        el = self._element(f)
        if isinstance(el, Operation):
            if el not in self.targets:
                self.targets.append(el)
            return lambda values: None
        i = self._index.get(el)
        if i is None:
            i = len(self.tensors)
            self._index[el] = i
            self.tensors.append(el)
        if el._dtype.is_quantized:  # held as TF's structured dtypes; fetched as plain ints, as TF
            return lambda values: _plain_quantized(values[i])
        return lambda values: values[i]

    def _build(self, f):
        if f is None:
            raise TypeError(f"Fetch argument {f!r} has invalid type {type(f)}")
        if isinstance(f, (Tensor, Operation, str, bytes)):
            return self._leaf(f)
        if _CONVERSIONS:
            convert = _conversion(f, 0)
            if convert is not None:
                parts, contract = convert(f)
                subs = [self._build(p) for p in parts]
                return lambda values: contract([s(values) for s in subs])
        fetch_fn = getattr(type(f), "_tf_fetch_components", None)
        if fetch_fn is not None:  # e.g. SparseTensor, IndexedSlices: several tensors, one value
            parts, rebuild = f._tf_fetch_components()
            subs = [self._build(p) for p in parts]
            return lambda values: rebuild([s(values) for s in subs])
        if isinstance(f, dict):
            keys = list(f)
            subs = [self._build(f[k]) for k in keys]
            cls = type(f)

            def build_dict(values):
                d = cls()  # (as TF's: a defaultdict comes back without its default factory)
                for k, s in zip(keys, subs):
                    d[k] = s(values)
                return d

            return build_dict
        if isinstance(f, tuple) and hasattr(f, "_fields"):
            subs = [self._build(x) for x in f]
            cls = type(f)
            return lambda values: cls(*[s(values) for s in subs])
        if isinstance(f, list):  # TF 1.15 gives a list subclass back as a plain list
            subs = [self._build(x) for x in f]
            return lambda values: [s(values) for s in subs]
        if isinstance(f, tuple):  # a tuple subclass is rebuilt positionally, as TF does
            subs = [self._build(x) for x in f]
            if type(f) is tuple:
                return lambda values: tuple(s(values) for s in subs)
            cls = type(f)
            return lambda values: cls(*[s(values) for s in subs])
        if hasattr(f, "_as_graph_element"):
            return self._leaf(f)
        fields = getattr(type(f), "__attrs_attrs__", None)
        if fields is not None:  # an attrs class: its fields in order, rebuilt positionally
            subs = [self._build(getattr(f, a.name)) for a in fields]
            cls = type(f)
            return lambda values: cls(*[s(values) for s in subs])
        raise TypeError(
            f"Fetch argument {f!r} has invalid type {type(f)}, must be a string or Tensor. "
            f"(Can not convert a {type(f).__name__} into a Tensor or Operation.)"
        )


def _in_body_of(el, graph):
    """Whether ``el`` lives in a loop or branch body (a function graph) built in ``graph``:
    TF marks those not fetchable and not feedable."""
    g = el.graph
    return g is not graph and getattr(g, "_root", None) is graph


_SOURCE_ERRORS = ("Attempting to use uninitialized value ",
                  "You must feed a value for placeholder tensor ")


def _raise_as_tf(plan, err):
    """Raises, for a failed step of ``plan``, the error TF would report instead of ``err``
    (``err`` itself, re-raised, when that is the one)."""
    other = _source_error_as_tf(plan, err)
    if other is err:
        raise err
    raise other from None


def _no_session_factory(target, config, default_config=True):
    """TF 1.15's NotFoundError for a target that is neither "" nor grpc://: it shows the
    options (a session made without a config shows the default one TF's Python passes)."""
    if config is not None:
        from google.protobuf import text_format

        text = text_format.MessageToString(config, as_one_line=True)
    elif default_config:
        text = ('device_count { key: "CPU" value: 1 } device_count { key: "GPU" value: 0 } '
                "gpu_options { experimental { } }")
    else:
        text = ""
    return errors.NotFoundError(
        None, None, "No session factory registered for the given session options: "
        f'{{target: "{target}" config: {text}}} Registered factories are {{DIRECT_SESSION, '
        "GRPC_SESSION}.")


def _check_host_port(host_port):
    """TF's check of a grpc:// target's address: a port (an unsigned 32-bit number) after its
    last ':' (the whole text without one), no '/' before it."""
    colon = host_port.rfind(":")
    port = host_port[colon + 1:].strip()
    host = host_port[:colon] if colon >= 0 else host_port
    if not (port.isascii() and port.isdigit() and int(port) < 2**32) or "/" in host:
        raise errors.InvalidArgumentError(
            None, None, f'Could not interpret "{host_port}" as a host-port pair.')


def _check_thread_pool(pool, config):
    """TF's check of ``RunOptions.inter_op_thread_pool``: -1 (the caller's thread) or the index
    of one of the session's pools (one unless ``session_inter_op_thread_pool`` lists more)."""
    count = len(getattr(config, "session_inter_op_thread_pool", ())) or 1
    if not -1 <= pool < count:
        raise errors.InvalidArgumentError(None, None, f"Invalid inter_op_thread_pool: {pool}")


_NODE_LINE = re.compile(r"\[\[node (\S+) \(defined at [^\n]*?\) \]\]")


def _raw_op_error(err):
    """``err`` as TF's runtime raises it outside Session.run's interpolation (a callable's
    step): each node line reads "[[{{node X}}]]" and the error names no op."""
    err._message = _NODE_LINE.sub(lambda m: "[[{{node " + m.group(1) + "}}]]", err._message)
    err._op = None
    err._node_def = None


def _raise_past_deadline(err, deadline):
    """Raises ``err``, a step's DeadlineExceededError; for a step given a deadline, as TF
    reports its own wait for the step running out: an error that names no op."""
    if deadline is None or time.monotonic() < deadline:
        raise err
    raise errors.DeadlineExceededError(
        None, None, "Timed out waiting for notification") from None


def _source_error_as_tf(plan, err):
    """The error TF 1.15 reports when a step's source ops fail: TF starts the placeholders
    and variables of a step concurrently, and of several that fail (unfed, uninitialized) it
    mostly reports the one created last, where a serial plan meets the first. Returns that
    op's error (``err`` itself when it is not such a failure or is already that op's)."""
    if not err.message.startswith(_SOURCE_ERRORS):
        return err
    order, placement = getattr(plan, "order", None), getattr(plan, "placement", None)
    if not order or placement is None:
        return err
    from tideflow.ops import constant_op, state_ops

    in_step = set(order)
    fetched = {t._op for t in getattr(plan, "fetches", ())}
    last = None
    for op in order:
        if op.type == "Placeholder":
            fails = True
        elif op.type in ("VariableV2", "Variable"):
            try:
                res = placement[op].resource_mgr.lookup(*state_ops._resource_key(op))
            except errors.NotFoundError:
                res = None
            if res is not None and res.buf is not None:
                continue
            ref = op._outputs[0]
            # read by the step (an initializer's Assign may see it uninitialized)
            fails = op in fetched or any(
                c in in_step and not (c.type == "IsVariableInitialized" or (
                    c.type == "Assign" and c._inputs[0] is ref))
                for c in ref.consumers())
        else:
            continue
        if fails and (last is None or op._id > last._id):
            last = op
    if last is None or err.op is last:
        return err
    from tideflow.runtime.executor import op_error_for

    if last.type == "Placeholder":
        if f"placeholder tensor '{last.name}'" in err.message:
            return err
        return op_error_for(constant_op.unfed_placeholder_error(last), last)
    if err.message.split("\n")[0] == f"Attempting to use uninitialized value {last.name}":
        return err  # that variable's error already, from the op reading it
    # as TF's executor (and the plan's mapping): the op that reads the ref fails
    ref = last._outputs[0]
    reader = next((c for c in order if ref in c._inputs), None)
    other = state_ops._uninitialized_error(last.name)
    if reader is None:
        from tideflow.runtime.executor import retval_note

        other._message += retval_note(ref, getattr(plan, "fetches", ()))
    return op_error_for(other, reader)


def _fetch_key(f):
    """A hashable key for a fetch structure (None when it has none)."""
    if isinstance(f, (Tensor, Operation, str)):
        return f
    if isinstance(f, (list, tuple)):
        try:
            return (type(f), tuple(_fetch_key(x) for x in f))
        except TypeError:
            return None
    if isinstance(f, dict):
        try:
            return (type(f), tuple((k, _fetch_key(v)) for k, v in f.items()))
        except TypeError:
            return None
    if hasattr(type(f), "__attrs_attrs__"):
        return None  # its fields may change between runs while its hash does not
    try:
        hash(f)
    except TypeError:
        return None
    return (type(f), f)


# ------------------------------------------------------------------------------------------
# feeds
# ------------------------------------------------------------------------------------------


def _feed_tensors(graph, key):
    """The tensor(s) a feed_dict key names; composite keys give (tensors, splitter)."""
    comps = getattr(type(key), "_tf_feed_components", None)
    if comps is not None:
        return key._tf_feed_components()
    if isinstance(key, tuple):
        # a nested tuple of tensors (an RNN state) is fed a value of the same structure: as
        # TF, both are flattened and paired in order
        flat_keys = _flatten_seq(key)
        parts = [_feed_tensors(graph, k) for k in flat_keys]

        def splitter(value):
            flat_values = _flatten_seq(value)
            if len(flat_values) != len(flat_keys):
                raise ValueError(
                    f"Could not flatten dictionary. Key had {len(flat_keys)} elements, but value "
                    f"had {len(flat_values)} elements. Key: {flat_keys}, value: {flat_values}.")
            seen = []
            for k in flat_keys:  # (nest's flatten_dict_items: each key once)
                if any(k is s for s in seen):
                    raise ValueError(f"Could not flatten dictionary: key {k} is not unique.")
                seen.append(k)
            out = []
            for (_, split), v in zip(parts, flat_values):
                out.extend([v] if split is None else split(v))
            return out

        return [t for tensors, _ in parts for t in tensors], splitter
    if isinstance(key, Tensor) and _in_body_of(key, graph):
        raise ValueError(f"Tensor {key} may not be fed.")
    try:
        el = graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
    except (TypeError, ValueError, KeyError) as e:
        raise TypeError(f"Cannot interpret feed_dict key as Tensor: {e.args[0]}") from None
    return [el], None


def _flatten_seq(x):
    """The leaves of nested lists and tuples, in order (anything else is a leaf)."""
    if isinstance(x, (list, tuple)):
        return [leaf for item in x for leaf in _flatten_seq(item)]
    return [x]


def _handle_value(value):
    """The tensor a session TensorHandle stands for (None for any other value)."""
    from tideflow.ops.session_ops import TensorHandle, _key

    if not isinstance(value, TensorHandle):
        return None
    state = getattr(value._session, "_session_state", None) or {}
    stored = state.get(_key(bytes(value)))
    return None if stored is None else np.asarray(stored)


def _convert_feed(tensor, value, index=0):
    dtype = tensor._dtype.base_dtype
    np_dtype = dtype._np
    encode = False
    if isinstance(value, Tensor):
        raise TypeError(
            "The value of a feed cannot be a tf.Tensor object. Acceptable feed values include "
            "Python scalars, strings, lists, numpy ndarrays, or TensorHandles. For reference, the "
            f"tensor object was {value} which was passed to the feed with key {tensor}."
        )
    if isinstance(value, int) and _int_feed_changes(value, dtype):
        raise TypeError(
            f"Type of feed value {value} with type {type(value)} is not compatible with "
            f"Tensor type {_feed_type_repr(dtype)}. Try explicitly setting the type of the feed "
            "tensor to a larger type (e.g. int64).")
    if dtype == dtypes.string:
        arr = np.asarray(value, dtype=object)
        if arr.ndim == 0 and isinstance(value, str):
            arr = np.asarray(value.encode(), dtype=object)
        elif arr.dtype == object:
            encode = True  # (after the shape check, as TF's runtime converts it after that)
    else:
        if type(value) is np.ndarray and value.dtype == np_dtype:
            arr = value
        else:
            if dtype.is_complex:
                _check_complex_feed(value)
            elif dtype == dtypes.bfloat16 and isinstance(value, (np.ndarray, np.generic)):
                from tideflow.framework.tensor_util import check_bfloat16_cast

                check_bfloat16_cast(value.dtype)  # (TF's bfloat16 casts from few NumPy types)
            try:
                # (NumPy 2 warns where a value overflows the feed's type, e.g. 70000. fed to
                # float16; TF 1.15's NumPy 1.x converted it to inf silently)
                with np.errstate(over="ignore", invalid="ignore"):
                    arr = np.asarray(value, dtype=np_dtype)
            except OverflowError as e:
                if "too large to convert" in str(e):  # past a C long: NumPy 1.x's error too
                    raise
                # a Python int out of range inside a list wraps around, as in TF
                arr = np.asarray(value).astype(np_dtype)
            except (TypeError, ValueError) as e:
                stored = _handle_value(value)
                if stored is not None and stored.dtype == np_dtype:
                    # a TensorHandle feeds the tensor it stands for, as in TF
                    return stored
                if stored is not None:  # TF's call frame refuses the stored tensor's type
                    raise errors.InvalidArgumentError(
                        None, None, f"Expects arg[{index}] to be {dtypes.type_string(dtype)} "
                        f"but {dtypes.type_string(stored.dtype)} is provided")
                if isinstance(e, ValueError) and str(e).startswith(_RAGGED):
                    # NumPy 1.x's words (NumPy 2 adds the shape it detected)
                    raise ValueError(_RAGGED) from None
                if isinstance(e, TypeError) and str(e).endswith(" real number, not 'complex'"):
                    # NumPy 1.x's words for a complex value fed to a real type
                    kind = "int" if str(e).startswith("int(") else "float"
                    raise TypeError(f"can't convert complex to {kind}") from None
                if isinstance(e, TypeError) and " or a real number, not " in str(e):
                    # the words of TF 1.15's Python ("float() argument must be a string or a
                    # number, not 'dict'"); Python 3.10 says "a real number"
                    raise TypeError(str(e).replace(" or a real number, not ",
                                                   " or a number, not ")) from None
                raise  # NumPy's own error, as TF's np.asarray of the feed raises it
    shape = tensor._shape
    if shape._dims is not None:
        ok = len(shape._dims) == arr.ndim and all(
            d._value is None or d._value == n for d, n in zip(shape._dims, arr.shape)
        )
        if not ok:
            raise ValueError(
                f"Cannot feed value of shape {arr.shape!r} for Tensor {tensor.name!r}, which has "
                f"shape {_shape_repr(shape)!r}"
            )
    return _encode_strings(arr) if encode else arr


_RAGGED = "setting an array element with a sequence."


def _int_feed_changes(value, dtype):
    """TF 1.15's check of a Python int (or bool) fed to ``dtype``: whether NumPy 1.x's scalar
    of the feed's type differs from it (an int out of an integer type's range, a bool type's
    2, a float type's rounding: 16777217 as float32, 70000 as float16; a string type's always);
    an int past a C long (past an unsigned one for uint32 and uint64, which NumPy 1.x converts
    through one) is NumPy 1.x's OverflowError."""
    if dtype == dtypes.string:
        return True
    if dtype._np is None:
        return False
    kind = np.dtype(dtype._np).kind
    if kind in "iu":
        top = 2**64 if (kind == "u" and dtype.size >= 4) else 2**63
        if not -(2**63) <= value < top:
            raise OverflowError("Python int too large to convert to C long")
        return not dtype.min <= value <= dtype.max
    if kind == "b":
        return value not in (0, 1)
    if kind in "fc":
        try:
            f = float(value)
        except OverflowError:
            raise OverflowError("int too large to convert to float") from None
        with np.errstate(over="ignore"):
            return float(np.asarray(f, dtype=dtype._np).real) != f
    return False


def _feed_type_repr(dtype):
    """The feed type TF's message names: its NumPy type (Python's bool and object for the bool
    and string types)."""
    if dtype == dtypes.bool:
        return "<class 'bool'>"
    if dtype == dtypes.string:
        return "<class 'object'>"
    return str(np.dtype(dtype._np).type)


def _check_complex_feed(value):
    """NumPy 1.x refuses text for a complex array ("must be real number, not str")."""
    if isinstance(value, (str, bytes)):
        bad = value
    elif isinstance(value, (list, tuple)):
        flat = np.asarray(value, dtype=object).reshape(-1)
        bad = next((v for v in flat if isinstance(v, (str, bytes))), None)
    else:
        return
    if bad is not None:
        raise TypeError(f"must be real number, not {type(bad).__name__}")


def _encode_strings(arr):
    flat = arr.reshape(-1)
    out = np.empty(flat.shape, dtype=object)
    for i, v in enumerate(flat):
        if isinstance(v, str):
            out[i] = v.encode()
        elif isinstance(v, (bytes, bytearray, memoryview, np.bytes_)):
            out[i] = bytes(v)
        else:  # TF's runtime refuses it (bytes(5) would be five zero bytes), in its words
            t = type(v.item() if isinstance(v, np.generic) else v)
            name = t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"
            raise errors.InternalError(None, None, f"Unsupported object type {name}")
    return out.reshape(arr.shape)


def _shape_repr(shape):
    return "(" + ", ".join("?" if d.value is None else str(d.value) for d in shape.dims) + (
        ",)" if len(shape.dims) == 1 else ")"
    )


_FAST_TYPES = (Tensor, Operation, str)


def _fed_fetches(plan, handler, feed_tensors, feed_values, values, feed_dict=None):
    """A fetched tensor that was fed gives the fed array back, as TF: a scalar stays a 0-d
    ndarray (computed scalars are NumPy scalars), and a fed string keeps the user's own
    elements (str stays str) in an object array."""
    pairs = plan.__dict__.get("fed_fetches")
    if pairs is None:
        pos = {t: j for j, t in enumerate(feed_tensors)}
        pairs = plan.fed_fetches = tuple(
            (i, pos[t]) for i, t in enumerate(handler.tensors) if t in pos)
    if not pairs:
        return values
    values = list(values)
    for i, j in pairs:
        v = feed_values[j]
        if type(v) is not np.ndarray:
            continue
        if v.dtype != object:
            if v.ndim == 0:
                values[i] = v
        elif feed_dict is not None:
            raw = _raw_string_feed(feed_dict, feed_tensors[j])
            if raw is not None:
                values[i] = np.asarray(raw, dtype=object)
    return values


def _raw_string_feed(feed_dict, tensor):
    """The value the user fed to a string ``tensor`` (keyed by the tensor or its name)."""
    graph = tensor._op._graph
    for key, value in feed_dict.items():
        if key is tensor:
            return value
        if isinstance(key, str):
            try:
                if graph.as_graph_element(key) is tensor:
                    return value
            except (KeyError, ValueError, TypeError):
                pass
    return None


def _source_stats(step_stats, device):
    ds = next((d for d in step_stats.dev_stats if d.device == device), None)
    if ds is None:
        ds = step_stats.dev_stats.add(device=device)
    now = time.time_ns()
    ns = ds.node_stats.add(node_name="_SOURCE", timeline_label="_SOURCE = NoOp()")
    ns.all_start_micros = now // 1000
    ns.all_start_nanos = now
    ns.scheduled_micros = now // 1000


def _limit_blas_threads(n):
    """Caps BLAS threads at ``n`` (intra_op_parallelism_threads): NumPy's OpenBLAS directly,
    another BLAS through threadpoolctl when it is installed. Returns an object whose
    ``restore_original_limits()`` undoes it, or None."""
    cap = threads.cap_blas(n)
    if cap is not None:
        return cap
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return None
    try:
        return threadpool_limits(limits=n, user_api="blas")
    except Exception:  # noqa: BLE001 - an unusual BLAS: leave it alone
        return None

# ------------------------------------------------------------------------------------------
# Session
# ------------------------------------------------------------------------------------------


class BaseSession:
    """A session runs parts of one graph on the devices of this process (or a cluster)."""

    # the process's open local sessions, which ``Session.reset("")`` closes (as TF's
    # DirectSessionFactory::Reset); such a session then refuses steps with CancelledError
    _local_sessions: typing.ClassVar[weakref.WeakSet] = weakref.WeakSet()
    _reset_closed = False

    def __init__(self, target="", graph=None, config=None):
        if graph is None:
            graph = ops.get_default_graph()
        if not isinstance(graph, ops.Graph):
            raise TypeError(f"graph must be a tf.Graph, but got {type(graph)}")
        if config is not None and not any(c.__name__ == "ConfigProto"
                                          for c in type(config).__mro__):
            raise TypeError(f"config must be a tf.ConfigProto, but got {type(config)}")
        if isinstance(target, bytes):
            target = target.decode()
        elif target is not None and not isinstance(target, str):
            raise TypeError(f"target must be a string, but got {type(target)}")
        allocator.tune_once()
        self._graph = graph
        self._target = target or ""
        self._config = config
        # read once: the config does not change during the session's life
        op_timeout_ms = getattr(config, "operation_timeout_in_ms", 0) if config else 0
        self._op_timeout_s = op_timeout_ms / 1000.0 if op_timeout_ms and op_timeout_ms > 0 else 0
        self._closed = False
        self._opened = True
        self._graph_ctx = None
        self._cancelled = threading.Event()
        self._lock = threading.Lock()
        self._plans = {}
        self._fast = {}
        self._handlers = {}
        self._session_state = {}
        self._partial_runs = {}
        self._partial_run_ids = 0
        self._remote = None
        if self._target.startswith("grpc://"):
            from tideflow.distributed.grpc_session import RemoteSession

            _check_host_port(self._target[len("grpc://"):])
            self._remote = RemoteSession(self, self._target, config)
        elif self._target:
            raise _no_session_factory(self._target, config)
        else:
            cpus = getattr(config, "device_count", {}).get("CPU") if config is not None else None
            if cpus is not None and cpus <= 0:  # (TF's direct session needs a CPU)
                raise errors.NotFoundError(
                    None, None, "No CPU devices are available in this process")
            BaseSession._local_sessions.add(self)
        self._device_mgr = DeviceMgr(config)
        self._devices = self._device_mgr.devices
        self._optimize = True
        self._bfloat16_sendrecv = False
        go = getattr(config, "graph_options", None)
        if go is not None:
            oo = getattr(go, "optimizer_options", None)
            if oo is not None and getattr(oo, "opt_level", 0) == -1:
                self._optimize = False
            self._bfloat16_sendrecv = bool(getattr(go, "enable_bfloat16_sendrecv", False))
        # GraphOptions.infer_shapes: sess.graph_def carries each node's _output_shapes (TF)
        self._add_shapes = bool(getattr(go, "infer_shapes", False))
        self._log_placement = bool(getattr(config, "log_device_placement", False))
        self._logged_version = None  # the graph version whose placement was last logged
        self._allow_soft = bool(getattr(config, "allow_soft_placement", False))
        self._default_ctx = None
        self._pool = parallel.PartitionPool()
        self._cost_placer = None  # None: TIDEFLOW_PLACER decides (runtime/placer.py)
        self._recv_asap = False  # Recv scheduling: as late as possible unless set
        self._pinned = {}  # stateful op -> Device, fixed by the first plan that placed it
        self._devices_checked = (0, None)  # (ops checked, the error they gave)
        self._devices_ok = 0  # the graph version whose ops all passed that check (-1: failed)
        self._measured = {}  # node name -> op microseconds from traced steps (cost model)
        self._blas_limits = None
        intra = int(getattr(config, "intra_op_parallelism_threads", 0) or 0) if config else 0
        if intra > 0:
            self._blas_limits = _limit_blas_threads(intra)
            threads.set_thread_count(intra)  # the intra-op pool is process-wide, as TF's
        if self._log_placement:
            print(device_mapping_text(self._devices))

    # -- properties -------------------------------------------------------------------------
    @property
    def graph(self):
        return self._graph

    @property
    def graph_def(self):
        return self._graph.as_graph_def(add_shapes=self._add_shapes)

    @property
    def sess_str(self):
        return self._target.encode("utf-8")  # bytes, as TF's

    def list_devices(self):
        from tideflow.kernels.device import listed_devices
        from tideflow.runtime.device_attributes import device_attributes

        if self._closed and not self._reset_closed:
            # TF's TF_SessionListDevices refuses a closed session with this error
            raise errors.CancelledError(None, None, "Session has been closed.")
        if self._remote is not None:
            return self._remote.list_devices()
        return [device_attributes(d) for d in listed_devices(list(self._devices))]

    def as_default(self):
        return ops.default_session(self)

    # -- lifecycle --------------------------------------------------------------------------
    def close(self):
        if self._reset_closed:  # Session.reset released it: now closed here too
            self._reset_closed = False
            return
        if self._closed:
            return
        self._closed = True
        self._release()

    def _release(self):
        self._cancelled.set()
        close_error = None
        if getattr(self, "_remote", None) is not None:
            try:
                self._remote.close()
            except errors.AbortedError as e:  # raised after the rest is released, as TF's close
                close_error = e
            except errors.OpError:
                pass
        for d in self._devices:
            d.resource_mgr.clear()
        self._plans.clear()
        self._fast.clear()
        self._pool.shutdown()
        if self._blas_limits is not None:
            with contextlib.suppress(Exception):
                self._blas_limits.restore_original_limits()
            self._blas_limits = None
        if close_error is not None:
            raise close_error

    def __del__(self):
        # (at interpreter shutdown module globals such as contextlib may already be None)
        if getattr(self, "_closed", True):
            return
        try:
            self.close()
        except Exception:  # noqa: BLE001, S110 - nothing to report to from a finalizer
            pass

    def _check_open(self):
        if self._reset_closed:
            raise errors.CancelledError(None, None, "Session has been closed.")
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")

    # -- running ----------------------------------------------------------------------------
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs the ops and evaluates the tensors in ``fetches`` (any nested structure)."""
        if options is not None or run_metadata is not None:
            # as TF's run: a false value is no options (metadata); options are serialized
            # before the step, the metadata parsed after it (so the step runs first)
            options = options or None
            run_metadata = run_metadata or None
            if options is not None and not hasattr(options, "SerializeToString"):
                raise AttributeError(f"'{type(options).__name__}' object has no attribute "
                                     "'SerializeToString'")
            if run_metadata is not None and not hasattr(run_metadata, "ParseFromString"):
                self.run(fetches, feed_dict, options)
                raise AttributeError(f"'{type(run_metadata).__name__}' object has no "
                                     "attribute 'ParseFromString'")
        if self._closed:
            self._check_open()
        if self._remote is not None:
            return self._remote.run(fetches, feed_dict, options, run_metadata)
        if not feed_dict and options is None and run_metadata is None:
            # fast path: a single fetched Tensor, Operation or name with nothing fed
            cached = self._fast.get(fetches) if isinstance(fetches, _FAST_TYPES) else None
            if cached is not None and cached[0].version == self._graph._structure_version and (
                    self._devices_ok == self._graph._version):
                plan, handler = cached
                try:
                    values = plan.run((), Step(self) if plan.needs_step else None)
                except (errors.FailedPreconditionError, errors.InvalidArgumentError) as err:
                    _raise_as_tf(plan, err)
                return handler.builder(values)
        return self._run(fetches, feed_dict, options, run_metadata)

    def _run(self, fetches, feed_dict, options, run_metadata):
        handler_key = _fetch_key(fetches)
        handler = None
        if handler_key is not None:
            handler = self._handlers.get(handler_key)
        if handler is None and not self._graph._nodes_by_id:
            raise RuntimeError("The Session graph is empty.  Add operations to the graph "
                               "before calling run().")

        feed_tensors = []
        feed_values = []
        if feed_dict:
            if type(feed_dict) is not dict and not isinstance(feed_dict,
                                                               collections.abc.Mapping):
                raise TypeError("input must be a dictionary")  # TF 1.15's nest words
            graph = self._graph
            unfeedable = graph._unfeedable_tensors
            for key, value in feed_dict.items():
                if type(key) is Tensor and key._op._graph is graph:  # the common case
                    # (as TF: a value of the wrong shape is reported before an unfeedable
                    # tensor)
                    feed_values.append(_convert_feed(key, value, len(feed_values)))
                    if key in unfeedable:
                        raise ValueError(f"Tensor {key} may not be fed.")
                    feed_tensors.append(key)
                    continue
                feed_fn = _conversion(key, 1) if _CONVERSIONS else None
                if feed_fn is not None:
                    pairs = feed_fn(key, value)
                    tensors = [graph.as_graph_element(t) for t, _ in pairs]
                    values = [v for _, v in pairs]
                else:
                    tensors, splitter = _feed_tensors(graph, key)
                    values = [value] if splitter is None else splitter(value)
                    if isinstance(key, tuple):
                        for k in _flatten_seq(key):  # a key also fed on its own (nest's check)
                            if not isinstance(k, (list, tuple)) and k in feed_dict:
                                raise ValueError(
                                    f"Could not flatten dictionary: key {k} is not unique.")
                for t, v in zip(tensors, values):
                    feed_values.append(_convert_feed(t, v, len(feed_values)))
                    if not graph.is_feedable(t):
                        raise ValueError(f"Tensor {t} may not be fed.")
                    feed_tensors.append(t)
            if len(feed_tensors) > 1 and len(set(feed_tensors)) < len(feed_tensors):
                # one tensor under two keys ('x:0' and x): the later value, as TF
                last = {t: v for t, v in zip(feed_tensors, feed_values)}
                feed_tensors, feed_values = list(last), list(last.values())
        if handler is None:  # after the feeds, so a bad feed is reported first, as in TF
            handler = _FetchHandler(self._graph, fetches)
            if handler_key is not None:
                self._handlers[handler_key] = handler

        if self._devices_ok != self._graph._version:
            self._check_devices()  # (new ops since: TF places them before any step)
        plan = self._get_plan(handler, feed_tensors)
        if options is not None and getattr(options, "inter_op_thread_pool", 0):
            _check_thread_pool(options.inter_op_thread_pool, self._config)
        timeout = getattr(options, "timeout_in_ms", 0) if options is not None else 0
        deadline = (time.monotonic() + timeout / 1000.0) if timeout and timeout > 0 else (
            self._default_deadline())
        if run_metadata is not None:
            run_metadata.Clear()  # TF replaces it with this step's metadata
        if run_metadata is not None and (options is not None or self._cost_model_every()):
            try:
                values = self._run_traced(plan, tuple(feed_values), deadline, options,
                                          run_metadata)
            except errors.DeadlineExceededError as err:
                _raise_past_deadline(err, deadline)
            return handler.builder(
                _fed_fetches(plan, handler, feed_tensors, feed_values, values, feed_dict))
        step = Step(self, deadline) if (plan.needs_step or deadline) else None
        try:
            values = plan.run(tuple(feed_values), step)
        except (errors.FailedPreconditionError, errors.InvalidArgumentError) as err:
            _raise_as_tf(plan, err)
        except errors.DeadlineExceededError as err:
            _raise_past_deadline(err, deadline)
        if feed_tensors:
            values = _fed_fetches(plan, handler, feed_tensors, feed_values, values, feed_dict)
        if not feed_dict and options is None and run_metadata is None and (
            isinstance(fetches, _FAST_TYPES) and deadline is None
        ):
            self._fast[fetches] = (plan, handler)
        return handler.builder(values)

    def _cost_model_every(self):
        """``graph_options.build_cost_model``: every how many steps TF returns a cost graph
        (0: never)."""
        try:
            return int(self._config.graph_options.build_cost_model)
        except AttributeError:
            return 0

    def _run_traced(self, plan, feed_values, deadline, options, run_metadata):
        """A step with RunOptions: the instrumented plan variant when tracing is asked for
        (or a cost graph: ``build_cost_model``, which collects the step's stats too)."""
        level = getattr(options, "trace_level", 0) if options is not None else 0
        every = self._cost_model_every()
        cost = False
        if every > 0:
            self._cost_steps = getattr(self, "_cost_steps", 0) + 1
            after = int(self._config.graph_options.build_cost_model_after)
            cost = self._cost_steps > after and (self._cost_steps - after) % every == 0
        trace = level > 0 or cost
        run = plan
        step = Step(self, deadline)
        if trace:
            from tideflow.runtime.tracing import StepTrace

            run = plan.traced
            step.stats = StepTrace()
        values = run.run(feed_values, step)
        if trace:
            # TF's host tracer (HARDWARE_TRACE and above) adds the '/host:CPU' device
            step.stats.to_step_stats(run_metadata.step_stats, host=level >= 2)
            if cost:
                step.stats.to_cost_graph(run_metadata.cost_graph)
            if not any(d.node_stats for d in run_metadata.step_stats.dev_stats):
                # everything was folded or fed: TF's trace still has its _SOURCE node
                _source_stats(run_metadata.step_stats, self._devices[0].name)
            for name, us in step.stats.durations().items():
                old = self._measured.get(name)
                self._measured[name] = us if old is None else 0.5 * (old + us)
        if getattr(options, "output_partition_graphs", False):
            units = {}
            unit_of = {op: units.setdefault(d, partition.Unit(d))
                       for op, d in plan.placement.items()}
            parts = partition.build(plan.order, unit_of, set(plan.feeds), plan.fetches, [])
            run_metadata.partition_graphs.extend(partition.partition_graph_defs(
                parts, plan.placement, plan.feeds, plan.fetches))
        return values

    def _get_plan(self, handler, feed_tensors):
        key = (
            tuple(handler.tensors),
            tuple(feed_tensors),
            tuple(handler.targets),
            self._graph._structure_version,
        )
        plan = self._plans.get(key)
        if plan is None:
            with self._lock:
                self._check_open()
                plan = self._plans.get(key)
                if plan is None:
                    plan = self._build_plan(handler.tensors, feed_tensors, handler.targets)
                    self._plans[key] = plan
        return plan

    def _check_devices(self):
        """As TF's session, which places the whole graph whenever it grows: a node assigned
        to a device the session lacks fails every step, whichever nodes the step runs (each
        node is checked once, at the first step after the extension that added it)."""
        checked, err = self._devices_checked
        if err is None and checked != self._graph._version:
            ops_ = self._graph.get_operations()
            placer.check_device_names(ops_)  # (a malformed name is TF's first complaint)
            try:
                placer.check_requested_devices(ops_[checked:], self._devices, self._allow_soft)
            except errors.InvalidArgumentError as e:
                err = e
            self._devices_checked = (len(ops_), err)
            self._devices_ok = -1 if err is not None else len(ops_)
        if err is not None:
            raise err

    def _build_plan(self, fetches, feeds, targets):
        ops.forget_stack_above()  # (graph building is done for now: no frame kept alive)
        fetches, feeds, targets = list(fetches), list(feeds), list(targets)
        fed = {t: i for i, t in enumerate(feeds)}
        # TF places the whole graph: a malformed device anywhere fails every run
        placer.check_device_names(self._graph.get_operations())
        deferred = getattr(self._graph, "_deferred_run_error", None)
        if deferred is not None:  # a graph TF 1.15 builds but cannot run (while_loop.py)
            raise type(deferred)(None, None, deferred.message)
        self._check_devices()
        order = topo_order(prune(fetches, targets, fed), fed, fetches)
        chooser = None
        if placer.cost_model_enabled(self) and len(self._devices) > 1:
            chooser = cost_model.CostChooser(order, self._measured)
        placement = placer.place(order, self._devices, self._allow_soft, chooser=chooser,
                                 pinned=self._pinned)
        version = (self._graph._version, self._graph._structure_version)
        if self._log_placement and self._logged_version != version:
            # as TF, which places (and logs) the whole graph at the first run after it changed
            self._logged_version = version
            placer.log_graph_placement(self._graph, placement, self._devices, self._allow_soft,
                                       self._pinned)
        used = []
        for op in order:
            d = placement[op]
            if d not in used:
                used.append(d)
        if chooser is not None and len(used) > 1:
            # run in the simulated order, so each partition sends what others wait for as
            # early as the simulation assumed (any topological order is deadlock-free)
            order = cost_model.schedule_order(order, chooser.starts)
        lanes = {}
        for d in used:
            ops_d = order if len(used) == 1 else [op for op in order if placement[op] is d]
            chosen = parallel.choose_lanes(ops_d, self._config, self._measured)
            if chosen is not None:
                lanes[d] = chosen[0]
                if len(used) == 1:
                    order = cost_model.schedule_order(order, chosen[1])
        if len(used) <= 1 and not lanes:
            device = used[0] if used else self._devices[0]
            plan = Plan(self._graph, fetches, feeds, targets, device, self._session_state, self,
                        optimize=self._optimize, order=order)
        else:
            plan = self._multi_plan(order, placement, lanes, fetches, feeds, targets)
        plan.version = self._graph._structure_version
        plan.order = order
        plan.placement = placement
        plan.feeds = feeds
        return plan

    def _multi_plan(self, order, placement, lanes, fetches, feeds, targets):
        units = {}

        def unit(d, lane):
            u = units.get((d, lane))
            if u is None:
                u = units[(d, lane)] = partition.Unit(d, lane)
            return u

        unit_of = {}
        for op in order:
            d = placement[op]
            where = lanes.get(d)
            unit_of[op] = unit(d, where[op] if where is not None else 0)
        parts = partition.build(order, unit_of, set(feeds), fetches, targets,
                                bfloat16=self._bfloat16_sendrecv)
        plans = [Plan(self._graph, p.fetches, feeds, p.targets, p.device, self._session_state,
                      self, optimize=self._optimize, order=p.ops, partition=p,
                      recv_asap=self._recv_asap) for p in parts]
        return parallel.MultiPlan(parts, plans, len(fetches), self._pool, placement, fetches)

    def _default_deadline(self):
        """The deadline ConfigProto.operation_timeout_in_ms sets for a step starting now."""
        timeout = self._op_timeout_s
        return time.monotonic() + timeout if timeout else None

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """A function that runs ``fetches`` with positional values for ``feed_list``."""
        if feed_list is not None and not isinstance(feed_list, (list, tuple)):
            raise TypeError("`feed_list` must be a list or tuple.")
        if self._closed and feed_list is None:
            # TF's runtime refuses it with this error, not run()'s RuntimeError
            raise errors.CancelledError(None, None, "Session has been closed.")
        if self._remote is not None:
            return self._remote.make_callable(fetches, feed_list, accept_options)
        # with a feed_list TF's callable is run() over the zipped feeds: it takes run()'s
        # keywords, and bad fetches or feeds (or a closed session) surface at call time
        lazy = feed_list is not None

        def _generic_run(*args, options=None, run_metadata=None, **kwargs):
            if kwargs:
                raise TypeError(f"run() got an unexpected keyword argument "
                                f"{next(iter(kwargs))!r}")
            return self.run(fetches, dict(zip(feed_list, args)), options, run_metadata)

        if not lazy and self._devices_ok != self._graph._version:
            self._check_devices()  # (TF's callable takes the graph as it is made)
        try:
            handler = _FetchHandler(self._graph, fetches)
            feed_tensors = [
                self._graph.as_graph_element(f, allow_tensor=True, allow_operation=False)
                for f in (feed_list or [])
            ]
            plan = self._get_plan(handler, feed_tensors)
        except (TypeError, ValueError, KeyError, RuntimeError, errors.OpError):
            if lazy:
                return _generic_run
            raise

        def call(*args, **kwargs):
            if lazy:
                return _call(*args, **kwargs)
            try:
                return _call(*args, **kwargs)
            except errors.OpError as e:
                # TF's callable runs the step without run()'s error interpolation: the
                # runtime's own text ("[[{{node X}}]]") and an error naming no op
                _raw_op_error(e)
                raise

        def _call(*args, **kwargs):
            if self._closed:
                if lazy:
                    self._check_open()
                raise errors.CancelledError(None, None, "Session has been closed.")
            if lazy and self._devices_ok != self._graph._version:
                self._check_devices()  # (run()'s: the graph's new ops are placed first)
            if lazy or accept_options:
                options = kwargs.pop("options", None)
                run_metadata = kwargs.pop("run_metadata", None)
            else:
                options = run_metadata = None
            if kwargs:
                raise TypeError(f"{'run' if lazy else 'callable'}() got an unexpected keyword "
                                f"argument {next(iter(kwargs))!r}")
            if len(args) != len(feed_tensors) or options is not None or (
                    run_metadata is not None):
                # as TF, the values are zipped with feed_list: a missing one leaves its tensor
                # unfed (an error if the fetches need it), an extra one is ignored
                return self.run(fetches, dict(zip(feed_tensors, args)), options, run_metadata)
            vals = tuple(_convert_feed(t, v) for t, v in zip(feed_tensors, args))
            deadline = self._default_deadline()
            step = Step(self, deadline) if (plan.needs_step or deadline) else None
            try:
                out = plan.run(vals, step)
            except errors.DeadlineExceededError as err:
                _raise_past_deadline(err, deadline)
            if vals:
                out = _fed_fetches(plan, handler, feed_tensors, vals, out)
            return handler.builder(out)

        return call

    def _make_callable_from_options(self, callable_options):
        """TF's callable from a ``CallableOptions`` (feed/fetch/target names, run_options):
        called with the feed values in order, it returns the fetched values as a list."""
        fetches = list(callable_options.fetch)
        targets = list(callable_options.target)
        feeds = list(callable_options.feed)
        options = (callable_options.run_options
                   if callable_options.HasField("run_options") else None)
        links = [(c.from_tensor, c.to_tensor) for c in callable_options.tensor_connection]
        if not links:
            runner = self.make_callable(fetches + targets, feed_list=feeds, accept_options=True)

            def call(*args, run_metadata=None):
                return runner(*args, options=options, run_metadata=run_metadata)[:len(fetches)]

            return call
        # a tensor connection stands ``to_tensor`` (a placeholder, say) for ``from_tensor``:
        # the sources are computed from the feeds first, then stand in for their targets
        _check_connections(self._graph, feeds, links)
        sources = self.make_callable([src for src, _ in links], feed_list=feeds,
                                     accept_options=True)
        runner = self.make_callable(fetches + targets,
                                    feed_list=feeds + [dst for _, dst in links],
                                    accept_options=True)

        def call_connected(*args, run_metadata=None):
            linked = sources(*args, options=options)
            return runner(*args, *linked, options=options,
                          run_metadata=run_metadata)[:len(fetches)]

        return call_connected

    # -- partial runs -----------------------------------------------------------------------
    def partial_run_setup(self, fetches, feeds=None):
        """Starts a partial run that will feed ``feeds`` and fetch ``fetches`` in pieces."""
        self._check_open()
        if self._remote is not None:
            return self._remote.partial_run_setup(fetches, feeds)
        handler = _FetchHandler(self._graph, fetches)
        feed_set = set()
        for f in feeds or []:
            feed_fn = _conversion(f, 2) if _CONVERSIONS else None
            try:
                if feed_fn is not None:
                    tensors = [self._graph.as_graph_element(t) for t in feed_fn(f)]
                else:
                    tensors = [self._graph.as_graph_element(f, allow_tensor=True,
                                                            allow_operation=False)]
            except Exception as e:
                # TF 1.15's setup rewrites the error through its Python 2 'message'
                # attribute, so on Python 3 the key's error is an AttributeError
                raise AttributeError(f"'{type(e).__name__}' object has no attribute "
                                     "'message'") from e
            feed_set.update(tensors)
        self._check_devices()
        # TF's handle: the sorted feeds, fetches and targets of the setup, then its number
        handle = "{}->{}/{}/1/;{}".format(
            ",".join(sorted(t.name for t in feed_set)),
            ",".join(sorted(t.name for t in handler.tensors)),
            ",".join(sorted(op.name for op in handler.targets)), self._partial_run_ids)
        self._partial_run_ids += 1  # (TF's count moves on for a setup it refuses, too)
        if not handler.tensors and not handler.targets:
            raise errors.InvalidArgumentError(
                None, None, "Must specify at least one target to fetch or execute.")
        both = sorted(t.name for t in feed_set & set(handler.tensors))
        if both:
            raise errors.InvalidArgumentError(None, None, f"{both[0]} is both fed and fetched.")
        self._partial_runs[handle] = {
            "fetches": set(handler.tensors),
            "targets": set(handler.targets),
            "feeds": feed_set,
            "values": {},
            "ran": set(),
        }
        return handle

    def partial_run(self, handle, fetches, feed_dict=None):
        """Continues partial run ``handle``: feeds more values and fetches more results."""
        self._check_open()
        if self._remote is not None:
            return self._remote.partial_run(handle, fetches, feed_dict)
        state = self._partial_runs.get(handle)
        if state is None:  # TF: also once every feed was fed and every fetch fetched
            raise errors.InvalidArgumentError(
                None, None, "Must run 'setup' before performing partial runs!")
        handler = _FetchHandler(self._graph, fetches)
        if handler.targets:  # TF 1.x: ops named in partial_run_setup run, never fetched here
            raise RuntimeError("partial_run() requires empty target_list.")
        fetched = state.get("fetched", ())
        for t in handler.tensors:
            if t not in state["fetches"]:
                raise errors.InvalidArgumentError(
                    None, None, f"The fetch {t.name} was not specified in partial_run_setup."
                )
            if t in fetched:
                raise errors.InvalidArgumentError(
                    None, None, f"The fetch {t.name} has already been fetched.")
        # a call that fails leaves the partial run as it was (TF): check every feed first
        values = dict(state["values"])
        for key, value in (feed_dict or {}).items():
            feed_fn = _conversion(key, 1) if _CONVERSIONS else None
            if feed_fn is not None:
                pairs = feed_fn(key, value)
                tensors = [self._graph.as_graph_element(t) for t, _ in pairs]
                vals = [v for _, v in pairs]
            else:
                tensors, splitter = _feed_tensors(self._graph, key)
                vals = [value] if splitter is None else splitter(value)
            for t, v in zip(tensors, vals):
                if t not in state["feeds"]:
                    raise errors.InvalidArgumentError(
                        None, None, f"The feed {t.name} was not specified in partial_run_setup."
                    )
                if t in values:
                    raise errors.InvalidArgumentError(
                        None, None, f"The feed {t.name} has already been fed."
                    )
                values[t] = _convert_feed(t, v)
        # everything computed so far acts as a feed; ops that ran are not run again
        known = list(values)
        pending = {t for t in state["feeds"] if t not in values}
        # as TF's, the ops named in partial_run_setup run on their own once what they need has
        # been fed (here: with the first call that can run them)
        targets = [op for op in state["targets"] if op not in state["ran"] and not any(
            t in pending for o in prune([], [op], set(known)) for t in o._inputs)]

        needed = prune([t for t in handler.tensors if t not in values], targets, set(known))
        for op in needed:
            for t in op._inputs:
                if t in pending:
                    raise errors.InvalidArgumentError(
                        None, None,
                        f"Fetch {t.name} can't be computed from the feeds that have been fed so "
                        "far.",
                    )
        missing = [t for t in handler.tensors if t not in values]
        plan = Plan(self._graph, missing, known, targets, self._devices[0],
                    self._session_state, self, optimize=self._optimize)
        # keep every value this call computed, so later calls reuse rather than rerun
        extra = [t for op in plan.ops for t in op._outputs if t not in values]
        extra += [t for t in missing if t not in extra]  # folded constants have no op
        if extra:
            plan = Plan(self._graph, extra, known, targets, self._devices[0],
                        self._session_state, self, optimize=self._optimize)
            out = plan.run(tuple(values[t] for t in known), Step(self))
            for t, v in zip(extra, out):
                values[t] = v
        elif targets:
            plan.run(tuple(values[t] for t in known), Step(self))
        state["values"] = values
        state["ran"].update(plan.ops)
        state["ran"].update(targets)
        state.setdefault("fetched", set()).update(handler.tensors)
        if state["feeds"] <= values.keys() and state["fetches"] <= state["fetched"]:
            del self._partial_runs[handle]  # done: TF forgets the handle
        return handler.builder([values[t] for t in handler.tensors])

    # -- context manager --------------------------------------------------------------------
    def __enter__(self):
        if self._graph_ctx is not None:
            raise RuntimeError("Session context managers are not re-entrant. Use "
                               "`Session.as_default()` if you want to enter a session "
                               "multiple times.")
        self._graph_ctx = self._graph.as_default()
        self._graph_ctx.__enter__()
        self._sess_ctx = self.as_default()
        self._sess_ctx.__enter__()
        return self

    def __exit__(self, exec_type, exec_value, exec_tb):
        if exec_type is errors.OpError:
            pass
        try:
            self._sess_ctx.__exit__(exec_type, exec_value, exec_tb)
        except RuntimeError:
            pass
        self._graph_ctx.__exit__(exec_type, exec_value, exec_tb)
        self._graph_ctx = None
        self.close()
        return False


class Session(BaseSession):
    """``tf.Session(target='', graph=None, config=None)``."""

    @staticmethod
    def reset(target, containers=None, config=None):
        """Clears resource containers on the servers of ``target`` (distributed sessions);
        for a local target, closes every local session of the process with its resources, as
        TF's direct sessions (whatever ``containers`` says)."""
        if isinstance(target, bytes):
            target = target.decode()
        elif not isinstance(target, str):
            raise TypeError(f"Expected binary or unicode string, got {target!r}")
        if target and target.startswith("grpc://"):
            from tideflow.distributed.grpc_session import reset

            _check_host_port(target[len("grpc://"):])
            reset(target, containers, config)
        elif target:
            raise _no_session_factory(target, None, default_config=False)
        else:
            for sess in list(BaseSession._local_sessions):
                if not sess._closed:
                    sess._closed = sess._reset_closed = True
                    sess._release()


class InteractiveSession(BaseSession):
    """A session that installs itself as the default session on construction (and its graph
    as the default graph only when one is given, as TF: ``tf.reset_default_graph()`` still
    works after ``tf.InteractiveSession()``)."""

    _active_session_count = 0

    def __init__(self, target="", graph=None, config=None):
        # as TF 1.15's: growth-only GPU memory unless a config is given, and always
        # place_pruned_graph, under which TF runs no grappler pass (classic constant
        # folding and CSE only): its Pow(x, 2) stays a pow, log(softmax) is not fused
        if not config:
            from tideflow.protos import config_pb2

            config = config_pb2.ConfigProto(
                gpu_options=config_pb2.GPUOptions(allow_growth=True))
        config.graph_options.place_pruned_graph = True
        super().__init__(target, graph, config)
        InteractiveSession._active_session_count += 1
        if InteractiveSession._active_session_count > 1:
            warnings.warn(
                "An interactive session is already active. This can cause out-of-memory errors "
                "in some cases. You must explicitly call `InteractiveSession.close()` to release "
                "resources held by the other session(s).",
                stacklevel=2,
            )
        self._explicitly_closed = False
        self._default_session = self.as_default()
        self._default_session.__enter__()
        self._default_graph = None
        if graph is not None:
            self._default_graph = self._graph.as_default()
            self._default_graph.__enter__()

    def close(self):
        if not self._closed or self._reset_closed:
            InteractiveSession._active_session_count -= 1
            # interactive sessions may close in any order: leave the stacks without the
            # nesting check
            for ctx, stack, obj in ((self._default_graph, ops._default_graph_stack, self._graph),
                                    (self._default_session, ops._default_session_stack, self)):
                if ctx is None:
                    continue
                if stack.stack and stack.stack[-1] is obj:
                    with contextlib.suppress(RuntimeError, AssertionError):
                        ctx.__exit__(None, None, None)
                elif obj in stack.stack:
                    stack.stack.remove(obj)
            self._default_graph = self._default_session = None
        super().close()


def _check_connections(graph, feeds, links):
    """TF's checks of ``CallableOptions.tensor_connection``: a known source, a target fed
    once, and no source computed from its own target."""
    seen = set(feeds)
    for src, dst in links:
        name, _, index = src.partition(":")
        try:
            op = graph.get_operation_by_name(name)
        except (KeyError, ValueError):
            raise errors.InvalidArgumentError(
                None, None, f'Requested tensor connection from unknown node: "{dst}".') from None
        if int(index or 0) >= len(op.outputs):
            raise errors.InvalidArgumentError(
                None, None, f'Requested tensor connection from unknown edge: "{dst}" (actual '
                f"number of outputs = {len(op.outputs)}).")
        if dst in seen:
            raise errors.InvalidArgumentError(None, None, f'Endpoint "{dst}" fed more than once.')
        seen.add(dst)
        target = graph.as_graph_element(dst, allow_tensor=True, allow_operation=False).op
        stack, visited = [op], set()
        while stack:
            cur = stack.pop()
            if cur is target:
                raise errors.InvalidArgumentError(
                    None, None, f'Requested Tensor connection between nodes "{target.name}" and '
                    f'"{op.name}" would create a cycle.')
            if cur not in visited:
                visited.add(cur)
                stack.extend(t.op for t in cur.inputs)
                stack.extend(cur.control_inputs)
