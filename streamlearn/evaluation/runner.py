"""Plan and execute the runs of an experiment: one run = (stream, algorithm, seed).

The runner plans runs (:mod:`streamlearn.evaluation.runs`), writes one record per run,
resumes, and runs them in parallel (:mod:`~streamlearn.evaluation.process_pool`, or a
:class:`Backend` such as Dask); *how* a run is carried out belongs to its protocol
(:class:`streamlearn.base.Protocol`: prepare, warm up, run, memory pass).
"""

from __future__ import annotations

import contextlib
import json
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from streamlearn import atomic, components
from streamlearn.config import ExperimentConfig, StreamConfig
from streamlearn.errors import DataError, DataMissingError, UserError
from streamlearn.evaluation import record_archive, records
from streamlearn.evaluation.failures import describe_failure, user_code_failures
from streamlearn.evaluation.output_dir import (
    OutputDirLock,
    OutputRollback,
    check_not_data_dir,
    check_writable,
)
from streamlearn.evaluation.runs import (
    Progress,
    RunOutcome,
    RunSpec,
    execute_run,
    plan_runs,
    timed_as_asked,
    window_refusal,
)
from streamlearn.file_names import slug
from streamlearn.interrupts import working_on
from streamlearn.protocols.preparation import build_stream, derive_seeds

__all__ = ["Progress", "RunSpec", "derive_seeds", "execute_run", "plan_runs", "run_experiment",
           "slug"]

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

class Backend(typing.Protocol):
    """Another place to execute the pending runs (``--backend dask``): it yields each
    run's outcome once the run's record is written."""

    @property
    def checks_data_on_client(self) -> bool: ...

    def run(self, pending: list[RunSpec], out_dir: Path,
            progress: Progress) -> Iterator[RunOutcome]: ...


def check_streams_available(cfg: ExperimentConfig, data_dir: str | None) -> None:
    """Fail before anything is written when a stream's data files are missing or bad."""
    missing = missing_streams(cfg, data_dir, keep=False)
    if missing:
        raise next(iter(missing.values()))


def missing_streams(cfg: ExperimentConfig, data_dir: str | None,
                    keep: bool = True,
                    digests: dict[str, str] | None = None) -> dict[str, DataError]:
    """Streams whose data files are not present: label → the error explaining it.

    A file that is present is parsed and validated here (streams with a
    ``check_content`` method: the file streams), so a bad file stops the experiment before
    anything is written; its error is raised, never counted as missing, so that
    ``--skip-missing-data`` does not silently skip a corrupt file. With ``keep`` the
    parsed arrays are kept for this process's runs (no second parse). ``digests``, when
    given, receives by stream label the digest of the data each stream reads, from its
    ``content_sha256`` method (a file stream's file; a catalogue file that has no
    reference SHA-256; ``None``, nothing kept, when the catalogue's hash pins them)."""
    out: dict[str, DataError] = {}
    for scfg in cfg.streams:
        with user_stream_code(scfg):
            stream = build_stream(scfg, cfg.seeds[0], data_dir)
            try:
                stream.check_available()
            except DataMissingError as exc:  # absent; a corrupt file is raised
                out[scfg.label] = exc
                continue
            check_content = getattr(stream, "check_content", None)
            if check_content is not None:
                try:
                    check_content(keep=keep)
                except UserError as exc:
                    exc.args = (f"Stream {scfg.label!r}: {exc}",)
                    raise exc from None
            content_sha256 = getattr(stream, "content_sha256", None)
            if digests is not None and content_sha256 is not None:
                digest = content_sha256()
                if digest is not None:
                    digests[scfg.label] = digest
    return out


@contextlib.contextmanager
def user_stream_code(scfg: StreamConfig) -> Iterator[None]:
    """Around the checks before the runs that call a stream's methods: for a user's
    stream (``module:Class``) they run guarded, and whatever its code raises
    (``sys.exit()``, ``os._exit()``, any exception) stops the command as a user error
    naming the stream, before anything is written (an ``estimate_size`` of theirs that
    raised had ended ``streamlearn run`` with a traceback)."""
    if ":" not in scfg.name:
        yield
        return
    with user_code_failures() as failure:
        yield
    if isinstance(failure.exc, UserError):
        raise failure.exc
    if failure.exc is not None:
        raise UserError(f"Stream {scfg.label!r} ({scfg.name}): "
                        f"{describe_failure(failure.exc, 'its code')}. Nothing was run.")


def known_length(scfg: StreamConfig, seed: int, data_dir: str | None,
                 reads_data: bool) -> int | None:
    """A stream's sample count after its ``max_samples`` cap, when it can be known before
    the runs: declared by a generated stream's parameters or a dataset's catalogue entry,
    or read from its (already checked) file; ``None`` when this process does not read the
    stream's data (``reads_data`` false: remote workers) or cannot tell."""
    stream = build_stream(scfg, seed, data_dir)
    size = stream.estimate_size()
    if size is not None:
        n = size[0]
    elif getattr(stream, "needs_data", False) and not reads_data:
        return None
    else:  # a catalogue size, or the arrays (a file parsed by the content check is cached)
        n = stream.info().n_samples
    return n if scfg.max_samples is None else min(n, scfg.max_samples)


def check_stream_lengths(cfg: ExperimentConfig, data_dir: str | None, reads_data: bool,
                         skip: set[str] | frozenset[str] = frozenset()) -> None:
    """Refuse, before anything is written, a stream shorter than the evaluation needs: an
    ``evaluation.window`` longer than the predictions a run scores on it
    (:func:`window_refusal`), or what the protocol's parameters need
    (:meth:`~streamlearn.base.Protocol.min_samples`: a label delay, a held-out test, k
    folds). A stream whose length is not known here is checked by its protocol when it is
    prepared."""
    protocol = components.get_protocol(cfg.protocol)(**cfg.protocol_params)
    need = protocol.min_samples()
    window = cfg.evaluation.window
    if need is None and window is None:
        return
    for scfg in cfg.streams:
        if scfg.label in skip:
            continue
        with user_stream_code(scfg):
            n = known_length(scfg, cfg.seeds[0], data_dir, reads_data)
        if n is None:
            continue
        capped = " (after its max_samples cap)" if scfg.max_samples is not None else ""
        if window is not None:
            why = window_refusal(protocol, scfg, n, window)
            if why is not None:
                raise UserError(f"Stream {scfg.label!r} has {n} samples{capped}{why} "
                                "Nothing was run.")
        if need is not None and n < need[0]:
            raise UserError(f"Stream {scfg.label!r} has {n} samples{capped}, but {need[1]}. "
                            "Nothing was run.")


def check_stream_data(cfg: ExperimentConfig, data_dir: str | None, reads_data: bool,
                      skip: set[str] | frozenset[str] = frozenset()) -> None:
    """Refuse, before anything is written, a stream whose data the protocol's parameters
    cannot run on (:meth:`~streamlearn.base.Protocol.check_stream_data`: a delay column's
    name and values), whichever backend runs it. Without ``reads_data`` (remote Dask
    workers with their own files) a stream is checked when its data can be read here
    (generated, or a user's file present on this machine); the others are checked by
    their runs on the workers."""
    protocol = components.get_protocol(cfg.protocol)(**cfg.protocol_params)
    for scfg in cfg.streams:
        if scfg.label in skip:
            continue
        with user_stream_code(scfg):
            if not reads_data and not _readable_here(scfg, cfg.seeds[0], data_dir):
                continue
            for seed in cfg.seeds:
                try:
                    protocol.check_stream_data(scfg, seed, data_dir)
                except UserError as exc:
                    exc.args = (f"{exc} Nothing was run.",)
                    raise


def _readable_here(scfg: StreamConfig, seed: int, data_dir: str | None) -> bool:
    """Whether this process can read the stream's data without its data directory:
    generated streams and a user's files present here."""
    stream = build_stream(scfg, seed, data_dir)
    if getattr(stream, "needs_data", False):
        return False
    try:
        stream.check_available()
    except DataMissingError:
        return False
    return True


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
             "algorithm": s.algorithm.label, "seed": s.seed,
             **({"fold": s.fold} if s.fold is not None else {})}
            for s in specs
        ],
    }


def _archived_records(out_dir: Path, force: bool) -> dict[str, bytes]:
    """The records of ``out_dir/runs.tar.xz`` (run id → bytes), for a committed results
    folder whose ``runs/`` is absent (a fresh clone): a complete one is reused like a
    record of ``runs/`` (``--add-learner`` computes only the new learner's runs)."""
    if force or not record_archive.has_archive(out_dir):
        return {}
    return record_archive.read_archive(record_archive.archive_path(out_dir))


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
    backend: Backend | None = None,
    then: Callable[[ExperimentResult], None] | None = None,
) -> ExperimentResult:
    """Run every planned run whose record is not already complete.

    Records are written one by one as runs finish, so an interrupted experiment loses at
    most the runs in flight; re-running resumes. ``force`` recomputes every run. A stream
    whose data files are missing is an error, or with ``skip_missing_data`` is left out
    (its table then shows only the paper's values, marked as not run here); a file that is
    present but bad is always an error, found before anything is written. The output
    directory is locked for the whole experiment: a second run on it stops with a message.
    An experiment that fails before its first record leaves the directory as it was.
    With a ``backend`` (Dask) the runs go there; when its workers do not share the client's
    files, each worker checks its own data and only ``skip_missing_data`` makes the client
    look at its data directory. ``then`` is called with the result once the runs have
    ended, still under the lock (``streamlearn run`` writes its tables there, so that no
    other command writes into the directory between the last record and the tables).
    """
    progress = progress or Progress()
    check_writable(out_dir, create=False)
    check_not_data_dir(out_dir, data_dir)
    check_data = backend is None or backend.checks_data_on_client or skip_missing_data
    # parsed files are kept for the runs only when they run in this process
    digests: dict[str, str] = {}
    missing = (missing_streams(cfg, data_dir, keep=backend is None and jobs == 1,
                               digests=digests)
               if check_data else {})
    if missing and not skip_missing_data:
        raise next(iter(missing.values()))
    check_stream_lengths(cfg, data_dir, reads_data=check_data, skip=set(missing))
    check_stream_data(cfg, data_dir, reads_data=check_data, skip=set(missing))
    rollback = OutputRollback(out_dir)  # a failure before the first record undoes the rest
    check_writable(out_dir, create=True)
    specs = [s for s in plan_runs(cfg, digests) if s.stream.label not in missing]
    with rollback, OutputDirLock(out_dir), rollback.undo_on_failure():
        records.clean_temporaries(out_dir)
        # the runs an interrupted --force had not redone: computed again, never reused
        forced = records.ForcedRuns.read(out_dir)
        left_by_force = set(forced.run_ids)
        not_run = {label: str(exc) for label, exc in missing.items()}
        records.atomic_write_json(out_dir / "experiment.json",
                                  experiment_manifest(cfg, specs, smoke, not_run))
        result = ExperimentResult(out_dir)
        pending = []
        archived = _archived_records(out_dir, force)
        archived_preds = (record_archive.predictions_archive(out_dir)
                          if archived and any(s.save_predictions for s in specs) else {})
        for spec in specs:
            path = records.record_path(out_dir, spec.run_id)
            pred = records.predictions_path(out_dir, spec.run_id)
            again = force or spec.run_id in left_by_force
            rec = records.read_json(path)
            if rec is None and spec.run_id in archived:  # a committed folder's record
                rec = json.loads(archived[spec.run_id])
                if not again and records.is_complete(rec, spec.digest):
                    # into runs/, where every reader then finds it beside the new ones
                    # (its predictions first, as write_computed writes them)
                    if records.predictions_match(rec, archived_preds.get(spec.run_id)):
                        atomic.write_bytes(pred, archived_preds[spec.run_id])
                    atomic.write_bytes(path, archived[spec.run_id])
            # predictions asked for and none saved, or another run's beside the record (a
            # record write that failed after the predictions'): computed again
            # (save_predictions is not part of the digest, so the record alone would be
            # reused without them)
            if (not again and records.is_complete(rec, spec.digest)
                    and (not spec.save_predictions
                         or records.read_predictions_of(rec, pred) is not None)
                    and timed_as_asked(rec, spec)):
                result.outcomes.append(RunOutcome(spec.run_id, "skipped"))
            else:
                pending.append(spec)
                if force and rec is not None:  # a record a resume must not reuse
                    forced.run_ids.add(spec.run_id)
        redone = sum(s.run_id in left_by_force for s in pending)
        if redone and not force:
            progress.note(f"{redone} run(s) that an interrupted `--force` in {out_dir} had "
                          "not redone yet are computed again (their records are from "
                          "before it).")
        forced.save()  # before the first run
        progress.start(len(specs), len(pending))
        try:
            if backend is not None and pending:
                for outcome in backend.run(pending, out_dir, progress):
                    result.outcomes.append(outcome)
                    forced.done(outcome.run_id)
                    progress.run_finished(outcome)
            elif jobs == 1 or len(pending) <= 1:
                for spec in pending:
                    progress.run_started(spec)
                    with working_on(spec.run_id):  # named if compiled code exits
                        outcome = execute_run(spec, out_dir, data_dir, progress.run_progress)
                    result.outcomes.append(outcome)
                    forced.done(outcome.run_id)
                    progress.run_finished(outcome)
            else:
                from streamlearn.evaluation.process_pool import run_in_processes

                for outcome in run_in_processes(pending, out_dir, data_dir, jobs):
                    result.outcomes.append(outcome)
                    forced.done(outcome.run_id)
                    progress.run_finished(outcome)
        finally:
            progress.stop()
            # best effort when the runs stopped on an error: runs recorded but still
            # listed are only computed once more
            with contextlib.suppress(OSError, atomic.OutputError):
                forced.save()
        rollback.keep()
        if then is not None:
            then(result)
    return result
