"""Plan and execute the runs of an experiment: one run = (stream, algorithm, seed).

The seed of a run drives everything random in it through ``numpy.random.SeedSequence``:
the stream generator, the stream order (shuffling) and the learner's initialisation each
get an independent child seed, so a run is identical whenever it is repeated, and every
algorithm sees exactly the same stream for a given (stream, seed).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from streamlearn import registry
from streamlearn.base import DataError, UserError
from streamlearn.config import AlgorithmConfig, ExperimentConfig, StreamConfig
from streamlearn.evaluation import records
from streamlearn.evaluation.protocols import PROTOCOLS, RunInput

# --------------------------------------------------------------------------------------
# Run specifications
# --------------------------------------------------------------------------------------


def slug(text: str) -> str:
    """File-name-safe version of a label."""
    s = re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.")
    return s or "x"


@dataclass(frozen=True)
class RunSpec:
    """What one run computes. Its ``digest`` changes whenever its result could."""

    experiment: str
    protocol: str
    stream: StreamConfig
    algorithm: AlgorithmConfig
    seed: int
    metrics: tuple[str, ...]
    chunk_size: int
    checkpoints: int
    save_predictions: bool = False
    memory_profile: bool = False
    fused: bool = True

    @property
    def run_id(self) -> str:
        return f"{slug(self.stream.label)}__{slug(self.algorithm.label)}__seed{self.seed}"

    def identity(self) -> dict[str, Any]:
        # chunk_size and save_predictions do not change results, so they are not part of it.
        algo = self.algorithm.to_dict()
        algo.pop("smoke_params")
        extra = {"memory_profile": True} if self.memory_profile else {}
        return {
            **extra,
            "protocol": self.protocol,
            "stream": self.stream.to_dict(),
            "algorithm": algo,
            "seed": self.seed,
            "metrics": list(self.metrics),
            "checkpoints": self.checkpoints,
        }

    @property
    def digest(self) -> str:
        text = json.dumps(self.identity(), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def plan_runs(cfg: ExperimentConfig) -> list[RunSpec]:
    """All runs of a config, grouped by (stream, seed) so a stream is built once."""
    return [
        RunSpec(
            experiment=cfg.name,
            protocol=cfg.protocol,
            stream=s,
            algorithm=a,
            seed=seed,
            metrics=tuple(dict.fromkeys((*cfg.metrics, cfg.outputs.curve_metric))),
            chunk_size=cfg.evaluation.chunk_size,
            checkpoints=cfg.evaluation.checkpoints,
            save_predictions=cfg.evaluation.save_predictions,
            memory_profile=cfg.evaluation.memory_profile,
            fused=cfg.evaluation.fused,
        )
        for s in cfg.streams
        for seed in cfg.seeds
        for a in cfg.algorithms
    ]


def derive_seeds(seed: int) -> dict[str, int]:
    """Independent child seeds of a run seed (stream generation, order, learner)."""
    children = np.random.SeedSequence(seed).spawn(3)
    names = ("stream", "order", "learner")
    return {n: int(c.generate_state(1, dtype=np.uint32)[0]) for n, c in zip(names, children,
                                                                            strict=True)}


# --------------------------------------------------------------------------------------
# Stream preparation (materialised once per (stream, seed) in each process)
# --------------------------------------------------------------------------------------


@dataclass
class PreparedStream:
    X: np.ndarray
    y: np.ndarray
    info: dict[str, Any]
    n_classes: int | None


_STREAM_CACHE: OrderedDict[str, PreparedStream] = OrderedDict()
_STREAM_CACHE_SIZE = 2


def build_stream(scfg: StreamConfig, seed: int, data_dir: str | None) -> Any:
    cls = registry.get_stream(scfg.name)
    params = dict(scfg.params)
    names = cls._param_names()
    reseed = cls.reseed_per_run if scfg.reseed is None else scfg.reseed
    if reseed and "seed" in names and "seed" not in params:
        params["seed"] = derive_seeds(seed)["stream"]
    if getattr(cls, "needs_data", False) and "data_dir" in names and "data_dir" not in params:
        params["data_dir"] = data_dir
    return cls(**params)


def normalise(
    X: np.ndarray,
    method: str,
    warmup: int | None,
    declared: tuple[float, float] | None = None,
) -> np.ndarray:
    """Min-max or z-score scaling with statistics from the first ``warmup`` rows (all if None),
    or (``range``) the map of a declared input range ``[lo, hi]`` onto ``[0, 1]``.

    A column constant on the fitting rows is only shifted (scale 1), so values that differ
    later keep their information. With a warm-up prefix the scale is fixed before the rest
    of the stream is seen, as an online learner would have it; later values may fall
    outside [0, 1] (min-max) and are not clipped.
    """
    if method == "none":
        return X
    if method == "range":
        if declared is None:  # validated in config
            raise ValueError("normalize 'range' needs the declared range")
        lo, hi = declared
        return np.ascontiguousarray((X - lo) / (hi - lo))
    ref = X if warmup is None else X[:warmup]
    if method == "minmax":
        lo, hi = ref.min(axis=0), ref.max(axis=0)
        span = hi - lo
        shift, scale = lo, np.where(span > 0, span, 1.0)
    elif method == "zscore":
        mu, sd = ref.mean(axis=0), ref.std(axis=0)
        shift, scale = mu, np.where(sd > 0, sd, 1.0)
    else:  # validated in config
        raise ValueError(method)
    return np.ascontiguousarray((X - shift) / scale)


def prepare_stream(scfg: StreamConfig, seed: int, data_dir: str | None) -> PreparedStream:
    """Build, shuffle (per seed), cap and normalise a stream; cached per process."""
    key = json.dumps([scfg.to_dict(), seed, data_dir], sort_keys=True, default=str)
    if key in _STREAM_CACHE:
        _STREAM_CACHE.move_to_end(key)
        return _STREAM_CACHE[key]
    stream = build_stream(scfg, seed, data_dir)
    stream.check_available()
    X, y = stream.to_arrays()
    info = stream.info()
    shuffle = (not stream.natural_order) if scfg.shuffle is None else scfg.shuffle
    steps = []
    if shuffle:
        perm = np.random.default_rng(derive_seeds(seed)["order"]).permutation(X.shape[0])
        X, y = X[perm], y[perm]
        steps.append("shuffled per seed")
    if scfg.max_samples is not None and scfg.max_samples < X.shape[0]:
        X, y = X[: scfg.max_samples], y[: scfg.max_samples]
        steps.append(f"first {scfg.max_samples} samples")
    if scfg.normalize != "none":
        X = normalise(X, scfg.normalize, scfg.normalize_warmup, scfg.normalize_range)
        if scfg.normalize == "range":
            lo, hi = scfg.normalize_range or (0.0, 1.0)
            steps.append(f"declared range [{lo:g}, {hi:g}] mapped to [0, 1]")
        else:
            where = "all samples" if scfg.normalize_warmup is None else (
                f"first {scfg.normalize_warmup} samples")
            steps.append(f"{scfg.normalize} scaling fitted on {where}")
    X = np.ascontiguousarray(X, dtype=np.float64)
    if not np.all(np.isfinite(X)):
        raise UserError(f"Stream {scfg.label!r} contains NaN or infinite feature values.")
    info_dict = {
        "name": scfg.name,
        "label": scfg.label,
        "task": info.task,
        "n_samples": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "n_classes": info.n_classes,
        "source": info.source,
        "loader_preprocessing": list(info.preprocessing),
        "runner_preprocessing": steps,
        "substitute_for": info.substitute_for,
    }
    prepared = PreparedStream(X=X, y=y, info=info_dict, n_classes=info.n_classes)
    _STREAM_CACHE[key] = prepared
    while len(_STREAM_CACHE) > _STREAM_CACHE_SIZE:
        _STREAM_CACHE.popitem(last=False)
    return prepared


def build_learner(acfg: AlgorithmConfig, seed: int) -> Any:
    cls = registry.get_algorithm(acfg.name)
    params = dict(acfg.params)
    if "seed" in cls._param_names() and "seed" not in params:
        params["seed"] = derive_seeds(seed)["learner"]
    return cls(**params)


# --------------------------------------------------------------------------------------
# Executing one run
# --------------------------------------------------------------------------------------


@dataclass
class RunOutcome:
    run_id: str
    status: str  # "ok", "failed", "skipped"
    seconds: float = 0.0
    message: str = ""


@contextlib.contextmanager
def _single_thread_blas() -> Iterator[None]:
    """One BLAS thread per run: results then do not depend on --jobs.

    threadpoolctl only limits libraries already loaded, and SciPy ships its own OpenBLAS,
    so SciPy's LAPACK and every learner module are imported first."""
    import scipy.linalg  # noqa: F401  (loads SciPy's BLAS so the limit covers it)
    from threadpoolctl import threadpool_limits

    registry.load_all()

    with threadpool_limits(limits=1):
        yield


def execute_run(
    spec: RunSpec,
    out_dir: Path,
    data_dir: str | None,
    on_progress: Callable[[int, int], None] | None = None,
) -> RunOutcome:
    """Run one (stream, algorithm, seed) and write its record atomically."""
    t_start = time.perf_counter()
    record: dict[str, Any] = {
        "schema_version": records.SCHEMA_VERSION,
        "complete": True,
        "digest": spec.digest,
        "run_id": spec.run_id,
        "experiment": spec.experiment,
        "stream": spec.stream.label,
        "algorithm": spec.algorithm.label,
        "seed": spec.seed,
        "derived_seeds": derive_seeds(spec.seed),
        "spec": spec.identity(),
        "versions": records.package_versions(),
        "git_commit": records.git_commit(),
    }
    with _single_thread_blas():
        prepared = prepare_stream(spec.stream, spec.seed, data_dir)
        record["stream_info"] = prepared.info
        learner = build_learner(spec.algorithm, spec.seed)
        record["learner"] = repr(learner)
        n = prepared.X.shape[0]
        progress = None if on_progress is None else (lambda k: on_progress(k, n))
        try:
            _warm_up(learner, prepared)
            learner.reset(prepared.X.shape[1], prepared.n_classes)
            payload = PROTOCOLS[spec.protocol]().run(
                RunInput(
                    X=prepared.X,
                    y=prepared.y,
                    n_classes=prepared.n_classes,
                    learner=learner,
                    metrics=spec.metrics,
                    chunk_size=spec.chunk_size,
                    checkpoints=spec.checkpoints,
                    fused=spec.fused,
                    on_progress=progress,
                )
            )
        except (KeyboardInterrupt, MemoryError):
            raise
        except Exception as exc:  # a learner failing is a result, recorded and reported
            record.update(status="failed", error=f"{type(exc).__name__}: {exc}",
                          traceback=traceback.format_exc(limit=8))
            records.atomic_write_json(records.record_path(out_dir, spec.run_id), record)
            return RunOutcome(spec.run_id, "failed", time.perf_counter() - t_start,
                              record["error"])
    y_pred = payload.pop("y_pred")
    record.update(payload)
    record["status"] = "ok"
    record["memory"] = {
        "model_bytes": learner.model_bytes(),
        # high-water mark of the whole process (a worker may have run other runs before)
        "process_peak_rss_bytes": _peak_rss_bytes(),
    }
    if spec.memory_profile:
        record["memory"]["peak_traced_bytes"] = _traced_peak(spec, prepared)
    record["learner_counters"] = learner_counters(learner)
    if spec.save_predictions:
        pred_path = records.record_path(out_dir, spec.run_id).with_suffix(".pred.npz")
        records.atomic_write_npz(pred_path, y_pred=y_pred, y_true=prepared.y)
    records.atomic_write_json(records.record_path(out_dir, spec.run_id), record)
    return RunOutcome(spec.run_id, "ok", time.perf_counter() - t_start)


def _warm_up(learner: Any, prepared: PreparedStream) -> None:
    """Compile (numba JIT) or load cached kernels on a throwaway clone, so the timed run
    measures the learner and not the compiler. Uses the first two samples; not recorded."""
    from streamlearn.evaluation.prequential import run_prequential

    clone = learner.clone()
    clone.reset(prepared.X.shape[1], prepared.n_classes)
    k = min(2, prepared.X.shape[0])
    run_prequential(clone, prepared.X[:k], prepared.y[:k], chunk_size=k)


def learner_counters(learner: Any) -> dict[str, int | float]:
    """Scalar learned state (attributes ending in ``_``, e.g. I-BLS's branch counts or
    Cholesky retries), recorded for diagnosis."""
    out: dict[str, int | float] = {}
    for name, value in vars(learner).items():
        if name.endswith("_") and not name.startswith("_"):
            if isinstance(value, bool | np.bool_):
                continue
            if isinstance(value, int | float | np.integer | np.floating):
                out[name] = value.item() if isinstance(value, np.generic) else value
    return out


def _peak_rss_bytes() -> int | None:
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Windows
        return None
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


def _traced_peak(spec: RunSpec, prepared: PreparedStream) -> int:
    """Peak bytes allocated during a second, untimed pass under ``tracemalloc``
    (learner construction, reset and the whole stream). Opt-in: tracing slows Python code."""
    import tracemalloc

    from streamlearn.evaluation.prequential import run_prequential

    tracemalloc.start()
    try:
        learner = build_learner(spec.algorithm, spec.seed)
        learner.reset(prepared.X.shape[1], prepared.n_classes)
        run_prequential(learner, prepared.X, prepared.y, chunk_size=spec.chunk_size)
        return int(tracemalloc.get_traced_memory()[1])
    finally:
        tracemalloc.stop()


def _execute_in_worker(spec: RunSpec, out_dir: Path, data_dir: str | None) -> RunOutcome:
    return execute_run(spec, out_dir, data_dir)


# --------------------------------------------------------------------------------------
# Executing an experiment
# --------------------------------------------------------------------------------------


@dataclass
class ExperimentResult:
    out_dir: Path
    outcomes: list[RunOutcome] = field(default_factory=list)

    @property
    def n_run(self) -> int:
        return sum(o.status != "skipped" for o in self.outcomes)

    @property
    def n_skipped(self) -> int:
        return sum(o.status == "skipped" for o in self.outcomes)

    @property
    def failed(self) -> list[RunOutcome]:
        return [o for o in self.outcomes if o.status == "failed"]


class Progress:
    """Callbacks the runner reports to (the CLI renders them with Rich)."""

    def start(self, total: int, pending: int) -> None: ...
    def run_started(self, spec: RunSpec) -> None: ...
    def run_progress(self, done: int, total: int) -> None: ...
    def run_finished(self, outcome: RunOutcome) -> None: ...
    def stop(self) -> None: ...


def check_streams_available(cfg: ExperimentConfig, data_dir: str | None) -> None:
    """Fail before anything is written when a stream's data files are missing."""
    missing = missing_streams(cfg, data_dir)
    if missing:
        raise next(iter(missing.values()))


def missing_streams(cfg: ExperimentConfig, data_dir: str | None) -> dict[str, DataError]:
    """Streams whose data files are not present: label → the error explaining it."""
    out: dict[str, DataError] = {}
    for scfg in cfg.streams:
        stream = build_stream(scfg, cfg.seeds[0], data_dir)
        try:
            stream.check_available()
        except DataError as exc:
            out[scfg.label] = exc
    return out


def experiment_manifest(cfg: ExperimentConfig, specs: list[RunSpec], smoke: bool,
                        not_run: dict[str, str] | None = None) -> dict:
    return {
        "schema_version": records.SCHEMA_VERSION,
        "name": cfg.name,
        "smoke": smoke,
        "not_run": not_run or {},
        "config_path": cfg.source_path,
        "config": cfg.to_dict(),
        "runs": [
            {"run_id": s.run_id, "digest": s.digest, "stream": s.stream.label,
             "algorithm": s.algorithm.label, "seed": s.seed}
            for s in specs
        ],
    }


def run_experiment(
    cfg: ExperimentConfig,
    out_dir: Path,
    *,
    data_dir: str | None = None,
    jobs: int = 1,
    force: bool = False,
    smoke: bool = False,
    skip_missing_data: bool = False,
    progress: Progress | None = None,
) -> ExperimentResult:
    """Run every planned run whose record is not already complete.

    Records are written one by one as runs finish, so an interrupted experiment loses at
    most the runs in flight; re-running resumes. ``force`` recomputes every run. A stream
    whose data files are missing is an error, or with ``skip_missing_data`` is left out
    (its table then shows only the paper's values, marked as not run here).
    """
    progress = progress or Progress()
    missing = missing_streams(cfg, data_dir)
    if missing and not skip_missing_data:
        raise next(iter(missing.values()))
    specs = [s for s in plan_runs(cfg) if s.stream.label not in missing]
    out_dir.mkdir(parents=True, exist_ok=True)
    records.clean_temporaries(out_dir)
    not_run = {label: str(exc) for label, exc in missing.items()}
    records.atomic_write_json(out_dir / "experiment.json",
                              experiment_manifest(cfg, specs, smoke, not_run))
    result = ExperimentResult(out_dir)
    pending = []
    for spec in specs:
        rec = records.read_json(records.record_path(out_dir, spec.run_id))
        if not force and records.is_complete(rec, spec.digest):
            result.outcomes.append(RunOutcome(spec.run_id, "skipped"))
        else:
            pending.append(spec)
    progress.start(len(specs), len(pending))
    try:
        if jobs == 1 or len(pending) <= 1:
            for spec in pending:
                progress.run_started(spec)
                outcome = execute_run(spec, out_dir, data_dir, progress.run_progress)
                result.outcomes.append(outcome)
                progress.run_finished(outcome)
        else:
            from joblib import Parallel, delayed, parallel_config

            with parallel_config(backend="loky", inner_max_num_threads=1):
                parallel = Parallel(n_jobs=jobs, return_as="generator_unordered")
                for outcome in parallel(
                    delayed(_execute_in_worker)(spec, out_dir, data_dir) for spec in pending
                ):
                    result.outcomes.append(outcome)
                    progress.run_finished(outcome)
    finally:
        progress.stop()
    return result
