"""The delay-line interface of the series learners
(streamlearn/algorithms/series/_delay_line.py): fast ONS, regular ONS and OGD give the same
predictions per sample as over chunks, a multivariate stream is refused, and the shared
parameters are checked."""

from __future__ import annotations

import numpy as np
import pytest

from streamlearn.algorithms.series.fast_ons import FastONS
from streamlearn.algorithms.series.ogd_series import OGDSeries
from streamlearn.algorithms.series.ons import RegularONS
from streamlearn.errors import UserError
from tests.algorithms.series.series_helpers import dot_rounding_bound, predict_series
from tests.reference.online_newton_step import ar2_series


@pytest.mark.floatpath
@pytest.mark.parametrize("cls,params", [
    (FastONS, {"M": 7, "tau": 0.999}), (FastONS, {"M": 7, "offset": True}),
    (RegularONS, {"M": 7, "offset": True}), (OGDSeries, {"M": 7, "lr": 0.05}),
])
def test_per_sample_loop_equals_chunks(cls, params):
    """predict_one computes the chunk kernel's prediction with the same dot-product helper
    inlined into another function: the learning (learn_one runs the chunk kernel) is the
    same bit for bit; the prediction agrees within the rounding bound of a dot product in
    any order (the helper's order is LLVM's, per CPU and per caller: compiled for a CPU
    with AVX but no FMA, two callers of one helper have summed differently)."""
    series = ar2_series(801, seed=3)
    a = cls(**params)
    a.reset(1, None)
    loop, bounds = [], []
    for t in range(800):
        x = np.array([series[t]])
        w = a.w_ if isinstance(a, FastONS) else a._weights()
        bounds.append(dot_rounding_bound(w, series[t], a.xt_, a.M, a._intercept()))
        loop.append(a.predict_one(x))
        a.learn_one(x, series[t + 1])
    b = cls(**params)
    many = predict_series(b, series)
    assert np.all(np.abs(np.array(loop) - many) <= np.array(bounds))
    assert np.max(np.array(bounds)) < 1e-12 * max(np.max(np.abs(many)), 1.0)  # a tight test
    np.testing.assert_array_equal(a.xt_, b.xt_)
    np.testing.assert_array_equal(a.w_, b.w_)  # the learning itself: bit for bit


def test_multivariate_stream_is_refused_with_a_message():
    with pytest.raises(UserError, match="univariate series"):
        FastONS(M=4).reset(3, None)


def test_bad_parameters_are_refused():
    with pytest.raises(UserError, match="'M' parameter"):
        FastONS(M=0)
    with pytest.raises(UserError, match="'lr' parameter"):
        OGDSeries(lr=-1.0)
