"""Online-BLS learners: Algorithm 1 (EWEA + EOUS), its ablation without EOUS, Algorithm 2
(forgetting factor) and O(m²) variants.

C. Lei, G.-Z. Chen, C. L. P. Chen, T. Zhang, *Online-BLS: An Accurate and Efficient Online
Broad Learning System for Data Stream Classification*, §3.2–§3.5. All learners share the
broad feature map of :mod:`streamlearn.algorithms.bls.broad_learning`; their steps are the
numba kernels of :mod:`streamlearn.kernels.cholesky_update` and
:mod:`streamlearn.kernels.online_bls_loops`. The Cholesky factor ``K = LLᵀ`` is stored as
``U_ = Lᵀ`` (upper triangle of a C-contiguous array).

================================  =========================================  ==============
name                              update of ``W`` per sample                 cost (flops)
================================  =========================================  ==============
``online_bls``                    Alg. 1: EOUS, then ``c``-column solves      ``3m² + 2m²c``
``online_bls_no_eous``            Alg. 2 with ``μ = 1``: fresh Cholesky       ``m³/3``
``online_bls_ada``                Alg. 2 as written (``μ``, fresh Cholesky)   ``m³/3``
``online_bls_fast``               EOUS on ``[aᵀ yᵀ; U Z]``, ``W = U⁻¹Z``      ``≈ 5m²``, 1 sweep
``online_bls_gain``               EOUS, gain ``g = K⁻¹a``, ``W += g rᵀ``     ``≈ 5m²``, 2 sweeps
================================  =========================================  ==============

The O(m²) forms of Algorithm 2, ``online_bls_ada_gain`` and ``online_bls_ada_fast``, are in
:mod:`.online_bls_ada`; ``online_bls_blocked`` (Alg. 1's weights, the factor updated once per
block of samples by a blocked Householder QR) in :mod:`.online_bls_blocked`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np

from streamlearn.algorithms.bls.broad_learning import BLSClassifier, with_zero_column
from streamlearn.algorithms.linalg import cholesky_upper
from streamlearn.errors import UserError
from streamlearn.kernels.broad_features import scores
from streamlearn.kernels.cholesky_update import (
    CholeskyStatus,
    decay_add_outer,
    solve_u_rows,
    solve_ut,
    solve_ut_rows,
)
from streamlearn.kernels.online_bls_loops import (
    gain_run,
    obls_run,
    predict_residual,
    sqrt_run,
    sqrt_scratch,
)
from streamlearn.params import Constraint, Interval
from streamlearn.registry import register_algorithm

CHUNK = 512  # rows of broad features materialised at once by predict_learn_many

_STATUS = {
    CholeskyStatus.NONFINITE: "a non-finite value appeared",
    CholeskyStatus.NOT_PD: "the Cholesky factor lost positive definiteness",
}


def _raise_status(learner: BLSClassifier, status: int) -> None:
    if status == CholeskyStatus.OK:
        return
    what = f"{type(learner).__name__}: {_STATUS.get(status, f'kernel status {status}')}"
    lam = float(getattr(learner, "lam", 1.0))
    if lam < TINY_LAM:
        raise UserError(
            f"{what}. The 'lam' parameter is {lam:g}: a ridge parameter this small leaves "
            "the factor (initially sqrt(lam) I) so close to singular that its solves "
            f"overflow float64. Raise lam (the Online-BLS paper uses 1e-8; >= {TINY_LAM:g} "
            "is safe with inputs scaled to [0, 1]).")
    raise UserError(f"{what} (lam = {lam:g}; check the input scaling: very large broad "
                    f"features overflow the factor).{getattr(learner, 'overflow_hint', '')}")


#: below this ridge parameter a non-finite factor is blamed on ``lam`` itself
TINY_LAM = 1e-100


class _ChunkedBLS(BLSClassifier):
    """Learner whose chunk step ``_run`` is (usually) one numba kernel; ``learn_one`` calls
    it on one row, so the per-sample and the chunked paths run the same code."""

    def _run(self, A: np.ndarray, y: np.ndarray, pred: np.ndarray) -> int:
        raise NotImplementedError

    def _learn_a(self, a: np.ndarray, y: int) -> None:
        pred = np.empty(1, dtype=np.int64)
        status = self._run(a.reshape(1, -1), np.array([y], dtype=np.int64), pred)
        _raise_status(self, status)

    def predict_learn_many(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Strict test-then-train over a chunk; same predictions and state as the
        ``predict_one``/``learn_one`` loop."""
        X, y = self._check_chunk(X, y)
        out = np.empty(X.shape[0], dtype=np.int64)
        start = self._warmup_many(X, y, out)
        for s in range(start, X.shape[0], CHUNK):
            e = min(s + CHUNK, X.shape[0])
            A = self.features_.transform(X[s:e])
            _raise_status(self, self._run(A, y[s:e], out[s:e]))
        return out


# --------------------------------------------------------------------------------------
# Algorithm 1
# --------------------------------------------------------------------------------------


@register_algorithm("online_bls")
class OnlineBLS(_ChunkedBLS):
    """Online-BLS (Alg. 1): Cholesky-based ridge weights (EWEA) with rank-one factor updates (EOUS).

    For each sample: predict ``ŷ = W^(k-1)ᵀ a`` (line 5); update the factor of
    ``K^(k) = K^(k-1) + a aᵀ`` by ``m`` Givens rotations (line 6, eq. 15, EOUS, with the
    corrected ``G_i`` and the Remark 1 guard); solve ``K^(k) ΔW = a (y - ŷ)ᵀ`` (eq. 9) by
    forward and backward substitution with the ``c`` columns of ``B`` (line 7, eqs. 13–14
    with corrected indices); ``W += ΔW`` (eq. 10). ``W^(0) = 0``, ``L^(0) = √λ I`` (line 1).
    ``W^(k)`` is the ridge solution ``(AᵀA + λI)⁻¹AᵀY`` of the prefix. Cost
    ``3m² + 2m²c`` flops per sample.

    Parameters are those of :class:`~streamlearn.algorithms.bls.broad_learning.BLSClassifier`.

    Attributes
    ----------
    U_
        Upper Cholesky factor ``Lᵀ`` of ``K = λI + Σ a aᵀ``.
    W_
        Output weights ``(m, c)``.
    """

    def _reset_state(self, m: int, c: int) -> None:
        self.U_ = np.sqrt(self.lam) * np.eye(m)
        self._work = np.empty(m)
        self._v = np.empty(m)
        self._r = np.empty(c)
        self._XT = np.empty((c, m))

    def _grow_state(self, c: int) -> None:
        self.W_ = with_zero_column(self.W_)
        self._r = np.empty(c)
        self._XT = np.empty((c, self.W_.shape[0]))

    def _run(self, A: np.ndarray, y: np.ndarray, pred: np.ndarray) -> int:
        return obls_run(self.U_, self.W_, A, y, pred, self._work, self._v, self._r, self._XT)


@register_algorithm("online_bls_gain")
class OnlineBLSGain(_ChunkedBLS):
    """Online-BLS, gain-vector form: the same ridge weights as Alg. 1 in O(m²) per sample.

    Beyond the paper. Since ``B = a rᵀ`` in eq. 9 has rank one, ``ΔW = K⁻¹ a rᵀ = g rᵀ``
    with the gain ``g = K^(k)⁻¹ a``. After the EOUS update of the factor, ``g`` comes from
    two triangular solves with the updated factor: ``v = U⁻ᵀ a`` — obtained from the Givens
    rotations themselves at no extra pass, ``v_i = s_i Π_{j<i} c_j`` (see
    :func:`~streamlearn.kernels.cholesky_update.chol_update`) — and ``g = U⁻¹ v``
    (backward substitution); then ``W += g (y - ŷ)ᵀ``.

    Algebra: if ``K^(k-1) W^(k-1) = S^(k-1)`` then ``K^(k) (W^(k-1) + g rᵀ) =
    K^(k-1) W^(k-1) + a aᵀ W^(k-1) + a (yᵀ - aᵀ W^(k-1)) = S^(k-1) + a yᵀ = S^(k)``: the
    ridge solution of the prefix, exactly as Alg. 1. In floating point the two differ at
    the forward-error level ``≈ u κ(K)``. Cost ``3m² + 2m² + 2mc`` flops
    instead of ``3m² + 2m²c``.

    Attributes
    ----------
    U_
        Upper Cholesky factor of ``K = λI + Σ a aᵀ``.
    W_
        Output weights ``(m, c)``.
    """

    _beta: float = 1.0
    _alpha: float = 0.0

    def _reset_state(self, m: int, c: int) -> None:
        self.U_ = np.sqrt(self.lam) * np.eye(m)
        self.reload_pos_ = np.zeros(1, dtype=np.int64)
        self._work = np.empty(m)
        self._v = np.empty(m)
        self._r = np.empty(c)

    def _grow_state(self, c: int) -> None:
        self.W_ = with_zero_column(self.W_)
        self._r = np.empty(c)

    def _run(self, A: np.ndarray, y: np.ndarray, pred: np.ndarray) -> int:
        return gain_run(
            self.U_,
            self.W_,
            A,
            y,
            pred,
            self._beta,
            self._alpha,
            self.reload_pos_,
            self._work,
            self._v,
            self._r,
        )


# --------------------------------------------------------------------------------------
# Algorithm 2 and the ablation without EOUS (fresh Cholesky every step)
# --------------------------------------------------------------------------------------


class _FreshCholeskyBLS(_ChunkedBLS):
    """Shared steps of Alg. 2 and of the ablation without EOUS: ``P ← d·P + a aᵀ`` with
    ``d = _decay()``, a fresh Cholesky of ``P + λI``, then Alg. 1's line 7."""

    _max_retries: ClassVar[int] = 16

    def _decay(self) -> float:
        return 1.0

    def _reset_state(self, m: int, c: int) -> None:
        self.P_ = np.zeros((m, m))
        self.U_ = np.sqrt(self.lam) * np.eye(m)
        self.n_chol_retries_ = 0
        self._r = np.empty(c)
        self._XT = np.empty((c, m))

    def _grow_state(self, c: int) -> None:
        self.W_ = with_zero_column(self.W_)
        self._r = np.empty(c)
        self._XT = np.empty((c, self.W_.shape[0]))

    def _factor(self) -> None:
        """``U_ ← chol(P + λI)`` (upper), retrying with ``λ·10^j`` on failure."""
        self.U_, retries = cholesky_upper(
            self.P_, float(self.lam), type(self).__name__, self._max_retries
        )
        self.n_chol_retries_ += retries

    def _learn_a(self, a: np.ndarray, y: int) -> None:
        r = self._r
        predict_residual(a, self.W_, y, r)
        decay_add_outer(self.P_, a, self._decay())
        self._factor()
        XT = self._XT
        np.multiply(r[:, None], a[None, :], out=XT)
        _raise_status(self, solve_ut_rows(self.U_, XT))
        _raise_status(self, solve_u_rows(self.U_, XT))
        self.W_ += XT.T

    def _run(self, A: np.ndarray, y: np.ndarray, pred: np.ndarray) -> int:
        # the per-sample steps over a chunk of broad features (no fused kernel: O(m³) each)
        for i in range(A.shape[0]):
            pred[i] = self._predict_a(A[i])
            self._learn_a(A[i], int(y[i]))
        return CholeskyStatus.OK


@register_algorithm("online_bls_ada")
class OnlineBLSAda(_FreshCholeskyBLS):
    """Online-BLS (Ada.) (Alg. 2): forgetting factor μ, fresh Cholesky of μP + aaᵀ + λI each step.

    Exactly as written (Alg. 2 line 6): ``P^(k) = μ P^(k-1) + a aᵀ`` (``P^(0) = 0``),
    ``L = Chol(P^(k) + λI)`` (LAPACK ``dpotrf``), then line 7 of Alg. 1 unchanged:
    ``ΔW = L⁻ᵀ L⁻¹ a (y - ŷ)ᵀ`` with the ``c``-column substitutions, ``W += ΔW``. Because
    the residual form keeps an undecayed ``λ``, the iterate solves
    ``(P^(k) + λI) W^(k) = a yᵀ + (μ P^(k-1) + λI) W^(k-1)`` (eqs. 9–10), not the
    exponentially weighted ridge problem. ``O(m³)`` per sample.

    If the Cholesky factorisation fails (``P + λI`` numerically indefinite),
    the step is retried with ``λ·10^j``, ``j = 1, 2, …``; every retry is logged and
    counted in ``n_chol_retries_``.

    Parameters
    ----------
    mu
        Forgetting (decay) factor ``μ`` (paper §5.4: 0.99).

    Other parameters are those of BLSClassifier.

    Attributes
    ----------
    P_
        ``P^(k) = Σ μ^(k-i) a_i a_iᵀ`` (full square matrix).
    U_
        Upper Cholesky factor of ``P^(k) + λI`` of the last step.
    n_chol_retries_
        Number of factorisation retries with a larger ``λ``.
    """

    _constraints: ClassVar[dict[str, Constraint]] = {
        **BLSClassifier._constraints,
        "mu": Interval(0, 1, closed="right"),
    }

    def __init__(self, *, mu: float = 0.99, **bls_params: Any) -> None:
        self.mu = mu
        super().__init__(**bls_params)

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        for params in super()._test_params():
            yield {**params, "mu": 0.9}

    def _decay(self) -> float:
        return float(self.mu)


@register_algorithm("online_bls_no_eous")
class OnlineBLSNoEOUS(_FreshCholeskyBLS):
    """Online-BLS w/o EOUS (ablation): fresh Cholesky of K = λI + Σ aaᵀ every step, O(m³).

    Alg. 1 with line 6 replaced by an explicit accumulation and a fresh factorisation
    (paper §5.3, Table 3 "Ours w/o EOUS"); implemented as Alg. 2 with ``μ = 1`` (identical
    mathematics). Same predictions as ``online_bls`` up to rounding. Cholesky failures are
    retried with a larger ``λ`` and counted.

    Parameters are those of BLSClassifier.
    """


@register_algorithm("online_bls_fast")
class OnlineBLSFast(_ChunkedBLS):
    """Online-BLS, square-root information form: Alg. 1's ridge weights, one factor sweep.

    Beyond the paper (the fastest exact form here). Keeps the EOUS factor ``U`` of
    ``K = λI + Σ a aᵀ`` and ``Z = U⁻ᵀ S`` with ``S = Σ a yᵀ`` instead of ``W``; then
    ``W = U⁻¹ Z = K⁻¹ S`` is exactly the ridge solution of the prefix (Alg. 1's weights,
    from the normal equations ``K W = S`` of eqs. 5–6: no error propagates through
    ``W^(k-1)``). Per sample, one pass over the rows of ``U`` computes ``q = U⁻ᵀ a`` with
    the rows before they are rotated and applies the EOUS Givens rotations (eq. 15); the
    prediction is ``ŷ = Zᵀ q`` and the same rotations applied to ``[yᵀ; Z]`` (``O(mc)``)
    keep ``U_newᵀ Z_new = S + a yᵀ`` (this is QR-decomposition RLS). ``W_`` is computed on
    access by a backward substitution (``O(m²c)``); prediction and update never form it.

    Per sample ``≈ 5m² + 8mc`` flops and a share of one read/write sweep of ``U`` (a block
    of consecutive samples shares a sweep), against ``online_bls_gain``'s update sweep plus
    a read sweep for ``g = U⁻¹v``.

    Attributes
    ----------
    U_
        Upper Cholesky factor of ``K = λI + Σ a aᵀ``.
    Z_
        ``U⁻ᵀ Aᵀ Y`` (``(m, c)``).
    W_
        ``U⁻¹ Z`` (read-only, computed on access).
    """

    def _reset_state(self, m: int, c: int) -> None:
        self.U_ = np.sqrt(self.lam) * np.eye(m)
        self.Z_ = np.zeros((m, c))
        # scratch of the blocked sweep (SWEEP_BLOCK samples per pass over U)
        self._work, self._f, self._q, self._cs, self._ss, self._yh, self._t = sqrt_scratch(m, c)

    def _grow_state(self, c: int) -> None:
        # the new class's column of Z = U⁻ᵀ Aᵀ Y is zero, and rotations keep it zero
        self.Z_ = with_zero_column(self.Z_)
        self._yh, self._t = sqrt_scratch(0, c)[5:]

    @property  # type: ignore[override]
    def W_(self) -> np.ndarray:
        # a copy: with one class, Z_.T is itself C-contiguous and would be solved in place
        XT = np.array(self.Z_.T, order="C")
        _raise_status(self, solve_u_rows(self.U_, XT))
        return XT.T.copy()

    @W_.setter
    def W_(self, value: np.ndarray) -> None:
        # BLSClassifier.reset initialises W_ = 0; Z_ = 0 (set in _reset_state) is that.
        if np.any(value):
            raise AttributeError("OnlineBLSFast.W_ is derived (U⁻¹Z) and cannot be set")

    def _scores_a(self, a: np.ndarray) -> np.ndarray:
        q = self._q[0]
        q[:] = a
        _raise_status(self, solve_ut(self.U_, q))
        scores(q, self.Z_, self._yh)
        return self._yh

    def _run(self, A: np.ndarray, y: np.ndarray, pred: np.ndarray) -> int:
        return sqrt_run(
            self.U_,
            self.Z_,
            A,
            y,
            pred,
            self._work,
            self._f,
            self._q,
            self._cs,
            self._ss,
            self._yh,
            self._t,
        )
