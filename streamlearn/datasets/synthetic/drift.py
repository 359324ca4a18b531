"""Synthetic drift streams generated with River: SEA (abrupt drift) and Hyperplane (gradual).

Both streams are built deterministically from their ``seed`` by River's own generators
(``river.datasets.synth``), because the Online-BLS paper generated them with River
(Online-BLS paper, Sec. 5.4 and Appendix B). The defaults are the paper settings, so
``{name: sea}`` or ``{name: hyperplane}`` in a config reproduces Table 5/Table 4.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np

from streamlearn.base import Stream, StreamInfo
from streamlearn.errors import UserError
from streamlearn.params import Interval, OfType
from streamlearn.registry import register_stream

__all__ = ["SEA_THRESHOLDS", "HyperplaneStream", "SEAStream"]

#: River's SEA thresholds by 0-based variant: label is ``x0 + x1 > threshold``.
SEA_THRESHOLDS: dict[int, float] = {0: 8.0, 1: 9.0, 2: 7.0, 3: 9.5}


def _fill(dataset: Iterable[tuple[dict[Any, float], Any]], X: np.ndarray, y: np.ndarray) -> None:
    """Write the first ``len(X)`` samples of a River dataset into ``X`` and ``y``."""
    for i, (x, label) in enumerate(itertools.islice(dataset, X.shape[0])):
        X[i] = list(x.values())
        y[i] = int(label)


@register_stream("sea")
class SEAStream(Stream):
    """SEA abrupt-drift stream from River (paper preset: variants 0-3, 10 % label noise).

    Features are uniform in [0, 10]; the label is ``x0 + x1 > threshold`` (``x2`` is
    irrelevant), and with probability ``noise`` the label is flipped (an exact probability in
    River's SEA). The stream is a concatenation of River SEA blocks by position: segment ``i``
    covers samples ``[b_i, b_{i+1})`` with ``b = (0, *drift_points, n_samples)`` and is drawn
    from ``river.datasets.synth.SEA(variant=variants[i], noise=noise, seed=seed + i)``
    (each block starts a fresh River generator; ``seed=None`` gives unseeded blocks).

    Paper preset (the defaults). Online-BLS §5.4/App. B: "There are 4 thresholds to choose
    from. Concept drift is introduced by switching thresholds at the 25,000-th, 50,000-th,
    and 75,000-th data points ... the noise level ... is 10%". The paper does not give the
    variant order or the seeds; our choice (made once for every implementation) is
    four 25,000-sample blocks ``SEA(variant=v, noise=0.1, seed=100+v)`` for v=0,1,2,3 in that
    order (River thresholds 8, 9, 7, 9.5). With the defaults ``seed=100`` and
    ``variants=(0, 1, 2, 3)``, ``seed + i == 100 + v``, i.e. exactly that preset.

    Parameters
    ----------
    n_samples
        Length of the stream.
    drift_points
        Increasing sample indices where the next variant starts; points at or beyond
        ``n_samples`` simply never happen (the stream is the first ``n_samples`` samples of
        the full concatenation).
    variants
        River's 0-based SEA variants, one per segment (``len(drift_points) + 1`` of them);
        thresholds 0: 8, 1: 9, 2: 7, 3: 9.5.
    noise
        Probability of flipping each label.
    seed
        Segment ``i`` uses River seed ``seed + i``; ``None`` means not reproducible.

    References
    ----------
    [^1]: W. N. Street and Y. Kim. A streaming ensemble algorithm (SEA) for large-scale
          classification. KDD 2001.
    [^2]: C. Lei et al. Online-BLS: An accurate and efficient online broad learning system
          for data stream classification (Online-BLS), §5.4 and Appendix B.
    """

    natural_order: ClassVar[bool] = True
    reseed_per_run: ClassVar[bool] = False  # the paper generates it once, with a fixed seed

    _constraints: ClassVar[dict[str, Any]] = {
        "n_samples": Interval(1, None, integer=True),
        "drift_points": OfType((tuple, list)),
        "variants": OfType((tuple, list)),
        "noise": Interval(0.0, 1.0),
        "seed": Interval(None, None, integer=True, allow_none=True),
    }

    def __init__(
        self,
        *,
        n_samples: int = 100_000,
        drift_points: tuple[int, ...] = (25_000, 50_000, 75_000),
        variants: tuple[int, ...] = (0, 1, 2, 3),
        noise: float = 0.1,
        seed: int | None = 100,
    ) -> None:
        self.n_samples = n_samples
        self.drift_points = drift_points
        self.variants = variants
        self.noise = noise
        self.seed = seed
        self._validate_params()

    def _validate_params(self) -> None:
        super()._validate_params()
        name = type(self).__name__
        points = list(self.drift_points)
        if any(isinstance(p, bool) or not isinstance(p, int | np.integer) for p in points):
            raise UserError(
                f"The 'drift_points' parameter of {name} must contain integers. "
                f"Got {self.drift_points!r} instead."
            )
        if any(p <= 0 for p in points) or any(b <= a for a, b in itertools.pairwise(points)):
            raise UserError(
                f"The 'drift_points' parameter of {name} must be strictly increasing positive "
                f"sample indices. Got {self.drift_points!r} instead."
            )
        if any(v not in SEA_THRESHOLDS or isinstance(v, bool) for v in self.variants):
            raise UserError(
                f"The 'variants' parameter of {name} must contain River SEA variants "
                f"0, 1, 2 or 3. Got {self.variants!r} instead."
            )
        if len(self.variants) != len(points) + 1:
            raise UserError(
                f"{name} needs one variant per segment: len(variants) must be "
                f"len(drift_points) + 1 = {len(points) + 1}. Got {len(self.variants)} variants."
            )

    def segments(self) -> list[tuple[int, int, int]]:
        """``(start, stop, variant)`` of every non-empty segment within ``n_samples``."""
        bounds = [0, *(int(p) for p in self.drift_points), None]
        out = []
        for i, variant in enumerate(self.variants):
            start = min(bounds[i], self.n_samples)
            stop = self.n_samples if bounds[i + 1] is None else min(bounds[i + 1], self.n_samples)
            if stop > start:
                out.append((start, stop, int(variant)))
        return out

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        from river.datasets import synth

        X = np.empty((self.n_samples, 3), dtype=np.float64)
        y = np.empty(self.n_samples, dtype=np.int64)
        for i, (start, stop, variant) in enumerate(self.segments()):
            seed = None if self.seed is None else self.seed + i
            block = synth.SEA(variant=variant, noise=self.noise, seed=seed)
            _fill(block, X[start:stop], y[start:stop])
        return X, y

    def info(self) -> StreamInfo:
        return StreamInfo(
            name=type(self).__name__,
            task=self.task,
            n_samples=self.n_samples,
            n_features=3,
            n_classes=2,
            source="river.datasets.synth.SEA blocks "
            + ", ".join(f"[{a}, {b}): variant {v}" for a, b, v in self.segments()),
        )


@register_stream("hyperplane")
class HyperplaneStream(Stream):
    """River Hyperplane drift stream (paper preset); quirk: noise_percentage=0.01 flips no labels.

    Features are uniform in [0, 1]; the label is ``sum_i w_i x_i >= 0.5 * sum_i w_i`` and the
    first ``n_drift_features`` weights move by ``mag_change`` per sample. The arrays are the
    first ``n_samples`` samples of ``river.datasets.synth.Hyperplane(seed=seed, ...)``.

    River quirk, kept on purpose: River flips a label when ``0.01 + U(0,1) <= noise_percentage``
    and reverses a drift direction when ``0.01 + U(0,1) <= sigma``. So the effective noise
    probability is ``max(noise_percentage - 0.01, 0)``: the paper's ``noise_percentage=0.01``
    ("noise level 1 %") flips NO labels at all, and ``sigma=0.1`` reverses with probability
    0.09. The paper used River, so the defaults keep River's exact semantics.

    Paper preset (the defaults). Online-BLS App. B: "we generate a data stream containing 20
    features. Its noise level and drift magnitude are set to 1% and 0.5%". We read that as
    ``Hyperplane(seed=1, n_features=20, n_drift_features=2, mag_change=0.005,
    noise_percentage=0.01, sigma=0.1)``, first 100,000 samples; ``n_drift_features`` and
    ``sigma`` are River's defaults (the paper is silent).

    Parameters
    ----------
    n_samples
        Length of the stream.
    n_features
        Number of features (at least 2).
    n_drift_features
        Number of leading weights that drift (at most ``n_features``).
    mag_change
        Change added to each drifting weight per sample, in [0, 1].
    noise_percentage
        River's label-noise parameter, in [0, 1] (effective flip probability is 0.01 lower).
    sigma
        River's direction-reversal parameter, in [0, 1] (effective probability 0.01 lower).
    seed
        River seed; ``None`` means not reproducible.

    References
    ----------
    [^1]: G. Hulten, L. Spencer and P. Domingos. Mining time-changing data streams. KDD 2001.
    [^2]: C. Lei et al. Online-BLS (Appendix B), following Su et al. 2024 (EODL).
    """

    natural_order: ClassVar[bool] = True
    reseed_per_run: ClassVar[bool] = False  # the paper generates it once, with a fixed seed

    _constraints: ClassVar[dict[str, Any]] = {
        "n_samples": Interval(1, None, integer=True),
        "n_features": Interval(2, None, integer=True),
        "n_drift_features": Interval(0, None, integer=True),
        "mag_change": Interval(0.0, 1.0),
        "noise_percentage": Interval(0.0, 1.0),
        "sigma": Interval(0.0, 1.0),
        "seed": Interval(None, None, integer=True, allow_none=True),
    }

    def __init__(
        self,
        *,
        n_samples: int = 100_000,
        n_features: int = 20,
        n_drift_features: int = 2,
        mag_change: float = 0.005,
        noise_percentage: float = 0.01,
        sigma: float = 0.1,
        seed: int | None = 1,
    ) -> None:
        self.n_samples = n_samples
        self.n_features = n_features
        self.n_drift_features = n_drift_features
        self.mag_change = mag_change
        self.noise_percentage = noise_percentage
        self.sigma = sigma
        self.seed = seed
        self._validate_params()

    def _validate_params(self) -> None:
        super()._validate_params()
        if self.n_drift_features > self.n_features:
            raise UserError(
                f"The 'n_drift_features' parameter of {type(self).__name__} must be at most "
                f"n_features={self.n_features}. Got {self.n_drift_features!r} instead."
            )

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        from river.datasets import synth

        X = np.empty((self.n_samples, self.n_features), dtype=np.float64)
        y = np.empty(self.n_samples, dtype=np.int64)
        dataset = synth.Hyperplane(
            seed=self.seed,
            n_features=self.n_features,
            n_drift_features=self.n_drift_features,
            mag_change=float(self.mag_change),
            noise_percentage=float(self.noise_percentage),
            sigma=float(self.sigma),
        )
        _fill(dataset, X, y)
        return X, y

    def info(self) -> StreamInfo:
        return StreamInfo(
            name=type(self).__name__,
            task=self.task,
            n_samples=self.n_samples,
            n_features=self.n_features,
            n_classes=2,
            source="river.datasets.synth.Hyperplane",
        )
