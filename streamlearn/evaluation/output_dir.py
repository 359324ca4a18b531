"""The output directory of an experiment: writability checks and a lock.

Two ``streamlearn run`` on one directory would both write ``experiment.json`` and the
tables, and the start-up cleanup of one would delete the other's temporary files. A run
therefore holds an exclusive ``flock`` on ``<out>/.streamlearn.lock`` for its whole
duration (released by the kernel when the process dies, even by ``kill -9``); a second
run stops at once with a message naming the holder.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import TracebackType

from streamlearn.atomic import OutputError, describe_os_error
from streamlearn.base import UserError

LOCK_NAME = ".streamlearn.lock"


class OutputDirBusy(UserError):
    """Another process is running an experiment in this output directory."""

    exit_code = 5


def check_writable(out_dir: Path, create: bool = True) -> None:
    """Fail with a message (not a traceback) when ``out_dir`` cannot hold results: it is a
    file or a device, or it (or its first existing parent) is not writable. With
    ``create`` the directory is created (as a run does); without, nothing is written."""
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        kind = "a file" if out_dir.is_file() else "not a directory (a device or special file)"
        raise OutputError(f"The output directory {out_dir} is {kind}; give a directory "
                          "(outputs.dir in the config, or --out).")
    if create:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
            probe = out_dir / f".streamlearn-write-probe.{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise OutputError(f"Cannot write to the output directory {out_dir}: "
                              f"{describe_os_error(exc)} ({exc}).") from None
        return
    parent = out_dir
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise OutputError(f"Cannot create the output directory {out_dir}: {parent} is "
                          "not a directory.")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"Cannot create or write the output directory {out_dir}: {parent} "
                          "is not writable.")


class OutputDirLock:
    """Exclusive lock on an output directory for the duration of a ``with`` block."""

    def __init__(self, out_dir: Path) -> None:
        self.path = Path(out_dir) / LOCK_NAME
        self._fd: int | None = None

    def __enter__(self) -> OutputDirLock:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not on Windows
            return self
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise OutputError(f"Cannot create the lock file {self.path}: "
                              f"{describe_os_error(exc)} ({exc}).") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise OutputDirBusy(
                f"Another streamlearn run (process {holder}) is using the output directory "
                f"{self.path.parent}. Wait for it to finish, or give another directory with "
                "--out.") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._fd = fd
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._fd is not None:
            os.close(self._fd)  # releases the flock
            self._fd = None
