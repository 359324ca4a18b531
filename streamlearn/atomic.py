"""The one atomic file writer of streamlearn: run records, tables, plots and data caches.

A file is written to a temporary sibling (``.<name>.<pid>~<random>.tmp``), flushed and
``fsync``-ed, given the permissions a plain ``open()`` would give it (``0o666`` less the
umask; ``mkstemp`` alone creates ``0o600``), renamed over the destination and the
directory entry is ``fsync``-ed too. A reader therefore sees the old file or the new one,
never a half-written one, even after a power cut.

Operating-system failures (disk full, read-only directory, a name too long for the file
system) raise :class:`OutputError`, a :class:`~streamlearn.errors.UserError` that names the
file, so the CLI prints a message instead of a traceback. Callers for which a write is
optional (parsed-data caches) catch it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from streamlearn.errors import UserError

TMP_SUFFIX = ".tmp"
PID_MARK = "~"  # temporary names carry the writer's pid: ".<name>.<pid>~<random>.tmp"


class OutputError(UserError):
    """An output file or directory cannot be written (disk full, read-only, bad name)."""

    exit_code = 4


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_umask()


def describe_os_error(exc: OSError) -> str:
    """``strerror`` with a hint for the common cases."""
    import errno

    hints = {
        errno.ENOSPC: "the disk is full",
        errno.EDQUOT: "the disk quota is exceeded",
        errno.EROFS: "the file system is read-only",
        errno.EACCES: "permission denied",
        errno.EPERM: "operation not permitted",
        errno.ENAMETOOLONG: "a file name is too long for the file system (255 bytes at most)",
        errno.ENOTDIR: "a part of the path is a file, not a directory",
        errno.EISDIR: "the path is a directory",
    }
    return hints.get(exc.errno or -1, exc.strerror or str(exc))


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. on platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse fsync on directories
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def open_write(path: Path, *, suffix: str = TMP_SUFFIX) -> Iterator[BinaryIO]:
    """A binary file that replaces ``path`` atomically when the ``with`` block succeeds.

    For writers that stream (downloads): the block writes to a temporary sibling
    ``.<name>.<random><suffix>``; on a normal exit it is fsync-ed, given the umask's mode,
    renamed over ``path`` and the directory is fsync-ed. If the block raises, the
    temporary file is removed and ``path`` is left as it was, so a caller can check the
    content (a checksum) before it is installed. OS errors, the block's included, raise
    :class:`OutputError`; other exceptions pass through.
    """
    path = Path(path)
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=suffix,
                                   prefix=f".{path.name[:200]}.{os.getpid()}{PID_MARK}")
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _FILE_MODE)
        os.replace(tmp, path)
        tmp = None
        _fsync_dir(path.parent)
    except OSError as exc:
        raise OutputError(f"Cannot write {path}: {describe_os_error(exc)} ({exc}).") from None
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


def write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temporary file, fsync, rename, fsync dir)."""
    with open_write(path) as fh:
        fh.write(data)


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def write_json(path: Path, obj: Any) -> None:
    """Write ``obj`` as indented JSON (NumPy scalars and arrays converted), atomically."""
    text = json.dumps(obj, indent=1, sort_keys=False, default=_json_default, allow_nan=True)
    write_bytes(path, (text + "\n").encode("utf-8"))


def npz_bytes(**arrays: np.ndarray) -> bytes:
    """Compressed ``.npz`` bytes of ``arrays``."""
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)  # type: ignore[arg-type]
    return buf.getvalue()


def write_npz(path: Path, **arrays: np.ndarray) -> None:
    """Write compressed ``.npz`` arrays atomically."""
    write_bytes(path, npz_bytes(**arrays))


def temporary_owner(tmp_name: str) -> int | None:
    """The pid that wrote a temporary file of :func:`write_bytes` (None if not ours)."""
    if not (tmp_name.startswith(".") and tmp_name.endswith(TMP_SUFFIX)):
        return None
    head = tmp_name[: -len(TMP_SUFFIX)].rpartition(PID_MARK)[0]
    pid = head.rpartition(".")[2]
    return int(pid) if pid.isdigit() else None


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True
