"""``online_bls_ada_blocked``: Online-BLS (Ada.), Algorithm 2 with exact refreshes, the
samples between refreshes taken as one weighted block.

Beyond the paper (issue 25): the recursion of ``online_bls_ada_fast`` (C. Lei et al.,
*Online-BLS*, §3.5, Alg. 2 with the forgetting factor ``μ``; exact refactorisation of
``P + λI`` every ``refresh_every`` samples), computed without a per-sample factor update.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import numpy as np
from scipy.linalg import solve_triangular
from scipy.linalg.blas import dtrmm, dtrsm

from streamlearn.algorithms.bls.broad_learning import BLSClassifier
from streamlearn.algorithms.bls.online_bls import _ChunkedBLS, _raise_status
from streamlearn.algorithms.bls.online_bls_ada import _add_rows
from streamlearn.algorithms.linalg import cholesky_upper
from streamlearn.errors import UserError
from streamlearn.kernels.blocked_qr_rls import block_steps, solve_ut_cols
from streamlearn.kernels.broad_features import argmax_first
from streamlearn.kernels.cholesky_update import CholeskyStatus, solve_ut
from streamlearn.params import Constraint, Interval
from streamlearn.registry import register_algorithm

#: the largest row weight² ``μ^-(T-1)`` of a block (above it the block's normal equations
#: lose more than 8 digits to the weights alone: use ``online_bls_ada_fast``)
MAX_WEIGHT2 = 1e8


@register_algorithm("online_bls_ada_blocked")
class OnlineBLSAdaBlocked(_ChunkedBLS):
    """Online-BLS (Ada.), Alg. 2 with the exact refactorisation every ``refresh_every``
    samples: ``online_bls_ada_fast``'s recursion, the samples between refreshes as one block.

    Beyond the paper. After a refresh the state is ``U = Chol(P + λI)`` and ``Z = UW``
    (``P = Σ μ^(k-i) a_i a_iᵀ``, Alg. 2 line 6). The ``T − 1`` samples until the next
    refresh follow ``K ← μK + aaᵀ``, ``S ← μS + ayᵀ`` (Alg. 2 line 7 with the rank-one
    factor; ``K = P + μᵗλI``); after ``j`` of them ``K_j = μ^j(K₀ + Σ_{i<j} μ^-(i+1) a_i
    a_iᵀ)`` and ``S_j`` alike, so ``W_j = K_j⁻¹S_j`` is the ridge solution of ``K₀, S₀``
    and the rows ``μ^-(i+1)/2 a_i`` with targets ``μ^-(i+1)/2 e_{y_i}``: each sample is
    predicted with it by the Woodbury identity in the block's space, as in
    ``online_bls_blocked`` (:func:`~streamlearn.kernels.blocked_qr_rls.block_steps` with
    weights ``w_i = μ^-(i+1)/2``). The ``T``-th sample is Alg. 2 as written: ``ŷ =
    W^(k-1)ᵀa`` with ``W^(k-1) = U⁻¹(Z + Q̃L⁻ᵀE)`` (the block's weights), ``P`` accumulated
    over the block's rows and this one (one ``dsyrk``), ``U = Chol(P + λI)`` (``dpotrf``),
    ``Z = U W^(k-1) + (U⁻ᵀa)(y − ŷ)ᵀ``. No factor update between refreshes: per sample a
    forward substitution (``m²``, shared by a call's samples) and ``O(Tm)``; per refresh
    ``m³/3 + Tm² + 2m²c``. Same predictions as ``online_bls_ada_fast`` in exact
    arithmetic; in floating point within a normal-equations solve of the block (tested).

    Parameters
    ----------
    mu
        Forgetting factor ``μ`` (paper §5.4: 0.99).
    refresh_every
        Period ``T`` of the exact refactorisation; ``μ^-(T-1)`` may not exceed
        :data:`MAX_WEIGHT2`.

    Other parameters are those of BLSClassifier.

    Attributes
    ----------
    U_, Z_
        Factor of ``P + λI`` and ``U W`` at the last refresh (``U_`` C-ordered upper).
    W_
        ``W`` of every sample learned (read-only, computed on access).
    P_
        ``Σ μ^(k-i) a_i a_iᵀ`` (upper triangle; a copy, accumulated on access).
    since_refresh_, n_refreshes_, n_chol_retries_
        Samples since the last refresh, refreshes done, factorisations retried with a
        larger ``λ``.
    """

    _constraints: ClassVar[dict[str, Constraint]] = {
        **BLSClassifier._constraints,
        "mu": Interval(0, 1, closed="right"),
        "refresh_every": Interval(1, None, closed="left", integer=True),
    }

    def __init__(self, *, mu: float = 0.99, refresh_every: int = 100,
                 **bls_params: Any) -> None:
        self.mu = mu
        self.refresh_every = refresh_every
        super().__init__(**bls_params)

    @classmethod
    def _check_param_values(cls, values: Mapping[str, Any]) -> None:
        super()._check_param_values(values)
        weight2 = float(values["mu"]) ** -(int(values["refresh_every"]) - 1)
        if not weight2 <= MAX_WEIGHT2:
            raise UserError(
                f"{cls.__name__}: mu = {values['mu']:g} over refresh_every = "
                f"{values['refresh_every']} weighs a block's rows up to mu^-(T-1) = "
                f"{weight2:.3g} (at most {MAX_WEIGHT2:g}); shorten refresh_every or use "
                "online_bls_ada_fast.")

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        for params in super()._test_params():
            yield {**params, "mu": 0.9, "refresh_every": 7}
        yield {**cls._bls_test_params(), "mu": 0.95, "refresh_every": 1}

    def _reset_state(self, m: int, c: int) -> None:
        T = int(self.refresh_every)
        self._beta = math.sqrt(self.mu)
        self.n_refreshes_ = 0
        self.n_chol_retries_ = 0
        self.since_refresh_ = 0
        self.U_ = np.sqrt(self.lam) * np.eye(m)
        self.Z_ = np.zeros((m, c))
        self._P = np.zeros((m, m))
        self._QT = np.zeros((m, T))
        self._B = np.zeros((T, m))
        self._LT = np.zeros((T, T))
        self._E = np.zeros((T, c))
        self._G = np.empty((T, T))
        self._H = np.empty((c, T))
        self._Y = np.zeros((T, c), order="F")
        self._g = np.empty(T)
        self._w = self.mu ** (-0.5 * np.arange(1, T + 1, dtype=np.float64))
        self._yh = np.empty(c)
        self._pred1 = np.empty(1, dtype=np.int64)
        self._v = np.empty(m)
        self._q_of: np.ndarray | None = None

    def _grow_state(self, c: int) -> None:
        # the new class's target column is zero: its Z, E columns stay zero
        def grow(a: np.ndarray, order: str) -> np.ndarray:
            out = np.zeros((a.shape[0], c), order=order)
            out[:, : a.shape[1]] = a
            return out

        self.Z_ = grow(self.Z_, "C")
        self._E = grow(self._E, "C")
        self._Y = grow(self._Y, "F")
        self._H = np.empty((c, self._H.shape[1]))
        self._yh = np.empty(c)

    # ---- derived state ---------------------------------------------------------------
    def _block_weights(self) -> np.ndarray:
        """``W = U⁻¹(Z + Q̃L⁻ᵀE)``: the weights of every sample learned (Woodbury)."""
        n = self.since_refresh_
        Zc = np.array(self.Z_, order="F")
        if n:
            X = solve_triangular(self._LT[:n, :n], self._E[:n], lower=False)  # L⁻ᵀE
            Zc += self._QT[:, :n] @ (self._w[:n, None] * X)
        # U.T is U's upper triangle as an F-ordered lower one
        return dtrsm(1.0, self.U_.T, Zc, side=0, lower=1, trans_a=1, diag=0, overwrite_b=1)

    @property  # type: ignore[override]
    def W_(self) -> np.ndarray:
        return np.ascontiguousarray(self._block_weights())

    @W_.setter
    def W_(self, value: np.ndarray) -> None:
        if np.any(value):
            raise AttributeError("OnlineBLSAdaBlocked.W_ is derived and cannot be set")

    @property
    def P_(self) -> np.ndarray:
        P = self._P.copy()
        _add_rows(P, self._B[: self.since_refresh_].copy(), self._beta)
        return P

    # ---- steps -----------------------------------------------------------------------
    def _scores_a(self, a: np.ndarray) -> np.ndarray:
        j = self.since_refresh_
        _raise_status(self, solve_ut_cols(self.U_, a.reshape(1, -1), 0, 1, self._QT, j))
        self._q_of = a  # learn_one(x, y) after predict_one(x) reuses q_j (same bits)
        _raise_status(self, block_steps(self._QT, j, 1, self.Z_, self._LT, self._E,
                                        self._pred1, self._pred1, self._g, self._G, self._H,
                                        self._yh, self._Y, self._w, False))
        return self._yh

    def _learn_a(self, a: np.ndarray, y: int) -> None:
        solved, self._q_of = self._q_of is a, None
        _raise_status(self, self._steps(a.reshape(1, -1), np.array([y], dtype=np.int64),
                                        self._pred1, solved))

    def _run(self, A: np.ndarray, y: np.ndarray, pred: np.ndarray) -> int:
        self._q_of = None
        return self._steps(A, y, pred, False)

    def _refresh_step(self, a: np.ndarray, label: int, solved: bool) -> tuple[int, int]:
        """Alg. 2 as written on one sample (``K = Chol(P + λI)``), ending the block."""
        n = self.since_refresh_
        if not solved:
            status = solve_ut_cols(self.U_, a.reshape(1, -1), 0, 1, self._QT, n)
            if status != CholeskyStatus.OK:
                return 0, status
        status = block_steps(self._QT, n, 1, self.Z_, self._LT, self._E, self._pred1,
                             self._pred1, self._g, self._G, self._H, self._yh, self._Y,
                             self._w, False)
        if status != CholeskyStatus.OK:
            return 0, status
        pred = int(argmax_first(self._yh))
        r = -self._yh
        r[label] += 1.0  # r = y - ŷ
        W = self._block_weights()  # W^(k-1), F-ordered
        if not np.isfinite(W).all():
            return pred, CholeskyStatus.NONFINITE
        self._B[n] = a
        _add_rows(self._P, self._B[: n + 1], self._beta)  # P^(k) = μP^(k-1) + aaᵀ, …
        U, retries = cholesky_upper(self._P, float(self.lam), type(self).__name__,
                                    out=self.U_)
        self.n_chol_retries_ += retries
        self.n_refreshes_ += 1
        # Z = U W^(k) = U W^(k-1) + (U⁻ᵀa) rᵀ (dtrmm in place on W)
        W = dtrmm(1.0, U.T, W, side=0, lower=1, trans_a=1, diag=0, overwrite_b=1)
        g = self._v
        g[:] = a
        status = solve_ut(U, g)
        np.copyto(self.Z_, W)
        self.Z_ += np.outer(g, r)
        self.since_refresh_ = 0
        return pred, status

    def _steps(self, A: np.ndarray, y: np.ndarray, pred: np.ndarray, solved: bool) -> int:
        # the rows of A: block steps up to each refresh, then the refresh; ``solved``: q of
        # the one row is already in its slot of _QT (computed by _scores_a)
        n, T, k0 = A.shape[0], int(self.refresh_every), 0
        while k0 < n:
            c0 = self.since_refresh_
            p = min(T - 1 - c0, n - k0)
            if p > 0:
                if not solved:
                    status = solve_ut_cols(self.U_, A, k0, p, self._QT, c0)
                    if status != CholeskyStatus.OK:
                        return status
                status = block_steps(self._QT, c0, p, self.Z_, self._LT, self._E,
                                     y[k0:k0 + p], pred[k0:k0 + p], self._g, self._G, self._H,
                                     self._yh, self._Y, self._w, True)
                if status != CholeskyStatus.OK:
                    return status
                self._B[c0:c0 + p] = A[k0:k0 + p]
                self.since_refresh_ = c0 + p
                k0 += p
            if k0 < n and self.since_refresh_ == T - 1:
                pred[k0], status = self._refresh_step(A[k0], int(y[k0]), solved)
                if status != CholeskyStatus.OK:
                    return status
                k0 += 1
        return CholeskyStatus.OK
