"""River's regression data as streams of ``(x_t, y_t)`` pairs (the ``prequential-regression``
protocol takes them as given: predict ``y_t`` from ``x_t``, then learn it).

Generators, deterministic from ``seed`` (River's own code, ``river.datasets.synth``; the
arrays are the first ``n_samples`` samples of the generator):

* ``friedman``: Friedman (1991) #1, 10 features uniform in [0, 1], only the first 5
  relevant, ``y = 10 sin(pi x0 x1) + 20 (x2 - 0.5)² + 10 x3 + 5 x4 + N(0, 1)``;
* ``planes2d``: 2D Planes (Breiman et al. 1984), 10 features in {-1, 0, 1};
* ``mv``: Mv (Torgo), 10 features, 3 of them nominal, with co-dependencies.

Real sets shipped inside River's wheel (offline, no download), in their file order:

* ``trump_approval``: 1,001 days; the target is FiveThirtyEight's approval estimate, the
  features the day's ordinal date and five pollsters' ratings;
* ``chick_weights``: 578 weighings of chicks, ordered by time then chick; the target is the
  weight.

Encoding of non-numeric features (``mv`` only): one-hot for the three-valued ``x3``
(columns ``x3=green``, ``x3=red``, ``x3=brown``, in River's documented order) and a 0/1
indicator for each two-valued one (``x7=yes``, ``x8=large``), each in place of the feature,
so ``mv`` has 12 columns. ``chick_weights``'s ``chick`` and ``diet`` are integer codes in
the file and are kept as River yields them (numbers, not one-hot).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np

from streamlearn.base import Stream, StreamInfo
from streamlearn.params import Interval
from streamlearn.registry import register_stream

__all__ = [
    "ChickWeightsStream",
    "FriedmanStream",
    "MvStream",
    "Planes2DStream",
    "TrumpApprovalStream",
]


class _RiverRegression(Stream):
    """A River regression dataset as arrays: ``columns`` names the features in order and
    :meth:`_row` encodes one River sample ``x`` (a dict) as those columns."""

    task: ClassVar[str] = "regression"
    natural_order: ClassVar[bool] = True  # the generator's (or the file's) order
    #: the features, in the order of the columns of ``X``
    columns: ClassVar[tuple[str, ...]] = ()
    #: River's class, as ``river.datasets`` names it
    _river_name: ClassVar[str] = ""

    def _size(self) -> int:
        """The number of samples."""
        raise NotImplementedError

    def _dataset(self) -> Any:
        raise NotImplementedError

    def _row(self, x: dict[Any, Any]) -> list[float]:
        return [float(v) for v in x.values()]

    def _samples(self) -> Iterator[tuple[dict[Any, Any], Any]]:
        """The stream's River samples: the first ``n_samples`` of a generator; the whole
        file of a shipped set (read to its end, so that River's reader closes it)."""
        return iter(self._dataset())

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        n = self._size()
        X = np.empty((n, len(self.columns)), dtype=np.float64)
        y = np.empty(n, dtype=np.float64)
        rows = 0
        for i, (x, target) in enumerate(self._samples()):
            X[i] = self._row(x)
            y[i] = float(target)
            rows = i + 1
        return X[:rows], y[:rows]

    def info(self) -> StreamInfo:
        return StreamInfo(name=type(self).__name__, task="regression", n_samples=self._size(),
                          n_features=len(self.columns), n_classes=None,
                          source=f"river.datasets.{self._river_name}",
                          preprocessing=self._preprocessing())

    def _preprocessing(self) -> tuple[str, ...]:
        return ()

    def estimate_size(self) -> tuple[int, int] | None:
        return self._size(), len(self.columns)


class _Generated(_RiverRegression):
    """A River generator: ``n_samples`` samples drawn with River seed ``seed``."""

    _constraints: ClassVar[dict[str, Any]] = {
        "n_samples": Interval(1, 10**8, integer=True),
        "seed": Interval(None, None, integer=True, allow_none=True),
    }

    def __init__(self, *, n_samples: int = 10_000, seed: int | None = 0) -> None:
        self.n_samples = n_samples
        self.seed = seed
        self._validate_params()

    def _size(self) -> int:
        return int(self.n_samples)

    def _samples(self) -> Iterator[tuple[dict[Any, Any], Any]]:
        return itertools.islice(self._dataset(), self._size())

    def _dataset(self) -> Any:
        from river.datasets import synth

        return getattr(synth, self._river_name.rsplit(".", 1)[-1])(seed=self.seed)


@register_stream("friedman")
class FriedmanStream(_Generated):
    """River's Friedman #1 generator (river.datasets.synth.Friedman): 10 features uniform
    in [0, 1], ``y = 10 sin(pi x0 x1) + 20 (x2 - 0.5)² + 10 x3 + 5 x4 + N(0, 1)``.

    Parameters
    ----------
    n_samples
        Length of the stream.
    seed
        River seed (``None``: not reproducible).

    References
    ----------
    [^1]: J. H. Friedman. Multivariate adaptive regression splines. The Annals of
          Statistics 19(1), 1991.
    """

    columns = tuple(f"x{i}" for i in range(10))
    _river_name = "synth.Friedman"


@register_stream("planes2d")
class Planes2DStream(_Generated):
    """River's 2D Planes generator (river.datasets.synth.Planes2D): ``x1`` in {-1, 1},
    ``x2..x10`` in {-1, 0, 1}; ``y = 3 + 3 x2 + 2 x3 + x4`` if ``x1 = 1``, else
    ``-3 + 3 x5 + 2 x6 + x7``, plus N(0, 1) noise.

    Parameters
    ----------
    n_samples
        Length of the stream.
    seed
        River seed (``None``: not reproducible).

    References
    ----------
    [^1]: L. Breiman, J. Friedman, C. J. Stone and R. A. Olshen. Classification and
          regression trees. CRC press, 1984.
    """

    columns = tuple(f"x{i}" for i in range(1, 11))
    _river_name = "synth.Planes2D"


#: Mv's nominal features: River key → the values that get a column of their own
MV_NOMINAL: dict[int, tuple[str, ...]] = {3: ("green", "red", "brown"), 7: ("yes",),
                                          8: ("large",)}


@register_stream("mv")
class MvStream(_Generated):
    """River's Mv generator (river.datasets.synth.Mv): numeric and nominal features with
    co-dependencies and a piecewise target (Torgo's Mv). The nominal features are encoded
    in place, one-hot for ``x3`` (``green``, ``red``, ``brown``) and a 0/1 indicator for
    ``x7`` (``yes``) and ``x8`` (``large``): 12 columns.

    Parameters
    ----------
    n_samples
        Length of the stream.
    seed
        River seed (``None``: not reproducible).

    References
    ----------
    [^1]: L. Torgo. Regression datasets, Mv.
    """

    columns = tuple(
        name for key in range(1, 11)
        for name in ([f"x{key}={v}" for v in MV_NOMINAL[key]] if key in MV_NOMINAL
                     else [f"x{key}"]))
    _river_name = "synth.Mv"

    def _row(self, x: dict[Any, Any]) -> list[float]:
        row: list[float] = []
        for key in range(1, 11):
            if key in MV_NOMINAL:
                row.extend(float(x[key] == v) for v in MV_NOMINAL[key])
            else:
                row.append(float(x[key]))
        return row

    def _preprocessing(self) -> tuple[str, ...]:
        return ("x3 one-hot (green, red, brown); x7, x8 as 0/1 (yes, large)",)


class _Shipped(_RiverRegression):
    """A real dataset shipped inside River's wheel, read with River's own reader."""

    reseed_per_run: ClassVar[bool] = False
    #: the number of samples River documents
    n_rows: ClassVar[int] = 0

    def __init__(self) -> None:
        self._validate_params()

    def _size(self) -> int:
        return self.n_rows

    def _dataset(self) -> Any:
        from river import datasets

        return getattr(datasets, self._river_name)()

    def _row(self, x: dict[Any, Any]) -> list[float]:
        return [float(x[c]) for c in self.columns]


@register_stream("trump_approval")
class TrumpApprovalStream(_Shipped):
    """Donald Trump's approval ratings (river.datasets.TrumpApproval), 1,001 days in date
    order: predict FiveThirtyEight's estimate from the day's ordinal date and the ratings of
    five pollsters (Gallup, Ipsos, Morning Consult, Rasmussen, YouGov).

    References
    ----------
    [^1]: FiveThirtyEight, How popular is Donald Trump?
    """

    columns = ("ordinal_date", "gallup", "ipsos", "morning_consult", "rasmussen", "you_gov")
    _river_name = "TrumpApproval"
    n_rows = 1_001


@register_stream("chick_weights")
class ChickWeightsStream(_Shipped):
    """Chick weights over time (river.datasets.ChickWeights): 578 weighings ordered by time
    then chick; predict the weight from the time, the chick's number and its diet (both
    integer codes, kept as numbers).

    References
    ----------
    [^1]: M. J. Crowder and D. J. Hand. Analysis of repeated measures. Chapman and Hall,
          1990 (R's ChickWeight data).
    """

    columns = ("time", "chick", "diet")
    _river_name = "ChickWeights"
    n_rows = 578
