"""Runs on a Dask cluster: ``streamlearn run CONFIG --backend dask [--scheduler ADDRESS]``.

The runs are the same units as with ``--jobs`` (a :class:`~streamlearn.evaluation.runner.
RunSpec` computed by :func:`~streamlearn.evaluation.runs.compute_run`); Dask's
distributed scheduler (the optional ``dask`` extra) places them on workers. Only the
client touches the output directory:

* a worker computes a run and *returns* its record (and predictions, when asked) to the
  client, which writes it with the one atomic writer, so workers need no shared
  filesystem and resume, skip-complete and ``--force`` work as with ``--jobs``;
* a worker resolves its own data directory (``--data-dir`` only when the user gave it,
  else ``$STREAMLEARN_DATA`` in the worker's environment, else its cache) and verifies the
  files' checksums; a worker without them returns a failed record with the usual message;
* a run whose worker dies (``KilledWorker``, a closed connection) is resubmitted up to
  ``retries`` times, then recorded as failed with the reason. Failures that are not the
  learner's (lost worker, data missing on a worker) are marked ``retry_on_resume``, so
  the next ``streamlearn run`` computes them again;
* a worker process computes one run at a time, even when it was started with several
  threads (``dask worker --nthreads 4``): a run's CPU clock, peak memory and the
  global generators seeded for a user's learner are the process's, so two runs in
  threads of one process would corrupt each other's timings and, for a learner drawing
  from NumPy's global generator, each other's numbers. Threads beyond the first wait;
* Ctrl-C cancels every future; only complete records are on disk;
* before anything is written, the client checks that a Dask scheduler answers at the
  address (Dask's connection, handshake and an ``identity`` request under one deadline,
  :data:`CONNECT_TIMEOUT` = 10 s): a wrong address, a service that is not Dask (an HTTP
  server, a port sending garbage) or a Dask worker is exit 2 with the address and the
  cause, never a hang (Dask's own timeout does not cover its handshake).
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import signal
import threading
import time
import traceback
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamlearn.errors import UserError
from streamlearn.evaluation.runs import (
    ComputedRun,
    Progress,
    RunOutcome,
    RunSpec,
    base_record,
    compute_run,
    write_computed,
)

INSTALL_HINT = "pip install 'streamlearn[dask]'"
#: Seconds to connect to a scheduler and hear it answer as one (``DaskBackend.connect_timeout``).
CONNECT_TIMEOUT = 10.0
EVENT_TOPIC = "streamlearn-run-started"
POLL_SECONDS = 0.2
#: seconds without a single worker after which the runs still waiting fail (retried on
#: resume): a scheduler restarted without its workers, or one that never had any, had
#: left the command waiting for ever, silent under --quiet
NO_WORKER_SECONDS = 120.0


def require_dask() -> None:
    """Stop with an install hint when Dask's distributed scheduler is not installed."""
    if importlib.util.find_spec("distributed") is None:
        raise UserError("--backend dask needs Dask's distributed scheduler, which is not "
                        f"installed. Install the extra: {INSTALL_HINT}")


# --------------------------------------------------------------------------------------
# On the worker
# --------------------------------------------------------------------------------------


def _worker_address() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return "(not in a worker)"


#: held while a worker process computes a run: one run at a time per process, whatever
#: the worker's thread count (see the module's docstring)
_ONE_RUN_PER_PROCESS = threading.Lock()


def run_on_worker(spec: RunSpec, data_dir: str | None) -> ComputedRun:
    """Compute one run on a worker and return it; nothing is written on the worker.
    Runs in threads of one worker process take turns (:data:`_ONE_RUN_PER_PROCESS`).

    ``data_dir`` is the client's ``--data-dir`` when the user gave one, else ``None``: the
    worker then resolves its own. A problem that is not the learner's (data missing or
    corrupt on this worker, a config this worker cannot load) is a failed record naming
    the worker, marked ``retry_on_resume``."""
    with _ONE_RUN_PER_PROCESS:
        return _run_on_worker(spec, data_dir)


def _run_on_worker(spec: RunSpec, data_dir: str | None) -> ComputedRun:
    t0 = time.perf_counter()
    try:
        from distributed import get_worker

        get_worker().log_event(EVENT_TOPIC, {"run_id": spec.run_id})
    except (ImportError, ValueError):  # not in a worker (called directly)
        pass
    try:
        return compute_run(spec, data_dir)
    except Exception as exc:
        where = _worker_address()
        record = base_record(spec)
        record.update(status="failed", retry_on_resume=True, worker=where,
                      error=f"{type(exc).__name__} on worker {where}: {exc}",
                      traceback=traceback.format_exc(limit=8))
        return ComputedRun(record, RunOutcome(spec.run_id, "failed",
                                              time.perf_counter() - t0, record["error"]))


# --------------------------------------------------------------------------------------
# On the client
# --------------------------------------------------------------------------------------


def check_scheduler(address: str, timeout: float) -> None:
    """Raise unless a Dask scheduler answers at ``address`` within ``timeout`` seconds.

    A TCP address is first reached with a plain socket (a refused or unreachable port is
    an ``OSError`` at once); then Dask's connection, handshake and an ``identity`` request
    run under one deadline — Dask's ``Client`` bounds the connection but not the handshake,
    which a service that is not Dask leaves waiting, or feeds garbage. Anything that is not
    a scheduler's answer is a ``ValueError`` saying so. Runs in a thread of its own, so it
    works whether or not the caller has an event loop running."""
    import asyncio
    import socket
    from concurrent.futures import ThreadPoolExecutor

    from distributed.comm import connect, parse_address
    from distributed.comm.addressing import parse_host_port
    from distributed.security import Security

    t0 = time.monotonic()
    scheme, loc = parse_address(address)
    if scheme in ("tcp", "tls"):
        host, port = parse_host_port(loc)
        socket.create_connection((host, port), timeout=timeout).close()

    async def identity() -> Any:
        comm = await connect(address, timeout=timeout,
                             **Security().get_connection_args("client"))
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    async def bounded() -> Any:
        return await asyncio.wait_for(identity(), max(timeout - (time.monotonic() - t0), 0.1))

    with ThreadPoolExecutor(1, thread_name_prefix="streamlearn-dask-check") as pool:
        try:
            reply = pool.submit(asyncio.run, bounded()).result()
        except TimeoutError:
            raise ValueError(f"no answer in Dask's protocol within {timeout:g} s (not a "
                             "Dask scheduler?)") from None
        except OSError:
            raise
        except Exception as exc:  # garbage: a frame length of exabytes, a bad header, ...
            raise ValueError(f"its answer is not Dask's protocol, so not a Dask scheduler "
                             f"({type(exc).__name__}: {exc})") from None
    kind = reply.get("type") if isinstance(reply, dict) else None
    if kind != "Scheduler":
        raise ValueError(f"it answered as {kind or type(reply).__name__!r}, not as a Dask "
                         "scheduler")


def _lost_worker_errors() -> tuple[type[BaseException], ...]:
    """Exceptions of a future meaning "the worker (or the connection) went away"."""
    from concurrent.futures import CancelledError

    from distributed.comm.core import CommClosedError
    from distributed.scheduler import KilledWorker

    return (KilledWorker, CommClosedError, CancelledError, ConnectionError)


def _scheduler_lost(client: Any) -> bool:
    """True once the client has closed itself: its scheduler went away and did not come
    back within Dask's reconnect timeout (every future is then cancelled)."""
    return str(getattr(client, "status", "running")) in ("closing", "closed")


def _failed(spec: RunSpec, error: str, seconds: float) -> ComputedRun:
    record = base_record(spec)
    record.update(status="failed", retry_on_resume=True, error=error)
    return ComputedRun(record, RunOutcome(spec.run_id, "failed", seconds, error))


@contextlib.contextmanager
def _sigint_ignored_by_children() -> Iterator[None]:
    """SIGINT ignored while the local cluster starts its worker processes, which inherit
    that (an ignored signal stays ignored across ``exec``; Python installs its Ctrl-C
    handler only where SIGINT is not ignored): a terminal's Ctrl-C reaches the whole
    process group, and each worker had printed a ~30-line ``KeyboardInterrupt`` traceback
    beside the client's clean exit 130. The client still stops them (it closes the
    cluster); a worker the nanny restarts later inherits the client's handler."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@dataclass
class DaskBackend:
    """Where and how the runs go: a scheduler address, or a local cluster of ``workers``
    single-threaded worker processes (``scheduler`` None)."""

    scheduler: str | None = None
    workers: int = 2
    retries: int = 2
    worker_data_dir: str | None = None
    connect_timeout: float = field(default_factory=lambda: CONNECT_TIMEOUT)
    _client: Any = field(default=None, init=False, repr=False)
    _cluster: Any = field(default=None, init=False, repr=False)

    @property
    def checks_data_on_client(self) -> bool:
        """A local cluster shares the client's files, so missing data is found before any
        run starts; remote workers check their own files, run by run."""
        return self.scheduler is None

    def connect(self) -> None:
        """Connect to the scheduler (or start the local cluster); a no-op when connected.
        The CLI connects to a remote scheduler before anything is written, so a wrong
        address is a message, not an output directory without runs."""
        if self._client is None:
            self._cluster, self._client = self._connect()

    def close(self) -> None:
        """Disconnect (and stop the local cluster); a no-op when not connected."""
        client, cluster = self._client, self._cluster
        self._client = self._cluster = None
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()

    def _connect(self) -> tuple[Any, Any]:
        require_dask()
        import dask
        from distributed import Client, LocalCluster

        if self.scheduler is None:
            # A dying worker's run is handed back to the client at once (allowed-failures
            # 0), so --retries alone bounds the attempts; a worker holds only the run it
            # executes (saturation 1.0), so its death takes no queued run with it.
            with dask.config.set({"distributed.scheduler.allowed-failures": 0,
                                  "distributed.scheduler.worker-saturation": 1.0}), \
                    _sigint_ignored_by_children():
                cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                       processes=True, host="127.0.0.1",
                                       # the scheduler's HTTP endpoints: loopback, any free
                                       # port (None would still take 8787 on all interfaces)
                                       dashboard_address="127.0.0.1:0",
                                       scheduler_kwargs={"dashboard": False},
                                       # CRITICAL: a worker whose heartbeat meets the
                                       # scheduler already closed (Ctrl-C) logs an ERROR
                                       # with a traceback; the client reports every lost
                                       # worker and run itself
                                       memory_limit=0, silence_logs=logging.CRITICAL)
            return cluster, Client(cluster)
        try:
            check_scheduler(self.scheduler, self.connect_timeout)
            client = Client(self.scheduler, timeout=self.connect_timeout)
        except Exception as exc:  # refused, timed out, not Dask, ...
            cause = str(exc) if type(exc) is ValueError else f"{type(exc).__name__}: {exc}"
            raise UserError(
                f"Cannot connect to the Dask scheduler at {self.scheduler!r} (connect "
                f"timeout {self.connect_timeout:g} s): {cause}. Start one with `dask "
                "scheduler` (workers: `dask worker ADDRESS --nthreads 1`), or drop "
                "--scheduler to use a local cluster.") from None
        return None, client

    def run(self, pending: list[RunSpec], out_dir: Path,
            progress: Progress) -> Iterator[RunOutcome]:
        """Submit every pending run; write each record on the client as it arrives."""
        self.connect()
        client = self._client
        started: set[str] = set()
        lock = threading.Lock()

        def on_started(event: tuple[float, dict[str, Any]]) -> None:
            with lock:
                started.add(str(event[1].get("run_id")))

        futures: dict[Any, RunSpec] = {}
        try:
            client.subscribe_topic(EVENT_TOPIC, on_started)
            lost = _lost_worker_errors()
            attempts: dict[str, int] = {}
            t_first: dict[str, float] = {}

            def submit(spec: RunSpec) -> ComputedRun | None:
                # None: submitted; a failed run when the scheduler is gone (the client
                # closed itself after failing to reconnect), to be retried on resume
                attempts[spec.run_id] = attempts.get(spec.run_id, 0) + 1
                t_first.setdefault(spec.run_id, time.perf_counter())
                if _scheduler_lost(client):
                    return self._scheduler_lost_run(spec, t_first[spec.run_id])
                key = f"streamlearn-{spec.run_id}-{attempts[spec.run_id]}-{uuid.uuid4().hex[:8]}"
                try:
                    future = client.submit(run_on_worker, spec, self.worker_data_dir,
                                           key=key, pure=False)
                except Exception:
                    if not _scheduler_lost(client):
                        raise
                    return self._scheduler_lost_run(spec, t_first[spec.run_id])
                futures[future] = spec
                return None

            for spec in pending:
                if (computed := submit(spec)) is not None:
                    write_computed(out_dir, computed)
                    yield computed.outcome
            last_status: tuple[int, int, int] | None = None
            workers_seen = time.perf_counter()  # the last time the cluster had a worker
            while futures:
                done = [f for f in futures if f.done()]
                for fut in done:
                    spec = futures.pop(fut)
                    try:
                        computed = fut.result()
                    except lost as exc:
                        n = attempts[spec.run_id]
                        if _scheduler_lost(client):
                            computed = self._scheduler_lost_run(spec, t_first[spec.run_id])
                        elif n <= self.retries:
                            if (computed := submit(spec)) is None:
                                continue
                        else:
                            computed = _failed(
                                spec, f"worker lost {n} time(s) (--retries {self.retries}); "
                                f"last: {type(exc).__name__}: {exc}",
                                time.perf_counter() - t_first[spec.run_id])
                    except Exception as exc:  # e.g. the worker cannot unpickle the run
                        computed = _failed(spec, f"{type(exc).__name__}: {exc}",
                                           time.perf_counter() - t_first[spec.run_id])
                    finally:
                        if not _scheduler_lost(client):
                            fut.release()
                    write_computed(out_dir, computed)
                    yield computed.outcome
                with lock:  # a start event may arrive after its result: count in-flight only
                    running = len(started & {s.run_id for s in futures.values()})
                n_workers = len(client.scheduler_info().get("workers", {}))
                status = (n_workers, running, len(futures) - running)
                if status != last_status:
                    progress.cluster_status(*status)
                    last_status = status
                now = time.perf_counter()
                if n_workers:
                    workers_seen = now
                elif now - workers_seen > NO_WORKER_SECONDS and futures:
                    for fut, spec in list(futures.items()):
                        futures.pop(fut)
                        fut.cancel()
                        computed = _failed(
                            spec, f"the Dask scheduler had no worker for "
                            f"{NO_WORKER_SECONDS:.0f} s, so this run was not computed; "
                            f"start workers (`dask worker ADDRESS --nthreads 1`) and run "
                            f"the same command again to compute it",
                            now - t_first[spec.run_id])
                        write_computed(out_dir, computed)
                        yield computed.outcome
                if not done:
                    time.sleep(POLL_SECONDS)
        finally:
            # interrupted (Ctrl-C) or a write failed: stop the cluster's work (a scheduler
            # that is gone has none left to stop)
            if futures and not _scheduler_lost(client):
                client.cancel(list(futures))
            self.close()

    def _scheduler_lost_run(self, spec: RunSpec, t_first: float) -> ComputedRun:
        """The failed record of a run the scheduler took with it: retried on resume."""
        where = f"at {self.scheduler!r}" if self.scheduler else "of the local cluster"
        return _failed(spec, f"the Dask scheduler {where} was lost before this run "
                       "finished (Dask could not reconnect and closed the client); run the "
                       "same command again, with a scheduler, to compute it",
                       time.perf_counter() - t_first)
