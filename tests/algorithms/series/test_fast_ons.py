"""Fast ONS (streamlearn/algorithms/series/fast_ons.py) against regular ONS (ons.py) as
learners (Fast-ONS paper's claim: the same predictions in O(M)), and the breakdown-and-
rebuild path. The delay-line interface the three series learners share:
test_delay_line.py."""

from __future__ import annotations

import numpy as np
import pytest

from streamlearn.algorithms.series.fast_ons import FastONS
from streamlearn.algorithms.series.ons import RegularONS
from streamlearn.datasets.synthetic.series import SpeechLikeSeries, TemperatureLikeSeries
from tests.algorithms.series.series_helpers import predict_series
from tests.reference.online_newton_step import ar2_series, ons_ref

N_EQUIV = 100_000


def _rel_gap(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def _real_series(data_dir, name: str) -> np.ndarray:
    from streamlearn.components import get_stream

    return get_stream(name)(data_dir=str(data_dir)).to_arrays()[1]


SETTINGS = [(1.0, 0.003), (0.01, 1.0)]


@pytest.mark.parametrize("M", [16, 64])
@pytest.mark.parametrize("alpha,lr", SETTINGS)
def test_fast_equals_regular_on_synthetic_series(M, alpha, lr):
    series = SpeechLikeSeries(n_samples=N_EQUIV + 1, seed=M).to_arrays()[1]
    fast = predict_series(FastONS(M=M, alpha=alpha, lr=lr), series)
    reg = predict_series(RegularONS(M=M, alpha=alpha, lr=lr), series)
    assert _rel_gap(fast, reg) <= 1e-9


@pytest.mark.parametrize("n", [20_000, pytest.param(N_EQUIV, marks=pytest.mark.slow)])
def test_fast_equals_regular_at_m400(n):
    series = TemperatureLikeSeries(n_samples=n + 1, seed=0).to_arrays()[1]
    fast = predict_series(FastONS(M=400, alpha=1.0, lr=0.1), series)
    reg = predict_series(RegularONS(M=400, alpha=1.0, lr=0.1), series)
    assert _rel_gap(fast, reg) <= 1e-9


@pytest.mark.datasets
@pytest.mark.parametrize("name", ["cmu_arctic_sample", "temperature_whately"])
@pytest.mark.parametrize("M", [16, 64])
def test_fast_equals_regular_on_real_series(data_dir, name, M):
    series = _real_series(data_dir, name)[: N_EQUIV + 1]
    for alpha, lr in SETTINGS:
        fast = predict_series(FastONS(M=M, alpha=alpha, lr=lr), series)
        reg = predict_series(RegularONS(M=M, alpha=alpha, lr=lr), series)
        assert _rel_gap(fast, reg) <= 1e-9, (alpha, lr)


@pytest.mark.slow
@pytest.mark.datasets
@pytest.mark.parametrize("name", ["cmu_arctic_sample", "temperature_whately"])
def test_fast_equals_regular_on_real_series_m400(data_dir, name):
    series = _real_series(data_dir, name)[: N_EQUIV + 1]
    fast = predict_series(FastONS(M=400, alpha=1.0, lr=0.1), series)
    reg = predict_series(RegularONS(M=400, alpha=1.0, lr=0.1), series)
    assert _rel_gap(fast, reg) <= 1e-9


@pytest.mark.parametrize("offset", [False, True])
def test_breakdowns_are_recovered_exactly_and_reported(offset):
    """A threshold tau that almost every rotation fails forces the exact rebuild: the
    predictions stay those of regular ONS, nothing is NaN, and the events are counted."""
    series = ar2_series(1501, seed=11) + (0.3 if offset else 0.0)
    fast = FastONS(M=8, alpha=0.5, lr=0.5, tau=0.999, offset=offset)
    got = predict_series(fast, series)
    ref = ons_ref(series[:-1], series[1:], 8, 0.5, 0.5, 1e-8, offset=offset)["pred"]
    assert fast.breakdowns_ > 100 and fast.first_breakdown_ >= 0
    assert np.all(np.isfinite(got))
    assert _rel_gap(got, ref) <= 1e-9
    assert "breakdown" in fast.run_warnings()[0]
    clean = FastONS(M=8, alpha=0.5, lr=0.5, offset=offset)
    predict_series(clean, series)
    assert clean.breakdowns_ == 0 and clean.run_warnings() == []


@pytest.mark.parametrize("M", [4, 16])
def test_silence_is_not_a_breakdown(M):
    """A run of exact zeros longer than M (silence between speech utterances) makes the
    window and rho_t exactly zero; the residual check must not call that a breakdown, and
    the predictions through and after it stay those of regular ONS."""
    series = ar2_series(3001, seed=5)
    series[1200:1200 + 3 * M] = 0.0
    fast = FastONS(M=M, alpha=1.0, lr=0.1)
    got = predict_series(fast, series)
    ref = predict_series(RegularONS(M=M, alpha=1.0, lr=0.1), series)
    assert fast.breakdowns_ == 0, fast.run_warnings()
    assert _rel_gap(got, ref) <= 1e-9
