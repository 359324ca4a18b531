"""The run records of an output directory, from ``runs/`` or from its committed archive.

``streamlearn run`` writes one JSON record per run under ``<out>/runs/``. A results folder
kept in git holds them instead as one archive, ``<out>/runs.tar.xz`` (:func:`pack`):
a tar of ``runs/<run_id>.json``, the records of the planned runs byte for byte, without
predictions (``.pred.npz``). It is deterministic: members sorted by name, mtime 0, owner
0, mode 0644, a fixed xz preset, so packing the same records twice gives the same bytes
(with the same liblzma). ``tar xJf runs.tar.xz`` in the folder gives back ``runs/``, as
:func:`unpack` does.

Saved predictions are archived only where a committed table is computed from them (a
folder opts in with ``streamlearn records pack --predictions``): a second archive,
``<out>/predictions.tar.xz``, of ``runs/<run_id>.pred.npz`` for the planned runs, built the
same way. Once a folder has one, every ``pack`` rewrites it with the records, and it holds
the digest of the records it was packed with (``records.sha256``, beside ``runs/``): a
predictions archive that does not match ``runs.tar.xz`` (a pack interrupted between the two
writes, or one archive restored from another commit) is refused by every reader, never
read as the predictions of other runs.

Readers go through :func:`store` (records) and :func:`read_predictions`: the files of
``runs/`` when it holds any record, else the archives, so ``streamlearn report`` and the
paper tables work on a fresh clone.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import lzma
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamlearn import atomic
from streamlearn.errors import UserError
from streamlearn.evaluation.records import predictions_match

ARCHIVE_NAME = "runs.tar.xz"
#: the opt-in archive of saved predictions (see the module docstring)
PREDICTIONS_NAME = "predictions.tar.xz"
#: xz preset: the default level; its 8 MiB dictionary is larger than any archive's tar
XZ_PRESET = 6 | lzma.PRESET_EXTREME
_MEMBER_DIR = "runs/"
_SUFFIX = ".json"
_PRED_SUFFIX = ".pred.npz"
#: the predictions archive's member naming the records it was packed with
_RECORDS_DIGEST = "records.sha256"


def archive_path(out_dir: Path) -> Path:
    return Path(out_dir) / ARCHIVE_NAME


def _runs_dir_has_records(out_dir: Path) -> bool:
    runs = Path(out_dir) / "runs"
    return runs.is_dir() and any(runs.glob("*" + _SUFFIX))


class ArchiveError(UserError):
    """An archive that cannot be read (truncated, not xz, not a tar of records)."""


def predictions_path(out_dir: Path) -> Path:
    return Path(out_dir) / PREDICTIONS_NAME


@functools.lru_cache(maxsize=8)
def _read_archive(path: str, mtime_ns: int, size: int,
                  suffix: str = _SUFFIX) -> tuple[dict[str, bytes], str | None]:
    """run_id → member bytes (``runs/<run_id><suffix>``) of the archive at ``path``, and
    its ``records.sha256`` member (None without one), in one decompression (cached by
    mtime and size)."""
    del mtime_ns, size  # cache key only
    try:
        raw = lzma.decompress(Path(path).read_bytes())
    except (OSError, lzma.LZMAError) as exc:
        raise ArchiveError(f"{path} cannot be read as an xz archive ({exc}); restore it "
                           "from git or pack the records again (`streamlearn records "
                           "pack`).") from None
    out: dict[str, bytes] = {}
    digest: str | None = None
    try:
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tar:
            for member in tar:
                name = member.name
                if not member.isfile():
                    continue
                if name == _RECORDS_DIGEST:
                    fh = tar.extractfile(member)
                    if fh is not None:
                        digest = fh.read().decode("ascii", "replace").strip()
                    continue
                if not _member_ok(name, suffix):
                    continue
                fh = tar.extractfile(member)
                if fh is not None:
                    out[name[len(_MEMBER_DIR):-len(suffix)]] = fh.read()
    except tarfile.TarError as exc:
        raise ArchiveError(f"{path} is not a tar archive of run records ({exc}).") from None
    return out, digest


def _member_ok(name: str, suffix: str = _SUFFIX) -> bool:
    """``runs/<one file name><suffix>``: nothing outside ``runs/``, no sub-folder."""
    rest = name[len(_MEMBER_DIR):]
    return (name.startswith(_MEMBER_DIR) and rest.endswith(suffix) and "/" not in rest
            and "\\" not in rest and rest not in ("", suffix) and not rest.startswith("."))


def read_archive(path: Path) -> dict[str, bytes]:
    """run_id → the record's bytes, for every record of the archive at ``path``."""
    st = Path(path).stat()
    return dict(_read_archive(str(path), st.st_mtime_ns, st.st_size)[0])


@dataclass(frozen=True)
class RecordStore:
    """Where an output directory's records are read from: ``runs/`` or the archive."""

    out_dir: Path
    archive: Path | None  # None: the records are files under runs/

    @property
    def origin(self) -> Path:
        return self.archive if self.archive is not None else self.out_dir / "runs"

    def _members(self) -> dict[str, bytes]:
        return read_archive(self.archive) if self.archive is not None else {}

    def run_ids(self) -> list[str]:
        """Every record present, by run id, sorted."""
        if self.archive is not None:
            return sorted(self._members())
        runs = self.out_dir / "runs"
        if not runs.is_dir():
            return []
        return sorted(p.name[:-len(_SUFFIX)] for p in runs.glob("*" + _SUFFIX)
                      if not p.name.startswith("."))

    def path(self, run_id: str) -> Path:
        """The record's file, or for an archived one ``<archive>/runs/<run_id>.json`` (for
        messages: the name a reader finds after ``tar xJf``)."""
        if self.archive is not None:
            return self.archive / _MEMBER_DIR / f"{run_id}{_SUFFIX}"
        return self.out_dir / "runs" / f"{run_id}{_SUFFIX}"

    def read_bytes(self, run_id: str) -> bytes | None:
        """The record's bytes; None when there is none. A file that exists but cannot be
        read raises :class:`OSError`."""
        if self.archive is not None:
            return self._members().get(run_id)
        try:
            return self.path(run_id).read_bytes()
        except FileNotFoundError:
            return None

    def records(self) -> list[dict[str, Any]]:
        """Every record that parses as a JSON object, in run-id order (unreadable ones are
        skipped: :mod:`streamlearn.reporting.summary` is the reader that names them)."""
        out = []
        for rid in self.run_ids():
            try:
                data = self.read_bytes(rid)
                rec = json.loads(data) if data is not None else None
            except (OSError, ValueError):
                continue
            if isinstance(rec, dict):
                out.append(rec)
        return out


def store(out_dir: Path) -> RecordStore:
    """The records of ``out_dir``: ``runs/`` when it holds any record, else the archive
    when there is one, else the (empty or absent) ``runs/``."""
    out_dir = Path(out_dir)
    if not _runs_dir_has_records(out_dir) and archive_path(out_dir).is_file():
        return RecordStore(out_dir, archive_path(out_dir))
    return RecordStore(out_dir, None)


def has_archive(out_dir: Path) -> bool:
    return archive_path(out_dir).is_file()


def has_predictions(out_dir: Path) -> bool:
    """True when the folder's saved predictions can be read: ``runs/*.pred.npz`` beside
    the records of ``runs/``, or the predictions archive when the records are archived."""
    out_dir = Path(out_dir)
    if _runs_dir_has_records(out_dir):
        return any((out_dir / "runs").glob("*" + _PRED_SUFFIX))
    return predictions_path(out_dir).is_file()


def read_predictions(out_dir: Path, run_id: str) -> bytes | None:
    """The saved predictions (``.npz`` bytes) of ``run_id``, from where :func:`store`
    reads its record: ``runs/`` when it holds any record, else the predictions archive.
    None when there are none; :class:`PredictionsMismatch` when they are not those the
    record names (``predictions_sha256``)."""
    out_dir = Path(out_dir)
    where = store(out_dir)
    if _runs_dir_has_records(out_dir):
        path = out_dir / "runs" / f"{run_id}{_PRED_SUFFIX}"
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
    else:
        found = _predictions_archive(out_dir).get(run_id)
        if found is None:
            return None
        data, path = found, predictions_path(out_dir) / _MEMBER_DIR / f"{run_id}{_PRED_SUFFIX}"
    try:
        record = _record(where.read_bytes(run_id) or b"")
    except OSError:
        record = {}
    if not predictions_match(record, data):
        raise PredictionsMismatch(path, where.path(run_id))
    return data


class PredictionsMismatch(UserError):
    """Saved predictions that are not those their record names (``predictions_sha256``):
    a run stopped between writing its predictions and its record left another config's
    record beside them."""

    def __init__(self, pred: Path, record: Path) -> None:
        super().__init__(
            f"{pred} does not hold the predictions of the record {record} (it names "
            "another SHA-256): a run was stopped between writing the two, and the record "
            "is of another config's run. Run the config again (`streamlearn run`): it "
            "computes that run again.")


def records_digest(members: dict[str, bytes]) -> str:
    """sha256 over the records' run ids and bytes (run_id → record bytes), in run-id order:
    what a predictions archive names as the records it belongs to (independent of xz)."""
    lines = "".join(f"{rid}\t{hashlib.sha256(members[rid]).hexdigest()}\n"
                    for rid in sorted(members))
    return hashlib.sha256(lines.encode()).hexdigest()


def predictions_archive(out_dir: Path) -> dict[str, bytes]:
    """run_id → ``.npz`` bytes of the folder's predictions archive ({} without one),
    checked to belong to its ``runs.tar.xz`` (else :class:`ArchiveError`)."""
    return _predictions_archive(Path(out_dir))


def _predictions_archive(out_dir: Path) -> dict[str, bytes]:
    """run_id → ``.npz`` bytes of the folder's predictions archive ({} without one), once
    its ``records.sha256`` is checked against the folder's ``runs.tar.xz``."""
    path = predictions_path(out_dir)
    if not path.is_file():
        return {}
    st = path.stat()
    members, digest = _read_archive(str(path), st.st_mtime_ns, st.st_size, _PRED_SUFFIX)
    records = archive_path(out_dir)
    if digest is None or not records.is_file() or \
            digest != records_digest(read_archive(records)):
        raise ArchiveError(
            f"{path} was not packed with the records of {records} (its {_RECORDS_DIGEST} "
            f"{'is missing' if digest is None else 'differs'}): the predictions may be "
            "those of other runs. Unpack or rerun the records into runs/ with their "
            "predictions and `streamlearn records pack --predictions` again.")
    return members


# --------------------------------------------------------------------------- writing


@dataclass
class PackResult:
    """What :func:`pack` wrote: the archive, its record count and size, and the files of
    ``runs/`` it left out (not a planned run's record, or predictions not asked for)."""

    path: Path
    records: int
    size: int
    left_out: list[str] = field(default_factory=list)
    unplanned_missing: list[str] = field(default_factory=list)
    predictions: int = 0  # prediction files in predictions.tar.xz (0: none written)
    predictions_size: int = 0


def archive_bytes(members: dict[str, bytes], suffix: str = _SUFFIX,
                  records: dict[str, bytes] | None = None) -> bytes:
    """The deterministic ``runs.tar.xz`` of ``members`` (run_id → record bytes; with
    ``suffix=".pred.npz"`` the predictions archive, which names the ``records`` it belongs
    to in its ``records.sha256``)."""
    files = {f"{_MEMBER_DIR}{rid}{suffix}": data for rid, data in members.items()}
    if records is not None:
        files[_RECORDS_DIGEST] = (records_digest(records) + "\n").encode("ascii")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(files):
            data = files[name]
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 0
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    return lzma.compress(buf.getvalue(), format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64,
                         preset=XZ_PRESET)


def _planned(out_dir: Path) -> dict[str, str | None]:
    """run id → digest of every run experiment.json plans."""
    try:
        manifest = json.loads((out_dir / "experiment.json").read_text(encoding="utf-8"))
        return {str(r["run_id"]): r.get("digest") for r in manifest["runs"]}
    except (OSError, ValueError, KeyError, TypeError):
        raise UserError(f"{out_dir} has no readable experiment.json with its planned runs; "
                        "give an output directory of `streamlearn run`.") from None


def _record(data: bytes) -> dict[str, Any]:
    """A record's fields ({} when the bytes are no JSON object)."""
    try:
        rec = json.loads(data)
    except ValueError:
        return {}
    return rec if isinstance(rec, dict) else {}


def _digest_of(data: bytes) -> str | None:
    return _record(data).get("digest")


def _unusable(data: bytes) -> str | None:
    """Why a record's bytes cannot be archived (None: they can): they do not parse as a
    JSON object (a truncated file), or it is not a finished run's ("complete": true and
    status ok or failed, as every record ``streamlearn run`` writes)."""
    try:
        rec = json.loads(data)
    except ValueError as exc:
        return f"does not parse as JSON ({exc})"
    if not isinstance(rec, dict):
        return f"is a JSON {type(rec).__name__}, not an object"
    if rec.get("complete") is not True:
        return "is not marked complete (\"complete\": true)"
    if rec.get("status") not in ("ok", "failed"):
        return f"has 'status' {rec.get('status')!r}, not 'ok' or 'failed'"
    return None


def _complete_ok(data: bytes) -> bool:
    rec = _record(data)
    return rec.get("status") == "ok" and bool(rec.get("complete", True))


def pack(out_dir: Path, predictions: bool = False) -> PackResult:
    """Write ``out_dir/runs.tar.xz`` from the records of ``out_dir/runs/``: those of the
    runs its experiment.json plans (complete or failed, as they are), byte for byte.
    With ``predictions``, or when the folder already has a predictions archive, also
    ``out_dir/predictions.tar.xz`` from the same runs' ``.pred.npz`` (every complete run
    must have one, else nothing is written). A planned run's record that does not parse
    or is not a finished run's (:func:`_unusable`) is an error naming it, and nothing is
    written. Replaces existing archives; ``runs/`` is left as it is."""
    out_dir = Path(out_dir)
    planned = _planned(out_dir)
    runs = out_dir / "runs"
    if not _runs_dir_has_records(out_dir):
        raise UserError(f"{runs} holds no run record to pack; run the experiment first "
                        "(`streamlearn run CONFIG`), or `streamlearn records unpack` the "
                        "archive to work on its records.")
    members: dict[str, bytes] = {}
    stale: list[str] = []
    unusable: list[str] = []
    for rid, digest in planned.items():
        path = runs / f"{rid}{_SUFFIX}"
        if path.is_file():
            data = path.read_bytes()
            why = _unusable(data)
            if why is not None:
                unusable.append(f"{path.name} {why}")
                continue
            if digest is not None and _digest_of(data) not in (digest, None):
                # another config's record of this run id (a changed config's run was
                # interrupted before it wrote its own): never archived as this one's
                stale.append(rid)
                continue
            members[rid] = data
    if unusable:
        raise UserError(f"{len(unusable)} record(s) of {runs} cannot be archived: "
                        + "; ".join(unusable[:5]) + ("; …" if len(unusable) > 5 else "")
                        + ". Delete them and run the config again (`streamlearn run` "
                        "computes those runs again), then pack; nothing was written.")
    wanted = {f"{rid}{_SUFFIX}" for rid in members}
    preds: dict[str, bytes] | None = None
    if predictions or predictions_path(out_dir).is_file():
        preds = {}
        lacking = []
        for rid, data in members.items():
            path = runs / f"{rid}{_PRED_SUFFIX}"
            if path.is_file():
                preds[rid] = path.read_bytes()
                if not predictions_match(_record(data), preds[rid]):
                    raise UserError(f"{PredictionsMismatch(path, runs / (rid + _SUFFIX))} "
                                    "Nothing was written.")
            elif _complete_ok(data):
                lacking.append(rid)
        if lacking:
            why = ("" if predictions else f" ({out_dir} keeps its predictions in "
                   f"{PREDICTIONS_NAME}, so they are packed with the records)")
            raise UserError(f"{len(lacking)} complete run(s) of {runs} have no saved "
                            f"predictions{why}: {', '.join(lacking[:5])}"
                            f"{', …' if len(lacking) > 5 else ''}. Run them with "
                            "`evaluation: {save_predictions: true}`; nothing was written.")
        wanted |= {f"{rid}{_PRED_SUFFIX}" for rid in preds}
    left_out = sorted(p.name for p in runs.iterdir()
                      if p.is_file() and p.name not in wanted and not p.name.startswith("."))
    data = archive_bytes(members)
    pred_data = archive_bytes(preds, _PRED_SUFFIX, members) if preds is not None else None
    path = archive_path(out_dir)
    atomic.write_bytes(path, data)
    if pred_data is not None:
        atomic.write_bytes(predictions_path(out_dir), pred_data)
    return PackResult(path, len(members), len(data), left_out,
                      [rid for rid in planned if rid not in members],
                      len(preds) if preds is not None else 0,
                      len(pred_data) if pred_data is not None else 0)


def archived_not_in_runs(out_dir: Path, planned: dict[str, str | None]) -> list[str]:
    """Planned runs (run id → digest) whose record the archive holds, with that digest, and
    ``runs/`` does not, when ``runs/`` holds records (so readers take it for the folder's
    records). Such a ``runs/`` is short of records the folder has: an interrupted
    ``records unpack``, or a run interrupted while it copied the archive's records."""
    out_dir = Path(out_dir)
    if not (_runs_dir_has_records(out_dir) and has_archive(out_dir)):
        return []
    archived = read_archive(archive_path(out_dir))
    runs = out_dir / "runs"
    return [rid for rid, digest in planned.items()
            if rid in archived and not (runs / f"{rid}{_SUFFIX}").exists()
            and (digest is None or _digest_of(archived[rid]) == digest)]


def unpack(out_dir: Path) -> tuple[list[Path], list[Path]]:
    """Write the archive's records (and the predictions archive's ``.pred.npz``, when the
    folder has one) into ``out_dir/runs/``: (written, already there with the same bytes).
    A file of ``runs/`` with other bytes is not overwritten: that is an error naming them,
    before anything is written. When ``runs/`` holds no record yet, the files are written
    into a hidden sibling folder renamed to ``runs/`` at the end, so an interruption
    leaves no ``runs/`` with part of the records (which every reader would have taken for
    the folder's records, instead of the archive)."""
    out_dir = Path(out_dir)
    path = archive_path(out_dir)
    if not path.is_file():
        raise UserError(f"{out_dir} has no {ARCHIVE_NAME} to unpack.")
    runs = out_dir / "runs"
    files = {runs / f"{rid}{_SUFFIX}": data for rid, data in read_archive(path).items()}
    files.update({runs / f"{rid}{_PRED_SUFFIX}": data
                  for rid, data in _predictions_archive(out_dir).items()})
    clash = [dest for dest, data in sorted(files.items())
             if dest.is_file() and dest.read_bytes() != data]
    if clash:
        shown = ", ".join(str(p) for p in clash[:5]) + (", …" if len(clash) > 5 else "")
        raise UserError(f"{len(clash)} file(s) of {runs} differ from those of the archives "
                        f"of {out_dir} and were left as they are: {shown}. Move runs/ away "
                        "(or pack it) first.")
    if not runs.exists() or (runs.is_dir() and not any(runs.iterdir())):
        return _unpack_into_new_runs(runs, files)
    written, same = [], []
    runs.mkdir(parents=True, exist_ok=True)
    for dest, data in sorted(files.items()):
        if dest.is_file():
            same.append(dest)
            continue
        atomic.write_bytes(dest, data)
        written.append(dest)
    return written, same


_STAGING = "unpack"  # .runs.<pid>~unpack: the folder an unpack writes before renaming it


def _unpack_into_new_runs(runs: Path, files: dict[Path, bytes]) -> tuple[list[Path],
                                                                         list[Path]]:
    """``files`` (paths under ``runs/``, absent or empty) written into a hidden folder
    beside it, renamed to ``runs/`` in one step once all are there. Such folders of
    unpacks no longer running (``kill -9``) are removed."""
    import os
    import shutil

    for old in runs.parent.glob(f".runs.*{atomic.PID_MARK}{_STAGING}"):
        pid = old.name[len(".runs."):-len(atomic.PID_MARK + _STAGING)]
        if pid.isdigit() and not atomic.process_alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    staging = runs.with_name(f".runs.{os.getpid()}{atomic.PID_MARK}{_STAGING}")
    try:
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        for dest, data in sorted(files.items()):
            atomic.write_bytes(staging / dest.name, data)
        if runs.is_dir():
            runs.rmdir()  # empty: checked by the caller
        os.rename(staging, runs)
    except OSError as exc:
        raise atomic.OutputError(f"Cannot unpack into {runs}: "
                                 f"{atomic.describe_os_error(exc)} ({exc}).") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # gone once renamed
    return sorted(files), []
