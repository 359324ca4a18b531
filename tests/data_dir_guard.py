"""Prove that loading leaves a data directory alone, whether it is writable or not.

We run as root, where ``chmod`` does not stop a write, so "read-only" is made by
:func:`forbid_writes` (every call that would create, change or remove something under the
directory fails with ``EROFS`` and is recorded), and "nothing was written" is checked by
comparing :func:`snapshot` before and after.
"""

from __future__ import annotations

import builtins
import errno
import io
import os
from pathlib import Path
from typing import Any

import pytest

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def snapshot(root: Path) -> dict[str, tuple[int, int, int]]:
    """Every entry under ``root`` (``root`` included, links not followed): mode, size and
    mtime in ns. A file or directory created, removed or changed shows up as a difference."""
    out = {}
    for folder, dirs, files in os.walk(root):
        for name in [".", *dirs, *files]:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            out[os.path.relpath(path, root)] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return out


def link_copy(src: Path, dest: Path, rel_paths: list[str]) -> Path:
    """A writable data directory ``dest`` whose files ``rel_paths`` are symbolic links to
    those of ``src`` (no data copied)."""
    for rel in rel_paths:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to((src / rel).resolve())  # absolute: src may be relative
    return dest


def forbid_writes(monkeypatch: pytest.MonkeyPatch, root: Path) -> list[str]:
    """Make ``root`` read-only for this process; returns the list of refused attempts
    (``"<call> <path>"``), which a test can assert empty."""
    prefix = os.path.realpath(root)
    attempts: list[str] = []

    def inside(path: Any) -> bool:
        if isinstance(path, int):  # a file descriptor: not a path
            return False
        # Resolve the parent, not the entry itself: a symbolic link in ``root`` to a file
        # elsewhere is still an entry of ``root``.
        p = os.path.abspath(os.fsdecode(path))
        parent = os.path.realpath(os.path.dirname(p))
        full = os.path.join(parent, os.path.basename(p))
        return full == prefix or full.startswith(prefix + os.sep)

    def refuse(call: str, path: Any) -> None:
        attempts.append(f"{call} {os.fsdecode(path)}")
        raise PermissionError(errno.EROFS, os.strerror(errno.EROFS), os.fsdecode(path))

    def guard_paths(name: str, n_paths: int = 1) -> None:
        original = getattr(os, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            exists = name == "mkdir" and os.path.lexists(args[0])  # fails with EEXIST anyway
            for path in args[:n_paths]:
                if inside(path) and not exists:
                    refuse(name, path)
            return original(*args, **kwargs)

        monkeypatch.setattr(os, name, wrapper)

    for name in ("mkdir", "rmdir", "unlink", "remove", "chmod", "utime", "truncate"):
        guard_paths(name)
    for name in ("replace", "rename", "link", "symlink"):
        guard_paths(name, 2)

    os_open = os.open

    def guarded_os_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & _WRITE_FLAGS and inside(path):
            refuse("os.open", path)
        return os_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded_os_open)

    io_open = io.open

    def guarded_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if any(c in mode for c in "wax+") and inside(file):
            refuse("open", file)
        return io_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded_open)
    monkeypatch.setattr(io, "open", guarded_open)
    return attempts
