"""Numba kernels of ``streamlearn.kernels.cholesky`` against their NumPy references
(``tests/reference/cholesky.py``) and against direct factorisations/solves."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl
from numpy.testing import assert_allclose, assert_array_equal

from streamlearn.kernels import cholesky as ck
from tests.reference import cholesky as ref

SEEDS = range(5)


def _spd_factor(rng: np.random.Generator, m: int, scale: float = 1.0, lam: float = 1e-2):
    A = scale * rng.standard_normal((m // 2 + 1, m))  # rank-deficient Gram + ridge
    K = A.T @ A + lam * np.eye(m)
    return K, np.ascontiguousarray(sl.cholesky(K, lower=False))


def _feature_weights(rng, d=6, n1=3, n2=4, n3=7, n4=2):
    p = n1 * n2
    return (
        rng.uniform(-1, 1, (d, p)),
        rng.uniform(-1, 1, p),
        rng.uniform(-1, 1, (p, n3 * n4)),
        rng.uniform(-1, 1, n3 * n4),
    )


# --------------------------------------------------------------------------------------
# Broad features and prediction
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("row_zscore", [0, 1])
def test_broad_features_matches_reference(seed, row_zscore):
    rng = np.random.default_rng(seed)
    Wf, bf, We, be = _feature_weights(rng)
    X = 3 * rng.standard_normal((9, 6))
    X[0] = 2.0  # constant row: zero SD under row_zscore
    out = np.empty((9, Wf.shape[1] + We.shape[1]))
    assert ck.broad_features(X, Wf, bf, We, be, 0.7, row_zscore, out) == ck.OK
    assert_allclose(
        out, ref.broad_features(X, Wf, bf, We, be, 0.7, row_zscore), rtol=1e-12, atol=1e-12
    )
    peak = ck.enhancement_absmax(X, Wf, bf, We, be, row_zscore)
    assert peak == pytest.approx(ref.enhancement_absmax(X, Wf, bf, We, be, row_zscore), rel=1e-12)


def test_broad_features_flags_non_finite():
    rng = np.random.default_rng(0)
    Wf, bf, We, be = _feature_weights(rng)
    X = rng.standard_normal((3, 6))
    X[1, 2] = np.nan
    out = np.empty((3, Wf.shape[1] + We.shape[1]))
    assert ck.broad_features(X, Wf, bf, We, be, 1.0, 0, out) == ck.NONFINITE
    assert ck.enhancement_absmax(X, Wf, bf, We, be, 0) == np.inf


@pytest.mark.parametrize("seed", SEEDS)
def test_scores_and_argmax(seed):
    rng = np.random.default_rng(seed)
    a, W = rng.standard_normal(13), rng.standard_normal((13, 4))
    out = np.empty(4)
    ck.scores(a, W, out)
    assert_allclose(out, ref.scores(a, W), rtol=1e-13, atol=1e-13)
    assert ck.argmax_first(out) == ref.argmax_first(out)
    assert ck.argmax_first(np.array([1.0, 3.0, 3.0, -1.0])) == 1  # ties: smallest index
    assert ck.argmax_first(np.zeros(5)) == 0  # W = 0 predicts class 0 (spec §1)


# --------------------------------------------------------------------------------------
# EOUS rank-one update
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("beta", [1.0, 0.9])
@pytest.mark.parametrize("m", [1, 7, 33])
def test_chol_update_matches_reference_and_direct_factor(seed, beta, m):
    rng = np.random.default_rng(seed)
    K, U = _spd_factor(rng, m)
    x = rng.standard_normal(m)
    U_ref, v_ref = ref.chol_update(U, x, beta)
    Uk, work, v, x0 = U.copy(), np.empty(m), np.empty(m), x.copy()
    assert ck.chol_update(Uk, x, beta, work, v) == ck.OK
    assert_array_equal(x, x0)  # input not modified
    assert_allclose(np.triu(Uk), U_ref, rtol=1e-12, atol=1e-14)
    # the factor of beta² K + x xᵀ, positive diagonal (Remark 2: unique)
    K_new = beta**2 * K + np.outer(x, x)
    assert_allclose(np.triu(Uk), sl.cholesky(K_new, lower=False), rtol=1e-9, atol=1e-12)
    assert np.all(np.diag(Uk) > 0)
    # v from the rotations solves U_newᵀ v = x (the free forward substitution)
    assert_allclose(v, v_ref, rtol=1e-9, atol=1e-12)
    assert_allclose(np.triu(Uk).T @ v, x, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_chol_update_repeated_matches_accumulated_gram(seed):
    """After k EOUS steps from √λ I, UᵀU equals λI + Σ a aᵀ (spec §4.3 test)."""
    rng = np.random.default_rng(seed)
    m, lam = 25, 1e-8
    U = np.sqrt(lam) * np.eye(m)
    K = lam * np.eye(m)
    work, v = np.empty(m), np.empty(m)
    u = np.finfo(float).eps / 2
    for _ in range(60):
        a = rng.standard_normal(m) * rng.uniform(0.1, 10)
        assert ck.chol_update(U, a, 1.0, work, v) == ck.OK
        K += np.outer(a, a)
        drift = np.linalg.norm(np.triu(U).T @ np.triu(U) - K) / np.linalg.norm(K)
        assert drift < 10 * m * u


def test_chol_update_negative_diagonal_input():
    """Remark 1 sign convention: a factor with negative diagonal entries (a valid factor
    of K up to row signs) is turned into the positive-diagonal factor of K + x xᵀ."""
    rng = np.random.default_rng(3)
    m = 9
    K, U = _spd_factor(rng, m)
    signs = np.where(rng.random(m) < 0.5, -1.0, 1.0)
    Us = np.ascontiguousarray(signs[:, None] * U)  # Usᵀ Us = K still
    x = rng.standard_normal(m)
    work, v = np.empty(m), np.empty(m)
    assert ck.chol_update(Us, x, 1.0, work, v) == ck.OK
    assert np.all(np.diag(Us) > 0)
    assert_allclose(
        np.triu(Us), sl.cholesky(K + np.outer(x, x), lower=False), rtol=1e-10, atol=1e-12
    )


def test_chol_update_status_codes():
    m = 4
    work, v = np.empty(m), np.empty(m)
    U = np.eye(m)
    x = np.array([1.0, np.nan, 0.0, 0.0])
    assert ck.chol_update(U, x, 1.0, work, v) == ck.NONFINITE
    U = np.zeros((m, m))
    assert ck.chol_update(U, np.zeros(m), 1.0, work, v) == ck.NOT_PD


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [0, 5, 19])
def test_chol_update_unit(seed, k):
    rng = np.random.default_rng(seed)
    m = 20
    K, U = _spd_factor(rng, m)
    Uk = U.copy()
    assert ck.chol_update_unit(Uk, k, 0.3, np.empty(m)) == ck.OK
    assert_allclose(np.triu(Uk), ref.chol_update_unit(U, k, 0.3), rtol=1e-12, atol=1e-14)
    E = np.zeros((m, m))
    E[k, k] = 0.09
    assert_allclose(np.triu(Uk), sl.cholesky(K + E, lower=False), rtol=1e-9, atol=1e-12)
    assert_array_equal(Uk[:k], U[:k])  # rows above k untouched


# --------------------------------------------------------------------------------------
# Substitutions
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("m", [1, 8, 9, 17, 64, 300])
def test_substitutions_match_reference_and_scipy(seed, m):
    rng = np.random.default_rng(seed)
    _, U = _spd_factor(rng, m)
    b = rng.standard_normal(m)
    fwd, bwd = b.copy(), b.copy()
    assert ck.solve_ut(U, fwd) == ck.OK
    assert ck.solve_u(U, bwd) == ck.OK
    assert_allclose(fwd, ref.solve_ut(U, b), rtol=1e-10, atol=1e-12)
    assert_allclose(bwd, ref.solve_u(U, b), rtol=1e-10, atol=1e-12)
    assert_allclose(fwd, sl.solve_triangular(U, b, trans="T"), rtol=1e-10, atol=1e-12)
    assert_allclose(bwd, sl.solve_triangular(U, b), rtol=1e-10, atol=1e-12)
    for c in (1, 3, 10):
        XT = rng.standard_normal((c, m))
        F, B = XT.copy(), XT.copy()
        assert ck.solve_ut_rows(U, F) == ck.OK
        assert ck.solve_u_rows(U, B) == ck.OK
        assert_allclose(F, ref.solve_ut_rows(U, XT), rtol=1e-10, atol=1e-12)
        assert_allclose(B, ref.solve_u_rows(U, XT), rtol=1e-10, atol=1e-12)


def test_substitution_index_convention():
    """Eqs. 13–14 as printed (l_di in the forward step) would read the zero upper part of
    L; the corrected kernels solve K x = b: residual at rounding level (spec §3.3)."""
    rng = np.random.default_rng(7)
    m = 30
    K, U = _spd_factor(rng, m, lam=1.0)
    b = rng.standard_normal(m)
    x = b.copy()
    ck.solve_ut(U, x)
    ck.solve_u(U, x)
    assert np.linalg.norm(K @ x - b) / np.linalg.norm(b) < 1e-12


def test_substitution_status_codes():
    U = np.eye(3)
    U[1, 1] = 0.0
    assert ck.solve_ut(U, np.ones(3)) == ck.NOT_PD
    assert ck.solve_u(U, np.ones(3)) == ck.NOT_PD
    assert ck.solve_ut_rows(U, np.ones((2, 3))) == ck.NOT_PD
    assert ck.solve_u_rows(U, np.ones((2, 3))) == ck.NOT_PD
    U = np.eye(3)
    assert ck.solve_u(U, np.array([1.0, np.inf, 0.0])) == ck.NONFINITE


@pytest.mark.parametrize("mu", [1.0, 0.95])
def test_decay_add_outer(mu):
    rng = np.random.default_rng(0)
    P = rng.standard_normal((6, 6))
    a = rng.standard_normal(6)
    expected = ref.decay_add_outer(P, a, mu)
    ck.decay_add_outer(P, a, mu)
    assert_allclose(P, expected, rtol=1e-14, atol=1e-14)


# --------------------------------------------------------------------------------------
# Chunked predict-then-update loops
# --------------------------------------------------------------------------------------


def _stream(seed, n=40, m=15, c=3, lam=1e-2):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, m))
    y = rng.integers(0, c, n).astype(np.int64)
    return A, y, np.sqrt(lam) * np.eye(m), np.zeros((m, c))


@pytest.mark.parametrize("seed", SEEDS)
def test_obls_run_matches_reference(seed):
    A, y, U0, W0 = _stream(seed)
    m, c = W0.shape
    U, W, pred = U0.copy(), W0.copy(), np.empty(len(y), dtype=np.int64)
    status = ck.obls_run(U, W, A, y, pred, np.empty(m), np.empty(m), np.empty(c), np.empty((c, m)))
    assert status == ck.OK
    U_ref, W_ref, pred_ref = ref.obls_run(U0, W0, A, y)
    assert_array_equal(pred, pred_ref)
    assert_allclose(np.triu(U), U_ref, rtol=1e-10, atol=1e-12)
    assert_allclose(W, W_ref, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("mu", [1.0, 0.9])
def test_decay_add_outer_upper(mu):
    rng = np.random.default_rng(3)
    P = rng.standard_normal((9, 9))
    a = rng.standard_normal(9)
    expected = np.triu(ref.decay_add_outer(P, a, mu)) + np.tril(P, -1)
    ck.decay_add_outer_upper(P, a, mu)
    assert_allclose(P, expected, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("mu", [1.0, 0.95])
def test_ada_gain_run_matches_reference(seed, mu):
    A, y, U0, W0 = _stream(seed)
    m, c = W0.shape
    P0 = np.random.default_rng(seed).standard_normal((m, m))
    U, P, W = U0.copy(), P0.copy(), W0.copy()
    pred = np.empty(len(y), dtype=np.int64)
    status = ck.ada_gain_run(U, P, W, A, y, pred, mu, np.empty(m), np.empty(m), np.empty(c))
    assert status == ck.OK
    U_ref, P_ref, W_ref, pred_ref = ref.ada_gain_run(U0, P0, W0, A, y, mu)
    assert_array_equal(pred, pred_ref)
    assert_allclose(P, P_ref, rtol=1e-12, atol=1e-12)
    assert_allclose(np.triu(U), U_ref, rtol=1e-10, atol=1e-12)
    assert_allclose(W, W_ref, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("beta", "alpha"), [(1.0, 0.0), (0.95, 0.05)])
def test_gain_run_matches_reference(seed, beta, alpha):
    A, y, U0, W0 = _stream(seed)
    m, c = W0.shape
    U, W, pred = U0.copy(), W0.copy(), np.empty(len(y), dtype=np.int64)
    pos = np.array([3], dtype=np.int64)
    status = ck.gain_run(U, W, A, y, pred, beta, alpha, pos, np.empty(m), np.empty(m), np.empty(c))
    assert status == ck.OK
    U_ref, W_ref, pred_ref, pos_ref = ref.gain_run(U0, W0, A, y, beta, alpha, 3)
    assert_array_equal(pred, pred_ref)
    assert pos[0] == pos_ref
    assert_allclose(np.triu(U), U_ref, rtol=1e-10, atol=1e-12)
    assert_allclose(W, W_ref, rtol=1e-8, atol=1e-10)


def test_run_kernels_split_into_chunks_give_identical_results():
    """One call over n rows ≡ several calls over pieces (the chunk boundary is invisible)."""
    A, y, U0, W0 = _stream(11, n=30)
    m, c = W0.shape
    outs = []
    for cuts in ([30], [1, 12, 17]):
        U, W = U0.copy(), W0.copy()
        pred = np.empty(30, dtype=np.int64)
        s = 0
        for n in cuts:
            ck.obls_run(
                U,
                W,
                A[s : s + n],
                y[s : s + n],
                pred[s : s + n],
                np.empty(m),
                np.empty(m),
                np.empty(c),
                np.empty((c, m)),
            )
            s += n
        outs.append((U, W, pred))
    assert_array_equal(outs[0][0], outs[1][0])
    assert_array_equal(outs[0][1], outs[1][1])
    assert_array_equal(outs[0][2], outs[1][2])


@pytest.mark.parametrize("seed", SEEDS)
def test_sqrt_run_matches_reference_and_ridge(seed):
    A, y, U0, W0 = _stream(seed)
    m, c = W0.shape
    U, Z, pred = U0.copy(), W0.copy(), np.empty(len(y), dtype=np.int64)
    scratch = [np.empty((4, m)) for _ in range(5)] + [np.empty(c), np.empty(c + 12)]
    assert ck.sqrt_run(U, Z, A, y, pred, *scratch) == ck.OK
    U_ref, Z_ref, pred_ref = ref.sqrt_run(U0, W0, A, y)
    assert_array_equal(pred, pred_ref)
    assert_allclose(np.triu(U), U_ref, rtol=1e-10, atol=1e-12)
    assert_allclose(Z, Z_ref, rtol=1e-10, atol=1e-12)
    # invariants: UᵀU = λI + AᵀA and UᵀZ = AᵀY, so U⁻¹Z is the ridge solution
    Y = np.eye(c)[y]
    K = 1e-2 * np.eye(m) + A.T @ A
    assert_allclose(np.triu(U).T @ np.triu(U), K, rtol=1e-12, atol=1e-12 * np.abs(K).max())
    assert_allclose(np.triu(U).T @ Z, A.T @ Y, rtol=1e-10, atol=1e-12)
    # the predictions are those of the ridge weights of the prefix
    _, _, pred_obls = ref.obls_run(U0, W0, A, y)
    assert_array_equal(pred, pred_obls)


@pytest.mark.parametrize("seed", SEEDS)
def test_sqrt_run_blocks_of_four_are_bit_identical_to_single_samples(seed):
    A, y, U0, W0 = _stream(seed, n=23, m=37)  # m: a partial row block and column tile
    m, c = W0.shape
    outs = []
    for step in (23, 1):  # one call (blocks of 4 + remainder) vs one sample per call
        U, Z, pred = U0.copy(), W0.copy(), np.empty(23, dtype=np.int64)
        scratch = [np.empty((4, m)) for _ in range(5)] + [np.empty(c), np.empty(c + 12)]
        for s in range(0, 23, step):
            e = min(s + step, 23)
            assert ck.sqrt_run(U, Z, A[s:e], y[s:e], pred[s:e], *scratch) == ck.OK
        outs.append((U, Z, pred))
    for got, want in zip(outs[0], outs[1], strict=True):
        assert_array_equal(got, want)
