"""Which code computes a run: streamlearn's own source and a user's learner's source file.

A run's record names the code it was planned with (``code_sha256`` in its spec for a
user's learner; the client's streamlearn source travels with the spec). The process that
computes the run — this one with ``--jobs 1``, a pool worker, a Dask worker — checks that
the code it has *loaded* is that code, and otherwise fails the run (``retry_on_resume``).
Before this check, a Dask worker holding an older copy of ``my_learner.py``, or a pool
worker started after the user edited the file mid-experiment, computed runs with other
code under the planned hash: mixed versions in one summary, exit 0.

Each hash is taken once per process and class object, at first use, which is right after
the import: a file edited later does not change what this process runs, nor its hash.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import weakref
from pathlib import Path

import streamlearn
from streamlearn import components

__all__ = ["code_mismatch", "streamlearn_source_sha256", "user_code_sha256"]

#: class object → SHA-256 of its user source file when first seen in this process
_LOADED: weakref.WeakKeyDictionary[type, str | None] = weakref.WeakKeyDictionary()


@functools.cache
def streamlearn_source_sha256() -> str:
    """SHA-256 over streamlearn's ``.py`` files (relative path, size and bytes, in path
    order), taken once per process: the same for every install of the same source."""
    root = Path(streamlearn.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        data = path.read_bytes()
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def _source_file(cls: type) -> str | None:
    """The user's source file of a learner class (``None``: registered or installed)."""
    try:
        path = inspect.getsourcefile(getattr(cls, "target", cls))
    except TypeError:  # a built-in or C class
        return None
    if path is None or not os.path.isfile(path):
        return None
    if {"site-packages", "dist-packages"} & set(Path(path).resolve().parts):
        return None
    return path


def user_code_sha256(name: str) -> str | None:
    """SHA-256 of the source file of the learner class a dotted path ``module:Class``
    names, as this process loaded it, when that file is the user's own (not inside an
    installed package, whose version the record already holds); ``None`` for registered
    names and installed code. Only the class's own module is hashed: an edited helper
    module it imports is not seen."""
    if ":" not in name:
        return None
    cls = components.get_algorithm(name)
    if cls not in _LOADED:
        path = _source_file(cls)
        _LOADED[cls] = (hashlib.sha256(Path(path).read_bytes()).hexdigest()
                        if path is not None else None)
    return _LOADED[cls]


def code_mismatch(algorithm: str, code_sha256: str | None,
                  streamlearn_sha256: str | None) -> str | None:
    """Why this process may not compute a run planned with these hashes (``None``: it may).
    ``streamlearn_sha256`` ``None`` skips streamlearn's own check."""
    if streamlearn_sha256 is not None and streamlearn_source_sha256() != streamlearn_sha256:
        return (f"this process runs other streamlearn code ({streamlearn.__file__}, source "
                f"SHA-256 {streamlearn_source_sha256()[:12]}) than the experiment was "
                f"planned with ({streamlearn_sha256[:12]}): streamlearn was edited during "
                "the experiment, or this worker has another version installed. Install the "
                "same streamlearn everywhere and run again.")
    if code_sha256 is None:
        return None
    here = user_code_sha256(algorithm)
    if here != code_sha256:
        path = _source_file(components.get_algorithm(algorithm))
        return (f"the learner {algorithm!r} that this process loaded ({path}, SHA-256 "
                f"{(here or 'none')[:12]}) is not the one the experiment was planned with "
                f"({code_sha256[:12]}): the file was edited during the experiment, or this "
                "worker has another copy of it. Make the copies agree and run again.")
    return None
