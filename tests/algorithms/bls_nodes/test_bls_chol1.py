"""Chol-1 (streamlearn/algorithms/bls_nodes/bls_chol1.py): the Schur complement of eq. (42a)
loses positive definiteness on nearly dependent nodes at tiny λ; the update is then NA
for that update and all later ones, as in the paper's Table II, while the stable forms
carry on."""

from __future__ import annotations

import numpy as np
import pytest

from streamlearn.checks.node_learners import grow
from streamlearn.components import get_algorithm


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
    chol1 = get_algorithm("bls_chol1")(lam=lam)
    chol1.reset(A.shape[1], Y.shape[1])
    chol1.initialize(A[:, :k0], Y)
    assert not chol1.failed
    k = k0
    for _ in range(3):
        chol1.update(A[:, :k], A[:, k:k + q])
        k += q
        assert chol1.failed_at_ == 1 and chol1.predict_many(A) is None
    assert chol1.n_updates_ == 3 and chol1.k_ == k0  # nothing was added after the failure
    # the diagnosis: (42a) as formed is indefinite, the same matrix in Chol-2's form (57)
    # is positive definite — the cancellation, not the problem, made the update NA
    assert chol1.schur_min_eig_ < 0 < chol1.schur_chol2_min_eig_
    assert chol1.schur_chol2_min_eig_ >= lam * (1 - 1e-6)
    # here the true complement is ~λ, and (42a)'s rounding (~1e-11) swamps it
    assert -chol1.schur_min_eig_ > 100 * lam
    # the stable forms never fail on the same problem
    for name in ("bls_chol2", "bls_rinv", "bls_exg_e"):
        learner = get_algorithm(name)(lam=lam)
        Ws = grow(learner, A, Y, k0, q)
        assert not learner.failed and np.all(np.isfinite(Ws[-1])), name
