"""The sketch layer of FORKS and SkeGD (streamlearn/algorithms/kernel/forks_sketch.py): TISVD
(Algorithm 2) against numpy.linalg.svd, the incremental sketch (Eq. 11) against
recomputation from scratch, and the feature-map identity (Eq. 5)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from streamlearn.algorithms.kernel.forks_sketch import (
    IncrementalSketch,
    add_sketch_update,
    feature_matrix,
    tisvd,
    top_k_eigh,
)
from streamlearn.kernels.forks_budget import gauss_matrix


def _lowrank_svd(M: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    U, s, Vt = np.linalg.svd(M)
    return U[:, :k], s[:k], Vt[:k].T


def _projector(U: np.ndarray) -> np.ndarray:
    return U @ U.T


# --------------------------------------------------------------------------------------
# TISVD vs numpy.linalg.svd
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_tisvd_untruncated_reconstructs_the_update(seed: int) -> None:
    """k = n: U S V^T after the update equals M + D1 D2^T exactly (spec test 2)."""
    rng = np.random.default_rng(seed)
    n, c = 12, 3
    M = rng.normal(size=(n, n))
    U, S, V = _lowrank_svd(M, n)
    D1, D2 = rng.normal(size=(n, c)), rng.normal(size=(n, c))
    U2, S2, V2 = tisvd(U, S, V, D1, D2, n)
    assert_allclose((U2 * S2) @ V2.T, M + D1 @ D2.T, atol=1e-11)
    assert_allclose(S2, np.linalg.svd(M + D1 @ D2.T, compute_uv=False), rtol=1e-11)
    assert_allclose(U2.T @ U2, np.eye(n), atol=1e-11)


@pytest.mark.parametrize("seed", range(5))
def test_tisvd_truncated_matches_svd_of_tracked_matrix(seed: int) -> None:
    """k < n, a sequence of symmetric FORKS-type updates (Eq. 12): after each one, the
    singular values and the left/right subspaces equal those of numpy's SVD of (tracked
    rank-k matrix + update)."""
    rng = np.random.default_rng(seed)
    n, k = 15, 5
    G = rng.normal(size=(n, n))
    M = G @ G.T
    U, S, V = _lowrank_svd(M, k)
    for _ in range(8):
        s = np.zeros(n)
        s[rng.integers(n)] = rng.choice([-1.0, 1.0])
        a = rng.normal(size=n)
        D1, D2 = np.column_stack([s, a, s]), np.column_stack([a, s, s])
        target = (U * S) @ V.T + D1 @ D2.T
        U, S, V = tisvd(U, S, V, D1, D2, k)
        Ur, Sr, Vr = _lowrank_svd(target, k)
        assert_allclose(S, Sr, rtol=1e-10)
        assert_allclose(_projector(U), _projector(Ur), atol=1e-8)
        assert_allclose(_projector(V), _projector(Vr), atol=1e-8)


def test_tisvd_ill_conditioned_and_rank_deficient_update() -> None:
    """Singular values spanning 1e-12..1, and Delta_1 with the column s twice (R_1 has a
    zero on its diagonal): still the top-k of numpy's SVD."""
    rng = np.random.default_rng(7)
    n, k = 20, 6
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    M = (Q * np.logspace(0, -12, n)) @ Q.T
    U, S, V = _lowrank_svd(M, k)
    s = np.zeros(n)
    s[3] = 1.0
    a = 1e-6 * rng.normal(size=n)
    D1, D2 = np.column_stack([s, a, s]), np.column_stack([a, s, s])
    target = (U * S) @ V.T + D1 @ D2.T
    U2, S2, _ = tisvd(U, S, V, D1, D2, k)
    Ur, Sr, _ = _lowrank_svd(target, k)
    assert_allclose(S2, Sr, rtol=1e-9, atol=1e-15)
    assert_allclose(_projector(U2[:, :3]), _projector(Ur[:, :3]), atol=1e-7)


def test_tisvd_keeps_orthonormal_bases_when_the_update_lies_in_the_span() -> None:
    """k = n: U spans the whole space, so U_A is pure round-off; with the second
    Gram-Schmidt pass the bases stay orthonormal over many updates (with one pass, FORKS
    with k = s_p lost orthonormality completely within four update rounds). A rank-
    deficient M with k = n is not covered: the singular vector of a zero singular value
    is then arbitrary, which FORKS (k = 0.1 B << s_p) never keeps."""
    rng = np.random.default_rng(3)
    n = 10
    G = rng.normal(size=(n, n))
    M = G.T @ G + np.eye(n)
    U, S, V = _lowrank_svd(M, n)
    for _ in range(30):
        s = np.zeros(n)
        s[rng.integers(n)] = 1.0
        a = rng.normal(size=n)
        D1, D2 = np.column_stack([s, a, s]), np.column_stack([a, s, s])
        target = (U * S) @ V.T + D1 @ D2.T
        U, S, V = tisvd(U, S, V, D1, D2, n)
        assert_allclose((U * S) @ V.T, target, atol=1e-10)
        assert_allclose(U.T @ U, np.eye(n), atol=1e-10)
        assert_allclose(V.T @ V, np.eye(n), atol=1e-10)


# --------------------------------------------------------------------------------------
# incremental sketch vs recomputation
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["random", "duplicates", "wide_kernel"])
@pytest.mark.parametrize("seed", range(4))
def test_incremental_sketch_equals_recomputation(seed: int, case: str) -> None:
    """After every insertion Phi_pm, Phi_pp equal S_p^T K S_m, S_p^T K S_p recomputed from
    the stored points (spec test 1). 'duplicates' repeats points (singular K),
    'wide_kernel' uses a huge sigma (K close to all ones, ill-conditioned)."""
    rng = np.random.default_rng(seed)
    d = 4
    P = rng.normal(size=(20, d))
    gamma = 0.5 if case != "wide_kernel" else 1e-8
    if case == "duplicates":
        P[10:] = P[:10]
    sk = IncrementalSketch(sp=8, sm=3, gamma=gamma, rng=np.random.default_rng(seed))
    sk.init(P)
    pm, pp = sk.recompute()
    assert_allclose(sk.Phi_pm, pm, atol=1e-12)
    assert_allclose(sk.Phi_pp, pp, atol=1e-12)
    for i in range(40):  # more than the initial capacity: the store grows
        x = P[i % 20] if case == "duplicates" else rng.normal(size=d)
        sk.insert(x)
        pm, pp = sk.recompute()
        assert_allclose(sk.Phi_pm, pm, atol=1e-10)
        assert_allclose(sk.Phi_pp, pp, atol=1e-10)
    assert sk.n == 60


def test_feature_map_identity_with_identity_sketches() -> None:
    """S_p = I_n, S_m = I_n, k = n: the features of the points satisfy F F^T = K (spec
    test 3)."""
    rng = np.random.default_rng(0)
    n, gamma = 10, 0.3
    P = rng.normal(size=(n, 3))
    sk = IncrementalSketch(sp=n, sm=n, gamma=gamma, rng=rng)
    sk.init(P)
    sk.h[:n] = np.arange(n)
    sk.g[:n] = 1.0
    sk.J = np.arange(n)
    sk.landmarks = P.copy()
    sk.Phi_pm, sk.Phi_pp = sk.recompute()
    S, V = top_k_eigh(sk.Phi_pp, n)
    Z = feature_matrix(sk.Phi_pm, V, S)
    F = gauss_matrix(P, sk.landmarks, gamma) @ Z
    assert_allclose(F @ F.T, gauss_matrix(P, P, gamma), atol=1e-9)


@pytest.mark.floatpath
@pytest.mark.parametrize("seed", range(3))
def test_in_place_phi_pp_update_is_the_dense_formula_bitwise(seed: int) -> None:
    """``add_sketch_update`` (issue 25 item 4) against the formula it replaces,
    ``Phi_pp += outer(s, a) + outer(a, s) + outer(s, s)``, bit for bit and with the signs
    of zeros: exact zeros, negative zeros and negative entries in ``Phi_pp`` and ``a``, both
    signs of ``g_n``; a non-finite ``a`` takes the dense formula itself."""
    rng = np.random.default_rng(seed)
    sp = 37
    Phi = rng.normal(size=(sp, sp))
    Phi[rng.random((sp, sp)) < 0.2] = 0.0
    Phi[rng.random((sp, sp)) < 0.2] = -0.0
    ref = Phi.copy()
    for t in range(200):
        hn = int(rng.integers(sp))
        s = np.zeros(sp)
        s[hn] = rng.choice([-1.0, 1.0])
        a = rng.normal(size=sp)
        a[rng.random(sp) < 0.2] = 0.0
        a[rng.random(sp) < 0.2] = -0.0
        if t % 50 == 49:
            a[int(rng.integers(sp))] = np.inf
        with np.errstate(invalid="ignore"):  # 0 * inf in the non-finite rounds
            ref += np.outer(s, a) + np.outer(a, s) + np.outer(s, s)
            add_sketch_update(Phi, s, a, hn)
        if np.all(np.isfinite(ref)):
            np.testing.assert_array_equal(Phi, ref)
            np.testing.assert_array_equal(np.signbit(Phi), np.signbit(ref))
        else:
            np.testing.assert_array_equal(np.isnan(Phi), np.isnan(ref))
            Phi = rng.normal(size=(sp, sp))
            ref = Phi.copy()
