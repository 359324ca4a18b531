"""Online-BLS learners: Algorithm 1 (EWEA + EOUS), its ablation without EOUS, Algorithm 2
(forgetting factor) and O(m²) variants.

C. Lei, G.-Z. Chen, C. L. P. Chen, T. Zhang, *Online-BLS: An Accurate and Efficient Online
Broad Learning System for Data Stream Classification*; spec
``../shared/papers/online_bls.md`` §3–§5 and §11.5. All learners share the broad feature
map of :mod:`streamlearn.algorithms._bls_common` and the numba kernels of
:mod:`streamlearn.kernels.cholesky`; the Cholesky factor ``K = LLᵀ`` is stored as
``U_ = Lᵀ`` (upper triangle of a C-contiguous array, spec §4.3).

================================  =========================================  ==============
name                              update of ``W`` per sample                 cost (flops)
================================  =========================================  ==============
``online_bls``                    Alg. 1: EOUS, then ``c``-column solves      ``3m² + 2m²c``
``online_bls_no_eous``            Alg. 2 with ``μ = 1``: fresh Cholesky       ``m³/3``
``online_bls_ada``                Alg. 2 as written (``μ``, fresh Cholesky)   ``m³/3``
``online_bls_fast``               EOUS on ``[aᵀ yᵀ; U Z]``, ``W = U⁻¹Z``      ``≈ 5m²``, 1 sweep
``online_bls_gain``               EOUS, gain ``g = K⁻¹a``, ``W += g rᵀ``     ``≈ 5m²``, 2 sweeps
``online_bls_ada_fast``           forgetting in the factor + diagonal reload  ``≈ 6m²``
================================  =========================================  ==============
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np
from scipy.linalg import lapack

from streamlearn.algorithms._bls_common import BLSClassifier
from streamlearn.base import Constraint, Interval, UserError
from streamlearn.kernels import cholesky as ck
from streamlearn.registry import register_algorithm

logger = logging.getLogger(__name__)

CHUNK = 512  # rows of broad features materialised at once by predict_learn_many

_STATUS = {
    ck.NONFINITE: "a non-finite value appeared",
    ck.NOT_PD: "the Cholesky factor lost positive definiteness",
}


def _raise_status(learner: BLSClassifier, status: int) -> None:
    if status != ck.OK:
        raise UserError(
            f"{type(learner).__name__}: {_STATUS.get(status, f'kernel status {status}')} "
            "(check the input scaling: very large broad features overflow the factor)."
        )


class _ChunkedBLS(BLSClassifier):
    """Learner whose update is one numba chunk kernel; ``learn_one`` calls it on one row,
    so the per-sample and the chunked paths run the same compiled code."""

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
    ``K^(k) = K^(k-1) + a aᵀ`` by ``m`` Givens rotations (line 6, eq. 15, EOUS; spec §4 with
    the [T] corrections and the Remark 1 guard); solve ``K^(k) ΔW = a (y - ŷ)ᵀ`` (eq. 9) by
    forward and backward substitution with the ``c`` columns of ``B`` (line 7, eqs. 13–14
    with corrected indices); ``W += ΔW`` (eq. 10). ``W^(0) = 0``, ``L^(0) = √λ I`` (line 1).
    ``W^(k)`` is the ridge solution ``(AᵀA + λI)⁻¹AᵀY`` of the prefix. Cost
    ``3m² + 2m²c`` flops per sample.

    Parameters are those of :class:`~streamlearn.algorithms._bls_common.BLSClassifier`.

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

    def _run(self, A: np.ndarray, y: np.ndarray, pred: np.ndarray) -> int:
        return ck.obls_run(self.U_, self.W_, A, y, pred, self._work, self._v, self._r, self._XT)


@register_algorithm("online_bls_gain")
class OnlineBLSGain(_ChunkedBLS):
    """Online-BLS, gain-vector form: the same ridge weights as Alg. 1 in O(m²) per sample.

    Beyond the paper (issue 4, spec §3.4 "optional shortcut"). Since ``B = a rᵀ`` in eq. 9
    has rank one, ``ΔW = K⁻¹ a rᵀ = g rᵀ`` with the gain ``g = K^(k)⁻¹ a``. After the EOUS
    update of the factor, ``g`` comes from two triangular solves with the updated factor:
    ``v = U⁻ᵀ a`` — obtained from the Givens rotations themselves at no extra pass,
    ``v_i = s_i Π_{j<i} c_j`` (see :func:`~streamlearn.kernels.cholesky.chol_update`) — and
    ``g = U⁻¹ v`` (backward substitution); then ``W += g (y - ŷ)ᵀ``.

    Algebra: if ``K^(k-1) W^(k-1) = S^(k-1)`` then ``K^(k) (W^(k-1) + g rᵀ) =
    K^(k-1) W^(k-1) + a aᵀ W^(k-1) + a (yᵀ - aᵀ W^(k-1)) = S^(k-1) + a yᵀ = S^(k)``: the
    ridge solution of the prefix, exactly as Alg. 1. In floating point the two differ at
    the forward-error level ``≈ u κ(K)`` (spec §3.4). Cost ``3m² + 2m² + 2mc`` flops
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

    def _run(self, A: np.ndarray, y: np.ndarray, pred: np.ndarray) -> int:
        return ck.gain_run(
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


@register_algorithm("online_bls_ada")
class OnlineBLSAda(BLSClassifier):
    """Online-BLS (Ada.) (Alg. 2): forgetting factor μ, fresh Cholesky of μP + aaᵀ + λI each step.

    Exactly as written (spec §5.3): ``P^(k) = μ P^(k-1) + a aᵀ`` (``P^(0) = 0``),
    ``L = Chol(P^(k) + λI)`` (LAPACK ``dpotrf``), then line 7 of Alg. 1 unchanged:
    ``ΔW = L⁻ᵀ L⁻¹ a (y - ŷ)ᵀ`` with the ``c``-column substitutions, ``W += ΔW``. Because
    the residual form keeps an undecayed ``λ``, the iterate solves
    ``(P^(k) + λI) W^(k) = a yᵀ + (μ P^(k-1) + λI) W^(k-1)`` (spec §5.3), not the
    exponentially weighted ridge problem. ``O(m³)`` per sample.

    If the Cholesky factorisation fails (``P + λI`` numerically indefinite, spec §11.2),
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
        Number of factorisation retries with a larger ``λ`` (spec §11.2).
    """

    _constraints: ClassVar[dict[str, Constraint]] = {
        **BLSClassifier._constraints,
        "mu": Interval(0, 1, closed="right"),
    }
    _max_retries: ClassVar[int] = 16

    def __init__(
        self,
        *,
        mu: float = 0.99,
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
        self.mu = mu
        super().__init__(
            n1=n1,
            n2=n2,
            n3=n3,
            n4=n4,
            lam=lam,
            enh_scale=enh_scale,
            enh_shrink=enh_shrink,
            shrink_source=shrink_source,
            shrink_warmup=shrink_warmup,
            input_low=input_low,
            input_high=input_high,
            row_zscore=row_zscore,
            orth_enhancement=orth_enhancement,
            seed=seed,
        )

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        for params in super()._test_params():
            yield {**params, "mu": 0.9}

    def _decay(self) -> float:
        return float(self.mu)

    def _reset_state(self, m: int, c: int) -> None:
        self.P_ = np.zeros((m, m))
        self.U_ = np.sqrt(self.lam) * np.eye(m)
        self.n_chol_retries_ = 0
        self._r = np.empty(c)
        self._XT = np.empty((c, m))

    def _factor(self) -> None:
        """``U_ ← chol(P + λI)`` (upper), retrying with ``λ·10^j`` on failure."""
        diag = np.arange(self.P_.shape[0])
        for j in range(self._max_retries + 1):
            lam = self.lam * 10.0**j
            M = self.P_.copy()
            M[diag, diag] += lam
            # P is symmetric, so M.T (an F-ordered view) is the same matrix; its lower
            # factor in F order is the upper factor U = Lᵀ in C order: no further copy.
            L, info = lapack.dpotrf(M.T, lower=1, clean=1, overwrite_a=1)
            if info == 0:
                self.U_ = np.ascontiguousarray(L.T)
                return
            self.n_chol_retries_ += 1
            logger.info(
                "%s: Cholesky of P + λI failed (info=%d) at λ=%g; retrying with λ=%g",
                type(self).__name__,
                info,
                lam,
                lam * 10.0,
            )
        raise UserError(
            f"{type(self).__name__}: Cholesky failed even with λ·10^{self._max_retries}."
        )

    def _learn_a(self, a: np.ndarray, y: int) -> None:
        r = self._r
        ck._residual(a, self.W_, y, r)
        ck.decay_add_outer(self.P_, a, self._decay())
        self._factor()
        XT = self._XT
        np.multiply(r[:, None], a[None, :], out=XT)
        _raise_status(self, ck.solve_ut_rows(self.U_, XT))
        _raise_status(self, ck.solve_u_rows(self.U_, XT))
        self.W_ += XT.T

    def predict_learn_many(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Strict test-then-train over a chunk (the per-sample steps, features in bulk)."""
        X, y = self._check_chunk(X, y)
        out = np.empty(X.shape[0], dtype=np.int64)
        start = self._warmup_many(X, y, out)
        for s in range(start, X.shape[0], CHUNK):
            e = min(s + CHUNK, X.shape[0])
            A = self.features_.transform(X[s:e])
            for i in range(e - s):
                out[s + i] = self._predict_a(A[i])
                self._learn_a(A[i], int(y[s + i]))
        return out


@register_algorithm("online_bls_no_eous")
class OnlineBLSNoEOUS(OnlineBLSAda):
    """Online-BLS w/o EOUS (ablation): fresh Cholesky of K = λI + Σ aaᵀ every step, O(m³).

    Alg. 1 with line 6 replaced by an explicit accumulation and a fresh factorisation
    (paper §5.3, Table 3 "Ours w/o EOUS"); implemented as Alg. 2 with ``μ = 1`` (spec §5.2,
    identical mathematics). Same predictions as ``online_bls`` up to rounding. Cholesky
    failures are retried with a larger ``λ`` and counted (spec §11.2).

    Parameters are those of BLSClassifier.
    """

    _constraints: ClassVar[dict[str, Constraint]] = dict(BLSClassifier._constraints)

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
        BLSClassifier.__init__(
            self,
            n1=n1,
            n2=n2,
            n3=n3,
            n4=n4,
            lam=lam,
            enh_scale=enh_scale,
            enh_shrink=enh_shrink,
            shrink_source=shrink_source,
            shrink_warmup=shrink_warmup,
            input_low=input_low,
            input_high=input_high,
            row_zscore=row_zscore,
            orth_enhancement=orth_enhancement,
            seed=seed,
        )

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield from BLSClassifier._test_params.__func__(cls)  # type: ignore[attr-defined]

    def _decay(self) -> float:
        return 1.0


@register_algorithm("online_bls_ada_fast")
class OnlineBLSAdaFast(OnlineBLSGain):
    """Online-BLS (Ada.) in O(m²): forgetting in the factor plus a cyclic diagonal reload.

    Beyond the paper (issue 4; spec §11.5 option (a)). Per sample, in the factor:
    ``K ← μ K + ρ² e_j e_jᵀ + a aᵀ`` with ``ρ² = (1-μ) λ m`` and ``j = k mod m`` cycling
    over the coordinates — the reload is one Givens sweep from row ``j``
    (``≈ m²`` flops on average), the forgetting is the scaling of each row by ``√μ``
    fused into the EOUS pass — then the gain step of ``online_bls_gain``:
    ``W += K⁻¹ a (y - ŷ)ᵀ``.

    What it equals: ``K^(k) = P^(k) + D^(k)`` with ``P^(k) = Σ μ^(k-i) a_i a_iᵀ`` exactly as
    in Alg. 2 and a diagonal regulariser ``D^(k) = μ^k λ I + ρ² Σ_{i≤k} μ^(k-i) e_{j_i}
    e_{j_i}ᵀ`` in place of Alg. 2's ``λI``. Without the reload, ``D = μ^k λ I`` would vanish
    (``0.99^70000`` underflows); with it, in steady state ``D_jj = ρ² μ^age_j / (1 - μ^m)``
    where ``age_j ∈ {0..m-1}`` is the number of steps since coordinate ``j`` was reloaded:
    ``tr D = λ m`` exactly and every ``D_jj`` averages to ``λ`` over a cycle, but
    individual entries range from ``(1-μ)λm μ^(m-1)/(1-μ^m)`` to ``(1-μ)λm/(1-μ^m)``
    (``≈ 1.7·10⁻⁴ λ`` to ``11 λ`` at ``μ = 0.99``, ``m = 1100``). Like Alg. 2, the update is
    in residual form: ``K^(k) W^(k) = (μ K^(k-1) + ρ² e_j e_jᵀ) W^(k-1) + a yᵀ``.
    ``online_bls_ada`` is the exact ``O(m³)`` reference; the tests measure the difference.

    Parameters
    ----------
    mu
        Forgetting factor ``μ`` (paper §5.4: 0.99).

    Other parameters are those of BLSClassifier.

    Attributes
    ----------
    U_
        Upper Cholesky factor of ``K^(k) = P^(k) + D^(k)``.
    reload_pos_
        The coordinate reloaded next (``int64[1]``).
    """

    _constraints: ClassVar[dict[str, Constraint]] = OnlineBLSAda._constraints

    def __init__(
        self,
        *,
        mu: float = 0.99,
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
        self.mu = mu
        super().__init__(
            n1=n1,
            n2=n2,
            n3=n3,
            n4=n4,
            lam=lam,
            enh_scale=enh_scale,
            enh_shrink=enh_shrink,
            shrink_source=shrink_source,
            shrink_warmup=shrink_warmup,
            input_low=input_low,
            input_high=input_high,
            row_zscore=row_zscore,
            orth_enhancement=orth_enhancement,
            seed=seed,
        )

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        for params in super()._test_params():
            yield {**params, "mu": 0.9}

    def _reset_state(self, m: int, c: int) -> None:
        super()._reset_state(m, c)
        self._beta = math.sqrt(self.mu)
        self._alpha = math.sqrt((1.0 - self.mu) * self.lam * m)


@register_algorithm("online_bls_fast")
class OnlineBLSFast(_ChunkedBLS):
    """Online-BLS, square-root information form: Alg. 1's ridge weights, one factor sweep.

    Beyond the paper (issue 4's ``online_bls_fast``; the fastest exact form here). Keeps
    the EOUS factor ``U`` of
    ``K = λI + Σ a aᵀ`` and ``Z = U⁻ᵀ S`` with ``S = Σ a yᵀ`` instead of ``W``; then
    ``W = U⁻¹ Z = K⁻¹ S`` is exactly the ridge solution of the prefix (Alg. 1's weights,
    in the direct form of spec §3.5: no error propagates through ``W^(k-1)``). Per sample,
    one pass over the rows of ``U`` computes ``q = U⁻ᵀ a`` with the rows before they are
    rotated and applies the EOUS Givens rotations; the prediction is ``ŷ = Zᵀ q`` and the
    same rotations applied to ``[yᵀ; Z]`` (``O(mc)``) keep ``U_newᵀ Z_new = S + a yᵀ``
    (this is QR-decomposition RLS). ``W_`` is computed on access by a backward
    substitution (``O(m²c)``); prediction and update never form it.

    Per sample ``≈ 5m² + 8mc`` flops and a single read/write sweep of ``U``, against
    ``online_bls_gain``'s update sweep plus a read sweep for ``g = U⁻¹v``.

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
        self._work = np.empty((4, m))
        self._f = np.empty((4, m))
        self._q = np.empty((4, m))
        self._cs = np.empty((4, m))
        self._ss = np.empty((4, m))
        self._yh = np.empty(c)
        self._t = np.empty(c + 12)

    @property  # type: ignore[override]
    def W_(self) -> np.ndarray:
        XT = np.ascontiguousarray(self.Z_.T)
        _raise_status(self, ck.solve_u_rows(self.U_, XT))
        return XT.T.copy()

    @W_.setter
    def W_(self, value: np.ndarray) -> None:
        # BLSClassifier.reset initialises W_ = 0; Z_ = 0 (set in _reset_state) is that.
        if np.any(value):
            raise AttributeError("OnlineBLSFast.W_ is derived (U⁻¹Z) and cannot be set")

    def _predict_a(self, a: np.ndarray) -> int:
        q = self._q[0]
        q[:] = a
        _raise_status(self, ck.solve_ut(self.U_, q))
        ck.scores(q, self.Z_, self._yh)
        return int(ck.argmax_first(self._yh))

    def _run(self, A: np.ndarray, y: np.ndarray, pred: np.ndarray) -> int:
        return ck.sqrt_run(
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
