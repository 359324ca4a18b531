"""BLS-CIL baseline: BLS with a class-correlation regulariser, fed one sample at a time.

Du et al. (2024), as transcribed in Appendix A.3 of C. Lei et al., *Online-BLS: An Accurate
and Efficient Online Broad Learning System for Data Stream Classification*. Each step adds
``H = a aᵀ + λ_k δ δᵀ`` (``δ = a_k − a_{k-1}``, consecutive samples in stream order) to
``K`` and inverts ``K`` explicitly — the ``O(m³)`` cost of Table 1, kept on purpose.
``solver="cholesky"`` solves ``K W = S`` afresh instead (same ``W`` in exact arithmetic): a
diagnostic that separates the recursion's rounding from the method itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np
import scipy.linalg

from streamlearn.algorithms.bls.broad_learning import BLSClassifier, check_finite_weights
from streamlearn.algorithms.linalg import INVERSE_IMPLS, explicit_inverse, rank_one_update
from streamlearn.errors import UserError
from streamlearn.params import Constraint, Interval, Options
from streamlearn.registry import register_algorithm

__all__ = ["BLSCIL"]


@register_algorithm("bls_cil")
class BLSCIL(BLSClassifier):
    """BLS-CIL baseline: class-correlation K recursion with an explicit inverse (Du 2024).

    With ``K⁽⁰⁾ = lam·I`` (the paper: identity, so ``lam`` defaults to 1 here, not 1e-8) and
    ``W⁽⁰⁾ = 0``, each sample ``a = a_k`` with one-hot label ``y = y_k`` is learned as
    (Appendix A.3)::

        λ_k = −lam1 if y_k ≠ y_{k−1},  +lam2 if y_k = y_{k−1}   (λ_1 = 0: no pair at k = 1)
        H   = a aᵀ + λ_k (a_{k−1}a_{k−1}ᵀ − a a_{k−1}ᵀ + a aᵀ − a_{k−1} aᵀ)
            = a aᵀ + λ_k δ δᵀ,   δ = a − a_{k−1}
        K   <- K + H
        W   <- W − K⁻¹ (H W) + (K⁻¹ a) yᵀ

    so that ``K⁽ᵏ⁾ W⁽ᵏ⁾ = Σ a_i y_iᵀ`` with ``K⁽ᵏ⁾ = lam·I + Σ a_i a_iᵀ + Σ_{i≥2} λ_i δ_i δ_iᵀ``:
    ``W⁽ᵏ⁾`` minimises ``‖A W − Y‖² + lam‖W‖² + Σ_{i≥2} λ_i ‖δ_iᵀ W‖²`` (same-class neighbours
    pulled together, different-class neighbours pushed apart). ``K`` stays positive definite
    (``K ⪰ lam·I``) whenever ``lam1 ≤ 1/4``. ``H W`` is formed in ``O(mc)``.
    The first sample is predicted with ``W⁽⁰⁾ = 0`` (§3.1).

    Parameters
    ----------
    n1, n2, n3, n4, enh_scale, enh_shrink, shrink_source, shrink_warmup, input_low,
    input_high, row_zscore, orth_enhancement, seed
        As in :class:`~streamlearn.algorithms.bls.broad_learning.BLSClassifier`.
    lam
        Ridge weight of ``K⁽⁰⁾`` (paper: 1, i.e. ``K⁽¹⁾ = I + a₁a₁ᵀ``).
    lam1, lam2
        Weights of the different-class and same-class pair terms (paper §5.1: 0.1 each;
        the original BLS-CIL paper used 1).
    inverse
        Inverse routine (see :func:`streamlearn.algorithms.linalg.explicit_inverse`).
    solver
        ``"inverse"`` (default): Appendix A.3's recursion above, with ``K⁻¹`` formed
        explicitly. ``"cholesky"``: ``S ← S + a yᵀ`` and ``W = K⁻¹S`` by a fresh Cholesky
        factorisation of ``K`` at every step (``m³/3`` flops, no explicit inverse, no
        recursion on ``W``): the minimiser the recursion tracks, without its rounding
        carried from step to step. Not the paper's method; it isolates the cost of the
        explicit-inverse recursion (results/online_bls/README.md).

    Attributes
    ----------
    K_
        ``(m, m)`` matrix of the recursion.
    W_
        Output weights ``(m, c)``.
    n_seen_
        Number of samples learned.
    n_same_, n_diff_
        Number of consecutive pairs with equal / different labels.

    References
    ----------
    [^1]: J. Du et al. Class-incremental learning via broad learning system with class
          correlation. 2024.
    [^2]: C. Lei, G.-Z. Chen, C. L. P. Chen, T. Zhang. Online-BLS (Appendix A.3).
    """

    _constraints: ClassVar[dict[str, Constraint]] = {
        **BLSClassifier._constraints,
        "lam1": Interval(0, None, closed="left"),
        "lam2": Interval(0, None, closed="left"),
        "inverse": Options(INVERSE_IMPLS),
        "solver": Options(("inverse", "cholesky")),
    }

    def __init__(
        self,
        *,
        lam: float = 1.0,
        lam1: float = 0.1,
        lam2: float = 0.1,
        inverse: str = "numpy",
        solver: str = "inverse",
        **bls_params: Any,
    ) -> None:
        self.lam1 = lam1
        self.lam2 = lam2
        self.inverse = inverse
        self.solver = solver
        super().__init__(lam=lam, **bls_params)

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        base = {**cls._bls_test_params(), "lam": 1.0}
        yield base
        yield {**base, "enh_shrink": 0.8, "shrink_warmup": 3}
        yield {**base, "lam1": 0.2, "lam2": 0.05, "inverse": "getri"}
        yield {**base, "solver": "cholesky"}

    def _reset_state(self, m: int, c: int) -> None:
        self.K_ = np.eye(m) * self.lam
        self.n_seen_ = 0
        self.n_same_ = 0
        self.n_diff_ = 0
        self._prev_a = np.zeros(m)
        self._prev_y = -1
        self._S = np.zeros((m, c)) if self.solver == "cholesky" else None

    def _learn_a(self, a: np.ndarray, y: int) -> None:
        """One BLS-CIL step (Appendix A.3): ``K += H``, explicit ``K⁻¹``, weight update."""
        W = self.W_
        solve = self._S is not None  # solver="cholesky": W from K and S, H W not needed
        HW = None if solve else np.outer(a, a @ W)  # H W in O(mc)
        rank_one_update(self.K_, 1.0, a, a)
        if self.n_seen_ > 0:
            if y == self._prev_y:
                lam_k = self.lam2
                self.n_same_ += 1
            else:
                lam_k = -self.lam1
                self.n_diff_ += 1
            delta = a - self._prev_a
            if lam_k != 0.0:
                rank_one_update(self.K_, lam_k, delta, delta)
                if HW is not None:
                    HW += lam_k * np.outer(delta, delta @ W)
        if solve:
            self._S[:, y] += a
            W[...] = _cholesky_solve(self.K_, self._S, self.n_seen_ + 1)
        else:
            Kinv = explicit_inverse(self.K_, self.inverse)
            W -= Kinv @ HW
            W[:, y] += Kinv @ a
        self._prev_a[:] = a
        self._prev_y = y
        self.n_seen_ += 1
        check_finite_weights(W, "BLS-CIL", self.n_seen_)


def _cholesky_solve(K: np.ndarray, S: np.ndarray, step: int) -> np.ndarray:
    """``K⁻¹S`` through a fresh Cholesky factorisation of the symmetric ``K`` (its upper
    triangle is read); a clear error if ``K`` is not numerically positive definite."""
    try:
        factor = scipy.linalg.cho_factor(K, lower=False, check_finite=False)
        return scipy.linalg.cho_solve(factor, S, check_finite=False)
    except np.linalg.LinAlgError as exc:
        raise UserError(
            f"BLS-CIL (solver='cholesky'): K is not numerically positive definite at "
            f"sample {step} ({exc}): lam1 > 1/4 can make it indefinite, and with a tiny "
            "lam its smallest eigenvalues can fall below the rounding of its accumulation") from exc
