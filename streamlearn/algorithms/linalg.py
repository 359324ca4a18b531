"""Dense linear algebra of the learners: thin wrappers on LAPACK and BLAS (through NumPy and
SciPy) that every family shares one home for. No learner state; registers no learner.

* Decompositions with a fallback driver (:func:`sym_eigh`, :func:`svd`, :func:`pinv`; the
  kernel learners). NumPy's ``eigh`` (LAPACK ``syevd``, divide and conquer) and ``svd``
  (``gesdd``) can report non-convergence on benign matrices with some LAPACK builds.
  Measured here: NumPy's OpenBLAS ``syevd`` fails on an 83 x 83 PROS-N-KONS dictionary Gram
  matrix (spambase, sigma = 2^6; eigenvalues 5.5e-5 ... 17.3), which ``syevr`` and ``syev``
  decompose with residual 4e-15; the run then died with "Eigenvalues did not converge".
  These wrappers call NumPy first, so results are unchanged wherever it converges, and only
  on its ``LinAlgError`` retry with SciPy's other drivers.
* Explicit inverse, rank-one update and the Cholesky factor of ``P + λI``
  (:func:`explicit_inverse`, :func:`rank_one_update`, :func:`cholesky_upper`; the BLS
  learners of the Online-BLS paper): the inverse-based baselines' ``O(m³)`` step, whose
  error of order ``u·κ(K)`` the paper's eq. 26 bounds, and the factorisation Alg. 2 line 6
  recomputes every sample. Failures are raised as :class:`~streamlearn.errors.UserError`.
* Inverse Cholesky factor and triangular/in-place products (:func:`ichol`,
  :func:`tri_mul`, :func:`tri_t_mul`, :func:`sub_product_inplace`; the Ridge-BLS learners
  on added nodes, eqs. 26, 34). A factorisation that loses positive definiteness raises
  :class:`NotPositiveDefinite`, the paper's "NA" event, which the learners record.
"""

from __future__ import annotations

import logging
import warnings

import numpy as np
import scipy.linalg
from scipy.linalg import lapack
from scipy.linalg.blas import dgemm, dger, dtrmm

from streamlearn.errors import UserError

__all__ = [
    "INVERSE_IMPLS",
    "NotPositiveDefinite",
    "cholesky_upper",
    "explicit_inverse",
    "ichol",
    "pinv",
    "rank_one_update",
    "sub_product_inplace",
    "svd",
    "sym_eigh",
    "tri_mul",
    "tri_t_mul",
]

logger = logging.getLogger(__name__)

INVERSE_IMPLS = ("numpy", "getri", "pinv")


# ---- decompositions with a fallback LAPACK driver ---------------------------------------


def sym_eigh(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (ascending) and eigenvectors of a symmetric matrix: ``numpy.linalg.eigh``,
    else ``scipy.linalg.eigh`` with the ``evr`` (MRRR) and then the ``ev`` (QR) driver."""
    try:
        return np.linalg.eigh(A)
    except np.linalg.LinAlgError:
        pass
    try:
        return scipy.linalg.eigh(A, driver="evr", check_finite=False)
    except (np.linalg.LinAlgError, ValueError):
        return scipy.linalg.eigh(A, driver="ev", check_finite=False)


def svd(A: np.ndarray, full_matrices: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``U, s, Vt`` of ``A``: ``numpy.linalg.svd`` (``gesdd``), else LAPACK ``gesvd``."""
    try:
        return np.linalg.svd(A, full_matrices=full_matrices)
    except np.linalg.LinAlgError:
        return scipy.linalg.svd(A, full_matrices=full_matrices, lapack_driver="gesvd",
                                check_finite=False)


def pinv(A: np.ndarray) -> np.ndarray:
    """SVD pseudo-inverse zeroing singular values below ``max(M, N) eps sigma_max``
    (the ``scipy.linalg.pinv`` default; FORKS spec Sec. 2.5)."""
    U, s, Vt = svd(A, full_matrices=False)
    if s.size == 0:
        return np.zeros((A.shape[1], A.shape[0]))
    cutoff = max(A.shape) * np.finfo(np.float64).eps * s[0]
    inv = np.where(s > cutoff, 1.0 / np.where(s > cutoff, s, 1.0), 0.0)
    return (Vt.T * inv) @ U.T


# ---- explicit inverse, rank-one update, Cholesky of P + λI (Online-BLS paper) -----------


def explicit_inverse(M: np.ndarray, impl: str = "numpy") -> np.ndarray:
    """Explicit inverse of a square matrix through an LU factorisation, or the truncated
    pseudo-inverse of a symmetric one.

    ``impl="numpy"`` is ``numpy.linalg.inv`` (LAPACK ``gesv`` against the identity; the
    default); ``impl="getri"`` is ``scipy.linalg.inv`` (``getrf`` + ``getri``, the
    textbook explicit inverse, about twice as fast at ``m = 1100``). Both are
    inverse-based in the sense of the Online-BLS paper's eq. 26. ``impl="pinv"`` is the
    pseudo-inverse with MATLAB's and PyTorch's default tolerance (``pinv(M)``,
    ``torch.linalg.pinv``): eigenvalues of magnitude below ``n · eps · max|λ_i|`` dropped
    (for a symmetric ``M`` its singular values are ``|λ_i|``; ``eigh``, about 1.7 times
    an inverse's time at ``m = 1100``): what an implementation that writes ``pinv`` for
    the inverse computes. ``M`` is not modified.

    Raises
    ------
    UserError
        If LAPACK reports an exactly singular matrix.
    """
    try:
        if impl == "pinv":
            ev, Q = sym_eigh(M)
            big = np.abs(ev) > M.shape[0] * np.finfo(M.dtype).eps * np.max(np.abs(ev))
            Qb = Q[:, big]
            return (Qb / ev[big]) @ Qb.T
        if impl == "getri":
            # SciPy warns (LinAlgWarning) at every ill-conditioned inverse: on raw MNIST
            # pixels, rcond ~1e-20 at every step, 70,000 warnings a run. Ill-conditioning
            # is what these baselines are kept to show (eq. 26), and numpy.linalg.inv
            # does not warn either, so neither path does.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)
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


def cholesky_upper(
    P: np.ndarray, lam: float, who: str, max_retries: int = 16,
    out: np.ndarray | None = None,
) -> tuple[np.ndarray, int]:
    """Upper factor ``U`` of ``P + λI`` (LAPACK ``dpotrf``; only the upper triangle of
    the C-ordered ``P`` is read), retrying with ``λ·10^j``, ``j = 1, 2, …`` on failure;
    returns ``(U, retries)``. The paper has no rule for a failed ``Chol`` (Alg. 2 line 6);
    every retry is logged and counted, the method is never switched silently.

    ``out``: a C-contiguous ``(m, m)`` array to factorise in (no allocation); then ``U`` is
    ``out``, and its strictly lower triangle is ``P``'s (not cleared)."""
    diag = np.arange(P.shape[0])
    for j in range(max_retries + 1):
        lam_j = lam * 10.0**j
        if out is None:
            M = P.copy()
        else:
            M = out
            np.copyto(M, P)
        M[diag, diag] += lam_j
        # M.T is an F-ordered view whose lower triangle is M's upper triangle; its lower
        # factor in F order is the upper factor U = Lᵀ in C order.
        L, info = lapack.dpotrf(M.T, lower=1, clean=int(out is None), overwrite_a=1)
        if info == 0:
            if out is not None:
                if not np.shares_memory(L, out):  # pragma: no cover - f2py copied
                    out[...] = L.T
                return out, j
            return np.ascontiguousarray(L.T), j
        logger.info(
            "%s: Cholesky of P + λI failed (info=%d) at λ=%g; retrying with λ=%g",
            who,
            info,
            lam_j,
            lam_j * 10.0,
        )
    raise UserError(f"{who}: Cholesky of P + λI failed even with λ·10^{max_retries}.")


# ---- inverse Cholesky factor and triangular products (Ridge-BLS paper) -------------------


class NotPositiveDefinite(Exception):
    """A matrix that must be Hermitian positive definite failed its Cholesky factorisation."""


def ichol(S: np.ndarray) -> np.ndarray:
    """Upper-triangular inverse Cholesky factor ``G`` with ``G Gᵀ = S⁻¹`` (eqs. 26, 34).

    ``S = L Lᵀ`` (lower Cholesky factor), so ``G = L⁻ᵀ``; computed with LAPACK ``potrf``
    and ``trtri``. Raises :class:`NotPositiveDefinite` when ``S`` is numerically not
    positive definite (or not finite): the paper's NA event.
    """
    if not np.all(np.isfinite(S)):
        raise NotPositiveDefinite("matrix has non-finite entries")
    try:
        U = scipy.linalg.cholesky(S, lower=False, check_finite=False)  # S = Uᵀ U
    except np.linalg.LinAlgError as exc:
        raise NotPositiveDefinite(str(exc)) from None
    # G = L^{-T} = (U^T)^{-T} = U^{-1}: upper triangular
    G, info = scipy.linalg.lapack.dtrtri(U, lower=0)
    if info != 0 or not np.all(np.isfinite(G)):
        raise NotPositiveDefinite(f"triangular inverse failed (info={info})")
    return np.ascontiguousarray(G)


def tri_mul(F: np.ndarray, B: np.ndarray, trans: bool = False) -> np.ndarray:
    """``F @ B`` (``trans``: ``Fᵀ @ B``) for an upper-triangular ``F`` (BLAS ``trmm``,
    half the flops of a general product)."""
    return dtrmm(1.0, F, B, side=0, lower=0, trans_a=int(trans), diag=0)


def tri_t_mul(F: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``Fᵀ @ B`` for an upper-triangular ``F``."""
    return tri_mul(F, B, trans=True)


def sub_product_inplace(C: np.ndarray, A: np.ndarray, B: np.ndarray,
                        trans_a: bool = False, trans_b: bool = False) -> None:
    """``C -= op(A) @ op(B)`` in place for a Fortran-contiguous ``C`` (BLAS ``gemm`` with
    ``beta = 1``; no temporary of ``C``'s size)."""
    if not C.flags.f_contiguous:
        raise ValueError("C must be Fortran-contiguous")
    dgemm(-1.0, A, B, beta=1.0, c=C, trans_a=int(trans_a), trans_b=int(trans_b),
          overwrite_c=1)
