"""Incremental randomized sketching and TISVD, the kernel-approximation layer of FORKS and
SkeGD.

Paper: Wen et al., *Fast Second-Order Online Kernel Learning Through Incremental Matrix
Sketching and Decomposition* (FORKS), Sec. 2.2, 3.2, 3.3 and App. B.1.

* :class:`IncrementalSketch` keeps the sketch-point store (each point with its CountSketch
  hash ``h`` and sign ``g``, SJLT with ``D = 1``), the fixed landmarks (column sampling
  ``S_m``), ``Phi_pm = S_p^T K S_m`` and ``Phi_pp = S_p^T K S_p`` (Eq. 3), initialised from
  the stage-1 buffer (Alg. 1 l.8-9) and updated by one point per update round (Eq. 11).
* :func:`tisvd` is Algorithm 2 (Eq. 6-9): the truncated incremental SVD of
  ``M + Delta_1 Delta_2^T`` from the rank-k SVD of ``M``.
* :func:`feature_matrix` is ``Z = Phi_pm^+ V Sigma^{1/2}`` of Eq. (5), so that
  ``phi(x) = Z^T m(x)``.
"""

from __future__ import annotations

import numpy as np

from streamlearn.algorithms.linalg import pinv, svd, sym_eigh
from streamlearn.kernels.forks_budget import (
    gauss_gram,
    gauss_matrix,
    gauss_row,
    scatter_add_rows,
    sketch_gram,
)

__all__ = ["SCATTER_MIN_WORK", "IncrementalSketch", "add_sketch_update", "feature_matrix",
           "tisvd", "top_k_eigh"]

#: ``s_p n^2`` from which ``S_p^T K S_p`` is formed by scatter-adds (below it the dense BLAS
#: product takes a few ms at most)
SCATTER_MIN_WORK = 10**8


def top_k_eigh(M: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-``k`` eigenpairs of a symmetric matrix, eigenvalues in descending order
    (Alg. 1 l.9 / spec Sec. 2.3 step 5)."""
    vals, vecs = sym_eigh(0.5 * (M + M.T))
    order = np.argsort(vals)[::-1][:k]
    return vals[order], np.ascontiguousarray(vecs[:, order])


def tisvd(U: np.ndarray, S: np.ndarray, V: np.ndarray, D1: np.ndarray, D2: np.ndarray,
          k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Truncated incremental SVD (FORKS Algorithm 2, Eq. 6-9).

    Given ``M ~ U diag(S) V^T`` (``U, V``: ``n x r`` orthonormal columns) and the update
    ``Delta_1 Delta_2^T`` (``n x c`` each), return the rank-``k`` SVD of
    ``U diag(S) V^T + Delta_1 Delta_2^T``:

    1. ``U_A = D1 - U (U^T D1)``, ``V_B = D2 - V (V^T D2)`` (never forming ``I - U U^T``);
    2. ``P, R_1 = qr(U_A)``, ``Q, R_2 = qr(V_B)`` (reduced);
    3. ``H = [[S, 0], [0, 0]] + [U^T D1; R_1] [V^T D2; R_2]^T`` (Eq. 8);
    4. ``H = U~ S~ V~^T``; keep the top ``k``; ``U <- [U P] U~_k``, ``V <- [V Q] V~_k``
       (Eq. 9).
    """
    UtD1 = U.T @ D1
    VtD2 = V.T @ D2
    UA = D1 - U @ UtD1
    VB = D2 - V @ VtD2
    # a second Gram-Schmidt pass ("twice is enough"): when D1 lies (nearly) in span(U),
    # U_A is round-off and one pass leaves P far from orthogonal to U
    c1, c2 = U.T @ UA, V.T @ VB
    UA -= U @ c1
    VB -= V @ c2
    UtD1 += c1
    VtD2 += c2
    P, R1 = np.linalg.qr(UA)
    Q, R2 = np.linalg.qr(VB)
    r = S.shape[0]
    c = R1.shape[0]  # min(n, columns of D1): a sketch of fewer rows than D1 has columns
    H = np.zeros((r + c, r + c))
    H[np.arange(r), np.arange(r)] = S
    H += np.vstack([UtD1, R1]) @ np.vstack([VtD2, R2]).T
    Ut, St, Vtt = svd(H)
    kk = min(k, St.shape[0])
    U_new = np.hstack([U, P]) @ Ut[:, :kk]
    V_new = np.hstack([V, Q]) @ Vtt[:kk].T
    return np.ascontiguousarray(U_new), St[:kk].copy(), np.ascontiguousarray(V_new)


def add_sketch_update(Phi_pp: np.ndarray, s: np.ndarray, a: np.ndarray, hn: int) -> None:
    """``Phi_pp += outer(s, a) + outer(a, s) + outer(s, s)`` (FORKS Eq. 11, the new point's
    sketch row ``s = g_n e_{h_n}``) in place, bit for bit, without the three ``s_p x s_p``
    temporaries: off row and column ``h_n`` the added term is ``(0 a_j + a_i 0) + 0 = +0``
    exactly (round to nearest: ``-0 + +0 = +0``), so those entries only become ``x + 0``;
    row and column ``h_n`` get the same three products and two additions as before.
    Non-finite ``a`` (``0 * inf`` is NaN everywhere) takes the dense formula."""
    if not np.all(np.isfinite(a)):
        Phi_pp += np.outer(s, a) + np.outer(a, s) + np.outer(s, s)
        return
    gn = s[hn]
    row = (gn * a + a[hn] * s) + gn * s  # (outer(s,a) + outer(a,s) + outer(s,s))[hn, :]
    col = (s * a[hn] + a * gn) + s * gn  # the same sum's column hn
    r_old = Phi_pp[hn].copy()
    c_old = Phi_pp[:, hn].copy()
    np.add(Phi_pp, 0.0, out=Phi_pp)
    Phi_pp[hn] = r_old + row
    Phi_pp[:, hn] = c_old + col


def feature_matrix(Phi_pm: np.ndarray, V: np.ndarray, S: np.ndarray) -> np.ndarray:
    """``Z = Phi_pm^+ V Sigma^{1/2}`` (FORKS Eq. 5; ``Sigma`` clamped at 0 first)."""
    return np.ascontiguousarray(pinv(Phi_pm) @ (V * np.sqrt(np.maximum(S, 0.0))))


class IncrementalSketch:
    """Sketch-point store, landmarks and the sketched matrices of FORKS (Sec. 2.2-2.4).

    Parameters
    ----------
    sp, sm
        SJLT sketch size and number of landmarks (``s_m = gamma s_p``).
    gamma
        Gaussian-kernel coefficient ``1 / (2 sigma^2)``.
    rng
        Generator for the hashes/signs and the landmark draw.
    keep_phi_pp
        Keep ``Phi_pp`` explicitly (needed by the exact-SVD variant and for checks).
    """

    def __init__(self, sp: int, sm: int, gamma: float, rng: np.random.Generator,
                 keep_phi_pp: bool = True) -> None:
        self.sp = int(sp)
        self.sm = int(sm)
        self.gamma = float(gamma)
        self.rng = rng
        self.keep_phi_pp = keep_phi_pp
        self.n = 0

    # ---- Alg. 1 l.8-9, spec Sec. 2.3 ----------------------------------------------------
    def init(self, P: np.ndarray, K: np.ndarray | None = None) -> None:
        """Initialise from the stage-1 buffer ``P`` (``B~ x d``); ``K``, if given, is its
        Gram matrix ``gauss_gram(P, gamma)`` (the caller vouches for the bits; it is
        otherwise computed here)."""
        P = np.ascontiguousarray(P, dtype=np.float64)
        nb, d = P.shape
        cap = max(2 * nb, 16)
        self.points = np.zeros((cap, d))
        self.points[:nb] = P
        self.h = np.zeros(cap, dtype=np.int64)
        self.g = np.zeros(cap)
        self.h[:nb] = self.rng.integers(0, self.sp, size=nb)
        self.g[:nb] = self.rng.choice(np.array([-1.0, 1.0]), size=nb)
        self.J = np.sort(self.rng.choice(nb, size=min(self.sm, nb), replace=False))
        self.landmarks = np.ascontiguousarray(P[self.J])
        self.n = nb
        # = gauss_matrix(P, P, gamma) bit for bit
        K0 = gauss_gram(P, self.gamma) if K is None else K
        self.Phi_pm = np.zeros((self.sp, self.J.shape[0]))
        # = np.add.at(Phi_pm, h, g[:, None] * K0[:, J])
        scatter_add_rows(self.Phi_pm, self.h[:nb], self.g[:nb], K0, self.J)
        self.Phi_pp = self._phi_pp_from(K0)

    def _phi_pp_from(self, K: np.ndarray) -> np.ndarray:
        """``S_p^T K S_p`` (Eq. 3). From ``SCATTER_MIN_WORK`` multiply-adds on, by
        scatter-adds in one fixed order (:func:`~streamlearn.kernels.forks_budget.sketch_gram`,
        ``O(n^2)``): the same bits on every CPU and BLAS, equal to NumPy's dense product on
        single-threaded OpenBLAS with the Haswell kernels for an even ``s_p`` (tested);
        the dense product, ``O(s_p n^2)``, was 35 of FORKS's 100 ms on 20,000 codrna rows
        at B = 500 where another BLAS kernel (SkylakeX) ran it. Below, the dense product."""
        n = K.shape[0]
        if self.sp * n * n >= SCATTER_MIN_WORK:
            return sketch_gram(K, self.h[:n], self.g[:n], self.sp)
        Sp = self.sketch_matrix(n)
        return Sp.T @ K @ Sp

    def sketch_matrix(self, n: int | None = None) -> np.ndarray:
        """The explicit ``S_p`` (``n x s_p``) of the first ``n`` stored points."""
        n = self.n if n is None else n
        Sp = np.zeros((n, self.sp))
        Sp[np.arange(n), self.h[:n]] = self.g[:n]
        return Sp

    # ---- Eq. (4), (11), (12), spec Sec. 2.4 ---------------------------------------------
    def insert(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Insert ``x``; update ``Phi_pm`` and ``Phi_pp`` by Eq. (11). Returns ``(s, a, m)``:
        the new point's sketch row, ``a = S_p^T psi`` and its landmark kernel values, from
        which ``Delta_1 = [s, a, s]``, ``Delta_2 = [a, s, kappa_xx s]`` (Eq. 12)."""
        n = self.n
        psi = np.empty(n)
        gauss_row(self.points, n, x, self.gamma, psi)
        a = np.bincount(self.h[:n], weights=self.g[:n] * psi, minlength=self.sp)
        hn = int(self.rng.integers(0, self.sp))
        gn = float(self.rng.choice(np.array([-1.0, 1.0])))
        s = np.zeros(self.sp)
        s[hn] = gn
        m = psi[self.J]
        # s_m^{(n+1)} = 0: the new point never becomes a landmark (spec Sec. 2.4 step 5)
        self.Phi_pm[hn] += gn * m
        if self.keep_phi_pp:
            add_sketch_update(self.Phi_pp, s, a, hn)
        if n == self.points.shape[0]:
            self._grow()
        self.points[n] = x
        self.h[n] = hn
        self.g[n] = gn
        self.n = n + 1
        return s, a, m

    def _grow(self) -> None:
        cap = 2 * self.points.shape[0]
        pts = np.zeros((cap, self.points.shape[1]))
        pts[: self.n] = self.points[: self.n]
        h = np.zeros(cap, dtype=np.int64)
        h[: self.n] = self.h[: self.n]
        g = np.zeros(cap)
        g[: self.n] = self.g[: self.n]
        self.points, self.h, self.g = pts, h, g

    def recompute(self) -> tuple[np.ndarray, np.ndarray]:
        """``(S_p^T K S_m, S_p^T K S_p)`` recomputed from the stored points (for checks)."""
        P = self.points[: self.n]
        K = gauss_matrix(P, P, self.gamma)
        Sp = self.sketch_matrix()
        Sm = np.zeros((self.n, self.J.shape[0]))
        Sm[self.J, np.arange(self.J.shape[0])] = 1.0
        return Sp.T @ K @ Sm, Sp.T @ K @ Sp
