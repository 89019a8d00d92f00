"""Static shapes: ``Dimension`` and ``TensorShape`` with unknown rank and unknown dimensions."""

import numpy as np


class Dimension:
    """One dimension of a shape: an int, or unknown (``value is None``)."""

    __slots__ = ("_value",)

    def __init__(self, value):
        if value is None:
            self._value = None
        elif isinstance(value, Dimension):
            self._value = value._value
        else:
            try:
                v = int(value.__index__()) if hasattr(value, "__index__") else None
            except TypeError:
                v = None
            if v is None and isinstance(value, (float, np.floating, str, bytes)) and not isinstance(
                    value, bool):
                # TF 1.x: int(value), an integral float (n / 2 under Python 3) or a numeric
                # string is that int; 1.5 is ambiguous
                v = int(value)
                if not isinstance(value, (str, bytes)) and v != value:
                    raise ValueError(f"Ambiguous dimension: {value}")
            if v is None:
                # TF 1.x calls int(value): Python 3.7's words (a shape built from a tensor,
                # DCGAN's get_variable over a tf.stack output_shape)
                raise TypeError("int() argument must be a string, a bytes-like object or a "
                                f"number, not '{type(value).__name__}'")
            if v < 0:
                raise ValueError(f"Dimension {v} must be >= 0")
            self._value = v

    @property
    def value(self):
        return self._value

    def __repr__(self):
        return f"Dimension({self._value!r})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __int__(self):
        return self._value

    def __index__(self):
        return self._value

    def __eq__(self, other):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other._value is None:
            return None
        return self._value == other._value

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is None or eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self._value)

    def __bool__(self):
        return self._value != 0

    def is_compatible_with(self, other):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            # TF 1.15's quirk: NotImplemented (truthy), so assert_is_compatible_with and
            # merge_with pass an ambiguous or negative value
            return NotImplemented
        return self._value is None or other._value is None or self._value == other._value

    def assert_is_compatible_with(self, other):
        ok = self.is_compatible_with(other)
        if ok is not NotImplemented and not ok:  # (NotImplemented is truthy in TF's Python)
            raise ValueError(f"Dimensions {self} and {other} are not compatible")

    def merge_with(self, other):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        self.assert_is_compatible_with(other)
        return Dimension(self._value if self._value is not None else other._value)

    def _arith(self, other, fn):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other._value is None:
            return Dimension(None)
        return Dimension(fn(self._value, other._value))

    def __add__(self, other):
        return self._arith(other, lambda a, b: a + b)

    def __radd__(self, other):
        return self + other  # as TF: `2.5 + Dimension(3)` fails naming Dimension first

    def __sub__(self, other):
        return self._arith(other, lambda a, b: a - b)

    def __rsub__(self, other):
        return as_dimension(other).__sub__(self)

    def __mul__(self, other):
        return self._arith(other, lambda a, b: a * b)

    def __rmul__(self, other):
        return self * other

    def __floordiv__(self, other):
        return self._arith(other, lambda a, b: a // b)

    def __rfloordiv__(self, other):
        return as_dimension(other).__floordiv__(self)

    def __truediv__(self, other):  # TF 1.15's TypeError (a Dimension divides with //)
        raise TypeError(f"unsupported operand type(s) for /: 'Dimension' and "
                        f"'{type(other).__name__}', please use // instead")

    def __rtruediv__(self, other):
        raise TypeError(f"unsupported operand type(s) for /: '{type(other).__name__}' and "
                        "'Dimension', please use // instead")

    def __mod__(self, other):
        other = as_dimension(other)  # as TF: `%` raises for what the others refuse
        return self._arith(other, lambda a, b: a % b)

    def __rmod__(self, other):
        return as_dimension(other).__mod__(self)

    def _cmp(self, other, fn):
        other = as_dimension(other)
        if self._value is None or other._value is None:
            return None
        return fn(self._value, other._value)

    def __lt__(self, other):
        return self._cmp(other, lambda a, b: a < b)

    def __le__(self, other):
        return self._cmp(other, lambda a, b: a <= b)

    def __gt__(self, other):
        return self._cmp(other, lambda a, b: a > b)

    def __ge__(self, other):
        return self._cmp(other, lambda a, b: a >= b)

    def __reduce__(self):
        return Dimension, (self._value,)


def as_dimension(value):
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dimension):
    """The int value of a Dimension or int (None when unknown)."""
    return dimension._value if isinstance(dimension, Dimension) else dimension


class TensorShape:
    """The static shape of a tensor: unknown rank (``dims is None``) or a list of Dimensions."""

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, (str, bytes)):
            raise TypeError("A string has ambiguous TensorShape, please wrap in a list or "
                            f"convert to an int: {dims}")
        elif _is_shape_proto(dims):
            self._dims = None if dims.unknown_rank else [
                Dimension(None if d.size == -1 else d.size) for d in dims.dim
            ]
        else:
            try:
                it = iter(dims)
            except TypeError:
                self._dims = [as_dimension(dims)]
            else:
                self._dims = [as_dimension(d) for d in it]

    # -- accessors --------------------------------------------------------------------------
    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    @property
    def ndims(self):
        return None if self._dims is None else len(self._dims)

    @property
    def rank(self):
        return self.ndims

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    __nonzero__ = __bool__

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is not None:
            if isinstance(key, slice):
                return TensorShape(self._dims[key])
            return self._dims[key]
        if isinstance(key, slice):
            start, stop = key.start, key.stop
            if key.step is not None:  # TF 1.15's error, even for a step of 1
                raise ValueError("Steps are not yet handled")
            if (start is None or start >= 0) and stop is not None and stop >= 0:
                return unknown_shape(ndims=stop - (start or 0))
            return unknown_shape()
        return Dimension(None)

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d._value
        return n

    def is_fully_defined(self):
        return self._dims is not None and all(d._value is not None for d in self._dims)

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return [d._value for d in self._dims]

    def as_proto(self):
        from tideflow.protos import tensor_shape_pb2

        if self._dims is None:
            return tensor_shape_pb2.TensorShapeProto(unknown_rank=True)
        return tensor_shape_pb2.TensorShapeProto(
            dim=[
                tensor_shape_pb2.TensorShapeProto.Dim(size=-1 if d._value is None else d._value)
                for d in self._dims
            ]
        )

    # -- relations --------------------------------------------------------------------------
    def is_compatible_with(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a.is_compatible_with(b) for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        ok = self.is_compatible_with(other)
        if ok is not NotImplemented and not ok:  # (NotImplemented is truthy in TF's Python)
            raise ValueError(f"Shapes {self} and {other} are incompatible")

    def merge_with(self, other):
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        try:
            return TensorShape([a.merge_with(b) for a, b in zip(self._dims, other._dims)])
        except ValueError:
            raise ValueError(f"Shapes {self} and {other} are not compatible") from None

    def most_specific_compatible_shape(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return unknown_shape()
        return TensorShape(
            [a if a._value == b._value else Dimension(None) for a, b in zip(self._dims, other._dims)]
        )

    def concatenate(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return unknown_shape()
        return TensorShape(self._dims + other._dims)

    def with_rank(self, rank):
        try:
            return self.merge_with(unknown_shape(ndims=rank))
        except ValueError:
            raise ValueError(f"Shape {self} must have rank {rank}") from None

    def with_rank_at_least(self, rank):
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank):
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def assert_has_rank(self, rank):
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other):
        other = as_shape(other)
        if self._dims is not None and other._dims is not None and len(self._dims) != len(
            other._dims
        ):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def is_subtype_of(self, other):
        return as_shape(other).is_compatible_with(self) and (
            other.dims is None or self._dims is not None
        )

    # -- python protocol --------------------------------------------------------------------
    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        # as TF 1.15, the Dimension lists compared: an unknown dimension equals only itself
        # (the same Dimension object), so (?, 3) == [None, 3] is False
        return self._dims == other._dims

    def __ne__(self, other):
        # (TF 1.15 raises ValueError for an unknown rank; tideflow's own code relies on the
        # plain negation there)
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(None if self._dims is None else tuple(d._value for d in self._dims))

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({[d for d in self._dims]!r})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def __reduce__(self):
        return TensorShape, (None if self._dims is None else [d._value for d in self._dims],)


def _is_shape_proto(obj):
    return hasattr(obj, "unknown_rank") and hasattr(obj, "dim")


def as_shape(shape):
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def _new_unknown():
    d = Dimension.__new__(Dimension)
    d._value = None
    return d


def fresh_unknown_dims(shape):
    """``shape`` itself when its rank or every dimension is known; else a copy whose unknown
    dimensions are new objects. TF 1.15 makes each op output's shape afresh, so an unknown
    dimension equals only itself (``relu(x).shape == x.shape`` is False for x of (?, 3))."""
    dims = shape._dims
    if not dims:
        return shape
    for d in dims:
        if d._value is None:
            break
    else:
        return shape
    out = TensorShape.__new__(TensorShape)
    out._dims = [_new_unknown() if d._value is None else d for d in dims]
    return out


def unknown_shape(ndims=None, rank=None):
    if rank is not None:
        ndims = rank
    if ndims is None:
        return TensorShape(None)
    return TensorShape([Dimension(None)] * ndims)


def scalar():
    return TensorShape([])


def vector(length):
    return TensorShape([length])


def matrix(rows, cols):
    return TensorShape([rows, cols])


def dimension_at_index(shape, index):
    """The Dimension at ``index`` of ``shape`` (a TensorShape, or what ``as_shape`` takes);
    an unknown Dimension when the rank is unknown."""
    shape = as_shape(shape)
    if shape.dims is None:
        return Dimension(None)
    return shape.dims[index]
