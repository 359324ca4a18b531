"""Downloads: a dataset file from its official URL into the data directory, checked
before it is installed.

``streamlearn data fetch NAME`` (:func:`fetch`) and a load with
``STREAMLEARN_AUTO_DOWNLOAD=1`` (:func:`require_files`) download through
:func:`download`; loading never downloads otherwise. :func:`download` streams to a
temporary ``.part`` file in the destination directory
(:func:`streamlearn.atomic.open_write`), hashes while writing and installs the file only
if the hash matches: a half-written or mismatching file never appears under the real name.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from pathlib import Path

from streamlearn import atomic
from streamlearn.base import DataError
from streamlearn.datasets.catalogue import get_spec
from streamlearn.datasets.catalogue.spec import FileSpec
from streamlearn.datasets.store.locations import (
    ENV_DATA,
    data_dir_origin,
    dir_writable,
    resolve_data_dir,
)
from streamlearn.datasets.store.verification import FileStatus, status_error, verify_file

__all__ = ["ENV_AUTO_DOWNLOAD", "download", "fetch", "require_files"]

ENV_AUTO_DOWNLOAD = "STREAMLEARN_AUTO_DOWNLOAD"

_CHUNK = 1 << 20

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
            raise status_error(name, st, ddir, origin)
        cb = None if progress is None else (lambda d, t, f=fspec: progress(f, d, t))
        download(fspec.url, st.path, fspec.sha256, progress=cb, timeout=timeout)
        out.append(verify_file(fspec, ddir, use_cache=False))
    return out


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
            raise status_error(name, st, ddir, origin)
        statuses.append(st)
    return statuses
