"""Dense linear algebra shared by the BLS learners (LAPACK/BLAS through NumPy and SciPy).

The explicit inverse of the inverse-based baselines (I-BLS, RI-BLS, BLS-CIL: the
``O(m³)`` step and the error of order ``u·κ(K)`` that the Online-BLS paper's eq. 26
bounds), an in-place rank-one update, the finite-weights check, and the Cholesky
factorisation of ``P + λI`` that Alg. 2 line 6 recomputes every sample. Failures are
raised as :class:`~streamlearn.base.UserError`. Registers no learner.
"""

from __future__ import annotations

import logging

import numpy as np
import scipy.linalg
from scipy.linalg import lapack
from scipy.linalg.blas import dger

from streamlearn.base import UserError

__all__ = [
    "INVERSE_IMPLS",
    "check_finite_weights",
    "cholesky_upper",
    "explicit_inverse",
    "rank_one_update",
]

logger = logging.getLogger(__name__)

INVERSE_IMPLS = ("numpy", "getri")


def explicit_inverse(M: np.ndarray, impl: str = "numpy") -> np.ndarray:
    """Explicit inverse of a square matrix through an LU factorisation.

    ``impl="numpy"`` is ``numpy.linalg.inv`` (LAPACK ``gesv`` against the identity; the
    default); ``impl="getri"`` is ``scipy.linalg.inv`` (``getrf`` + ``getri``, the
    textbook explicit inverse, about twice as fast at ``m = 1100``). Both are
    inverse-based in the sense of the Online-BLS paper's eq. 26. ``M`` is not modified.

    Raises
    ------
    UserError
        If LAPACK reports an exactly singular matrix.
    """
    try:
        if impl == "getri":
            return scipy.linalg.inv(M, check_finite=False)
        return np.linalg.inv(M)
    except (np.linalg.LinAlgError, ValueError) as exc:
        raise UserError(
            f"explicit inverse failed ({exc}); the regularised Gram matrix is numerically "
            "singular — an inverse-based BLS baseline cannot continue on this stream"
        ) from exc


def rank_one_update(M: np.ndarray, alpha: float, x: np.ndarray, y: np.ndarray) -> None:
    """In place ``M += alpha · x yᵀ`` for a C-contiguous ``M`` (BLAS ``dger``, no temporary)."""
    # M is C-contiguous, so M.T is Fortran-contiguous and dger can overwrite it in place:
    # M.T += alpha · y xᵀ  <=>  M += alpha · x yᵀ.
    out = dger(alpha, y, x, a=M.T, overwrite_a=1)
    if not np.may_share_memory(out, M):  # pragma: no cover - defensive (old SciPy)
        M[...] = out.T


def check_finite_weights(W: np.ndarray, name: str, k: int) -> None:
    """Raise a :class:`UserError` if an update produced non-finite weights."""
    if not np.isfinite(W).all():
        raise UserError(
            f"{name}: the output weights became non-finite at sample {k}; the method's "
            "inverse/pseudo-inverse update broke down on this stream"
        )


def cholesky_upper(
    P: np.ndarray, lam: float, who: str, max_retries: int = 16
) -> tuple[np.ndarray, int]:
    """Upper factor ``U`` of ``P + λI`` (LAPACK ``dpotrf``; only the upper triangle of
    the C-ordered ``P`` is read), retrying with ``λ·10^j``, ``j = 1, 2, …`` on failure;
    returns ``(U, retries)``. The paper has no rule for a failed ``Chol`` (Alg. 2 line 6);
    every retry is logged and counted, the method is never switched silently."""
    diag = np.arange(P.shape[0])
    for j in range(max_retries + 1):
        lam_j = lam * 10.0**j
        M = P.copy()
        M[diag, diag] += lam_j
        # M.T is an F-ordered view whose lower triangle is M's upper triangle; its lower
        # factor in F order is the upper factor U = Lᵀ in C order.
        L, info = lapack.dpotrf(M.T, lower=1, clean=1, overwrite_a=1)
        if info == 0:
            return np.ascontiguousarray(L.T), j
        logger.info(
            "%s: Cholesky of P + λI failed (info=%d) at λ=%g; retrying with λ=%g",
            who,
            info,
            lam_j,
            lam_j * 10.0,
        )
    raise UserError(f"{who}: Cholesky of P + λI failed even with λ·10^{max_retries}.")
