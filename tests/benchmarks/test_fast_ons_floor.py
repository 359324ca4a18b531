"""benchmarks/fast_ons_floor.py: the rotation-alone kernel whose time is fast ONS's floor
ends in the landed kernel's rotation state, so the floor is of the same recursion."""

from __future__ import annotations

import numpy as np
import pytest

from streamlearn.algorithms.series.fast_ons import FastONS
from streamlearn.datasets.synthetic.series import SpeechLikeSeries
from tests.benchmarks import load_benchmark


@pytest.mark.parametrize("M", [1, 8, 40])
@pytest.mark.parametrize("use_hypot", [True, False])
def test_rotation_alone_ends_in_the_landed_state(M: int, use_hypot: bool):
    mod = load_benchmark("fast_ons_floor")
    series = SpeechLikeSeries(n_samples=1301, seed=2).to_arrays()[1]  # > one 512-step block
    x, y = series[:-1, None], series[1:]
    landed = FastONS(M=M, alpha=1.0, lr=0.003)
    landed.reset(1, None)
    landed.predict_learn_many(x, y)
    assert landed.breakdowns_ == 0
    alone = FastONS(M=M, alpha=1.0, lr=0.003)
    alone.reset(1, None)
    mod._make_recursion(use_hypot)(np.ascontiguousarray(x[:, 0]), alone.w_, alone.L0_,
                                   alone.L1_, alone.rho_, alone.sc_, alone.xt_, M)
    # the same operations in the same order (hypot); sqrt(s^2 + a^2) differs by rounding
    assert mod.state_gap(alone, landed) < 1e-9
    np.testing.assert_array_equal(alone.xt_, landed.xt_)
    assert np.all(alone.w_ == 0.0)  # no weight step: w only feeds the prediction's dot
