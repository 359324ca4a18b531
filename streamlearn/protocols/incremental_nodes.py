"""The ``incremental-nodes`` protocol: a broad network grown by added nodes on a fixed
train/test split (Ridge-BLS paper, Zhu, arXiv 1911.04872, Algorithm 1 and Sec. V).

Not prequential: the training set is fixed and the *network* grows. One run = one
simulation of one output-weight algorithm at one ``λ``:

1. the shared preparation (:func:`~streamlearn.protocols.preparation.prepare_stream`,
   :meth:`IncrementalNodesProtocol.preparation`) — the official train/test split of the
   dataset (MNIST 60,000 / 10,000; small NORB 24,300 / 24,300), or the last ``n_test``
   rows of a stream without one; a stream ``max_samples`` caps both parts (smoke runs);
2. the node generator (:mod:`streamlearn.protocols.node_generator`, seeded by the run seed, so
   every algorithm of a simulation sees the same ``A`` and ``H`` blocks) draws the
   initial network, the learner initialises on it (Algorithm 1, row 12), then every update
   draws ``H`` and the learner adds it (rows 18/30);
3. after INIT and after every update: test accuracy (NA — NaN — after a failed
   factorisation, for that update and every later one), the step's training time (node
   generation + weight update) and the weight update alone, cumulative times, and the
   peak memory traced during the step.

A user's node learner is first grown twice on a small network of the same node types
over the run's first rows, and once more after the run; the copies must predict alike
(:meth:`IncrementalNodesProtocol.warm_up`), or the run fails: state kept outside the
instance would make its numbers depend on the runs before it in the process.

Before a run the memory the configuration needs is estimated (:meth:`memory_need`); a
configuration that does not fit the machine stops with a message naming the size and the
scaled configuration to use.

Registers the protocol and its metrics ``update_accuracy`` (after each update; final = the
last), ``max_update_accuracy`` (max over updates, ignoring NA: Fig. 1) and
``initial_accuracy`` (the INIT network: λ calibration).
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from streamlearn.base import (
    Learner,
    LearnerTag,
    MetricContext,
    PreparedData,
    Protocol,
    RunContext,
    RunResult,
)
from streamlearn.errors import UserError
from streamlearn.params import Interval, Options
from streamlearn.protocols.node_generator import (
    BLSNodeGenerator,
    NodeSchedule,
    RowBlockNodes,
    TestNodes,
)
from streamlearn.protocols.preparation import Preparation, derive_seeds, prepare_stream
from streamlearn.protocols.prequential_loop import checked_predictions, read_only
from streamlearn.protocols.scoring import score_curves
from streamlearn.protocols.user_learner_checks import (
    CHECK_ROWS,
    CHECK_SEED,
    check_user_node_learner,
    is_library_learner,
)
from streamlearn.registry import register_protocol

__all__ = ["IncrementalNodesProtocol"]

#: the documented scaled MNIST default (spec §4.4), named in the out-of-memory message
SCALED_CONFIG = "configs/ridge_bls/mnist_tables.yaml"


def _bytes(n: float, apart_from: float | None = None) -> str:
    """``n`` bytes in GiB (one decimal) or MiB; with ``apart_from``, with as many more
    decimals as it takes to print them apart (a need of 12.01 GiB against a limit of 12:
    "12.01 GiB", not "12.0 GiB ... more than the limit of 12.0 GiB")."""
    unit, scale, d = ("GiB", 2**30, 1) if n >= 2**30 else ("MiB", 2**20, 0)
    text = f"{n / scale:.{d}f} {unit}"
    while apart_from is not None and apart_from != n and d < 6 and \
            text == f"{apart_from / scale:.{d}f} {unit}":
        d += 1
        text = f"{n / scale:.{d}f} {unit}"
    return text


#: ``node_matrix: auto`` holds the node matrix whole when the run then needs at most this
#: many GiB (whatever the machine): every committed record resolves as it did (largest held
#: 17.0 GiB, smallest in row blocks 21.2 GiB); a machine whose limit is lower refuses with
#: the remedy instead of switching storage, whose roundings differ
AUTO_HELD_GIB = 18.0

#: the largest network the reproducibility check of a user's node learner grows (on the
#: run's first :data:`CHECK_ROWS` rows): every node type the run's network has, small
CHECK_NETWORK = {"windows": 2, "window_nodes": 5, "enhancement": 40, "updates": 2,
                 "update_windows": 1, "update_enhancement": 10, "update_additional": 10}


@dataclass
class _Growth:
    """What one growth of the network measured, step by step (INIT = step 0)."""

    mode: str
    node_matrix_bytes: int
    accuracy: np.ndarray
    t_nodes: np.ndarray
    t_update: np.ndarray
    t_test: np.ndarray
    peak: np.ndarray
    state: np.ndarray
    failed: np.ndarray
    predictions: list[np.ndarray] = field(default_factory=list)


# --------------------------------------------------------------------------- protocol


@register_protocol("incremental-nodes")
class IncrementalNodesProtocol(Protocol):
    """Grow a BLS network by added nodes on a fixed train/test split (Ridge-BLS paper,
    Algorithm 1); score the test set after INIT and after every update.

    Parameters (the network of spec §4.1; MNIST defaults, NORB in its config)
    ----------
    windows, window_nodes, enhancement
        Initial network: feature windows × nodes per window, enhancement nodes.
    updates
        Number of updates.
    update_windows, update_enhancement, update_additional
        Per update: new feature windows, enhancement nodes fed by them, and additional
        enhancement nodes fed by all feature nodes.
    shrink, sparse_lam, sparse_iters
        Enhancement shrinkage ``s``; sparse-autoencoder ``λ_s`` and ADMM iterations.
    split, n_test
        ``official`` train/test parts, or ``holdout`` of the last ``n_test`` rows.
    node_matrix
        ``memory``: the training node matrix ``A`` is held whole (``l × k_max``);
        ``rows``: it is never held — the generator computes every block in row blocks and
        regenerates ``A``'s rows whenever a learner multiplies by ``A`` or ``Aᵀ``
        (:class:`~streamlearn.protocols.node_generator.RowBlockNodes`), so the run needs
        the learner's state (``k × k`` for the ridge family) plus ``l × q`` blocks, not
        ``l × k_max``; ``auto`` (default): ``memory`` when the held run needs at most
        :data:`AUTO_HELD_GIB`, else ``rows`` — by size, never by the machine, so one
        configuration computes the same bits everywhere.
    memory_limit_gib
        Refuse a configuration whose estimated peak exceeds this (default: 90 % of RAM).
    """

    task = "classification"
    default_metrics = ("update_accuracy", "max_update_accuracy", "initial_accuracy")
    default_curve_metric = "update_accuracy"
    requires_tags = frozenset({"grows_on_split"})
    introduces_tags: ClassVar[dict[str, LearnerTag]] = {
        "grows_on_split": LearnerTag(
            "grows its structure on a fixed train/test split, not prequentially",
            refusal="it grows on a fixed train/test split; use a split protocol",
            checks="streamlearn.checks.node_learners:yield_node_checks"),
    }
    provides = frozenset({"update_accuracy"})
    time_per_sample: ClassVar[str] = ("training time (node generation + weight updates) "
                                      "per training sample")
    _constraints: ClassVar[dict[str, Any]] = {
        "windows": Interval(1, None, integer=True),
        "window_nodes": Interval(1, None, integer=True),
        "enhancement": Interval(1, None, integer=True),
        "updates": Interval(0, 1000, integer=True),
        "update_windows": Interval(0, None, integer=True),
        "update_enhancement": Interval(0, None, integer=True),
        "update_additional": Interval(0, None, integer=True),
        "shrink": Interval(0.0, None, closed="neither"),
        "sparse_lam": Interval(0.0, None),
        "sparse_iters": Interval(0, None, integer=True),
        "split": Options(("official", "holdout")),
        "n_test": Interval(1, None, integer=True),
        "node_matrix": Options(("auto", "memory", "rows")),
        "memory_limit_gib": Interval(0.0, None, closed="neither", allow_none=True),
    }

    def __init__(self, *, windows: int = 6, window_nodes: int = 10, enhancement: int = 3000,
                 updates: int = 11, update_windows: int = 1, update_enhancement: int = 750,
                 update_additional: int = 1250, shrink: float = 0.8, sparse_lam: float = 1e-3,
                 sparse_iters: int = 50, split: str = "official", n_test: int = 10000,
                 node_matrix: str = "auto", memory_limit_gib: float | None = None) -> None:
        self.windows = windows
        self.window_nodes = window_nodes
        self.enhancement = enhancement
        self.updates = updates
        self.update_windows = update_windows
        self.update_enhancement = update_enhancement
        self.update_additional = update_additional
        self.shrink = shrink
        self.sparse_lam = sparse_lam
        self.sparse_iters = sparse_iters
        self.split = split
        self.n_test = n_test
        self.node_matrix = node_matrix
        self.memory_limit_gib = memory_limit_gib
        self._validate_params()
        if updates > 0 and update_enhancement and not update_windows:
            raise UserError(
                f"The 'incremental-nodes' protocol draws an update's {update_enhancement} "
                "enhancement nodes (update_enhancement) from the feature windows the update "
                "adds, and update_windows is 0: set update_windows >= 1, or "
                "update_enhancement: 0 (its default is 750) and update_additional for "
                "enhancement nodes on the existing windows (NORB's schedule). They had been "
                "left out without a word, while the config and records kept the value.")
        if updates > 0 and self.schedule().update_nodes == 0:
            raise UserError("The 'incremental-nodes' protocol adds no node per update: set "
                            "update_windows, update_enhancement or update_additional.")

    def schedule(self) -> NodeSchedule:
        return NodeSchedule(
            windows=self.windows, window_nodes=self.window_nodes,
            enhancement=self.enhancement, updates=self.updates,
            update_windows=self.update_windows, update_enhancement=self.update_enhancement,
            update_additional=self.update_additional, shrink=self.shrink,
            sparse_lam=self.sparse_lam, sparse_iters=self.sparse_iters)

    def preparation(self) -> Preparation:
        """The split this protocol grows the network on: the dataset's official parts in
        their own order, or the last ``n_test`` rows after the per-seed shuffle; a stream
        ``max_samples`` caps each part (smoke runs)."""
        holdout = self.split == "holdout"
        return Preparation(cap_after="split", split="holdout" if holdout else "official",
                           n_test=self.n_test if holdout else None, shuffle=holdout)

    def stream_incompatibility(self, stream_cls: type, metrics: Sequence[str],
                               learners: Sequence[type[Learner]] = ()) -> str | None:
        """``split: official`` (the default) on a stream without official train/test parts
        (no ``part`` parameter): refused by the validator, so ``validate`` says so and
        ``run`` writes nothing on any backend (it had run the streams before it, then
        stopped, or recorded failed runs on Dask)."""
        names = getattr(stream_cls, "_param_names", list)()
        if self.split != "official" or "part" in names:
            return None
        return ("split: official (the protocol's default) grows the network on the "
                "dataset's official train/test parts, and this stream has no official "
                "train/test split; use protocol params split: holdout, n_test: N")

    # ------------------------------------------------------------------ memory

    def memory_need(self, learner_cls: type[Learner] | None, n_train: int, n_test: int,
                    n_features: int, n_classes: int, mode: str = "memory") -> dict[str, int]:
        """Estimated bytes (float64) of one run with the node matrix held whole
        (``mode="memory"``: train ``l × k_max`` and test ``l_t × k_max``, Fortran order,
        preallocated) or regenerated in row blocks (``"rows"``: one block of ``A`` and its
        product, the test nodes held), plus the inputs, the generator's largest transient
        (one enhancement group) and the learner's state (``state_bytes`` of its class)."""
        from streamlearn.protocols.node_generator import ROW_BLOCK

        s = self.schedule()
        k = s.max_nodes
        q = max(s.update_nodes, 1)
        biggest_group = max(s.enhancement, s.update_enhancement, s.update_additional)
        state = getattr(learner_cls, "state_bytes", None)
        if mode == "rows":
            # the matrix is never held: a row block of A (and of the Gram product); the
            # step's H (l × q) and the generator's pieces of it (another l × q)
            need = {
                "node_row_blocks": 8 * 2 * min(ROW_BLOCK, n_train) * k,
                "node_matrix_test": 8 * n_test * k,
                "inputs": 8 * (n_train + n_test) * (n_features + 1) * 2,
                "update_block_and_generator": 8 * 2 * n_train * q,
            }
            if state is not None:
                need["learner_state"] = int(state(n_train, k, n_classes,
                                                  k0=s.initial_nodes, q=q))
        else:
            need = {
                "node_matrix_train": 8 * n_train * k,
                "node_matrix_test": 8 * n_test * k,
                "inputs": 8 * (n_train + n_test) * (n_features + 1) * 2,
                "generator_transient": 8 * n_train * (biggest_group + s.update_nodes),
                # an update holds H, C = H - A D and the product A D (l × q each)
                "update_transients": 8 * 3 * n_train * q,
            }
            if state is not None:
                need["learner_state"] = int(state(n_train, k, n_classes))
        if state is None:  # every node-incremental learner holds a k × k matrix (F, Gram)
            need["learner_state_at_least"] = 8 * k * k
        need["total"] = sum(need.values())
        return need

    def memory_limit(self) -> float | None:
        """Bytes a run may use: ``memory_limit_gib``, else 90 % of the machine's RAM."""
        from streamlearn.base import physical_memory_bytes

        ram = physical_memory_bytes()
        return (self.memory_limit_gib * 2**30 if self.memory_limit_gib is not None
                else (0.9 * ram if ram else None))

    def storage(self, learner_cls: type[Learner] | None, n_train: int, n_test: int,
                n_features: int, n_classes: int) -> str:
        """``memory`` or ``rows``: the ``node_matrix`` setting, ``auto`` resolved by the
        configuration alone: ``memory`` when the run with the matrix held whole needs at
        most :data:`AUTO_HELD_GIB`, else ``rows``. Never by the machine's RAM: the two
        storages sum ``AᵀA`` in different orders, so a RAM-dependent choice gave one
        seed different roundings on two machines (README, rerun audit)."""
        if self.node_matrix != "auto":
            return self.node_matrix
        need = self.memory_need(learner_cls, n_train, n_test, n_features, n_classes)
        return "memory" if need["total"] <= AUTO_HELD_GIB * 2**30 else "rows"

    def check_memory(self, learner_cls: type[Learner] | None, n_train: int, n_test: int,
                     n_features: int, n_classes: int, where: str = "") -> None:
        """Raise :class:`UserError` when :meth:`memory_need` (with the node matrix stored
        as :meth:`storage` chooses) exceeds the limit."""
        limit = self.memory_limit()
        if limit is None:
            return
        mode = self.storage(learner_cls, n_train, n_test, n_features, n_classes)
        need = self.memory_need(learner_cls, n_train, n_test, n_features, n_classes, mode)
        if need["total"] <= limit:
            return
        s = self.schedule()
        parts = ", ".join(f"{k.replace('_', ' ')} {_bytes(v)}" for k, v in need.items()
                          if k != "total")
        total, cap = _bytes(need["total"], limit), _bytes(limit, need["total"])
        who = f" with {learner_cls.__name__}" if learner_cls is not None else ""
        how = ("the node matrix regenerated in row blocks" if mode == "rows"
               else "the node matrix held whole")
        rows_fit = mode == "memory" and self.memory_need(
            learner_cls, n_train, n_test, n_features, n_classes, "rows")["total"] <= limit
        if rows_fit:
            raise UserError(
                f"{where}the 'incremental-nodes' run{who} needs about "
                f"{total} with the node matrix held whole ({parts}), more "
                f"than the limit of {cap} on this machine; regenerated in row "
                "blocks it fits. Set node_matrix: rows in protocol.params (auto holds "
                f"networks of up to {AUTO_HELD_GIB:g} GiB whole on every machine, so that one "
                "configuration rounds alike everywhere; the row-block sums round "
                "differently in the last bits).")
        raise UserError(
            f"{where}the 'incremental-nodes' run{who} needs about {total} "
            f"({n_train:,} training samples × {s.max_nodes:,} nodes after {s.updates} "
            f"updates, {how}: {parts}), more than the limit of {cap} on this "
            f"machine. Use the scaled configuration {SCALED_CONFIG} (60 + 1000 nodes, 6 "
            "updates of 10 + 100 + 150), lower enhancement/updates in protocol.params, or "
            "cap the training set with max_samples.")

    # ------------------------------------------------------------------ steps

    def prepare(self, stream_cfg: Any, seed: int, data_dir: str | None) -> PreparedData:
        if stream_cfg.normalize != "none":
            raise UserError(f"Stream {stream_cfg.label!r}: the 'incremental-nodes' protocol "
                            "z-scores every sample itself (BLS preprocessing); set "
                            "normalize: none.")
        data = prepare_stream(stream_cfg, seed, data_dir, self.preparation())
        info = dict(data.info)
        info["node_seed"] = derive_seeds(seed)["learner"]
        info["schedule"] = self.schedule().to_dict()
        self.check_memory(None, data.X.shape[0], data.extra["X_test"].shape[0],
                          data.X.shape[1], int(data.n_classes or 2),
                          where=f"Stream {stream_cfg.label!r}: ")
        return PreparedData(X=data.X, y=data.y, info=info, n_classes=data.n_classes,
                            extra=data.extra)

    def check_data(self, learner_cls: type[Learner], data: PreparedData) -> None:
        self.check_memory(learner_cls, data.X.shape[0], data.extra["X_test"].shape[0],
                          data.X.shape[1], int(data.n_classes or 2))

    def _grow(self, learner: Learner, data: PreparedData, *,
              on_progress: Callable[[int, int], None] | None = None,
              keep_predictions: bool = False) -> _Growth:
        """Algorithm 1: the INIT network, then every update; test accuracy, times, traced
        peak and state size after each step (and the test predictions, when kept)."""
        s = self.schedule()
        Xtr, ytr = data.X, data.y
        Xte, yte = data.extra["X_test"], data.extra["y_test"]
        c = int(data.n_classes or 2)
        n, nt, kmax = Xtr.shape[0], Xte.shape[0], s.max_nodes
        U = s.updates
        Y = np.zeros((n, c))
        Y[np.arange(n), ytr] = 1.0
        Y_seen = read_only(Y)
        learner.reset(kmax, c)
        mode = self.storage(type(learner), n, nt, Xtr.shape[1], c)
        rows = mode == "rows"
        gen = BLSNodeGenerator(s, int(data.info["node_seed"]), rows=rows)
        test_nodes = TestNodes(gen, Xte)
        # rows: A is never held; RowBlockNodes regenerates its rows for every product
        A = np.empty((0 if rows else n, kmax), order="F")
        At = np.empty((nt, kmax), order="F")
        g = _Growth(mode=mode, node_matrix_bytes=int(A.nbytes + At.nbytes),
                    accuracy=np.full(U + 1, np.nan),
                    t_nodes=np.zeros(U + 1), t_update=np.zeros(U + 1),
                    t_test=np.zeros(U + 1), peak=np.zeros(U + 1, dtype=np.int64),
                    state=np.zeros(U + 1, dtype=np.int64),
                    failed=np.zeros(U + 1, dtype=np.int64))
        tracing = tracemalloc.is_tracing()
        if not tracing:
            tracemalloc.start()
        try:
            k = 0
            for u in range(U + 1):
                if not tracing:
                    tracemalloc.reset_peak()
                t0 = time.perf_counter()
                H = gen.next_block(Xtr)
                t1 = time.perf_counter()
                q = H.shape[1]
                if not rows:
                    A[:, k:k + q] = H
                    H = A[:, k:k + q]
                t2 = time.perf_counter()
                # the learner sees read-only views: it cannot change the network's nodes
                if u == 0:
                    learner.initialize(read_only(H), Y_seen)  # type: ignore[attr-defined]
                else:
                    A_k = RowBlockNodes(gen, u, n) if rows else read_only(A[:, :k])
                    learner.update(A_k, read_only(H))  # type: ignore[attr-defined]
                    del A_k
                del H
                t3 = time.perf_counter()
                g.peak[u] = tracemalloc.get_traced_memory()[1]
                g.t_nodes[u], g.t_update[u] = t1 - t0, t3 - t2
                k += q
                t4 = time.perf_counter()
                At[:, k - q:k] = test_nodes.block(u)
                pred = learner.predict_many(read_only(At[:, :k]))  # type: ignore[attr-defined]
                if pred is not None:  # None: NA (the factorisation failed)
                    pred = checked_predictions(pred, nt, 0, type(learner).__name__, True, c,
                                               method="predict_many")
                    g.accuracy[u] = float(np.mean(pred == yte))
                g.t_test[u] = time.perf_counter() - t4
                if keep_predictions:
                    g.predictions.append(np.full(nt, -1) if pred is None else np.array(pred))
                g.failed[u] = int(getattr(learner, "failed_at_", -1) >= 0)
                g.state[u] = learner.model_bytes()
                if on_progress is not None:
                    on_progress(u + 1, U + 1)
        finally:
            if not tracing:
                tracemalloc.stop()
        return g

    def warm_up(self, learner: Learner, data: PreparedData, *, fused: bool = True,
                ) -> Callable[[], None] | None:
        """A user's node learner must be reproducible: fresh copies grown on a small
        network over the run's first rows predict alike, before and after the run
        (:func:`~streamlearn.protocols.user_learner_checks.check_user_node_learner`). The
        library's own are held to it by the conformance suite; nothing to compile."""
        if is_library_learner(learner):
            return None
        rows = min(CHECK_ROWS, data.X.shape[0])
        small = PreparedData(X=data.X[:rows], y=data.y[:rows], info={"node_seed": CHECK_SEED},
                             n_classes=data.n_classes,
                             extra={"X_test": data.extra["X_test"][:rows],
                                    "y_test": data.extra["y_test"][:rows]})
        check = self.check_network()
        return check_user_node_learner(
            learner, lambda copy: check._grow(copy, small, keep_predictions=True).predictions)

    def check_network(self) -> IncrementalNodesProtocol:
        """The small network the reproducibility check grows: this one's node types, at
        most :data:`CHECK_NETWORK`'s sizes, held in memory."""
        sizes = {k: min(getattr(self, k), v) for k, v in CHECK_NETWORK.items()}
        params = {**self.get_params(), **sizes, "node_matrix": "memory",
                  "memory_limit_gib": None}
        return IncrementalNodesProtocol(**params)

    def run(self, learner: Learner, data: PreparedData, ctx: RunContext) -> RunResult:
        s = self.schedule()
        U = s.updates
        g = self._grow(learner, data, on_progress=ctx.on_progress)
        acc, t_nodes, t_update = g.accuracy, g.t_nodes, g.t_update
        n, c = data.X.shape[0], int(data.n_classes or 2)
        steps = np.arange(1, U + 2)
        context = MetricContext(n_classes=c, extra={"update_accuracy": acc})
        dummy = np.zeros(U + 1, dtype=np.int64)
        metrics, curves = score_curves(ctx.metrics, dummy, dummy, steps, context)
        curves["t"] = list(range(U + 1))
        t_step = t_nodes + t_update
        total = float(t_step.sum())
        timing = {
            # training time (node generation + weight updates) per training sample
            "per_sample_seconds": total / max(n, 1),
            "per_sample_learn_seconds": float(t_update.sum()) / max(n, 1),
            "total_seconds": total,
            "step_seconds": t_step.tolist(),
            "update_seconds": t_update.tolist(),
            "node_seconds": t_nodes.tolist(),
            "cumulative_step_seconds": np.cumsum(t_step).tolist(),
            "cumulative_update_seconds": np.cumsum(t_update).tolist(),
            "test_seconds": g.t_test.tolist(),
            "peak_traced_bytes": g.peak.tolist(),
            "state_bytes": g.state.tolist(),
            "node_matrix_bytes": g.node_matrix_bytes,
        }
        na_from = int(np.argmax(g.failed)) if g.failed.any() else None
        notes = {
            "updates": {
                "nodes": [s.nodes_after(u) for u in range(U + 1)],
                "feature_nodes": [s.feature_nodes_after(u) for u in range(U + 1)],
                "enhancement_nodes": [s.enhancement_nodes_after(u) for u in range(U + 1)],
                "accuracy": [None if np.isnan(a) else float(a) for a in acc],
                "failed": g.failed.tolist(),
            },
            "na_from_update": na_from,
            "node_matrix": g.mode,
        }
        return RunResult(metrics=metrics, curves=curves, timing=timing,
                         curve_axis="update (0 = initial network)", notes=notes,
                         arrays={"update_accuracy": acc})
