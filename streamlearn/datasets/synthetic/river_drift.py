"""River's drift generators as streams: Agrawal with an abrupt or gradual concept change,
LED with drifting attributes and Random RBF with moving centroids.

The field's standard synthetic benchmarks (MOA and River ship the same generators; e.g.
Gomes et al., Adaptive random forests for evolving data stream classification, 2017, and
Bifet et al., MOA, JMLR 2010). Each stream is the first ``n_samples`` samples of River's
generator with the run's seed (``reseed_per_run``: each repetition is a new stream), so a
config gets a mean and SD over independent streams.
"""

from __future__ import annotations

import itertools
from typing import Any, ClassVar

import numpy as np

from streamlearn.base import Stream, StreamInfo
from streamlearn.params import Interval, OfType
from streamlearn.registry import register_stream

__all__ = ["AgrawalDriftStream", "LEDDriftStream", "RandomRBFDriftStream"]


def _arrays(dataset: Any, n_samples: int, n_features: int) -> tuple[np.ndarray, np.ndarray]:
    """The first ``n_samples`` of a River dataset: features in River's order, labels ints."""
    X = np.empty((n_samples, n_features), dtype=np.float64)
    y = np.empty(n_samples, dtype=np.int64)
    for i, (x, label) in enumerate(itertools.islice(dataset, n_samples)):
        X[i] = list(x.values())
        y[i] = int(label)
    return X, y


@register_stream("agrawal_drift")
class AgrawalDriftStream(Stream):
    """Agrawal loan stream with a concept change: function ``before`` then ``after``.

    ``river.datasets.synth.ConceptDriftStream(Agrawal(before, seed), Agrawal(after,
    seed + 1), position, width, seed)``: the change is centred at ``position`` and takes
    ``width`` samples (a sigmoid mix; ``width=1`` is abrupt). Nine features (salary,
    commission, age, elevel, car, zipcode, hvalue, hyears, loan) on their natural scales
    (thousands to hundreds of thousands): scale them in the config (``normalize``).

    Parameters
    ----------
    n_samples
        Length of the stream.
    before, after
        Agrawal classification functions (0-9) before and after the change.
    position
        Sample index at the centre of the change.
    width
        Number of samples the change takes (at least 1).
    perturbation
        River's noise on the numeric features, in [0, 1].
    seed
        Seed of the generators; by default the run's seed.

    References
    ----------
    [^1]: R. Agrawal, T. Imielinski and A. Swami. Database mining: a performance
          perspective. IEEE TKDE 5(6), 1993.
    """

    natural_order: ClassVar[bool] = True

    _constraints: ClassVar[dict[str, Any]] = {
        "n_samples": Interval(1, None, integer=True),
        "before": Interval(0, 9, integer=True),
        "after": Interval(0, 9, integer=True),
        "position": Interval(0, None, integer=True),
        "width": Interval(1, None, integer=True),
        "perturbation": Interval(0.0, 1.0),
        "seed": Interval(None, None, integer=True, allow_none=True),
    }

    def __init__(self, *, n_samples: int = 20_000, before: int = 0, after: int = 2,
                 position: int = 10_000, width: int = 1_000, perturbation: float = 0.05,
                 seed: int | None = 1) -> None:
        self.n_samples = n_samples
        self.before = before
        self.after = after
        self.position = position
        self.width = width
        self.perturbation = perturbation
        self.seed = seed
        self._validate_params()

    def _validate_params(self) -> None:
        super()._validate_params()
        # River mixes with 1 / (1 + exp(-4 (t - position) / width)) and overflows past
        # exp(709): the sharpest change it can draw over this stream
        far = max(self.position, self.n_samples - self.position)
        least = int(np.ceil(4 * far / 700))
        if self.width < least:
            from streamlearn.errors import UserError

            raise UserError(f"The 'width' parameter of {type(self).__name__} must be at "
                            f"least {least} for a change at {self.position} in "
                            f"{self.n_samples} samples (River's mixing overflows below). "
                            f"Got {self.width!r} instead.")

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        from river.datasets import synth

        s = self.seed
        dataset = synth.ConceptDriftStream(
            stream=synth.Agrawal(classification_function=self.before, seed=s,
                                 perturbation=float(self.perturbation)),
            drift_stream=synth.Agrawal(classification_function=self.after,
                                       seed=None if s is None else s + 1,
                                       perturbation=float(self.perturbation)),
            position=self.position, width=self.width, seed=s)
        return _arrays(dataset, self.n_samples, 9)

    def info(self) -> StreamInfo:
        return StreamInfo(name=type(self).__name__, task=self.task, n_samples=self.n_samples,
                          n_features=9, n_classes=2,
                          source=f"river ConceptDriftStream(Agrawal({self.before}) -> "
                                 f"Agrawal({self.after}), position {self.position}, "
                                 f"width {self.width})")


@register_stream("led_drift")
class LEDDriftStream(Stream):
    """LED digit stream (10 classes) with ``n_drift_features`` swapped attributes.

    ``river.datasets.synth.LEDDrift``: seven segments of a digit, each inverted with
    probability ``noise``, plus 17 irrelevant binary attributes when ``irrelevant_features``;
    ``n_drift_features`` of the relevant attributes are swapped with irrelevant ones.

    Parameters
    ----------
    n_samples
        Length of the stream.
    noise
        Probability of inverting each segment, in [0, 1].
    irrelevant_features
        Add the 17 irrelevant attributes (24 features instead of 7).
    n_drift_features
        Number of attributes that drift (0-7; needs ``irrelevant_features``).
    seed
        River seed; by default the run's seed.

    References
    ----------
    [^1]: L. Breiman et al. Classification and Regression Trees, 1984 (the LED problem).
    """

    natural_order: ClassVar[bool] = True

    _constraints: ClassVar[dict[str, Any]] = {
        "n_samples": Interval(1, None, integer=True),
        "noise": Interval(0.0, 1.0),
        "irrelevant_features": OfType((bool,)),
        "n_drift_features": Interval(0, 7, integer=True),
        "seed": Interval(None, None, integer=True, allow_none=True),
    }

    def __init__(self, *, n_samples: int = 20_000, noise: float = 0.1,
                 irrelevant_features: bool = True, n_drift_features: int = 4,
                 seed: int | None = 1) -> None:
        self.n_samples = n_samples
        self.noise = noise
        self.irrelevant_features = irrelevant_features
        self.n_drift_features = n_drift_features
        self.seed = seed
        self._validate_params()

    def _validate_params(self) -> None:
        super()._validate_params()
        if self.n_drift_features and not self.irrelevant_features:
            from streamlearn.errors import UserError

            raise UserError(f"The 'n_drift_features' parameter of {type(self).__name__} "
                            "needs irrelevant_features: true (drifting attributes swap "
                            "with irrelevant ones).")

    @property
    def n_features(self) -> int:
        return 24 if self.irrelevant_features else 7

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        from river.datasets import synth

        dataset = synth.LEDDrift(seed=self.seed, noise_percentage=float(self.noise),
                                 irrelevant_features=self.irrelevant_features,
                                 n_drift_features=self.n_drift_features)
        return _arrays(dataset, self.n_samples, self.n_features)

    def info(self) -> StreamInfo:
        return StreamInfo(name=type(self).__name__, task=self.task, n_samples=self.n_samples,
                          n_features=self.n_features, n_classes=10,
                          source="river.datasets.synth.LEDDrift")


@register_stream("random_rbf_drift")
class RandomRBFDriftStream(Stream):
    """Random RBF stream whose centroids move at ``change_speed`` per sample.

    ``river.datasets.synth.RandomRBFDrift``: ``n_centroids`` Gaussian centroids with random
    classes and weights; ``n_drift_centroids`` of them move. The model and the samples are
    both seeded by ``seed``.

    Parameters
    ----------
    n_samples
        Length of the stream.
    n_classes, n_features, n_centroids
        As in River.
    change_speed
        Distance a drifting centroid moves per sample.
    n_drift_centroids
        Number of centroids that move.
    seed
        Seed of the model and of the samples; by default the run's seed.

    References
    ----------
    [^1]: A. Bifet et al. MOA: Massive Online Analysis. JMLR 11, 2010.
    """

    natural_order: ClassVar[bool] = True

    _constraints: ClassVar[dict[str, Any]] = {
        "n_samples": Interval(1, None, integer=True),
        "n_classes": Interval(2, None, integer=True),
        "n_features": Interval(1, None, integer=True),
        "n_centroids": Interval(1, None, integer=True),
        "change_speed": Interval(0.0, None),
        "n_drift_centroids": Interval(0, None, integer=True),
        "seed": Interval(None, None, integer=True, allow_none=True),
    }

    def __init__(self, *, n_samples: int = 20_000, n_classes: int = 5, n_features: int = 10,
                 n_centroids: int = 50, change_speed: float = 0.001,
                 n_drift_centroids: int = 25, seed: int | None = 1) -> None:
        self.n_samples = n_samples
        self.n_classes = n_classes
        self.n_features = n_features
        self.n_centroids = n_centroids
        self.change_speed = change_speed
        self.n_drift_centroids = n_drift_centroids
        self.seed = seed
        self._validate_params()

    def _validate_params(self) -> None:
        super()._validate_params()
        if self.n_drift_centroids > self.n_centroids:
            from streamlearn.errors import UserError

            raise UserError(f"The 'n_drift_centroids' parameter of {type(self).__name__} "
                            f"must be at most n_centroids={self.n_centroids}. Got "
                            f"{self.n_drift_centroids!r} instead.")

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        from river.datasets import synth

        dataset = synth.RandomRBFDrift(
            seed_model=self.seed, seed_sample=self.seed, n_classes=self.n_classes,
            n_features=self.n_features, n_centroids=self.n_centroids,
            change_speed=float(self.change_speed), n_drift_centroids=self.n_drift_centroids)
        return _arrays(dataset, self.n_samples, self.n_features)

    def info(self) -> StreamInfo:
        return StreamInfo(name=type(self).__name__, task=self.task, n_samples=self.n_samples,
                          n_features=self.n_features, n_classes=self.n_classes,
                          source="river.datasets.synth.RandomRBFDrift")
