"""Run records on disk: one JSON file per run, written atomically.

Layout of an output directory::

    <out>/experiment.json            resolved config and the list of planned runs
    <out>/runs/<run_id>.json         one record per (stream, algorithm, seed)
    <out>/runs/<run_id>.pred.npz     predictions (only with evaluation.save_predictions;
                                     the record names their SHA-256)
    <out>/summary.md, summary.csv    tables (rebuilt by `streamlearn report`)
    <out>/*.png                      plots

A record is complete when it parses and carries ``"complete": true`` and the digest of
the run specification it was produced from. A run whose record is complete with the same
digest is skipped on re-run (resume); a record with a different digest is recomputed.

``streamlearn run --force`` recomputes runs whose records are complete, for a change the
digest cannot see (a file a user's stream reads, an installed package). It keeps the run
ids it has still to redo in ``<out>/.streamlearn-force.json`` (:class:`ForcedRuns`),
written before its first run and emptied as runs are recorded: an interrupted ``--force``
resumed without ``--force`` redoes those runs instead of reusing the records from before
the change (it had mixed old and new results in one mean, exit 0).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from streamlearn import atomic
from streamlearn.errors import UserError

SCHEMA_VERSION = 1

#: the runs an interrupted ``streamlearn run --force`` has still to redo (module docstring)
FORCE_NAME = ".streamlearn-force.json"


# The one atomic writer (temporary file + fsync + rename), re-exported under the names
# the rest of the package uses.
atomic_write_bytes = atomic.write_bytes
atomic_write_json = atomic.write_json
atomic_write_npz = atomic.write_npz


def read_json(path: Path) -> dict[str, Any] | None:
    """Parse a JSON file; ``None`` when missing or unreadable (e.g. half-written)."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def record_path(out_dir: Path, run_id: str) -> Path:
    return out_dir / "runs" / f"{run_id}.json"


def predictions_path(out_dir: Path, run_id: str) -> Path:
    """The saved predictions beside a run's record (``evaluation.save_predictions``)."""
    return out_dir / "runs" / f"{run_id}.pred.npz"


def predictions_match(record: dict[str, Any] | None, data: bytes | None) -> bool:
    """Whether ``data`` (a ``.pred.npz``'s bytes; None: no file) are the predictions
    ``record`` names by their SHA-256 (``predictions_sha256``, written with them). A
    record made before that field was kept names none: any file is taken, as then."""
    if data is None:
        return False
    expected = record.get("predictions_sha256") if isinstance(record, dict) else None
    return expected is None or hashlib.sha256(data).hexdigest() == expected


def read_predictions_of(record: dict[str, Any] | None, path: Path) -> bytes | None:
    """The bytes of the predictions file ``path`` when they are ``record``'s
    (:func:`predictions_match`); None when there is none or it is another run's."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    return data if predictions_match(record, data) else None


def is_complete(record: dict[str, Any] | None, digest: str) -> bool:
    """A record that resume may keep: a successful run, marked complete, of this run's
    digest and schema, carrying its metrics; anything else is recomputed. A failed run
    (the learner raised, or a worker was lost) is computed again by the next ``streamlearn
    run``: its cause may have been fixed or may not recur, and a result set must not stay
    short of a run because an earlier attempt failed."""
    return bool(
        isinstance(record, dict)
        and record.get("complete") is True
        and record.get("digest") == digest
        and record.get("schema_version") == SCHEMA_VERSION
        and record.get("status") == "ok"
        and isinstance(record.get("metrics"), dict)
    )


class ForcedRuns:
    """The run ids of an output directory whose records a ``--force`` run asked to
    recompute and that are not recomputed yet, kept in ``<out>/.streamlearn-force.json``.

    Read it (:meth:`read`) before deciding which runs to skip: a run it lists is computed
    again whatever its record says. Add the runs a ``--force`` recomputes, :meth:`save`
    before the first run starts, call :meth:`done` once a run's record is written, and
    :meth:`save` at the end (the file is removed once no run is left). Between runs the
    file is rewritten at most once a second: a run recorded but still listed (the process
    killed in between) is only computed once more, never reused from before the force."""

    #: seconds between two rewrites of the file while runs finish
    INTERVAL = 1.0

    def __init__(self, out_dir: Path, run_ids: Iterable[str] = ()) -> None:
        self.path = Path(out_dir) / FORCE_NAME
        self.run_ids = set(run_ids)
        self._saved: set[str] = set()  # what the file holds (read: what it was read with)
        self._last = 0.0

    @classmethod
    def read(cls, out_dir: Path) -> ForcedRuns:
        """The runs listed in ``out_dir`` (none without the file); an unreadable file is
        a user error naming it (nothing is guessed: its runs may be stale)."""
        path = Path(out_dir) / FORCE_NAME
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls(out_dir)
        except (OSError, ValueError) as exc:
            raise UserError(f"{path} cannot be read ({exc}): it lists the runs an "
                            "interrupted `streamlearn run --force` had still to redo. Run "
                            "again with --force (or remove the file to reuse every complete "
                            "record). Nothing was run.") from None
        ids = data.get("run_ids") if isinstance(data, dict) else None
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise UserError(f"{path} is not a list of run ids (`run_ids`): run again with "
                            "--force, or remove the file. Nothing was run.")
        forced = cls(out_dir, ids)
        forced._saved = set(forced.run_ids)
        return forced

    def done(self, run_id: str) -> None:
        """``run_id``'s record is written: no longer to redo."""
        if run_id in self.run_ids:
            self.run_ids.discard(run_id)
            if time.monotonic() - self._last >= self.INTERVAL:
                self.save()

    def save(self) -> None:
        """Write the list atomically (remove the file when it is empty), if it changed."""
        if self.run_ids == self._saved:
            return
        if self.run_ids:
            atomic_write_json(self.path, {"run_ids": sorted(self.run_ids),
                                          "what": "runs an interrupted `streamlearn run "
                                                  "--force` has still to redo"})
        else:
            self.path.unlink(missing_ok=True)
        self._saved = set(self.run_ids)
        self._last = time.monotonic()


def clean_temporaries(out_dir: Path) -> int:
    """Remove temporary files left by killed writers; returns how many were removed.

    Only files named as :mod:`streamlearn.atomic` names its temporaries whose writer
    process is gone are removed: a concurrent writer (another run is excluded by the
    directory lock, but ``streamlearn report`` is not) keeps its own, and a hidden
    ``.notes.tmp`` of the user's is not the tool's (it was deleted too)."""
    removed = 0
    runs = out_dir / "runs"
    for folder in (out_dir, runs):
        if folder.is_dir():
            for tmp in folder.glob(".*" + atomic.TMP_SUFFIX):
                owner = atomic.temporary_owner(tmp.name)
                if owner is None or atomic.process_alive(owner):
                    continue
                tmp.unlink(missing_ok=True)
                removed += 1
    return removed


@functools.cache
def git_commit() -> str | None:
    """Commit of the streamlearn source tree (``+dirty`` when modified), if in git."""
    here = Path(__file__).resolve().parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5
        )
        if head.returncode != 0:
            return None
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", "."],
            cwd=here, capture_output=True, text=True, timeout=5,
        )
        suffix = "+dirty" if dirty.stdout.strip() else ""
        return head.stdout.strip() + suffix
    except (OSError, subprocess.SubprocessError):
        return None


#: the distributions every record's ``versions`` names (CapyMOA when installed): the
#: environment of a run, not part of its identity (an installed learner of one of them,
#: ``river.linear_model:LogisticRegression``, is identified by its name, as a registered
#: one; any other distribution's learner by its version and files, see
#: :mod:`~streamlearn.evaluation.code_identity`)
ENVIRONMENT = ("streamlearn", "numpy", "scipy", "numba", "river", "pandas", "capymoa")


@functools.cache
def package_versions() -> dict[str, str]:
    from importlib import metadata

    versions = {"python": platform.python_version()}
    for pkg in ENVIRONMENT:
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            # MOA's learners run through the optional CapyMOA (moa.jar ships inside it)
            if pkg != "capymoa":
                versions[pkg] = "not installed"
    return versions


@functools.cache
def _cpu_model() -> str:
    """The CPU's model name (Linux: /proc/cpuinfo; elsewhere what ``platform`` says)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Processor", "cpu model") and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


@functools.cache
def _vector_isa() -> dict[str, str]:
    """The widest x86 vector extension the CPU reports (/proc/cpuinfo flags) and the CPU
    Numba compiles its kernels for: both set the summation order of vectorised reductions,
    so records from two machines can differ in the last bits (README, "Seeds and
    reproducibility")."""
    isa = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key.strip() in ("flags", "Features"):
                    flags = set(value.split())
                    isa = next((name for flag, name in (("avx512f", "AVX-512"),
                                ("avx2", "AVX2"), ("avx", "AVX"), ("sse2", "SSE2"),
                                ("asimd", "NEON")) if flag in flags), "other")
                    break
    except OSError:
        pass
    return {"vector_isa": isa, **_numba_target()}


#: ``machine.jit_cpu`` of a record made with ``NUMBA_DISABLE_JIT=1``: nothing was compiled
NO_JIT = "none (NUMBA_DISABLE_JIT)"


def _numba_target() -> dict[str, str]:
    """The CPU Numba compiles for (``NUMBA_CPU_NAME``, else the host's) and, when Numba's
    features are set (``NUMBA_CPU_FEATURES``, or :mod:`streamlearn.kernels._jit_target`'s
    ``-prefer-256-bit``), ``jit_features``: those not among the host's own ("" when the
    named CPU's own features are used); ``jit_svml`` when Numba uses Intel's SVML (off
    unless the user turns it on, see ``streamlearn/__init__.py``). Under
    ``NUMBA_DISABLE_JIT`` the kernels run as Python: ``jit_cpu`` is :data:`NO_JIT`, and
    no features or SVML are named."""
    try:
        from llvmlite import binding
        from numba.core import config

        if getattr(config, "DISABLE_JIT", False):
            return {"jit_cpu": NO_JIT}
        name, features = getattr(config, "CPU_NAME", None), getattr(config, "CPU_FEATURES", None)
        out = {"jit_cpu": str(name or binding.get_host_cpu_name())}
        if getattr(config, "USING_SVML", False):  # the user's NUMBA_DISABLE_INTEL_SVML=0
            out["jit_svml"] = "on"
        if features is not None:
            host = set(binding.get_host_cpu_features().flatten().split(","))
            out["jit_features"] = ",".join(
                f for f in str(features).split(",") if f and f not in host)
        return out
    except Exception:  # pragma: no cover - llvmlite ships with numba
        return {"jit_cpu": "unknown"}


def machine_info() -> dict[str, Any]:
    """The machine a run's times were measured on, for the record: CPU model, its widest
    vector extension and Numba's target CPU, logical cores (and those this process may
    use), OS, and each BLAS library loaded with its kernel (OpenBLAS's ``architecture``)
    and its thread count at the moment of the call (inside a run: 1, see
    ``runs._single_thread_blas``)."""
    from threadpoolctl import threadpool_info

    blas = []
    for lib in threadpool_info():
        if lib.get("user_api") != "blas":
            continue
        entry = {"library": lib.get("internal_api"), "version": lib.get("version"),
                 "kernel": lib.get("architecture"), "threads": lib.get("num_threads")}
        if entry not in blas:  # NumPy's and SciPy's may be one library
            blas.append(entry)
    blas.sort(key=lambda e: (str(e["library"]), str(e["version"])))  # not load order
    try:
        usable: int | None = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on macOS or Windows
        usable = None
    return {"cpu": _cpu_model(), **_vector_isa(), "logical_cores": os.cpu_count(),
            "usable_cores": usable, "system": f"{platform.system()} {platform.machine()}",
            "blas": blas}
