"""A data file's and a dataset's state, and the messages that say how to repair them.

Every declared file carries the SHA-256 of a reference copy (from the shared datasets'
``manifest.json`` or, for files not stored there, from a named third-party record). A
present file is hashed (:mod:`.checksums`) before use. A file without a reference hash is
reported as *unverified* and used as is. A directory, a broken symbolic link or another
non-regular file where a data file belongs is *invalid*.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from streamlearn import atomic
from streamlearn.datasets.catalogue import get_spec
from streamlearn.datasets.catalogue.spec import DatasetSpec, FileSpec
from streamlearn.datasets.store.checksums import file_sha256
from streamlearn.datasets.store.locations import ENV_DATA, resolve_data_dir
from streamlearn.errors import DataError, DataMissingError

__all__ = [
    "DatasetStatus",
    "FileStatus",
    "dataset_status",
    "status_error",
    "verify_file",
]


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


def status_error(name: str, st: FileStatus, data_dir: Path, origin: str) -> DataError:
    """Why the unusable file ``st`` (missing, mismatch or invalid) stops dataset ``name``."""
    if st.state == "missing":
        return DataMissingError(_missing_message(name, st, data_dir, origin))
    if st.state == "mismatch":
        return DataError(_mismatch_message(name, st))
    return DataError(_invalid_message(name, st))


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
