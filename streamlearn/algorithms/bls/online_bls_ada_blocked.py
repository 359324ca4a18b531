"""``online_bls_ada_blocked``: Online-BLS (Ada.), Algorithm 2 with exact refreshes, the
samples between refreshes taken as one weighted block.

Beyond the paper (issue 25): the recursion of ``online_bls_ada_fast`` (C. Lei et al.,
*Online-BLS*, §3.5, Alg. 2 with the forgetting factor ``μ``; exact refactorisation of
``P + λI`` every ``refresh_every`` samples), computed without a per-sample factor update.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import numpy as np
from scipy.linalg import solve_triangular
from scipy.linalg.blas import dtrsm

from streamlearn.algorithms.bls.broad_learning import BLSClassifier
from streamlearn.algorithms.bls.online_bls_ada import (
    _add_rows,
    init_refresh_state,
    refreshed_z,
)
from streamlearn.algorithms.bls.online_bls_blocked import BlockBLS
from streamlearn.algorithms.linalg import cholesky_upper
from streamlearn.errors import UserError
from streamlearn.kernels.broad_features import argmax_first
from streamlearn.kernels.cholesky_update import CholeskyStatus
from streamlearn.params import Constraint, Interval
from streamlearn.registry import register_algorithm

#: the largest row weight² ``μ^-(T-1)`` of a block (above it the block's normal equations
#: lose more than 8 digits to the weights alone: use ``online_bls_ada_fast``)
MAX_WEIGHT2 = 1e8


@register_algorithm("online_bls_ada_blocked")
class OnlineBLSAdaBlocked(BlockBLS):
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
        init_refresh_state(self, m, c)
        self._v = np.empty(m)
        # slot j's row weight μ^-(j+1)/2 (see the class docstring)
        self._reset_block(m, c, T, self.mu ** (-0.5 * np.arange(1, T + 1, dtype=np.float64)))

    def _slot(self) -> int:
        return self.since_refresh_

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
    def _refresh_step(self, a: np.ndarray, label: int, solved: bool) -> tuple[int, int]:
        """Alg. 2 as written on one sample (``K = Chol(P + λI)``), ending the block."""
        n = self.since_refresh_
        status = self._predict_slot(a, solved)
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
        status = refreshed_z(U, W, a, r, self._v, self.Z_)
        self.since_refresh_ = 0
        return pred, status

    def _steps(self, A: np.ndarray, y: np.ndarray, pred: np.ndarray, solved: bool) -> int:
        # the rows of A: block steps up to each refresh, then the refresh; ``solved``: q of
        # the one row is already in its slot of _QT (computed by _scores_a)
        n, T, k0 = A.shape[0], int(self.refresh_every), 0
        while k0 < n:
            p = min(T - 1 - self.since_refresh_, n - k0)
            if p > 0:
                status = self._learn_rows(A, y, pred, k0, p, solved)
                if status != CholeskyStatus.OK:
                    return status
                self.since_refresh_ += p
                k0 += p
            if k0 < n and self.since_refresh_ == T - 1:
                pred[k0], status = self._refresh_step(A[k0], int(y[k0]), solved)
                if status != CholeskyStatus.OK:
                    return status
                k0 += 1
        return CholeskyStatus.OK
