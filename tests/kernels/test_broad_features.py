"""Numba kernels of ``streamlearn.kernels.broad_features`` against their NumPy references
(``tests/reference/broad_features.py``). Also run without the JIT by tests/kernels/test_nojit.py."""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest
from numpy.testing import assert_allclose

import streamlearn.kernels.broad_features as kern
from streamlearn.kernels.broad_features import FeatureStatus
from tests.reference import broad_features as ref

SEEDS = range(2) if numba.config.DISABLE_JIT else range(5)


def _feature_weights(rng, d=6, n1=3, n2=4, n3=7, n4=2):
    p = n1 * n2
    return (
        rng.uniform(-1, 1, (d, p)),
        rng.uniform(-1, 1, p),
        rng.uniform(-1, 1, (p, n3 * n4)),
        rng.uniform(-1, 1, n3 * n4),
    )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("row_zscore", [0, 1])
def test_broad_features_matches_reference(seed, row_zscore):
    rng = np.random.default_rng(seed)
    Wf, bf, We, be = _feature_weights(rng)
    X = 3 * rng.standard_normal((9, 6))
    X[0] = 2.0  # constant row: zero SD under row_zscore
    out = np.empty((9, Wf.shape[1] + We.shape[1]))
    assert kern.broad_features(X, Wf, bf, We, be, 0.7, row_zscore, out) == FeatureStatus.OK
    assert_allclose(
        out, ref.broad_features(X, Wf, bf, We, be, 0.7, row_zscore), rtol=1e-12, atol=1e-12
    )
    peak = kern.enhancement_absmax(X, Wf, bf, We, be, row_zscore)
    assert peak == pytest.approx(ref.enhancement_absmax(X, Wf, bf, We, be, row_zscore), rel=1e-12)


@pytest.mark.floatpath
@pytest.mark.parametrize("rows", [1, 7, 8, 9, 17, 100])
def test_eight_rows_per_pass_give_the_bits_of_one_row_per_pass(rows):
    """``_add_scaled_rows`` adds ``a[i]·W[i]`` for ascending ``i``, each product rounded and
    added on its own, as ``rows`` calls of ``_add_scaled`` do: same bits by construction
    (no fused multiply-add, no reordering), on every CPU."""
    rng = np.random.default_rng(rows)
    a, W = rng.standard_normal(rows), rng.standard_normal((rows, 37))
    y0 = rng.standard_normal(37)
    one = y0.copy()
    for i in range(rows):
        kern._add_scaled(one, a[i], W[i])
    eight = y0.copy()
    kern._add_scaled_rows(eight, a, W, 0, rows, 0, 37)
    assert np.array_equal(eight, one)
    plain = y0.copy()  # NumPy, one row at a time: the same roundings
    for i in range(rows):
        plain = plain + a[i] * W[i]
    assert np.array_equal(plain, one)


@pytest.mark.floatpath
@pytest.mark.parametrize("n", [1, 3, 4, 5, 9])
@pytest.mark.parametrize("row_zscore", [0, 1])
def test_rows_four_at_a_time_give_the_bits_of_one_row(n, row_zscore):
    """A call of ``n`` rows computes the nodes four rows at a time, a tile of columns at a
    time (``_affine_four``); a call of one row one row at a time (``_add_scaled_rows``),
    which are the sums of ``_preactivations``: the same products, each rounded and added
    in ascending order, so every row has the same bits whatever the call (on every CPU)."""
    rng = np.random.default_rng(n)
    d, p, q = 7, 13, kern.FEATURE_TILE + 37  # not multiples of 4 or 8; two tiles
    Wf, bf = rng.uniform(-1, 1, (d, p)), rng.uniform(-1, 1, p)
    We, be = rng.uniform(-1, 1, (p, q)), rng.uniform(-1, 1, q)
    X = 2 * rng.standard_normal((n, d))
    many = np.empty((n, p + q))
    assert kern.broad_features(X, Wf, bf, We, be, 0.4, row_zscore, many) == FeatureStatus.OK
    x, z, h = np.empty(d), np.empty(p), np.empty(q)
    for r in range(n):
        one = np.empty((1, p + q))
        assert kern.broad_features(X[r:r + 1], Wf, bf, We, be, 0.4, row_zscore, one) == 0
        assert np.array_equal(many[r], one[0])
        kern._preactivations(X[r], Wf, bf, We, be, row_zscore, x, z, h)
        assert np.array_equal(one[0, :p], z)
        assert np.array_equal(one[0, p:], [math.tanh(0.4 * v) for v in h])


def test_broad_features_flags_non_finite():
    rng = np.random.default_rng(0)
    Wf, bf, We, be = _feature_weights(rng)
    X = rng.standard_normal((3, 6))
    X[1, 2] = np.nan
    out = np.empty((3, Wf.shape[1] + We.shape[1]))
    assert kern.broad_features(X, Wf, bf, We, be, 1.0, 0, out) == FeatureStatus.NONFINITE
    assert kern.enhancement_absmax(X, Wf, bf, We, be, 0) == np.inf


@pytest.mark.parametrize("seed", SEEDS)
def test_scores_and_argmax(seed):
    rng = np.random.default_rng(seed)
    a, W = rng.standard_normal(13), rng.standard_normal((13, 4))
    out = np.empty(4)
    kern.scores(a, W, out)
    assert_allclose(out, ref.scores(a, W), rtol=1e-13, atol=1e-13)
    assert kern.argmax_first(out) == ref.argmax_first(out)
    assert kern.argmax_first(np.array([1.0, 3.0, 3.0, -1.0])) == 1  # ties: smallest index
    assert kern.argmax_first(np.zeros(5)) == 0  # W = 0 predicts class 0 (Alg. 1 line 1)
