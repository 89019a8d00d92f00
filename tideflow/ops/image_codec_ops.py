"""Image codecs: DecodePng/Jpeg/Bmp/Gif/Image, EncodePng/Jpeg, ExtractJpegShape.

PNG is written by our own encoder (zlib, exact for 8- and 16-bit images) and 16-bit PNGs are
read by our own decoder, since Pillow narrows 16-bit colour to 8 bits (8-bit ones too when
Pillow is absent); everything else is decoded with Pillow (the optional ``image`` extra),
imported lazily inside the kernels.
"""

import functools
import io
import struct
import zlib

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.array_ops import _check_rank, _in, _np, _shape_str

_PNG_SIG = b"\x89PNG\r\n\x1a\n"
# what Pillow raises on bad or truncated data
_PIL_ERRORS = (OSError, ValueError, SyntaxError, EOFError, IndexError, KeyError, TypeError,
               struct.error, zlib.error)


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _pil():
    try:
        from PIL import Image
    except ImportError:
        raise errors.UnimplementedError(
            None, None, "image decoding/JPEG encoding needs Pillow, the optional dependency of "
            "tideflow's 'image' extra: pip install 'tideflow[image]' (or pip install pillow)"
        ) from None
    return Image


def _has_pil():
    try:
        import PIL  # noqa: F401
    except ImportError:
        return False
    return True


def _contents(x):
    v = _np(x)
    if v.ndim != 0:
        raise _invalid(f"contents must be scalar, got shape {list(v.shape)}")
    v = v.item()
    return v.encode() if isinstance(v, str) else bytes(v)


def _format(data):
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == _PNG_SIG:
        return "png"
    if data[:3] == b"GIF":
        return "gif"
    if data[:2] == b"BM":
        return "bmp"
    return None


# ------------------------------------------------------------------------------------------
# channel handling
# ------------------------------------------------------------------------------------------


def _gray(rgb):
    """Luma with weights .299, .587, .114 (as libpng/libjpeg), rounded, in the input dtype."""
    y = rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114
    return np.floor(y + 0.5).astype(rgb.dtype)[..., None]


def _set_channels(img, channels):
    """``img`` [h, w, c] (c in 1..4: gray, gray+alpha, rgb, rgba) with ``channels`` channels."""
    c = img.shape[-1]
    if channels == 0 or channels == c:
        return img
    top = np.iinfo(img.dtype).max
    color = img[..., :3] if c >= 3 else np.repeat(img[..., :1], 3, axis=-1)
    alpha = img[..., -1:] if c in (2, 4) else np.full(img.shape[:-1] + (1,), top, img.dtype)
    if channels == 1:
        return img[..., :1] if c <= 2 else _gray(color)
    if channels == 2:
        return np.concatenate([img[..., :1] if c <= 2 else _gray(color), alpha], -1)
    if channels == 3:
        return color
    return np.concatenate([color, alpha], -1)


def _check_channels(channels, allowed):
    if channels not in allowed:
        head = ", ".join(map(str, allowed[:-1]))
        raise _invalid(f"channels must be {head}{',' if len(allowed) > 2 else ''} or "
                       f"{allowed[-1]}, got {channels}")  # TF's words: "0, 1, 3, or 4"


# ------------------------------------------------------------------------------------------
# PNG (own encoder; own decoder for 16-bit)
# ------------------------------------------------------------------------------------------


def _chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data +
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def _filter_rows(rows, bpp, allowed=(0, 1, 2, 3, 4)):
    """[h, 1 + stride] uint8: each row prefixed by the PNG filter type chosen for it (None,
    Sub, Up, Average, Paeth; the one with the smallest sum of |bytes as int8|), as libpng's
    adaptive filtering, so smooth images compress as small as TF's PNGs."""
    x = rows.astype(np.int16)
    a = np.zeros_like(x)
    a[:, bpp:] = x[:, :-bpp] if bpp < x.shape[1] else 0
    b = np.zeros_like(x)
    b[1:] = x[:-1]
    c = np.zeros_like(x)
    c[1:] = a[:-1]
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    paeth = np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))
    cands = np.stack([x, x - a, x - b, x - ((a + b) >> 1), x - paeth]).astype(np.uint8)
    cost = np.abs(cands.view(np.int8).astype(np.int32)).sum(axis=2)
    if len(allowed) < 5:
        cost[[f for f in range(5) if f not in allowed]] = np.iinfo(np.int32).max
    best = cost.argmin(axis=0)
    out = np.empty((rows.shape[0], rows.shape[1] + 1), np.uint8)
    out[:, 0] = best
    out[:, 1:] = cands[best, np.arange(rows.shape[0])]
    return out


def encode_png_bytes(img, compression=-1):
    """PNG bytes of a uint8/uint16 [h, w, c] array, c in 1..4, rows filtered as libpng's
    default does (per row, the filter whose output has the smallest sum of |signed bytes|)."""
    h, w, c = img.shape
    depth = 16 if img.dtype == np.uint16 else 8
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    raw = np.ascontiguousarray(img.astype(">u2" if depth == 16 else np.uint8))
    rows = raw.reshape(h, -1).view(np.uint8).reshape(h, -1)
    # as libpng: one row leaves no Up/Average/Paeth, one column no Sub/Average/Paeth
    allowed = [f for f in range(5) if not (h == 1 and f in (2, 3, 4) or
                                           w == 1 and f in (1, 3, 4))]
    body = _filter_rows(rows, c * depth // 8, allowed).tobytes()
    level = 6 if compression < 0 else min(int(compression), 9)
    return (_PNG_SIG + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, 0))
            + _chunk(b"IDAT", _png_deflate(body, level, len(allowed) > 1))
            + _chunk(b"IEND", b""))


def _png_deflate(body, level, filtered):
    """``body`` deflated as libpng does: Z_FILTERED when rows are filtered, the window cut to
    what the image needs, then the header's window field cut further (its optimize_cmf)."""
    size = len(body)
    bits, half = 15, 1 << 14
    if size <= 16384:
        while size + 262 <= half:
            half >>= 1
            bits -= 1
    co = zlib.compressobj(level, zlib.DEFLATED, max(bits, 9), 8,
                          zlib.Z_FILTERED if filtered else zlib.Z_DEFAULT_STRATEGY)
    z = bytearray(co.compress(body) + co.flush())
    if size <= 16384 and z[0] & 0x0F == 8 and z[0] & 0xF0 <= 0x70:
        cinfo = z[0] >> 4
        half = 1 << (cinfo + 7)
        if size <= half:
            while True:
                half >>= 1
                cinfo -= 1
                if not (cinfo > 0 and size <= half):
                    break
            z[0] = (z[0] & 0x0F) | (cinfo << 4)
            flg = z[1] & 0xE0
            z[1] = flg + 0x1F - ((z[0] << 8) + flg) % 0x1F
    return bytes(z)


def _png_header(data):
    if len(data) < 33 or data[:8] != _PNG_SIG or data[12:16] != b"IHDR":
        raise _invalid("Invalid PNG header, data size " + str(len(data)))
    w, h, depth, color_type, _, _, interlace = struct.unpack(">IIBBBBB", data[16:29])
    return w, h, depth, color_type, interlace


def _unfilter(raw, h, stride, bpp):
    rows = np.frombuffer(raw, np.uint8)
    if rows.size != h * (stride + 1):
        raise _invalid("Invalid PNG data: truncated image data")
    rows = rows.reshape(h, stride + 1)
    out = np.zeros((h, stride), np.uint8)
    prev = np.zeros(stride, np.int64)
    for y in range(h):
        ft, line = rows[y, 0], rows[y, 1:].astype(np.int64)
        if ft == 0:
            cur = line
        elif ft == 1:  # Sub: a running sum per byte lane
            cur = np.cumsum(line.reshape(-1, bpp), axis=0).reshape(-1) & 0xFF
        elif ft == 2:
            cur = (line + prev) & 0xFF
        elif ft in (3, 4):
            cur = np.zeros(stride, np.int64)
            for x in range(0, stride, bpp):
                b = prev[x:x + bpp]
                a = cur[x - bpp:x] if x else np.zeros(bpp, np.int64)
                if ft == 3:
                    pred = (a + b) >> 1
                else:
                    c = prev[x - bpp:x] if x else np.zeros(bpp, np.int64)
                    p = a + b - c
                    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
                    pred = np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))
                cur[x:x + bpp] = (line[x:x + bpp] + pred) & 0xFF
        else:
            raise _invalid(f"Invalid PNG data: bad filter type {ft}")
        out[y] = cur
        prev = cur
    return out


def _decode_png_own(data):
    """A non-interlaced 8- or 16-bit gray/rgb(+alpha) PNG as a [h, w, c] uint8/uint16 array."""
    w, h, depth, color_type, _ = _png_header(data)
    c = {0: 1, 4: 2, 2: 3, 6: 4}.get(color_type)
    if c is None or depth not in (8, 16):
        raise _invalid(f"Invalid PNG data: color type {color_type} at {depth} bits")
    nb = depth // 8
    idat, pos = [], 8
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat.append(data[pos + 8:pos + 8 + n])
        elif kind == b"IEND":
            break
        pos += 12 + n
    try:
        raw = zlib.decompress(b"".join(idat))
    except zlib.error as e:
        raise _invalid(f"Invalid PNG data: {e}") from None
    rows = _unfilter(raw, h, w * c * nb, c * nb)
    if nb == 1:
        return rows.reshape(h, w, c)
    return rows.view(">u2").reshape(h, w, c).astype(np.uint16)


def _pil_open(data, what):
    image = _pil()
    try:
        im = image.open(io.BytesIO(data))
        im.load()
        return im
    except _PIL_ERRORS as e:
        raise _invalid(f"Invalid {what} data or crop window, data size {len(data)}: {e}") from None


def _pil_array(im):
    """A Pillow image as [h, w, c] uint8 (or uint16 for 16-bit gray), c its natural count."""
    mode = im.mode
    if mode in ("I;16", "I;16B", "I;16L", "I;16N", "I"):
        return np.asarray(im).astype(np.uint16)[..., None]
    if mode == "1":
        im = im.convert("L")
    elif mode in ("P", "PA"):
        im = im.convert("RGBA" if mode == "PA" or "transparency" in im.info else "RGB")
    elif mode not in ("L", "LA", "RGB", "RGBA"):
        im = im.convert("RGB")
    a = np.asarray(im)
    return a[..., None] if a.ndim == 2 else a


def _check_png_chunks(data):
    """libpng's verdict on the chunk stream, in TF 1.15's words: a stream that ends, or a
    critical chunk whose CRC fails, before the first IDAT's header has been read (what TF's
    header step reads) is a bad header; after it, through IEND and its CRC (TF reads the
    end too), bad data. An ancillary chunk whose CRC fails libpng skips with a warning: the
    data comes back without such chunks."""
    n = len(data)
    pos, in_data, skipped = 8, False, []
    while True:
        if pos + 8 > n:
            break
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        in_data = in_data or kind == b"IDAT"
        end = pos + 12 + length
        if end > n:
            break
        if zlib.crc32(data[pos + 4:end - 4]) != struct.unpack(">I", data[end - 4:end])[0]:
            if not kind[0] & 0x20:
                break
            skipped.append((pos, end))
        if kind == b"IEND":
            for a, b in reversed(skipped):
                data = data[:a] + data[b:]
            return data
        pos = end
    if in_data:
        raise _invalid(f"Invalid PNG data, size {n}")
    raise _invalid(f"Invalid PNG header, data size {n}")


def _decode_png(data, channels, dtype):
    if data[:8] != _PNG_SIG:
        raise _invalid("Invalid PNG data, size " + str(len(data)))
    _, _, depth, color_type, interlace = _png_header(data)
    size, data = len(data), _check_png_chunks(data)
    own = not interlace and color_type in (0, 2, 4, 6)
    try:
        if own and (depth == 16 or (depth == 8 and not _has_pil())):
            img = _decode_png_own(data)
        else:
            img = _pil_array(_pil_open(data, "PNG"))
    except errors.InvalidArgumentError:
        # (a bad zlib stream or filter byte: libpng fails while reading the rows)
        raise _invalid(f"Invalid PNG data, size {size}") from None
    had_alpha = img.shape[-1] in (2, 4)

    def to_gray(img):
        if channels in (1, 2) and img.shape[-1] >= 3 and img.dtype == np.uint8:
            # libpng's rgb_to_gray as TF sets it (0.299, 0.587 in 1/32768ths, truncated)
            rgb = img[..., :3].astype(np.uint32)
            y = (rgb[..., 0] * 9797 + rgb[..., 1] * 19234 + rgb[..., 2] * 3737) >> 15
            img = np.concatenate([y.astype(np.uint8)[..., None], img[..., 3:]], -1)
        return img

    img = to_gray(img)  # (an 8-bit image is grayed before it is widened to 16 bits, as libpng)
    want16 = dtype == dtypes.uint16
    if want16 and img.dtype == np.uint8:
        img = img.astype(np.uint16) * 257
    elif not want16 and img.dtype == np.uint16:
        img = (img >> 8).astype(np.uint8)
    img = _set_channels(to_gray(img), channels)
    if not had_alpha and channels in (2, 4) and depth < 8:
        # TF's libpng filler for an added alpha is the file's largest sample ((1 << depth) - 1:
        # 15 for a 4-bit palette, 1 for a 1-bit gray image), not opaque
        img[..., -1] = ((1 << depth) - 1) * (257 if want16 else 1)
    return img


def _fancy_upsample(c, vertical):
    """libjpeg's "fancy" (triangle filter) 2x chroma upsampling, h2v2 or h2v1, with its
    rounding biases; edge samples repeat. int16 holds every sum (at most 16 * 255 + 8)."""
    c = c.astype(np.int16)
    if vertical:
        s = np.empty((2 * c.shape[0], c.shape[1]), np.int16)
        near = c * 3
        up, down = s[0::2], s[1::2]
        up[...] = near
        up[1:] += c[:-1]
        up[0] += c[0]
        down[...] = near
        down[:-1] += c[1:]
        down[-1] += c[-1]
        c = s
        bias_even, bias_odd, shift = 8, 7, 4
    else:
        bias_even, bias_odd, shift = 1, 2, 2
    out = np.empty((c.shape[0], 2 * c.shape[1]), np.int16)
    near = c * 3
    even, odd = out[:, 0::2], out[:, 1::2]
    np.add(near, bias_even, out=even)
    even[:, 1:] += c[:, :-1]
    even[:, 0] += c[:, 0]
    np.add(near, bias_odd, out=odd)
    odd[:, :-1] += c[:, 1:]
    odd[:, -1] += c[:, -1]
    out >>= shift
    return out


@functools.cache
def _ycc_tables():
    """libjpeg's integer YCbCr->RGB tables: red and blue offsets by Cr and Cb, and the green
    offset of each (Cb, Cr) pair (64K int16, so green is one lookup)."""
    x = np.arange(256, dtype=np.int64) - 128

    def fix(v):
        return int(v * 65536 + 0.5)

    cr_r = ((fix(1.402) * x + 32768) >> 16).astype(np.int16)
    cb_b = ((fix(1.772) * x + 32768) >> 16).astype(np.int16)
    green = (((-fix(0.34414) * x + 32768)[:, None] + (-fix(0.71414) * x)[None, :]) >> 16)
    return cr_r, cb_b, green.astype(np.int16)


def _fancy_ycc_to_rgb(ycc, sampling, cols=None):
    """RGB from decoded YCbCr planes whose chroma (4:2:0 or 4:2:2) was repeated: libjpeg's
    fancy upsampling (none for a chroma width of 2 or less, as libjpeg) and its integer
    YCbCr->RGB conversion. With ``cols`` (a crop's x, width) those columns are redone as
    libjpeg's cropped decode makes them: upsampled as an image of their own from the
    16-aligned column at or left of x to the crop's right end."""
    def convert(planes, fancy):
        h, w = planes.shape[:2]
        y = planes[..., 0].astype(np.int16)
        if not fancy:
            cb, cr = planes[..., 1], planes[..., 2]
        else:
            rows = slice(None, None, 2 if sampling == 2 else 1)
            cb, cr = (_fancy_upsample(planes[rows, ::2, k], sampling == 2)[:h, :w]
                      for k in (1, 2))
        cr_r, cb_b, green = _ycc_tables()
        rgb = np.empty((h, w, 3), np.uint8)
        channel = np.empty((h, w), np.int16)
        for k, offset in enumerate((cr_r[cr], green[cb, cr], cb_b[cb])):
            np.add(y, offset, out=channel)
            np.clip(channel, 0, 255, out=channel)
            rgb[..., k] = channel
        return rgb

    fancy = (ycc.shape[1] + 1) // 2 > 2
    rgb = convert(ycc, fancy)
    if cols is not None:
        x, width = cols
        start, end = x // 16 * 16, x + width
        if 0 <= x and width > 0 and end <= ycc.shape[1] and (start > 0 or end < ycc.shape[1]):
            # libjpeg redoes its choice only for a crop one chroma sample wide
            rgb[:, x:end] = convert(ycc[:, start:end], fancy and end - start > 2)[:, x - start:]
    return rgb


def _decode_jpeg(data, channels, ratio=1, fancy_upscaling=True, dct_method="", cols=None):
    """``cols`` (x, width): the columns a crop window keeps, which libjpeg's cropped decode
    upsamples as an image of their own (from the 16-pixel column at or left of x)."""
    if _format(data) != "jpeg":
        raise _invalid("Invalid JPEG data or crop window, data size " + str(len(data)))
    image = _pil()
    try:
        im = image.open(io.BytesIO(data))
        fast = dct_method != "INTEGER_ACCURATE"
        if ratio > 1:
            # a scaled decode: libjpeg scales subsampled chroma up by its IDCT (no upsampling
            # is left), so Pillow's draft mode (the fast IDCT) is TF's decode bit for bit
            w, h = im.size
            im.draft("L" if channels == 1 else im.mode, (max(1, w // ratio), max(1, h // ratio)))
            im.decoderconfig = (im.decoderconfig[0], int(fast))
        if channels == 1 and im.mode != "L":
            im.draft("L", im.size)
        # TF's default dct_method ("" = INTEGER_FAST) is libjpeg's fast integer IDCT; Pillow
        # decodes with the accurate one unless in draft mode, which also turns fancy chroma
        # upsampling off: draft where that changes nothing TF would do (no upsampled chroma,
        # or fancy_upscaling=False), so the pixels are TF's bit for bit; a subsampled color
        # JPEG with TF's fancy upsampling is upsampled here (below)
        from PIL import JpegImagePlugin

        sampling = JpegImagePlugin.get_sampling(im)
        no_upsampling = im.mode == "L" or sampling in (-1, 0)
        if (fast and fancy_upscaling and ratio == 1 and im.mode == "RGB" and sampling in (1, 2)
                and im.info.get("adobe_transform", 1)):
            # TF's default: the fast IDCT and libjpeg's fancy chroma upsampling, which Pillow
            # has no mode for: the planes are decoded (fast IDCT, chroma repeated) and the
            # upsampling and color conversion are libjpeg's, done here
            im.draft("YCbCr", None)
            im.decoderconfig = (1, 1)
            im.load()
            return _fancy_ycc_to_rgb(np.asarray(im), sampling, cols)
        if fast and ratio == 1 and (no_upsampling or not fancy_upscaling):
            scale = im.decoderconfig[0] if getattr(im, "decoderconfig", ()) else 1
            im.decoderconfig = (scale, 1)
        im.load()
    except _PIL_ERRORS as e:
        del e  # TF's words, without the decoder's
        raise _invalid(f"Invalid JPEG data or crop window, data size {len(data)}") from None
    if im.mode == "CMYK":
        if channels == 1:  # (libjpeg has no CMYK to gray conversion)
            raise _invalid(f"Invalid JPEG data or crop window, data size {len(data)}")
        # TF's own conversion of libjpeg's (Adobe-inverted) CMYK: channel * K / 255, truncated
        inv = 255 - np.asarray(im).astype(np.int32)
        return (inv[..., :3] * inv[..., 3:] // 255).astype(np.uint8)
    if channels == 1 and im.mode != "L":
        im = im.convert("L")
    elif channels == 3 and im.mode != "RGB":
        im = im.convert("RGB")
    return _pil_array(im)


def _decode_gif(data):
    if _format(data) != "gif":
        raise _invalid("Invalid GIF data, size " + str(len(data)))
    im = _pil_open(data, "GIF")
    frames = []
    try:
        for i in range(getattr(im, "n_frames", 1)):
            im.seek(i)
            frames.append(np.asarray(im.convert("RGB")))
    except _PIL_ERRORS as e:
        raise _invalid(f"Invalid GIF data, size {len(data)}: {e}") from None
    return np.stack(frames)


def _decode_bmp(data, channels):
    """TF 1.15's BMP reader: uncompressed rows of 1, 3 or 4 bytes a pixel (BGR(A) turned to
    RGB(A), a 4th byte kept as it is); ``channels``, when set, must be the file's."""
    if len(data) < 32:
        raise _invalid(f"Incomplete bmp content, requires at least 32 bytes to find the header "
                       f"size, width, height, and bpp, got {len(data)} bytes")
    if _format(data) != "bmp":
        raise _invalid("Invalid BMP data, size " + str(len(data)))
    offset, width, height = (int.from_bytes(data[k:k + 4], "little", signed=True)
                             for k in (10, 18, 22))
    depth = int.from_bytes(data[28:32], "little", signed=True) // 8
    if channels and channels != depth:
        raise _invalid(f"channels attribute {channels} does not match bits per pixel from file "
                       f"{depth}")
    if depth not in (1, 3, 4):
        raise _invalid(f"Number of channels must be 1, 3 or 4, was {depth}")
    row = (8 * depth * width + 31) // 32 * 4
    rows = abs(height)
    if width <= 0 or rows == 0 or offset + (rows - 1) * row + width * depth > len(data):
        raise _invalid("Invalid bmp, data size " + str(len(data)))
    pixels = data[offset:offset + rows * row].ljust(rows * row, b"\0")  # (a short last pad)
    img = np.frombuffer(pixels, np.uint8).reshape(rows, row)
    img = img[:, :width * depth].reshape(rows, width, depth)
    if height > 0:  # bottom-up rows
        img = img[::-1]
    if depth >= 3:
        img = img[..., [2, 1, 0, 3][:depth]]
    return np.ascontiguousarray(img)


# ------------------------------------------------------------------------------------------
# decode kernels
# ------------------------------------------------------------------------------------------


def _decode_other_format(data, fmt, channels, dtype):
    """TF 1.x's DecodeJpeg and DecodePng share one kernel that reads the format from the
    first bytes: a PNG given to decode_jpeg, or a JPEG or single-frame GIF given to
    decode_png, decodes as that format (3-D); an animated GIF is refused."""
    if fmt == "png":
        _check_channels(channels, (0, 1, 3, 4))
        return _decode_png(data, channels, dtype)
    if dtype != dtypes.uint8:
        raise _invalid(f"{fmt.upper()} does not support uint16 output")  # (TF's words)
    if fmt == "jpeg":
        if channels not in (0, 1, 3):
            raise _invalid(f"channels must be 0, 1, or 3 for JPEG, got {channels}")
        return _decode_jpeg(data, channels)
    if channels not in (0, 3):
        raise _invalid(f"channels must be 0 or 3 for GIF, got {channels}")
    frames = _decode_gif(data)
    if frames.shape[0] != 1:
        raise _invalid(f"Got {frames.shape[0]} frames, but animated gifs can only be decoded "
                       "by tf.image.decode_gif or tf.image.decode_image")
    return frames[0]


def _unknown_format(data):
    """TF 1.15's DecodePng/DecodeJpeg/DecodeGif kernel (one for the three) on bytes that are
    none of its formats (a BMP too)."""
    from tideflow.ops.io_ops import _c_escape

    if not data:
        return _invalid("Expected image (JPEG, PNG, or GIF), got empty file")
    return _invalid("Expected image (JPEG, PNG, or GIF), got unknown format starting with "
                    f"'{_c_escape(data[:16])}'")


def _decode_png_kernel(contents, *, channels, dtype):
    _check_channels(channels, (0, 1, 3, 4))
    data = _contents(contents)
    fmt = _format(data)
    if fmt in ("jpeg", "gif"):
        return _decode_other_format(data, fmt, channels, dtype)
    if fmt != "png":
        raise _unknown_format(data)
    return _decode_png(data, channels, dtype)


def _decode_jpeg_kernel(contents, *, channels, ratio, fancy_upscaling, dct_method):
    return _decode_jpeg_contents(contents, channels, ratio, fancy_upscaling, dct_method)


def _decode_jpeg_contents(contents, channels, ratio, fancy_upscaling, dct_method, cols=None):
    _check_channels(channels, (0, 1, 3, 4))  # (the kernel's check, shared with DecodePng)
    if ratio not in (1, 2, 4, 8):
        raise _invalid(f"ratio must be 1, 2, 4, or 8, got {ratio}")
    data = _contents(contents)
    fmt = _format(data)
    if fmt in ("png", "gif"):
        return _decode_other_format(data, fmt, channels, dtypes.uint8)
    if fmt != "jpeg":
        raise _unknown_format(data)
    if channels == 4:
        raise _invalid("channels must be 0, 1, or 3 for JPEG, got 4")
    return _decode_jpeg(data, channels, ratio, fancy_upscaling, dct_method, cols)


def _decode_and_crop_jpeg_kernel(contents, crop_window, *, channels, ratio, fancy_upscaling,
                                 dct_method):
    window = _np(crop_window).astype(np.int64).reshape(-1)
    if window.shape != (4,):
        raise _invalid(f"crop_window must be 1-D of 4 elements, got shape {list(window.shape)}")
    y, x, h, w = (int(v) for v in window)
    image = _decode_jpeg_contents(contents, channels, ratio, fancy_upscaling, dct_method,
                                  cols=(x, w))
    height, width = image.shape[:2]
    if y < 0 or x < 0 or h <= 0 or w <= 0 or y + h > height or x + w > width:
        raise _invalid(f"Invalid JPEG data or crop window, data size {len(_contents(contents))}"
                       f", crop window [{y}, {x}, {h}, {w}] of an image of {height}x{width}")
    return np.ascontiguousarray(image[y:y + h, x:x + w])


def _decode_bmp_kernel(contents, *, channels):
    _check_channels(channels, (0, 1, 3, 4))
    return _decode_bmp(_contents(contents), channels)


def _decode_gif_kernel(contents):
    data = _contents(contents)
    fmt = _format(data)
    if fmt in (None, "bmp"):
        raise _unknown_format(data)
    if fmt == "jpeg":  # TF 1.15 decodes by the first bytes: one RGB frame
        return _decode_jpeg(data, 3)[None]
    if fmt == "png":
        return _decode_png(data, 3, dtypes.uint8)[None]
    return _decode_gif(data)


def _convert_np(img, dtype):
    """convert_image_dtype's rules on a decoded uint8/uint16 array."""
    dst = np.dtype(dtype.as_numpy_dtype)
    if img.dtype == dst:
        return img
    if dst.kind == "f":
        return (img.astype(dst) * dst.type(1.0 / np.iinfo(img.dtype).max)).astype(dst)
    src_max, dst_max = np.iinfo(img.dtype).max, np.iinfo(dst).max
    if src_max > dst_max:
        return (img // ((src_max + 1) // (dst_max + 1))).astype(dst)
    return img.astype(dst) * dst.type((dst_max + 1) // (src_max + 1))


def _decode_image_kernel(contents, *, channels, dtype, expand_animations):
    data = _contents(contents)
    fmt = _format(data)
    if fmt is None:
        # TF 1.15's decode_image is a cond of decoders ending in an Assert: its words
        raise _invalid("assertion failed: [Unable to decode bytes as JPEG, PNG, GIF, or BMP]")
    if fmt == "png":
        _check_channels(channels, (0, 1, 3, 4))
        img = _decode_png(data, channels, dtypes.uint16 if dtype != dtypes.uint8 else
                          dtypes.uint8)
    elif fmt == "jpeg":
        if channels not in (0, 1, 3):  # (TF 1.15's Assert in its JPEG branch)
            raise _invalid("assertion failed: [Channels must be in (None, 0, 1, 3) when "
                           "decoding JPEG images]")
        img = _decode_jpeg(data, channels)
    elif fmt == "bmp":
        # TF 1.15's BMP branch refuses only channels=1 and decodes the file's channels
        if channels == 1:
            raise _invalid("assertion failed: [Channels must be in (None, 0, 3) when decoding "
                           "BMP images]")
        img = _decode_bmp(data, 0)
    else:
        if channels not in (0, 3):
            raise _invalid("assertion failed: [Channels must be in (None, 0, 3) when decoding "
                           "GIF images]")
        img = _decode_gif(data)
        if not expand_animations:
            img = img[0]
    return _convert_np(img, dtype)


def _decode_shape(rank=3, channel_attr="channels", fixed=None):
    def fn(op):
        _check_rank(_in(op, 0), 0)
        c = fixed if fixed is not None else op._attrs.get(channel_attr, 0)
        return [[None] * (rank - 1) + [c or None]]

    return fn


def _decode_image_shape(op):
    _check_rank(_in(op, 0), 0)
    if op._attrs["expand_animations"]:
        return [TensorShape(None)]
    # TF 1.15's BMP branch decodes without the channels, so the merged shape never has them
    return [[None, None, None]]


_DECODE = {"inputs": ["contents: string"], "outputs": ["image: dtype"], "differentiable": False}

op_registry.declare(
    "DecodePng",
    attrs=["channels: int = 0", "dtype: {uint8, uint16} = DT_UINT8"],
    shape=_decode_shape(),
    kernel=_decode_png_kernel,
    **_DECODE,
)
op_registry.declare(
    "DecodeJpeg",
    inputs=["contents: string"],
    outputs=["image: uint8"],
    attrs=["channels: int = 0", "ratio: int = 1", "fancy_upscaling: bool = true",
           "try_recover_truncated: bool = false", "acceptable_fraction: float = 1.0",
           "dct_method: string = ''"],
    shape=_decode_shape(),
    kernel=_decode_jpeg_kernel,
    differentiable=False,
)


def _decode_and_crop_shape(op):
    _check_rank(_in(op, 0), 0)
    _check_rank(_in(op, 1), 1)
    n = _in(op, 1).dims[0].value if _in(op, 1).ndims == 1 else None
    if n is not None and n != 4:
        raise ValueError(f"Dimension must be 4 but is {n}")
    h = w = None
    window = ops.constant_value(op._inputs[1])
    if window is not None and np.size(window) == 4:
        # TF's shape function reads a constant crop window's height and width (-1: unknown;
        # a lower one fails as a dimension)
        h, w = (None if v == -1 else int(v) for v in np.ravel(window)[2:])
    return [[h, w, op._attrs.get("channels", 0) or None]]


op_registry.declare(
    "DecodeAndCropJpeg",
    inputs=["contents: string", "crop_window: int32"],
    outputs=["image: uint8"],
    attrs=["channels: int = 0", "ratio: int = 1", "fancy_upscaling: bool = true",
           "try_recover_truncated: bool = false", "acceptable_fraction: float = 1.0",
           "dct_method: string = ''"],
    shape=_decode_and_crop_shape,
    kernel=_decode_and_crop_jpeg_kernel,
    differentiable=False,
)
op_registry.declare(
    "DecodeBmp",
    inputs=["contents: string"],
    outputs=["image: uint8"],
    attrs=["channels: int = 0"],
    shape=_decode_shape(),
    kernel=_decode_bmp_kernel,
    differentiable=False,
)
op_registry.declare(
    "DecodeGif",
    inputs=["contents: string"],
    outputs=["image: uint8"],
    shape=_decode_shape(4, fixed=3),
    kernel=_decode_gif_kernel,
    differentiable=False,
)
op_registry.declare(
    "DecodeImage",
    attrs=["channels: int = 0", "dtype: {uint8, uint16, float} = DT_UINT8",
           "expand_animations: bool = true"],
    shape=_decode_image_shape,
    kernel=_decode_image_kernel,
    **_DECODE,
)


def _extract_jpeg_shape_kernel(contents, *, output_type):
    data = _contents(contents)
    if _format(data) != "jpeg":
        raise _invalid("Invalid JPEG data, size " + str(len(data)))
    im = _pil_open(data, "JPEG")
    c = {"L": 1, "RGB": 3, "CMYK": 4}.get(im.mode, len(im.getbands()))
    return np.array([im.size[1], im.size[0], c], output_type.as_numpy_dtype)


op_registry.declare(
    "ExtractJpegShape",
    inputs=["contents: string"],
    outputs=["image_shape: output_type"],
    attrs=["output_type: {int32, int64} = DT_INT32"],
    shape=lambda op: [[3]],
    kernel=_extract_jpeg_shape_kernel,
    differentiable=False,
)


# ------------------------------------------------------------------------------------------
# encode kernels
# ------------------------------------------------------------------------------------------


def _image3(x, allowed):
    img = _np(x)
    if img.ndim != 3:
        raise _invalid(f"image must be 3-dimensional{list(img.shape)}")
    if img.shape[-1] not in allowed:
        # TF's words: EncodeJpeg names the image's shape, EncodePng the channel count
        if len(allowed) == 2:
            raise _invalid(f"image must have 1 or 3 channels, got {_shape_str(img.shape)}")
        raise _invalid(f"image must have 1, 2, 3, or 4 channels, got {img.shape[-1]}")
    return img


def _encode_png_kernel(image, *, compression):
    img = _image3(image, (1, 2, 3, 4))
    if not -1 <= compression <= 9:
        raise _invalid(f"compression should be in [-1,9], got {compression}")
    return np.array(encode_png_bytes(img, compression), dtype=object)


def _encode_jpeg_kernel(image, *, format, quality, progressive, optimize_size,
                        chroma_downsampling, density_unit, x_density, y_density,
                        xmp_metadata):
    img = _image3(image, (1, 3))
    want = {"": img.shape[-1], "grayscale": 1, "rgb": 3}[format]
    if want != img.shape[-1]:
        raise _invalid(f"image must have {want} channels for format '{format}', got "
                       f"{img.shape[-1]}")
    if not 0 <= quality <= 100:
        raise _invalid(f"quality must be in [0,100], got {quality}")
    image_mod = _pil()
    im = image_mod.fromarray(img[..., 0] if want == 1 else img, "L" if want == 1 else "RGB")
    # a grayscale JPEG's one component is sampled 1x1, as TF writes it
    kw = {"quality": quality, "progressive": progressive, "optimize": optimize_size,
          "dpi": (x_density, y_density),
          "subsampling": 2 if chroma_downsampling and want == 3 else 0}
    if xmp_metadata:
        kw["xmp"] = xmp_metadata.encode() if isinstance(xmp_metadata, str) else xmp_metadata
    buf = io.BytesIO()
    im.save(buf, "JPEG", **kw)
    data = bytearray(buf.getvalue())
    if data[2:4] == b"\xff\xe0" and data[6:11] == b"JFIF\0":
        # Pillow writes dots per inch: the JFIF density unit is set as TF's (2: per cm)
        data[13] = 1 if density_unit == "in" else 2
    return np.array(bytes(data), dtype=object)


def _encode_shape(op):
    s = _in(op, 0)
    _check_rank(s, 3)
    return [[]]


op_registry.declare(
    "EncodePng",
    inputs=["image: T"],
    outputs=["contents: string"],
    attrs=["compression: int = -1", "T: {uint8, uint16} = DT_UINT8"],
    shape=_encode_shape,
    kernel=_encode_png_kernel,
    differentiable=False,
)
op_registry.declare(
    "EncodeJpeg",
    inputs=["image: uint8"],
    outputs=["contents: string"],
    attrs=["format: {'', 'grayscale', 'rgb'} = ''", "quality: int = 95",
           "progressive: bool = false", "optimize_size: bool = false",
           "chroma_downsampling: bool = true", "density_unit: {'in', 'cm'} = 'in'",
           "x_density: int = 300", "y_density: int = 300", "xmp_metadata: string = ''"],
    shape=_encode_shape,
    kernel=_encode_jpeg_kernel,
    differentiable=False,
)


# ------------------------------------------------------------------------------------------
# public wrappers
# ------------------------------------------------------------------------------------------


def _op(op_type, inputs, attrs, name):
    return ops.apply_op(op_type, inputs, attrs, name=name)._outputs[0]


def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None):
    """Decodes a PNG into a uint8/uint16 [h, w, channels] tensor (0: the file's channels)."""
    return _op("DecodePng", [contents], {"channels": channels, "dtype": dtype}, name)


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True,
                try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
    """Decodes a JPEG into a uint8 [h, w, channels] tensor, downscaled by ``ratio``."""
    return _op("DecodeJpeg", [contents], {
        "channels": channels, "ratio": ratio, "fancy_upscaling": fancy_upscaling,
        "try_recover_truncated": try_recover_truncated,
        "acceptable_fraction": float(acceptable_fraction), "dct_method": dct_method}, name)


def decode_bmp(contents, channels=0, name=None):
    """Decodes a BMP into a uint8 [h, w, channels] tensor."""
    return _op("DecodeBmp", [contents], {"channels": channels}, name)


def decode_gif(contents, name=None):
    """Decodes a (possibly animated) GIF into a uint8 [frames, h, w, 3] tensor."""
    return _op("DecodeGif", [contents], {}, name)


def _decode_image_tf_ops(dtype, expand_animations):
    """How many ops TF 1.15's decode_image makes in a graph (its nested Switch/Merge conds
    over JPEG, PNG, GIF and BMP): 76, 3 more to take a GIF's first frame, and 2 more for each
    branch whose decoded dtype (uint8; PNG's uint16 unless uint8 is asked) is converted."""
    sources = [dtypes.uint8] * 3 + [dtypes.uint8 if dtype == dtypes.uint8 else dtypes.uint16]
    return 76 + (0 if expand_animations else 3) + 2 * sum(src != dtype for src in sources)


def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None,
                 expand_animations=True):
    """Decodes a BMP, GIF, JPEG or PNG by its first bytes; converts to ``dtype`` as
    ``convert_image_dtype`` does. GIFs give 4-D results unless ``expand_animations`` is False."""
    from tideflow.ops import array_ops, string_ops

    with ops.name_scope(name, "decode_image"):
        if channels not in (None, 0, 1, 3, 4):
            raise ValueError("channels must be in (None, 0, 1, 3, 4)")
        dtype = dtypes.as_dtype(dtype)
        # the op decodes to uint8, uint16 or float32; other dtypes convert after it
        op_dtype = dtype if dtype in (dtypes.uint8, dtypes.uint16, dtypes.float32) else (
            dtypes.float32 if dtype.is_floating else dtypes.uint16)
        attrs = {"channels": channels or 0, "dtype": op_dtype,
                 "expand_animations": expand_animations}

        def decode(op_name):
            out = _op("DecodeImage", [contents], attrs, op_name)
            if op_dtype != dtype:
                from tideflow.ops.image_color_ops import convert_image_dtype

                out = convert_image_dtype(out, dtype)
            return out

        graph = ops.get_default_graph()
        if getattr(graph, "_counts_own_ops", False):
            # in a tf.data function TF 1.15 tests the first bytes (Substr, is_jpeg) and
            # decodes in a functional If (cond_jpeg) and its Identity: the same ops here, the
            # one DecodeImage op standing for the If
            string_ops.substr(contents, 0, 3)
            is_jpeg(contents)
            return array_ops.identity(decode("cond_jpeg"), name="cond_jpeg/Identity")
        # one DecodeImage op (and TF's output name) where TF builds nested conds: their ids
        # are skipped, so later ops (and random ops' seeds) number as in TF
        first = graph._next_id
        out = array_ops.identity(decode(None), name="cond_jpeg/Merge")
        graph._skip_op_ids(to=first + _decode_image_tf_ops(dtype, expand_animations))
        return out


def _no_float_array(image, allowed):
    """TF refuses a float list for an image op that takes integer pixels (TypeError); a NumPy
    array is cast to the op's default dtype instead (make_tensor_proto's astype, as TF 1.15)."""
    if not isinstance(image, (ops.Tensor, np.ndarray, np.generic)):
        arr = np.asarray(image)
        if arr.dtype.kind in "fc":
            kind = dtypes.float32 if arr.dtype == np.float64 else dtypes.as_dtype(arr.dtype)
            raise TypeError(f"Value passed to parameter 'image' has DataType "
                            f"{kind.name} not in list of allowed values: "
                            f"{allowed}")
    return image


def encode_png(image, compression=-1, name=None):
    """Encodes a uint8/uint16 [h, w, c] image (c in 1..4) as PNG bytes."""
    image = _no_float_array(image, "uint8, uint16")
    return _op("EncodePng", [image], {"compression": compression}, name)


def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300,
                xmp_metadata="", name=None):
    """Encodes a uint8 [h, w, 1 or 3] image as JPEG bytes."""
    return _op("EncodeJpeg", [image], {
        "format": format, "quality": quality, "progressive": progressive,
        "optimize_size": optimize_size, "chroma_downsampling": chroma_downsampling,
        "density_unit": density_unit, "x_density": x_density, "y_density": y_density,
        "xmp_metadata": xmp_metadata}, name)


def extract_jpeg_shape(contents, output_type=dtypes.int32, name=None):
    """The [height, width, channels] of a JPEG, without decoding its pixels."""
    return _op("ExtractJpegShape", [contents], {"output_type": output_type}, name)


def is_jpeg(contents, name=None):
    """Whether ``contents`` start with the JPEG signature."""
    from tideflow.ops import math_ops, string_ops

    with ops.name_scope(name, "is_jpeg", [contents]):
        return math_ops.equal(string_ops.substr(contents, 0, 3), b"\xff\xd8\xff", name=name)
