"""Shared layer of the FORKS paper's binary kernel learners: the {0,1} -> {-1,+1} label
mapping, ``sgn(0) := +1``, the Gaussian width, the loss codes and the round bookkeeping
(one score per round, cached between ``predict_one`` and ``learn_one``).

Paper: Wen et al., *Fast Second-Order Online Kernel Learning Through Incremental Matrix
Sketching and Decomposition* (FORKS), Sec. 5 and App. D.1 (Gaussian kernel
``exp(-||x - x'||^2 / (2 sigma^2))``, binary labels, online mistake rate). Every learner of
Table 1 (FORKS, SkeGD and the seven budgeted baselines) derives from
:class:`KernelBinaryClassifier`; kernel rows come from the one numba function
:func:`streamlearn.kernels.forks_budget.gauss_row`, so timings are comparable.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np

from streamlearn.base import Classifier
from streamlearn.errors import UserError
from streamlearn.kernels.forks_budget import LossCode, blas_dot, gauss_row
from streamlearn.params import Interval, Options

__all__ = ["LOSSES", "KernelBinaryClassifier", "label_to_pm1", "pm1_labels", "score_to_label"]

#: loss name -> kernel code (FORKS Sec. 5.1 hinge; Sec. 5.3 squared hinge)
LOSSES: dict[str, int] = {"hinge": int(LossCode.HINGE),
                          "squared_hinge": int(LossCode.SQUARED_HINGE)}


def label_to_pm1(y: Any) -> float:
    """Label ``1`` -> ``+1.0``, label ``0`` -> ``-1.0`` (the project's one mapping)."""
    return 1.0 if int(y) == 1 else -1.0


def score_to_label(f: float) -> int:
    """``sgn(f)`` as a label with ``sgn(0) := +1`` (spec Sec. 0.2, the Lu & Hoi toolbox)."""
    return 1 if f >= 0.0 else 0


class KernelBinaryClassifier(Classifier):
    """Base of the binary Gaussian-kernel learners of the FORKS paper.

    Subclasses implement ``_init_state(d)``, ``_score(x) -> f`` (the real score of the
    round, with any start-of-round work such as a projection) and
    ``_update(x, y_pm1, f)``. ``predict_one`` returns ``sgn(f)`` as 0/1; ``learn_one``
    reuses the score of the same round. ``predict_learn_many`` runs the same per-sample
    steps over a chunk (subclasses may fuse it in numba).

    Every learner here is tagged ``"scores"``: the real score ``f`` of each round (computed
    before the update; its sign is the prediction) is ``last_score_`` after
    ``predict_one`` and ``chunk_scores_`` (one per row) after ``predict_learn_many``, so a
    protocol can record it for score-based metrics (the FORKS regret, spec Sec. 1.4).

    Parameters
    ----------
    sigma
        Gaussian width ``sigma`` (``kappa = exp(-||x - x'||^2 / (2 sigma^2))``).
    budget
        Budget ``B``.
    loss
        ``"hinge"`` or ``"squared_hinge"``.
    seed
        Seed of the learner's random choices.
    """

    tags: ClassVar[frozenset[str]] = frozenset({"binary_only", "scores"})
    _constraints: ClassVar[dict[str, Any]] = {
        "sigma": Interval(0.0, None, closed="neither"),
        "budget": Interval(1, None, integer=True),
        "loss": Options(tuple(LOSSES)),
        "seed": Interval(0, None, integer=True, allow_none=True),
    }

    def __init__(self, *, sigma: float = 1.0, budget: int = 50, loss: str = "hinge",
                 seed: int | None = None) -> None:
        self.sigma = sigma
        self.budget = budget
        self.loss = loss
        self.seed = seed
        self._validate_params()

    # ---- life cycle ----------------------------------------------------------------------
    def reset(self, n_features: int, n_classes: int | None) -> None:
        """Fresh state; the kernel is ``exp(-gamma ||.||^2)``, ``gamma = 1/(2 sigma^2)``."""
        if n_classes is not None and n_classes > 2:
            raise UserError(f"{type(self).__name__} classifies two classes only; the stream "
                            f"has {n_classes}.")
        self.n_features_ = int(n_features)
        self.gamma_ = 1.0 / (2.0 * float(self.sigma) ** 2)
        self.loss_code_ = LOSSES[self.loss]
        self.t_ = 0
        self._rng = np.random.default_rng(self.seed)
        self._cache: tuple[np.ndarray, float] | None = None
        self.last_score_ = 0.0
        self.chunk_scores_ = np.zeros(0)
        self._init_state(self.n_features_)

    def _init_state(self, d: int) -> None:
        raise NotImplementedError

    # ---- the shared support-vector store (kernel expansion f = sum_i a_i kappa(x_i, x)) ----
    def _sv_alloc(self, capacity: int, d: int) -> None:
        """Preallocate ``capacity`` support vectors (``sv_``, ``coef_``, ``n_sv_``)."""
        self.sv_ = np.zeros((capacity, d))
        self.coef_ = np.zeros(capacity)
        self.n_sv_ = 0
        self._krow = np.zeros(capacity)

    def _sv_row(self, x: np.ndarray) -> np.ndarray:
        """Kernel values of ``x`` against the stored SVs (a view of a scratch buffer)."""
        n = self.n_sv_
        gauss_row(self.sv_, n, x, self.gamma_, self._krow)
        return self._krow[:n]

    def _sv_score(self, x: np.ndarray) -> float:
        """``f(x) = sum_i a_i kappa(x_i, x)`` (0 with no SV); leaves the row in ``_krow``.
        The product is :func:`~streamlearn.kernels.forks_budget.blas_dot`, the call the
        fused stage 1 of FORKS/SkeGD makes (same bits by construction)."""
        if self.n_sv_ == 0:
            return 0.0
        return float(blas_dot(self._sv_row(x), self.coef_[: self.n_sv_]))

    def _sv_append(self, x: np.ndarray, a: float) -> None:
        self.sv_[self.n_sv_] = x
        self.coef_[self.n_sv_] = a
        self.n_sv_ += 1

    def _sv_remove(self, idx: int) -> None:
        """Remove SV ``idx`` by moving the last one into its slot."""
        last = self.n_sv_ - 1
        self.sv_[idx] = self.sv_[last]
        self.coef_[idx] = self.coef_[last]
        self.n_sv_ = last

    def _score(self, x: np.ndarray) -> float:
        raise NotImplementedError

    def _update(self, x: np.ndarray, y: float, f: float) -> None:
        raise NotImplementedError

    # ---- round bookkeeping ---------------------------------------------------------------
    def _round_score(self, x: np.ndarray) -> float:
        c = self._cache
        if c is not None and np.array_equal(c[0], x):
            return c[1]
        f = float(self._score(x))
        if not np.isfinite(f):
            raise UserError(f"{type(self).__name__} produced a non-finite score (NaN/inf in "
                            "the input?). Check the stream or rescale the features.")
        self._cache = (np.array(x, dtype=np.float64), f)
        self.last_score_ = f
        return f

    def predict_one(self, x: np.ndarray) -> int:
        """``sgn(f(x))`` as 0/1, ``sgn(0) = +1``."""
        return score_to_label(self._round_score(x))

    def learn_one(self, x: np.ndarray, y: Any) -> None:
        """Update on ``(x, y)`` with the round's score, then move to the next round."""
        f = self._round_score(x)
        self._update(x, label_to_pm1(y), f)
        self._cache = None
        self.t_ += 1

    def _step(self, x: np.ndarray, y: Any) -> float:
        """One test-then-train round (``predict_one`` then ``learn_one``); its score."""
        f = self._round_score(x)
        self._update(x, label_to_pm1(y), f)
        self._cache = None
        self.t_ += 1
        return f

    def predict_learn_many(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Test-then-train over a chunk; the same steps as the per-sample loop. The
        rounds' scores are left in ``chunk_scores_``."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        scores = np.empty(X.shape[0])
        for i in range(X.shape[0]):
            scores[i] = self._step(X[i], y[i])
        self.chunk_scores_ = scores
        return np.where(scores >= 0.0, 1, 0).astype(np.int64)

    def _warm_up_params(self, n: int) -> dict[str, Any]:
        """Parameters of the warm-up copy (a budget small enough to fill on ``n`` rows)."""
        return {"budget": min(int(self.budget), 8)}

    def warm_up(self, X: np.ndarray, y: np.ndarray) -> None:
        """Run a copy with a tiny budget (:meth:`_warm_up_params`) over ``X``, cycled to at
        least 128 rows, through both the fused and the per-sample path: every numba kernel
        compiles, and the budget-full / stage-2 / update paths run once, before a timed
        run. ``self`` is not touched."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        if X.shape[0] == 0:
            return
        reps = -(-128 // X.shape[0])
        X, y = np.tile(X, (reps, 1)), np.tile(np.asarray(y), reps)
        n = X.shape[0]
        copy = self.clone(**self._warm_up_params(n))
        copy.reset(X.shape[1], 2)  # type: ignore[attr-defined]
        half = n // 2
        copy.predict_learn_many(X[:half], y[:half])  # type: ignore[attr-defined]
        for i in range(half, half + 8):
            copy.predict_one(X[i])  # type: ignore[attr-defined]
            copy.learn_one(X[i], y[i])  # type: ignore[attr-defined]
        copy.predict_learn_many(X[half + 8:], y[half + 8:])  # type: ignore[attr-defined]

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield {"sigma": 2.0, "budget": 20, "seed": 0}


def pm1_labels(y: np.ndarray) -> np.ndarray:
    """Vector form of :func:`label_to_pm1` (label 1 -> +1.0, else -1.0)."""
    return np.where(np.asarray(y) == 1, 1.0, -1.0)
