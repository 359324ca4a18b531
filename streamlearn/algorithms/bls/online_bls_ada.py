"""Online-BLS (Ada.): Algorithm 2 of the Online-BLS paper (forgetting factor ``μ``) in
O(m²) per sample, in two forms.

C. Lei, G.-Z. Chen, C. L. P. Chen, T. Zhang, *Online-BLS*, §3.5, Algorithm 2. ``online_bls_ada``
(Alg. 2 as written, a fresh Cholesky per sample) is in :mod:`.online_bls`; here:

================================  =========================================  ==============
name                              update of ``W`` per sample                 cost (flops)
================================  =========================================  ==============
``online_bls_ada_gain``           forgetting in the factor, gain ``K⁻¹a``     ``≈ 7m²``
``online_bls_ada_fast``           forgetting folded into the one-sweep form  ``≈ 6m²``, 1 sweep
================================  =========================================  ==============
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np
from scipy.linalg.blas import dsyrk, dtrmm, dtrsm

from streamlearn.algorithms.bls.broad_learning import with_zero_column
from streamlearn.algorithms.bls.online_bls import OnlineBLSAda, OnlineBLSGain, _raise_status
from streamlearn.algorithms.linalg import cholesky_upper
from streamlearn.kernels.broad_features import argmax_first, scores
from streamlearn.kernels.cholesky_update import (
    CholeskyStatus,
    decay_add_outer_upper,
    solve_u,
    solve_u_rows,
    solve_ut,
)
from streamlearn.kernels.online_bls_loops import (
    ada_gain_run,
    predict_residual,
    sqrt_forget_run,
    sqrt_scratch,
)
from streamlearn.params import Constraint, Interval, Options
from streamlearn.registry import register_algorithm


@register_algorithm("online_bls_ada_gain")
class OnlineBLSAdaGain(OnlineBLSGain):
    """Online-BLS (Ada.), gain-vector form: O(m²) forgetting in the factor, exact refreshes.

    Beyond the paper. The form ``online_bls_ada_fast`` had until issue 25, kept as the
    reference of its square-root form (same recursion in exact arithmetic; the tests and
    ``benchmarks/bench_bls.py`` compare the two). Alg. 2 refactorises ``P^(k) + λI`` every
    sample (``O(m³)``). Here, per sample: ``P ← μP + a aᵀ`` (Alg. 2 line 6, kept
    explicitly, upper triangle) and the factor follows by forgetting plus EOUS,
    ``K ← μK + a aᵀ`` (one Givens sweep with ``β = √μ``, ``O(m²)``), then the gain step of
    ``online_bls_gain``, ``W += K⁻¹a (y - ŷ)ᵀ`` (Alg. 2's line 7, residual form). Scaling
    the factor also scales the regulariser: ``K = P + μᵗλI`` after ``t`` such steps
    (``0.99^70000`` would underflow). Two ways to keep it (``regulariser``):

    ``"refresh"`` (default)
        every ``refresh_every``-th sample the factor is recomputed exactly,
        ``K = chol(P + λI)`` as in Alg. 2, so ``K = P + μᵗλI`` with
        ``0 ≤ t < refresh_every``: the regulariser stays within ``[μ^(T-1)λ, λ]``
        (``[0.37λ, λ]`` at ``μ = 0.99``, ``T = 100``). ``refresh_every = 1`` is Alg. 2
        exactly. Cost ``≈ 7m² + m³/(3T)`` flops per sample.
    ``"cyclic"``
        one diagonal reload per sample, ``K ← μK + ρ² e_j e_jᵀ + a aᵀ`` with
        ``ρ² = (1-μ)λm`` and ``j = k mod m`` (a Givens sweep from row ``j``); no ``P``
        is kept. ``tr(K - P) = λm`` but the diagonal entries range from
        ``(1-μ)λm μ^(m-1)/(1-μ^m)`` to ``(1-μ)λm/(1-μ^m)`` (``1.7·10⁻⁴ λ`` to ``11 λ`` at
        ``μ = 0.99``, ``m = 1100``), which changes the predictions measurably (results/
        online_bls/README.md). Cost ``≈ 6m²``.

    ``online_bls_ada`` is the exact ``O(m³)`` reference; the tests measure the difference.
    Per sample this form spends most of its time on the eager ``P ← μP + aaᵀ`` (a
    read-modify-write of ``m²/2`` entries) and on the separate back-substitution for the
    gain; ``online_bls_ada_fast`` avoids both.

    Parameters
    ----------
    mu
        Forgetting factor ``μ`` (paper §5.4: 0.99).
    regulariser
        ``"refresh"`` or ``"cyclic"`` (above).
    refresh_every
        Period ``T`` of the exact refactorisation (``"refresh"`` only).

    Other parameters are those of BLSClassifier.

    Attributes
    ----------
    U_
        Upper Cholesky factor of ``K``.
    P_
        ``Σ μ^(k-i) a_i a_iᵀ`` (upper triangle; ``"refresh"`` only).
    n_refreshes_, n_chol_retries_
        Exact refactorisations done, and those retried with a larger ``λ``.
    """

    _constraints: ClassVar[dict[str, Constraint]] = {
        **OnlineBLSAda._constraints,
        "regulariser": Options(("refresh", "cyclic")),
        "refresh_every": Interval(1, None, closed="left", integer=True),
    }

    def __init__(
        self,
        *,
        mu: float = 0.99,
        regulariser: str = "refresh",
        refresh_every: int = 100,
        **bls_params: Any,
    ) -> None:
        self.mu = mu
        self.regulariser = regulariser
        self.refresh_every = refresh_every
        super().__init__(**bls_params)

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        for params in super()._test_params():
            yield {**params, "mu": 0.9, "refresh_every": 7}
            yield {**params, "mu": 0.9, "regulariser": "cyclic"}

    def _reset_state(self, m: int, c: int) -> None:
        super()._reset_state(m, c)
        self._beta = math.sqrt(self.mu)
        self.n_refreshes_ = 0
        self.n_chol_retries_ = 0
        if self.regulariser == "cyclic":
            self._alpha = math.sqrt((1.0 - self.mu) * self.lam * m)
        else:
            self._alpha = 0.0
            self.P_ = np.zeros((m, m))
            self.since_refresh_ = 0

    def _refresh_step(self, a: np.ndarray, label: int) -> tuple[int, int]:
        """One step of Alg. 2 as written: ``P ← μP + aaᵀ``, ``U = chol(P + λI)``, gain."""
        r = self._r
        pred = predict_residual(a, self.W_, label, r)
        decay_add_outer_upper(self.P_, a, float(self.mu))
        self.U_, retries = cholesky_upper(self.P_, float(self.lam), type(self).__name__)
        self.n_chol_retries_ += retries
        self.n_refreshes_ += 1
        g = self._v
        g[:] = a
        status = solve_ut(self.U_, g)
        if status == CholeskyStatus.OK:
            status = solve_u(self.U_, g)
        if status == CholeskyStatus.OK:
            self.W_ += np.outer(g, r)
        return pred, status

    def _run(self, A: np.ndarray, y: np.ndarray, pred: np.ndarray) -> int:
        if self.regulariser == "cyclic":
            return super()._run(A, y, pred)
        n, T, s = A.shape[0], int(self.refresh_every), 0
        while s < n:
            e = min(n, s + T - 1 - self.since_refresh_)  # rank-one steps before a refresh
            if e > s:
                status = ada_gain_run(
                    self.U_, self.P_, self.W_, A[s:e], y[s:e], pred[s:e], float(self.mu),
                    self._work, self._v, self._r,
                )
                if status != CholeskyStatus.OK:
                    return status
                self.since_refresh_ += e - s
                s = e
            if s < n:
                pred[s], status = self._refresh_step(A[s], int(y[s]))
                if status != CholeskyStatus.OK:
                    return status
                self.since_refresh_ = 0
                s += 1
        return CholeskyStatus.OK


@register_algorithm("online_bls_ada_fast")
class OnlineBLSAdaFast(OnlineBLSAdaGain):
    """Online-BLS (Ada.) in square-root information form: forgetting in one factor sweep.

    Beyond the paper: Alg. 2 (forgetting factor ``μ``) with the exact refactorisation every
    ``refresh_every`` samples of ``online_bls_ada_gain``, the same recursion in exact
    arithmetic, computed as ``online_bls_fast`` computes Alg. 1. The state is ``U`` and
    ``Z`` with ``K = UᵀU``, ``S = UᵀZ`` and ``W = U⁻¹Z = K⁻¹S`` (formed only on access).

    Between refreshes, per sample (``regulariser="refresh"``):

    * one sweep over the rows of ``U`` computes ``q = U⁻ᵀa`` and rotates
      ``[aᵀ yᵀ; √μU √μZ]`` (EOUS, eq. 15, with the forgetting of Alg. 2 line 6 folded into
      the rotations), so ``K ← μK + aaᵀ`` and ``S ← μS + ayᵀ``; the prediction is
      ``ŷ = Zᵀq = W^(k-1)ᵀa`` (Alg. 2 line 5). Since
      ``K W^(k) = μK^(k-1)W^(k-1) + ayᵀ = K W^(k-1) + a(y - ŷ)ᵀ``, this is Alg. 2's line 7
      (eqs. 9–10, ``W^(k) = W^(k-1) + K⁻¹a(y - ŷ)ᵀ``) with the rank-one factor instead of a
      fresh Cholesky: ``K = P + μᵗλI``, ``t`` samples after the last refresh. A block of
      consecutive samples shares one sweep
      (:func:`~streamlearn.kernels.online_bls_loops.sqrt_forget_run`).
    * ``P = Σ μ^(k-i) a_i a_iᵀ`` (Alg. 2 line 6) is accumulated lazily: the rows since the
      last accumulation are kept and added at the refresh in one symmetric rank-``k`` BLAS
      call (``dsyrk``), ``P ← μᵏP + Σ_j μ^(k-1-j) a_j a_jᵀ``, with the rows scaled by
      ``μ^((k-1-j)/2)``. ``P`` is read only by the refresh (``P_`` accumulates a copy).

    Every ``refresh_every``-th sample is Alg. 2 as written: ``ŷ = W^(k-1)ᵀa``;
    ``K = Chol(P + λI)`` (``dpotrf``, the regulariser back to ``λ``); ``W^(k) = W^(k-1) +
    K⁻¹a(y - ŷ)ᵀ``. The weights change form there: ``W^(k-1) = U_old⁻¹Z`` (back
    substitution) and ``Z ← U_new W^(k) = U_new W^(k-1) + (U_new⁻ᵀa)(y - ŷ)ᵀ`` (``dtrmm``
    and one forward substitution), so that ``U_newᵀZ = K W^(k)`` again.

    Cost per sample: ``≈ 5m² + 8mc`` flops in the sweep (a quarter of a read and write of
    ``U``), ``m²`` in the rank-``k`` update, and the refresh's ``m³/3 + 2m²c`` once per
    ``refresh_every`` samples. ``regulariser="cyclic"`` (a diagonal reload per sample, no
    ``P``) needs a row of ``W`` at every step and stays in the gain form of
    ``online_bls_ada_gain``. Parameters and the regulariser options: see there.

    Attributes
    ----------
    U_
        Upper Cholesky factor of ``K``.
    Z_
        ``U⁻ᵀS`` (``(m, c)``; ``"refresh"`` only).
    W_
        ``U⁻¹Z`` (read-only, computed on access; ``"cyclic"``: the gain form's weights).
    P_
        ``Σ μ^(k-i) a_i a_iᵀ`` (upper triangle; a copy, accumulated on access;
        ``"refresh"`` only).
    since_refresh_, n_refreshes_, n_chol_retries_
        Samples since the last refresh, refreshes done, and factorisations retried with a
        larger ``λ``.
    """

    #: most rows kept for the lazy ``P`` (one ``dsyrk`` per refresh when
    #: ``refresh_every`` is at most this)
    ROWS: ClassVar[int] = 256

    def _reset_state(self, m: int, c: int) -> None:
        if self.regulariser == "cyclic":
            super()._reset_state(m, c)
            return
        init_refresh_state(self, m, c)  # P: up to the rows kept in _rows
        self._rows = np.empty((min(int(self.refresh_every), self.ROWS), m))
        self._n_rows = 0
        # scratch of the blocked sweep (SWEEP_BLOCK samples per pass over U)
        self._work, self._f, self._q, self._cs, self._ss, self._yh, self._t = sqrt_scratch(m, c)
        self._r = np.empty(c)
        self._v = np.empty(m)
        self._XT = np.empty((c, m))

    def _grow_state(self, c: int) -> None:
        if self.regulariser == "cyclic":
            super()._grow_state(c)
            return
        # the new class's column of Z = U⁻ᵀS is zero (Sⱼ = Σ μ^(k-i) aᵢ yᵢⱼ = 0); the
        # rotations keep it zero, and so does the refresh (Wⱼ = 0, yⱼ - ŷⱼ = 0)
        self.Z_ = with_zero_column(self.Z_)
        self._yh, self._t = sqrt_scratch(0, c)[5:]
        self._r = np.empty(c)
        self._XT = np.empty((c, self.U_.shape[0]))

    # ---- derived state ---------------------------------------------------------------
    @property  # type: ignore[override]
    def W_(self) -> np.ndarray:
        if self.regulariser == "cyclic":
            return self._W
        # a copy: with one class Z_.T is C-contiguous and would be solved in place
        XT = self.Z_.T.copy()
        _raise_status(self, solve_u_rows(self.U_, XT))
        return XT.T.copy()

    @W_.setter
    def W_(self, value: np.ndarray) -> None:
        if self.regulariser == "cyclic":
            self._W = value
        elif np.any(value):  # BLSClassifier.reset sets W_ = 0, which Z_ = 0 is
            raise AttributeError("OnlineBLSAdaFast.W_ is derived (U⁻¹Z) and cannot be set")

    @property
    def P_(self) -> np.ndarray:
        if self.regulariser == "cyclic":
            raise AttributeError("OnlineBLSAdaFast keeps no P with regulariser='cyclic'")
        P = self._P.copy()
        _add_rows(P, self._rows[: self._n_rows].copy(), self._beta)
        return P

    # ---- steps -----------------------------------------------------------------------
    def _predict_a(self, a: np.ndarray) -> int:
        if self.regulariser == "cyclic":
            return super()._predict_a(a)
        q = self._q[0]
        q[:] = a
        _raise_status(self, solve_ut(self.U_, q))
        scores(q, self.Z_, self._yh)
        return int(argmax_first(self._yh))

    def _keep_rows(self, A: np.ndarray) -> None:
        """Keep the rows of ``A`` for the lazy ``P``; accumulate when the buffer is full."""
        rows = self._rows
        cap = rows.shape[0]
        i = 0
        while i < A.shape[0]:
            k = min(cap - self._n_rows, A.shape[0] - i)
            rows[self._n_rows : self._n_rows + k] = A[i : i + k]
            self._n_rows += k
            i += k
            if self._n_rows == cap:
                self._accumulate()

    def _accumulate(self) -> None:
        """``P ← μᵏP + Σ_j μ^(k-1-j) a_j a_jᵀ`` over the ``k`` kept rows (one ``dsyrk``)."""
        if self._n_rows:
            _add_rows(self._P, self._rows[: self._n_rows], self._beta)
            self._n_rows = 0

    def _refresh_step(self, a: np.ndarray, label: int) -> tuple[int, int]:
        """Alg. 2 as written on one sample (``K = Chol(P + λI)``), converting ``Z``."""
        U, Z = self.U_, self.Z_
        pred = self._predict_a(a)  # ŷ = W^(k-1)ᵀa, exactly as predict_one computes it
        r = self._r
        np.subtract(0.0, self._yh, out=r)
        r[label] += 1.0  # r = y - ŷ
        # W^(k-1) = U⁻¹Z (BLAS dtrsm on the F-ordered W; U.T is U's upper triangle as an
        # F-ordered lower one)
        W = dtrsm(1.0, U.T, np.asfortranarray(Z), side=0, lower=1, trans_a=1, diag=0,
                  overwrite_b=1)
        if not np.isfinite(W).all():
            return pred, CholeskyStatus.NONFINITE
        self._keep_rows(a.reshape(1, -1))
        self._accumulate()  # P^(k) = μP^(k-1) + aaᵀ
        # K = Chol(P^(k) + λI), factorised in U's own storage (U_old is no longer needed)
        U, retries = cholesky_upper(self._P, float(self.lam), type(self).__name__, out=U)
        self.n_chol_retries_ += retries
        self.n_refreshes_ += 1
        return pred, refreshed_z(U, W, a, r, self._v, Z)

    def _run(self, A: np.ndarray, y: np.ndarray, pred: np.ndarray) -> int:
        if self.regulariser == "cyclic":
            return super()._run(A, y, pred)
        n, T, s = A.shape[0], int(self.refresh_every), 0
        while s < n:
            e = min(n, s + T - 1 - self.since_refresh_)  # rank-one steps before a refresh
            if e > s:
                status = sqrt_forget_run(
                    self.U_, self.Z_, A[s:e], y[s:e], pred[s:e], self._beta,
                    self._work, self._f, self._q, self._cs, self._ss, self._yh, self._t,
                )
                if status != CholeskyStatus.OK:
                    return status
                self._keep_rows(A[s:e])
                self.since_refresh_ += e - s
                s = e
            if s < n:
                pred[s], status = self._refresh_step(A[s], int(y[s]))
                if status != CholeskyStatus.OK:
                    return status
                self.since_refresh_ = 0
                s += 1
        return CholeskyStatus.OK


def init_refresh_state(learner: Any, m: int, c: int) -> None:
    """The square-root state of Alg. 2 with exact refreshes before the first sample:
    ``U = √λ I``, ``Z = 0``, ``P = 0`` (upper triangle of ``_P``), no refresh yet."""
    learner._beta = math.sqrt(learner.mu)
    learner.n_refreshes_ = 0
    learner.n_chol_retries_ = 0
    learner.since_refresh_ = 0
    learner.U_ = np.sqrt(learner.lam) * np.eye(m)
    learner.Z_ = np.zeros((m, c))
    learner._P = np.zeros((m, m))


def refreshed_z(U: np.ndarray, W: np.ndarray, a: np.ndarray, r: np.ndarray, g: np.ndarray,
                Z: np.ndarray) -> int:
    """The weights in square-root form after a refresh (Alg. 2 line 7 with ``K = UᵀU``
    fresh): ``Z ← U W^(k-1) + (U⁻ᵀa) rᵀ``, ``r = y − ŷ``, so that ``UᵀZ = K W^(k)``.
    ``W`` (F-ordered) is overwritten (``dtrmm``), ``g`` is scratch; returns the forward
    substitution's :class:`CholeskyStatus`."""
    W = dtrmm(1.0, U.T, W, side=0, lower=1, trans_a=1, diag=0, overwrite_b=1)
    g[:] = a
    status = solve_ut(U, g)
    np.copyto(Z, W)
    Z += np.outer(g, r)
    return status


def _add_rows(P: np.ndarray, B: np.ndarray, beta: float) -> None:
    """In place ``P ← β^(2k) P + Σ_j β^(2(k-1-j)) b_j b_jᵀ`` on the upper triangle of the
    C-ordered ``P`` (``k`` rows ``b_j`` of ``B``, the last the newest; ``B`` is scaled in
    place): Alg. 2 line 6 applied ``k`` times, as one BLAS ``dsyrk``."""
    k = B.shape[0]
    if k == 0:
        return
    if beta != 1.0:
        B *= (beta ** np.arange(k - 1, -1, -1, dtype=np.float64))[:, None]
    # P.T is F-ordered, its lower triangle is P's upper one; B.T (m × k) F-ordered
    out = dsyrk(1.0, B.T, beta=beta ** (2 * k), c=P.T, trans=0, lower=1, overwrite_c=1)
    if not np.shares_memory(out, P):  # pragma: no cover - f2py copied (not expected)
        P[...] = out.T
