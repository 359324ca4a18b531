"""Bit-identity of the FORKS fast paths with the straightforward forms they replace.

The committed FORKS / SkeGD / PROS-N-KONS results depend on the exact floating-point
behaviour, so the reordered kernels (independent ordered sums run side by side, transposed
operands, half the Gram matrix, the CountSketch product by scatter-adds) must give the
same bits as the plain loops and the dense BLAS product: ``assert_array_equal``, no
tolerance. The plain forms below are the kernels as they were before the reordering.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from numpy.testing import assert_array_equal
from threadpoolctl import threadpool_limits

from streamlearn.algorithms.kernel.forks_sketch import (
    IncrementalSketch,
    _dense_sketch_gram,
    sketch_gram_exact,
)
from streamlearn.kernels import forks_budget as kb

pytestmark = pytest.mark.floatpath  # run under several BLAS kernels: make test-blas-kernels

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


def _problem(seed: int, sm: int, k: int, d: int, n: int):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(sm, d))
    Z = rng.normal(size=(sm, k)) * rng.choice([0.1, 0.3, 1.0])
    X = rng.normal(size=(n, d))
    Y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    return L, Z, X, Y


# --------------------------------------------------------------------------------------
# kernels
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(100, 50, 8), (10, 5, 8), (37, 13, 3), (20, 9, 1)])
@pytest.mark.parametrize("seed", range(4))
def test_feature_map_bits(seed: int, shape: tuple[int, int, int]) -> None:
    sm, k, d = shape
    L, Z, X, _ = _problem(seed, sm, k, d, 20)
    for x in X:
        m1, z1 = np.empty(sm), np.empty(k)
        m2, z2 = np.empty(sm), np.empty(k)
        kb.feature_map(x, L, 0.3, Z, m1, z1)
        _feature_map(x, L, 0.3, Z, m2, z2)
        assert_array_equal(m1, m2)
        assert_array_equal(z1, z2)


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
    L, Z, X, Y = _problem(seed, sm, k, d, n)
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


def test_stage2_loop_bits_nonfinite_writes_back() -> None:
    L, Z, X, Y = _problem(0, 10, 5, 3, 50)
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


@pytest.mark.parametrize("shape", _SHAPES)
def test_sketch_gram_equals_blas_when_enabled(shape: tuple[int, int]) -> None:
    """Where the fast path is enabled (even ``s_p``, NumPy's single-threaded OpenBLAS with
    the Haswell kernels, the one-off self-check passed) it equals the dense product bit for
    bit over random problems of the real shapes; elsewhere it is not used."""
    n, sp = shape
    with threadpool_limits(limits=1):
        if not sketch_gram_exact(sp):
            pytest.skip("scatter-add path not enabled with this BLAS")
        rng = np.random.default_rng(n + sp)
        for _ in range(3):
            P = rng.normal(size=(n, 8)) * rng.choice([0.3, 1.0, 3.0])
            K = kb.gauss_matrix(P, P, float(rng.choice([0.01, 0.1, 1.0])))
            h = rng.integers(0, sp, size=n)
            g = rng.choice(np.array([-1.0, 1.0]), size=n)
            assert_array_equal(kb.sketch_gram(K, h, g, sp), _dense_sketch_gram(K, h, g, sp))


def test_sketch_gram_exact_conditions() -> None:
    assert not sketch_gram_exact(75)  # odd s_p: the dense product
    with threadpool_limits(limits=2):
        from threadpoolctl import threadpool_info

        if any(i["num_threads"] == 2 for i in threadpool_info()):
            assert not sketch_gram_exact(500)  # several BLAS threads: the dense product


@pytest.mark.parametrize("sp", [50, 75, 500])
def test_sketch_init_phi_pp_equals_the_dense_product(sp: int) -> None:
    """Whatever path ``init`` takes, ``Phi_pp`` is the dense ``S_p^T K S_p`` of the BLAS
    in use (and ``Phi_pm`` the scatter of ``K S_m``)."""
    rng = np.random.default_rng(sp)
    P = rng.normal(size=(2 * sp, 6))
    for threads in (1, None):
        with threadpool_limits(limits=threads):
            sk = IncrementalSketch(sp, max(1, sp // 5), 0.2, np.random.default_rng(3))
            sk.init(P)
            K = kb.gauss_matrix(P, P, 0.2)
            Sp = sk.sketch_matrix()
            assert_array_equal(sk.Phi_pp, Sp.T @ K @ Sp)
            Sm = np.zeros((P.shape[0], sk.J.shape[0]))
            Sm[sk.J, np.arange(sk.J.shape[0])] = 1.0
            ref = np.zeros((sp, sk.J.shape[0]))
            np.add.at(ref, sk.h[: sk.n], sk.g[: sk.n, None] * K[:, sk.J])
            assert_array_equal(sk.Phi_pm, ref)
