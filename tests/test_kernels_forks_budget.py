"""The FORKS-layer numba kernels (streamlearn/kernels/forks_budget.py) against the NumPy
references in tests/reference/forks_budget.py (also run without the JIT by
test_kernels_nojit.py)."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from streamlearn.kernels import forks_budget as kb
from tests.reference import forks_budget as ref

pytestmark = pytest.mark.floatpath  # run under several BLAS kernels: make test-blas-kernels

SMALL = bool(numba.config.DISABLE_JIT)
N = 30 if SMALL else 200


def _problem(seed: int, k: int = 4, sm: int = 6, d: int = 3):
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(sm, d))
    Z = rng.normal(size=(sm, k))
    X = rng.normal(size=(N, d))
    Y = np.where(rng.random(N) < 0.5, 1.0, -1.0)
    return L, Z, X, Y


@pytest.mark.parametrize("seed", range(3))
def test_gauss_row_and_matrix(seed: int) -> None:
    rng = np.random.default_rng(seed)
    S = rng.normal(size=(7, 4))
    x = rng.normal(size=4)
    out = np.full(7, np.nan)
    kb.gauss_row(S, 5, x, 0.3, out)
    assert_allclose(out[:5], ref.gauss_row(S[:5], x, 0.3), rtol=1e-14)
    assert np.all(np.isnan(out[5:]))  # only the first n rows are written
    K = kb.gauss_matrix(S, S[:3], 0.3)
    assert_allclose(K, np.array([ref.gauss_row(S[:3], s, 0.3) for s in S]), rtol=1e-14)
    assert_allclose(np.diag(kb.gauss_matrix(S, S, 0.3)), 1.0)


@pytest.mark.parametrize("loss", [0, 1])
def test_dloss(loss: int) -> None:
    for f in (-2.0, -0.3, 0.0, 0.999, 1.0, 1.5):
        for y in (-1.0, 1.0):
            assert kb.dloss(f, y, loss) == pytest.approx(ref.dloss(f, y, loss), abs=1e-15)
    assert kb.dloss(1.0, 1.0, 0) == 0.0  # subgradient 0 at the kink


@pytest.mark.parametrize("seed", range(3))
def test_feature_map(seed: int) -> None:
    L, Z, X, _ = _problem(seed)
    m, z = np.empty(L.shape[0]), np.empty(Z.shape[1])
    kb.feature_map(X[0], L, 0.5, Z, m, z)
    assert_allclose(z, ref.feature_map(X[0], L, 0.5, Z), rtol=1e-13)


@pytest.mark.parametrize("project", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_ons_score_projection(seed: int, project: bool) -> None:
    rng = np.random.default_rng(seed)
    k = 5
    z, v = rng.normal(size=k), 3.0 * rng.normal(size=k)
    G = rng.normal(size=(k, k))
    Ainv = np.linalg.inv(G @ G.T + 0.1 * np.eye(k))
    w, u = np.empty(k), np.empty(k)
    f = kb.ons_score(z, v, Ainv, 1.0, project, w, u)
    f_ref, w_ref = ref.ons_score(z, v, Ainv, 1.0, project)
    assert f == pytest.approx(f_ref, rel=1e-13)
    assert_allclose(w, w_ref, rtol=1e-12, atol=1e-12)
    if project:
        assert abs(z @ w) <= 1.0 + 1e-12
        if abs(z @ v) <= 1.0:
            assert_array_equal(w, v)
    else:
        assert_array_equal(w, v)


@pytest.mark.parametrize("loss", [0, 1])
@pytest.mark.parametrize("seed", range(3))
def test_ons_step_sherman_morrison_vs_inverse(seed: int, loss: int) -> None:
    """A^{-1} after a sequence of steps equals inv(alpha I + sum c g g^T) (direct)."""
    rng = np.random.default_rng(seed)
    k, alpha, cw = 4, 0.01, 0.5
    Ainv = np.eye(k) / alpha
    v = np.zeros(k)
    u = np.empty(k)
    A_direct = alpha * np.eye(k)
    for _ in range(25):
        z = rng.normal(size=k)
        w = v.copy()
        f = float(z @ w) + rng.normal()
        y = 1.0 if rng.random() < 0.5 else -1.0
        Ainv_ref, v_ref = ref.ons_step(z, w, f, y, loss, cw, Ainv)
        g = ref.dloss(f, y, loss) * z
        A_direct += cw * np.outer(g, g)
        kb.ons_step(z, w, f, y, loss, cw, Ainv, v, u)
        assert_allclose(Ainv, Ainv_ref, rtol=1e-8, atol=1e-8)
        assert_allclose(v, v_ref, rtol=1e-8, atol=1e-8)
    assert_allclose(Ainv, np.linalg.inv(A_direct), rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("second_order", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_stage2_loop_vs_reference(seed: int, second_order: bool) -> None:
    L, Z, X, Y = _problem(seed)
    k = Z.shape[1]
    v0, Ainv0 = np.zeros(k), np.eye(k) / 0.01
    v, Ainv = v0.copy(), Ainv0.copy()
    preds = np.full(N, -1, dtype=np.int64)
    scores = np.full(N, np.nan)
    status = kb.sketch_stage2_loop(X, Y, 0, N, L, 0.5, Z, v, Ainv, 1.0, True, second_order,
                                   0.5, 0.2, 0.01, 0, preds, scores)
    assert status == kb.KernelStatus.OK
    p_ref, v_ref, A_ref, s_ref = ref.stage2_loop(X, Y, L, 0.5, Z, v0, Ainv0, 1.0, True,
                                                 second_order, 0.5, 0.2, 0.01, 0)
    assert_array_equal(preds, p_ref)
    assert_allclose(scores, s_ref, rtol=1e-7, atol=1e-9)
    assert_array_equal(preds, np.where(scores >= 0.0, 1, 0))
    assert_allclose(v, v_ref, rtol=1e-7, atol=1e-9)
    if second_order:
        assert_allclose(Ainv, A_ref, rtol=1e-7, atol=1e-7)


def test_stage2_loop_flags_nonfinite() -> None:
    L, Z, X, Y = _problem(0)
    X = X.copy()
    X[3, 0] = np.nan
    k = Z.shape[1]
    preds = np.zeros(N, dtype=np.int64)
    Z2 = Z.copy()
    Z2[0, 0] = np.nan
    status = kb.sketch_stage2_loop(X, Y, 0, N, L, 0.5, Z2, np.zeros(k), np.eye(k), 1.0, True,
                                   True, 0.5, 0.2, 0.0, 0, preds, np.zeros(N))
    assert status == kb.KernelStatus.NONFINITE


@pytest.mark.parametrize("loss", [0, 1])
@pytest.mark.parametrize("seed", range(3))
def test_kernel_ogd_fill_vs_reference(seed: int, loss: int) -> None:
    """Stage 1: same predictions, scores, buffer and stopping round as the NumPy loop;
    a second call continues where the first stopped."""
    _, _, X, Y = _problem(seed, d=3)
    cap = 12
    S, coef = np.zeros((cap, 3)), np.zeros(cap)
    preds = np.full(N, -1, dtype=np.int64)
    scores = np.full(N, np.nan)
    krow = np.zeros(cap)
    status, end, n = kb.kernel_ogd_fill(X, Y, 0, 5, S, coef, 0, 0.5, 0.2, loss, krow, preds,
                                        scores)
    assert status == kb.KernelStatus.OK and end == 5 and 0 < n < cap
    status, end, n = kb.kernel_ogd_fill(X, Y, 5, N, S, coef, n, 0.5, 0.2, loss, krow, preds,
                                        scores)
    p_ref, s_ref, S_ref, c_ref, n_ref, end_ref = ref.kernel_ogd_fill(
        X, Y, np.zeros((cap, 3)), np.zeros(cap), 0, 0.5, 0.2, loss)
    assert status == kb.KernelStatus.OK
    assert (n, end) == (n_ref, end_ref) and n == cap and end < N  # stopped when full
    assert_array_equal(preds[:end], p_ref)
    assert np.all(preds[end:] == -1) and np.all(np.isnan(scores[end:]))  # nothing after
    assert_allclose(scores[:end], s_ref, rtol=1e-12, atol=1e-15)
    assert_array_equal(S, S_ref)
    assert_allclose(coef, c_ref, rtol=1e-12)


def test_kernel_ogd_fill_flags_nonfinite() -> None:
    _, _, X, Y = _problem(0)
    X = X.copy()
    X[4, 1] = np.nan
    S, coef = np.zeros((50, 3)), np.zeros(50)
    status, end, _ = kb.kernel_ogd_fill(X, Y, 0, N, S, coef, 0, 0.5, 0.2, 0, np.zeros(50),
                                        np.zeros(N, dtype=np.int64), np.zeros(N))
    assert status == kb.KernelStatus.NONFINITE and end == 4


def _pnk_state(seed: int, n: int, d: int = 3):
    if n == 0:
        return np.zeros((0, d)), np.zeros((0, 0)), np.zeros(0), np.zeros((0, 0))
    rng = np.random.default_rng(100 + seed)
    S = rng.normal(size=(n, d))
    K = np.array([ref.gauss_row(S, s, 0.5) for s in S])
    vals, vecs = np.linalg.eigh(K)
    P = np.ascontiguousarray((vecs / np.sqrt(vals)).T)
    p = rng.uniform(0.3, 1.0, size=n)
    W = np.diag(1.0 / np.sqrt(p))
    Kinv = np.linalg.inv(W @ K @ W + np.eye(n))
    return S, P, p, Kinv


@pytest.mark.parametrize("kors", [True, False])
@pytest.mark.parametrize("n", [0, 5])
@pytest.mark.parametrize("seed", range(3))
def test_pnk_loop_vs_reference(seed: int, n: int, kors: bool) -> None:
    """PROS-N-KONS rounds: same predictions, scores, ONS state, accepted round and
    probability, and the same random draws as the NumPy loop."""
    _, _, X, Y = _problem(seed, d=3)
    S, P, p, Kinv = _pnk_state(seed, n)
    r = P.shape[0]
    v0, A0 = np.zeros(r), np.eye(r) / 0.01
    v, Ainv, w, u = v0.copy(), A0.copy(), np.zeros(r), np.zeros(r)
    preds = np.full(N, -1, dtype=np.int64)
    scores = np.full(N, np.nan)
    eps = 0.5 if n == 0 else 40.0  # large enough to accept a point within N rounds
    rng, rng_ref = np.random.default_rng(seed), np.random.default_rng(seed)
    status, end, pacc = kb.pnk_loop(X, Y, 0, N, S, n, 0.5, P, v, Ainv, w, u, 1.0, True, 0.5,
                                    seed % 2, p, Kinv, 1.0, eps, 1.0, kors, rng, np.zeros(8),
                                    preds, scores)
    p_ref, s_ref, v_ref, A_ref, end_ref, pacc_ref = ref.pnk_loop(
        X, Y, S, 0.5, P, v0, A0, 1.0, True, 0.5, seed % 2, p, Kinv, 1.0, eps, 1.0, kors,
        rng_ref)
    assert status == kb.KernelStatus.OK
    assert end == end_ref and pacc == pytest.approx(pacc_ref, rel=1e-12)
    if kors:
        assert end < N and pacc > 0.0  # stopped at an accepted round
    else:
        assert end == N and pacc == 0.0
    assert_array_equal(preds[:end], p_ref)
    assert np.all(preds[end:] == -1)
    assert_allclose(scores[:end], s_ref, rtol=1e-9, atol=1e-12)
    assert_allclose(v, v_ref, rtol=1e-7, atol=1e-9)
    assert_allclose(Ainv, A_ref, rtol=1e-7, atol=1e-7)
    assert rng.random() == rng_ref.random()  # the same number of draws


def test_pnk_loop_flags_nonfinite() -> None:
    _, _, X, Y = _problem(1)
    X = X.copy()
    X[7, 0] = np.nan
    S, P, p, Kinv = _pnk_state(1, 4)
    r = P.shape[0]
    status, end, _ = kb.pnk_loop(X, Y, 0, N, S, 4, 0.5, P, np.zeros(r), np.eye(r),
                                 np.zeros(r), np.zeros(r), 1.0, True, 0.5, 0, p, Kinv, 1.0,
                                 0.5, 1.0, False, np.random.default_rng(0), np.zeros(4),
                                 np.zeros(N, dtype=np.int64), np.zeros(N))
    assert status == kb.KernelStatus.NONFINITE and end == 7
