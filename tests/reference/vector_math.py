"""Plain-NumPy reference of ``streamlearn/kernels/vector_math.py``: the same operations on
whole arrays (each one rounded alone, as the kernel's), so the same bits by construction;
the constants are the kernel's, checked on their own in tests/kernels/test_vector_math.py."""

from __future__ import annotations

import numpy as np

from streamlearn.kernels.vector_math import (
    _INV_LN2,
    EXP_COEFFS,
    LN2_HI,
    LN2_LO,
    SERIES_END,
    TANH_COEFFS,
    TANH_ONE,
)


def tanh(x):
    """``tanh`` as the kernel computes it: the odd Taylor series below ``SERIES_END``,
    ``1 - 2 / (e^{2|x|} + 1)`` from there, 1 from ``TANH_ONE``; the sign of ``x``."""
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    b = np.where(a >= SERIES_END, SERIES_END, a)
    b2 = b * b
    s = np.full_like(b, TANH_COEFFS[-1])
    for c in TANH_COEFFS[-2::-1]:
        s = s * b2 + c
    small = b + b * (b2 * s)
    y = 2.0 * np.where(a < TANH_ONE, a, TANH_ONE)
    y = np.where(y > 2.0 * SERIES_END, y, 2.0 * SERIES_END)
    k = np.floor(y * _INV_LN2 + 0.5)
    r = (y - k * LN2_HI) - k * LN2_LO
    p = np.full_like(r, EXP_COEFFS[-1])
    for c in EXP_COEFFS[-2::-1]:
        p = p * r + c
    e = p * ((k.astype(np.int64) + 1023) << 52).view(np.float64)
    big = 1.0 - 2.0 / (e + 1.0)
    out = np.where(a >= SERIES_END, big, small)
    out = np.where(a >= TANH_ONE, 1.0, out)
    return np.copysign(out, x)
