"""BOGD (streamlearn/algorithms/kernel/bogd.py) against a literal per-sample transcription of
the toolbox loop (tests/reference/forks_budget.py), and its budget."""

from __future__ import annotations

import pytest
from numpy.testing import assert_array_equal

from streamlearn.algorithms.kernel.bogd import BOGD
from streamlearn.algorithms.kernel.kernel_budget import pm1_labels
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
def test_bogd_matches_literal_loop(seed: int) -> None:
    X, y = binary_stream(seed)
    got = run_per_sample(BOGD(sigma=SIGMA, budget=15, lam=0.01, seed=seed), X, y)
    assert_array_equal(got, ref.bogd(X, pm1_labels(y), GAMMA, 15, 0.2, 0.01, 10.0, seed))


def test_budget_never_exceeded() -> None:
    assert_budget_never_exceeded(BOGD)
