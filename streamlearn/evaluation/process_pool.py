"""Runs in worker processes on this machine (``streamlearn run --jobs N``).

Each worker computes a run and writes its record (:func:`~streamlearn.evaluation.runner.
execute_run`); at most ``N`` runs are in flight. Whatever a learner raises is its run's
failure inside the worker (:mod:`~streamlearn.evaluation.failures`), but a learner can
also end its worker process (``os._exit``, a crash in compiled code, the system killing
it for memory). loky then fails every run in flight, and those are not lost: they are run
again one at a time, so that the run whose worker dies on its own is found and recorded
as failed (the others complete). An experiment therefore never ends with a run neither
recorded nor reported.
"""

from __future__ import annotations

import os
import re
import weakref
from collections import deque
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from pathlib import Path
from typing import Any

from streamlearn.evaluation.runs import (
    ComputedRun,
    RunOutcome,
    RunSpec,
    _execute_in_worker,
    base_record,
    write_computed,
)

__all__ = ["run_in_processes", "stop_workers"]

#: Thread-count variables set to 1 in the workers (one BLAS/OpenMP thread per run, so a
#: run's result does not depend on --jobs); the list joblib's ``inner_max_num_threads`` sets.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMBA_NUM_THREADS",
                    "NUMEXPR_NUM_THREADS")
#: Seconds an idle worker stays alive for the next run (joblib's default).
IDLE_WORKER_SECONDS = 300

#: the worker pools this process used (loky keeps one alive between experiments)
_POOLS: weakref.WeakSet[Any] = weakref.WeakSet()


def stop_workers() -> None:
    """End the worker processes this process started, running or idle. The ``streamlearn``
    command calls it when its work is done: a worker that a learner's leftover thread keeps
    alive would otherwise keep the command waiting for it at exit, for ever (loky joins its
    pool then). In a longer-lived process (tests, a notebook) the pool stays for reuse."""
    for pool in list(_POOLS):
        pool.shutdown(wait=True, kill_workers=True)


def _dead_worker_record(spec: RunSpec, exc: BaseException, out_dir: Path) -> RunOutcome:
    codes = re.search(r"exit codes of the workers are (\{[^}]*\})", str(exc))
    how = f" (exit codes: {codes.group(1)})" if codes else ""
    error = (f"the worker process running it died{how}, also when run alone: the learner "
             "ended its process (os._exit, a crash in compiled code) or the system killed "
             "it (e.g. out of memory)")
    record = base_record(spec)
    record.update(status="failed", retry_on_resume=True,
                  error=f"{type(exc).__name__}: {error}")
    outcome = RunOutcome(spec.run_id, "failed", 0.0, record["error"])
    write_computed(out_dir, ComputedRun(record, outcome))
    return outcome


def _non_exception_record(spec: RunSpec, exc: BaseException, out_dir: Path) -> RunOutcome:
    error = f"{type(exc).__name__} in its worker process: {exc}"
    record = base_record(spec)
    record.update(status="failed", error=error)
    outcome = RunOutcome(spec.run_id, "failed", 0.0, error)
    write_computed(out_dir, ComputedRun(record, outcome))
    return outcome


def run_in_processes(pending: list[RunSpec], out_dir: Path, data_dir: str | None,
                     jobs: int) -> Iterator[RunOutcome]:
    """Execute ``pending`` in ``jobs`` worker processes; yield each run's outcome once its
    record is written. An exception of the run's own (a ``UserError`` about its data)
    propagates, as in the parent; an interrupt stops the workers."""
    from joblib.externals.loky import get_reusable_executor
    from joblib.externals.loky.process_executor import BrokenProcessPool

    env = dict.fromkeys(THREAD_VARIABLES, "1")
    parent = os.getpid()
    queue = deque(pending)
    suspects: deque[RunSpec] = deque()  # in flight when a worker died: rerun one at a time
    in_flight: dict[Future, RunSpec] = {}
    alone: dict[Future, bool] = {}  # submitted with nothing else in flight, and still so
    executor = None

    def submit(spec: RunSpec) -> None:
        nonlocal executor
        for attempt in (1, 2):  # a pool found broken between the two calls: a new one
            executor = get_reusable_executor(max_workers=jobs, timeout=IDLE_WORKER_SECONDS,
                                             env=env)
            _POOLS.add(executor)
            try:
                fut = executor.submit(_execute_in_worker, spec, out_dir, data_dir, parent)
                break
            except BrokenProcessPool:
                if attempt == 2:
                    raise
        for other in alone:
            alone[other] = False
        alone[fut] = not in_flight
        in_flight[fut] = spec

    try:
        while queue or suspects or in_flight:
            if suspects:
                if not in_flight:
                    submit(suspects.popleft())
            else:
                while queue and len(in_flight) < jobs:
                    submit(queue.popleft())
            done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
            for fut in done:
                spec = in_flight.pop(fut)
                solo = alone.pop(fut)
                try:
                    outcome = fut.result()
                except BrokenProcessPool as exc:  # a worker died: this run, or another
                    if not solo:
                        suspects.append(spec)
                        continue
                    outcome = _dead_worker_record(spec, exc, out_dir)
                except (Exception, KeyboardInterrupt):
                    raise
                except BaseException as exc:  # not the learner's (it is guarded): recorded
                    outcome = _non_exception_record(spec, exc, out_dir)
                yield outcome
    except BaseException:
        if in_flight and executor is not None:  # interrupted: stop the runs in flight
            executor.shutdown(wait=True, kill_workers=True)
        raise
