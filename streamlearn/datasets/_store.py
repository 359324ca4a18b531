"""Data directory, the dataset table, checksums and downloads.

Data directory
--------------
Resolved in this order (:func:`resolve_data_dir`): the explicit ``data_dir`` argument
(``--data-dir`` on the CLI), the ``STREAMLEARN_DATA`` environment variable, then
``platformdirs.user_cache_dir("streamlearn")/datasets``. Inside it, files keep the layout of
the project's shared copy (``mnist/…``, ``libsvm/…``, ``adult/…``); see :data:`DATASETS`.

Dataset table
-------------
:data:`DATASETS` joins the per-paper catalogue modules (:data:`CATALOGUES`, in paper
order); the entry types are :class:`~streamlearn.datasets.catalogue.spec.FileSpec` and
:class:`~streamlearn.datasets.catalogue.spec.DatasetSpec`, re-exported here.

Verification
------------
Every declared file carries the SHA-256 of a reference copy (from the shared datasets'
``manifest.json`` or, for files not stored there, from a named third-party record).
A present file is hashed before use. Hashes are memoised in
``<cache>/sha256-cache.json`` keyed by the absolute path, size, mtime, inode and ctime:
ctime cannot be set back by a user and any write to the file changes it, so a same-size
edit whose mtime was restored is hashed again (to the file system's ctime resolution).
``streamlearn data verify`` does not use the memo: it always reads every file. A file
without a reference hash is reported as *unverified* and used as is. A directory, a
broken symbolic link or another non-regular file where a data file belongs is *invalid*.

Downloads
---------
:func:`download` streams to a temporary ``.part`` file in the destination directory
(:func:`streamlearn.atomic.open_write`), hashes while writing and installs the file only
if the hash matches: a half-written or mismatching file never appears under the real
name. Loading never downloads unless ``STREAMLEARN_AUTO_DOWNLOAD=1`` is set;
``streamlearn data fetch NAME`` downloads explicitly.

Caches
------
``<cache>`` is ``platformdirs.user_cache_dir("streamlearn")``, overridable with
``STREAMLEARN_CACHE``; it holds the hash memo and the parsed arrays
(:mod:`streamlearn.datasets._parsed_cache`). Loading only reads the data directory; only
downloads write there. Both caches are best-effort: when they cannot be written, loading
goes on without them.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import stat
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamlearn import atomic
from streamlearn.base import DataError, UserError
from streamlearn.datasets.catalogue import paper_catalogues
from streamlearn.datasets.catalogue.spec import DatasetSpec, FileSpec

__all__ = [
    "CATALOGUES",
    "DATASETS",
    "DatasetSpec",
    "DatasetStatus",
    "FileSpec",
    "FileStatus",
    "cache_dir",
    "data_dir_origin",
    "dataset_status",
    "dir_writable",
    "download",
    "fetch",
    "file_sha256",
    "get_spec",
    "require_files",
    "resolve_data_dir",
    "verify_file",
]

ENV_DATA = "STREAMLEARN_DATA"
ENV_CACHE = "STREAMLEARN_CACHE"
ENV_AUTO_DOWNLOAD = "STREAMLEARN_AUTO_DOWNLOAD"

_CHUNK = 1 << 20


# --------------------------------------------------------------------------------------
# Directories
# --------------------------------------------------------------------------------------


def cache_dir() -> Path:
    """Per-user cache directory (``STREAMLEARN_CACHE`` or ``user_cache_dir("streamlearn")``)."""
    env = os.environ.get(ENV_CACHE)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("streamlearn"))


def resolve_data_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The data directory: ``data_dir``, else ``$STREAMLEARN_DATA``, else ``<cache>/datasets``."""
    if data_dir is not None and str(data_dir) != "":
        return Path(data_dir).expanduser()
    env = os.environ.get(ENV_DATA)
    if env:
        return Path(env).expanduser()
    return cache_dir() / "datasets"


def data_dir_origin(data_dir: str | os.PathLike[str] | None) -> str:
    """How :func:`resolve_data_dir` chose the directory, for messages."""
    if data_dir is not None and str(data_dir) != "":
        return "given explicitly"
    if os.environ.get(ENV_DATA):
        return f"from ${ENV_DATA}"
    return f"the default; set ${ENV_DATA} or pass --data-dir to use another"


# --------------------------------------------------------------------------------------
# The dataset table
# --------------------------------------------------------------------------------------

#: The per-paper catalogue modules (found in :mod:`streamlearn.datasets.catalogue`), in the
#: order of ``streamlearn data list``. Each has
#: ``PAPER`` (its key in ``DatasetSpec.papers``), ``PAPER_LABEL``, ``SPECS`` (the datasets
#: the paper introduced) and ``ALSO_USES`` (names of datasets declared with another paper).
CATALOGUES = paper_catalogues()


def _index(specs: Iterable[DatasetSpec]) -> dict[str, DatasetSpec]:
    table: dict[str, DatasetSpec] = {}
    for spec in specs:
        if spec.name in table:
            raise RuntimeError(f"dataset {spec.name!r} declared twice")
        table[spec.name] = spec
    return table


#: Every declared dataset by name.
DATASETS: dict[str, DatasetSpec] = _index(s for module in CATALOGUES for s in module.SPECS)


def get_spec(name: str) -> DatasetSpec:
    """The :class:`DatasetSpec` called ``name`` (a ``UserError`` listing close names if absent)."""
    if name not in DATASETS:
        from streamlearn.base import _close_matches

        raise UserError(
            f"Unknown dataset {name!r}.{_close_matches(name, sorted(DATASETS))} "
            f"Known datasets: {', '.join(sorted(DATASETS))}."
        )
    return DATASETS[name]


# --------------------------------------------------------------------------------------
# Hashing and verification
# --------------------------------------------------------------------------------------

#: In-process memo: (absolute path, size, mtime_ns, inode, ctime_ns) -> SHA-256.
_hash_memo: dict[tuple[str, int, int, int, int], str] = {}


def _hash_cache_file() -> Path:
    return cache_dir() / "sha256-cache.json"


def _read_hash_cache() -> dict[str, Any]:
    try:
        with open(_hash_cache_file(), encoding="utf-8") as fh:
            data = json.load(fh)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _write_hash_cache(entries: dict[str, Any]) -> None:
    with contextlib.suppress(atomic.OutputError):  # a cache: without it files are re-read
        atomic.write_bytes(_hash_cache_file(), json.dumps(entries, indent=0).encode())


def _stat_key(st: os.stat_result) -> dict[str, int]:
    """What must be unchanged for a memoised hash to be reused."""
    return {
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "ino": st.st_ino,
        "ctime_ns": st.st_ctime_ns,
    }


def file_sha256(path: str | os.PathLike[str], *, use_cache: bool = True) -> str:
    """SHA-256 of a file, memoised by absolute path, size, mtime, inode and ctime.

    Parameters
    ----------
    path
        File to hash.
    use_cache
        If False, always read the file (and refresh the cache entry).
    """
    p = Path(path).resolve()
    st = p.stat()
    stamp = _stat_key(st)
    key = (str(p), *stamp.values())
    if use_cache:
        if key in _hash_memo:
            return _hash_memo[key]
        entry = _read_hash_cache().get(str(p))
        if (
            isinstance(entry, dict)
            and isinstance(entry.get("sha256"), str)
            and all(entry.get(k) == v for k, v in stamp.items())
        ):
            _hash_memo[key] = entry["sha256"]
            return str(entry["sha256"])
    h = hashlib.sha256()
    with open(p, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    digest = h.hexdigest()
    _hash_memo[key] = digest
    entries = _read_hash_cache()
    entries[str(p)] = {**stamp, "sha256": digest}
    _write_hash_cache(entries)
    return digest


@dataclass
class FileStatus:
    """Verification result for one file.

    ``state`` is ``ok`` (matches a reference hash), ``unverified`` (no reference hash),
    ``missing``, ``mismatch`` (another hash) or ``invalid`` (something that is not a
    readable regular file stands at the path; ``problem`` says what, as a predicate:
    ``f"{path} {problem}"``).
    """

    spec: FileSpec
    path: Path
    state: str
    actual: str | None = None
    problem: str | None = None

    @property
    def present(self) -> bool:
        return self.state in ("ok", "unverified", "mismatch", "invalid")

    @property
    def usable(self) -> bool:
        return self.state in ("ok", "unverified")


def _classify(path: Path) -> tuple[str, str | None]:
    """``("file", None)`` for a regular file (or a link to one), ``("missing", None)`` if
    nothing is there, else ``("invalid", what is wrong)``."""
    try:
        st = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        if not path.is_symlink():
            return "missing", None
        try:
            target = os.readlink(path)
        except OSError:  # pragma: no cover - removed in between
            return "invalid", "is a broken symbolic link"
        return "invalid", f"is a broken symbolic link: its target {target} does not exist"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "invalid", "is a symbolic link that loops back on itself"
        return "invalid", f"cannot be read: {atomic.describe_os_error(exc)}"
    if stat.S_ISDIR(st.st_mode):
        return "invalid", "is a directory, not a file"
    if not stat.S_ISREG(st.st_mode):
        return "invalid", "is not a regular file (a FIFO, socket or device)"
    return "file", None


def verify_file(fspec: FileSpec, data_dir: Path, *, use_cache: bool = True) -> FileStatus:
    """Check one file: absent, invalid, hash mismatch, matching, or present without a
    reference hash."""
    path = data_dir / fspec.path
    kind, problem = _classify(path)
    if kind == "file":
        try:
            digest = file_sha256(path, use_cache=use_cache)
        except OSError as exc:
            kind, problem = "invalid", f"cannot be read: {atomic.describe_os_error(exc)}"
        else:
            if not fspec.sha256:
                return FileStatus(fspec, path, "unverified", digest)
            return FileStatus(fspec, path, "ok" if digest in fspec.sha256 else "mismatch", digest)
    return FileStatus(fspec, path, kind, problem=problem)


def _missing_message(name: str, st: FileStatus, data_dir: Path, origin: str) -> str:
    where = (
        f"Download it from {st.spec.url} and put it at {st.path}, or run "
        f"`streamlearn data fetch {name}`"
        if st.spec.url
        else f"Put it at {st.path}"
    )
    note = f" {st.spec.note}" if st.spec.note else ""
    return (
        f"Dataset {name!r} needs the file {st.spec.path}, which is not in the data directory "
        f"{data_dir} ({origin}). {where}.{note} To use another data directory pass --data-dir "
        f"or set ${ENV_DATA}."
    )


def _mismatch_message(name: str, st: FileStatus) -> str:
    expected = " or ".join(st.spec.sha256)
    fix = (
        f"Delete it and run `streamlearn data fetch {name}`, or replace it with the file from "
        f"{st.spec.url}."
        if st.spec.url
        else "Replace it with a good copy."
    )
    return (
        f"Checksum mismatch for {st.path}: SHA-256 is {st.actual}, expected {expected} "
        f"(reference: {st.spec.hash_source}). The file is corrupt, truncated or a different "
        f"version. {fix}"
    )


def _invalid_message(name: str, st: FileStatus) -> str:
    fetch = (
        f" (once it is removed, `streamlearn data fetch {name}` downloads it)"
        if st.spec.url
        else ""
    )
    return (
        f"Dataset {name!r} needs the file {st.spec.path}, but {st.path} {st.problem}. "
        f"Replace it with the file{fetch}."
    )


def _status_error(name: str, st: FileStatus, data_dir: Path, origin: str) -> DataError:
    """Why the unusable file ``st`` (missing, mismatch or invalid) stops dataset ``name``."""
    if st.state == "missing":
        return DataError(_missing_message(name, st, data_dir, origin))
    if st.state == "mismatch":
        return DataError(_mismatch_message(name, st))
    return DataError(_invalid_message(name, st))


def require_files(
    name: str,
    files: Iterable[FileSpec],
    data_dir: str | os.PathLike[str] | None = None,
) -> list[FileStatus]:
    """Verify the files a load needs; raise one clear :class:`DataError` if any is unusable.

    A missing file is downloaded first when ``STREAMLEARN_AUTO_DOWNLOAD=1`` and it has a URL.
    """
    ddir = resolve_data_dir(data_dir)
    origin = data_dir_origin(data_dir)
    statuses = []
    for fspec in files:
        st = verify_file(fspec, ddir)
        if (
            st.state == "missing"
            and fspec.url
            and os.environ.get(ENV_AUTO_DOWNLOAD, "") not in ("", "0")
        ):
            download(fspec.url, st.path, fspec.sha256)
            st = verify_file(fspec, ddir)
        if not st.usable:
            raise _status_error(name, st, ddir, origin)
        statuses.append(st)
    return statuses


@dataclass
class DatasetStatus:
    """Availability of a dataset in a data directory."""

    spec: DatasetSpec
    files: list[FileStatus] = field(default_factory=list)

    @property
    def state(self) -> str:
        """``corrupt``, ``missing``, ``partial``, ``present`` (unverified) or ``verified``."""
        if any(f.state in ("mismatch", "invalid") for f in self.files):
            return "corrupt"
        needed = {f.path for f in self.spec.files_for()}
        default_ok = all(f.usable for f in self.files if f.spec.path in needed)
        required = [f for f in self.files if f.spec.required]
        if not default_ok:
            return "partial" if any(f.present for f in required) else "missing"
        if not all(f.usable for f in required):
            return "partial"
        if all(f.state == "ok" for f in self.files if f.spec.path in needed):
            return "verified"
        return "present"

    @property
    def label(self) -> str:
        """Human-readable status, mentioning substitutes and partial copies."""
        state = self.state
        text = state
        missing = [
            f.spec.path.rsplit("/", 1)[-1]
            for f in self.files
            if f.spec.required and f.state == "missing"
        ]
        invalid = [
            f"{f.spec.path.rsplit('/', 1)[-1]} {f.problem}"
            for f in self.files
            if f.state == "invalid"
        ]
        if state == "partial" and missing:
            text += f" ({', '.join(missing)} missing)"
        if invalid:
            text += f" ({'; '.join(invalid)})"
        if self.spec.kind == "substitute":
            text += f", substitute for {self.spec.substitute_for}"
        elif self.spec.kind == "partial":
            text += f", partial copy of {self.spec.substitute_for}"
        return text


def dataset_status(
    name: str, data_dir: str | os.PathLike[str] | None = None, *, use_cache: bool = True
) -> DatasetStatus:
    """Verify every declared file of dataset ``name`` (hashes memoised unless ``use_cache``
    is False)."""
    spec = get_spec(name)
    ddir = resolve_data_dir(data_dir)
    return DatasetStatus(spec, [verify_file(f, ddir, use_cache=use_cache) for f in spec.files])


# --------------------------------------------------------------------------------------
# Downloads
# --------------------------------------------------------------------------------------

ProgressCallback = Callable[[int, int | None], None]


def download(
    url: str,
    dest: str | os.PathLike[str],
    expected_sha256: Iterable[str] = (),
    *,
    progress: ProgressCallback | None = None,
    timeout: float = 60.0,
) -> str:
    """Download ``url`` to ``dest`` safely; returns the SHA-256.

    The body is streamed to a temporary ``.part`` file next to ``dest`` and hashed on
    the way; only if the hash is one of ``expected_sha256`` (or none is given) is the file
    renamed to ``dest`` (:func:`streamlearn.atomic.open_write`: fsync-ed, umask
    permissions). On any failure the temporary file, and the directories made for it,
    are removed.

    Parameters
    ----------
    url
        Source URL (``http(s)://`` or ``file://``).
    dest
        Final path.
    expected_sha256
        Accepted digests; empty accepts any content.
    progress
        Called as ``progress(bytes_so_far, total_or_None)`` after each chunk.
    timeout
        Socket timeout in seconds.

    Raises
    ------
    DataError
        Network failure, unwritable directory, or checksum mismatch.
    """
    dest = Path(dest)
    expected = tuple(expected_sha256)
    if not dir_writable(dest.parent):
        raise DataError(
            f"Cannot download to {dest}: the data directory is read-only. Pass --data-dir or set "
            f"${ENV_DATA} to a writable directory (and copy or link the other files there)."
        )
    created = []  # directories made here, removed again if the download fails
    p = dest.parent
    while not p.exists():
        created.append(p)
        p = p.parent
    h = hashlib.sha256()
    try:
        with atomic.open_write(dest, suffix=".part") as out:
            try:
                req = urllib.request.Request(url, headers={"User-Agent": "streamlearn"})
                with urllib.request.urlopen(req, timeout=timeout) as resp:
                    length = resp.headers.get("Content-Length")
                    total = int(length) if length and length.isdigit() else None
                    done = 0
                    while chunk := resp.read(_CHUNK):
                        out.write(chunk)
                        h.update(chunk)
                        done += len(chunk)
                        if progress is not None:
                            progress(done, total)
            except (urllib.error.URLError, OSError, ValueError) as exc:
                reason = getattr(exc, "reason", None) or exc
                raise DataError(
                    f"Download of {url} failed ({reason}). Without network access, obtain the "
                    f"file elsewhere and put it at {dest}."
                ) from exc
            if total is not None and done != total:
                raise DataError(
                    f"Download of {url} was cut short ({done} of {total} bytes). Try again."
                )
            digest = h.hexdigest()
            if expected and digest not in expected:
                raise DataError(
                    f"The file downloaded from {url} has SHA-256 {digest}, expected "
                    f"{' or '.join(expected)}. It was not installed. The server may serve a "
                    f"different version than the reference copy; put a matching file at {dest}."
                )
    except BaseException as exc:
        for d in created:
            with contextlib.suppress(OSError):
                d.rmdir()
        if isinstance(exc, atomic.OutputError):
            raise DataError(
                f"{exc} The data directory must be writable to download; pass --data-dir or "
                f"set ${ENV_DATA} to a writable directory."
            ) from None
        raise
    return digest


def fetch(
    name: str,
    data_dir: str | os.PathLike[str] | None = None,
    *,
    force: bool = False,
    include_optional: bool = True,
    progress: Callable[[FileSpec, int, int | None], None] | None = None,
    timeout: float = 60.0,
) -> list[FileStatus]:
    """Download the missing (or, with ``force``, all) files of dataset ``name``.

    Files that verify already are skipped. A file without a URL raises a
    :class:`DataError` that says where to put it; so does a directory or a broken link
    where a file belongs (it is never replaced silently).
    """
    spec = get_spec(name)
    ddir = resolve_data_dir(data_dir)
    origin = data_dir_origin(data_dir)
    out = []
    for fspec in spec.files:
        if not fspec.required and not include_optional:
            continue
        st = verify_file(fspec, ddir)
        if st.usable and not force:
            out.append(st)
            continue
        if fspec.url is None or st.state == "invalid":
            if st.usable or (st.state == "missing" and not fspec.required):
                out.append(st)
                continue
            raise _status_error(name, st, ddir, origin)
        cb = None if progress is None else (lambda d, t, f=fspec: progress(f, d, t))
        download(fspec.url, st.path, fspec.sha256, progress=cb, timeout=timeout)
        out.append(verify_file(fspec, ddir, use_cache=False))
    return out


# --------------------------------------------------------------------------------------
# Directories that may be written
# --------------------------------------------------------------------------------------


def dir_writable(path: Path) -> bool:
    """Whether files may be created in ``path`` (or, if absent, its nearest existing parent).

    A directory without any write permission bit counts as read-only even for root, so
    a deliberately read-only data folder (like the project's shared copy) is never
    written to.
    """
    p = Path(path)
    while not p.exists():
        if p.parent == p:
            return False
        p = p.parent
    if not p.is_dir():
        return False
    if not p.stat().st_mode & 0o222:
        return False
    return os.access(p, os.W_OK | os.X_OK)
