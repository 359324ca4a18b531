"""Orig. (streamlearn/algorithms/bls_nodes/bls_orig.py): the branch (21b) of Greville's
method that floating point never reaches, forced with zero nodes."""

from __future__ import annotations

import numpy as np
import scipy.linalg

from streamlearn.checks.node_learners import grow
from streamlearn.components import get_algorithm
from tests.algorithms.bls_nodes.node_helpers import rel


def test_orig_dead_branch_21b_when_the_new_nodes_are_zero():
    """C = 0 exactly only when H = A_k D; zero columns give it: (21b) then appends zero
    rows to P and leaves W unchanged, as pinv([A 0]) = [pinv(A); 0]."""
    rng = np.random.default_rng(0)
    A = np.asfortranarray(np.hstack([np.tanh(rng.normal(size=(200, 30))), np.zeros((200, 5))]))
    Y = np.eye(3)[rng.integers(0, 3, 200)]
    learner = get_algorithm("bls_orig")(lam=2.0 ** -30)
    W = grow(learner, A, Y, 30, 5)
    np.testing.assert_allclose(W[1][:30], W[0], rtol=0, atol=1e-12)
    assert np.all(W[1][30:] == 0) and np.all(learner.P[30:] == 0)
    pinv = scipy.linalg.pinv(A[:, :30])
    assert rel(learner.P[:30], pinv) < 1e-6
