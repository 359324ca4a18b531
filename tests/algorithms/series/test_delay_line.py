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
from tests.algorithms.series.series_helpers import predict_series
from tests.reference.online_newton_step import ar2_series


@pytest.mark.floatpath
@pytest.mark.parametrize("cls,params", [
    (FastONS, {"M": 7, "tau": 0.999}), (FastONS, {"M": 7, "offset": True}),
    (RegularONS, {"M": 7, "offset": True}), (OGDSeries, {"M": 7, "lr": 0.05}),
])
def test_per_sample_loop_equals_chunks(cls, params):
    series = ar2_series(801, seed=3)
    a = cls(**params)
    a.reset(1, None)
    loop = []
    for t in range(800):
        x = np.array([series[t]])
        loop.append(a.predict_one(x))
        a.learn_one(x, series[t + 1])
    many = predict_series(cls(**params), series)
    np.testing.assert_array_equal(np.array(loop), many)


def test_multivariate_stream_is_refused_with_a_message():
    with pytest.raises(UserError, match="univariate series"):
        FastONS(M=4).reset(3, None)


def test_bad_parameters_are_refused():
    with pytest.raises(UserError, match="'M' parameter"):
        FastONS(M=0)
    with pytest.raises(UserError, match="'lr' parameter"):
        OGDSeries(lr=-1.0)
