"""The two-stage machinery FORKS and SkeGD share: stage 1 is kernel OGD into a buffer of
``B~ = buffer_factor * B`` points; when it is full the sketch is initialised (Alg. 1
l.8-9). Stage 2 learns a linear model on the explicit features ``phi(x) = Z^T m(x)``
(Eq. 5); every ``rho`` rounds the current point is inserted into the sketch (Eq. 11), the
decomposition is updated (TISVD, Eq. 12 / Alg. 2, or an exact rank-k SVD) and FORKS resets
its ONS state (Alg. 1 l.10-12). The sketch and TISVD themselves are in
:mod:`~streamlearn.algorithms.kernel.forks_sketch`; registers no learner.

Paper: Wen, Zhang, Wei, Hou, Li, Zhang, *Fast Second-Order Online Kernel Learning Through
Incremental Matrix Sketching and Decomposition* (arXiv 2410.11188), Algorithm 1, Eq. (1)-(12).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import numpy as np

from streamlearn.algorithms.kernel.forks_sketch import (
    SCATTER_MIN_WORK,
    IncrementalSketch,
    feature_matrix,
    tisvd,
    top_k_eigh,
)
from streamlearn.algorithms.kernel.kernel_budget import (
    KernelBinaryClassifier,
    pm1_labels,
    score_to_label,
)
from streamlearn.errors import UserError
from streamlearn.kernels.forks_budget import (
    dloss,
    feature_map,
    first_order_step,
    gauss_gram,
    gram_from_rows,
    kernel_ogd_fill,
    ons_score,
    ons_step,
    ordered_dot,
    sketch_gram,
    sketch_stage2_loop,
)
from streamlearn.params import Interval

__all__ = ["SketchedKernelLearner"]

#: largest stage-1 buffer whose kernel rows the fused stage 1 keeps for the sketch set-up
#: (a ``B~ x B~`` store, 128 MiB at 4096; the unbudgeted-KOGD configurations use buffers of
#: tens of thousands of points that never fill, so they keep none)
KROWS_MAX = 4096


class SketchedKernelLearner(KernelBinaryClassifier):
    """Common two-stage machinery of FORKS and SkeGD (see the module docstring).

    Parameters
    ----------
    buffer_factor
        Stage-1 buffer ``B~ = buffer_factor * B`` (paper Sec. 5.1: ``2B``).
    sp_ratio
        ``s_p = round(sp_ratio * B)`` (Table 1: 1; adversarial: 0.75).
    gamma_ratio
        ``s_m = round(gamma_ratio * s_p)`` (0.2).
    k_ratio
        TISVD rank ``k = round(k_ratio * B)`` (0.1).
    theta, horizon, rho
        Update cycle ``rho = floor(theta * horizon)`` unless ``rho`` is given
        (Sec. 5.1: ``rho = floor(theta N)``; Sec. 5.2: ``floor(0.005 (N - B))``).
    eta
        Step size of stage 1 (and of SkeGD's first-order stage 2).
    """

    second_order: ClassVar[bool] = True
    _constraints: ClassVar[dict[str, Any]] = {
        **KernelBinaryClassifier._constraints,
        "buffer_factor": Interval(1, None, integer=True),
        "sp_ratio": Interval(0.0, None, closed="neither"),
        "gamma_ratio": Interval(0.0, 1.0, closed="right"),
        "k_ratio": Interval(0.0, None, closed="neither"),
        "theta": Interval(0.0, None, closed="neither"),
        "horizon": Interval(1, None, integer=True, allow_none=True),
        "rho": Interval(1, None, integer=True, allow_none=True),
        "eta": Interval(0.0, None, closed="neither"),
    }

    def __init__(self, *, buffer_factor: int = 2, sp_ratio: float = 1.0,
                 gamma_ratio: float = 0.2, k_ratio: float = 0.1, theta: float = 0.3,
                 horizon: int | None = None, rho: int | None = None, eta: float = 0.2,
                 **kwargs: Any) -> None:
        self.buffer_factor = buffer_factor
        self.sp_ratio = sp_ratio
        self.gamma_ratio = gamma_ratio
        self.k_ratio = k_ratio
        self.theta = theta
        self.horizon = horizon
        self.rho = rho
        self.eta = eta
        super().__init__(**kwargs)  # checks the update cycle too (_check_param_values)

    def _warm_up_params(self, n: int) -> dict[str, Any]:
        """A budget of 8 (buffer 8 * buffer_factor) and an update every 16 rounds, so the
        warm-up passes stage 1, the sketch set-up, stage 2 and update rounds; the
        scatter-add sketch product of a large sketch is compiled here too, not in the timed
        run, and so is :func:`gauss_gram` when the run's buffer is too large to keep stage
        1's kernel rows (the warm-up's set-up completes the kept rows)."""
        sp = max(1, round(self.sp_ratio * int(self.budget)))
        nb = int(self.buffer_factor) * int(self.budget)
        if sp * nb * nb >= SCATTER_MIN_WORK:
            sketch_gram(np.zeros((2, 2)), np.zeros(2, dtype=np.int64), np.ones(2), 1)
        if nb > KROWS_MAX:
            gauss_gram(np.zeros((2, 1)), 1.0)
        return {"budget": min(int(self.budget), 8), "rho": 16}

    def _update_cycle(self) -> int:
        """``rho`` if given, else ``floor(theta * horizon)``."""
        return self._cycle_of(self.get_params())

    @classmethod
    def _cycle_of(cls, values: Mapping[str, Any]) -> int:
        """The update cycle of these parameters; a ``UserError`` without ``rho`` or
        ``horizon``, or when ``floor(theta * horizon)`` is 0."""
        if values["rho"] is not None:
            return int(values["rho"])
        if values["horizon"] is None:
            raise UserError(f"{cls.__name__} needs the stream length to set its update "
                            "cycle rho = floor(theta * N): set the parameter 'horizon' (N) "
                            "or 'rho'.")
        rho = int(np.floor(values["theta"] * values["horizon"]))
        if rho < 1:
            raise UserError(f"{cls.__name__}: the update cycle rho = floor(theta * "
                            f"horizon) = {rho} must be at least 1; raise theta.")
        return rho

    @classmethod
    def _check_param_values(cls, values: Mapping[str, Any]) -> None:
        super()._check_param_values(values)
        cls._cycle_of(values)  # a missing or empty update cycle is a config error

    # ---- overridable policy ----------------------------------------------------------------
    _decomposition: str = "tisvd"
    _reset_on_update: bool = True
    _predict_first: bool = False

    def _init_state(self, d: int) -> None:
        B = int(self.budget)
        self.buffer_size_ = int(self.buffer_factor) * B
        self.sp_ = max(1, round(self.sp_ratio * B))
        self.sm_ = max(1, round(self.gamma_ratio * self.sp_))
        self.k_ = max(1, min(round(self.k_ratio * B), self.sp_))
        self.rho_ = self._update_cycle()
        self.phase_ = 1
        self._sv_alloc(self.buffer_size_, d)
        # kernel rows of the appended points, kept by the fused stage 1 (kernel_ogd_fill)
        # so that the set-up need not recompute the buffer's Gram matrix; valid while
        # _krows_n == n_sv_ (a point appended by the per-sample path invalidates it)
        nb = self.buffer_size_
        self._krows = np.empty((nb, nb) if nb <= KROWS_MAX else (0, 0))
        self._krows_n = 0 if nb <= KROWS_MAX else -1
        self.t0_ = -1
        self.n_sketch_updates_ = 0
        self._updated_at = -1
        self._pending = False
        self._tentative: dict[str, Any] | None = None

    # ---- stage 2 set-up and updates ------------------------------------------------------
    def _start_stage2(self) -> None:
        """Alg. 1 l.8-9 / spec Sec. 2.3: sketch from the buffer, rank-k decomposition,
        ``Z``, ``v = 0``, ``A^{-1} = I / alpha``. The buffer's Gram matrix is completed
        from the kernel rows the fused stage 1 kept (``gram_from_rows``, the same bits as
        ``gauss_gram``) when every buffered point was appended there."""
        self.sketch_ = IncrementalSketch(self.sp_, self.sm_, self.gamma_, self._rng)
        P = self.sv_[: self.n_sv_]
        K0 = None
        if self._krows_n == self.n_sv_ == self._krows.shape[0]:
            # gauss_gram(P) bit for bit from the rows stage 1 computed (kernel_ogd_fill)
            K0 = gram_from_rows(self._krows, P, self.gamma_)
        self._krows, self._krows_n = np.empty((0, 0)), -1
        self.sketch_.init(P, K0)
        del K0  # freed before the decomposition, as the sketch's own Gram matrix was
        k = min(self.k_, self.sketch_.sm)
        S, V = top_k_eigh(self.sketch_.Phi_pp, k)
        self.U_, self.S_, self.V_ = V.copy(), S, V
        self.Z_ = feature_matrix(self.sketch_.Phi_pm, self.V_, self.S_)
        self.landmarks_ = self.sketch_.landmarks
        kz = self.Z_.shape[1]
        self.v_ = np.zeros(kz)
        self.Ainv_ = np.eye(kz) / self._alpha()
        self._m = np.zeros(self.Z_.shape[0])
        self._z = np.zeros(kz)
        self._w = np.zeros(kz)
        self._u = np.zeros(kz)
        self.phase_ = 2
        self.t0_ = self.t_

    def _alpha(self) -> float:
        return 1.0

    def _sketch_update(self, x: np.ndarray) -> None:
        """Update round (Alg. 1 l.10-12): insert ``x`` (Eq. 11), TISVD with Eq. (12) or an
        exact rank-k SVD of ``Phi_pp``, rebuild ``Z``; FORKS also resets ``v`` and ``A``."""
        s, a, _ = self.sketch_.insert(x)
        k = self.U_.shape[1]
        if self._decomposition == "tisvd":
            D1 = np.column_stack([s, a, s])
            D2 = np.column_stack([a, s, s])  # kappa(x, x) = 1 for the Gaussian kernel
            self.U_, self.S_, self.V_ = tisvd(self.U_, self.S_, self.V_, D1, D2, k)
        else:
            self.S_, self.V_ = top_k_eigh(self.sketch_.Phi_pp, k)
            self.U_ = self.V_.copy()
        self.Z_ = feature_matrix(self.sketch_.Phi_pm, self.V_, self.S_)
        if self._reset_on_update:
            self.v_[:] = 0.0
            self.Ainv_[:] = np.eye(self.v_.shape[0]) / self._alpha()
        self.n_sketch_updates_ += 1
        self._updated_at = self.t_

    def _snapshot(self) -> dict[str, Any]:
        """What :meth:`_sketch_update` changes, so that an update round's insertion of a
        point that is only predicted (a held-out sample, a fold that does not learn it)
        can be undone: the sketch's matrices, size and random state, the decomposition,
        ``Z`` and the ONS state."""
        sk = self.sketch_
        return {"rng": self._rng.bit_generator.state, "n": sk.n,
                "Phi_pm": sk.Phi_pm.copy(),
                "Phi_pp": sk.Phi_pp.copy() if sk.keep_phi_pp else None,
                "U": self.U_, "S": self.S_, "V": self.V_, "Z": self.Z_,
                "v": self.v_.copy(), "Ainv": self.Ainv_.copy(),
                "n_updates": self.n_sketch_updates_, "updated_at": self._updated_at}

    def _restore(self, snap: dict[str, Any]) -> None:
        sk = self.sketch_
        self._rng.bit_generator.state = snap["rng"]
        sk.n = snap["n"]  # the inserted point's row, hash and sign lie past n: unused
        sk.Phi_pm[...] = snap["Phi_pm"]
        if snap["Phi_pp"] is not None:
            sk.Phi_pp[...] = snap["Phi_pp"]
        self.U_, self.S_, self.V_, self.Z_ = snap["U"], snap["S"], snap["V"], snap["Z"]
        self.v_[...] = snap["v"]
        self.Ainv_[...] = snap["Ainv"]
        self.n_sketch_updates_ = snap["n_updates"]
        self._updated_at = snap["updated_at"]

    def _is_update_round(self) -> bool:
        j = self.t_ - self.t0_
        return self.phase_ == 2 and j > 0 and j % self.rho_ == 0

    # ---- one round -------------------------------------------------------------------------
    def _stage2_score(self, x: np.ndarray) -> float:
        feature_map(x, self.landmarks_, self.gamma_, self.Z_, self._m, self._z)
        if self.second_order:
            return float(ons_score(self._z, self.v_, self.Ainv_, self._bound(),
                                   self._project(), self._w, self._u))
        return float(ordered_dot(self._z, self.v_))  # as the fused loop: no BLAS

    def _bound(self) -> float:
        return 0.0

    def _project(self) -> bool:
        return False

    def _score(self, x: np.ndarray) -> float:
        """The round's score. On an update round with the reset first (Alg. 1 order) the
        sketch update with ``x`` comes before the score; it is tentative until
        ``learn_one`` learns this ``x``: scoring another point first (a held-out sample
        predicted and not learnt) undoes it. It had stayed, so a held-out sample entered
        the sketch, reset the model and the round's training sample was never inserted
        (hunt of 7 Dec: 70 of 379 FORKS predictions changed by a holdout test)."""
        if self.phase_ == 1:
            return self._sv_score(x)
        self._pending = False
        if self._tentative is not None:
            self._restore(self._tentative)
            self._tentative = None
        if self._is_update_round() and self._updated_at != self.t_:
            if self._predict_first:
                self._pending = True
            else:
                self._tentative = self._snapshot()
                self._sketch_update(x)
        return self._stage2_score(x)

    def _update(self, x: np.ndarray, y: float, f: float) -> None:
        if self.phase_ == 1:
            dl = dloss(f, y, self.loss_code_)
            if dl != 0.0:
                self._krows_n = -1  # this point's row is not kept: the set-up recomputes
                self._sv_append(x, -self.eta * dl)
                if self.n_sv_ == self.buffer_size_:
                    self._start_stage2()
            return
        self._tentative = None  # this round's sketch update (if any) is x's: kept
        if self._pending:
            # predict-before-reset: the gradient step is taken in the new basis from w = 0
            self._pending = False
            self._sketch_update(x)
            f = self._stage2_score(x)
        if self.second_order:
            ons_step(self._z, self._w, f, y, self.loss_code_, self._cw(), self.Ainv_,
                     self.v_, self._u)
        else:
            first_order_step(self._z, f, y, self.loss_code_, self.eta, self._lam(), self.v_)

    def _cw(self) -> float:
        return 0.0

    def _lam(self) -> float:
        return 0.0

    # ---- fused chunk -------------------------------------------------------------------------
    def predict_learn_many(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Test-then-train over a chunk: stage 1 in one numba call up to the round that
        fills the buffer, update rounds per sample, runs of regular stage-2 rounds in one
        numba call; identical to the per-sample loop."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        Y = pm1_labels(y)
        n = X.shape[0]
        out = np.empty(n, dtype=np.int64)
        scores = np.empty(n)
        i = 0
        while i < n:
            if self.phase_ == 1 and self._cache is None:
                n_before = self.n_sv_
                status, stop, self.n_sv_ = kernel_ogd_fill(
                    X, Y, i, n, self.sv_, self.coef_, self.n_sv_, self.gamma_,
                    float(self.eta), self.loss_code_, self._krow, out, scores, self._krows)
                if self._krows_n == n_before:
                    self._krows_n = self.n_sv_
                if status != 0:
                    raise UserError(f"{type(self).__name__} produced a non-finite score "
                                    "(NaN/inf in the input?). Check the stream or rescale "
                                    "the features.")
                self.t_ += stop - i
                if self.n_sv_ == self.buffer_size_:
                    # as in the per-sample path, stage 2 starts at the filling round
                    self.t_ -= 1
                    self._start_stage2()
                    self.t_ += 1
                i = stop
                continue
            j = self.t_ - self.t0_
            if self.phase_ == 1 or self._cache is not None or j % self.rho_ == 0:
                f = self._step(X[i], y[i])
                scores[i] = f
                out[i] = score_to_label(f)
                i += 1
                continue
            stop = min(n, i + (self.rho_ - j % self.rho_))
            status = sketch_stage2_loop(X, Y, i, stop, self.landmarks_, self.gamma_, self.Z_,
                                        self.v_, self.Ainv_, self._bound(), self._project(),
                                        self.second_order, self._cw(), float(self.eta),
                                        self._lam(), self.loss_code_, out, scores)
            if status != 0:
                raise UserError(f"{type(self).__name__} produced a non-finite score (NaN/inf "
                                "in the input?). Check the stream or rescale the features.")
            self.t_ += stop - i
            i = stop
        self.chunk_scores_ = scores
        return out

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        # a small buffer so that the conformance streams reach stage 2 and update rounds
        yield {"sigma": 2.0, "budget": 10, "buffer_factor": 1, "gamma_ratio": 1.0,
               "k_ratio": 0.5, "rho": 40, "seed": 0}
