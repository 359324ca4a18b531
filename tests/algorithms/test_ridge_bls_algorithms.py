"""The six output-weight algorithms of the Ridge-BLS paper against the direct ridge solve
(spec §2.7): every recursive update is compared with a direct solve on the prefix, over
several seeds, including an ill-conditioned case and a Cholesky failure (NA)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

from streamlearn import components, registry
from streamlearn.algorithms.bls._node_incremental import NotPositiveDefinite, ichol
from streamlearn.checks.node_learners import direct_ridge, grow

components.load_all()
RIDGE = ("bls_chol1", "bls_chol2", "bls_rinv")
GENINV = ("bls_orig", "bls_exg_e")


def _problem(n: int, k0: int, q: int, updates: int, seed: int, d: int = 50):
    """tanh features of a Gaussian input (spec §2.7), random one-hot targets."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    A = np.asfortranarray(np.tanh(X @ rng.normal(size=(d, k0 + updates * q)) / np.sqrt(d)))
    Y = np.eye(10)[rng.integers(0, 10, n)]
    return A, Y


def _rel(a, b):
    return float(np.abs(a - b).max() / np.abs(b).max())


def _run(name, lam, A, Y, k0, q):
    return grow(registry.ALGORITHMS[name](lam=lam), A, Y, k0, q)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("lam", [1.0, 1e-3])
def test_ridge_family_equals_direct_ridge_after_every_update(seed, lam):
    k0, q = 80, 40
    A, Y = _problem(600, k0, q, 4, seed)
    ref = _run("d_rdg", lam, A, Y, k0, q)
    for j, W in enumerate(ref):  # D-Rdg itself is the direct solve on the prefix
        assert _rel(W, direct_ridge(A[:, :k0 + j * q], Y, lam)) < 1e-10
    for name in RIDGE:
        for j, W in enumerate(_run(name, lam, A, Y, k0, q)):
            assert _rel(W, ref[j]) <= 1e-9, (name, j)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("lam", [1.0, 1e-3, 2.0 ** -30])
def test_orig_equals_exg_e(seed, lam):
    k0, q = 80, 40
    A, Y = _problem(600, k0, q, 4, seed)
    for a, b in zip(_run("bls_orig", lam, A, Y, k0, q), _run("bls_exg_e", lam, A, Y, k0, q),
                    strict=True):
        assert _rel(a, b) <= 1e-9


def test_generalized_inverse_pair_departs_from_ridge_as_lambda_grows():
    k0, q = 80, 40
    A, Y = _problem(600, k0, q, 4, 0)
    gaps = []
    for lam in (1e-6, 1e-3, 1.0):
        ridge = direct_ridge(A, Y, lam)
        gap = _rel(_run("bls_orig", lam, A, Y, k0, q)[-1], ridge)
        assert _rel(_run("bls_chol2", lam, A, Y, k0, q)[-1], ridge) < 1e-9
        gaps.append(gap)
    assert gaps[0] < 1e-6 and gaps[0] < gaps[1] < gaps[2] and gaps[2] > 1e-3


def test_ill_conditioned_network_larger_than_the_training_set():
    """l = 500 samples, k grows 150 -> 525 > l at λ = 1e-3 (spec §2.7 (v) with the review
    note's shape, halved): the ridge family stays on the direct solve, the
    generalized-inverse pair leaves it."""
    lam, k0, q = 1e-3, 150, 75
    A, Y = _problem(500, k0, q, 5, 0)
    ref = direct_ridge(A, Y, lam)
    for name in RIDGE:
        assert _rel(_run(name, lam, A, Y, k0, q)[-1], ref) < 1e-7, name
    for name in GENINV:
        assert _rel(_run(name, lam, A, Y, k0, q)[-1], ref) > 1e-1, name


def test_inverse_cholesky_factor_is_upper_triangular_and_inverts_r():
    lam, k0, q = 1e-3, 100, 50
    A, Y = _problem(1000, k0, q, 4, 3)
    R = A.T @ A + lam * np.eye(A.shape[1])
    for name in ("bls_chol1", "bls_chol2"):
        learner = registry.ALGORITHMS[name](lam=lam)
        grow(learner, A, Y, k0, q)
        F = learner.F
        assert np.array_equal(F, np.triu(F))
        assert np.abs(F @ F.T @ R - np.eye(A.shape[1])).max() < 1e-8


def test_ridge_inverse_is_the_explicit_ridge_inverse():
    lam, k0, q = 1e-2, 100, 50
    A, Y = _problem(1000, k0, q, 3, 4)
    learner = registry.ALGORITHMS["bls_rinv"](lam=lam)
    grow(learner, A, Y, k0, q)
    explicit = np.linalg.solve(A.T @ A + lam * np.eye(A.shape[1]), A.T)
    assert _rel(learner.P, explicit) < 1e-9


def test_ichol_and_its_failure():
    rng = np.random.default_rng(0)
    B = rng.normal(size=(30, 20))
    S = B.T @ B + np.eye(20)
    G = ichol(S)
    assert np.array_equal(G, np.triu(G)) and np.allclose(G @ G.T, np.linalg.inv(S))
    with pytest.raises(NotPositiveDefinite):
        ichol(S - 100 * np.eye(20))


def _nearly_dependent(seed: int):
    """New nodes that lie (up to 1e-9) in the span of the old ones, at λ = 2^-50: Chol-1's
    Schur complement Hᵀ H + λ I - Eᵀ E (42a) is a difference of two nearly equal matrices."""
    rng = np.random.default_rng(seed)
    n, k0, q = 600, 80, 20
    A0 = np.tanh(rng.normal(size=(n, k0)))
    blocks = [A0]
    for _ in range(3):
        blocks.append(A0 @ rng.normal(size=(k0, q)) + 1e-9 * rng.normal(size=(n, q)))
    return np.asfortranarray(np.hstack(blocks)), np.eye(5)[rng.integers(0, 5, n)], k0, q


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_chol1_failure_is_na_for_that_update_and_all_later(seed):
    A, Y, k0, q = _nearly_dependent(seed)
    lam = 2.0 ** -50
    chol1 = registry.ALGORITHMS["bls_chol1"](lam=lam)
    chol1.reset(A.shape[1], Y.shape[1])
    chol1.initialize(A[:, :k0], Y)
    assert not chol1.failed
    k = k0
    for _ in range(3):
        chol1.update(A[:, :k], A[:, k:k + q])
        k += q
        assert chol1.failed_at_ == 1 and chol1.predict_many(A) is None
    assert chol1.n_updates_ == 3 and chol1.k_ == k0  # nothing was added after the failure
    # the stable forms never fail on the same problem
    for name in ("bls_chol2", "bls_rinv", "bls_exg_e"):
        learner = registry.ALGORITHMS[name](lam=lam)
        Ws = grow(learner, A, Y, k0, q)
        assert not learner.failed and np.all(np.isfinite(Ws[-1])), name


def test_orig_dead_branch_21b_when_the_new_nodes_are_zero():
    """C = 0 exactly only when H = A_k D; zero columns give it: (21b) then appends zero
    rows to P and leaves W unchanged, as pinv([A 0]) = [pinv(A); 0]."""
    rng = np.random.default_rng(0)
    A = np.asfortranarray(np.hstack([np.tanh(rng.normal(size=(200, 30))), np.zeros((200, 5))]))
    Y = np.eye(3)[rng.integers(0, 3, 200)]
    learner = registry.ALGORITHMS["bls_orig"](lam=2.0 ** -30)
    W = grow(learner, A, Y, 30, 5)
    np.testing.assert_allclose(W[1][:30], W[0], rtol=0, atol=1e-12)
    assert np.all(W[1][30:] == 0) and np.all(learner.P[30:] == 0)
    pinv = scipy.linalg.pinv(A[:, :30])
    assert _rel(learner.P[:30], pinv) < 1e-6
