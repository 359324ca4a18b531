"""The FORKS-layer numba kernels (streamlearn/kernels/forks_budget.py): against the NumPy
references in tests/reference/forks_budget.py (also run without the JIT by
tests/kernels/test_nojit.py), then, compiled only, the bit identity of the fast paths with
the straightforward forms they replace.

The committed FORKS / SkeGD / PROS-N-KONS results depend on the exact floating-point
behaviour, so the reordered kernels (independent ordered sums run side by side, transposed
operands, half the Gram matrix, the CountSketch product by scatter-adds) must give the
same bits as the plain loops and the dense BLAS product: ``assert_array_equal``, no
tolerance. The plain forms below are the kernels as they were before the reordering.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from numba import njit
from numpy.testing import assert_allclose, assert_array_equal
from threadpoolctl import threadpool_limits

from streamlearn.algorithms.kernel.forks_sketch import SCATTER_MIN_WORK, IncrementalSketch
from streamlearn.kernels import forks_budget as kb
from tests.reference import forks_budget as ref

pytestmark = pytest.mark.floatpath  # run under several BLAS kernels: make test-blas-kernels

SMALL = bool(numba.config.DISABLE_JIT)
#: the bit-identity tests are about the compiled kernels (and take minutes interpreted)
compiled_only = pytest.mark.skipif(SMALL, reason="bit identity of the compiled kernels")
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
    K = np.full((cap, cap), np.nan)
    status, end, n = kb.kernel_ogd_fill(X, Y, 0, 5, S, coef, 0, 0.5, 0.2, loss, krow, preds,
                                        scores, K)
    assert status == kb.KernelStatus.OK and end == 5 and 0 < n < cap
    status, end, n = kb.kernel_ogd_fill(X, Y, 5, N, S, coef, n, 0.5, 0.2, loss, krow, preds,
                                        scores, K)
    p_ref, s_ref, S_ref, c_ref, n_ref, end_ref = ref.kernel_ogd_fill(
        X, Y, np.zeros((cap, 3)), np.zeros(cap), 0, 0.5, 0.2, loss)
    assert status == kb.KernelStatus.OK
    assert (n, end) == (n_ref, end_ref) and n == cap and end < N  # stopped when full
    assert_array_equal(preds[:end], p_ref)
    assert np.all(preds[end:] == -1) and np.all(np.isnan(scores[end:]))  # nothing after
    assert_allclose(scores[:end], s_ref, rtol=1e-12, atol=1e-15)
    assert_array_equal(S, S_ref)
    assert_allclose(coef, c_ref, rtol=1e-12)
    # the kept kernel rows: below the diagonal only, those of the stored points
    K_ref = ref.kernel_rows(S_ref, 0.5)
    low = np.tril(np.ones((cap, cap), dtype=bool), -1)
    assert_allclose(K[low], K_ref[low], rtol=1e-14)
    assert np.all(np.isnan(K[~low]))
    # without a row store (0 x 0) the run is the same
    S2, c2 = np.zeros((cap, 3)), np.zeros(cap)
    p2, f2 = np.full(N, -1, dtype=np.int64), np.full(N, np.nan)
    st2, end2, n2 = kb.kernel_ogd_fill(X, Y, 0, N, S2, c2, 0, 0.5, 0.2, loss, np.zeros(cap),
                                       p2, f2, np.zeros((0, 0)))
    assert (st2, end2, n2) == (status, end, n)
    assert_array_equal(p2, preds)
    assert_array_equal(f2, scores)
    assert_array_equal(S2, S)


@pytest.mark.parametrize("seed", range(3))
def test_gram_from_rows_vs_reference_and_gauss_gram(seed: int) -> None:
    """The set-up's Gram matrix from the rows stage 1 kept equals the NumPy reference and,
    bit for bit, :func:`gauss_gram` of the buffer (compiled and interpreted alike: the same
    ordered sums and exponentials), which it replaces."""
    _, _, X, Y = _problem(seed, d=5)
    X = X * 2.0
    cap = 25 if SMALL else 120
    S, coef = np.zeros((cap, 5)), np.zeros(cap)
    K = np.full((cap, cap), np.nan)
    status, _, n = kb.kernel_ogd_fill(X, np.where(Y > 0, 1.0, -1.0), 0, X.shape[0], S, coef,
                                        0, 0.3, 0.2, 0, np.zeros(cap),
                                        np.zeros(X.shape[0], dtype=np.int64),
                                        np.zeros(X.shape[0]), K)
    assert status == kb.KernelStatus.OK and n == cap, (status, n)
    Kc = K.copy()
    out = kb.gram_from_rows(Kc, S, 0.3)
    assert out is Kc or np.shares_memory(out, Kc)  # in place
    assert_allclose(Kc, ref.gram_from_rows(K, S, 0.3), rtol=1e-14)
    assert_array_equal(Kc, kb.gauss_gram(S, 0.3))
    assert_array_equal(Kc, Kc.T)
    # non-finite points: the diagonal is computed as gauss_gram does (NaN, not 1)
    P = np.array([[0.0, 1.0], [np.nan, 2.0], [np.inf, 0.0]])
    with np.errstate(invalid="ignore"):  # inf - inf without the JIT
        low = np.tril(kb.gauss_matrix(P, P, 0.5), -1)
        assert_array_equal(kb.gram_from_rows(low.copy(), P, 0.5), kb.gauss_gram(P, 0.5))


def test_kernel_ogd_fill_flags_nonfinite() -> None:
    _, _, X, Y = _problem(0)
    X = X.copy()
    X[4, 1] = np.nan
    S, coef = np.zeros((50, 3)), np.zeros(50)
    status, end, _ = kb.kernel_ogd_fill(X, Y, 0, N, S, coef, 0, 0.5, 0.2, 0, np.zeros(50),
                                        np.zeros(N, dtype=np.int64), np.zeros(N),
                                        np.zeros((50, 50)))
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


# ======================================================================================
# Bit identity of the fast paths (compiled only)
# ======================================================================================

# --------------------------------------------------------------------------------------
# the plain loops (one ordered sum at a time)
# --------------------------------------------------------------------------------------


@njit
def _gauss_row(S, n, x, gamma, out):  # type: ignore[no-untyped-def]
    d = x.shape[0]
    for i in range(n):
        acc = 0.0
        for j in range(d):
            diff = S[i, j] - x[j]
            acc += diff * diff
        out[i] = np.exp(-gamma * acc)


@njit
def _feature_map(x, L, gamma, Z, m, z):  # type: ignore[no-untyped-def]
    sm, k = Z.shape
    _gauss_row(L, sm, x, gamma, m)
    for c in range(k):
        acc = 0.0
        for j in range(sm):
            acc += Z[j, c] * m[j]
        z[c] = acc


@njit
def _ons_score(z, v, Ainv, C, project, w, u):  # type: ignore[no-untyped-def]
    k = z.shape[0]
    p = 0.0
    for i in range(k):
        p += z[i] * v[i]
    if project and abs(p) > C:
        zu = 0.0
        for i in range(k):
            acc = 0.0
            for j in range(k):
                acc += Ainv[i, j] * z[j]
            u[i] = acc
            zu += z[i] * acc
        s = 1.0 if p > 0 else -1.0
        step = s * (abs(p) - C) / zu if zu > 0 else 0.0
        for i in range(k):
            w[i] = v[i] - step * u[i]
        return s * C
    for i in range(k):
        w[i] = v[i]
    return p


@njit
def _ons_step(z, w, f, y, loss, cw, Ainv, v, u):  # type: ignore[no-untyped-def]
    k = z.shape[0]
    dl = kb.dloss(f, y, loss)
    if dl == 0.0:
        for i in range(k):
            v[i] = w[i]
        return
    gu = 0.0
    for i in range(k):
        acc = 0.0
        for j in range(k):
            acc += Ainv[i, j] * z[j]
        u[i] = dl * acc
        gu += dl * z[i] * u[i]
    den = 1.0 + cw * gu
    c = cw / den
    for i in range(k):
        ci = c * u[i]
        for j in range(k):
            Ainv[i, j] -= ci * u[j]
    for i in range(k):
        v[i] = w[i] - u[i] / den


@njit
def _stage2_loop(X, Y, start, stop, L, gamma, Z, v, Ainv, C, project,  # type: ignore
                 second_order, cw, eta, lam, loss, preds, scores):
    sm, k = Z.shape
    m = np.empty(sm)
    z = np.empty(k)
    w = np.empty(k)
    u = np.empty(k)
    for t in range(start, stop):
        _feature_map(X[t], L, gamma, Z, m, z)
        if second_order:
            f = _ons_score(z, v, Ainv, C, project, w, u)
        else:
            f = 0.0
            for i in range(k):
                f += z[i] * v[i]
        if not np.isfinite(f):
            return 1
        preds[t] = 1 if f >= 0.0 else 0
        scores[t] = f
        if second_order:
            _ons_step(z, w, f, Y[t], loss, cw, Ainv, v, u)
        else:
            kb.first_order_step(z, f, Y[t], loss, eta, lam, v)
    return 0


def _bits_problem(seed: int, sm: int, k: int, d: int, n: int):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(sm, d))
    Z = rng.normal(size=(sm, k)) * rng.choice([0.1, 0.3, 1.0])
    X = rng.normal(size=(n, d))
    Y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    return L, Z, X, Y


# --------------------------------------------------------------------------------------
# kernels
# --------------------------------------------------------------------------------------


@compiled_only
@pytest.mark.parametrize("shape", [(100, 50, 8), (10, 5, 8), (37, 13, 3), (20, 9, 1)])
@pytest.mark.parametrize("seed", range(4))
def test_feature_map_bits(seed: int, shape: tuple[int, int, int]) -> None:
    sm, k, d = shape
    L, Z, X, _ = _bits_problem(seed, sm, k, d, 20)
    for x in X:
        m1, z1 = np.empty(sm), np.empty(k)
        m2, z2 = np.empty(sm), np.empty(k)
        kb.feature_map(x, L, 0.3, Z, m1, z1)
        _feature_map(x, L, 0.3, Z, m2, z2)
        assert_array_equal(m1, m2)
        assert_array_equal(z1, z2)


@compiled_only
@pytest.mark.parametrize("loss", [0, 1])
@pytest.mark.parametrize("project", [True, False])
@pytest.mark.parametrize("second_order", [True, False])
@pytest.mark.parametrize("shape", [(100, 50, 8), (10, 5, 8), (37, 13, 3)])
@pytest.mark.parametrize("seed", range(3))
def test_stage2_loop_bits(seed: int, shape: tuple[int, int, int], second_order: bool,
                          project: bool, loss: int) -> None:
    """The fused stage-2 loop (transposed landmarks and ``A^{-1}``, the projected round's
    ``A^{-1} z`` reused by its step) equals the plain per-round kernels bit for bit."""
    sm, k, d = shape
    n = 400
    L, Z, X, Y = _bits_problem(seed, sm, k, d, n)
    rng = np.random.default_rng(seed + 100)
    v0 = rng.normal(size=k) * 0.1
    G = rng.normal(size=(k, k))
    A0 = np.linalg.inv(G @ G.T + 0.5 * np.eye(k))  # not exactly symmetric after updates
    out = []
    for fn in (kb.sketch_stage2_loop, _stage2_loop):
        v, Ainv = v0.copy(), A0.copy()
        preds = np.full(n, -1, dtype=np.int64)
        scores = np.full(n, np.nan)
        st = fn(X, Y, 5, n - 3, L, 0.05, Z, v, Ainv, 0.05, project, second_order, 0.5, 0.002,
                0.01, loss, preds, scores)
        out.append((st, preds, scores, v, Ainv))
    (s1, p1, f1, v1, A1), (s2, p2, f2, v2, A2) = out
    assert s1 == s2 == 0, (s1, s2)
    assert_array_equal(p1, p2)
    assert_array_equal(f1, f2)
    assert_array_equal(v1, v2)
    assert_array_equal(A1, A2)
    if second_order and project:
        assert np.any(np.abs(f1[5:n - 3]) == 0.05)  # projected rounds occur
    if second_order:
        assert not np.array_equal(A1, A0)  # the inverse was updated and written back


@compiled_only
def test_stage2_loop_bits_nonfinite_writes_back() -> None:
    L, Z, X, Y = _bits_problem(0, 10, 5, 3, 50)
    X = X.copy()
    X[30, 0] = np.nan
    out = []
    for fn in (kb.sketch_stage2_loop, _stage2_loop):
        v, Ainv = np.zeros(5), np.eye(5) * 3.0
        preds, scores = np.zeros(50, dtype=np.int64), np.zeros(50)
        st = fn(X, Y, 0, 50, L, 0.4, Z, v, Ainv, 1.0, True, True, 0.5, 0.2, 0.0, 0, preds,
                scores)
        out.append((st, v, Ainv, scores))
    assert out[0][0] == out[1][0] == kb.KernelStatus.NONFINITE
    for a, b in zip(out[0][1:], out[1][1:], strict=True):
        assert_array_equal(a, b)


@compiled_only
@pytest.mark.parametrize("n", [1, 2, 7, 100, 333, 1000])
def test_gauss_gram_bits(n: int) -> None:
    rng = np.random.default_rng(n)
    P = rng.normal(size=(n, 8)) * 5.0
    for gamma in (1e-3, 0.1, 2.0):
        K = kb.gauss_gram(P, gamma)
        assert_array_equal(K, kb.gauss_matrix(P, P, gamma))
        assert_array_equal(K, K.T)


# --------------------------------------------------------------------------------------
# S_p^T K S_p by scatter-adds vs the dense BLAS product
# --------------------------------------------------------------------------------------


@compiled_only
def test_gemm_k_blocks() -> None:
    def ends(k: int) -> list[int]:
        b = kb.gemm_k_block_ids(k)
        return [int(i) + 1 for i in np.flatnonzero(np.diff(b))] + [k]

    assert ends(100) == [100]
    assert ends(512) == [256, 512]
    assert ends(600) == [256, 428, 600]
    assert ends(1000) == [256, 512, 756, 1000]
    assert ends(1050) == [256, 512, 768, 912, 1050]


_SHAPES = [(1000, 500), (100, 50), (200, 100), (400, 200), (400, 150), (600, 300),
           (1050, 50), (1250, 50), (2000, 1000), (1030, 64), (513, 2)]


def _dense_sketch_gram(K: np.ndarray, h: np.ndarray, g: np.ndarray, sp: int) -> np.ndarray:
    Sp = np.zeros((K.shape[0], sp))
    Sp[np.arange(K.shape[0]), h] = g
    return Sp.T @ K @ Sp


def _rounding_bound(K: np.ndarray, h: np.ndarray, sp: int) -> np.ndarray:
    """Entrywise bound on two orders of the same sums ``S^T K S`` apart: ``2 n u`` per
    product (recursive summation of ``n`` terms) times ``|S|^T |K| |S|``."""
    S = np.zeros((K.shape[0], sp))
    S[np.arange(K.shape[0]), h] = 1.0
    return 4.0 * K.shape[0] * np.finfo(float).eps * (S.T @ np.abs(K) @ S)


def _haswell_single_thread() -> bool:
    """NumPy's own OpenBLAS runs the Haswell kernels on one thread (the BLAS whose dense
    ``S.T @ K @ S`` :func:`~streamlearn.kernels.forks_budget.sketch_gram` reproduces)."""
    from pathlib import Path

    from threadpoolctl import ThreadpoolController

    numpy_libs = Path(np.__file__).resolve().parent.parent / "numpy.libs"
    for lib in ThreadpoolController().lib_controllers:
        if (lib.internal_api == "openblas" and Path(lib.filepath).parent == numpy_libs):
            return (str(lib.architecture).lower() == "haswell"
                    and lib.get_num_threads() == 1)
    return False


def _sketch_problem(n: int, sp: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    P = rng.normal(size=(n, 8)) * rng.choice([0.3, 1.0, 3.0])
    K = kb.gauss_matrix(P, P, float(rng.choice([0.01, 0.1, 1.0])))
    h = rng.integers(0, sp, size=n)
    g = rng.choice(np.array([-1.0, 1.0]), size=n)
    return K, h, g


@compiled_only
@pytest.mark.parametrize("shape", _SHAPES)
def test_sketch_gram_equals_haswell_blas_bitwise(shape: tuple[int, int]) -> None:
    """On single-threaded OpenBLAS with the Haswell kernels the scatter-add product equals
    the dense product bit for bit (even ``s_p``) over random problems of the real shapes:
    so a FORKS run's ``Phi_pp`` is what the dense product gave there, on every machine."""
    n, sp = shape
    with threadpool_limits(limits=1):
        if not _haswell_single_thread():
            pytest.skip("NumPy's OpenBLAS does not run the Haswell kernels here")
        for seed in range(3):
            K, h, g = _sketch_problem(n, sp, n + sp + seed)
            assert_array_equal(kb.sketch_gram(K, h, g, sp), _dense_sketch_gram(K, h, g, sp))


@compiled_only
@pytest.mark.parametrize("shape", [(1000, 500), (1050, 50), (513, 2), (400, 150), (301, 75)])
def test_sketch_gram_near_any_blas(shape: tuple[int, int]) -> None:
    """On any BLAS and thread count (odd ``s_p`` too) the same sums as the dense product
    in another order: within the rounding bound of two orders of ``n`` terms."""
    n, sp = shape
    for threads in (1, None):
        with threadpool_limits(limits=threads):
            K, h, g = _sketch_problem(n, sp, n * sp)
            diff = np.abs(kb.sketch_gram(K, h, g, sp) - _dense_sketch_gram(K, h, g, sp))
            assert (diff <= _rounding_bound(K, h, sp)).all()


@compiled_only
@pytest.mark.parametrize("sp", [50, 75, 500])
def test_sketch_init_phi_pp_equals_the_dense_product(sp: int) -> None:
    """``Phi_pp`` is ``S_p^T K S_p``: the dense product of the BLAS in use below
    ``SCATTER_MIN_WORK`` and on Haswell OpenBLAS (one thread, even ``s_p``) bit for bit,
    within rounding of it otherwise; ``Phi_pm`` is the scatter of ``K S_m``."""
    rng = np.random.default_rng(sp)
    P = rng.normal(size=(2 * sp, 6))
    for threads in (1, None):
        with threadpool_limits(limits=threads):
            sk = IncrementalSketch(sp, max(1, sp // 5), 0.2, np.random.default_rng(3))
            sk.init(P)
            K = kb.gauss_matrix(P, P, 0.2)
            Sp = sk.sketch_matrix()
            n = P.shape[0]
            if sp * n * n < SCATTER_MIN_WORK or (sp % 2 == 0 and _haswell_single_thread()):
                assert_array_equal(sk.Phi_pp, Sp.T @ K @ Sp)
            else:
                assert sp * n * n >= SCATTER_MIN_WORK
                diff = np.abs(sk.Phi_pp - Sp.T @ K @ Sp)
                assert (diff <= _rounding_bound(K, sk.h[:n], sp)).all()
            Sm = np.zeros((P.shape[0], sk.J.shape[0]))
            Sm[sk.J, np.arange(sk.J.shape[0])] = 1.0
            ref = np.zeros((sp, sk.J.shape[0]))
            np.add.at(ref, sk.h[: sk.n], sk.g[: sk.n, None] * K[:, sk.J])
            assert_array_equal(sk.Phi_pm, ref)
