"""Shared scaffolding of the tapped-delay-line predictors of the Fast-ONS paper (Civek and
Kozat, Sec. 2): OGD, regular ONS and fast ONS.

A learner here reads a univariate series (tag ``needs_series``): ``x[0]`` of each input is
the newest value ``x_t``; the target is ``x_{t+1}``. The learner keeps its own delay line
``[x_t, .., x_{t-M}]``, so no lag matrix is ever built. ``predict_one`` forms the window
with the new value without changing any state; ``learn_one`` runs the learner's chunk
kernel on that one sample, so the per-sample loop and ``predict_learn_many`` execute the
same arithmetic and give identical predictions.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from streamlearn.base import Regressor
from streamlearn.errors import UserError
from streamlearn.kernels.online_newton_step import series_predict
from streamlearn.params import Interval, OfType


class DelayLineRegressor(Regressor):
    """Base of the linear predictors over the last ``M`` values of a series (paper eq. 1).

    Subclasses allocate their state in :meth:`_allocate` and run a chunk in
    :meth:`_run_chunk` (inputs ``x_t``, targets ``x_{t+1}``, predictions written to
    ``out``)."""

    tags: ClassVar[frozenset[str]] = frozenset({"needs_series"})
    _constraints: ClassVar[dict[str, Any]] = {
        "M": Interval(1, 100_000, integer=True),
        "eps": Interval(0.0, None),
        "offset": OfType((bool,)),
    }

    def __init__(self, *, M: int = 16, eps: float = 1e-8, offset: bool = False) -> None:
        self.M = M
        self.eps = eps
        self.offset = offset
        self._validate_params()

    # -- learner interface -----------------------------------------------------------

    @property  # type: ignore[misc]  (a ClassVar of Regressor, per instance here)
    def fits_intercept(self) -> bool:  # type: ignore[override]
        """Only with ``offset``: the paper's predictors are ``w^T x_t`` (regret eq. 2)."""
        return bool(self.offset)

    @property
    def n_lags(self) -> int:
        """Length of the lag window the predictor reads (the regret comparator uses the
        same windows)."""
        return self.M

    def reset(self, n_features: int, n_classes: int | None) -> None:
        if n_features != 1:
            raise UserError(
                f"{type(self).__name__} reads a univariate series (one value per step) and "
                f"keeps its own delay line, but the stream gives {n_features} features. "
                "Run it with the 'prequential-regression' protocol on a series stream.")
        self.xt_ = np.zeros(self.M + 1)
        self.steps_ = 0
        self._allocate()
        self._out1 = np.empty(1)

    def predict_one(self, x: np.ndarray) -> float:
        return float(series_predict(self._weights(), self.xt_, float(x[0]), self.M,
                                    self._intercept()))

    def learn_one(self, x: np.ndarray, y: Any) -> None:
        self._run_chunk(np.array([float(x[0])]), np.array([float(y)]), self._out1)

    def predict_learn_many(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        out = np.empty(X.shape[0])
        self.predict_learn_into(X, y, out)
        return out

    def predict_learn_into(self, X: np.ndarray, y: np.ndarray, out: np.ndarray) -> None:
        """:meth:`predict_learn_many` writing the predictions into ``out`` (a contiguous
        float64 array of ``len(y)``, e.g. a slice of the engine's prediction array)."""
        xin = np.ascontiguousarray(X[:, 0], dtype=np.float64)
        self._run_chunk(xin, np.ascontiguousarray(y, dtype=np.float64), out)

    # -- subclass hooks ----------------------------------------------------------------

    def _allocate(self) -> None:
        raise NotImplementedError

    def _run_chunk(self, xin: np.ndarray, yin: np.ndarray, out: np.ndarray) -> None:
        raise NotImplementedError

    def _weights(self) -> np.ndarray:
        return self.w_

    def _intercept(self) -> float:
        return float(self.w_[self.M]) if self.offset else 0.0

    @property
    def coef_(self) -> np.ndarray:
        """The lag weights ``w_t`` (newest lag first)."""
        return self._weights()[: self.M].copy()

    @property
    def intercept_(self) -> float:
        """The offset ``c_t`` (0 without ``offset``)."""
        return self._intercept()

    @classmethod
    def _test_params(cls) -> Any:
        yield {"M": 4}
        yield {"M": 3, "offset": True}
