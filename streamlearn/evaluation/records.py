"""Run records on disk: one JSON file per run, written atomically.

Layout of an output directory::

    <out>/experiment.json            resolved config and the list of planned runs
    <out>/runs/<run_id>.json         one record per (stream, algorithm, seed)
    <out>/runs/<run_id>.pred.npz     predictions (only with evaluation.save_predictions)
    <out>/summary.md, summary.csv    tables (rebuilt by `streamlearn report`)
    <out>/*.png                      plots

A record is complete when it parses and carries ``"complete": true`` and the digest of
the run specification it was produced from. A run whose record is complete with the same
digest is skipped on re-run (resume); a record with a different digest is recomputed.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from streamlearn import atomic

SCHEMA_VERSION = 1


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


def _numba_target() -> dict[str, str]:
    """The CPU Numba compiles for (``NUMBA_CPU_NAME``, else the host's) and, when Numba's
    features are set (``NUMBA_CPU_FEATURES``, or :mod:`streamlearn.kernels._jit_target`'s
    ``-prefer-256-bit``), ``jit_features``: those not among the host's own ("" when the
    named CPU's own features are used); ``jit_svml`` when Numba uses Intel's SVML (off
    unless the user turns it on, see ``streamlearn/__init__.py``)."""
    try:
        from llvmlite import binding
        from numba.core import config

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
