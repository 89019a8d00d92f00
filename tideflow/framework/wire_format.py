"""Protobuf base-128 varints, for the places that write or read wire-format bytes directly
(TF's own byte layouts: Example protos, tensor_content string lengths, checkpoint tables)."""


def encode_varint(n):
    """The varint bytes of the integer ``n``; a negative int64 takes TF's ten-byte two's
    complement form."""
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def decode_varint(buf, pos):
    """(value, position after it) of the varint at ``buf[pos]``; ValueError when the bytes end
    inside it."""
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise ValueError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7
