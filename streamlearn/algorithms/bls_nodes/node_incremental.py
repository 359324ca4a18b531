"""Node-incremental learners: output weights of a broad network that grows by added nodes.

Interface and shared state of the six output-weight algorithms of the Ridge-BLS
paper (Zhu, "Two Ridge Solutions for the Incremental Broad Learning System on Added
Nodes", arXiv 1911.04872, Algorithms 2-10). A learner sees the expanded input matrix
``A`` (all feature and enhancement nodes, eq. 16) and, at each update, the block ``H`` of
new columns (``A_{k+q} = [A_k  H]``, eq. 17); it never draws nodes itself (the protocol
``incremental-nodes`` does, so every algorithm of a simulation shares one ``A``).

Life cycle (driven by :class:`streamlearn.protocols.incremental_nodes.IncrementalNodesProtocol`)::

    learner.reset(k_max, n_classes)          # capacity: the final number of nodes
    learner.initialize(A0, Y)                # Algorithm 1, row 12
    learner.update(A_k, H)  (repeatedly)     # rows 18 / 30; A_k = the nodes before H
    learner.decision(A_test)                 # A_test @ W

A factorisation that loses positive definiteness (Chol-1's eq. 42a, the paper's "NA")
sets ``failed_`` and ``failed_at_``; every later ``update`` is a no-op and ``decision``
returns ``None``. Nothing raises.

The shared linear algebra (inverse Cholesky factor, triangular and in-place products) is
in :mod:`streamlearn.algorithms.linalg`. Registers no learner.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

import numpy as np
import scipy.linalg

from streamlearn.algorithms.linalg import (
    NotPositiveDefinite,
    ichol,
    sub_product_inplace,
    tri_mul,
    tri_t_mul,
)
from streamlearn.base import Classifier
from streamlearn.params import Interval

__all__ = ["NodeIncrementalLearner"]

_T = TypeVar("_T")


def _gram(A: np.ndarray) -> np.ndarray:
    """``Aᵀ A`` (BLAS ``syrk`` would halve it; ``gemm`` keeps the result symmetric exactly)."""
    return A.T @ A


class NodeIncrementalLearner(Classifier):
    """Output weights ``W`` (``Y ≈ A W``, eq. 1) of a broad network that grows by added nodes.

    Subclasses implement :meth:`_initialize` and :meth:`_update` (one of the paper's
    INIT/UPDATE pairs) and keep ``W_`` (``k × c``) current. The node matrices are never
    modified. ``reset(n_features, n_classes)`` takes the *final* number of nodes as
    ``n_features`` so that state can be preallocated at its final size (spec pitfall 8).

    Parameters
    ----------
    lam
        Ridge parameter ``λ > 0`` of eq. (5) (the BLS default ``2⁻³⁰``).

    Attributes
    ----------
    W_
        Output weights of the current network (``k × c``).
    k_
        Current number of nodes.
    n_updates_
        Updates applied so far (0 after :meth:`initialize`).
    failed_at_
        Update index at which a factorisation failed (``-1``: never; ``0``: INIT).
    """

    tags: ClassVar[frozenset[str]] = frozenset({"grows_on_split"})
    _constraints: ClassVar[dict[str, Any]] = {"lam": Interval(0.0, None, closed="neither")}
    #: the equivalence class of spec §2.7: "ridge" or "generalized-inverse"
    solution: ClassVar[str] = "ridge"
    #: display name used by the paper's tables
    paper_name: ClassVar[str] = ""

    def __init__(self, *, lam: float = 2.0 ** -30) -> None:
        self.lam = lam
        self._validate_params()

    # ------------------------------------------------------------------ life cycle

    def reset(self, n_features: int, n_classes: int | None) -> None:
        self.k_max_ = int(n_features)
        self.n_classes_ = int(n_classes or 2)
        self.k_ = 0
        self.n_updates_ = 0
        self.failed_at_ = -1
        self.ill_conditioned_solves_ = 0
        self.W_ = np.zeros((0, self.n_classes_))
        self._Y: np.ndarray | None = None

    def _lapack(self, func: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        """``func(*args, **kwargs)`` (a SciPy solve or inverse) with SciPy's
        ``LinAlgWarning`` for an ill-conditioned matrix counted in
        ``ill_conditioned_solves_`` instead of printed: at tiny λ the regularised matrices
        are numerically singular by design (spec pitfall 5), and the accuracy is what the
        paper reports."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", scipy.linalg.LinAlgWarning)
            out = func(*args, **kwargs)
        self.ill_conditioned_solves_ += sum(
            issubclass(w.category, scipy.linalg.LinAlgWarning) for w in caught)
        for w in caught:  # anything else is re-issued
            if not issubclass(w.category, scipy.linalg.LinAlgWarning):
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return out

    @property
    def failed(self) -> bool:
        return self.failed_at_ >= 0

    def initialize(self, A: np.ndarray, Y: np.ndarray) -> None:
        """Output weights of the initial network ``A`` (``l × k``) for targets ``Y``
        (``l × c``, one-hot); Algorithm 1, row 12."""
        if A.shape[1] > self.k_max_:
            raise ValueError(f"{A.shape[1]} nodes exceed the capacity {self.k_max_}")
        self._Y = Y
        self.k_ = A.shape[1]
        try:
            self._initialize(A, Y)
        except NotPositiveDefinite:
            self._fail()

    def update(self, A: np.ndarray, H: np.ndarray) -> None:
        """Add the nodes ``H`` (``l × q``) to the network ``A`` (``l × k``, the nodes before
        the update); Algorithm 1, rows 18/30. A no-op after a failure."""
        self.n_updates_ += 1
        if self.failed:
            return
        if A.shape[1] != self.k_:
            raise ValueError(f"A has {A.shape[1]} columns; the learner holds {self.k_} nodes")
        if self.k_ + H.shape[1] > self.k_max_:
            raise ValueError(f"{self.k_ + H.shape[1]} nodes exceed the capacity {self.k_max_}")
        try:
            self._update(A, H)
        except NotPositiveDefinite:
            self._fail()
            return
        self.k_ += H.shape[1]

    def decision(self, A_test: np.ndarray) -> np.ndarray | None:
        """``A_test W`` (``None`` after a failure)."""
        if self.failed:
            return None
        return A_test[:, : self.k_] @ self.W_

    def predict_many(self, A_test: np.ndarray) -> np.ndarray | None:
        """Class = argmax of ``A_test W`` per row (``None`` after a failure)."""
        out = self.decision(A_test)
        return None if out is None else np.argmax(out, axis=1)

    def _fail(self) -> None:
        self.failed_at_ = self.n_updates_
        self.W_ = np.full_like(self.W_, np.nan)

    # ------------------------------------------------------------------ to implement

    def _initialize(self, A: np.ndarray, Y: np.ndarray) -> None:
        raise NotImplementedError

    def _update(self, A: np.ndarray, H: np.ndarray) -> None:
        raise NotImplementedError

    @classmethod
    def state_bytes(cls, n_train: int, k_max: int, n_classes: int, *,
                    k0: int | None = None, q: int | None = None) -> int:
        """Bytes of the state and the largest transient of one update at the final size
        (float64), excluding the node matrices the protocol holds; with the initial
        number of nodes ``k0`` and the nodes per update ``q``, the transients of INIT and
        of an update at ``k_max`` are counted exactly, else bounded."""
        raise NotImplementedError

    @classmethod
    def _test_params(cls) -> Any:
        yield {"lam": 1e-3}

    # the prequential interface does not apply (tag ``grows_on_split``)
    def predict_one(self, x: np.ndarray) -> Any:
        raise TypeError(f"{type(self).__name__} grows on a fixed split; use the "
                        "'incremental-nodes' protocol")

    def learn_one(self, x: np.ndarray, y: Any) -> None:
        raise TypeError(f"{type(self).__name__} grows on a fixed split; use the "
                        "'incremental-nodes' protocol")


# ---------------------------------------------------------------------- shared families


class _InverseCholeskyLearner(NodeIncrementalLearner):
    """State of the inverse-Cholesky family (Exg-E, Chol-1, Chol-2): the upper-triangular
    ``F`` with ``F Fᵀ = (Aᵀ A + λ I)⁻¹`` (eqs. 26/34), preallocated at ``k_max × k_max``,
    and ``Aᵀ Y`` (spec pitfall 6)."""

    def reset(self, n_features: int, n_classes: int | None) -> None:
        super().reset(n_features, n_classes)
        self._F = np.zeros((0, 0))
        self._AtY = np.zeros((0, self.n_classes_))

    def _initialize(self, A: np.ndarray, Y: np.ndarray) -> None:
        """Algorithms 4/6: ``F = ichol(Aᵀ A + λ I)`` (26)/(34); ``W = F Fᵀ Aᵀ Y`` (28)/(49)."""
        k = A.shape[1]
        self._F = np.zeros((self.k_max_, self.k_max_), order="F")
        self._AtY = np.zeros((self.k_max_, self.n_classes_), order="F")
        M = _gram(A)
        M[np.diag_indices(k)] += self.lam
        self._F[:k, :k] = ichol(M)
        del M
        self._AtY[:k] = A.T @ Y
        self.W_ = tri_mul(self.F, tri_t_mul(self.F, self._AtY[:k]))

    @property
    def F(self) -> np.ndarray:
        """The current inverse Cholesky factor ``F_k`` (a view)."""
        return self._F[: self.k_, : self.k_]

    def _append(self, T: np.ndarray, G: np.ndarray, b: np.ndarray) -> None:
        """``F_{k+q} = [[F_k, T], [0, G]]`` (31)/(41); ``W_{k+q} = [W_k + T b; G b]``
        (33)/(50)/(61)."""
        k, q = self.k_, G.shape[0]
        self._F[:k, k:k + q] = T
        self._F[k:k + q, k:k + q] = G
        self.W_ = np.vstack([self.W_ + T @ b, G @ b])

    @classmethod
    def state_bytes(cls, n_train: int, k_max: int, n_classes: int, *,
                    k0: int | None = None, q: int | None = None) -> int:
        # F (k_max²) and, at INIT, the Gram matrix and its factor (2 k0²) — bounded by
        # 2 k_max²; an update holds C (l × q) and three k × q blocks (Aᵀ H, E or D, T).
        if k0 is None or q is None:
            return 8 * (2 * k_max * k_max + 2 * k_max * n_classes)
        return 8 * (k_max * k_max + 2 * k_max * n_classes
                    + max(2 * k0 * k0, n_train * q + 3 * k_max * q))


class _GrevilleLearner(NodeIncrementalLearner):
    """State of the Greville family (Orig., R-Inv): the explicit ``k × l`` matrix ``P``
    (``A⁺`` approximated, or the ridge inverse ``A‡``), stored transposed as a Fortran
    ``l × k_max`` array so that ``P_k - D Bᵀ`` (20)/(64) is one in-place ``gemm``."""

    def reset(self, n_features: int, n_classes: int | None) -> None:
        super().reset(n_features, n_classes)
        self._Pt = np.zeros((0, 0), order="F")

    def _initialize(self, A: np.ndarray, Y: np.ndarray) -> None:
        """Algorithms 2/9: ``P = (λ I + Aᵀ A)⁻¹ Aᵀ`` (8)/(7); ``W = P Y`` (2)/(6)."""
        n, k = A.shape
        M = _gram(A)
        M[np.diag_indices(k)] += self.lam
        self._Pt = np.zeros((n, self.k_max_), order="F")
        # as the paper's INIT (73): the k × k inverse through LU (getrf/getri; Cholesky is
        # unreliable at λ = 2⁻³⁰, spec pitfall 5), then Pᵀ = A M⁻ᵀ (one gemm, BLAS-3; a
        # solve with l right-hand sides would run LAPACK's level-2 substitutions)
        Minv = self._lapack(scipy.linalg.inv, M, check_finite=False)
        del M
        self._Pt[:, :k] = A @ Minv.T
        self.W_ = self.P @ Y

    @property
    def P(self) -> np.ndarray:
        """The current ``P_k`` (``k × l``, a transposed view)."""
        return self._Pt[:, : self.k_].T

    def _greville_step(self, A: np.ndarray, H: np.ndarray, ridge: bool) -> None:
        """One update of Algorithm 3 (``ridge=False``: (23), (22), (21a), (20), (24)) or
        Algorithm 10 (``ridge=True``: (67), (52), (68), (64), (66))."""
        k, q = self.k_, H.shape[1]
        Pk = self._Pt[:, :k]                      # l × k, Fortran: P_kᵀ
        D = Pk.T @ H                              # (23)/(67)  k × q
        C = H - A @ D                             # (22)/(52)  l × q
        if not ridge and not np.any(C):
            # (21b): C = 0 (H in the column space of A_k; never happens in floating point)
            M = D.T @ D
            M[np.diag_indices(q)] += 1.0
            Bt = self._lapack(scipy.linalg.solve, M, D.T @ Pk.T, assume_a="pos",
                             check_finite=False)
            self._finish_greville(Pk, D, Bt)
            return
        M = C.T @ C
        if ridge:
            M += self.lam * (D.T @ D)             # (68): the λ DᵀD term
        M[np.diag_indices(q)] += self.lam
        try:
            Bt = self._lapack(scipy.linalg.solve, M, C.T, assume_a="pos",
                             check_finite=False)  # q × l
        except np.linalg.LinAlgError:
            Bt = self._lapack(scipy.linalg.solve, M, C.T, assume_a="sym",
                             check_finite=False)
        self._finish_greville(Pk, D, Bt)

    def _finish_greville(self, Pk: np.ndarray, D: np.ndarray, Bt: np.ndarray) -> None:
        k, q = self.k_, Bt.shape[0]
        BtY = Bt @ self._Y                        # q × c
        sub_product_inplace(Pk, Bt, D, trans_a=True, trans_b=True)  # Pᵀ -= Btᵀ Dᵀ (20)/(64)
        self._Pt[:, k:k + q] = Bt.T
        self.W_ = np.vstack([self.W_ - D @ BtY, BtY])              # (24)/(66)

    @classmethod
    def state_bytes(cls, n_train: int, k_max: int, n_classes: int, *,
                    k0: int | None = None, q: int | None = None) -> int:
        # Pᵀ (l × k_max) plus INIT's product A M⁻ᵀ (l × k0) with the Gram matrix and its
        # inverse (2 k0²) — bounded by l × k_max + k_max² — or an update's A D, C, Bᵀ and
        # the solver's copy of Cᵀ (4 l × q) and D (k × q).
        if k0 is None or q is None:
            return 8 * (2 * n_train * k_max + k_max * k_max)
        return 8 * (n_train * k_max
                    + max(n_train * k0 + 2 * k0 * k0, 4 * n_train * q + k_max * q))
