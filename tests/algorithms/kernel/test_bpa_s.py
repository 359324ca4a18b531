"""BPA-S (streamlearn/algorithms/kernel/bpa_s.py) against a literal per-sample transcription
of the toolbox loop (tests/reference/forks_budget.py), its budget and its parameter."""

from __future__ import annotations

import pytest
from numpy.testing import assert_array_equal

from streamlearn.algorithms.kernel.bpa_s import BPAS
from streamlearn.algorithms.kernel.kernel_budget import pm1_labels
from streamlearn.errors import UserError
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
def test_bpa_s_matches_literal_loop(seed: int) -> None:
    X, y = binary_stream(seed)
    got = run_per_sample(BPAS(sigma=SIGMA, budget=15, C=1.0), X, y)
    assert_array_equal(got, ref.bpa_s(X, pm1_labels(y), GAMMA, 15, 1.0))


def test_budget_never_exceeded() -> None:
    assert_budget_never_exceeded(BPAS)


def test_aggressiveness_must_be_positive() -> None:
    with pytest.raises(UserError, match="C"):
        BPAS(C=0.0)
