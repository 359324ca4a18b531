"""Projectron (streamlearn/algorithms/kernel/projectron.py) against the toolbox loop with a
direct inverse (tests/reference/forks_budget.py): the grown ``K^{-1}`` is the inverse of
the SVs' Gram matrix; duplicates are projected, and the budget holds."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from streamlearn.algorithms.kernel.kernel_budget import pm1_labels
from streamlearn.algorithms.kernel.projectron import Projectron
from streamlearn.kernels.forks_budget import gauss_matrix
from tests.algorithms.kernel.kernel_helpers import (
    GAMMA,
    SIGMA,
    assert_budget_never_exceeded,
    binary_stream,
    run_per_sample,
)
from tests.reference import forks_budget as ref


@pytest.mark.floatpath
@pytest.mark.parametrize("seed", range(3))
def test_projectron_matches_loop_with_direct_inverse(seed: int) -> None:
    X, y = binary_stream(seed)
    m = Projectron(sigma=SIGMA, budget=12)
    got = run_per_sample(m, X, y)
    assert_array_equal(got, ref.projectron(X, pm1_labels(y), GAMMA, 12))
    n = m.n_sv_
    K = gauss_matrix(m.sv_[:n], m.sv_[:n], GAMMA)
    assert_allclose(m.Kinv_[:n, :n] @ K, np.eye(n), atol=1e-6)


def test_projectron_duplicate_points_project_instead_of_adding() -> None:
    X, y = binary_stream(0, n=40)
    X = np.repeat(X[:4], 10, axis=0)
    y = np.tile([0, 1], 20)
    m = Projectron(sigma=SIGMA, budget=30)
    run_per_sample(m, X, y)
    assert m.n_sv_ <= 4 and np.all(np.isfinite(m.coef_))


def test_budget_never_exceeded() -> None:
    assert_budget_never_exceeded(Projectron)
