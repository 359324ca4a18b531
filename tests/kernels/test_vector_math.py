"""``streamlearn.kernels.vector_math.tanh`` against its NumPy twin
(``tests/reference/vector_math.py``: the same bits by construction, on any CPU), against
the exact value (80-bit long double: within 2 ulp), at its special values, and its
constants against independent derivations. Also run without the JIT by
tests/kernels/test_nojit.py."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numba
import numpy as np
import pytest
from numpy.testing import assert_array_equal

import streamlearn.kernels.broad_features as features
from streamlearn.kernels import vector_math as kern
from tests.reference import broad_features as ref_features
from tests.reference import vector_math as ref

N = 20_000 if numba.config.DISABLE_JIT else 1_000_000
SPECIAL = [0.0, -0.0, 5e-324, -5e-324, 1e-310, 2.0**-30, 0.5, np.nextafter(0.75, 0), 0.75,
           1.0, 19.06, np.nextafter(22.0, 0), 22.0, 700.0, 1e308, np.inf, -np.inf, np.nan]


def _points(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.uniform(0, 25, n), rng.uniform(0, 1, n // 2),
                        np.exp(rng.uniform(-700, 0, n // 4)), SPECIAL])
    return np.concatenate([x, -x])


def _tanh(x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    kern.tanh_array(x, out)
    return out


@pytest.mark.parametrize("seed", range(3))
def test_tanh_has_the_bits_of_its_numpy_twin(seed):
    x = _points(seed, N)
    got, want = _tanh(x), ref.tanh(x)
    assert_array_equal(got, want)
    assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.skipif(np.finfo(np.longdouble).nmant < 63,
                    reason="needs an extended long double for the exact value")
def test_tanh_is_within_two_ulp_of_the_exact_value():
    x = _points(7, N)
    x = x[np.isfinite(x)]
    exact = np.tanh(x.astype(np.longdouble))
    ulp = np.spacing(np.abs(exact.astype(np.float64))).astype(np.longdouble)
    err = np.abs((_tanh(x).astype(np.longdouble) - exact) / ulp).astype(np.float64)
    assert err.max() <= 2.0, (err.max(), x[err.argmax()])  # measured 7 Dec: 1.10


def test_tanh_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 30.0, -30.0, 5e-324])
    got = _tanh(x)
    assert_array_equal(got[:4], [0.0, -0.0, 1.0, -1.0])
    assert list(np.signbit(got[:2])) == [False, True]
    assert np.isnan(got[4])
    assert_array_equal(got[5:], [1.0, -1.0, 5e-324])
    x = _points(3, 1000)
    assert np.all(np.abs(_tanh(x[~np.isnan(x)])) <= 1.0)


def test_the_constants_are_the_derivations_they_claim():
    # tanh's odd series from the Bernoulli numbers: t_{2n-1} = 2^{2n} (2^{2n} - 1) B_{2n} / (2n)!
    B = [Fraction(1)]
    for n in range(1, 62):
        B.append(-sum(math.comb(n + 1, k) * B[k] for k in range(n)) / (n + 1))
    coeffs = [float(Fraction(2 ** (2 * n) * (2 ** (2 * n) - 1)) * B[2 * n] / math.factorial(2 * n))
              for n in range(2, 31)]
    assert_array_equal(kern.TANH_COEFFS, coeffs)
    assert_array_equal(kern.EXP_COEFFS, [1.0 / math.factorial(n) if n < 3 else
                                         float(Fraction(1, math.factorial(n)))
                                         for n in range(14)])
    # the series' truncation at SERIES_END: the next term below 1e-17 relative
    with localcontext() as ctx:
        ctx.prec = 50
        ln2 = Decimal(2).ln()
        assert kern.LN2_HI * 2**31 == int(kern.LN2_HI * 2**31)  # k L_hi exact for |k| < 2^21
        # L_lo is the rest rounded once: within half its own ulp
        assert abs(Decimal(kern.LN2_HI) + Decimal(kern.LN2_LO) - ln2) <= \
            Decimal(math.ulp(kern.LN2_LO)) / 2
    nxt = float(Fraction(2**62 * (2**62 - 1)) * B[62] / math.factorial(62)) if len(B) > 62 else None
    assert nxt is None or abs(nxt) * kern.SERIES_END**61 / math.tanh(kern.SERIES_END) < 1e-17


@pytest.mark.parametrize("seed", range(2))
def test_broad_features_with_the_vector_tanh_match_the_reference(seed):
    rng = np.random.default_rng(seed)
    d, p, q = 6, 12, 14
    Wf, bf = rng.uniform(-1, 1, (d, p)), rng.uniform(-1, 1, p)
    We, be = rng.uniform(-1, 1, (p, q)), rng.uniform(-1, 1, q)
    X = 3 * rng.standard_normal((9, d))
    out = np.empty((9, p + q))
    status = features.broad_features(X, Wf, bf, We, be, 0.3, 0, out,
                                     features.Squash.VECTOR_TANH)
    assert status == features.FeatureStatus.OK
    want = ref_features.broad_features(X, Wf, bf, We, be, 0.3, False, vector_tanh=True)
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)
    # the tanh itself: the kernel's on the kernel's own pre-activations, bit for bit
    pre = np.empty_like(out)
    features.broad_features(X, Wf, bf, We, be, 1.0, 0, pre, features.Squash.NONE)
    assert_array_equal(out[:, p:], ref.tanh(0.3 * pre[:, p:]))
