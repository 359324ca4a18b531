"""Streams over the real datasets of the four reproduced papers: the shared machinery.

The registered streams live in one module per paper, next to this one:

=========================================  =====================================================
module                                     streams
=========================================  =====================================================
:mod:`~streamlearn.datasets.real.online_bls`  segment, usps, letter, adult, shuttle, mnist,
                                           electricity, covtype
:mod:`~streamlearn.datasets.real.forks`    german, svmguide3, svmguide3_csv, spambase, codrna,
                                           w7a, ijcnn1, kuairec, adversarial
:mod:`~streamlearn.datasets.real.ridge_bls`  smallnorb (MNIST is the Online-BLS stream)
:mod:`~streamlearn.datasets.real.fast_ons`  cmu_arctic, cmu_arctic_sample, temperature,
                                           temperature_whately
=========================================  =====================================================

Each reads the official files from the data directory (see
:mod:`streamlearn.datasets.store` for resolution, checksums and the parsed-array cache,
and :mod:`streamlearn.datasets.catalogue` for the files), applies exactly the
preprocessing its paper describes, and returns ``X`` (float64) and ``y`` (int64 labels ``0..C-1`` or
float64 targets). This module holds what they share: :class:`RealStream`,
:class:`PartStream`, the label and NaN helpers, :data:`REAL_STREAMS`,
:func:`load_dataset` and :func:`load_split`.

Binary labels are mapped to ``0``/``1`` with label ``1`` <=> ``+1``; mapping to ``±1`` for
kernel learners is the learner's job. Time series come as ``X[:, 0] = y = x_t`` (the
series itself, scaled to [-1, 1]); the prediction protocol that forms lag windows and
predicts ``x_{t+1}`` is not part of the stream.

Non-finite features are rejected (``nan_policy="raise"``) or replaced by the column mean
of the finite values (``nan_policy="impute"``).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from streamlearn.base import Stream, StreamInfo
from streamlearn.datasets.catalogue import DATASETS
from streamlearn.datasets.catalogue.spec import DatasetSpec, FileSpec
from streamlearn.datasets.formats.raw import decode_text, read_bytes
from streamlearn.datasets.store import parsed_cache
from streamlearn.datasets.store.downloads import require_files
from streamlearn.datasets.store.locations import resolve_data_dir
from streamlearn.errors import DataError, UserError
from streamlearn.params import OfType, Options, _close_matches
from streamlearn.registry import register_stream as _register_stream

__all__ = [
    "REAL_STREAMS",
    "PartStream",
    "RealStream",
    "apply_nan_policy",
    "concat_parts",
    "int_labels",
    "load_dataset",
    "load_split",
    "pm1_labels",
    "read_text",
    "real_stream_class",
    "register_stream",
]

_NAN_POLICIES = ("raise", "impute")
_DATA_DIR = OfType((str, os.PathLike), allow_none=True)


#: The real-data streams (those of the per-paper modules here), by registry name (lookups here
#: must not depend on other registry modules being importable).
REAL_STREAMS: dict[str, type[Stream]] = {}


def register_stream(name: str) -> Any:
    """Register in the global stream registry and in :data:`REAL_STREAMS`."""

    def decorator(cls: type[Stream]) -> type[Stream]:
        REAL_STREAMS[name] = cls
        return _register_stream(name)(cls)

    return decorator


def real_stream_class(name: str) -> type[Stream]:
    """The real-data stream class registered as ``name``."""
    if name not in REAL_STREAMS:
        hint = _close_matches(name, sorted(REAL_STREAMS))
        raise UserError(f"{name!r} is not a real-data stream.{hint}")
    return REAL_STREAMS[name]


# --------------------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------------------


def apply_nan_policy(X: np.ndarray, policy: str, name: str) -> tuple[np.ndarray, int]:
    """Reject or impute non-finite entries of ``X``; returns ``(X, n_imputed)``.

    ``policy="impute"`` replaces each NaN/inf by the mean of the finite values of its
    column (a column without any finite value is an error).
    """
    if X.dtype.kind != "f":
        return X, 0
    bad = ~np.isfinite(X)
    n_bad = int(bad.sum())
    if n_bad == 0:
        return X, 0
    if policy != "impute":
        i, j = (int(v[0]) for v in np.nonzero(bad))
        raise DataError(
            f"Dataset {name!r} has {n_bad} non-finite feature value(s) (NaN or inf; the first "
            f"at row {i}, column {j}). Fix the file, or pass nan_policy='impute' to replace "
            "them by the column mean of the finite values."
        )
    X = np.array(X, dtype=np.float64, copy=True)
    finite = ~bad
    counts = finite.sum(axis=0)
    empty = np.flatnonzero((counts == 0) & bad.any(axis=0))
    if empty.size:
        raise DataError(
            f"Dataset {name!r}: column {int(empty[0])} has no finite value to impute from."
        )
    sums = np.where(finite, X, 0.0).sum(axis=0)
    means = sums / np.maximum(counts, 1)
    rows, cols = np.nonzero(bad)
    X[rows, cols] = means[cols]
    return X, n_bad


def int_labels(values: np.ndarray, low: int, high: int, source: Path | str) -> np.ndarray:
    """Integral labels in ``low..high`` -> ``0..high-low`` (an error otherwise)."""
    v = np.asarray(values, dtype=np.float64)
    ok = np.isfinite(v) & (v == np.round(v)) & (v >= low) & (v <= high)
    if not ok.all():
        k = int(np.flatnonzero(~ok)[0])
        raise DataError(
            f"Invalid class label {values[k]!r} in {source} at data row {k + 1}: expected an "
            f"integer in {low}..{high}."
        )
    return v.astype(np.int64) - low


def pm1_labels(values: np.ndarray, source: Path | str) -> np.ndarray:
    """Binary labels ``-1``/``+1`` -> ``0``/``1`` (label 1 <=> +1)."""
    v = np.asarray(values, dtype=np.float64)
    ok = (v == -1.0) | (v == 1.0)
    if not ok.all():
        k = int(np.flatnonzero(~ok)[0])
        raise DataError(
            f"Invalid binary label {values[k]!r} in {source} at data row {k + 1}: expected -1 "
            "or +1."
        )
    return (v > 0).astype(np.int64)


def read_text(path: Path) -> str:
    """A (possibly compressed) text file, decoded."""
    return decode_text(read_bytes(path), path)


def concat_parts(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The arrays of several files (parts) joined row-wise, key by key."""
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


# --------------------------------------------------------------------------------------
# Base class
# --------------------------------------------------------------------------------------


def _identity(path: Path) -> tuple[int, int, int, int]:
    """What changes when a file is rewritten or replaced: inode, size, mtime, ctime."""
    st = os.stat(path)
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class RealStream(Stream):
    """A stream over a dataset file set declared in :data:`streamlearn.datasets.catalogue.DATASETS`.

    Subclasses set ``dataset`` and implement ``_parse(paths) -> dict of arrays`` (cached
    as ``.npz``) and optionally ``_finish(arrays) -> (X, y, extra_meta)`` (cheap steps
    applied after the cache: scaling, type conversion, part selection).

    Parameters
    ----------
    data_dir
        Data directory; None resolves ``$STREAMLEARN_DATA``, then the per-user cache.
    nan_policy
        ``"raise"`` (default) rejects NaN/inf features; ``"impute"`` replaces them by the
        column mean of the finite values.
    """

    dataset: ClassVar[str] = ""
    needs_data: ClassVar[bool] = True
    _constraints: ClassVar[dict[str, Any]] = {
        "data_dir": _DATA_DIR,
        "nan_policy": Options(_NAN_POLICIES),
    }

    def __init__(
        self, *, data_dir: str | os.PathLike[str] | None = None, nan_policy: str = "raise"
    ) -> None:
        self.data_dir = data_dir
        self.nan_policy = nan_policy
        self._validate_params()

    # ---- metadata ----------------------------------------------------------------

    @property
    def spec(self) -> DatasetSpec:
        return DATASETS[self.dataset]

    def _part(self) -> str:
        part = getattr(self, "part", None)
        return self.spec.default_part if part is None else str(part)

    def _required(self) -> tuple[FileSpec, ...]:
        return self.spec.files_for(self._part())

    def _parse_params(self) -> dict[str, Any]:
        return {"part": self._part()}

    def _n_samples(self) -> int | None:
        return self.spec.sizes.get(self._part())

    def _n_features(self) -> int | None:
        return self.spec.n_features

    def info(self) -> StreamInfo:
        """Metadata from the dataset declaration (loads the data only if a size is unknown)."""
        n, d = self._n_samples(), self._n_features()
        if n is None or d is None:
            X, _ = self.to_arrays()
            n, d = X.shape
        spec = self.spec
        return StreamInfo(
            name=getattr(self, "registry_name", spec.name),
            task=self.task,
            n_samples=int(n),
            n_features=int(d),
            n_classes=spec.n_classes,
            source=spec.source,
            preprocessing=spec.preprocessing,
            substitute_for=spec.substitute_for,
        )

    def check_available(self) -> None:
        """Raise :class:`DataError` naming the first missing or corrupt file, if any."""
        require_files(self.dataset, self._required(), self.data_dir)

    def content_sha256(self) -> str | None:
        """The digest of what this stream reads that no reference SHA-256 pins: a run's
        identity takes it, so an edited file is computed again and never resumed from the
        records of the old one. ``None`` when every file it reads has a reference hash
        (a file with another hash is refused, so the catalogue's hash stands for it: the
        digests of records made before this method existed are kept). A file without one
        (``sha256=()`` in the catalogue: official files we could not obtain) gives its own
        SHA-256, several such files a SHA-256 over their paths and hashes. The hashes are
        those :func:`~streamlearn.datasets.store.downloads.require_files` takes anyway,
        memoised by the files' identity (:mod:`~streamlearn.datasets.store.checksums`):
        no second read of the file, and nothing is written into the data directory."""
        statuses = require_files(self.dataset, self._required(), self.data_dir)
        own = [(st.spec.path, str(st.actual)) for st in statuses if st.state == "unverified"]
        if not own:
            return None
        if len(own) == 1:
            return own[0][1]
        text = "".join(f"{path}\t{digest}\n" for path, digest in own)
        return hashlib.sha256(text.encode()).hexdigest()

    def content_key(self) -> tuple[Any, ...] | None:
        """The parameters and the identity (device, inode, size, times) of the files this
        stream reads: the per-process cache of prepared streams
        (:func:`streamlearn.protocols.preparation.prepare_stream`) keys on it, so a file
        changed since (a worker process that outlives an experiment, e.g. a Dask worker)
        is read again, never served from the cache under the new file's digest."""
        ddir = resolve_data_dir(self.data_dir)
        key: list[Any] = [type(self).__qualname__, repr(sorted(self.get_params().items()))]
        for fspec in self._required():
            try:
                st = (ddir / fspec.path).stat()
            except OSError:
                return None
            key.append((fspec.path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
                        st.st_ctime_ns))
        return tuple(key)

    # ---- loading -----------------------------------------------------------------

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def _finish(self, arrays: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, dict]:
        return np.asarray(arrays["X"], dtype=np.float64), arrays["y"], {}

    def _load_with_meta(self) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        statuses = require_files(self.dataset, self._required(), self.data_dir)
        hashes = [str(st.actual) for st in statuses]
        arrays = None
        cpath = None
        if parsed_cache.enabled():
            key = parsed_cache.cache_key(self.dataset, self._parse_params(), hashes)
            cpath = parsed_cache.parsed_cache_path(self.dataset, key)
            arrays = parsed_cache.load_parsed(cpath)
        from_cache = arrays is not None
        if arrays is None:
            paths = [st.path for st in statuses]
            before = [_identity(p) for p in paths]
            arrays = self._parse(paths)
            # the bytes parsed must be the bytes hashed: a file replaced while it was read
            # (a rename swaps the inode and sets ctime) had put another file's arrays in
            # the parsed cache under the verified hash, served until a cache-clear
            again = require_files(self.dataset, self._required(), self.data_dir)
            if [_identity(p) for p in paths] != before or \
                    [str(st.actual) for st in again] != hashes:
                raise DataError(f"Dataset {self.dataset!r}: a file changed while it was "
                                "read; nothing was cached. Run again once it is settled.")
            if cpath is not None:
                parsed_cache.save_parsed(cpath, arrays)
        integral = "X" in arrays and arrays["X"].dtype.kind in "iub"
        X, y, extra = self._finish(arrays)
        X = np.asarray(X, dtype=np.float64)
        n_imputed = 0
        if not integral:  # integer pixels/samples cannot be NaN or inf
            X, n_imputed = apply_nan_policy(X, self.nan_policy, self.dataset)
        y = self._check_y(y)
        if X.ndim != 2 or X.shape[0] != y.shape[0]:
            raise DataError(  # pragma: no cover - parsers guarantee this
                f"Dataset {self.dataset!r}: X {X.shape} and y {y.shape} disagree."
            )
        meta = self._meta(X, y, statuses, from_cache, n_imputed, extra)
        return np.ascontiguousarray(X), y, meta

    def _check_y(self, y: np.ndarray) -> np.ndarray:
        if self.task == "classification":
            y = np.asarray(y)
            C = self.spec.n_classes
            if y.dtype.kind not in "iu" or (y.size and (y.min() < 0 or (C and y.max() >= C))):
                raise DataError(  # pragma: no cover - parsers guarantee this
                    f"Dataset {self.dataset!r}: labels outside 0..{C}."
                )
            return y.astype(np.int64, copy=False)
        y = np.asarray(y, dtype=np.float64)
        if not np.isfinite(y).all():
            raise DataError(f"Dataset {self.dataset!r} has non-finite targets.")
        return y

    def _meta(
        self,
        X: np.ndarray,
        y: np.ndarray,
        statuses: list[Any],
        from_cache: bool,
        n_imputed: int,
        extra: dict[str, Any],
    ) -> dict[str, Any]:
        spec = self.spec
        meta: dict[str, Any] = {
            "name": getattr(self, "registry_name", spec.name),
            "dataset": spec.name,
            "title": spec.title,
            "task": self.task,
            "n_samples": int(X.shape[0]),
            "n_features": int(X.shape[1]),
            "n_classes": spec.n_classes,
            "class_names": list(spec.class_names) if spec.class_names else None,
            "papers": list(spec.papers),
            "kind": spec.kind,
            "substitute_for": spec.substitute_for,
            "natural_order": self.natural_order,
            "source": spec.source,
            "preprocessing": list(spec.preprocessing),
            "params": {
                k: os.fspath(v) if isinstance(v, os.PathLike) else v
                for k, v in self.get_params().items()
            },
            "data_dir": str(resolve_data_dir(self.data_dir)),
            "files": [
                {"path": st.spec.path, "sha256": st.actual, "state": st.state} for st in statuses
            ],
            "from_cache": from_cache,
            "nan_imputed": n_imputed,
        }
        if self.task == "classification" and spec.n_classes:
            meta["class_counts"] = np.bincount(y, minlength=spec.n_classes).tolist()
        meta.update(extra)
        return meta

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        X, y, _ = self._load_with_meta()
        return X, y

    def load(self) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """Load ``(X, y, meta)``; ``meta`` records shape, provenance, files and preprocessing."""
        return self._load_with_meta()


class PartStream(RealStream):
    """A :class:`RealStream` with a ``part`` parameter selecting the official split."""

    _constraints: ClassVar[dict[str, Any]] = {
        **RealStream._constraints,
        "part": Options(("all", "train", "test", None)),
    }

    def __init__(
        self,
        *,
        part: str | None = None,
        data_dir: str | os.PathLike[str] | None = None,
        nan_policy: str = "raise",
    ) -> None:
        self.part = part  # None: the dataset's default part (see DatasetSpec.default_part)
        super().__init__(data_dir=data_dir, nan_policy=nan_policy)

    @classmethod
    def _test_params(cls) -> Any:
        yield {}
        yield {"part": "train"}


# --------------------------------------------------------------------------------------
# Library functions
# --------------------------------------------------------------------------------------


def load_dataset(
    name: str, data_dir: str | os.PathLike[str] | None = None, **params: Any
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Load a registered real dataset as ``(X, y, meta)``.

    Parameters
    ----------
    name
        Stream registry name (``"mnist"``, ``"adult"``, ``"adversarial"``, ...).
    data_dir
        Data directory (None: ``$STREAMLEARN_DATA``, then the per-user cache).
    **params
        Stream parameters, e.g. ``part="train"``, ``nan_policy="impute"``.
    """
    cls = real_stream_class(name)
    if not getattr(cls, "needs_data", False) or not hasattr(cls, "load"):
        raise UserError(f"{name!r} is not a real-data stream.")
    cls.check_param_names({**params, "data_dir": data_dir})
    return cls(data_dir=data_dir, **params).load()  # type: ignore[attr-defined]


def load_split(
    name: str, data_dir: str | os.PathLike[str] | None = None, **params: Any
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray], dict[str, Any]]:
    """The official train/test split: ``((X_train, y_train), (X_test, y_test), meta)``.

    For datasets with a ``part`` parameter (``mnist``, ``smallnorb``, ``usps``, ``adult``,
    ...). ``meta`` describes the training part and adds ``n_test``.
    """
    cls = real_stream_class(name)
    if "part" not in cls._param_names():
        raise UserError(f"Dataset {name!r} has no official train/test split.")
    X_tr, y_tr, meta = load_dataset(name, data_dir, part="train", **params)
    X_te, y_te, _ = load_dataset(name, data_dir, part="test", **params)
    meta = {**meta, "n_train": int(X_tr.shape[0]), "n_test": int(X_te.shape[0])}
    return (X_tr, y_tr), (X_te, y_te), meta
