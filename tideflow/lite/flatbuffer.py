"""A small FlatBuffers writer and reader: just what the TFLite model format needs.

FlatBuffers (https://flatbuffers.dev/internals) lay out tables as a signed offset to a vtable
(the byte offsets of the table's fields, 0 for an absent one) followed by the inline fields;
strings, vectors and sub-tables sit elsewhere in the buffer, reached by unsigned 32-bit offsets
that count forward from where the offset itself is stored. Everything is little-endian.

The writer here lays the buffer out front to back (a table before the objects it points to), so
every offset is forward, as the format requires. Objects are described with :class:`Table`,
:class:`Vector` and ``bytes``/``str`` (strings) and serialized in one pass by :func:`build`.
"""

import struct

import numpy as np

_SIZES = {"b": 1, "B": 1, "?": 1, "h": 2, "H": 2, "i": 4, "I": 4, "f": 4, "q": 8, "Q": 8, "d": 8}


class Table:
    """A table to write: ``fields`` is a list of ``(slot, fmt, value)``; ``fmt`` is a struct
    format character for a scalar or ``"o"`` for an offset to a Table, Vector or string. Fields
    whose value is None are left out (the reader then sees the schema's default)."""

    __slots__ = ("fields",)

    def __init__(self, fields):
        self.fields = [f for f in fields if f[2] is not None]


class Vector:
    """A vector to write: of scalars (``fmt`` a struct character; ``items`` an array-like or
    bytes) or of offsets (``fmt == "o"``; ``items`` Tables or strings). ``align`` forces the
    alignment of the element data (TFLite's buffers ask for 16)."""

    __slots__ = ("align", "fmt", "items")

    def __init__(self, fmt, items, align=None):
        self.fmt, self.items, self.align = fmt, items, align


_NP = {"b": np.int8, "B": np.uint8, "?": np.bool_, "h": "<i2", "H": "<u2", "i": "<i4",
       "I": "<u4", "f": "<f4", "q": "<i8", "Q": "<u8", "d": "<f8"}


class _Writer:
    def __init__(self):
        self.buf = bytearray()

    def pad_to(self, align, extra=0):
        """Pads so that ``len(buf) + extra`` is a multiple of ``align``."""
        self.buf.extend(b"\0" * ((-(len(self.buf) + extra)) % align))

    def patch_offset(self, at, target):
        struct.pack_into("<I", self.buf, at, target - at)

    def write(self, obj):
        if isinstance(obj, Table):
            return self.table(obj)
        if isinstance(obj, Vector):
            return self.vector(obj)
        if isinstance(obj, str):
            obj = obj.encode("utf-8")
        if isinstance(obj, (bytes, bytearray)):
            self.pad_to(4)
            pos = len(self.buf)
            self.buf += struct.pack("<I", len(obj)) + bytes(obj) + b"\0"
            return pos
        raise TypeError(f"cannot serialize {type(obj).__name__} into a flatbuffer")

    def table(self, t):
        fields = sorted(t.fields, key=lambda f: -_SIZES.get(f[1], 4))
        n_slots = 1 + max((f[0] for f in fields), default=-1)
        layout, size = {}, 4  # the soffset to the vtable comes first
        for slot, fmt, _ in fields:
            sz = _SIZES.get(fmt, 4)
            size += (-size) % sz
            layout[slot] = size
            size += sz
        size += (-size) % 4
        vtable = struct.pack(f"<{2 + n_slots}H", 4 + 2 * n_slots, size,
                             *[layout.get(s, 0) for s in range(n_slots)])
        self.pad_to(2)
        vt_pos = len(self.buf)
        self.buf += vtable
        self.pad_to(8 if any(_SIZES.get(f[1], 4) == 8 for f in fields) else 4)
        pos = len(self.buf)
        self.buf += b"\0" * size
        struct.pack_into("<i", self.buf, pos, pos - vt_pos)
        children = []
        for slot, fmt, value in fields:
            at = pos + layout[slot]
            if fmt == "o":
                children.append((at, value))
            else:
                struct.pack_into("<" + fmt, self.buf, at, value)
        for at, value in children:
            self.patch_offset(at, self.write(value))
        return pos

    def vector(self, v):
        if v.fmt == "o":
            self.pad_to(4)
            pos = len(self.buf)
            self.buf += struct.pack("<I", len(v.items)) + b"\0" * (4 * len(v.items))
            for i, item in enumerate(v.items):
                self.patch_offset(pos + 4 + 4 * i, self.write(item))
            return pos
        if isinstance(v.items, (bytes, bytearray, memoryview)):
            data = bytes(v.items)
            count = len(data) // _SIZES[v.fmt]
        else:
            arr = np.ascontiguousarray(np.asarray(v.items).astype(_NP[v.fmt], copy=False))
            data, count = arr.tobytes(), arr.size
        self.pad_to(max(4, _SIZES[v.fmt], v.align or 1), 4)
        pos = len(self.buf)
        self.buf += struct.pack("<I", count) + data
        return pos


def build(root, file_identifier=None):
    """The bytes of a flatbuffer whose root table is ``root``."""
    w = _Writer()
    w.buf += b"\0" * 4
    if file_identifier is not None:
        ident = file_identifier.encode("ascii") if isinstance(file_identifier, str) \
            else bytes(file_identifier)
        if len(ident) != 4:
            raise ValueError("a flatbuffer file identifier has 4 bytes")
        w.buf += ident
    w.patch_offset(0, w.table(root))
    w.pad_to(4)
    return bytes(w.buf)


class TableReader:
    """Read access to one table of a flatbuffer held in ``buf``."""

    __slots__ = ("_vt", "_vt_size", "buf", "pos")

    def __init__(self, buf, pos):
        self.buf, self.pos = buf, pos
        self._vt = pos - struct.unpack_from("<i", buf, pos)[0]
        self._vt_size = struct.unpack_from("<H", buf, self._vt)[0]
        if not (0 <= self._vt and self._vt + self._vt_size <= len(buf)):
            raise ValueError("corrupt flatbuffer: a vtable lies outside the buffer")

    def _field(self, slot):
        o = 4 + 2 * slot
        if o >= self._vt_size:
            return 0
        return struct.unpack_from("<H", self.buf, self._vt + o)[0]

    def has(self, slot):
        return self._field(slot) != 0

    def scalar(self, slot, fmt, default=0):
        off = self._field(slot)
        if not off:
            return default
        return struct.unpack_from("<" + fmt, self.buf, self.pos + off)[0]

    def _deref(self, slot):
        off = self._field(slot)
        if not off:
            return None
        at = self.pos + off
        return at + struct.unpack_from("<I", self.buf, at)[0]

    def table(self, slot):
        at = self._deref(slot)
        return None if at is None else TableReader(self.buf, at)

    def string(self, slot):
        at = self._deref(slot)
        if at is None:
            return None
        n = struct.unpack_from("<I", self.buf, at)[0]
        return bytes(self.buf[at + 4:at + 4 + n]).decode("utf-8", "replace")

    def vector(self, slot, fmt):
        """A scalar vector as a numpy array (a copy), or None when the field is absent."""
        at = self._deref(slot)
        if at is None:
            return None
        n = struct.unpack_from("<I", self.buf, at)[0]
        return np.frombuffer(self.buf, _NP[fmt], n, at + 4).copy()

    def raw_bytes(self, slot):
        at = self._deref(slot)
        if at is None:
            return None
        n = struct.unpack_from("<I", self.buf, at)[0]
        return bytes(self.buf[at + 4:at + 4 + n])

    def tables(self, slot):
        at = self._deref(slot)
        if at is None:
            return []
        n = struct.unpack_from("<I", self.buf, at)[0]
        out = []
        for i in range(n):
            p = at + 4 + 4 * i
            out.append(TableReader(self.buf, p + struct.unpack_from("<I", self.buf, p)[0]))
        return out


def root(buf, file_identifier=None):
    """The root table of the flatbuffer ``buf``; checks the identifier when one is given."""
    buf = bytes(buf)
    if len(buf) < 8:
        raise ValueError("buffer too small to hold a flatbuffer")
    if file_identifier is not None and buf[4:8] != file_identifier.encode("ascii"):
        raise ValueError(f"not a {file_identifier!r} flatbuffer (identifier {buf[4:8]!r})")
    return TableReader(buf, struct.unpack_from("<I", buf, 0)[0])
