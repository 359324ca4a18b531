"""One run of an experiment: its specification (stream, algorithm, seed and everything
that identifies it), the learner built for it, its execution under the protocol, and its
record. The runner (:mod:`streamlearn.evaluation.runner`) plans and schedules runs; the
backends (local processes, Dask) execute them through :func:`compute_run` /
:func:`execute_run`.

The seed of a run drives everything random in it through ``numpy.random.SeedSequence``:
the stream generator, the stream order (shuffling) and the learner's initialisation each
get an independent child seed, so a run is identical whenever it is repeated, and every
algorithm sees exactly the same stream for a given (stream, seed).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from streamlearn import atomic, components
from streamlearn.base import Learner, PreparedData, Protocol, RunContext
from streamlearn.config import AlgorithmConfig, ExperimentConfig, StreamConfig
from streamlearn.errors import UserError
from streamlearn.evaluation import records
from streamlearn.evaluation.code_identity import (
    code_mismatch,
    code_versions,
    streamlearn_source_sha256,
    user_code_sha256,
)
from streamlearn.evaluation.failures import describe_failure, user_code_failures
from streamlearn.file_names import run_id as make_run_id
from streamlearn.protocols import preparation
from streamlearn.protocols.preparation import derive_seeds
from streamlearn.protocols.user_learner_checks import global_generators_seeded

# --------------------------------------------------------------------------------------
# Run specifications
# --------------------------------------------------------------------------------------


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
    protocol_params: tuple[tuple[str, Any], ...] = ()
    data_sha256: str | None = None  # a file stream's content: a changed file is a new run
    #: a user's learner's source file (``module:Class`` outside installed packages): an
    #: edited learner is a new run, so a resumed experiment never mixes two versions
    code_sha256: str | None = None
    #: a user's stream class's source files (``module:Class``), likewise
    stream_code_sha256: str | None = None
    #: streamlearn's source as the planning process loaded it (not part of the identity:
    #: the record's versions say which release ran); the computing process checks it
    streamlearn_sha256: str | None = None
    window: int | None = None  # evaluation.window: also windowed metrics
    fading: float | None = None  # evaluation.fading: also faded metrics
    #: the copy of a prequential validation (``validation`` protocol parameter) this run
    #: is: ``None`` for an ordinary run
    fold: int | None = None

    @property
    def run_id(self) -> str:
        rid = make_run_id(self.stream.label, self.algorithm.label, self.seed)
        return rid if self.fold is None else f"{rid}_fold{self.fold}"

    def identity(self) -> dict[str, Any]:
        # chunk_size and save_predictions do not change results, so they are not part of it.
        algo = self.algorithm.to_dict()
        algo.pop("smoke_params")
        extra: dict[str, Any] = {"memory_profile": True} if self.memory_profile else {}
        if self.protocol_params:  # only when set: keeps the digests of earlier records
            extra["protocol_params"] = dict(self.protocol_params)
        if self.data_sha256:
            extra["data_sha256"] = self.data_sha256
        if self.code_sha256:
            extra["code_sha256"] = self.code_sha256
        if self.stream_code_sha256:
            extra["stream_code_sha256"] = self.stream_code_sha256
        for key in ("window", "fading", "fold"):  # only when set, as above
            if getattr(self, key) is not None:
                extra[key] = getattr(self, key)
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

    def make_protocol(self) -> Protocol:
        return components.get_protocol(self.protocol)(**dict(self.protocol_params))


def plan_runs(cfg: ExperimentConfig,
              data_digests: dict[str, str] | None = None) -> list[RunSpec]:
    """All runs of a config, grouped by (stream, seed) so a stream is built once.
    ``data_digests``: stream label → SHA-256 of its file (file streams), part of each
    run's identity, as are the SHA-256 of a user's learner's and stream's source files
    (:func:`user_code_sha256`). Under a prequential validation over ``k`` learner copies
    (:meth:`~streamlearn.base.Protocol.fold_count`) each (stream, algorithm, seed) is ``k``
    runs, one per copy (``fold``), so parallelism, resume and the backends handle folds
    as any other run."""
    digests = data_digests or {}
    code = {a.name: user_code_sha256(a.name) for a in cfg.algorithms}
    stream_code = {s.name: user_code_sha256(s.name, "stream") for s in cfg.streams}
    source = streamlearn_source_sha256()
    protocol = components.get_protocol(cfg.protocol)(**cfg.protocol_params)
    k = protocol.fold_count()
    folds: tuple[int | None, ...] = (None,) if k is None else tuple(range(k))
    return [
        RunSpec(
            data_sha256=digests.get(s.label),
            code_sha256=code[a.name],
            stream_code_sha256=stream_code[s.name],
            streamlearn_sha256=source,
            experiment=cfg.name,
            protocol=cfg.protocol,
            protocol_params=tuple(sorted(cfg.protocol_params.items())),
            stream=s,
            algorithm=a,
            seed=seed,
            metrics=tuple(dict.fromkeys((*cfg.metrics, cfg.outputs.curve_metric))),
            chunk_size=cfg.evaluation.chunk_size,
            checkpoints=cfg.evaluation.checkpoints,
            save_predictions=cfg.evaluation.save_predictions,
            memory_profile=cfg.evaluation.memory_profile,
            fused=cfg.evaluation.fused,
            window=cfg.evaluation.window,
            fading=cfg.evaluation.fading,
            fold=fold,
        )
        for s in cfg.streams
        for seed in cfg.seeds
        for a in cfg.algorithms
        for fold in folds
    ]


def build_learner(acfg: AlgorithmConfig, seed: int) -> Learner:
    """The learner of a run: the algorithm's class with its parameters (and, when it takes
    a ``seed`` and the config gives none, the run's derived learner seed)."""
    return _construct(components.get_algorithm(acfg.name), acfg, seed)


def _construct(cls: type[Learner], acfg: AlgorithmConfig, seed: int) -> Learner:
    # a deep copy: a learner that changes a list or dict parameter in place must not
    # change the config, the next run's learner or the parameters its record shows
    params = copy.deepcopy(dict(acfg.params))
    learner_seed = derive_seeds(seed)["learner"]
    if "seed" in cls._param_names() and "seed" not in params:
        params["seed"] = learner_seed
    learner = cls(**params)
    if "seed" not in acfg.params:
        learner.take_run_seed(learner_seed)
    return learner


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

    components.load_all()

    with threadpool_limits(limits=1):
        yield


def execute_run(
    spec: RunSpec,
    out_dir: Path,
    data_dir: str | None,
    on_progress: Callable[[int, int], None] | None = None,
) -> RunOutcome:
    """Run one (stream, algorithm, seed) through its protocol; write its record atomically.

    A learner or a user's stream that raises is a result (a failed record naming the
    error); a registered stream's data and configuration problems (``UserError``) and
    interrupts propagate.
    """
    computed = compute_run(spec, data_dir, on_progress)
    write_computed(out_dir, computed)
    return computed.outcome


@dataclass
class ComputedRun:
    """A run's record (and predictions), computed but not yet written: what a remote
    worker returns to the client, which writes it with :func:`write_computed`."""

    record: dict[str, Any]
    outcome: RunOutcome
    arrays: dict[str, np.ndarray] | None = None


def write_computed(out_dir: Path, computed: ComputedRun) -> None:
    """Write a computed run atomically: predictions first, then the record (which marks
    the run complete), which names the predictions' SHA-256 (``predictions_sha256``): a
    record write that fails after the predictions' (a full disk, a kill in between) leaves
    another config's record beside them, and readers then refuse the pair. A run computed
    without predictions removes those an earlier run of the same id left (another
    config's: never beside this record)."""
    path = records.record_path(out_dir, computed.outcome.run_id)
    pred = records.predictions_path(out_dir, computed.outcome.run_id)
    if computed.arrays:
        data = atomic.npz_bytes(**computed.arrays)
        computed.record["predictions_sha256"] = hashlib.sha256(data).hexdigest()
        records.atomic_write_bytes(pred, data)
    else:
        pred.unlink(missing_ok=True)
    records.atomic_write_json(path, computed.record)


def base_record(spec: RunSpec) -> dict[str, Any]:
    """The fields of a run record that do not depend on its result."""
    return {
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


def window_refusal(protocol: Protocol, scfg: StreamConfig, n: int, window: int,
                   prepared: bool = False) -> str | None:
    """Why ``evaluation.window = window`` cannot run on stream entry ``scfg`` of ``n``
    samples (after its cap; with ``prepared``, the ``n`` samples of its prepared data),
    as the end of a sentence naming the stream, or ``None``: a window longer than the
    fewest predictions a run (each copy) scores would be the whole run's value under a
    "last W predictions" caption (a series of 10 values, window 10: 9 predictions, the
    windowed MSE equal to the cumulative one, exit 0). The protocol says the count
    (:meth:`~streamlearn.base.Protocol.prepared_samples`,
    :meth:`~streamlearn.base.Protocol.scored_predictions`)."""
    rows, how = (n, "") if prepared else protocol.prepared_samples(n, scfg)
    scored, why = protocol.scored_predictions(rows)
    if window <= scored:
        return None
    if scored == n:
        return (f", fewer than evaluation.window = {window}: lower the window or use a "
                "longer stream.")
    said = "; ".join(x for x in (how, why) if x)
    return (f", and a run scores {scored} predictions on it ({said}), fewer than "
            f"evaluation.window = {window}: the windowed metrics would be the whole "
            "run's. Lower the window or use a longer stream.")


def compute_run(
    spec: RunSpec,
    data_dir: str | None,
    on_progress: Callable[[int, int], None] | None = None,
) -> ComputedRun:
    """Compute one run's record without writing anything (see :func:`execute_run`).

    Everything the learner's own code does — its construction, ``repr``, warm-up, the run,
    ``model_bytes``, its counters, the memory pass — is guarded: whatever it raises, any
    ``BaseException`` (``SystemExit``, a ``KeyboardInterrupt`` of its own, ...), is this
    run's failure (:mod:`~streamlearn.evaluation.failures`), and so is anything a user's
    stream (``module:Class``) raises while its data are prepared. A real Ctrl-C still
    interrupts; preparing a registered stream's data (a ``UserError``) propagates.
    """
    t_start = time.perf_counter()
    record = base_record(spec)
    ctx = RunContext(metrics=spec.metrics, checkpoints=spec.checkpoints,
                     chunk_size=spec.chunk_size, fused=spec.fused, on_progress=on_progress,
                     keep_predictions=spec.save_predictions, window=spec.window,
                     fading=spec.fading, fold=spec.fold, seed=spec.seed)
    with _single_thread_blas():
        protocol = spec.make_protocol()
        if ":" in spec.stream.name:  # a user's stream: its code's failure is this run's
            prepared_or_error = _prepare_user_stream(spec, protocol, data_dir)
            if isinstance(prepared_or_error, tuple):
                error, trace = prepared_or_error
                record.update(status="failed", error=error, traceback=trace)
                return ComputedRun(record, RunOutcome(spec.run_id, "failed",
                                                      time.perf_counter() - t_start, error))
            prepared = prepared_or_error
        else:
            prepared = protocol.prepare(spec.stream, spec.seed, data_dir)
        # where the times were measured, with the BLAS threads the run has (one)
        record["machine"] = records.machine_info()
    if spec.window is not None:  # the runner checks it beforehand when it knows the length
        why = window_refusal(protocol, spec.stream, prepared.X.shape[0], spec.window,
                             prepared=True)
        if why is not None:
            raise UserError(f"Stream {spec.stream.label!r} has {prepared.X.shape[0]} "
                            f"samples as prepared{why}")
    record["stream_info"] = prepared.info
    cls = components.get_algorithm(spec.algorithm.name)
    other_code = code_mismatch(spec.algorithm.name, spec.code_sha256, spec.streamlearn_sha256,
                               spec.stream.name, spec.stream_code_sha256)
    if other_code is not None:  # never a record of code other than the planned one
        record.update(status="failed", retry_on_resume=True, error=other_code)
        return ComputedRun(record, RunOutcome(spec.run_id, "failed",
                                              time.perf_counter() - t_start, other_code))
    # the installed distributions of a user's learner and stream (their own, and those
    # their modules import), beside the fixed list
    record["versions"] = {**record["versions"], **code_versions(spec.algorithm.name),
                          **code_versions(spec.stream.name, "stream")}
    cwd = os.getcwd()  # restored after the learner's code: it may os.chdir()
    inputs = preparation.fingerprint(prepared)
    with user_code_failures() as failure:
        try:
            with _single_thread_blas():
                fields, arrays = _run_learner(spec, cls, protocol, prepared, ctx, record)
        finally:
            if os.getcwd() != cwd:
                os.chdir(cwd)
    written = _inputs_written(prepared, inputs)
    if failure.exc is not None or written:
        error = (describe_failure(failure.exc, cls.__name__) if failure.exc is not None
                 else f"{cls.__name__} wrote into its input arrays")
        if written:
            preparation.forget(prepared)  # the next run of this stream prepares it again
            error += (f"; the stream's {written} changed while this run ran (learners see "
                      "read-only views of data that every learner of the stream shares: "
                      "a learner that writes into them, through a pointer or the array "
                      "behind its view, would change what the next one is scored on). "
                      "Its result is void; the data are prepared again for the next run")
        record.update(status="failed", error=error,
                      traceback=failure.traceback if failure.exc is not None else "")
        return ComputedRun(record, RunOutcome(spec.run_id, "failed",
                                              time.perf_counter() - t_start, error))
    record.update(fields)
    return ComputedRun(record, RunOutcome(spec.run_id, "ok", time.perf_counter() - t_start),
                       arrays)


def timed_as_asked(record: dict[str, Any] | None, spec: RunSpec) -> bool:
    """Whether a complete record's times were taken the way ``spec`` asks
    (``evaluation.fused``): a record timed the other way is computed again, as its
    µs/sample would otherwise stand in a table of the other kind (fused 0.16 against
    per-sample 5.53 µs/sample for RLS). Records made before ``fused_requested`` was kept
    are judged by the path their run took (``timing.fused``) where that is decisive."""
    timing = record.get("timing") if isinstance(record, dict) else None
    if not isinstance(timing, dict):
        return True
    if "fused_requested" in timing:
        return bool(timing["fused_requested"]) == spec.fused
    return spec.fused or timing.get("fused") is not True


def _inputs_written(prepared: PreparedData, before: dict[str, tuple[Any, ...]]) -> str:
    """The names of ``prepared``'s arrays whose :func:`~streamlearn.protocols.preparation.
    fingerprint` differs from ``before`` (``"X and y"``), or ``""``."""
    after = preparation.fingerprint(prepared)
    return " and ".join(k for k in before if after.get(k) != before[k])


def _prepare_user_stream(spec: RunSpec, protocol: Protocol, data_dir: str | None,
                         ) -> PreparedData | tuple[str, str]:
    """A user's stream (``module:Class``) prepared under the guard a learner's code runs
    under: whatever its code raises (``sys.exit()``, ``os._exit()``, an exception, its
    own ``KeyboardInterrupt``) or streamlearn finds wrong with its data is the run's
    failure, ``(error, traceback)``. Unguarded, ``sys.exit(0)`` in a stream's ``_load``
    had ended a ``--jobs 1`` experiment with exit code 0, that stream's runs missing and
    no summary; an exception had ended it with a traceback."""
    with user_code_failures() as failure:
        return protocol.prepare(spec.stream, spec.seed, data_dir)
    if isinstance(failure.exc, UserError):  # streamlearn's own check of the data
        error = str(failure.exc)
    else:
        assert failure.exc is not None
        error = describe_failure(failure.exc, f"the stream {spec.stream.name}")
    return (f"preparing the stream {spec.stream.label!r} ({spec.stream.name}) failed: "
            f"{error}", failure.traceback)


def _load_average() -> list[float] | None:
    """``os.getloadavg()`` (1, 5, 15 minutes) where the OS has it."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):  # Windows
        return None


def _run_learner(spec: RunSpec, cls: type[Learner], protocol: Protocol,
                 prepared: PreparedData, ctx: RunContext, record: dict[str, Any],
                 ) -> tuple[dict[str, Any], dict[str, np.ndarray] | None]:
    """The part of a run that executes the learner's code: the record's result fields and
    the arrays to save. Sets ``record["learner"]`` as soon as it is known."""
    with global_generators_seeded(_global_seed(spec.seed, "build")):
        learner = _construct(cls, spec.algorithm, spec.seed)
    record["learner"] = str(repr(learner))
    protocol.check_data(type(learner), prepared)
    after_run = protocol.warm_up(learner, prepared, fused=ctx.fused)
    peak_reset = _reset_peak_rss()
    with global_generators_seeded(_global_seed(spec.seed, "run")):
        cpu0 = time.process_time()
        result = protocol.run(learner, prepared, ctx)
        cpu_seconds = time.process_time() - cpu0
    if after_run is not None:  # e.g. a user's learner left no state outside itself
        after_run()
    if isinstance(record.get("machine"), dict):  # how loaded the machine was while timed
        record["machine"]["load_average"] = _load_average()
    fields: dict[str, Any] = dict(
        status="ok",
        metrics=result.metrics,
        metric_info={m: components.get_metric(m).display_info() for m in result.metrics},
        curves=result.curves,
        curve_axis=result.curve_axis,
        # CPU time of the process during the timed run (what a cluster bills; on a loaded
        # machine the protocol's wall-clock times are longer)
        # fused_requested: evaluation.fused as the config asked (not part of the digest:
        # it changes times, not results); a rerun asking otherwise computes again
        timing=({**result.timing, "process_cpu_seconds": cpu_seconds,
                 "fused_requested": spec.fused}
                if isinstance(result.timing, dict) else result.timing),
        **result.notes,
    )
    fields["memory"] = {
        "model_bytes": int(learner.model_bytes()),
        # ru_maxrss: the whole process's high-water mark where it could not be reset (a
        # worker may have run other runs before), else this run's, as the next field
        "process_peak_rss_bytes": _peak_rss_bytes(),
    }
    if peak_reset:  # this run's own high-water mark (the process's, reset at its start)
        fields["memory"]["run_peak_rss_bytes"] = _status_bytes("VmHWM")
    if spec.memory_profile:
        with global_generators_seeded(_global_seed(spec.seed, "build")):
            fresh = _construct(cls, spec.algorithm, spec.seed)
        with global_generators_seeded(_global_seed(spec.seed, "run")):
            fields["memory"]["peak_traced_bytes"] = protocol.memory_pass(fresh, prepared, ctx)
    fields["learner_counters"] = learner_counters(learner)
    arrays = dict(result.arrays) if spec.save_predictions and result.arrays else None
    return fields, arrays


def _global_seed(seed: int, stage: str) -> int:
    """The seed of Python's and NumPy's global generators while a run builds its learner
    (``stage="build"``) and while it is timed (``"run"``): derived from the run's seed, so a
    learner that draws from them (no generator of its own) gets the same numbers in any
    process, after any other run, with or without the warm-up's draws before it."""
    stages = {"build": 0, "run": 1}
    state = np.random.SeedSequence([derive_seeds(seed)["learner"], stages[stage]])
    return int(state.generate_state(1, dtype=np.uint32)[0])


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


def _reset_peak_rss() -> bool:
    """Reset the process's resident high-water mark (Linux ≥ 4.0: ``5`` to
    ``/proc/self/clear_refs``), so that ``VmHWM`` afterwards is the peak of what follows
    (the data already loaded included). False where that is not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return _status_bytes("VmHWM") is not None


def _status_bytes(field: str) -> int | None:
    """A ``kB`` field of ``/proc/self/status`` in bytes (None where there is none)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _peak_rss_bytes() -> int | None:
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Windows
        return None
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


_WATCHDOG_STARTED = False


def _exit_with_parent(parent_pid: int) -> None:
    """In a worker process: exit as soon as the parent process is gone (e.g. ``kill -9``);
    loky would otherwise keep an idle worker alive for minutes."""
    global _WATCHDOG_STARTED
    if _WATCHDOG_STARTED or os.getpid() == parent_pid:
        return
    _WATCHDOG_STARTED = True

    def watch() -> None:
        while True:
            if os.getppid() != parent_pid:
                os._exit(1)
            time.sleep(0.5)

    threading.Thread(target=watch, name="streamlearn-parent-watchdog", daemon=True).start()


def _execute_in_worker(spec: RunSpec, out_dir: Path, data_dir: str | None,
                       parent_pid: int) -> RunOutcome:
    _exit_with_parent(parent_pid)
    return execute_run(spec, out_dir, data_dir)


class Progress:
    """Callbacks the runner reports to (the CLI renders them with Rich)."""

    def note(self, text: str) -> None: ...
    def start(self, total: int, pending: int) -> None: ...
    def run_started(self, spec: RunSpec) -> None: ...
    def run_progress(self, done: int, total: int) -> None: ...
    def run_finished(self, outcome: RunOutcome) -> None: ...
    def cluster_status(self, workers: int, running: int, queued: int) -> None: ...
    def stop(self) -> None: ...
