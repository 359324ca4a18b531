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
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

SCHEMA_VERSION = 1


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same directory + rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def atomic_write_json(path: Path, obj: Any) -> None:
    text = json.dumps(obj, indent=1, sort_keys=False, default=_json_default, allow_nan=True)
    atomic_write_bytes(path, (text + "\n").encode("utf-8"))


def atomic_write_npz(path: Path, **arrays: np.ndarray) -> None:
    import io

    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    atomic_write_bytes(path, buf.getvalue())


def read_json(path: Path) -> dict[str, Any] | None:
    """Parse a JSON file; ``None`` when missing or unreadable (e.g. half-written)."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def record_path(out_dir: Path, run_id: str) -> Path:
    return out_dir / "runs" / f"{run_id}.json"


def is_complete(record: dict[str, Any] | None, digest: str) -> bool:
    return bool(
        record
        and record.get("complete") is True
        and record.get("digest") == digest
        and record.get("schema_version") == SCHEMA_VERSION
    )


def clean_temporaries(out_dir: Path) -> int:
    """Remove temporary files left by a killed run; returns how many were removed."""
    removed = 0
    runs = out_dir / "runs"
    for folder in (out_dir, runs):
        if folder.is_dir():
            for tmp in folder.glob(".*.tmp"):
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


@functools.cache
def package_versions() -> dict[str, str]:
    from importlib import metadata

    versions = {"python": platform.python_version()}
    for pkg in ("streamlearn", "numpy", "scipy", "numba", "river", "pandas"):
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = "not installed"
    return versions
