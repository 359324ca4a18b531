"""``online_bls_blocked``: Online-BLS's ridge weights with one factor update per block.

Beyond the paper (issue 25, item 2): the state and the predictions of ``online_bls_fast``
(Alg. 1's ridge solution of the prefix, C. Lei et al., *Online-BLS*, eqs. 5–6 and line 5),
but the Cholesky factor takes the block's rows in one blocked Householder QR instead of
one Givens sweep per few samples, so the factor update runs at LAPACK's blocked speed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np
from scipy.linalg import lapack, solve_triangular

from streamlearn.algorithms.bls.broad_learning import BLSClassifier
from streamlearn.algorithms.bls.online_bls import _ChunkedBLS, _raise_status
from streamlearn.errors import UserError
from streamlearn.kernels.blocked_qr_rls import block_steps, positive_diagonal, solve_ut_cols
from streamlearn.kernels.cholesky_update import CholeskyStatus
from streamlearn.params import Constraint, Interval
from streamlearn.registry import register_algorithm

#: default samples per block (measured: ``python benchmarks/bench_bls.py --floor``)
BLOCK = 128
#: LAPACK's inner block size of ``dtpqrt`` (the rows of its ``T``)
QR_NB = 32


def fold_rows(U: np.ndarray, Z: np.ndarray, B: np.ndarray, Y: np.ndarray,
              nb: int = QR_NB) -> tuple[np.ndarray, np.ndarray]:
    """``U', Z'`` with ``U'ᵀU' = UᵀU + BᵀB``, ``U'ᵀZ' = UᵀZ + BᵀY`` and ``U'`` upper with a
    positive diagonal: the QR factorisation ``[U Z; B Y] = Q [U' Z'; 0 ·]`` (LAPACK
    ``dtpqrt``, then ``dtpmqrt`` applies ``Qᵀ``), rows of ``U'``, ``Z'`` whose diagonal came
    out negative negated. ``U``, ``Z`` (Fortran order) are overwritten where LAPACK allows;
    use the returned arrays."""
    m = U.shape[0]
    nb = max(1, min(nb, m, B.shape[0]))
    U, V, T, info = lapack.dtpqrt(0, nb, U, B, overwrite_a=1, overwrite_b=1)
    if info != 0:
        raise UserError(f"dtpqrt failed (info = {info})")
    Z, _, info = lapack.dtpmqrt(0, V, T, Z, Y, side="L", trans="T",
                                overwrite_a=1, overwrite_b=1)
    if info != 0:
        raise UserError(f"dtpmqrt failed (info = {info})")
    positive_diagonal(U, Z)
    return U, Z


class BlockBLS(_ChunkedBLS):
    """Shared state and steps of the learners that predict the samples of a block by the
    Woodbury kernel of :mod:`streamlearn.kernels.blocked_qr_rls` (``online_bls_blocked``,
    ``online_bls_ada_blocked``): a block's buffers, its one-sample prediction (``predict_one``
    computes ``q_j``, a ``learn_one`` of the same ``x`` reuses it: the same bits), and the
    learned steps of a run of the block's samples. Subclasses keep ``U_``, ``Z_`` and set the
    slot of the next sample (:meth:`_slot`) and the chunk loop (:meth:`_steps`)."""

    #: the end of the message of a non-finite factor (online_bls._raise_status)
    overflow_hint = (" The in-block Woodbury solve of the blocked learners squares the "
                     "broad features; online_bls_fast (online_bls_ada_fast with "
                     "forgetting) updates by rotations, which do not.")

    def _slot(self) -> int:
        raise NotImplementedError

    def _steps(self, A: np.ndarray, y: np.ndarray, pred: np.ndarray, solved: bool) -> int:
        raise NotImplementedError

    def _reset_block(self, m: int, c: int, b: int, w: np.ndarray) -> None:
        """Buffers of a block of ``b`` samples (row weights ``w``, see ``block_steps``)."""
        self._QT = np.zeros((m, b))
        self._B = np.zeros((b, m), order="F")
        self._Y = np.zeros((b, c), order="F")
        self._LT = np.zeros((b, b))
        self._E = np.zeros((b, c))
        self._G = np.empty((b, b))
        self._H = np.empty((c, b))
        self._g = np.empty(b)
        self._w = w
        self._yh = np.empty(c)
        self._pred1 = np.empty(1, dtype=np.int64)
        self._q_of: np.ndarray | None = None

    def _grow_state(self, c: int) -> None:
        # the new class's target column is zero: its Z, Y and E columns stay zero
        def grow(a: np.ndarray) -> np.ndarray:
            order = "F" if a.flags.f_contiguous and not a.flags.c_contiguous else "C"
            out = np.zeros((a.shape[0], c), order=order)
            out[:, : a.shape[1]] = a
            return out

        self.Z_ = grow(self.Z_)
        self._Y = np.asfortranarray(grow(self._Y))
        self._E = grow(self._E)
        self._H = np.empty((c, self._H.shape[1]))
        self._yh = np.empty(c)

    def _predict_slot(self, a: np.ndarray, solved: bool) -> int:
        """Scores of ``a`` as the block's next sample into ``_yh`` (nothing recorded);
        ``solved``: its ``q`` is in its slot already. Returns a :class:`CholeskyStatus`."""
        j = self._slot()
        if not solved:
            status = solve_ut_cols(self.U_, a.reshape(1, -1), 0, 1, self._QT, j)
            if status != CholeskyStatus.OK:
                return status
        return block_steps(self._QT, j, 1, self.Z_, self._LT, self._E, self._pred1,
                           self._pred1, self._g, self._G, self._H, self._yh, self._Y,
                           self._w, False)

    def _scores_a(self, a: np.ndarray) -> np.ndarray:
        _raise_status(self, self._predict_slot(a, False))
        self._q_of = a  # learn_one(x, y) after predict_one(x) reuses q_j (same bits)
        return self._yh

    def _learn_a(self, a: np.ndarray, y: int) -> None:
        solved, self._q_of = self._q_of is a, None
        _raise_status(self, self._steps(a.reshape(1, -1), np.array([y], dtype=np.int64),
                                        self._pred1, solved))

    def _run(self, A: np.ndarray, y: np.ndarray, pred: np.ndarray) -> int:
        self._q_of = None
        return self._steps(A, y, pred, False)

    def _learn_rows(self, A: np.ndarray, y: np.ndarray, pred: np.ndarray, k0: int, p: int,
                    solved: bool) -> int:
        """Predict and record the rows ``k0 … k0+p−1`` of ``A`` as the block's next ``p``
        samples (one call of each kernel; ``solved``: the one row's ``q`` is in place)."""
        c0 = self._slot()
        if not solved:
            status = solve_ut_cols(self.U_, A, k0, p, self._QT, c0)
            if status != CholeskyStatus.OK:
                return status
        status = block_steps(self._QT, c0, p, self.Z_, self._LT, self._E, y[k0:k0 + p],
                             pred[k0:k0 + p], self._g, self._G, self._H, self._yh, self._Y,
                             self._w, True)
        if status == CholeskyStatus.OK:
            self._B[c0:c0 + p] = A[k0:k0 + p]
        return status


@register_algorithm("online_bls_blocked")
class OnlineBLSBlocked(BlockBLS):
    """Online-BLS ridge weights (Alg. 1, eqs. 5–6), factor updated once per block of samples.

    Beyond the paper. State as ``online_bls_fast``: ``U`` upper with ``UᵀU = K₀ = λI +
    Σ a aᵀ`` and ``Z = U⁻ᵀS₀`` over the samples before the current block. Each sample ``j``
    of a block: ``q_j = U⁻ᵀa_j`` (a forward substitution, shared by the block's samples of
    one call), then the exact prediction with the ridge weights of all earlier samples by
    the Woodbury identity in the block's ``j``-dimensional space (an incremental Cholesky
    of ``I + QᵀQ``; see :mod:`streamlearn.kernels.blocked_qr_rls`). When ``block`` samples
    are pending, ``[U Z; B Y]`` is refactorised by one blocked Householder QR
    (:func:`fold_rows`). In exact arithmetic the predictions are those of
    ``online_bls_fast`` and ``online_bls``; in floating point they differ by rounding at the
    level of a normal-equations solve in the block (``≈ u κ(I + QᵀQ)``, at most
    ``u κ(K)``). Cost per sample: ``m²`` (substitution) ``+ 2m²`` (the QR's share) ``+
    O(bm)`` flops, the first two at BLAS-3-like speed. On badly scaled inputs (one
    attribute 10⁶ times the others) that bound is loose enough for other predictions
    (2 of 500 at ``lam = 1e-2``) or for an overflow at ``lam = 1e-8``, where
    ``online_bls_fast`` keeps the direct solve's: scale the inputs (tested).

    Parameters
    ----------
    block
        Samples per factor update ``b``; 1 folds every sample (Householder instead of
        Givens).

    Other parameters are those of BLSClassifier.

    Attributes
    ----------
    U_, Z_
        Factor and ``U⁻ᵀS`` over the samples before the pending block (Fortran order).
    n_pending_
        Samples of the current block (learned, not yet folded into ``U_``).
    W_
        ``K⁻¹S`` over every sample learned (read-only, computed on access).

    Its enhancement nodes use the vectorised ``tanh``
    (:func:`streamlearn.kernels.vector_math.tanh`, within 2 ulp of the exact value; the C
    library's is within 1): the broad features 1.81× faster, the learner 1.26× with the
    replaced layouts, on MNIST's shape (``benchmarks/bls_kernel_layouts.py`` on an Emerald
    Rapids Xeon; README, "Timing"). Its predictions stay ``online_bls_fast``'s (≤ 1 in 10⁴,
    ``W`` within 1e-5: tested). ``online_bls_ada_blocked`` keeps the C library's: with it, its ``W``
    moved 1.1–3.6e-5 from ``online_bls_ada_fast``'s, past that test's bound.
    """

    _vector_tanh = True
    _constraints: ClassVar[dict[str, Constraint]] = {
        **BLSClassifier._constraints,
        "block": Interval(1, None, integer=True),
    }

    def __init__(self, *, block: int = BLOCK, **bls_params: Any) -> None:
        self.block = block
        super().__init__(**bls_params)

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        for params in super()._test_params():
            yield {**params, "block": 7}
        yield {**cls._bls_test_params(), "block": 1}

    def _reset_state(self, m: int, c: int) -> None:
        b = int(self.block)
        self.U_ = np.asfortranarray(np.sqrt(self.lam) * np.eye(m))
        self.Z_ = np.zeros((m, c), order="F")
        self.n_pending_ = 0
        self._reset_block(m, c, b, np.ones(b))  # unweighted rows

    def _slot(self) -> int:
        return self.n_pending_

    @property  # type: ignore[override]
    def W_(self) -> np.ndarray:
        n = self.n_pending_
        U, Z = np.array(self.U_, order="F"), np.array(self.Z_, order="F")
        if n:
            U, Z = fold_rows(U, Z, np.array(self._B[:n], order="F"),
                             np.array(self._Y[:n], order="F"))
        return solve_triangular(U, Z, lower=False)

    @W_.setter
    def W_(self, value: np.ndarray) -> None:
        if np.any(value):
            raise AttributeError("OnlineBLSBlocked.W_ is derived (K⁻¹S) and cannot be set")

    def _fold(self) -> None:
        n = self.n_pending_
        B = self._B if n == self._B.shape[0] else np.array(self._B[:n], order="F")
        Y = self._Y if n == self._Y.shape[0] else np.array(self._Y[:n], order="F")
        self.U_, self.Z_ = fold_rows(self.U_, self.Z_, B, Y)
        if not (np.isfinite(np.diagonal(self.U_)).all() and np.isfinite(self.Z_).all()):
            _raise_status(self, CholeskyStatus.NONFINITE)
        self.n_pending_ = 0

    def _steps(self, A: np.ndarray, y: np.ndarray, pred: np.ndarray, solved: bool) -> int:
        # the rows of A in calls that end at block boundaries
        n, b, k0 = A.shape[0], int(self.block), 0
        while k0 < n:
            p = min(b - self.n_pending_, n - k0)
            status = self._learn_rows(A, y, pred, k0, p, solved)
            if status != CholeskyStatus.OK:
                return status
            self.n_pending_ += p
            k0 += p
            if self.n_pending_ == b:
                self._fold()
        return CholeskyStatus.OK
