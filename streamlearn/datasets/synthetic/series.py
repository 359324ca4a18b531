"""Generated univariate series for the ``prequential-regression`` protocol: the stand-ins
of the Fast-ONS paper's data (Sec. 4) that run offline, and the AR(2) test signal.

Each is scaled to [-1, 1] by min-max over the whole series, as the paper scales its data,
and is returned with ``X[:, 0] = y = x_t`` (the protocol shifts the target).

* ``speech_like``: an AR(10) all-pole filter (a resonant, speech-formant-like spectrum)
  driven by noise bursts of random length separated by near-silence, like utterances.
* ``temperature_like``: a daily cycle (period 288 samples, 5-min readings), a yearly
  cycle (period 288 x 365) and a small random walk (weather), plus sensor noise.
* ``ar2``: ``x_t = 1.6 x_{t-1} - 0.8 x_{t-2} + 0.1 n_t`` (the equivalence-test signal).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from streamlearn.base import Stream, StreamInfo
from streamlearn.params import Interval
from streamlearn.registry import register_stream

__all__ = ["AR2Series", "SpeechLikeSeries", "TemperatureLikeSeries"]


def _minmax(x: np.ndarray) -> np.ndarray:
    lo, hi = float(x.min()), float(x.max())
    return 2.0 * (x - lo) / (hi - lo) - 1.0 if hi > lo else np.zeros_like(x)


class _GeneratedSeries(Stream):
    task: ClassVar[str] = "regression"
    natural_order: ClassVar[bool] = True
    series: ClassVar[bool] = True
    _constraints: ClassVar[dict[str, Any]] = {
        "n_samples": Interval(3, 10**9, integer=True),
        "seed": Interval(0, None, integer=True, allow_none=True),
    }
    _title: ClassVar[str] = ""

    def __init__(self, *, n_samples: int = 20000, seed: int | None = 0) -> None:
        self.n_samples = n_samples
        self.seed = seed
        self._validate_params()

    def _series(self, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        x = _minmax(self._series(np.random.default_rng(self.seed)))
        return x.reshape(-1, 1), x.copy()

    def info(self) -> StreamInfo:
        return StreamInfo(name=type(self).__name__, task="regression",
                          n_samples=self.n_samples, n_features=1, n_classes=None,
                          source=self._title, preprocessing=("min-max scaled to [-1, 1]",))


@register_stream("speech_like")
class SpeechLikeSeries(_GeneratedSeries):
    """Speech-like series: AR(10) resonances driven by noise bursts (Fast-ONS stand-in)."""

    _title = "generated: AR(10) all-pole filter driven by noise bursts"

    def _series(self, rng: np.random.Generator) -> np.ndarray:
        n = self.n_samples
        # two formant-like resonances and a spectral tilt as conjugate pole pairs
        poles = []
        for f, r in ((0.03, 0.97), (0.08, 0.95), (0.15, 0.9), (0.25, 0.85), (0.35, 0.8)):
            poles += [r * np.exp(2j * np.pi * f), r * np.exp(-2j * np.pi * f)]
        a = np.real(np.poly(poles))
        gain = np.full(n, 0.01)
        t = 0
        while t < n:  # bursts of 2,000-8,000 samples after 500-3,000 of near-silence
            t += int(rng.integers(500, 3000))
            length = int(rng.integers(2000, 8000))
            gain[t:t + length] = rng.uniform(0.3, 1.0)
            t += length
        from scipy.signal import lfilter  # here: scipy.signal costs ~1 s at CLI start-up

        return lfilter([1.0], a, gain * rng.normal(size=n))


@register_stream("temperature_like")
class TemperatureLikeSeries(_GeneratedSeries):
    """Temperature-like series: daily + yearly cycles and a random walk (Fast-ONS stand-in)."""

    _title = "generated: daily (288) and yearly sinusoids plus a small random walk"

    def _series(self, rng: np.random.Generator) -> np.ndarray:
        t = np.arange(self.n_samples, dtype=np.float64)
        daily = 5.0 * np.sin(2 * np.pi * t / 288.0 + rng.uniform(0, 2 * np.pi))
        yearly = 12.0 * np.sin(2 * np.pi * t / (288.0 * 365.0) + rng.uniform(0, 2 * np.pi))
        walk = np.cumsum(0.05 * rng.normal(size=self.n_samples))
        return daily + yearly + walk + 0.1 * rng.normal(size=self.n_samples)


@register_stream("ar2")
class AR2Series(_GeneratedSeries):
    """AR(2) series x_t = 1.6 x_{t-1} - 0.8 x_{t-2} + 0.1 n_t (the Fast-ONS equivalence test)."""

    _title = "generated: AR(2), x_t = 1.6 x_{t-1} - 0.8 x_{t-2} + 0.1 n_t"

    def _series(self, rng: np.random.Generator) -> np.ndarray:
        from scipy.signal import lfilter

        return lfilter([0.1], [1.0, -1.6, 0.8], rng.normal(size=self.n_samples))
