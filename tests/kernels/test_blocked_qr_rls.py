"""Numba kernels of ``streamlearn.kernels.blocked_qr_rls`` against their NumPy references
(``tests/reference/blocked_qr_rls.py``), and the property the learner's per-sample and
chunked paths rest on: a sample's arithmetic does not depend on how many samples one call
takes. Also run without the JIT by tests/kernels/test_nojit.py."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import streamlearn.kernels.blocked_qr_rls as kern
from streamlearn.kernels.cholesky_update import CholeskyStatus
from tests.reference import blocked_qr_rls as ref

SEEDS = range(2) if numba.config.DISABLE_JIT else range(5)
#: sizes around the kernel's 4-row blocks and its tile (SOLVE_TILE rows)
SIZES = (7, 37) if numba.config.DISABLE_JIT else (1, 7, 37, 131, 261)
U_ROUND = np.finfo(np.float64).eps / 2


def _factor(seed: int, m: int, lam: float = 1e-2, n: int = 30, scale: float = 1.0):
    """Upper factor of ``λI + AᵀA`` (positive diagonal) in Fortran order, and ``Z``."""
    rng = np.random.default_rng(seed)
    A = scale * rng.standard_normal((n, m))
    U = np.linalg.cholesky(lam * np.eye(m) + A.T @ A).T
    Z = rng.standard_normal((m, 3))
    return np.asfortranarray(U), np.asfortranarray(Z)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("m", SIZES)
def test_solve_ut_cols_matches_triangular_solve(seed, m):
    U, _ = _factor(seed, m)
    rng = np.random.default_rng(100 + seed)
    A = rng.standard_normal((9, m))
    QT = np.full((m, 16), np.nan)
    assert kern.solve_ut_cols(U, A, 2, 5, QT, 3) == CholeskyStatus.OK
    expect = ref.solve_ut_cols(U, A[2:7])
    # forward error of a triangular solve: ≤ m·u·κ(U) (bound stated), here κ(U) ≤ 1e3
    kappa = np.linalg.cond(U)
    err = np.abs(QT[:, 3:8] - expect).max() / np.abs(expect).max()
    assert err <= 4 * m * U_ROUND * kappa, (err, kappa)
    assert np.isnan(QT[:, :3]).all() and np.isnan(QT[:, 8:]).all()  # other columns untouched


@pytest.mark.floatpath
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("m", SIZES)
def test_solve_ut_cols_column_alone_is_bit_identical_to_the_column_among_many(seed, m):
    """Every element's operations are those of the one-column call, in the same order:
    by construction, on every CPU (the per-sample path of the learner rests on this)."""
    U, _ = _factor(seed, m)
    A = np.random.default_rng(seed).standard_normal((12, m))
    many = np.zeros((m, 12))
    assert kern.solve_ut_cols(U, A, 0, 12, many, 0) == CholeskyStatus.OK
    for s in range(12):
        one = np.zeros((m, 12))
        assert kern.solve_ut_cols(U, A[s:s + 1], 0, 1, one, s) == CholeskyStatus.OK
        assert_array_equal(one[:, s], many[:, s])


@pytest.mark.floatpath
@pytest.mark.parametrize("tile", [4, 16, 128])
def test_solve_ut_cols_tile_size_changes_no_bit(monkeypatch, tile):
    """SOLVE_TILE only reorders which elements are updated when, never one element's own
    operations: the kernel compiled with another tile gives the same bits (so the tile can
    be tuned per machine without moving a prediction)."""
    m = 261
    U, _ = _factor(3, m)
    A = np.random.default_rng(3).standard_normal((12, m))
    committed = np.zeros((m, 12))
    assert kern.solve_ut_cols(U, A, 0, 12, committed, 0) == CholeskyStatus.OK
    monkeypatch.setattr(kern, "SOLVE_TILE", tile)
    plain = getattr(kern.solve_ut_cols, "py_func", kern.solve_ut_cols)  # NUMBA_DISABLE_JIT
    other = numba.njit(fastmath={"contract"})(plain)
    retiled = np.zeros((m, 12))
    assert other(U, A, 0, 12, retiled, 0) == CholeskyStatus.OK
    assert_array_equal(retiled, committed)


def test_solve_ut_cols_reports_a_bad_factor():
    U, _ = _factor(0, 9)
    A = np.ones((1, 9))
    QT = np.zeros((9, 1))
    bad = U.copy(order="F")
    bad[4, 4] = 0.0
    assert kern.solve_ut_cols(bad, A, 0, 1, QT, 0) == CholeskyStatus.NOT_PD
    huge = U.copy(order="F")
    huge[0, 0] = 1e-310
    A[0, 0] = 1e10
    with np.errstate(over="ignore", invalid="ignore"):  # the pure-Python path (no JIT)
        assert kern.solve_ut_cols(huge, A, 0, 1, QT, 0) == CholeskyStatus.NONFINITE


def _block_run(U, Z, A, y, split, w=None):
    """Run the block's samples through the two kernels in calls of the given sizes."""
    m, c = Z.shape
    b = A.shape[0]
    QT, LT, E = np.zeros((m, b)), np.zeros((b, b)), np.zeros((b, c))
    G, H, Y = np.zeros((b, b)), np.zeros((c, b)), np.zeros((b, c), order="F")
    g, yh = np.zeros(b), np.zeros(c)
    w = np.ones(b) if w is None else w
    pred = np.zeros(b, dtype=np.int64)
    scores = np.zeros((b, c))
    j = 0
    for p in split:
        assert kern.solve_ut_cols(U, A[j:j + p], 0, p, QT, j) == CholeskyStatus.OK
        for t in range(p):  # the scores of each sample (learn=False does not record)
            assert kern.block_steps(QT, j + t, 1, Z, LT, E, y[j + t:], pred[j + t:], g, G, H,
                                    yh, Y, w, False) == CholeskyStatus.OK
            scores[j + t] = yh
            if t < p - 1:  # the next sample needs this one recorded
                assert kern.block_steps(QT, j + t, 1, Z, LT, E, y[j + t:], pred[j + t:], g,
                                        G, H, yh, Y, w, True) == CholeskyStatus.OK
        if p > 1:  # the call as the learner makes it, over again from the call's start
            LT2, E2, Y2 = LT.copy(), E.copy(), Y.copy()
            LT[:, j:], E[j:], Y[j:] = 0.0, 0.0, 0.0
            G[:], H[:] = np.nan, np.nan  # scratch: what the call reads, it must compute
            pred2 = np.zeros(p, dtype=np.int64)
            assert kern.block_steps(QT, j, p, Z, LT, E, y[j:j + p], pred2, g, G, H, yh, Y,
                                    w, True) == CholeskyStatus.OK
            assert_array_equal(pred2, pred[j:j + p])
            assert_array_equal(LT[:, j:j + p - 1], LT2[:, j:j + p - 1])
            assert_array_equal(E[j:j + p - 1], E2[j:j + p - 1])
            assert_array_equal(Y[j:j + p - 1], Y2[j:j + p - 1])
        else:
            assert kern.block_steps(QT, j, 1, Z, LT, E, y[j:], pred[j:], g, G, H, yh, Y,
                                    w, True) == CholeskyStatus.OK
        j += p
    return scores, pred, LT, E, Y


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weighted", [False, True], ids=["plain", "weighted"])
@pytest.mark.parametrize("lam", [1e-2, 1e-8], ids=["lam1e-2", "lam1e-8"])
def test_block_steps_scores_match_direct_solves_on_every_prefix(seed, lam, weighted):
    """In-block predictions (Woodbury in the block's space) against direct solves of the
    prefix's normal equations. Bound (stated): ≤ 50·u·κ(K_j) relative to the largest score
    (a normal-equations solve); measured ≤ 1.9, κ up to 1e10 at λ = 1e-8."""
    m, c, b = 23, 3, 11
    U, Z = _factor(seed, m, lam=lam, n=6)  # fewer rows than nodes: κ(K) ~ 1/λ
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((b, m))
    y = rng.integers(0, c, b).astype(np.int64)
    # the forgetting weights of a block of online_bls_ada_blocked at μ = 0.9
    w = 0.9 ** (-0.5 * np.arange(1, b + 1)) if weighted else np.ones(b)
    scores, _, LT, E, Y = _block_run(U, Z, A, y, [b], w)
    expect = ref.block_scores(U, Z, A, y, w)
    K = U.T @ U
    for j in range(b):
        kappa = np.linalg.cond(K)
        err = np.abs(scores[j] - expect[j]).max() / np.abs(expect[j]).max()
        assert err <= 50 * U_ROUND * kappa, (j, err, kappa)
        K = K + w[j] ** 2 * np.outer(A[j], A[j])
    assert_array_equal(Y, np.eye(c)[y])
    # LLᵀ = I + Q̃ᵀQ̃ and E = L⁻¹(Ỹ − Q̃ᵀZ) with the weighted q̃_i = w_i q_i, ỹ_i = w_i e_{y_i}
    Q = ref.solve_ut_cols(U, A) * w
    L = np.tril(LT.T)
    assert_allclose(L @ L.T, np.eye(b) + Q.T @ Q, rtol=1e-9, atol=1e-9 * np.abs(Q.T @ Q).max())
    R = w[:, None] * Y - Q.T @ Z
    assert_allclose(L @ E, R, rtol=1e-6, atol=1e-6 * np.abs(R).max())


@pytest.mark.floatpath
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("split", [[1] * 9, [9], [4, 5], [2, 3, 4]],
                         ids=["ones", "one-call", "4+5", "2+3+4"])
@pytest.mark.parametrize("weighted", [False, True], ids=["plain", "weighted"])
def test_block_steps_are_bit_identical_whatever_the_calls(seed, split, weighted):
    U, Z = _factor(seed, 19)
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((9, 19))
    y = rng.integers(0, 3, 9).astype(np.int64)
    w = 0.9 ** (-0.5 * np.arange(1, 10)) if weighted else None
    base = _block_run(U, Z, A, y, [1] * 9, w)
    other = _block_run(U, Z, A, y, split, w)
    for x, z in zip(base, other, strict=True):
        assert_array_equal(x, z)


def test_block_steps_reports_non_finite_scores():
    _, Z = _factor(0, 5)
    Z[0, 0] = np.inf
    QT = np.ones((5, 2))
    args = (np.zeros((2, 2)), np.zeros((2, 3)), np.zeros(2, dtype=np.int64),
            np.zeros(2, dtype=np.int64), np.zeros(2), np.zeros((2, 2)), np.zeros((3, 2)),
            np.zeros(3), np.zeros((2, 3), order="F"), np.ones(2), True)
    assert kern.block_steps(QT, 0, 1, Z, *args) == CholeskyStatus.NONFINITE


@pytest.mark.parametrize("seed", SEEDS)
def test_positive_diagonal_matches_reference(seed):
    rng = np.random.default_rng(seed)
    U = np.asfortranarray(np.triu(rng.standard_normal((13, 13))))
    Z = np.asfortranarray(rng.standard_normal((13, 4)))
    eU, eZ = ref.positive_diagonal(U, Z)
    kern.positive_diagonal(U, Z)
    assert_array_equal(U, eU)
    assert_array_equal(Z, eZ)
    assert (np.diagonal(U) >= 0).all()
