"""Downloads: a dataset file from its official URL into the data directory, checked
before it is installed.

``streamlearn data fetch NAME`` (:func:`fetch`) and a load with
``STREAMLEARN_AUTO_DOWNLOAD=1`` (:func:`require_files`) download through
:func:`download`; loading never downloads otherwise.

What is pooch's and what is ours
--------------------------------
The transfer is pooch's :class:`pooch.HTTPDownloader` (requests: redirects, TLS with
certifi's certificates, a socket timeout, a body shorter than its ``Content-Length`` is an
error), asked for 1 MiB chunks (its default, 1 KiB, made a 200 MB download through a local
server about 5x slower) and the bytes as stored (``Accept-Encoding: identity``). Placing the
file is ours: the chunks go into :func:`streamlearn.atomic.open_write` (a temporary
``.part`` sibling, fsync-ed, given the umask's mode, renamed over the destination) through
a sink that hashes them on the way, and the file is installed only if its SHA-256 is one
of the accepted digests. :func:`pooch.retrieve` does not do that part as the data
directory needs: it accepts one digest per file (MNIST's training images have two),
installs the file with mode 0600 (``NamedTemporaryFile``) and without an fsync, leaves the
directories it made when the hash is refused, and reads the file a second time to hash it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urlsplit

from streamlearn import atomic
from streamlearn.datasets.catalogue import get_spec
from streamlearn.datasets.catalogue.spec import FileSpec
from streamlearn.datasets.store.locations import (
    ENV_DATA,
    data_dir_origin,
    dir_writable,
    env_flag,
    resolve_data_dir,
)
from streamlearn.datasets.store.verification import FileStatus, status_error, verify_file
from streamlearn.errors import DataError

__all__ = ["ENV_AUTO_DOWNLOAD", "download", "fetch", "require_files"]

ENV_AUTO_DOWNLOAD = "STREAMLEARN_AUTO_DOWNLOAD"

_CHUNK = 1 << 20
_SCHEMES = ("http", "https")

ProgressCallback = Callable[[int, int | None], None]


class _HashingSink:
    """What pooch's downloader writes to, and its progress bar.

    Each chunk is written to the temporary file, hashed and counted, and ``progress`` is
    told the bytes so far. The downloader sets ``total`` to the ``Content-Length`` (0 when
    the server sends none) and reports chunk sizes to ``update``, not the bytes received,
    so the count kept here is the one used.
    """

    def __init__(self, out: BinaryIO, progress: ProgressCallback | None) -> None:
        self._out = out
        self._progress = progress
        self.sha256 = hashlib.sha256()
        self.done = 0
        self.total = 0

    def write(self, chunk: bytes) -> int:
        self._out.write(chunk)
        self.sha256.update(chunk)
        self.done += len(chunk)
        if self._progress is not None:
            self._progress(self.done, self.total or None)
        return len(chunk)

    def flush(self) -> None:
        self._out.flush()

    def update(self, n: int) -> None:
        """Progress-bar protocol: the count is kept in :meth:`write`."""

    def reset(self) -> None:
        """Progress-bar protocol: nothing to reset."""

    def close(self) -> None:
        """Progress-bar protocol: the file is closed by the atomic writer."""


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and every exception inside it (causes, contexts, arguments, ``reason``):
    requests wraps urllib3's errors, which wrap the socket's."""
    out: list[BaseException] = []
    todo = [exc]
    while todo:
        e = todo.pop()
        if any(e is seen for seen in out):
            continue
        out.append(e)
        nested = [getattr(e, "reason", None), e.__cause__, e.__context__, *e.args]
        todo.extend(x for x in nested if isinstance(x, BaseException))
    return out


def _reason(exc: BaseException) -> str:
    """Why a transfer failed, in a few words: the HTTP status, or the socket error at the
    bottom of requests' and urllib3's wrappers (``[Errno 111] Connection refused``)."""
    response = getattr(exc, "response", None)
    if response is not None:
        return f"HTTP Error {response.status_code}: {response.reason}"
    sockets = [e for e in _causes(exc) if isinstance(e, OSError) and isinstance(e.errno, int)]
    return str(sockets[-1] if sockets else exc)


def _received(exc: BaseException, written: int) -> int:
    """Bytes received before a connection broke: those written, plus the ones urllib3 had
    read into the chunk it could not complete (``IncompleteRead.partial``)."""
    partial = [getattr(e, "partial", None) for e in _causes(exc)]
    return written + next((p for p in partial if isinstance(p, int)), 0)


def download(
    url: str,
    dest: str | os.PathLike[str],
    expected_sha256: Iterable[str] = (),
    *,
    progress: ProgressCallback | None = None,
    timeout: float = 60.0,
) -> str:
    """Download ``url`` to ``dest`` safely; returns the SHA-256.

    The body is streamed (pooch's HTTP downloader) to a temporary ``.part`` file next to
    ``dest`` and hashed on the way; only if the hash is one of ``expected_sha256`` (or
    none is given) is the file renamed to ``dest`` (:func:`streamlearn.atomic.open_write`:
    fsync-ed, umask permissions). On any failure the temporary file, and the directories
    made for it, are removed.

    Parameters
    ----------
    url
        Source URL (``http://`` or ``https://``).
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
    if urlsplit(url).scheme.lower() not in _SCHEMES:
        raise DataError(
            f"Cannot download {url}: only http:// and https:// URLs are downloaded. Obtain the "
            f"file elsewhere and put it at {dest}."
        )
    import pooch  # imported here: only a download pays for pooch and requests
    import requests

    created = []  # directories made here, removed again if the download fails
    p = dest.parent
    while not p.exists():
        created.append(p)
        p = p.parent
    try:
        with atomic.open_write(dest, suffix=".part") as out:
            sink = _HashingSink(out, progress)
            downloader = pooch.HTTPDownloader(
                progressbar=sink,
                chunk_size=_CHUNK,
                timeout=timeout,
                headers={"User-Agent": "streamlearn", "Accept-Encoding": "identity"},
            )
            try:
                downloader(url, sink, None)
            except requests.exceptions.ChunkedEncodingError as exc:  # the connection broke
                raise DataError(
                    f"Download of {url} was cut short ({_received(exc, sink.done)} of "
                    f"{sink.total or 'an unknown number of'} bytes). Try again."
                ) from exc
            except (OSError, ValueError) as exc:  # requests' errors are OSErrors
                raise DataError(
                    f"Download of {url} failed ({_reason(exc)}). Without network access, "
                    f"obtain the file elsewhere and put it at {dest}."
                ) from exc
            if sink.total and sink.done != sink.total:
                raise DataError(
                    f"Download of {url} was cut short ({sink.done} of {sink.total} bytes). "
                    "Try again."
                )
            digest = sink.sha256.hexdigest()
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
            and env_flag(ENV_AUTO_DOWNLOAD, False)
        ):
            download(fspec.url, st.path, fspec.sha256)
            st = verify_file(fspec, ddir)
        if not st.usable:
            raise status_error(name, st, ddir, origin)
        statuses.append(st)
    return statuses
