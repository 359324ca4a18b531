"""I-BLS baseline: the incremental BLS of Chen & Liu (2018), Greville's pseudo-inverse update.

As transcribed in Appendix A.1 of C. Lei et al., *Online-BLS: An Accurate and Efficient
Online Broad Learning System for Data Stream Classification*. The method keeps every broad
feature seen so far, ``A_k`` (``k × m``), and its (regularised) pseudo-inverse ``A_k⁺``
(``m × k``), so its memory and per-step work grow linearly with ``k``; and it branches on
an exact-arithmetic test "``q = 0``" that the paper never turns into a tolerance. The
outcome of a run is decided by that test: the tolerance is the ``qtol`` parameter. Both
weaknesses are kept on purpose — they are what Table 3 and Figure 1 of the paper measure.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import numpy as np

from streamlearn.algorithms.bls.broad_learning import BLSClassifier, check_finite_weights
from streamlearn.algorithms.linalg import INVERSE_IMPLS, explicit_inverse, rank_one_update
from streamlearn.errors import UserError
from streamlearn.params import Constraint, Interval, Options
from streamlearn.registry import register_algorithm

__all__ = ["IBLS"]


@register_algorithm("ibls")
class IBLS(BLSClassifier):
    """I-BLS baseline: Greville pseudo-inverse update of the broad features (Chen & Liu 2018).

    With ``A⁺`` the pseudo-inverse of the rows seen so far, each sample ``a = a_k`` is
    learned as (Appendix A.1; ``d``, ``q``, ``f`` are the paper's ``D``, ``Q``,
    ``F``, vectors here)::

        k = 1:   f = (a₁ᵀ)⁺ = (a₁ a₁ᵀ + λI)⁻¹ a₁ = a₁ / (a₁ᵀa₁ + λ)
        k ≥ 2:   dᵀ = aᵀ A⁺,   qᵀ = aᵀ − dᵀ A
                 f = (qᵀ)⁺ = q / (qᵀq + λ)          if ‖q‖ > qtol·‖a‖   ("q ≠ 0")
                 f = A⁺ d / (1 + dᵀd)                 otherwise          ("q = 0")
                 A⁺ <- [A⁺ − f dᵀ | f]
        W <- W + f (yᵀ − aᵀ W)                       (= A_k⁺ Y_k, O(mc))

    ``y`` is the one-hot label; the first sample is predicted with ``W⁽⁰⁾ = 0`` (§3.1).
    With ``lam = 0`` this is Greville's exact recursion for the Moore–Penrose inverse.

    The paper gives no tolerance for ``q = 0``: ``qtol = 1e-6`` (relative) is the
    default; ``qtol = 0`` is the literal exact test. The branch counts are kept
    in ``n_q_nonzero_`` / ``n_q_zero_``.

    Parameters
    ----------
    n1, n2, n3, n4, lam, enh_scale, enh_shrink, shrink_source, shrink_warmup, input_low,
    input_high, row_zscore, orth_enhancement, seed
        As in :class:`~streamlearn.algorithms.bls.broad_learning.BLSClassifier` (paper:
        ``λ = 1e-8``); here ``lam = 0`` is allowed (exact Greville, closed-form mode only).
    qtol
        Relative zero test: ``q`` counts as zero iff ``‖q‖₂ ≤ qtol·‖a_k‖₂``.
    pinv_mode
        ``"closed_form"`` computes ``(qᵀ)⁺ = q / (qᵀq + λ)`` in ``O(m)`` (the default);
        ``"explicit"`` computes ``(λI + q qᵀ)⁻¹ q`` with an explicit ``m × m`` inverse, as the
        public BLS code does — the ``O(m³)`` entry of Table 1 (slow; needs ``lam > 0``).
    inverse
        Inverse routine for ``pinv_mode="explicit"`` (see
        :func:`streamlearn.algorithms.linalg.explicit_inverse`).

    Attributes
    ----------
    W_
        Output weights ``A_k⁺ Y_k``, ``(m, c)``.
    n_seen_
        Number of samples learned, ``k``.
    n_q_nonzero_, n_q_zero_
        How many steps ``k ≥ 2`` took each branch.

    Notes
    -----
    ``A`` and ``(A⁺)ᵀ`` are stored row-wise in blocks of ``_block_rows`` rows (no copying
    when the stream grows; ``2·k·m`` doubles in total, about 1.2 GB at ``k = 70 000``,
    ``m = 1100``). Per step: three passes over ``k × m`` memory (BLAS ``gemv``, ``gemv``,
    ``ger``).

    References
    ----------
    [^1]: C. L. P. Chen and Z. Liu. Broad learning system: an effective and efficient
          incremental learning system without the need for deep architecture. IEEE TNNLS
          29(1), 2018.
    [^2]: T. N. E. Greville. Some applications of the pseudoinverse of a matrix. SIAM
          Review 2(1), 1960.
    [^3]: C. Lei, G.-Z. Chen, C. L. P. Chen, T. Zhang. Online-BLS (Appendix A.1).
    """

    _constraints: ClassVar[dict[str, Constraint]] = {
        **BLSClassifier._constraints,
        "lam": Interval(0, None, closed="left"),
        "qtol": Interval(0, None, closed="left"),
        "pinv_mode": Options(("closed_form", "explicit")),
        "inverse": Options(INVERSE_IMPLS),
    }

    #: rows per storage block of ``A`` and ``(A⁺)ᵀ`` (18 MB per block at ``m = 1100``)
    _block_rows: ClassVar[int] = 2048

    def __init__(
        self,
        *,
        qtol: float = 1e-6,
        pinv_mode: str = "closed_form",
        inverse: str = "numpy",
        **bls_params: Any,
    ) -> None:
        self.qtol = qtol
        self.pinv_mode = pinv_mode
        self.inverse = inverse
        super().__init__(**bls_params)

    @classmethod
    def _check_param_values(cls, values: Mapping[str, Any]) -> None:
        super()._check_param_values(values)
        if values["pinv_mode"] == "explicit" and values["lam"] <= 0:
            raise UserError("IBLS: pinv_mode='explicit' needs lam > 0 (λI + q qᵀ is singular).")

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield from super()._test_params()
        yield {**cls._bls_test_params(), "qtol": 0.0}
        yield {**cls._bls_test_params(), "pinv_mode": "explicit"}

    # ----------------------------------------------------------------------------------
    def _reset_state(self, m: int, c: int) -> None:
        self.n_seen_ = 0
        self.n_q_nonzero_ = 0
        self.n_q_zero_ = 0
        self._m = m
        self._A_blocks: list[np.ndarray] = []  # rows a_i
        self._P_blocks: list[np.ndarray] = []  # rows of (A⁺)ᵀ, i.e. columns of A⁺
        self._r = np.empty(c)

    def _memory_arrays(self) -> Iterator[np.ndarray]:
        yield from super()._memory_arrays()
        yield from self._A_blocks
        yield from self._P_blocks

    def _blocks(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Filled parts of the storage blocks: pairs of ``(A rows, (A⁺)ᵀ rows)`` views."""
        rows = self._block_rows
        n_full, tail = divmod(self.n_seen_, rows)
        for b in range(n_full):
            yield self._A_blocks[b], self._P_blocks[b]
        if tail:
            yield self._A_blocks[n_full][:tail], self._P_blocks[n_full][:tail]

    def _append(self, a: np.ndarray, f: np.ndarray) -> None:
        pos = self.n_seen_ % self._block_rows
        if pos == 0:
            self._A_blocks.append(np.empty((self._block_rows, self._m)))
            self._P_blocks.append(np.empty((self._block_rows, self._m)))
        self._A_blocks[-1][pos] = a
        self._P_blocks[-1][pos] = f

    def _row_pinv(self, q: np.ndarray) -> np.ndarray:
        """``(qᵀ)⁺ = (q qᵀ + λI)⁻¹ q`` (Appendix A.1's regularised pseudo-inverse of a row)."""
        if self.pinv_mode == "explicit":
            M = np.outer(q, q)
            M.flat[:: M.shape[0] + 1] += self.lam
            return explicit_inverse(M, self.inverse) @ q
        return q / (float(q @ q) + self.lam)  # Sherman–Morrison, exact

    def _learn_a(self, a: np.ndarray, y: int) -> None:
        """One Greville step (Appendix A.1); updates ``A``, ``A⁺`` and ``W``."""
        r = self._r  # yᵀ − aᵀW, from the weights before the update
        np.matmul(a, self.W_, out=r)
        np.negative(r, out=r)
        r[y] += 1.0
        if self.n_seen_ == 0:
            f = self._row_pinv(a)
        else:
            blocks = list(self._blocks())
            ds = [P @ a for _, P in blocks]  # dᵀ = aᵀ A⁺   (d_i = column i of A⁺ · a)
            q = a.copy()
            for (A, _), d in zip(blocks, ds, strict=True):
                q -= A.T @ d  # qᵀ = aᵀ − dᵀ A
            if np.linalg.norm(q) > self.qtol * np.linalg.norm(a):
                f = self._row_pinv(q)
                self.n_q_nonzero_ += 1
            else:
                f = np.zeros(self._m)
                dd = 0.0
                for (_, P), d in zip(blocks, ds, strict=True):
                    f += P.T @ d  # A⁺ d
                    dd += float(d @ d)
                f /= 1.0 + dd
                self.n_q_zero_ += 1
            for (_, P), d in zip(blocks, ds, strict=True):
                rank_one_update(P, -1.0, d, f)  # A⁺ − f dᵀ, stored transposed: Pᵀ −= d fᵀ
        self._append(a, f)
        self.W_ += np.outer(f, r)
        self.n_seen_ += 1
        check_finite_weights(self.W_, "I-BLS", self.n_seen_)
