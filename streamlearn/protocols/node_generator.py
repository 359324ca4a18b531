"""The reference BLS node generator of the Ridge-BLS paper's experiments (spec §1.4).

Chen and Liu's public BLS code (ref. [16] of Zhu, "Two Ridge Solutions for the
Incremental Broad Learning System on Added Nodes", arXiv 1911.04872), which Sec. V of the
paper follows:

* inputs: each sample (row) z-scored across its pixels, then a bias column of 0.1;
* feature window of ``N1`` nodes (eq. 9): ``W ~ U[-1, 1]^{(d+1) × N1}``, ``Z_raw = X̃ W``
  with every *row* min-max scaled to ``[-1, 1]``; sparse-autoencoder fine tuning
  ``min ½‖Z_raw β - X̃‖² + λ_s‖β‖₁`` (50 ADMM iterations, penalty 1, ``λ_s = 10⁻³``);
  ``Z = X̃ βᵀ`` (linear φ) with every *node* (column) min-max scaled to ``[0, 1]`` on the
  training set;
* enhancement group of ``m`` nodes fed by feature nodes ``Z`` (eq. 11):
  ``V ~ U[-1, 1]^{(N_f+1) × m}`` orthonormalised (columns when ``N_f + 1 ≥ m``, else
  rows), ``T = [Z, 0.1] V``, ``H = tanh(T · s / max T)`` with shrinkage ``s = 0.8`` and
  the maximum over the training entries (tansig = tanh).

Draw order (spec §1.4): one ``numpy.random.Generator(PCG64(seed))`` per simulation; the
initial windows in order, then the initial enhancement group; each update draws its new
window(s), the enhancement group fed by them, then the additional enhancement group fed by
all feature nodes. The network after ``u`` updates therefore does not depend on how many
updates follow: growing by ``u`` increments and building at that size give the same
matrix (:meth:`BLSNodeGenerator.build`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import scipy.linalg
from scipy.linalg.blas import dgemm

__all__ = ["BLSNodeGenerator", "NodeSchedule", "RowBlockNodes", "row_zscore",
           "sparse_autoencoder"]

BIAS = 0.1
#: rows per block when the training nodes are computed (and later regenerated) in row
#: blocks (``rows=True``): the same boundaries both times, so a regenerated block equals
#: the block first handed out bit for bit
ROW_BLOCK = 2048


@dataclass(frozen=True)
class NodeSchedule:
    """Sizes of the initial network and of every update (spec §4.1, §4.2).

    MNIST (Tables II-III): ``windows=6, window_nodes=10, enhancement=3000, updates=11,
    update_windows=1, update_enhancement=750, update_additional=1250`` (25,170 nodes at
    the end). NORB: ``windows=100, enhancement=2000, updates=8, update_windows=0,
    update_enhancement=0, update_additional=1500``.
    """

    windows: int = 6
    window_nodes: int = 10
    enhancement: int = 3000
    updates: int = 11
    update_windows: int = 1
    update_enhancement: int = 750
    update_additional: int = 1250
    shrink: float = 0.8
    sparse_lam: float = 1e-3
    sparse_iters: int = 50

    @property
    def initial_nodes(self) -> int:
        return self.windows * self.window_nodes + self.enhancement

    @property
    def update_nodes(self) -> int:
        """Columns ``q`` added by one update."""
        return (self.update_windows * self.window_nodes
                + (self.update_enhancement if self.update_windows else 0)
                + self.update_additional)

    def nodes_after(self, u: int) -> int:
        """Nodes of the network after ``u`` updates."""
        return self.initial_nodes + u * self.update_nodes

    @property
    def max_nodes(self) -> int:
        return self.nodes_after(self.updates)

    def feature_nodes_after(self, u: int) -> int:
        return (self.windows + u * self.update_windows) * self.window_nodes

    def enhancement_nodes_after(self, u: int) -> int:
        return self.nodes_after(u) - self.feature_nodes_after(u)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def row_zscore(X: np.ndarray) -> np.ndarray:
    """Each row centred and divided by its sample SD (MATLAB ``zscore(X')'``); constant
    rows are only centred. Returns ``[X_z, 0.1]`` with the bias column appended."""
    mu = X.mean(axis=1, keepdims=True)
    sd = X.std(axis=1, ddof=1, keepdims=True)
    out = np.empty((X.shape[0], X.shape[1] + 1), order="C")
    np.divide(X - mu, np.where(sd > 0, sd, 1.0), out=out[:, :-1])
    out[:, -1] = BIAS
    return out


def _rows_to_unit(Z: np.ndarray) -> np.ndarray:
    """Every row min-max scaled to ``[-1, 1]`` (MATLAB ``mapminmax`` on ``l × N1``)."""
    lo = Z.min(axis=1, keepdims=True)
    span = Z.max(axis=1, keepdims=True) - lo
    return 2.0 * (Z - lo) / np.where(span > 0, span, 1.0) - 1.0


def _shrink(v: np.ndarray, kappa: float) -> np.ndarray:
    return np.maximum(v - kappa, 0.0) - np.maximum(-v - kappa, 0.0)


def sparse_autoencoder(Z: np.ndarray, X: np.ndarray, lam: float, iters: int) -> np.ndarray:
    """``β`` (``N1 × (d+1)``) of ``min ½‖Z β - X‖²_F + λ‖β‖₁`` by ADMM with penalty 1
    ([16]'s ``sparse_bls``): ``L1 = (ZᵀZ + I)⁻¹``, ``L2 = L1 Zᵀ X``; repeat
    ``c = L2 + L1 (o - u)``, ``o = soft(c + u, λ)``, ``u += c - o``."""
    m = Z.shape[1]
    L1 = np.linalg.inv(Z.T @ Z + np.eye(m))
    L2 = L1 @ (Z.T @ X)
    o = np.zeros_like(L2)
    u = np.zeros_like(L2)
    for _ in range(iters):
        c = L2 + L1 @ (o - u)
        o = _shrink(c + u, lam)
        u += c - o
    return o


def _orth(V: np.ndarray) -> np.ndarray:
    """MATLAB ``orth`` as [16] applies it: orthonormal columns when the matrix is tall,
    orthonormal rows (``orth(Vᵀ)ᵀ``) otherwise."""
    if V.shape[0] >= V.shape[1]:
        return scipy.linalg.orth(V)
    return scipy.linalg.orth(V.T).T


@dataclass
class _FeatureWindow:
    We: np.ndarray          # (d+1) × N1
    lo: np.ndarray          # per-node min on the training set
    span: np.ndarray        # per-node max - min

    def apply(self, Xb: np.ndarray) -> np.ndarray:
        return (Xb @ self.We - self.lo) / self.span


@dataclass
class _EnhancementGroup:
    sources: slice          # feature columns (of the generator's Z) it reads
    V: np.ndarray           # (N_f + 1) × m
    scale: float            # s / max T

    def apply(self, Z: np.ndarray) -> np.ndarray:
        Zs = Z[:, self.sources]
        T = Zs @ self.V[:-1] + BIAS * self.V[-1]
        T *= self.scale
        return np.tanh(T, out=T)


@dataclass
class _Block:
    """The groups one step (INIT or an update) created, in column order."""

    windows: list[_FeatureWindow] = field(default_factory=list)
    enhancement: list[_EnhancementGroup] = field(default_factory=list)


class BLSNodeGenerator:
    """Draws the BLS network of spec §1.4 block by block, on the training inputs, and maps
    other inputs (the test set) through the same nodes.

    Parameters
    ----------
    schedule
        Sizes of the initial network and the updates.
    seed
        Seed of the simulation's ``PCG64`` generator.

    Usage::

        gen = BLSNodeGenerator(schedule, seed)
        A0 = gen.next_block(X_train)      # initial network (l × k0)
        T0 = gen.transform_last(X_test)   # the same nodes on the test set
        H1 = gen.next_block(X_train)      # update 1 (l × q) ...
    """

    def __init__(self, schedule: NodeSchedule, seed: int, *, rows: bool = False) -> None:
        self.schedule = schedule
        self.seed = seed
        #: compute every enhancement group in row blocks of :data:`ROW_BLOCK`, so that
        #: :meth:`training_rows` can regenerate any rows of the training matrix exactly
        self.rows = rows
        self._rng = np.random.Generator(np.random.PCG64(seed))
        self._blocks: list[_Block] = []
        self._Xb: np.ndarray | None = None       # preprocessed training inputs
        self._Ztr: np.ndarray | None = None      # training feature nodes so far

    @property
    def steps(self) -> int:
        """Blocks drawn so far (1 = the initial network)."""
        return len(self._blocks)

    def _uniform(self, shape: tuple[int, int]) -> np.ndarray:
        return 2.0 * self._rng.random(shape) - 1.0

    def _new_window(self, Xb: np.ndarray) -> tuple[_FeatureWindow, np.ndarray]:
        s = self.schedule
        W = self._uniform((Xb.shape[1], s.window_nodes))
        Zraw = _rows_to_unit(Xb @ W)
        beta = sparse_autoencoder(Zraw, Xb, s.sparse_lam, s.sparse_iters)
        We = np.ascontiguousarray(beta.T)
        Z = Xb @ We
        lo = Z.min(axis=0)
        span = Z.max(axis=0) - lo
        span = np.where(span > 0, span, 1.0)
        Z -= lo
        Z /= span
        return _FeatureWindow(We, lo, span), Z

    def _new_enhancement(self, Z: np.ndarray, sources: slice, m: int
                         ) -> tuple[_EnhancementGroup, np.ndarray]:
        Zs = Z[:, sources]
        V = _orth(self._uniform((Zs.shape[1] + 1, m)))
        if self.rows:  # the same values, computed block by block (see ROW_BLOCK)
            tmax = max(float((Zs[b] @ V[:-1] + BIAS * V[-1]).max())
                       for b in _row_blocks(Zs.shape[0]))
            grp = _EnhancementGroup(sources, V, self.schedule.shrink / tmax if tmax > 0
                                    else 1.0)
            H = np.empty((Zs.shape[0], m))
            for b in _row_blocks(Zs.shape[0]):
                H[b] = grp.apply(Z[b])
            return grp, H
        T = Zs @ V[:-1] + BIAS * V[-1]
        tmax = float(T.max())
        scale = self.schedule.shrink / tmax if tmax > 0 else 1.0
        T *= scale
        np.tanh(T, out=T)
        return _EnhancementGroup(sources, V, scale), T

    def next_block(self, X: np.ndarray) -> np.ndarray:
        """The next block of training columns: the initial network on the first call
        (``[Z_1..Z_n | H]``, eq. 13), then one update's ``H = [Z_new | H_ex | H_add]``
        (eqs. 15/19). ``X`` must be the same training inputs on every call."""
        s = self.schedule
        if self._Xb is None:
            self._Xb = row_zscore(X)
            self._Ztr = np.zeros((X.shape[0], 0))
        Xb = self._Xb
        assert self._Ztr is not None
        first = not self._blocks
        if not first and len(self._blocks) > s.updates:
            raise ValueError(f"the schedule has only {s.updates} updates")
        block = _Block()
        cols: list[np.ndarray] = []
        n_windows = s.windows if first else s.update_windows
        f0 = self._Ztr.shape[1]
        new_Z = []
        for _ in range(n_windows):
            win, Z = self._new_window(Xb)
            block.windows.append(win)
            new_Z.append(Z)
        if new_Z:
            self._Ztr = np.hstack([self._Ztr, *new_Z])
            cols.extend(new_Z)
        f1 = self._Ztr.shape[1]
        if first:
            groups = [(slice(0, f1), s.enhancement)]
        else:
            groups = []
            if s.update_windows and s.update_enhancement:
                groups.append((slice(f0, f1), s.update_enhancement))
            if s.update_additional:
                groups.append((slice(0, f1), s.update_additional))
        for sources, m in groups:
            grp, H = self._new_enhancement(self._Ztr, sources, m)
            block.enhancement.append(grp)
            cols.append(H)
        self._blocks.append(block)
        return np.hstack(cols) if len(cols) > 1 else cols[0]

    def transform_block(self, X: np.ndarray, step: int, Z: np.ndarray) -> tuple[np.ndarray,
                                                                               np.ndarray]:
        """Columns of block ``step`` on other inputs ``X`` (preprocessed with
        :func:`row_zscore`), given their feature nodes ``Z`` of the earlier blocks.
        Returns ``(block, Z extended by this block's feature nodes)``."""
        block = self._blocks[step]
        cols = [w.apply(X) for w in block.windows]
        if cols:
            Z = np.hstack([Z, *cols])
        cols += [g.apply(Z) for g in block.enhancement]
        return (np.hstack(cols) if len(cols) > 1 else cols[0]), Z

    def training_rows(self, rows: slice, steps: int) -> np.ndarray:
        """Rows ``rows`` of the training matrix of the first ``steps`` blocks, regenerated
        from the stored feature nodes and enhancement groups (``rows=True`` only: then
        equal, bit for bit, to the columns :meth:`next_block` returned, when ``rows``
        is one of :func:`_row_blocks`' blocks)."""
        if not self.rows:
            raise ValueError("training_rows needs a generator made with rows=True")
        assert self._Ztr is not None
        Z = self._Ztr[rows]
        cols: list[np.ndarray] = []
        f = 0
        for block in self._blocks[:steps]:
            nf = len(block.windows) * self.schedule.window_nodes
            if nf:
                cols.append(Z[:, f:f + nf])
                f += nf
            cols += [g.apply(Z) for g in block.enhancement]
        return np.hstack(cols)

    def build(self, X: np.ndarray, updates: int) -> np.ndarray:
        """The whole training matrix after ``updates`` updates, drawn afresh from the seed
        (a new generator; this one is not advanced)."""
        gen = BLSNodeGenerator(self.schedule, self.seed)
        return np.hstack([gen.next_block(X) for _ in range(updates + 1)])


def _row_blocks(n: int) -> list[slice]:
    """The row blocks of ``n`` training rows (:data:`ROW_BLOCK` each, the last shorter)."""
    return [slice(i, min(i + ROW_BLOCK, n)) for i in range(0, n, ROW_BLOCK)]


class RowBlockNodes:
    """The training node matrix ``A`` (``l × k``, the first ``steps`` blocks) without
    holding it: every product regenerates ``A`` in row blocks of :data:`ROW_BLOCK` from
    the generator (issue 26: the ridge family needs only ``AᵀA`` and ``AᵀY``, the
    Greville family ``A D``). Supports what the node-incremental learners ask of ``A``:
    ``A.shape``, ``A.T @ X`` (``X`` an ``l × q`` array, or ``A`` itself: the Gram
    matrix) and ``A @ D``. Read-only by construction."""

    __array_ufunc__ = None  # numpy defers ``ndarray @ RowBlockNodes`` to us (refused)

    def __init__(self, gen: BLSNodeGenerator, steps: int, n_rows: int) -> None:
        self.gen = gen
        self.steps = steps
        self.shape = (n_rows, gen.schedule.nodes_after(steps - 1))
        self.ndim = 2

    def blocks(self) -> Any:
        """``(rows, A[rows])`` for every row block, in order."""
        for b in _row_blocks(self.shape[0]):
            yield b, self.gen.training_rows(b, self.steps)

    @property
    def T(self) -> _TransposedRowBlockNodes:
        return _TransposedRowBlockNodes(self)

    def __matmul__(self, D: np.ndarray) -> np.ndarray:
        """``A @ D`` (``l × q``), one row block at a time."""
        D = np.asarray(D)
        out = np.empty((self.shape[0], D.shape[1]))
        for b, Ab in self.blocks():
            np.matmul(Ab, D, out=out[b])
        return out


class _TransposedRowBlockNodes:
    """``Aᵀ`` of a :class:`RowBlockNodes`: ``Aᵀ X`` summed over row blocks."""

    __array_ufunc__ = None

    def __init__(self, A: RowBlockNodes) -> None:
        self.A = A
        self.shape = (A.shape[1], A.shape[0])

    def __matmul__(self, X: Any) -> np.ndarray:
        k = self.A.shape[1]
        gram = X is self.A
        if not gram:
            X = np.asarray(X)
            if X.shape[0] != self.A.shape[0]:
                raise ValueError(f"Aᵀ @ X: X has {X.shape[0]} rows, A {self.A.shape[0]}")
        out = np.zeros((k, k if gram else X.shape[1]), order="F")
        for b, Ab in self.A.blocks():  # out += Abᵀ op: BLAS gemm with beta = 1, in place
            At = Ab.T                    # Fortran k × rows
            if gram:
                dgemm(1.0, At, At, beta=1.0, c=out, trans_b=1, overwrite_c=1)
            else:
                Xb = X[b]
                if Xb.flags.c_contiguous:
                    dgemm(1.0, At, Xb.T, beta=1.0, c=out, trans_b=1, overwrite_c=1)
                else:
                    dgemm(1.0, At, np.asfortranarray(Xb), beta=1.0, c=out, overwrite_c=1)
        return out


class TestNodes:
    """Maps the test inputs through a generator's nodes, block by block."""

    __test__ = False  # not a pytest class

    def __init__(self, gen: BLSNodeGenerator, X: np.ndarray) -> None:
        self.gen = gen
        self.Xb = row_zscore(X)
        self.Z = np.zeros((X.shape[0], 0))

    def block(self, step: int) -> np.ndarray:
        out, self.Z = self.gen.transform_block(self.Xb, step, self.Z)
        return out
