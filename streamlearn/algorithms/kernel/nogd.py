"""Nyström Online Gradient Descent (NOGD), a baseline of the FORKS paper's Table 1: kernel
OGD until the budget is full, then OGD on a Nyström embedding of the SVs, as the Lu & Hoi
toolbox implements it (``NysGD.m``; spec Sec. 8.7), with the C++ toolbox's variants as
options (spec Sec. 9 pitfall 18).

Paper: Wen et al., *Fast Second-Order Online Kernel Learning Through Incremental Matrix
Sketching and Decomposition* (FORKS), Sec. 5.1, Table 1.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np

from streamlearn.algorithms.kernel.kernel_budget import KernelBinaryClassifier
from streamlearn.algorithms.linalg import pinv, sym_eigh
from streamlearn.kernels.forks_budget import dloss, gauss_matrix
from streamlearn.params import Interval, Options
from streamlearn.registry import register_algorithm

__all__ = ["NOGD"]


@register_algorithm("nogd")
class NOGD(KernelBinaryClassifier):
    """Nyström Online Gradient Descent (Lu et al. 2016; toolbox ``NysGD.m``; spec
    Sec. 8.7): kernel OGD until ``B`` SVs; at the first margin error with a full budget,
    the top-``k`` eigenpairs of ``K(SV, SV)`` give ``M = Lambda^{-1/2} V^T`` and the model
    is transferred, ``w = (a^T M^+)^T``; then OGD on ``M k(x)``.

    The defaults are the spec's NOGD (MATLAB toolbox). ``start``, ``eig_order`` and
    ``switch_on`` select the toolbox variants of spec Sec. 9 pitfall 18 (C++ toolbox),
    for measuring how much each one moves the results; they are not the FORKS setting.

    Parameters
    ----------
    eta
        Step size (0.2).
    k_ratio
        Rank ``k = round(k_ratio B)`` (0.1 in FORKS).
    start
        Model at the switch: ``"transfer"`` (``w = (a^T M^+)^T``, [T-M], spec Sec. 8.7)
        or ``"zero"`` (``w = 0``, the C++ toolbox [T-C], pitfall 18); the first linear
        step follows either way.
    eig_order
        Which ``k`` eigenpairs of ``K(SV, SV)`` build ``M``: ``"largest"`` (the top ``k``,
        as MATLAB ``eigs``; spec Sec. 8.7), ``"unsorted"`` (the first ``k`` in the order a
        general unsymmetric eigensolver returns them, LAPACK ``dgeev`` via
        ``np.linalg.eig``, real parts: emulates the C++ toolbox's unsorted Eigen
        ``EigenSolver``, pitfall 18) or ``"smallest"`` (the ``k`` smallest: the worst
        case of an unsorted solver). The guard of Sec. 8.7 (drop ``lambda <= 1e-12
        lambda_max``, ``lambda_max`` the largest eigenvalue of ``K``) applies to all three.
    switch_on
        When the Nyström stage starts: ``"error"`` (at the first margin error while
        ``|SV| = B``, the toolbox ``NysGD.m``; spec Sec. 8.7) or ``"full"`` (right after
        the ``B``-th SV is appended, in the same round; no linear step in that round).

    References
    ----------
    [^1]: J. Lu, S. C. H. Hoi, J. Wang, P. Zhao, Z.-Y. Liu. Large scale online kernel
          learning. JMLR 17, 2016.
    """

    _constraints: ClassVar[dict[str, Any]] = {
        **KernelBinaryClassifier._constraints,
        "eta": Interval(0.0, None, closed="neither"),
        "k_ratio": Interval(0.0, None, closed="neither"),
        "start": Options(("transfer", "zero")),
        "eig_order": Options(("largest", "unsorted", "smallest")),
        "switch_on": Options(("error", "full")),
    }

    def __init__(self, *, eta: float = 0.2, k_ratio: float = 0.1, start: str = "transfer",
                 eig_order: str = "largest", switch_on: str = "error",
                 **kwargs: Any) -> None:
        self.eta = eta
        self.k_ratio = k_ratio
        self.start = start
        self.eig_order = eig_order
        self.switch_on = switch_on
        super().__init__(**kwargs)

    def _init_state(self, d: int) -> None:
        self._sv_alloc(int(self.budget), d)
        self.linear_ = False

    def _score(self, x: np.ndarray) -> float:
        f = self._sv_score(x)
        if self.linear_:
            self._z = self.M_ @ self._krow[: self.n_sv_]
            return float(self._z @ self.w_)
        return f

    def _update(self, x: np.ndarray, y: float, f: float) -> None:
        dl = dloss(f, y, self.loss_code_)
        if dl == 0.0:
            return
        if self.linear_:
            self.w_ -= self.eta * dl * self._z
            return
        if self.n_sv_ < self.budget:
            self._sv_append(x, -self.eta * dl)
            if self.switch_on == "full" and self.n_sv_ == self.budget:
                self._switch()
            return
        # switch to the Nystrom stage (the kernel row of x is still in _krow)
        self._switch()
        self._z = self.M_ @ self._krow[: self.n_sv_]
        self.w_ -= self.eta * dl * self._z

    def _eigenpairs(self, K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` eigenpairs of ``K`` that ``eig_order`` selects, after the guard."""
        k = max(1, round(self.k_ratio * self.budget))
        if self.eig_order == "unsorted":
            cvals, cvecs = np.linalg.eig(K)
            top = float(np.max(cvals.real))
            vals, vecs = cvals.real[:k], cvecs.real[:, :k]
        else:
            vals, vecs = sym_eigh(K)
            top = float(vals.max())
            order = (np.argsort(vals)[::-1] if self.eig_order == "largest"
                     else np.argsort(vals))[:k]
            vals, vecs = vals[order], vecs[:, order]
        keep = vals > 1e-12 * top
        return vals[keep], vecs[:, keep]

    def _switch(self) -> None:
        """Build ``M`` from ``K(SV, SV)`` and start the linear model (``start``)."""
        K = gauss_matrix(self.sv_, self.sv_, self.gamma_)
        vals, vecs = self._eigenpairs(0.5 * (K + K.T))
        self.eigvals_ = vals
        self.M_ = np.ascontiguousarray((vecs / np.sqrt(vals)).T)
        if self.start == "zero":
            self.w_ = np.zeros(self.M_.shape[0])
        else:
            self.w_ = pinv(self.M_).T @ self.coef_
        self.linear_ = True

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield {"sigma": 2.0, "budget": 20, "seed": 0, "k_ratio": 0.2}
