"""The output directory of an experiment: writability checks and a lock.

Two ``streamlearn run`` on one directory would both write ``experiment.json`` and the
tables, and the start-up cleanup of one would delete the other's temporary files. A run
therefore holds an exclusive ``flock`` on ``<out>/.streamlearn.lock`` for its whole
duration (released by the kernel when the process dies, even by ``kill -9``); a second
run stops at once with a message naming the holder. The lock file is removed when the run
ends, however it ends; one left by a killed run is stale (nobody holds its ``flock``) and
is simply taken over.

:class:`OutputRollback` undoes what a run added to the directory (the directory itself,
``experiment.json``) when it fails before writing any run record, so a failed start leaves
the directory as it found it.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from streamlearn.atomic import OutputError, describe_os_error
from streamlearn.errors import UserError
from streamlearn.evaluation.records import FORCE_NAME

LOCK_NAME = ".streamlearn.lock"


class OutputDirBusy(UserError):
    """Another process is running an experiment in this output directory."""

    exit_code = 5

    def __init__(self, message: str, holder: str = "unknown") -> None:
        super().__init__(message)
        self.holder = holder  # the process id the lock file names


def check_writable(out_dir: Path, create: bool = True) -> None:
    """Fail with a message (not a traceback) when ``out_dir`` cannot hold results: it is a
    file or a device, or it (or its first existing parent) is not writable. With
    ``create`` the directory is created (as a run does); without, nothing is written."""
    out_dir = Path(out_dir)
    for part in out_dir.parts:  # stat() itself fails on such a name ("File name too long")
        if len(os.fsencode(part)) > 255:
            raise OutputError(f"The output directory {str(out_dir)[:120]}... has a name of "
                              f"{len(os.fsencode(part))} bytes; file systems allow 255 per "
                              "name. Choose a shorter outputs.dir or --out.")
    _check_links(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        kind = "a file" if out_dir.is_file() else "not a directory (a device or special file)"
        raise OutputError(f"The output directory {out_dir} is {kind}; give a directory "
                          "(outputs.dir in the config, or --out).")
    _check_entries(out_dir)
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


def check_not_data_dir(out_dir: Path, data_dir: str | os.PathLike[str] | None) -> None:
    """Fail when ``out_dir`` is the data directory (``data_dir`` as the data functions
    take it: None for ``$STREAMLEARN_DATA`` or the default): the records and tables would
    be written among the datasets, where only ``streamlearn data fetch`` writes."""
    from streamlearn.datasets.store.locations import resolve_data_dir

    data = resolve_data_dir(data_dir)
    try:
        same = Path(out_dir).exists() and Path(out_dir).samefile(data)
    except OSError:
        return
    if same:
        raise OutputError(f"The output directory {out_dir} is the data directory {data}; "
                          "results are not written among the datasets. Give another "
                          "output directory (outputs.dir in the config, or --out).")


def _check_links(out_dir: Path) -> None:
    """A symbolic link on the way to ``out_dir`` that loops or points nowhere: say so
    (``mkdir`` would only say "File exists" or "Too many levels of symbolic links")."""
    for part in (out_dir, *out_dir.parents):
        if not part.is_symlink():
            continue
        try:
            part.stat()
        except OSError as exc:
            target = os.readlink(part)
            if exc.errno == errno.ELOOP:
                what = (f"a symbolic link that loops (it points to {target!r}, and "
                        "following the links never reaches a directory)")
            else:
                what = f"a symbolic link to {target!r}, which does not exist"
            where = ("The output directory" if part == out_dir
                     else f"On the way to the output directory {out_dir},")
            raise OutputError(f"{where} {part} is {what}. Give a directory (outputs.dir in "
                              "the config, or --out), or fix or remove the link.") from None


#: what a run writes into an output directory whatever its config, and what each must be
_ENTRIES = {"runs": ("a directory", "the run records"),
            "experiment.json": ("a file", "the resolved config and the planned runs")}


def _check_entries(out_dir: Path) -> None:
    """``runs`` that is a file, ``experiment.json`` that is a directory, either a link to
    nothing: say so before anything is computed (a traceback had come only when the first
    run was being recorded)."""
    if not out_dir.is_dir():
        return
    for name, (kind, holds) in _ENTRIES.items():
        path = out_dir / name
        if path.is_symlink() and not path.exists():
            what = f"a symbolic link to {os.readlink(path)!r}, which does not exist"
        elif not path.exists() or (path.is_dir() if kind == "a directory" else path.is_file()):
            continue
        elif path.is_dir():
            what = "a directory"
        elif path.is_file():
            what = "a file"
        else:
            what = "a device or special file"
        raise OutputError(f"{path} is {what}, but a run writes {holds} there and needs "
                          f"{kind}: move or remove it, or give another output directory "
                          "(outputs.dir in the config, or --out).")


def _created_by_mkdir(out_dir: Path) -> list[Path]:
    """The directories ``mkdir -p out_dir`` would create, deepest first."""
    out = []
    for part in (out_dir, *out_dir.parents):
        if part.exists() or part.is_symlink():
            break
        out.append(part)
    return out


class OutputDirLock:
    """Exclusive lock on an output directory for the duration of a ``with`` block."""

    def __init__(self, out_dir: Path,
                 then: str = "Wait for it to finish, or give another directory with --out."
                 ) -> None:
        self.path = Path(out_dir) / LOCK_NAME
        self.then = then  # what the message tells the user to do when the lock is held
        self._fd: int | None = None

    def __enter__(self) -> OutputDirLock:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not on Windows
            return self
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o666)
            except OSError as exc:
                raise OutputError(f"Cannot create the lock file {self.path}: "
                                  f"{describe_os_error(exc)} ({exc}).") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
                os.close(fd)
                raise OutputDirBusy(
                    f"Another streamlearn command (process {holder}) is using the output "
                    f"directory {self.path.parent}. {self.then}", holder) from None
            if self._is_current(fd):
                break
            # the holder removed the file between our open and our flock: the lock we hold
            # is on a file nobody else will open; take the lock on the path's file instead
            os.close(fd)
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
        except OSError as exc:
            self._fd = fd
            self._release()
            raise OutputError(f"Cannot write the lock file {self.path}: "
                              f"{describe_os_error(exc)} ({exc}).") from None
        self._fd = fd
        return self

    def _is_current(self, fd: int) -> bool:
        """Whether ``fd`` is still the file at ``self.path``."""
        try:
            st = os.stat(self.path, follow_symlinks=False)
        except OSError:
            return False
        mine = os.fstat(fd)
        return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)

    def _release(self) -> None:
        """Remove the lock file, then release the lock (in this order: a run that opens
        the path meanwhile either fails to lock it or sees it was removed and retries)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if self._is_current(fd):
                self.path.unlink(missing_ok=True)
        except OSError:
            pass  # e.g. the directory became read-only: the stale file is harmless
        finally:
            os.close(fd)  # releases the flock

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._release()


class OutputRollback:
    """Leave an output directory as it was found when a run fails before its first record.

    Create it *before* the directory is created (it notes which directories ``mkdir -p``
    adds), enter it, then, once the lock is held, enter :meth:`undo_on_failure` around the
    writing::

        rollback = OutputRollback(out_dir)
        check_writable(out_dir, create=True)
        with rollback, OutputDirLock(out_dir), rollback.undo_on_failure():
            ...

    When the block raises and no file was added to or changed in ``runs/``, the previous
    ``experiment.json`` and list of runs an interrupted ``--force`` left to redo
    (``.streamlearn-force.json``) are put back (or removed when there were none) and
    ``runs/`` removed if this run created it; after the lock file is gone the directories
    this run created are removed. Records of earlier runs are never touched. Once the runs
    have ended, :meth:`keep` ends the undo: what follows (the tables) is no longer the
    start of a run.
    """

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = Path(out_dir)
        self._new_dirs = _created_by_mkdir(self.out_dir)
        self._rolled_back = False
        self._kept = False

    def keep(self) -> None:
        """The run has ended: a failure from now on leaves the directory as it is."""
        self._kept = True

    def __enter__(self) -> OutputRollback:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc_type is None or not self._rolled_back:
            return
        for d in self._new_dirs:  # deepest first; only while empty
            try:
                d.rmdir()
            except OSError:
                break

    def _runs_state(self) -> dict[str, tuple[int, int, int]]:
        runs = self.out_dir / "runs"
        out = {}
        if runs.is_dir():
            for p in runs.iterdir():
                if not p.name.startswith("."):  # temporaries are not records
                    st = p.stat()
                    out[p.name] = (st.st_ino, st.st_size, st.st_mtime_ns)
        return out

    @contextmanager
    def undo_on_failure(self) -> Iterator[None]:
        """Snapshot the directory now; on an exception with no record written, undo."""
        before: dict[Path, bytes | None] = {}
        for name in ("experiment.json", FORCE_NAME):
            try:
                before[self.out_dir / name] = (self.out_dir / name).read_bytes()
            except FileNotFoundError:
                before[self.out_dir / name] = None
        runs_existed = (self.out_dir / "runs").exists()
        records_before = self._runs_state()
        try:
            yield
        except BaseException:
            if not self._kept and self._runs_state() == records_before:
                self._undo(before, runs_existed)
            raise

    def _undo(self, before: dict[Path, bytes | None], runs_existed: bool) -> None:
        from streamlearn.atomic import write_bytes

        runs = self.out_dir / "runs"
        try:
            for path, data in before.items():
                if data is None:
                    path.unlink(missing_ok=True)
                elif not path.is_file() or path.read_bytes() != data:
                    write_bytes(path, data)
            if not runs_existed and runs.is_dir():
                runs.rmdir()
        except (OSError, OutputError):
            return  # best effort: the error being raised is what the user needs to see
        self._rolled_back = True
