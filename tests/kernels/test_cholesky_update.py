"""Numba kernels of ``streamlearn.kernels.cholesky_update`` against their NumPy references
(``tests/reference/cholesky_update.py``) and against direct factorisations/solves. Also run
without the JIT by tests/kernels/test_nojit.py."""

from __future__ import annotations

import numba
import numpy as np
import pytest
import scipy.linalg as sl
from numpy.testing import assert_allclose, assert_array_equal

import streamlearn.kernels.cholesky_update as kern
from streamlearn.kernels.cholesky_update import CholeskyStatus
from tests.reference import cholesky_update as ref

NOJIT = numba.config.DISABLE_JIT
SEEDS = range(2) if NOJIT else range(5)
# substitution sizes: partial 8-row blocks, and more than one TILE of columns (m > 264)
SIZES = [1, 8, 9, 17, 270] if NOJIT else [1, 8, 9, 17, 64, 300]


def _spd_factor(rng: np.random.Generator, m: int, scale: float = 1.0, lam: float = 1e-2):
    A = scale * rng.standard_normal((m // 2 + 1, m))  # rank-deficient Gram + ridge
    K = A.T @ A + lam * np.eye(m)
    return K, np.ascontiguousarray(sl.cholesky(K, lower=False))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("beta", [1.0, 0.9])
@pytest.mark.parametrize("m", [1, 7, 33])
def test_chol_update_matches_reference_and_direct_factor(seed, beta, m):
    rng = np.random.default_rng(seed)
    K, U = _spd_factor(rng, m)
    x = rng.standard_normal(m)
    U_ref, v_ref = ref.chol_update(U, x, beta)
    Uk, work, v, x0 = U.copy(), np.empty(m), np.empty(m), x.copy()
    assert kern.chol_update(Uk, x, beta, work, v) == CholeskyStatus.OK
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
    """After k EOUS steps from √λ I, UᵀU equals λI + Σ a aᵀ (eq. 7 via eq. 15)."""
    rng = np.random.default_rng(seed)
    m, lam = 25, 1e-8
    U = np.sqrt(lam) * np.eye(m)
    K = lam * np.eye(m)
    work, v = np.empty(m), np.empty(m)
    u = np.finfo(float).eps / 2
    for _ in range(60):
        a = rng.standard_normal(m) * rng.uniform(0.1, 10)
        assert kern.chol_update(U, a, 1.0, work, v) == CholeskyStatus.OK
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
    assert kern.chol_update(Us, x, 1.0, work, v) == CholeskyStatus.OK
    assert np.all(np.diag(Us) > 0)
    assert_allclose(
        np.triu(Us), sl.cholesky(K + np.outer(x, x), lower=False), rtol=1e-10, atol=1e-12
    )


def test_chol_update_status_codes():
    m = 4
    work, v = np.empty(m), np.empty(m)
    U = np.eye(m)
    x = np.array([1.0, np.nan, 0.0, 0.0])
    assert kern.chol_update(U, x, 1.0, work, v) == CholeskyStatus.NONFINITE
    U = np.zeros((m, m))
    assert kern.chol_update(U, np.zeros(m), 1.0, work, v) == CholeskyStatus.NOT_PD


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [0, 5, 19])
def test_chol_update_unit(seed, k):
    rng = np.random.default_rng(seed)
    m = 20
    K, U = _spd_factor(rng, m)
    Uk = U.copy()
    assert kern.chol_update_unit(Uk, k, 0.3, np.empty(m)) == CholeskyStatus.OK
    assert_allclose(np.triu(Uk), ref.chol_update_unit(U, k, 0.3), rtol=1e-12, atol=1e-14)
    E = np.zeros((m, m))
    E[k, k] = 0.09
    assert_allclose(np.triu(Uk), sl.cholesky(K + E, lower=False), rtol=1e-9, atol=1e-12)
    assert_array_equal(Uk[:k], U[:k])  # rows above k untouched


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("m", SIZES)
def test_substitutions_match_reference_and_scipy(seed, m):
    rng = np.random.default_rng(seed)
    _, U = _spd_factor(rng, m)
    b = rng.standard_normal(m)
    fwd, bwd = b.copy(), b.copy()
    assert kern.solve_ut(U, fwd) == CholeskyStatus.OK
    assert kern.solve_u(U, bwd) == CholeskyStatus.OK
    assert_allclose(fwd, ref.solve_ut(U, b), rtol=1e-10, atol=1e-12)
    assert_allclose(bwd, ref.solve_u(U, b), rtol=1e-10, atol=1e-12)
    assert_allclose(fwd, sl.solve_triangular(U, b, trans="T"), rtol=1e-10, atol=1e-12)
    assert_allclose(bwd, sl.solve_triangular(U, b), rtol=1e-10, atol=1e-12)
    for c in (1, 3, 10):
        XT = rng.standard_normal((c, m))
        F, B = XT.copy(), XT.copy()
        assert kern.solve_ut_rows(U, F) == CholeskyStatus.OK
        assert kern.solve_u_rows(U, B) == CholeskyStatus.OK
        assert_allclose(F, ref.solve_ut_rows(U, XT), rtol=1e-10, atol=1e-12)
        assert_allclose(B, ref.solve_u_rows(U, XT), rtol=1e-10, atol=1e-12)


@pytest.mark.floatpath
@pytest.mark.parametrize("m", SIZES)
def test_row_solves_do_not_depend_on_the_number_of_rows(m):
    # row r of solve_ut_rows / solve_u_rows is bit for bit the same whatever c is: the
    # rows go through one pair kernel, row r always in position r % 2, an odd last row
    # with a scratch partner (on an AVX-512 machine a separate one-row kernel rounded it
    # differently, and a learner grown class by class drifted from one given every class)
    rng = np.random.default_rng(m)
    _, U = _spd_factor(rng, m)
    XT = rng.standard_normal((6, m))
    full_f, full_b = XT.copy(), XT.copy()
    assert kern.solve_ut_rows(U, full_f) == CholeskyStatus.OK
    assert kern.solve_u_rows(U, full_b) == CholeskyStatus.OK
    for c in range(1, 6):
        F, B = XT[:c].copy(), XT[:c].copy()
        assert kern.solve_ut_rows(U, F) == CholeskyStatus.OK
        assert kern.solve_u_rows(U, B) == CholeskyStatus.OK
        assert_array_equal(F, full_f[:c])
        assert_array_equal(B, full_b[:c])


def test_substitution_index_convention():
    """Eqs. 13–14 as printed (l_di in the forward step) would read the zero upper part of
    L; the corrected kernels solve K x = b: residual at rounding level."""
    rng = np.random.default_rng(7)
    m = 30
    K, U = _spd_factor(rng, m, lam=1.0)
    b = rng.standard_normal(m)
    x = b.copy()
    kern.solve_ut(U, x)
    kern.solve_u(U, x)
    assert np.linalg.norm(K @ x - b) / np.linalg.norm(b) < 1e-12


def test_substitution_status_codes():
    U = np.eye(3)
    U[1, 1] = 0.0
    assert kern.solve_ut(U, np.ones(3)) == CholeskyStatus.NOT_PD
    assert kern.solve_u(U, np.ones(3)) == CholeskyStatus.NOT_PD
    assert kern.solve_ut_rows(U, np.ones((2, 3))) == CholeskyStatus.NOT_PD
    assert kern.solve_u_rows(U, np.ones((2, 3))) == CholeskyStatus.NOT_PD
    U = np.eye(3)
    with np.errstate(invalid="ignore"):  # 0·inf warns on the pure-Python (no-JIT) path
        assert kern.solve_u(U, np.array([1.0, np.inf, 0.0])) == CholeskyStatus.NONFINITE


@pytest.mark.parametrize("mu", [1.0, 0.95])
def test_decay_add_outer(mu):
    rng = np.random.default_rng(0)
    P = rng.standard_normal((6, 6))
    a = rng.standard_normal(6)
    expected = ref.decay_add_outer(P, a, mu)
    kern.decay_add_outer(P, a, mu)
    assert_allclose(P, expected, rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("mu", [1.0, 0.9])
def test_decay_add_outer_upper(mu):
    rng = np.random.default_rng(3)
    P = rng.standard_normal((9, 9))
    a = rng.standard_normal(9)
    expected = np.triu(ref.decay_add_outer(P, a, mu)) + np.tril(P, -1)
    kern.decay_add_outer_upper(P, a, mu)
    assert_allclose(P, expected, rtol=1e-14, atol=1e-15)
