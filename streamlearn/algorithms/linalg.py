"""Dense decompositions with a fallback LAPACK driver.

NumPy's ``eigh`` (LAPACK ``syevd``, divide and conquer) and ``svd`` (``gesdd``) can report
non-convergence on benign matrices with some LAPACK builds. Measured here: NumPy's OpenBLAS
``syevd`` fails on an 83 x 83 PROS-N-KONS dictionary Gram matrix (spambase, sigma = 2^6;
eigenvalues 5.5e-5 ... 17.3), which ``syevr`` and ``syev`` decompose with residual 4e-15;
the run then died with "Eigenvalues did not converge". These wrappers call NumPy first,
so results are unchanged wherever it converges, and only on its ``LinAlgError`` retry with
SciPy's other drivers.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

__all__ = ["svd", "sym_eigh"]


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
