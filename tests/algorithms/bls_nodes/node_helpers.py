"""Shared pieces of the tests of the Ridge-BLS learners on added nodes: the node matrices of
a synthetic problem (spec §2.7), a learner grown by name, and the relative error."""

from __future__ import annotations

import numpy as np

from streamlearn.checks.node_learners import grow
from streamlearn.components import get_algorithm

RIDGE = ("bls_chol1", "bls_chol2", "bls_rinv")
GENINV = ("bls_orig", "bls_exg_e")


def problem(n: int, k0: int, q: int, updates: int, seed: int, d: int = 50):
    """tanh features of a Gaussian input (spec §2.7), random one-hot targets."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    A = np.asfortranarray(np.tanh(X @ rng.normal(size=(d, k0 + updates * q)) / np.sqrt(d)))
    Y = np.eye(10)[rng.integers(0, 10, n)]
    return A, Y


def rel(a, b):
    return float(np.abs(a - b).max() / np.abs(b).max())


def grow_named(name, lam, A, Y, k0, q):
    """The weights of the registered learner ``name`` after INIT and every update."""
    return grow(get_algorithm(name)(lam=lam), A, Y, k0, q)
