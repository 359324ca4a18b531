"""The six output-weight algorithms of the Ridge-BLS paper against each other and the direct
ridge solve (spec §2.7), through their shared base
(streamlearn/algorithms/bls_nodes/node_incremental.py): the ridge family (Chol-1, Chol-2,
R-Inv) equals D-Rdg, itself the direct solve on the prefix, after every update; the
generalized-inverse pair (Orig., Exg-E) agree and leave the ridge solution as λ grows; an
ill-conditioned network wider than the training set; the inverse Cholesky factor of the
Exg-E/Chol family. One learner's own tests: test_<name>.py."""

from __future__ import annotations

import numpy as np
import pytest

from streamlearn.checks.node_learners import direct_ridge, grow
from streamlearn.components import get_algorithm
from tests.algorithms.bls_nodes.node_helpers import GENINV, RIDGE, grow_named, problem, rel


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("lam", [1.0, 1e-3])
def test_ridge_family_equals_direct_ridge_after_every_update(seed, lam):
    k0, q = 80, 40
    A, Y = problem(600, k0, q, 4, seed)
    ref = grow_named("d_rdg", lam, A, Y, k0, q)
    for j, W in enumerate(ref):  # D-Rdg itself is the direct solve on the prefix
        assert rel(W, direct_ridge(A[:, :k0 + j * q], Y, lam)) < 1e-10
    for name in RIDGE:
        for j, W in enumerate(grow_named(name, lam, A, Y, k0, q)):
            assert rel(W, ref[j]) <= 1e-9, (name, j)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("lam", [1.0, 1e-3, 2.0 ** -30])
def test_orig_equals_exg_e(seed, lam):
    k0, q = 80, 40
    A, Y = problem(600, k0, q, 4, seed)
    for a, b in zip(grow_named("bls_orig", lam, A, Y, k0, q),
                    grow_named("bls_exg_e", lam, A, Y, k0, q), strict=True):
        assert rel(a, b) <= 1e-9


def test_generalized_inverse_pair_departs_from_ridge_as_lambda_grows():
    k0, q = 80, 40
    A, Y = problem(600, k0, q, 4, 0)
    gaps = []
    for lam in (1e-6, 1e-3, 1.0):
        ridge = direct_ridge(A, Y, lam)
        gap = rel(grow_named("bls_orig", lam, A, Y, k0, q)[-1], ridge)
        assert rel(grow_named("bls_chol2", lam, A, Y, k0, q)[-1], ridge) < 1e-9
        gaps.append(gap)
    assert gaps[0] < 1e-6 and gaps[0] < gaps[1] < gaps[2] and gaps[2] > 1e-3


def test_ill_conditioned_network_larger_than_the_training_set():
    """l = 500 samples, k grows 150 -> 525 > l at λ = 1e-3 (spec §2.7 (v) with the review
    note's shape, halved): the ridge family stays on the direct solve, the
    generalized-inverse pair leaves it."""
    lam, k0, q = 1e-3, 150, 75
    A, Y = problem(500, k0, q, 5, 0)
    ref = direct_ridge(A, Y, lam)
    for name in RIDGE:
        assert rel(grow_named(name, lam, A, Y, k0, q)[-1], ref) < 1e-7, name
    for name in GENINV:
        assert rel(grow_named(name, lam, A, Y, k0, q)[-1], ref) > 1e-1, name


def test_inverse_cholesky_factor_is_upper_triangular_and_inverts_r():
    lam, k0, q = 1e-3, 100, 50
    A, Y = problem(1000, k0, q, 4, 3)
    R = A.T @ A + lam * np.eye(A.shape[1])
    for name in ("bls_chol1", "bls_chol2"):
        learner = get_algorithm(name)(lam=lam)
        grow(learner, A, Y, k0, q)
        F = learner.F
        assert np.array_equal(F, np.triu(F))
        assert np.abs(F @ F.T @ R - np.eye(A.shape[1])).max() < 1e-8


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("lam", [1e-3, 0.125])
def test_generalized_inverse_pair_is_ridge_with_a_blockwise_regulariser(seed, lam):
    """Exg-E (and so Orig.) after every update is the solve ``(AᵀA + Λ)⁻¹AᵀY`` with
    ``Λ = blockdiag(λI, λI - D₁ᵀΛ₀D₁, λI - D₂ᵀΛ₁D₂, …)``, ``Λ_j`` the regulariser of the
    columns before update ``j + 1`` and ``D = K⁻¹AᵀH`` its eq. (30): the block inverse of
    ``F Fᵀ`` with ``F`` of eq. (31) gives ``K_new = [[K, AᵀH], [HᵀA, CᵀC + λI + DᵀKD]]``
    and ``CᵀC + DᵀKD = HᵀH - DᵀΛD``. The added blocks' regulariser is negative in the
    directions the old nodes predict (results/ridge_bls/README.md, Exg-E's fall)."""
    k0, q = 80, 40
    A, Y = problem(600, k0, q, 4, seed)
    weights = grow_named("bls_exg_e", lam, A, Y, k0, q)
    Lam = lam * np.eye(k0)
    for j in range(1, len(weights)):
        k = k0 + (j - 1) * q
        Ak, H = A[:, :k], A[:, k:k + q]
        D = np.linalg.solve(Ak.T @ Ak + Lam, Ak.T @ H)
        Lam = np.block([[Lam, np.zeros((k, q))],
                        [np.zeros((q, k)), lam * np.eye(q) - D.T @ Lam @ D]])
        Aj = A[:, :k + q]
        assert rel(weights[j], np.linalg.solve(Aj.T @ Aj + Lam, Aj.T @ Y)) < 1e-10, j
    # the regulariser of the added blocks is indefinite: the pair is not a ridge solve
    assert np.linalg.eigvalsh(Lam[k0:, k0:]).min() < 0.0
