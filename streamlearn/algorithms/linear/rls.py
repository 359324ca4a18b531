"""Recursive ridge-regression classifier (recursive least squares with one-hot targets).

A closed-form baseline of streamlearn's own (it is not one of the reproduced papers'
methods): ridge regression from the raw features plus a constant 1 to the one-hot target,
updated exactly after every sample with the Sherman–Morrison formula (kernels in
:mod:`streamlearn.kernels.rls`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np

from streamlearn.base import Classifier
from streamlearn.errors import UserError
from streamlearn.kernels.rls import RLSStatus, rls_predict, rls_predict_learn, rls_update
from streamlearn.params import Interval
from streamlearn.registry import register_algorithm

__all__ = ["RLS"]


@register_algorithm("rls")
class RLS(Classifier):
    """Recursive ridge regression on one-hot targets (RLS via Sherman–Morrison), with bias.

    With ``a = [x, 1]`` (d = n_features + 1 inputs), ``P_0 = I / lam`` and ``W_0 = 0``
    (d x c), each sample is first predicted as ``argmax(W^T a)`` (ties: smallest class
    index), then learned with the exponentially weighted RLS step ::

        g = P a / (mu + a^T P a)
        W <- W + g (y^T - a^T W)
        P <- (P - g a^T P) / mu

    where ``y`` is the one-hot label and ``mu`` the ``forgetting`` factor. With ``mu = 1``
    the weights after k samples equal the ridge solution on the prefix,
    ``W_k = (A_k^T A_k + lam I)^{-1} A_k^T Y_k`` (the bias is regularised too); with
    ``mu < 1`` sample j is weighted by ``mu^(k-j)`` (and the ridge term by ``mu^k``).
    Deterministic, so it takes no ``seed``. Inputs are used as given (no scaling).

    Parameters
    ----------
    lam
        Ridge parameter (``P_0 = I / lam``).
    forgetting
        Forgetting factor ``mu`` in (0, 1]; 1 means no forgetting.

    Attributes
    ----------
    P_
        (d, d) inverse of the (weighted) regularised Gram matrix.
    W_
        (d, c) ridge weights; the last row is the bias.

    References
    ----------
    [^1]: S. Haykin. Adaptive Filter Theory. Prentice Hall (the exponentially weighted
          RLS algorithm).
    [^2]: J. Sherman and W. J. Morrison. Adjustment of an inverse matrix corresponding to a
          change in one element of a given matrix. Ann. Math. Statist. 21(1), 1950.
    """

    _constraints: ClassVar[dict[str, Any]] = {
        "lam": Interval(0.0, None, closed="neither"),
        "forgetting": Interval(0.0, 1.0, closed="right"),
    }

    def __init__(self, *, lam: float = 1.0, forgetting: float = 1.0) -> None:
        self.lam = lam
        self.forgetting = forgetting
        self._validate_params()

    def reset(self, n_features: int, n_classes: int | None) -> None:
        """Set ``P_ = I / lam`` and ``W_ = 0`` for ``n_features + 1`` inputs."""
        if n_classes is None or n_classes < 1:
            raise UserError(f"RLS is a classifier and needs n_classes >= 1; got {n_classes!r}.")
        d = int(n_features) + 1
        self.n_features_ = int(n_features)
        self.n_classes_ = int(n_classes)
        self.P_ = np.eye(d) / float(self.lam)
        self.W_ = np.zeros((d, self.n_classes_))
        # scratch buffers (not learned state)
        self._a = np.empty(d)
        self._a[-1] = 1.0
        self._scores = np.empty(self.n_classes_)
        self._onehot = np.zeros(self.n_classes_)

    def _augment(self, x: np.ndarray) -> np.ndarray:
        self._a[:-1] = x
        return self._a

    def _fail(self, where: str) -> UserError:
        return UserError(
            f"RLS hit a non-finite value {where} (NaN/inf in the input, or overflow). "
            "Check the stream for NaN/inf or rescale the features."
        )

    def _check_label(self, y: Any) -> int:
        label = int(y)
        if not 0 <= label < self.n_classes_:
            raise UserError(f"RLS got label {label!r}, expected 0..{self.n_classes_ - 1}.")
        return label

    def predict_one(self, x: np.ndarray) -> int:
        """``argmax(W^T [x, 1])``, ties to the smallest class index."""
        pred = rls_predict(self.W_, self._augment(x), self._scores)
        if pred < 0:
            raise self._fail("in predict_one")
        return int(pred)

    def predict_scores_one(self, x: np.ndarray) -> np.ndarray:
        """The class scores ``W^T [x, 1]`` (ridge outputs on one-hot targets), a new
        ``(n_classes,)`` array; ``predict_one(x)`` is their first argmax."""
        if rls_predict(self.W_, self._augment(x), self._scores) < 0:
            raise self._fail("in predict_scores_one")
        return self._scores.copy()

    def add_class(self) -> None:
        """Grow the output layer by one class (label ``n_classes_``, the old count): a zero
        column of ``W``. A class not seen yet has an all-zero one-hot target, and the RLS
        step adds ``g (0 - a^T 0) = 0`` to its column, so the grown learner is in the state
        of one reset with the larger count that has not met the class (``P`` does not
        depend on the classes)."""
        d, c = self.W_.shape
        W = np.zeros((d, c + 1))
        W[:, :c] = self.W_
        self.W_ = W
        self.n_classes_ = c + 1
        self._scores = np.empty(c + 1)
        self._onehot = np.zeros(c + 1)

    def learn_one(self, x: np.ndarray, y: Any) -> None:
        """One RLS step on ``([x, 1], onehot(y))``; the state is unchanged on failure."""
        label = self._check_label(y)
        self._onehot[:] = 0.0
        self._onehot[label] = 1.0
        a = self._augment(x)
        status = rls_update(self.P_, self.W_, a, self._onehot, float(self.forgetting))
        if status != RLSStatus.OK:
            raise self._fail("in learn_one")

    def predict_learn_many(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Test-then-train over a chunk in one kernel call; same result as the per-sample loop.

        Returns the int64 predictions made before learning each sample.
        """
        X = np.ascontiguousarray(X, dtype=np.float64)
        y = np.ascontiguousarray(y, dtype=np.int64)
        if X.ndim != 2 or X.shape[1] != self.n_features_ or y.shape != (X.shape[0],):
            raise UserError(
                f"RLS expected X of shape (n, {self.n_features_}) and y of shape (n,); "
                f"got {X.shape} and {y.shape}."
            )
        if y.size and (y.min() < 0 or y.max() >= self.n_classes_):
            raise UserError(f"RLS got labels outside 0..{self.n_classes_ - 1}.")
        out = np.zeros(X.shape[0], dtype=np.int64)
        status = rls_predict_learn(self.P_, self.W_, X, y, float(self.forgetting), out)
        if status != RLSStatus.OK:
            raise self._fail("in predict_learn_many")
        return out

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield {}
        yield {"lam": 0.1, "forgetting": 0.99}
