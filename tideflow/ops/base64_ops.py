"""EncodeBase64 / DecodeBase64: web-safe base64 (RFC 4648 section 5: '-' and '_' for '+' and
'/'), padding optional on encode and accepted or omitted on decode, as TF's kernels."""

import base64
import re

import numpy as np

from tideflow.framework import errors, op_registry, ops
from tideflow.framework.dispatch import add_dispatch_support

_VALID = re.compile(rb"^[A-Za-z0-9_-]*={0,2}$")


def _map(fn, x):
    flat = [fn(v) for v in np.asarray(x, dtype=object).reshape(-1)]
    return np.array(flat + [None], dtype=object)[:-1].reshape(np.shape(x))


def _encode_kernel(input, *, pad):
    return _map(lambda v: _encode(v, pad=pad), input)


def _decode_kernel(input):
    return _map(_decode, input)


def _encode(v, *, pad):
    out = base64.urlsafe_b64encode(bytes(v))
    return out if pad else out.rstrip(b"=")


def _decode(v):
    v = bytes(v)
    body = v.rstrip(b"=")
    pad = len(v) - len(body)
    if not _VALID.match(v) or (pad and (len(v) % 4 or pad > 2)):
        raise errors.InvalidArgumentError(None, None, "Invalid character found in base64.")
    if len(body) % 4 == 1:
        raise errors.InvalidArgumentError(None, None,
                                          "Base64 string length cannot be 1 modulo 4.")
    return base64.urlsafe_b64decode(body + b"=" * (-len(body) % 4))


op_registry.declare(
    "EncodeBase64", inputs=["input: string"], outputs=["output: string"],
    attrs=["pad: bool = false"], shape=lambda op: [op._inputs[0]._shape],
    kernel=_encode_kernel, differentiable=False,
)
op_registry.declare(
    "DecodeBase64", inputs=["input: string"], outputs=["output: string"],
    shape=lambda op: [op._inputs[0]._shape],
    kernel=_decode_kernel, differentiable=False,
)


@add_dispatch_support(elementwise=1)
def encode_base64(input, pad=False, name=None):
    """Web-safe base64 of each string ('-', '_'; '=' padding only with ``pad``)."""
    return ops.apply_op("EncodeBase64", [input], {"pad": pad}, name=name)._outputs[0]


@add_dispatch_support(elementwise=1)
def decode_base64(input, name=None):
    """Decodes web-safe base64 strings (padded or not)."""
    return ops.apply_op("DecodeBase64", [input], name=name)._outputs[0]
