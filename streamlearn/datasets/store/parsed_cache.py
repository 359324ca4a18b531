"""The parsed-array cache: a dataset's parsed arrays, kept so that the next load is fast.

Where
-----
``<cache>/parsed/<dataset>-<key>.npz``, where ``<cache>`` is
:func:`streamlearn.datasets.store.locations.cache_dir` (``$STREAMLEARN_CACHE``, else
``platformdirs.user_cache_dir("streamlearn")``). Never in the data directory: that
directory is the user's, and it is only ever read (``streamlearn data fetch`` is the one
command that writes there). ``STREAMLEARN_PARSED_CACHE=0`` turns the cache off;
:func:`clear` (``streamlearn data cache-clear``) empties it.

Key
---
:func:`cache_key`: the dataset, the parse parameters, :data:`PARSER_VERSION` and the
SHA-256 of every raw file read (the hashes the load verified). The same files in two data
directories share one entry; an edited file makes a new key.

Writing and reading
-------------------
An entry is written to a temporary sibling, fsync-ed and renamed into place
(:func:`streamlearn.atomic.write_bytes`), so processes filling the cache at the same time
each install a complete file and a reader sees a whole entry or none. An entry that
cannot be read back exactly — truncated, a flipped byte (the ``.npz`` members carry a
CRC-32 that reading checks), another format, another key, arrays missing or added — is
treated as absent: the dataset is parsed again and the entry rewritten. The cache is
best-effort: when it cannot be written, loading goes on without it.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from streamlearn import atomic
from streamlearn.datasets.store.locations import cache_dir, env_flag

__all__ = [
    "ENV_PARSED_CACHE",
    "PARSER_VERSION",
    "cache_key",
    "clear",
    "enabled",
    "entries",
    "load_parsed",
    "parsed_cache_dir",
    "parsed_cache_path",
    "save_parsed",
]

ENV_PARSED_CACHE = "STREAMLEARN_PARSED_CACHE"

#: Bump when a parser's output changes, to invalidate parsed caches.
PARSER_VERSION = "1"

#: Marks an entry written by this module (and its layout).
_FORMAT = "streamlearn-parsed-cache/2"
_META_FORMAT = "__format__"
_META_KEY = "__key__"
_META_KEYS = "__arrays__"
_META_AS_FLOAT = "__as_float64__"
_META = (_META_FORMAT, _META_KEY, _META_KEYS, _META_AS_FLOAT)

_INT_TYPES = (np.int8, np.int16, np.int32)


def enabled() -> bool:
    """Whether the cache is used (``STREAMLEARN_PARSED_CACHE`` unset or on; see
    :func:`~streamlearn.datasets.store.locations.env_flag`)."""
    return env_flag(ENV_PARSED_CACHE, True)


def parsed_cache_dir() -> Path:
    """``<cache>/parsed``: the directory of the entries."""
    return cache_dir() / "parsed"


def cache_key(name: str, params: Mapping[str, Any], file_hashes: Iterable[str]) -> str:
    """Key of an entry: dataset, parse parameters, parser version, the raw files' SHA-256."""
    blob = json.dumps(
        {
            "name": name,
            "params": dict(sorted(params.items())),
            "version": PARSER_VERSION,
            "files": list(file_hashes),
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def parsed_cache_path(name: str, key: str) -> Path:
    """Where the entry of dataset ``name`` with ``key`` lives (in the user cache)."""
    return parsed_cache_dir() / f"{name}-{key}.npz"


def _key_of(path: Path) -> str:
    return path.stem.rpartition("-")[2]


def _compact(arr: np.ndarray) -> tuple[np.ndarray, bool]:
    """Store integral float64 arrays as the smallest int type (lossless); flag if done."""
    if arr.dtype != np.float64 or arr.size == 0:
        return arr, False
    lo, hi = float(np.min(arr)), float(np.max(arr))
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return arr, False
    for t in _INT_TYPES:
        info = np.iinfo(t)
        if info.min <= lo and hi <= info.max:
            cast = arr.astype(t)
            if np.array_equal(cast, arr):
                return cast, True
            return arr, False
    return arr, False


def save_parsed(path: Path, arrays: Mapping[str, np.ndarray]) -> bool:
    """Write ``arrays`` to ``path`` atomically; False if it cannot be written.

    The entry records its format, its key (from the file name) and the names of its
    arrays, so that :func:`load_parsed` can tell a whole, matching entry from anything else.
    """
    if any(k in _META for k in arrays):
        raise ValueError(f"array names {_META} are reserved")
    payload: dict[str, np.ndarray] = {}
    as_float = []
    for key, arr in arrays.items():
        stored, flag = _compact(np.asarray(arr))
        payload[key] = stored
        if flag:
            as_float.append(key)
    payload[_META_FORMAT] = np.array(_FORMAT)
    payload[_META_KEY] = np.array(_key_of(Path(path)))
    payload[_META_KEYS] = np.array(sorted(arrays), dtype=str)
    payload[_META_AS_FLOAT] = np.array(as_float, dtype=str)
    buf = io.BytesIO()
    np.savez(buf, **payload)  # type: ignore[arg-type]
    try:
        atomic.write_bytes(path, buf.getvalue())
    except atomic.OutputError:  # a cache: the arrays are parsed again next time
        return False
    return True


def load_parsed(path: Path) -> dict[str, np.ndarray] | None:
    """The arrays of an entry; None if absent, unreadable or not exactly what was written
    (the caller then parses again and rewrites the entry)."""
    if not path.is_file():
        return None
    try:
        with open(path, "rb") as fh:
            return _read_entry(fh, _key_of(path))
    except OSError:
        return None


def _read_entry(fh: BinaryIO, key: str) -> dict[str, np.ndarray] | None:
    """Decode an entry written for ``key``; None unless it is whole and ours."""
    try:
        with np.load(fh, allow_pickle=False) as npz:
            # Reading every member in full makes zipfile check each member's CRC-32.
            arrays = {k: npz[k] for k in npz.files}
    except Exception:  # zipfile and NumPy raise many types on a damaged file
        return None
    try:
        fmt = str(arrays.pop(_META_FORMAT)[()])
        stored_key = str(arrays.pop(_META_KEY)[()])
        names = set(arrays.pop(_META_KEYS).tolist())
        as_float = set(arrays.pop(_META_AS_FLOAT).tolist())
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    if fmt != _FORMAT or stored_key != key or names != set(arrays) or not as_float <= names:
        return None
    for k in as_float:
        arrays[k] = arrays[k].astype(np.float64)
    return arrays


def entries() -> list[Path]:
    """The files in :func:`parsed_cache_dir`: entries and temporary files of writers."""
    folder = parsed_cache_dir()
    try:
        return sorted(p for p in folder.iterdir() if p.is_file())
    except OSError:
        return []


def clear() -> tuple[int, int]:
    """Delete every entry (and temporary files left by writers no longer running);
    returns ``(files removed, bytes freed)``. The hash memo and data files are kept."""
    n = freed = 0
    for p in entries():
        if not p.name.endswith(".npz"):
            owner = atomic.temporary_owner(p.name)
            if owner is None or atomic.process_alive(owner):
                continue  # not ours, or a writer still at work
        try:
            size = p.stat().st_size
            p.unlink()
        except OSError:
            continue
        n += 1
        freed += size
    return n, freed
