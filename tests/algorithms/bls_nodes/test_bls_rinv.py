"""R-Inv (streamlearn/algorithms/bls_nodes/bls_rinv.py): the recursively updated ``P`` is the
explicit ridge inverse ``(AᵀA + λI)⁻¹ Aᵀ``."""

from __future__ import annotations

import numpy as np

from streamlearn.checks.node_learners import grow
from streamlearn.components import get_algorithm
from tests.algorithms.bls_nodes.node_helpers import problem, rel


def test_ridge_inverse_is_the_explicit_ridge_inverse():
    lam, k0, q = 1e-2, 100, 50
    A, Y = problem(1000, k0, q, 3, 4)
    learner = get_algorithm("bls_rinv")(lam=lam)
    grow(learner, A, Y, k0, q)
    explicit = np.linalg.solve(A.T @ A + lam * np.eye(A.shape[1]), A.T)
    assert rel(learner.P, explicit) < 1e-9
