"""Broad learning: the random broad feature map and the base class of every BLS learner
(Online-BLS family, I-BLS, RI-BLS, BLS-CIL).

The feature map is that of C. Lei et al., *Online-BLS: An Accurate and Efficient Online
Broad Learning System for Data Stream Classification*, §3.2: ``n2`` feature groups of
``n1`` linear nodes (eq. 1), ``n4`` enhancement groups of ``n3`` tanh nodes fed by the
feature nodes (eq. 28 of Appendix A; eq. 2 prints ``x``, which does not fit the shape of
``W_ej``), concatenated into ``a ∈ R^m``, ``m = n1·n2 + n3·n4`` (eq. 3). For one seed,
every BLS learner draws the same weights in the same order, so all methods see the same
broad features (the paired comparison of Table 3).

Contract for subclasses
-----------------------
Subclass :class:`BLSClassifier` and implement

* ``_reset_state(m, c)`` — create the learned state; ``self.W_`` (``(m, c)`` zeros) already
  exists and ``predict_one`` uses it, so keep ``self.W_`` current;
* ``_learn_a(a, y)`` — the update for one broad feature ``a`` (float64 ``(m,)``) and integer
  label ``y`` (one-hot target ``e_y``, §3.1).

Do not override ``learn_one``/``predict_one``: they implement the optional enhancement
shrinkage warm-up (below) and then call ``_learn_a``/``_predict_a``. Learners with a
chunked ``predict_learn_many`` call :meth:`BLSClassifier._warmup_many` first.

Scaling of the enhancement pre-activations
------------------------------------------
The paper does not say how inputs and enhancement pre-activations are scaled (§3.2: the
weights are "randomly generated"), yet the scale decides whether Table 3 reproduces.
Input normalisation (min-max, z-score) is done by the runner. Here, the pre-activation
``z We + be`` of eq. 28 can be multiplied by a scale ``t`` before ``tanh``:

* default: ``t = 1``;
* ``enh_scale=t``: a fixed multiplier;
* ``enh_shrink=s``: the reference BLS code's shrinkage ``t = s / max|z We + be|``, computed
  honestly online, from either

  - ``shrink_source="warmup"``: the first ``shrink_warmup`` samples. The learner predicts
    them with ``W = 0`` (class 0, like the first sample of every method), buffers them,
    fixes ``t`` from their maximum when the last one arrives, then learns them in order; or
  - ``shrink_source="box"``: a bound known before the stream — the exact maximum of
    ``|z We + be|`` (an affine function of ``x`` since ``φ`` is the identity) over the
    input box ``[input_low, input_high]^d`` (e.g. ``[0, 1]`` after the runner's min-max
    normalisation), or over the sphere ``‖x‖ = √d, Σx = 0`` when ``row_zscore`` is on.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import numpy as np

from streamlearn.base import Classifier
from streamlearn.errors import UserError
from streamlearn.kernels.broad_features import (
    FeatureStatus,
    Squash,
    argmax_first,
    broad_features,
    enhancement_absmax,
    scores,
)
from streamlearn.params import Constraint, Interval, OfType, Options

__all__ = ["BLSClassifier", "BroadFeatureMap", "check_finite_weights", "with_zero_column"]


def check_finite_weights(W: np.ndarray, name: str, k: int) -> None:
    """Raise a :class:`UserError` if an update produced non-finite weights."""
    if not np.isfinite(W).all():
        raise UserError(
            f"{name}: the output weights became non-finite at sample {k}; the method's "
            "inverse/pseudo-inverse update broke down on this stream"
        )


def with_zero_column(W: np.ndarray) -> np.ndarray:
    """``W`` with one more, all-zero, last column (a new C-contiguous float64 array): the
    output weights of a class the learner has not met (:meth:`BLSClassifier.add_class`)."""
    out = np.zeros((W.shape[0], W.shape[1] + 1))
    out[:, : W.shape[1]] = W
    return out


class BroadFeatureMap:
    """Random broad feature mapping (Online-BLS paper eqs. 1, 28 and 3).

    Parameters
    ----------
    n_features
        Input dimension ``d``.
    n1, n2
        Nodes per feature group and number of feature groups (eq. 1).
    n3, n4
        Nodes per enhancement group and number of enhancement groups (eq. 28).
    rng
        Source of the random weights, drawn in this fixed order:
        ``Wf (n2, d, n1)``, ``bf (n2, n1)``, ``We (n4, n1·n2, n3)``, ``be (n4, n3)``,
        all i.i.d. Uniform[-1, 1] (the paper names no distribution).
    enh_scale
        Multiplier ``t`` of the enhancement pre-activation, ``tanh(t·(z We + be))``;
        ``None`` means 1.
    row_zscore
        Standardise each input row by its own mean and SD first (as the reference BLS
        code does).
    orth_enhancement
        Orthonormalise each enhancement group's stacked ``[We_j; be_j]`` (columns if it is
        tall, rows otherwise) with ``scipy.linalg.orth``, as the reference BLS code does
        (off by default).
    defer_scale
        Leave ``t`` unset: :meth:`transform` raises until :meth:`set_scale` is called
        (used by the shrinkage warm-up).
    vector_tanh
        ``σ`` by :func:`streamlearn.kernels.vector_math.tanh` (vectorised, within 2 ulp,
        the same bits on every CPU) instead of the C library's ``tanh`` (the default).

    Attributes
    ----------
    m
        Number of broad features, ``n1·n2 + n3·n4``.
    Wf, bf, We, be
        The draws, in the shapes above.
    scale
        The enhancement multiplier ``t`` (``None`` until set).
    """

    def __init__(
        self,
        n_features: int,
        n1: int,
        n2: int,
        n3: int,
        n4: int,
        rng: np.random.Generator,
        *,
        enh_scale: float | None = None,
        row_zscore: bool = False,
        orth_enhancement: bool = False,
        defer_scale: bool = False,
        vector_tanh: bool = False,
    ) -> None:
        d, p = int(n_features), n1 * n2
        self.squash = Squash.VECTOR_TANH if vector_tanh else Squash.LIBM_TANH
        self.n_features, self.n1, self.n2, self.n3, self.n4 = d, n1, n2, n3, n4
        self.row_zscore = bool(row_zscore)
        self.m = p + n3 * n4
        # exactly this order and these shapes: one seed, one map for every BLS learner
        self.Wf = rng.uniform(-1.0, 1.0, size=(n2, d, n1))
        self.bf = rng.uniform(-1.0, 1.0, size=(n2, n1))
        self.We = rng.uniform(-1.0, 1.0, size=(n4, p, n3))
        self.be = rng.uniform(-1.0, 1.0, size=(n4, n3))
        if orth_enhancement:
            import scipy.linalg

            for j in range(n4):
                stacked = np.vstack([self.We[j], self.be[j][None, :]])  # (p + 1, n3)
                if p + 1 >= n3:
                    q = scipy.linalg.orth(stacked)
                else:
                    q = scipy.linalg.orth(stacked.T).T
                if q.shape != stacked.shape:  # rank-deficient draw (probability zero)
                    raise UserError("orth_enhancement: the random enhancement draw is singular")
                self.We[j], self.be[j] = q[:p], q[p]
        # flat, C-contiguous layouts used by the kernels: group-major node order (eq. 3)
        self._Wf = np.ascontiguousarray(self.Wf.transpose(1, 0, 2).reshape(d, p))
        self._bf = np.ascontiguousarray(self.bf.reshape(p))
        self._We = np.ascontiguousarray(self.We.transpose(1, 0, 2).reshape(p, n3 * n4))
        self._be = np.ascontiguousarray(self.be.reshape(n3 * n4))
        self.scale: float | None = None if defer_scale else float(enh_scale or 1.0)

    # ----------------------------------------------------------------------------------
    def set_scale(self, scale: float) -> None:
        """Fix the enhancement multiplier ``t``."""
        if not np.isfinite(scale) or scale <= 0:
            raise UserError(f"The enhancement scale must be finite and > 0, got {scale!r}.")
        self.scale = float(scale)

    def _check_ready(self) -> float:
        if self.scale is None:
            raise RuntimeError(
                "BroadFeatureMap: the enhancement scale is not fixed yet (shrinkage warm-up "
                "pending); BLS learners must learn through BLSClassifier._learn_a"
            )
        return self.scale

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Broad features of every row, ``(n, m)``; row ``i`` equals ``transform_one(X[i])``
        bit for bit."""
        scale = self._check_ready()
        X = np.ascontiguousarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"expected X of shape (n, {self.n_features}), got {X.shape}")
        out = np.empty((X.shape[0], self.m))
        status = broad_features(
            X, self._Wf, self._bf, self._We, self._be, scale, int(self.row_zscore), out,
            int(self.squash),
        )
        if status != FeatureStatus.OK:
            raise UserError(
                "Non-finite broad features (inputs not finite or too large?). "
                "Check the stream's preprocessing."
            )
        return out

    def transform_one(self, x: np.ndarray) -> np.ndarray:
        """Broad feature ``a`` (eq. 3) of one input, a new ``(m,)`` float64 array."""
        return self.transform(np.asarray(x, dtype=np.float64).reshape(1, -1))[0]

    # ----------------------------------------------------------------------------------
    def preactivation_absmax(self, X: np.ndarray) -> float:
        """``max |z We + be|`` over the rows of ``X`` (unscaled; the shrinkage divides by it)."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        return float(
            enhancement_absmax(X, self._Wf, self._bf, self._We, self._be, int(self.row_zscore))
        )

    def preactivation_bound(self, low: float, high: float) -> float:
        """Exact ``max |z We + be|`` over every input the stream can hold: the box
        ``[low, high]^d``, or with ``row_zscore`` the set ``{Σx = 0, ‖x‖ = √d}``.

        With ``φ`` the identity, ``z We + be = x M + c`` is affine (``M = Wf We``,
        ``c = bf We + be``), so the maximum of each node's ``|·|`` over a box is at a
        corner (sum of per-coordinate extremes) and over the sphere is
        ``|c| + √d ‖M - mean(M)‖``.
        """
        M = self._Wf @ self._We
        c = self._bf @ self._We + self._be
        if self.row_zscore:
            centred = M - M.mean(axis=0, keepdims=True)
            bound = np.abs(c) + np.sqrt(self.n_features) * np.linalg.norm(centred, axis=0)
        else:
            hi = c + np.maximum(low * M, high * M).sum(axis=0)
            lo = c + np.minimum(low * M, high * M).sum(axis=0)
            bound = np.maximum(np.abs(hi), np.abs(lo))
        return float(bound.max())


class BLSClassifier(Classifier):
    """Shared parameters, validation, feature map and warm-up of every BLS learner.

    Parameters
    ----------
    n1, n2
        Feature nodes per group and feature groups (paper §5.1: 10 and 10).
    n3, n4
        Enhancement nodes per group and enhancement groups (paper §5.1: 1000 and 1).
    lam
        Ridge parameter ``λ`` (paper §5.1: 1e-8).
    enh_scale
        Fixed multiplier of the enhancement pre-activation (``None``: none, i.e. 1).
    enh_shrink
        Target ``s`` of the reference BLS shrinkage ``t = s / max|z We + be|``
        (``None``: off). Exclusive with ``enh_scale``.
    shrink_source
        Where ``max|z We + be|`` comes from: ``"warmup"`` (the first ``shrink_warmup``
        samples, predicted with ``W = 0`` and learned once ``t`` is fixed) or ``"box"``
        (exact bound over the input box ``[input_low, input_high]^d``).
    shrink_warmup
        Length of the warm-up prefix for ``shrink_source="warmup"``.
    input_low, input_high
        The input box for ``shrink_source="box"``.
    row_zscore
        Standardise each input row by its own mean/SD (as the reference BLS code does).
    orth_enhancement
        Orthonormalise the enhancement weights (as the reference BLS code does).
    seed
        Seed of the random weights (``np.random.default_rng(seed)`` in ``reset``).

    Attributes
    ----------
    features_
        The :class:`BroadFeatureMap`.
    n_classes_
        Number of classes ``c``.
    W_
        Output weights ``(m, c)``; ``W^(0) = 0`` (Alg. 1 line 1).
    """

    #: ``σ`` by the vectorised ``tanh`` (:class:`BroadFeatureMap`'s ``vector_tanh``)
    _vector_tanh: ClassVar[bool] = False
    _constraints: ClassVar[dict[str, Constraint]] = {
        "n1": Interval(1, None, integer=True),
        "n2": Interval(1, None, integer=True),
        "n3": Interval(1, None, integer=True),
        "n4": Interval(0, None, integer=True),
        "lam": Interval(0, None, closed="neither"),
        "enh_scale": Interval(0, None, closed="neither", allow_none=True),
        "enh_shrink": Interval(0, None, closed="neither", allow_none=True),
        "shrink_source": Options(("warmup", "box")),
        "shrink_warmup": Interval(1, None, integer=True),
        "input_low": Interval(None, None),
        "input_high": Interval(None, None),
        "row_zscore": OfType((bool,)),
        "orth_enhancement": OfType((bool,)),
        "seed": Interval(None, None, integer=True, allow_none=True),
    }

    def __init__(
        self,
        *,
        n1: int = 10,
        n2: int = 10,
        n3: int = 1000,
        n4: int = 1,
        lam: float = 1e-8,
        enh_scale: float | None = None,
        enh_shrink: float | None = None,
        shrink_source: str = "warmup",
        shrink_warmup: int = 20,
        input_low: float = 0.0,
        input_high: float = 1.0,
        row_zscore: bool = False,
        orth_enhancement: bool = False,
        seed: int | None = None,
    ) -> None:
        self.n1 = n1
        self.n2 = n2
        self.n3 = n3
        self.n4 = n4
        self.lam = lam
        self.enh_scale = enh_scale
        self.enh_shrink = enh_shrink
        self.shrink_source = shrink_source
        self.shrink_warmup = shrink_warmup
        self.input_low = input_low
        self.input_high = input_high
        self.row_zscore = row_zscore
        self.orth_enhancement = orth_enhancement
        self.seed = seed
        self._validate_params()

    @classmethod
    def _check_param_values(cls, values: Mapping[str, Any]) -> None:
        super()._check_param_values(values)
        if values["enh_scale"] is not None and values["enh_shrink"] is not None:
            raise UserError(
                f"{cls.__name__}: set at most one of 'enh_scale' and 'enh_shrink'."
            )
        if values["input_high"] <= values["input_low"]:
            raise UserError(f"{cls.__name__}: 'input_high' must exceed 'input_low'.")

    @classmethod
    def estimate_bytes(cls, params: dict[str, Any], n_features: int,
                       n_classes: int | None) -> int:
        """A lower bound on the learner's memory: one ``m × m`` float64 matrix (the
        Cholesky factor, inverse or ``K`` of every BLS variant), ``m = n1·n2 + n3·n4``
        (eq. 3), plus the feature map and the output weights."""
        p = {**cls.default_params(), **params}
        m = int(p["n1"]) * int(p["n2"]) + int(p["n3"]) * int(p["n4"])
        c = max(int(n_classes or 2), 2)
        return 8 * (m * m + m * (c + 1) + int(n_features) * int(p["n1"]) * int(p["n2"]))

    @classmethod
    def _bls_test_params(cls) -> dict[str, Any]:
        """Small feature map for fast conformance checks."""
        return {"n1": 3, "n2": 2, "n3": 20, "n4": 1, "lam": 1e-2, "seed": 0}

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield cls._bls_test_params()
        yield {**cls._bls_test_params(), "enh_shrink": 0.8, "shrink_warmup": 3}

    # ----------------------------------------------------------------------------------
    def reset(self, n_features: int, n_classes: int | None) -> None:
        if n_classes is None or n_classes < 1:
            raise UserError(f"{type(self).__name__} needs the number of classes.")
        rng = np.random.default_rng(self.seed)
        pending = self.enh_shrink is not None and self.shrink_source == "warmup"
        self.features_ = BroadFeatureMap(
            n_features,
            self.n1,
            self.n2,
            self.n3,
            self.n4,
            rng,
            enh_scale=self.enh_scale,
            defer_scale=self.enh_shrink is not None,
            row_zscore=self.row_zscore,
            orth_enhancement=self.orth_enhancement,
            vector_tanh=self._vector_tanh,
        )
        if self.enh_shrink is not None and self.shrink_source == "box":
            bound = self.features_.preactivation_bound(self.input_low, self.input_high)
            self.features_.set_scale(self.enh_shrink / bound if bound > 0 else 1.0)
        self.n_classes_ = int(n_classes)
        m = self.features_.m
        self.W_ = np.zeros((m, self.n_classes_))
        self._warm_X: list[np.ndarray] | None = [] if pending else None
        self._warm_y: list[int] = []
        self._scores = np.empty(self.n_classes_)
        self._cached: tuple[np.ndarray, np.ndarray] | None = None
        self._reset_state(m, self.n_classes_)

    def _reset_state(self, m: int, c: int) -> None:
        raise NotImplementedError

    def _learn_a(self, a: np.ndarray, y: int) -> None:
        raise NotImplementedError

    def _scores_a(self, a: np.ndarray) -> np.ndarray:
        """The class scores ``ŷ = Wᵀa`` of a broad feature ``a`` (a scratch buffer)."""
        scores(a, self.W_, self._scores)
        return self._scores

    def _predict_a(self, a: np.ndarray) -> int:
        return int(argmax_first(self._scores_a(a)))

    def _grow_state(self, c: int) -> None:
        """Give the learned state and scratch buffers ``c`` classes (one more), the new
        class's output column zero; subclasses whose update keeps it exactly zero implement
        it (see :meth:`add_class`)."""
        raise NotImplementedError(
            f"{type(self).__name__} cannot take a new class mid-stream; give it the number "
            "of classes up front.")

    # ----------------------------------------------------------------------------------
    def predict_scores_one(self, x: np.ndarray) -> np.ndarray:
        """The class scores ``ŷ = Wᵀa`` of ``x`` (the ridge outputs on one-hot targets), a
        new ``(n_classes,)`` array; ``predict_one(x)`` is their first argmax. Zeros during
        the shrinkage warm-up (``W = 0``). Like ``predict_one``, it keeps ``a`` for a
        ``learn_one(x, y)`` that follows."""
        if self._warm_X is not None:
            return np.zeros(self.n_classes_)
        a = self.features_.transform_one(x)
        self._cached = (np.array(x, dtype=np.float64), a)
        return self._scores_a(a).copy()

    def add_class(self) -> None:
        """Grow the output layer by one class (label ``n_classes_``, the old count).

        The targets are one-hot, so a class not seen yet has an all-zero target column; in
        the ridge-type updates its output column stays exactly zero (``Sⱼ = Σ a yⱼ = 0``,
        and a residual update adds ``g·(0 - aᵀ0) = 0``). A learner grown here is in the
        state of one reset with the larger count that has not met the class: the same
        predictions from then on. Raises ``NotImplementedError`` where the method's state
        does not allow it.
        """
        c = self.n_classes_ + 1
        self._grow_state(c)
        self.n_classes_ = c
        self._scores = np.empty(c)

    # ----------------------------------------------------------------------------------
    def predict_one(self, x: np.ndarray) -> int:
        if self._warm_X is not None:
            return 0  # W = 0 during the warm-up: argmax of zeros, ties to class 0
        a = self.features_.transform_one(x)
        # the runner calls learn_one(x, y) next with the same x: keep a for it
        self._cached = (np.array(x, dtype=np.float64), a)
        return self._predict_a(a)

    def _features(self, x: np.ndarray) -> np.ndarray:
        cached, self._cached = self._cached, None
        if cached is not None and np.array_equal(cached[0], x):
            return cached[1]  # bit-identical to transform_one(x): same kernel, same x
        return self.features_.transform_one(x)

    def learn_one(self, x: np.ndarray, y: Any) -> None:
        label = int(y)
        if not 0 <= label < self.n_classes_:
            raise UserError(f"label {label} outside 0..{self.n_classes_ - 1}")
        if self._warm_X is not None:
            self._warm_X.append(np.array(x, dtype=np.float64))
            self._warm_y.append(label)
            if len(self._warm_X) >= self.shrink_warmup:
                self._finish_warmup()
            return
        self._learn_a(self._features(x), label)

    def _finish_warmup(self) -> None:
        assert self._warm_X is not None and self.enh_shrink is not None
        Xw = np.vstack(self._warm_X)
        peak = self.features_.preactivation_absmax(Xw)
        if not np.isfinite(peak):
            raise UserError("Non-finite enhancement pre-activations in the warm-up prefix.")
        self.features_.set_scale(self.enh_shrink / peak if peak > 0 else 1.0)
        labels = self._warm_y
        self._warm_X, self._warm_y = None, []
        A = self.features_.transform(Xw)
        for i in range(A.shape[0]):
            self._learn_a(A[i], labels[i])

    def _warmup_many(self, X: np.ndarray, y: np.ndarray, out: np.ndarray) -> int:
        """Run the warm-up part of a chunk sample by sample; return where it ended.

        Fills ``out[:start]`` with the predictions of the samples consumed; the caller
        processes ``X[start:]`` (the feature map is then ready).
        """
        start = 0
        while self._warm_X is not None and start < X.shape[0]:
            out[start] = self.predict_one(X[start])
            self.learn_one(X[start], y[start])
            start += 1
        return start

    def _check_chunk(self, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        X = np.ascontiguousarray(X, dtype=np.float64)
        y = np.ascontiguousarray(y, dtype=np.int64)
        if X.ndim != 2 or y.shape != (X.shape[0],):
            raise ValueError("expected X (n, d) and y (n,)")
        if y.size and (y.min() < 0 or y.max() >= self.n_classes_):
            raise UserError(f"labels outside 0..{self.n_classes_ - 1}")
        return X, y
