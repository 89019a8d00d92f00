"""What the reduced-program tests share: comparing what a program printed with what TF 1.15
printed running it (text exactly; numbers exactly or to a stated relative tolerance, for
programs whose convolutions or products differ from TF's in the last float32 digits)."""

import re

import numpy as np

_NUM = re.compile(r"-?\d+\.?\d*(?:e[-+]?\d+)?")


def same_printed(printed, expected, rtol):
    """Lines equal as text with numbers masked, and numbers equal within rtol (0: exactly)."""
    assert len(printed) == len(expected), (printed, expected)
    for got, want in zip(printed, expected):
        if rtol == 0:
            assert got == want
            continue
        assert _NUM.sub("#", got) == _NUM.sub("#", want), (got, want)
        g = [float(x) for x in _NUM.findall(got)]
        w = [float(x) for x in _NUM.findall(want)]
        np.testing.assert_allclose(g, w, rtol=rtol, err_msg=want)
