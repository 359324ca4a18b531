"""Core interfaces: learners, streams, metrics and protocols, and the learner tags.

Every learner, stream and metric in streamlearn derives from the classes here; nothing
else in the package defines an abstract interface.

Conventions (see ../shared/STYLE.md):

* ``__init__`` is keyword-only and stores its arguments unchanged; it validates them
  against the class attribute ``_constraints`` (:mod:`streamlearn.params`).
* Learned state lives in attributes with a trailing underscore, created in ``reset``.
* Randomness comes only from a ``seed`` argument.
* Learners see C-contiguous float64 vectors; classification labels are ints 0..C-1.
"""


from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from streamlearn.errors import UserError
from streamlearn.params import Base

# --------------------------------------------------------------------------------------
# Learners
# --------------------------------------------------------------------------------------


#: Tags any protocol may read (a protocol introduces the others: :attr:`Protocol.introduces_tags`).
BASE_LEARNER_TAGS: dict[str, str] = {
    "binary_only": "classifies two classes only (labels 0/1)",
    "reference": ("a reference rule that reads only the labels (majority class, no change): "
                  "it is not expected to learn from x"),
    "regression": "predicts a real-valued target",
    "scores": ("exposes the real-valued score of each round (before its update; its sign is "
               "the prediction): last_score_ after predict_one, chunk_scores_ after "
               "predict_learn_many"),
}


@dataclass(frozen=True)
class LearnerTag:
    """A learner tag a protocol introduces: what it says about a learner, the reason a
    protocol that does not handle it gives when it refuses such a learner, and
    optionally the conformance suite of such learners (``"module:function"``, a function
    ``(cls) -> Iterator[(name, check)]`` that :mod:`streamlearn.checks` runs instead of
    the prequential checks)."""

    description: str
    refusal: str = "use a protocol that runs such learners"
    checks: str | None = None


def protocol_tags() -> dict[str, LearnerTag]:
    """The tags the registered protocols introduce (the first declaration of a tag wins)."""
    out: dict[str, LearnerTag] = {}
    todo = list(Protocol.__subclasses__())
    while todo:
        proto = todo.pop(0)
        todo.extend(proto.__subclasses__())
        if vars(proto).get("registry_name") is not None:  # set by register_protocol
            for tag, declared in proto.introduces_tags.items():
                out.setdefault(tag, declared)
    return out


class _LearnerTags(Mapping[str, str]):
    """Tag -> description: :data:`BASE_LEARNER_TAGS` and the tags of registered protocols
    (read when looked up, so a protocol registered from a user's module adds its own)."""

    def _table(self) -> dict[str, str]:
        return {**BASE_LEARNER_TAGS,
                **{tag: d.description for tag, d in protocol_tags().items()}}

    def __getitem__(self, tag: str) -> str:
        return self._table()[tag]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())

    def __repr__(self) -> str:
        return repr(self._table())


LEARNER_TAGS: Mapping[str, str] = _LearnerTags()
"""Tags a learner may declare; protocols and the conformance checks read them."""


class Learner(Base):
    """An online learner: ``predict_one`` then ``learn_one`` for each sample.

    Subclasses set ``task`` and implement ``reset``, ``predict_one`` and ``learn_one``.
    They may also implement ``predict_learn_many(X, y) -> y_pred``, which must run the
    strict per-sample test-then-train loop (usually in one numba call) and give exactly
    the predictions of the ``predict_one``/``learn_one`` loop (the conformance suite tests
    the library's learners; a user's class is checked on each run's first rows,
    :mod:`streamlearn.protocols.user_learner_checks`).
    """

    task: ClassVar[str] = "classification"
    #: What a protocol must know about the learner to run it (see :data:`LEARNER_TAGS`).
    tags: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def all_tags(cls) -> frozenset[str]:
        """The learner's tags, with ``"regression"`` implied by ``task``."""
        implied = {"regression"} if cls.task == "regression" else set()
        return frozenset(cls.tags) | implied

    def reset(self, n_features: int, n_classes: int | None) -> None:
        """Create fresh learned state for a stream of the given shape."""
        raise NotImplementedError

    def predict_one(self, x: np.ndarray) -> Any:
        raise NotImplementedError

    def learn_one(self, x: np.ndarray, y: Any) -> None:
        raise NotImplementedError

    def take_run_seed(self, seed: int) -> None:
        """Optional: the run's derived learner seed, given after construction when the
        config gives no ``seed``, for randomness that is not the class's own ``seed``
        parameter (River's ``KNNClassifier``: its default SWINN engine's ``seed``, which
        left at ``None`` had made every run of it differ). The default does nothing."""

    def warm_up(self, X: np.ndarray, y: np.ndarray) -> None:
        """Optional: compile (numba) and touch, on a throwaway copy, the code paths a run
        of this learner will reach, so that the timed run measures the learner and not
        the JIT compiler or first-call set-up. The protocols call it with a prefix of the
        run's own data before the clock starts; ``self`` must be left untouched. The
        default does nothing (the protocols also run a 2-sample prefix)."""

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        """Small parameter sets for the conformance checks (fast to run)."""
        yield {}

    @classmethod
    def estimate_bytes(cls, params: dict[str, Any], n_features: int,
                       n_classes: int | None) -> int | None:
        """A lower bound on the memory the learner's state needs (``None``: unknown).
        The config refuses, before anything runs, a setting whose bound exceeds the
        machine's memory."""
        return None


class Classifier(Learner):
    """Classifier over integer labels ``0..n_classes-1``; ``predict_one`` returns an int."""

    task: ClassVar[str] = "classification"


class Regressor(Learner):
    """Regressor over float targets; ``predict_one`` returns a float."""

    task: ClassVar[str] = "regression"
    #: whether the predictions can carry a constant term: the regret metrics compare a
    #: learner that can with the best fixed predictor *with* an intercept, one that cannot
    #: (a delay-line learner without ``offset``) with the best one without. A learner
    #: that does not say (a user's, duck-typed) is taken to have one.
    fits_intercept: ClassVar[bool] = True


def has_predict_learn_many(learner: Learner) -> bool:
    return callable(getattr(learner, "predict_learn_many", None))


# --------------------------------------------------------------------------------------
# Streams
# --------------------------------------------------------------------------------------


@dataclass
class StreamInfo:
    """Metadata of a materialised stream."""

    name: str
    task: str
    n_samples: int
    n_features: int
    n_classes: int | None
    source: str = ""
    preprocessing: tuple[str, ...] = ()
    substitute_for: str | None = None
    #: the features' names, in column order (``None``: the stream names none)
    feature_names: tuple[str, ...] | None = None


def _class_indices(y: np.ndarray, stream: str) -> np.ndarray:
    """Classification labels as int64 class indices, refusing what a cast would change:
    a fractional or non-finite label (``0.5`` had become class 0), a negative one, text."""
    if y.dtype.kind in "iub":
        out = np.ascontiguousarray(y, dtype=np.int64)
    elif y.dtype.kind == "f":
        bad = ~np.isfinite(y) | (y != np.trunc(y))
        if bad.any():
            i = int(np.argmax(bad))
            raise UserError(f"{stream}: classification labels must be class indices "
                            f"0..C-1 (integers); label {i} is {float(y[i])!r}.")
        out = np.ascontiguousarray(y, dtype=np.int64)
    else:
        raise UserError(f"{stream}: classification labels must be class indices 0..C-1 "
                        f"(integers); they are of type {y.dtype} (first: {y[:1].tolist()}): "
                        "map each class to its index in the stream's _load().")
    if out.size and out.min() < 0:
        i = int(np.argmin(out))
        raise UserError(f"{stream}: classification labels must be class indices 0..C-1; "
                        f"label {i} is {out[i]}.")
    return out


class Stream(Base):
    """A finite, re-iterable data stream that materialises to ``(X, y)`` arrays.

    Subclasses implement ``_load() -> (X, y)``; the result must depend only on the
    parameters (including ``seed``), so iterating twice gives the same stream.

    Class attributes
    ----------------
    task
        ``"classification"`` (``y`` ints 0..C-1) or ``"regression"`` (float ``y``).
    natural_order
        True when order matters (drift streams, time series): the runner does not
        shuffle it unless the config asks to.
    needs_data
        True when the stream reads files from the data directory.
    reseed_per_run
        True when a generated stream takes its ``seed`` from the run seed by default
        (a new stream per repetition); False when its own default seed is the paper's
        fixed one. A config overrides it with ``reseed``.
    series
        True for a univariate time series whose next value is the target (``X[:, 0]``
        is the series): the ``prequential-regression`` protocol shifts the target itself.
        False for a stream of ``(x_t, y_t)`` pairs, taken as given.
    """

    task: ClassVar[str] = "classification"
    natural_order: ClassVar[bool] = False
    needs_data: ClassVar[bool] = False
    reseed_per_run: ClassVar[bool] = True
    series: ClassVar[bool] = False

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def check_available(self) -> None:
        """Raise :class:`DataError` (a clear, actionable message) if the stream's files
        are not present. Called for every stream before any run starts."""

    def info(self) -> StreamInfo:
        """Metadata; may materialise the stream."""
        X, y = self.to_arrays()
        n_classes = int(y.max()) + 1 if self.task == "classification" and len(y) else None
        return StreamInfo(
            name=type(self).__name__,
            task=self.task,
            n_samples=X.shape[0],
            n_features=X.shape[1],
            n_classes=n_classes,
        )

    def estimate_size(self) -> tuple[int, int] | None:
        """``(n_samples, n_features)`` without materialising the stream, when the
        parameters say it (generated streams with ``n_samples``); ``None`` otherwise."""
        n = getattr(self, "n_samples", None)
        if not isinstance(n, int) or isinstance(n, bool):
            return None
        d = getattr(self, "n_features", None)
        return n, d if isinstance(d, int) and not isinstance(d, bool) else 1

    def n_classes(self) -> int | None:
        """Number of classes declared by the stream (``None`` for regression)."""
        return self.info().n_classes

    def to_arrays(self, n: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``_load()``'s arrays (the first ``n`` rows), checked: ``X`` of shape ``(n, d)``
        as float64, ``y`` of shape ``(n,)``, as int64 class indices for classification."""
        X, y = (np.asarray(a) for a in self._load())
        name = type(self).__name__
        if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
            raise UserError(f"{name}._load() must return X of shape (n, d) and y of shape "
                            f"(n,); it returned X of shape {X.shape} and y of shape "
                            f"{y.shape}.")
        if n is not None:
            X, y = X[:n], y[:n]
        X = np.ascontiguousarray(X, dtype=np.float64)
        if self.task == "classification":
            y = _class_indices(y, name)
        else:
            y = np.ascontiguousarray(y, dtype=np.float64)
        return X, y

    def __iter__(self) -> Iterator[tuple[np.ndarray, Any]]:
        X, y = self.to_arrays()
        for i in range(X.shape[0]):
            yield X[i], y[i]

    def take(self, k: int) -> Iterator[tuple[np.ndarray, Any]]:
        for i, item in enumerate(self):
            if i >= k:
                return
            yield item


# --------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------


@dataclass
class MetricContext:
    """What a metric may read besides ``(y_true, y_pred)``.

    ``X`` holds the inputs the learner saw (row ``k`` for sample ``k``), so that a
    comparator-based metric (regret against the best fixed predictor in hindsight) can be
    computed; ``extra`` holds a protocol's own per-step arrays (e.g. the test accuracy after
    every update of a network grown on a split). A metric names what it needs in
    ``Metric.requires``; the protocol checks that it can provide it.
    """

    n_classes: int | None = None
    X: np.ndarray | None = None
    extra: dict[str, np.ndarray] = field(default_factory=dict)

    def get(self, key: str) -> np.ndarray:
        """The context entry ``key`` (``"X"`` or an ``extra`` name)."""
        value = self.X if key == "X" else self.extra.get(key)
        if value is None:
            raise KeyError(f"the protocol did not provide {key!r} to the metric")
        return value


class Metric:
    """A metric of a run, computed from the saved predictions at checkpoints.

    Subclasses implement :meth:`curve`: the value after each of the first ``at[k]`` steps
    (``at`` increasing, 1-based counts). Values are stored in natural units (fractions for
    accuracies); ``scale``, ``unit``, ``precision`` and ``notation`` say how tables and
    plots show them (``scale = 100`` with ``unit = "%"`` prints 0.9123 as 91.23).
    """

    task: ClassVar[str] = "classification"
    label: ClassVar[str] = ""
    bigger_is_better: ClassVar[bool] = True
    unit: ClassVar[str] = ""
    scale: ClassVar[float] = 1.0
    #: decimals (``notation="fixed"``) or significant digits (``"general"``)
    precision: ClassVar[int] = 4
    notation: ClassVar[str] = "general"
    #: context entries the metric reads: ``"X"`` or names of a protocol's extra arrays
    requires: ClassVar[tuple[str, ...]] = ()
    #: how it can be computed: always ``"cumulative"`` (:meth:`curve`); ``"windowed"``
    #: (:meth:`windowed_curve`) and ``"fading"`` (:meth:`fading_curve`) when it is made of
    #: per-sample terms that a window or a fading factor can weigh
    kinds: ClassVar[tuple[str, ...]] = ("cumulative",)

    @classmethod
    def curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
              context: MetricContext) -> np.ndarray:
        """Metric value after each of the first ``at[k]`` steps (natural units)."""
        raise NotImplementedError

    @classmethod
    def windowed_curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
                       window: int, context: MetricContext) -> np.ndarray:
        """The metric over the last ``window`` samples (fewer before ``window`` samples
        are seen) after each of the first ``at[k]`` steps. Only for metrics whose
        :attr:`kinds` include ``"windowed"``."""
        raise NotImplementedError(f"{cls.__name__} has no windowed form")

    @classmethod
    def fading_curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
                     alpha: float, context: MetricContext) -> np.ndarray:
        """The metric with fading factor ``alpha`` (Gama et al. 2013: the sample ``a``
        steps old weighs ``alpha**a`` in every sum the metric is made of) after each of
        the first ``at[k]`` steps. Only for metrics whose :attr:`kinds` include
        ``"fading"``."""
        raise NotImplementedError(f"{cls.__name__} has no fading form")

    @classmethod
    def final(cls, y_true: np.ndarray, y_pred: np.ndarray, context: MetricContext) -> float:
        """Value after the whole stream."""
        return float(cls.curve(y_true, y_pred, np.array([len(y_true)]), context)[0])

    @classmethod
    def axis_label(cls) -> str:
        """Label with the display unit, for table headers and plot axes."""
        return f"{cls.label} ({cls.unit})" if cls.unit else cls.label

    @classmethod
    def format(cls, value: float) -> str:
        """A value already in display units (× ``scale``) as text."""
        if value is None or not math.isfinite(value):
            return "—" if value is None or math.isnan(value) else str(value)
        if cls.notation == "fixed":
            return f"{value:.{cls.precision}f}"
        return f"{value:.{cls.precision}g}"

    @classmethod
    def display_info(cls) -> dict[str, Any]:
        """How the metric is shown; stored in each run record so that reports built later
        from the records alone show it the same way."""
        return {"label": cls.label, "unit": cls.unit, "scale": cls.scale,
                "precision": cls.precision, "notation": cls.notation,
                "bigger_is_better": cls.bigger_is_better, "task": cls.task}


# --------------------------------------------------------------------------------------
# Protocols
# --------------------------------------------------------------------------------------


@dataclass
class PreparedData:
    """A stream made ready for one run: arrays, metadata and a protocol's extra arrays
    (e.g. a held-out test split, or the series a lag window reads)."""

    X: np.ndarray
    y: np.ndarray
    info: dict[str, Any]
    n_classes: int | None
    extra: dict[str, np.ndarray] = field(default_factory=dict)
    #: the names of ``X``'s columns, when the stream has them (a CSV header, ARFF)
    feature_names: tuple[str, ...] | None = None


@dataclass
class RunContext:
    """The evaluation settings of one run, as the runner hands them to a protocol."""

    metrics: tuple[str, ...]
    checkpoints: int = 200
    chunk_size: int = 1000
    fused: bool = True
    on_progress: Any = None  # Callable[[int, int], None]: (done, total) in protocol units
    #: False when nobody needs the per-sample predictions afterwards (they are not saved):
    #: a protocol may then compute its metrics while streaming and not hold them all
    keep_predictions: bool = True
    #: also the metrics over a sliding window of this many samples (``evaluation.window``)
    window: int | None = None
    #: also the metrics with this fading factor (``evaluation.fading``)
    fading: float | None = None
    #: which copy of a prequential validation this run is (``None``: an ordinary run)
    fold: int | None = None
    #: the run seed (randomness a protocol adds, e.g. bootstrap weights, derives from it)
    seed: int | None = None


@dataclass
class RunResult:
    """What a protocol returns for one run; the runner writes it into the run record.

    ``curves`` maps ``"t"`` (the x positions) and each metric name to lists;
    ``arrays`` are saved beside the record with ``evaluation.save_predictions``;
    ``notes`` are extra JSON-serialisable fields of the record (counters, warnings).
    """

    metrics: dict[str, float]
    curves: dict[str, list[float]]
    timing: dict[str, Any]
    curve_axis: str = "samples seen"
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)


class Protocol(Base):
    """How one (stream, learner, seed) run is carried out and scored.

    A protocol owns every step of a run: :meth:`prepare` (data preparation, cached per
    process by the caller's key), :meth:`warm_up` (compile kernels on a throwaway clone),
    :meth:`run` (reset the learner, evaluate, score) and :meth:`memory_pass` (an untimed
    pass under ``tracemalloc``). Its parameters come from the config's protocol block and
    are validated like a learner's (``_constraints``). The runner only plans, seeds,
    records, resumes and parallelises.

    Learner tags: besides :data:`BASE_LEARNER_TAGS`, a protocol runs the tags it
    introduces, requires or accepts, and refuses a learner tagged with what another
    protocol introduced (so a new protocol and its tags are one module).
    """

    task: ClassVar[str] = "classification"
    default_metrics: ClassVar[tuple[str, ...]] = ()
    default_curve_metric: ClassVar[str] = ""
    #: learner tags this protocol needs (all of them)
    requires_tags: ClassVar[frozenset[str]] = frozenset()
    #: tags it introduces (what they say, the refusal, their checks): :data:`LEARNER_TAGS`
    introduces_tags: ClassVar[dict[str, LearnerTag]] = {}
    #: tags another protocol introduced that this one runs too
    accepts_tags: ClassVar[frozenset[str]] = frozenset()
    #: context entries its metrics may read (:attr:`Metric.requires`)
    provides: ClassVar[frozenset[str]] = frozenset({"X"})
    #: what its records' ``us_per_sample`` measures (the terminal table's footnote)
    time_per_sample: ClassVar[str] = "predict + update time per sample"

    def incompatibility(self, learner_cls: type[Learner]) -> str | None:
        """Why this protocol cannot run ``learner_cls`` (``None`` when it can)."""
        if getattr(learner_cls, "task", None) != self.task:
            hint = ""
            target = getattr(learner_cls, "target", None)
            if getattr(learner_cls, "dotted_path", None) and not hasattr(target, "task"):
                top = str(getattr(target, "__module__", "")).split(".")[0]
                if top in ("river", "capymoa"):  # its task comes from the library's type
                    hint = (f" ({getattr(target, '__name__', target)} is a "
                            f"{learner_cls.task} estimator of {top})")
                elif self.task == "regression":  # a user's class defaults to classification
                    hint = (" (a class of your own is a classification learner unless it "
                            "sets the class attribute task = 'regression')")
            return (f"it is a {learner_cls.task} learner and this protocol needs a "
                    f"{self.task} learner{hint}")
        tags = learner_cls.all_tags()
        # a tag another protocol introduced asks for that protocol (or one accepting it)
        runs = set(self.introduces_tags) | self.requires_tags | self.accepts_tags
        introduced = protocol_tags()
        for tag in sorted(tags - runs):
            if tag in introduced:
                declared = introduced[tag]
                return f"it is tagged {tag!r} ({declared.description}): {declared.refusal}"
        missing = sorted(self.requires_tags - tags)
        if missing:
            return f"this protocol needs learners tagged {', '.join(map(repr, missing))}"
        return None

    def provides_for(self, learner_cls: type[Learner]) -> frozenset[str]:
        """The context entries it provides in a run of ``learner_cls`` (a subset of
        :attr:`provides`, e.g. per-round scores only for learners that expose them)."""
        return self.provides

    def prepare(self, stream_cfg: Any, seed: int, data_dir: str | None) -> PreparedData:
        raise NotImplementedError

    def min_samples(self) -> tuple[int, str] | None:
        """The fewest samples a stream needs under these parameters, and why (e.g. a label
        delay longer than the stream); the runner refuses a shorter stream before anything
        is written. ``None``: no such limit."""
        return None

    def prepared_samples(self, n: int, stream_cfg: Any) -> tuple[int, str]:
        """How many samples a run's prepared data hold when the stream entry
        ``stream_cfg`` has ``n`` (after its ``max_samples`` cap), and, when that is not
        ``n``, how, in words (a series' one-step-ahead targets). Default: ``(n, "")``."""
        return n, ""

    def scored_predictions(self, n: int) -> tuple[int, str]:
        """The fewest predictions a run scores on prepared data of ``n`` samples (under a
        prequential validation, the copy tested on the fewest), i.e. the most a windowed
        metric (``evaluation.window``) can span, and, when that is fewer than ``n``, why,
        in words. The runner refuses a longer window before anything is written (it
        would be the whole run's value under a "last W predictions" caption). Default:
        ``(n, "")``."""
        return n, ""

    @classmethod
    def default_metrics_for(cls, stream_classes: Sequence[type]) -> tuple[str, ...]:
        """The metrics of a config that names none, given its streams' classes (a protocol
        whose defaults depend on the kind of stream overrides it)."""
        return tuple(cls.default_metrics)

    def stream_incompatibility(self, stream_cls: type, metrics: Sequence[str],
                               learners: Sequence[type[Learner]] = ()) -> str | None:
        """Why this protocol, with these parameters, cannot run ``stream_cls`` with these
        metrics and learners (``None`` when it can); the config validator refuses it."""
        return None

    def stream_config_refusal(self, stream_cfg: Any) -> str | None:
        """Why this protocol, with these parameters, cannot run this stream entry's options
        (``None`` when it can), e.g. a scaling that would change a column the protocol
        reads; the config validator refuses it before anything runs, on any backend."""
        return None

    def check_stream_data(self, stream_cfg: Any, seed: int, data_dir: str | None) -> None:
        """Raise :class:`UserError` when the data of this stream entry, as a run of
        ``seed`` would see them, cannot be run under these parameters (a value the protocol
        reads from the data, e.g. a negative delay in a delay column). The runner calls it
        for every stream and seed before anything is written, on every backend (for the
        streams whose data the client can read), so such a stream is a config error, not
        runs that fail one by one on the workers. Default: nothing to check."""
        return None

    def fold_count(self) -> int | None:
        """How many runs (copies of the learner) each (stream, learner, seed) is under these
        parameters (a prequential validation's ``k``); ``None``: one ordinary run."""
        return None

    def check_data(self, learner_cls: type[Learner], data: PreparedData) -> None:
        """Raise :class:`UserError` when the prepared data does not suit the learner
        (e.g. a binary-only learner on a multi-class stream)."""
        if "binary_only" in learner_cls.all_tags() and (data.n_classes or 0) > 2:
            raise UserError(
                f"{learner_cls.__name__} classifies two classes only, but stream "
                f"{data.info.get('label')!r} has {data.n_classes} classes.")

    def warm_up(self, learner: Learner, data: PreparedData, *, fused: bool = True,
                ) -> Callable[[], None] | None:
        """Compile or load the learner's kernels on a throwaway clone (not recorded); with
        ``fused`` (the run may use ``predict_learn_many``) a protocol that runs the fused
        path also checks a user's learner's fused path against its loop there, and every
        prequential protocol checks that a user's learner is reproducible
        (:mod:`streamlearn.protocols.user_learner_checks`). Returns a check to call after
        the timed run (it raises to fail the run), or None."""
        return None

    def run(self, learner: Learner, data: PreparedData, ctx: RunContext) -> RunResult:
        raise NotImplementedError

    def memory_pass(self, learner: Learner, data: PreparedData, ctx: RunContext) -> int:
        """Peak bytes allocated by an untimed second run of a fresh ``learner``."""
        import tracemalloc

        tracemalloc.start()
        try:
            self.run(learner, data, RunContext(metrics=(), checkpoints=ctx.checkpoints,
                                               chunk_size=ctx.chunk_size, fused=ctx.fused))
            return int(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()


def physical_memory_bytes() -> int | None:
    """Total physical memory of the machine (``None`` where the OS does not say)."""
    import os

    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not on POSIX
        return None
