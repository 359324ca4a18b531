"""Elementwise functions in plain IEEE double arithmetic, which LLVM vectorises.

Numba compiles ``math.tanh`` to a call of the C library's ``tanh`` for every element
(11.5–15 ns each on an Emerald Rapids Xeon, 7 Dec 2026): at ``n3·n4 = 1000`` enhancement
nodes about 7 % of ``online_bls_blocked``'s time per sample (README, "Timing").
:func:`tanh` here is made of additions, multiplications, one division, ``floor`` and a
bit cast only, with a select instead of branches, so a loop over it runs in vector
registers; and since each element is rounded alone (no reduction, no fused multiply-add:
Numba compiles without ``contract``), the result has the same bits at every vector
width and on every CPU, and the same as its NumPy twin ``tests/reference/vector_math.py``.

How ``tanh`` is computed, for ``a = |x|`` (the sign put back with ``copysign``):

* ``a < 0.75``: the odd Taylor series ``a + a (a² P(a²))``, ``P`` its coefficients
  ``t₃, t₅, …, t₅₉`` (from ``tanh' = 1 - tanh²``, exact fractions rounded once to double)
  by Horner's rule; the series converges for ``a < π/2``, and the 29 terms leave a
  truncation below 1e-17 relative at 0.75;
* ``0.75 <= a < 22``: ``1 - 2 / (e^{2a} + 1)``, ``e^{2a}`` as ``2^k e^r`` with
  ``k = ⌊2a / ln 2 + ½⌋``, ``r = (2a - k L_hi) - k L_lo`` (``L_hi`` = ln 2 to 31 binary
  places, so ``k L_hi`` and the first subtraction are exact), ``e^r`` by its Taylor
  polynomial of degree 13 (``|r| <= ln 2 / 2``: truncation below 4e-18), ``2^k`` built
  from its exponent bits;
* ``a >= 22``: 1 (``tanh`` rounds to 1 from 19.1 on); NaN stays NaN, ±inf gives ±1.

Error (measured against 80-bit long double on 4·10⁶ points over ``[0, 25]`` and the
subnormals, tests/kernels/test_vector_math.py): at most 2 units in the last place, as the
C library's ``tanh`` is at most 1; a bound from the steps: ``(2 ulp) q / (1 - q) + ½ ulp``
with ``q = 2 / (e^{2a} + 1) <= 0.365`` above 0.75, about 1.7 ulp.
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic, overload

__all__ = ["EXP_COEFFS", "LN2_HI", "LN2_LO", "SERIES_END", "TANH_COEFFS", "TANH_ONE", "tanh",
           "tanh_array"]

#: below it the Taylor series, from it ``1 - 2 / (e^{2a} + 1)``
SERIES_END = 0.75
#: from it ``tanh`` is 1 (it rounds to 1 from about 19.06)
TANH_ONE = 22.0


def _tanh_series(n_terms: int) -> list[float]:
    """``t₃, t₅, …`` of ``tanh a = a + t₃ a³ + t₅ a⁵ + …``, from ``tanh' = 1 - tanh²``:
    ``k t_k = -Σ_{i+j=k-1} t_i t_j`` (odd ``i, j``), exact, then rounded to double."""
    t: dict[int, Fraction] = {1: Fraction(1)}
    for k in range(3, 2 * n_terms + 2, 2):
        t[k] = -sum((t[i] * t[k - 1 - i] for i in range(1, k - 1, 2)), Fraction(0)) / k
    return [float(t[k]) for k in range(3, 2 * n_terms + 2, 2)]


def _ln2_split() -> tuple[float, float]:
    """``ln 2 = L_hi + L_lo`` with ``L_hi`` a multiple of 2⁻³¹ (``k L_hi`` exact for
    ``|k| < 2²¹``) and ``L_lo`` the rest rounded to double."""
    with localcontext() as ctx:
        ctx.prec = 60
        ln2 = Decimal(2).ln()
        hi = Decimal(math.floor(ln2 * 2**31)) / Decimal(2**31)
        return float(hi), float(ln2 - hi)


#: ``t₃ … t₅₉`` of the odd series of tanh
TANH_COEFFS = np.array(_tanh_series(29))
#: ``1/n!`` for ``n = 0 … 13``
EXP_COEFFS = np.array([float(Fraction(1, math.factorial(n))) for n in range(14)])
LN2_HI, LN2_LO = _ln2_split()
_INV_LN2 = float(1 / Decimal(2).ln())


def _float_of_bits(bits: int) -> float:
    """The double whose IEEE bits are the int64 ``bits`` (Python, for ``NUMBA_DISABLE_JIT``;
    compiled code uses the bit cast of :func:`_ol_float_of_bits`)."""
    return float(struct.unpack("<d", struct.pack("<q", int(bits)))[0])


@intrinsic
def _bitcast_to_float(typingctx, bits):  # type: ignore[no-untyped-def]
    if not isinstance(bits, types.Integer):
        return None
    sig = types.float64(types.int64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.bitcast(args[0], ir.DoubleType())

    return sig, codegen


@overload(_float_of_bits, jit_options={"cache": True})
def _ol_float_of_bits(bits):  # type: ignore[no-untyped-def]
    """:func:`_float_of_bits` in compiled code: one bit cast, which vectorises."""
    if isinstance(bits, types.Integer):
        return lambda bits: _bitcast_to_float(bits)
    return None


@njit(cache=True, inline="always", error_model="numpy")
def tanh(x: float) -> float:
    """``tanh(x)`` in vectorisable IEEE arithmetic, at most 2 ulp from the exact value
    (Online-BLS paper eq. 28's ``σ``; see the module docstring). Inlined where it is
    called: a loop over it vectorises when the loop is compiled with
    ``error_model="numpy"`` (no zero-division check on its one division)."""
    a = abs(x)
    # series branch: b + b (b² P(b²)), b = a clamped to SERIES_END where it is not used
    # (no overflow there; NaN stays NaN)
    b = SERIES_END if a >= SERIES_END else a
    b2 = b * b
    s = TANH_COEFFS[TANH_COEFFS.shape[0] - 1]
    for i in range(TANH_COEFFS.shape[0] - 2, -1, -1):
        s = s * b2 + TANH_COEFFS[i]
    small = b + b * (b2 * s)
    # exponential branch on 2a, clamped so that k stays small where it is not used
    y = 2.0 * (a if a < TANH_ONE else TANH_ONE)  # NaN: 44 (not used)
    y = y if y > 2.0 * SERIES_END else 2.0 * SERIES_END
    kf = math.floor(y * _INV_LN2 + 0.5)
    r = (y - kf * LN2_HI) - kf * LN2_LO
    p = EXP_COEFFS[EXP_COEFFS.shape[0] - 1]
    for i in range(EXP_COEFFS.shape[0] - 2, -1, -1):
        p = p * r + EXP_COEFFS[i]
    e = p * _float_of_bits((np.int64(kf) + np.int64(1023)) << np.int64(52))
    big = 1.0 - 2.0 / (e + 1.0)
    out = big if a >= SERIES_END else small  # NaN: the series, which keeps it NaN
    out = 1.0 if a >= TANH_ONE else out
    return math.copysign(out, x)


@njit(cache=True, error_model="numpy")
def tanh_array(x: np.ndarray, out: np.ndarray) -> None:
    """``out[i] = tanh(x[i])`` (:func:`tanh`) for a 1-D array; ``out`` may be ``x``."""
    for i in range(x.shape[0]):
        out[i] = tanh(x[i])
