"""Streams over the real datasets of the four reproduced papers.

Each registered stream reads the official files from the data directory (see
:mod:`streamlearn.datasets._store` for resolution, checksums and the parsed-array cache),
applies exactly the preprocessing its paper describes, and returns ``X`` (float64) and
``y`` (int64 labels ``0..C-1`` or float64 targets).

=====================  ===============================  =====================================
registry name          paper                            notes
=====================  ===============================  =====================================
``segment``            Online-BLS (online_bls.md §8.3)  2,310 x 19, 7 classes
``usps``               Online-BLS                       9,298 x 256, 10 classes (ESL files)
``letter``             Online-BLS                       20,000 x 16, 26 classes
``adult``              Online-BLS                       45,222 x 14, 2 classes
``shuttle``            Online-BLS                       58,000 x 8, 7 classes
``mnist``              Online-BLS, Ridge-BLS            70,000 x 784 (``part`` for the split)
``electricity``        Online-BLS                       45,312 x 6, natural order
``covtype``            Online-BLS                       581,012 x 54, natural order
``german``             FORKS (forks.md §6.1)            1,000 x 24
``svmguide3``          FORKS                            LIBSVM files (not stored here)
``svmguide3_csv``      FORKS                            substitute: CSV conversion
``spambase``           FORKS                            4,601 x 57
``codrna``             FORKS                            59,535 x 8 (training file)
``w7a``                FORKS                            24,692 x 300
``ijcnn1``             FORKS                            141,691 x 22 (train + test)
``kuairec``            FORKS (§6.5)                     time-ordered interactions
``adversarial``        FORKS (§6.4)                     b blocks x r repeats, flipped labels
``smallnorb``          Ridge-BLS (ridge_bls.md §4.2)    48,600 x 2048, 5 classes
``cmu_arctic``         Fast-ONS (fast_ons.md §4.1)      full single-speaker recording
``cmu_arctic_sample``  Fast-ONS                         partial: 9 utterances
``temperature``        Fast-ONS                         UMass trace (not stored here)
``temperature_whately``  Fast-ONS                       substitute: MacLeish/Whately trace
=====================  ===============================  =====================================

Binary labels are mapped to ``0``/``1`` with label ``1`` <=> ``+1``; mapping to ``±1`` for
kernel learners is the learner's job. Time series come as ``X[:, 0] = y = x_t`` (the
series itself, scaled to [-1, 1]); the prediction protocol that forms lag windows and
predicts ``x_{t+1}`` is not part of the stream.

Non-finite features are rejected (``nan_policy="raise"``) or replaced by the column mean
of the finite values (``nan_policy="impute"``).
"""

from __future__ import annotations

import os
import re
import tarfile
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from streamlearn.base import DataError, Interval, OfType, Options, Stream, StreamInfo, UserError
from streamlearn.datasets import _parsers as P
from streamlearn.datasets._store import (
    DATASETS,
    DatasetSpec,
    FileSpec,
    cache_key,
    get_spec,
    load_parsed,
    parsed_cache_path,
    require_files,
    resolve_data_dir,
    save_parsed,
)
from streamlearn.registry import get_stream
from streamlearn.registry import register_stream as _register_stream

__all__ = [
    "REAL_STREAMS",
    "AdversarialStream",
    "RealStream",
    "apply_nan_policy",
    "load_dataset",
    "load_split",
]

_NAN_POLICIES = ("raise", "impute")
_DATA_DIR = OfType((str, os.PathLike), allow_none=True)


#: The streams defined here, by registry name (lookups here must not depend on other
#: registry modules being importable).
REAL_STREAMS: dict[str, type[Stream]] = {}


def register_stream(name: str) -> Any:
    """Register in the global stream registry and in :data:`REAL_STREAMS`."""

    def decorator(cls: type[Stream]) -> type[Stream]:
        REAL_STREAMS[name] = cls
        return _register_stream(name)(cls)

    return decorator


def _stream_class(name: str) -> type[Stream]:
    return REAL_STREAMS[name] if name in REAL_STREAMS else get_stream(name)


def _env_cache_enabled() -> bool:
    return os.environ.get("STREAMLEARN_PARSED_CACHE", "1") not in ("0", "false", "no")


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


def _int_labels(values: np.ndarray, low: int, high: int, source: Path | str) -> np.ndarray:
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


def _pm1_labels(values: np.ndarray, source: Path | str) -> np.ndarray:
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


def _text(path: Path) -> str:
    return P.decode_text(P.read_bytes(path), path)


def _concat(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


# --------------------------------------------------------------------------------------
# Base class
# --------------------------------------------------------------------------------------


class RealStream(Stream):
    """A stream over a dataset file set declared in :data:`streamlearn.datasets._store.DATASETS`.

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
        if _env_cache_enabled():
            key = cache_key(self.dataset, self._parse_params(), hashes)
            cpath = parsed_cache_path(self.data_dir, self.dataset, key)
            arrays = load_parsed(cpath)
        from_cache = arrays is not None
        if arrays is None:
            arrays = self._parse([st.path for st in statuses])
            if cpath is not None:
                save_parsed(cpath, arrays)
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


class _PartStream(RealStream):
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
# Online-BLS datasets
# --------------------------------------------------------------------------------------


@register_stream("segment")
class SegmentStream(_PartStream):
    """UCI Image Segmentation, train+test merged (2,310 x 19, 7 classes) [Online-BLS]."""

    dataset = "segment"

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        out = []
        for path in paths:
            lines = [
                ln
                for ln in _text(path).split("\n")
                if ln.strip() and not ln.startswith(";") and not ln.startswith("REGION-CENTROID")
            ]
            table = P.parse_string_table("\n".join(lines), delimiter=",", n_cols=20, source=path)
            y, _ = P.encode_labels(table[:, 0], self.spec.class_names, path)
            out.append({"X": P.to_float_columns(table, range(1, 20), path), "y": y})
        return _concat(out)


@register_stream("usps")
class USPSStream(_PartStream):
    """USPS digits from the ESL zip.train/zip.test files, merged (9,298 x 256) [Online-BLS]."""

    dataset = "usps"

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        out = []
        for path in paths:
            table = P.parse_numeric_table(_text(path), n_cols=257, source=path)
            out.append({"X": table[:, 1:], "y": _int_labels(table[:, 0], 0, 9, path)})
        return _concat(out)


@register_stream("letter")
class LetterStream(RealStream):
    """UCI Letter Recognition (20,000 x 16, 26 classes) [Online-BLS]."""

    dataset = "letter"

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        (path,) = paths
        table = P.parse_string_table(_text(path), delimiter=",", n_cols=17, source=path)
        y, _ = P.encode_labels(table[:, 0], self.spec.class_names, path)
        return {"X": P.to_float_columns(table, range(1, 17), path), "y": y}


_ADULT_CATEGORICAL = (1, 3, 5, 6, 7, 8, 9, 13)
_ADULT_NUMERIC = (0, 2, 4, 10, 11, 12)


@register_stream("adult")
class AdultStream(_PartStream):
    """UCI Adult, train+test merged, rows with '?' removed (45,222 x 14) [Online-BLS].

    Categorical attributes (workclass, education, marital-status, occupation,
    relationship, race, sex, native-country) become integer codes: the rank of the
    whitespace-stripped string among the sorted distinct values of the merged, cleaned
    data (so ``part="train"`` and ``part="test"`` share codes). Columns keep the UCI
    order; label ``<=50K`` -> 0, ``>50K`` -> 1.
    """

    dataset = "adult"

    def _required(self) -> tuple[FileSpec, ...]:
        return self.spec.files_for("all")  # the codes depend on both files

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        tables, part_ids = [], []
        for k, path in enumerate(paths):
            text = _text(path)
            skip = 1 if text.startswith("|") else 0
            table = P.parse_string_table(
                text, delimiter=",", skip_rows=skip, n_cols=15, source=path
            )
            tables.append(table)
            part_ids.append(np.full(table.shape[0], k, dtype=np.int8))
        table = np.concatenate(tables)
        part_id = np.concatenate(part_ids)
        keep = ~(table == "?").any(axis=1)
        table, part_id = table[keep], part_id[keep]
        labels = np.char.rstrip(table[:, 14], ".")
        y, _ = P.encode_labels(labels, self.spec.class_names, "adult")
        X = np.empty((table.shape[0], 14), dtype=np.float64)
        X[:, list(_ADULT_NUMERIC)] = P.to_float_columns(table, _ADULT_NUMERIC, "adult")
        for j in _ADULT_CATEGORICAL:
            codes, _ = P.encode_labels(table[:, j])
            X[:, j] = codes
        part_index = {"all": None, "train": 0, "test": 1}[self._part()]
        if part_index is not None:
            sel = part_id == part_index
            X, y = X[sel], y[sel]
        return {"X": X, "y": y}


@register_stream("shuttle")
class ShuttleStream(_PartStream):
    """UCI Statlog Shuttle, merged, time attribute dropped (58,000 x 8, 7 classes) [Online-BLS]."""

    dataset = "shuttle"

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        out = []
        for path in paths:
            table = P.parse_numeric_table(_text(path), n_cols=10, source=path)
            out.append({"X": table[:, 1:9], "y": _int_labels(table[:, 9], 1, 7, path)})
        return _concat(out)


@register_stream("mnist")
class MNISTStream(_PartStream):
    """MNIST digits scaled to [0, 1]; part='all' merges train+test (70,000 x 784) [Online-BLS].

    ``part="train"`` / ``part="test"`` give the standard 60,000 / 10,000 split used by
    Ridge-BLS (see also :func:`load_split`).
    """

    dataset = "mnist"

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        out = []
        for images_path, labels_path in zip(paths[0::2], paths[1::2], strict=True):
            images = P.parse_idx(P.read_bytes(images_path), images_path)
            labels = P.parse_idx(P.read_bytes(labels_path), labels_path)
            if images.ndim != 3 or images.shape[1:] != (28, 28) or images.dtype != np.uint8:
                raise DataError(
                    f"{images_path} holds {images.dtype} images of shape {images.shape}; "
                    "expected uint8 N x 28 x 28."
                )
            if labels.ndim != 1 or labels.shape[0] != images.shape[0]:
                raise DataError(
                    f"{labels_path} has {labels.shape[0]} labels for {images.shape[0]} images "
                    f"in {images_path}."
                )
            y = _int_labels(labels, 0, 9, labels_path)
            out.append({"X": images.reshape(images.shape[0], 784), "y": y})
        return _concat(out)

    def _finish(self, arrays: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, dict]:
        X = np.divide(arrays["X"], 255.0, dtype=np.float64)
        return X, arrays["y"], {}


_ELEC_FEATURES = ("period", "nswprice", "nswdemand", "vicprice", "vicdemand", "transfer")


@register_stream("electricity")
class ElectricityStream(RealStream):
    """Electricity (MOA elecNormNew), date/day dropped, natural order (45,312 x 6) [Online-BLS]."""

    dataset = "electricity"
    natural_order = True

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        (path,) = paths
        arff = P.parse_arff(_text(path), path)
        cols = [arff.column(name) for name in _ELEC_FEATURES]
        X = P.to_float_columns(arff.table, cols, path)
        y, _ = P.encode_labels(arff.table[:, arff.column("class")], self.spec.class_names, path)
        return {"X": X, "y": y}


@register_stream("covtype")
class CovtypeStream(RealStream):
    """UCI Covertype, all 54 columns, natural order (581,012 x 54, 7 classes) [Online-BLS]."""

    dataset = "covtype"
    natural_order = True

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        (path,) = paths
        table = P.parse_numeric_table(_text(path), delimiter=",", n_cols=55, source=path)
        return {"X": table[:, :54], "y": _int_labels(table[:, 54], 1, 7, path)}


# --------------------------------------------------------------------------------------
# FORKS datasets
# --------------------------------------------------------------------------------------


class _LibsvmStream(_PartStream):
    """Binary LIBSVM data set; the files of the selected part are concatenated in order."""

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        out = []
        for path in paths:
            X, y = P.parse_libsvm(P.read_bytes(path), n_features=self.spec.n_features, source=path)
            out.append({"X": X, "y": _pm1_labels(y, path)})
        return _concat(out)


@register_stream("german")
class GermanStream(_LibsvmStream):
    """German credit, LIBSVM german.numer, raw features (1,000 x 24) [FORKS].

    ``variant="numer_scale"`` reads LIBSVM's [-1, 1]-scaled copy instead. Labels: -1 -> 0,
    +1 -> 1.
    """

    dataset = "german"
    _constraints: ClassVar[dict[str, Any]] = {
        **RealStream._constraints,
        "variant": Options(("numer", "numer_scale")),
    }

    def __init__(
        self,
        *,
        variant: str = "numer",
        data_dir: str | os.PathLike[str] | None = None,
        nan_policy: str = "raise",
    ) -> None:
        self.variant = variant
        RealStream.__init__(self, data_dir=data_dir, nan_policy=nan_policy)

    def _part(self) -> str:
        return str(self.variant)

    @classmethod
    def _test_params(cls) -> Any:
        yield {}
        yield {"variant": "numer_scale"}


@register_stream("svmguide3")
class SVMGuide3Stream(_LibsvmStream):
    """svmguide3 in LIBSVM format (1,243 x 22 for part='train') [FORKS]."""

    dataset = "svmguide3"


@register_stream("svmguide3_csv")
class SVMGuide3CSVStream(_PartStream):
    """svmguide3 from the dense CSV conversion: substitute for the LIBSVM files [FORKS]."""

    dataset = "svmguide3_csv"

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        out = []
        for path in paths:
            table = P.parse_numeric_table(_text(path), delimiter=",", n_cols=22, source=path)
            out.append({"X": table[:, 1:], "y": _pm1_labels(table[:, 0], path)})
        return _concat(out)


@register_stream("spambase")
class SpambaseStream(RealStream):
    """UCI Spambase, raw features (4,601 x 57); label 1 = spam (<=> +1) [FORKS]."""

    dataset = "spambase"

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        (path,) = paths
        table = P.parse_numeric_table(_text(path), delimiter=",", n_cols=58, source=path)
        return {"X": table[:, :57], "y": _int_labels(table[:, 57], 0, 1, path)}


@register_stream("codrna")
class CodRNAStream(_LibsvmStream):
    """cod-rna, LIBSVM format; part='train' (59,535 x 8) by default [FORKS]."""

    dataset = "codrna"


@register_stream("w7a")
class W7aStream(_LibsvmStream):
    """w7a, LIBSVM format; part='train' (24,692 x 300) by default [FORKS]."""

    dataset = "w7a"


@register_stream("ijcnn1")
class IJCNN1Stream(_LibsvmStream):
    """ijcnn1, LIBSVM format; train+test concatenated (141,691 x 22) [FORKS]."""

    dataset = "ijcnn1"


_KUAI_MEMBERS = ("small_matrix.csv", "user_features.csv", "item_daily_features.csv")
_KUAI_ID_COLUMNS = frozenset(
    {"user_id", "video_id", "date", "author_id", "music_id", "video_tag_id", "upload_dt"}
)


@register_stream("kuairec")
class KuaiRecStream(RealStream):
    """KuaiRec small matrix by timestamp; watch_ratio > 0.75 -> 1 (<=> +1) [FORKS §5.3].

    Reads ``small_matrix.csv``, ``user_features.csv`` and ``item_daily_features.csv``
    straight from the official ``KuaiRec.zip``. Rows without a timestamp (or date) are
    dropped, the rest stable-sorted by timestamp. Features (forks.md §6.5 [R] proposal;
    the paper's feature code is not available): the numeric columns of the user table
    joined on ``user_id``, then the numeric columns of the daily item table joined on
    ``(video_id, date)``; id columns and string columns are excluded; absent side
    information becomes 0. ``threshold`` sets the watch-ratio cut (paper: 0.75).
    """

    dataset = "kuairec"
    natural_order = True
    _constraints: ClassVar[dict[str, Any]] = {
        **RealStream._constraints,
        "threshold": Interval(0, None, closed="left"),
    }

    def __init__(
        self,
        *,
        threshold: float = 0.75,
        data_dir: str | os.PathLike[str] | None = None,
        nan_policy: str = "raise",
    ) -> None:
        self.threshold = threshold
        super().__init__(data_dir=data_dir, nan_policy=nan_policy)

    def _parse_params(self) -> dict[str, Any]:
        return {"threshold": float(self.threshold)}

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        import pandas as pd

        (path,) = paths
        try:
            with zipfile.ZipFile(path) as zf:
                by_base = {Path(n).name: n for n in zf.namelist() if not n.endswith("/")}
                missing = [m for m in _KUAI_MEMBERS if m not in by_base]
                if missing:
                    raise DataError(
                        f"{path} lacks {', '.join(missing)}; is it the KuaiRec 2.0 archive?"
                    )
                frames = {}
                for member in _KUAI_MEMBERS:
                    frames[member] = P.parse_csv_frame(
                        zf.read(by_base[member]), source=f"{path}:{by_base[member]}"
                    )
        except (zipfile.BadZipFile, EOFError, OSError) as exc:
            raise DataError(
                f"{path} is not a valid zip archive (truncated or corrupt: {exc})."
            ) from exc
        inter = frames["small_matrix.csv"]
        need = ("user_id", "video_id", "date", "timestamp", "watch_ratio")
        absent = [c for c in need if c not in inter.columns]
        if absent:
            raise DataError(f"small_matrix.csv in {path} lacks column(s) {', '.join(absent)}.")
        inter = inter[list(need)].copy()
        for c in need:
            inter[c] = pd.to_numeric(inter[c], errors="coerce")
        n_raw = len(inter)
        inter = inter[inter["timestamp"].notna() & inter["date"].notna()]
        if inter["watch_ratio"].isna().any() or inter[["user_id", "video_id"]].isna().any().any():
            raise DataError(f"small_matrix.csv in {path} has rows without watch_ratio or ids.")
        inter = inter.iloc[np.argsort(inter["timestamp"].to_numpy(), kind="stable")]
        inter = inter.astype({"user_id": np.int64, "video_id": np.int64, "date": np.int64})
        users = self._numeric_side(frames["user_features.csv"], ("user_id",), path)
        items = self._numeric_side(frames["item_daily_features.csv"], ("video_id", "date"), path)
        merged = inter.merge(users, on="user_id", how="left", validate="many_to_one")
        merged = merged.merge(items, on=["video_id", "date"], how="left", validate="many_to_one")
        names = [c for c in users.columns if c != "user_id"] + [
            c for c in items.columns if c not in ("video_id", "date")
        ]
        X = merged[names].to_numpy(dtype=np.float64, na_value=0.0)
        X = np.where(np.isnan(X), 0.0, X)
        y = (merged["watch_ratio"].to_numpy(dtype=np.float64) > self.threshold).astype(np.int64)
        return {
            "X": X,
            "y": y,
            "feature_names": np.array(names, dtype=str),
            "n_dropped": np.array(n_raw - len(inter)),
        }

    @staticmethod
    def _numeric_side(frame: Any, keys: tuple[str, ...], path: Path) -> Any:
        import pandas as pd

        absent = [k for k in keys if k not in frame.columns]
        if absent:
            raise DataError(f"A KuaiRec side table in {path} lacks {', '.join(absent)}.")
        cols = [
            c
            for c in frame.columns
            if c not in _KUAI_ID_COLUMNS and pd.api.types.is_numeric_dtype(frame[c])
        ]
        side = frame[list(keys) + cols].copy()
        for k in keys:
            side[k] = pd.to_numeric(side[k], errors="coerce")
        side = side.dropna(subset=list(keys)).astype({k: np.int64 for k in keys})
        if side.duplicated(subset=list(keys)).any():
            raise DataError(f"A KuaiRec side table in {path} repeats the key {keys}.")
        return side

    def _finish(self, arrays: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, dict]:
        extra = {
            "feature_names": arrays["feature_names"].tolist(),
            "rows_dropped_without_timestamp": int(arrays["n_dropped"]),
        }
        return np.asarray(arrays["X"], dtype=np.float64), arrays["y"], extra


@register_stream("adversarial")
class AdversarialStream(Stream):
    """FORKS adversarial block stream: b instances each repeated r times, even blocks flipped.

    For block ``j = 1..b`` one instance of the base dataset is drawn uniformly without
    replacement and repeated ``repeats`` times; in even blocks (``j = 2, 4, ...``) every
    label is flipped (``0 <-> 1``, i.e. multiplied by -1 in ±1 terms). ``T = b r``
    (forks.md §6.4: german-1 / codrna-1 use ``b=500, r=10``; german-2 / codrna-2
    ``r=20``). The order is the construction order (``natural_order``); ``seed`` drives
    the instance draws, so a new seed gives a new, independent construction.

    Parameters
    ----------
    base
        Registry name of a binary real dataset (``german`` or ``codrna`` in the paper).
    n_blocks
        Number of blocks ``b``.
    repeats
        Copies per block ``r``.
    seed
        Seed of the instance draws.
    data_dir, nan_policy
        Passed to the base stream.
    """

    task: ClassVar[str] = "classification"
    natural_order: ClassVar[bool] = True
    needs_data: ClassVar[bool] = True
    _constraints: ClassVar[dict[str, Any]] = {
        "base": Options(
            tuple(
                sorted(
                    n
                    for n, s in DATASETS.items()
                    if s.task == "classification" and s.n_classes == 2
                )
            )
        ),
        "n_blocks": Interval(1, None, integer=True),
        "repeats": Interval(1, None, integer=True),
        "seed": Interval(0, None, integer=True, allow_none=True),
        "data_dir": _DATA_DIR,
        "nan_policy": Options(_NAN_POLICIES),
    }

    def __init__(
        self,
        *,
        base: str = "german",
        n_blocks: int = 500,
        repeats: int = 10,
        seed: int | None = 0,
        data_dir: str | os.PathLike[str] | None = None,
        nan_policy: str = "raise",
    ) -> None:
        self.base = base
        self.n_blocks = n_blocks
        self.repeats = repeats
        self.seed = seed
        self.data_dir = data_dir
        self.nan_policy = nan_policy
        self._validate_params()

    def _base_stream(self) -> RealStream:
        cls = _stream_class(self.base)
        return cls(data_dir=self.data_dir, nan_policy=self.nan_policy)  # type: ignore[call-arg]

    def check_available(self) -> None:
        self._base_stream().check_available()

    def info(self) -> StreamInfo:
        spec = get_spec(self.base)
        return StreamInfo(
            name="adversarial",
            task="classification",
            n_samples=self.n_blocks * self.repeats,
            n_features=int(self._base_stream().info().n_features),
            n_classes=2,
            source=f"adversarial blocks over {self.base} ({spec.source})",
            preprocessing=(
                f"{self.n_blocks} instances of {self.base} drawn without replacement "
                f"(seed {self.seed}), each repeated {self.repeats} times",
                "labels flipped in even blocks (2, 4, ...)",
            ),
        )

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        X0, y0 = self._base_stream().to_arrays()
        n = X0.shape[0]
        if self.n_blocks > n:
            raise UserError(
                f"adversarial: n_blocks={self.n_blocks} exceeds the {n} instances of "
                f"{self.base!r} (instances are drawn without replacement)."
            )
        rng = np.random.default_rng(self.seed)
        idx = rng.choice(n, size=self.n_blocks, replace=False)
        X = np.repeat(X0[idx], self.repeats, axis=0)
        y = np.repeat(y0[idx], self.repeats)
        block = np.repeat(np.arange(1, self.n_blocks + 1), self.repeats)
        flip = block % 2 == 0
        y[flip] = 1 - y[flip]
        return X, y

    def load(self) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        X, y = self.to_arrays()
        info = self.info()
        meta = {
            "name": "adversarial",
            "task": "classification",
            "n_samples": int(X.shape[0]),
            "n_features": int(X.shape[1]),
            "n_classes": 2,
            "natural_order": True,
            "source": info.source,
            "preprocessing": list(info.preprocessing),
            "params": self.get_params(),
            "class_counts": np.bincount(y, minlength=2).tolist(),
        }
        return X, y, meta

    @classmethod
    def _test_params(cls) -> Any:
        yield {"n_blocks": 5, "repeats": 3}


# --------------------------------------------------------------------------------------
# Ridge-BLS: small NORB
# --------------------------------------------------------------------------------------


@register_stream("smallnorb")
class SmallNORBStream(_PartStream):
    """small NORB, stereo pairs downsampled to 2x32x32 = 2048 inputs in [0, 1] [Ridge-BLS].

    Reads the official ``*-dat.mat.gz`` / ``*-cat.mat.gz`` binary matrices. Each 96x96
    image is reduced to 32x32 by 3x3 block means (the 2048-input setting of [16]);
    ``image_size=96`` keeps full resolution (18,432 inputs; ~7 GB as float64 for the
    whole set). ``part="all"`` is the training set then the testing set.
    """

    dataset = "smallnorb"
    _constraints: ClassVar[dict[str, Any]] = {
        **_PartStream._constraints,
        "image_size": Options((32, 96)),
    }

    def __init__(
        self,
        *,
        part: str | None = None,
        image_size: int = 32,
        data_dir: str | os.PathLike[str] | None = None,
        nan_policy: str = "raise",
    ) -> None:
        self.image_size = image_size
        super().__init__(part=part, data_dir=data_dir, nan_policy=nan_policy)

    def _parse_params(self) -> dict[str, Any]:
        return {"part": self._part(), "image_size": self.image_size}

    def _n_features(self) -> int:
        return 2 * self.image_size * self.image_size

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        out = []
        for dat_path, cat_path in zip(paths[0::2], paths[1::2], strict=True):
            dat = P.parse_norb_mat(P.read_bytes(dat_path), dat_path)
            cat = P.parse_norb_mat(P.read_bytes(cat_path), cat_path)
            if dat.ndim != 4 or dat.shape[1:] != (2, 96, 96) or dat.dtype != np.uint8:
                raise DataError(
                    f"{dat_path} holds {dat.dtype} data of shape {dat.shape}; expected "
                    "uint8 N x 2 x 96 x 96."
                )
            cat = cat.reshape(-1)
            if cat.shape[0] != dat.shape[0]:
                raise DataError(f"{cat_path} has {cat.shape[0]} labels for {dat.shape[0]} images.")
            n = dat.shape[0]
            if self.image_size == 32:
                X = dat.reshape(n, 2, 32, 3, 32, 3).sum(axis=(3, 5), dtype=np.uint16)
            else:
                X = dat
            out.append({"X": X.reshape(n, -1), "y": _int_labels(cat, 0, 4, cat_path)})
        return _concat(out)

    def _finish(self, arrays: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, dict]:
        scale = 255.0 * (9.0 if self.image_size == 32 else 1.0)
        X = np.divide(arrays["X"], scale, dtype=np.float64)
        return X, arrays["y"], {}


# --------------------------------------------------------------------------------------
# Fast-ONS time series
# --------------------------------------------------------------------------------------


class _SeriesStream(RealStream):
    """A scalar series scaled to [-1, 1]; ``X[:, 0] = y = x_t``."""

    task: ClassVar[str] = "regression"
    natural_order: ClassVar[bool] = True
    _constraints: ClassVar[dict[str, Any]] = {
        **RealStream._constraints,
        "scaling": Options(("minmax", "maxabs")),
    }

    def __init__(
        self,
        *,
        scaling: str = "minmax",
        data_dir: str | os.PathLike[str] | None = None,
        nan_policy: str = "raise",
    ) -> None:
        self.scaling = scaling
        super().__init__(data_dir=data_dir, nan_policy=nan_policy)

    def _finish(self, arrays: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, dict]:
        v = np.asarray(arrays["series"], dtype=np.float64)
        v, _ = apply_nan_policy(v.reshape(-1, 1), self.nan_policy, self.dataset)
        v = v.reshape(-1)
        if v.size == 0:
            raise DataError(f"Dataset {self.dataset!r} has an empty series.")
        lo, hi = float(v.min()), float(v.max())
        if self.scaling == "maxabs":
            m = max(abs(lo), abs(hi))
            if m == 0:
                raise DataError(f"Dataset {self.dataset!r} is all zeros; cannot scale it.")
            v = v / m
        else:
            if hi == lo:
                raise DataError(f"Dataset {self.dataset!r} is constant; cannot min-max scale it.")
            v = 2.0 * (v - lo) / (hi - lo) - 1.0
        extra = {"raw_min": lo, "raw_max": hi}
        extra.update({k: arrays[k].item() for k in arrays if k.startswith("n_")})
        return v.reshape(-1, 1), v.copy(), extra


def _read_pcm(data: bytes, source: str) -> np.ndarray:
    rate, samples = P.parse_wav(data, source)
    if rate != 16000 or samples.ndim != 1 or samples.dtype != np.int16:
        raise DataError(
            f"{source}: expected 16 kHz mono 16-bit PCM, found {rate} Hz, "
            f"{1 if samples.ndim == 1 else samples.shape[1]} channel(s), {samples.dtype}."
        )
    return samples


_ARCTIC_WAV = re.compile(r"(^|/)wav/arctic_[ab]\d{4}\.wav$")


@register_stream("cmu_arctic")
class CMUArcticStream(_SeriesStream):
    """CMU ARCTIC speech: one speaker's utterances concatenated, in [-1, 1] [Fast-ONS].

    Reads the official ``cmu_us_<speaker>_arctic.tar.bz2`` directly: its
    ``wav/arctic_[ab]NNNN.wav`` members (16 kHz, mono, 16-bit) in corpus order (sorted
    names: a0001..a0593, then b0001..b0539). The paper does not name the speaker
    (bdl by default; rms is the other US male).
    """

    dataset = "cmu_arctic"
    _constraints: ClassVar[dict[str, Any]] = {
        **_SeriesStream._constraints,
        "speaker": Options(("bdl", "rms")),
    }

    def __init__(
        self,
        *,
        speaker: str = "bdl",
        scaling: str = "minmax",
        data_dir: str | os.PathLike[str] | None = None,
        nan_policy: str = "raise",
    ) -> None:
        self.speaker = speaker
        super().__init__(scaling=scaling, data_dir=data_dir, nan_policy=nan_policy)

    def _required(self) -> tuple[FileSpec, ...]:
        return tuple(f for f in self.spec.files if f.group == self.speaker)

    def _parse_params(self) -> dict[str, Any]:
        return {"speaker": self.speaker}

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        (path,) = paths
        chunks = []
        try:
            with tarfile.open(path, "r:*") as tar:
                members = sorted(
                    (m for m in tar.getmembers() if m.isfile() and _ARCTIC_WAV.search(m.name)),
                    key=lambda m: Path(m.name).name,
                )
                if not members:
                    raise DataError(f"{path} contains no wav/arctic_*.wav files.")
                for m in members:
                    fh = tar.extractfile(m)
                    assert fh is not None
                    chunks.append(_read_pcm(fh.read(), f"{path}:{m.name}"))
        except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
            raise DataError(
                f"{path} is not a valid tar archive (truncated or corrupt: {exc})."
            ) from exc
        return {
            "series": np.concatenate(chunks),
            "n_utterances": np.array(len(chunks)),
        }


@register_stream("cmu_arctic_sample")
class CMUArcticSampleStream(_SeriesStream):
    """Partial CMU ARCTIC: 9 utterances concatenated (476,804 samples) in [-1, 1] [Fast-ONS].

    A partial copy, not the paper's single-speaker recording: offered under its own name.
    Files are concatenated in sorted file-name order.
    """

    dataset = "cmu_arctic_sample"

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        chunks = [_read_pcm(P.read_bytes(p), str(p)) for p in sorted(paths, key=lambda p: p.name)]
        return {"series": np.concatenate(chunks), "n_utterances": np.array(len(chunks))}


@register_stream("temperature")
class TemperatureStream(_SeriesStream):
    """UMass Davis-station temperature trace in [-1, 1] [Fast-ONS] (file not stored here).

    Reads ``temperature/umass_davis_temperature.csv``: a CSV with a header row. The value
    column is ``column`` if given, else the first column whose name contains "temp".
    Non-numeric readings are dropped (the count is in the metadata), order is kept, no
    interpolation (fast_ons.md §4.1).
    """

    dataset = "temperature"
    _constraints: ClassVar[dict[str, Any]] = {
        **_SeriesStream._constraints,
        "column": OfType((str,), allow_none=True),
    }

    def __init__(
        self,
        *,
        column: str | None = None,
        scaling: str = "minmax",
        data_dir: str | os.PathLike[str] | None = None,
        nan_policy: str = "raise",
    ) -> None:
        self.column = column
        super().__init__(scaling=scaling, data_dir=data_dir, nan_policy=nan_policy)

    def _parse_params(self) -> dict[str, Any]:
        return {"column": self.column}

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        import pandas as pd

        (path,) = paths
        frame = P.parse_csv_frame(P.read_bytes(path), source=path, dtype=str, keep_default_na=False)
        if self.column is not None:
            col = self.column
            if col not in frame.columns:
                raise DataError(
                    f"{path} has no column {col!r}; columns: {', '.join(frame.columns)}."
                )
        else:
            cands = [c for c in frame.columns if "temp" in str(c).lower()]
            if not cands:
                raise DataError(
                    f"{path}: no column name contains 'temp' (columns: "
                    f"{', '.join(map(str, frame.columns))}); pass column=..."
                )
            col = cands[0]
        values = pd.to_numeric(frame[col].str.strip(), errors="coerce").to_numpy(np.float64)
        good = np.isfinite(values)
        if not good.any():
            raise DataError(f"{path}: column {col!r} has no numeric value.")
        return {"series": values[good], "n_dropped_non_numeric": np.array(int((~good).sum()))}


@register_stream("temperature_whately")
class TemperatureWhatelyStream(_SeriesStream):
    """MacLeish/Whately 10-min temperature 2012-2016 in [-1, 1]: UMass-trace substitute [Fast-ONS].

    The ``temp_c`` column in file order (not sorted or de-duplicated), min-max scaled over
    the whole file. A substitute offered under its own name; ``temperature`` is the
    paper's trace.
    """

    dataset = "temperature_whately"

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        (path,) = paths
        frame = P.parse_csv_frame(P.read_bytes(path), required=("timestamp", "temp_c"), source=path)
        col = frame["temp_c"]
        if col.dtype.kind != "f" and col.dtype.kind != "i":
            bad = next((i, v) for i, v in enumerate(col.tolist()) if not _is_number(v))
            raise DataError(
                f"Non-numeric temperature {bad[1]!r} in {path} at data row {bad[0] + 1}."
            )
        return {"series": col.to_numpy(dtype=np.float64)}


def _is_number(v: Any) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


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
    cls = _stream_class(name)
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
    cls = _stream_class(name)
    if "part" not in cls._param_names():
        raise UserError(f"Dataset {name!r} has no official train/test split.")
    X_tr, y_tr, meta = load_dataset(name, data_dir, part="train", **params)
    X_te, y_te, _ = load_dataset(name, data_dir, part="test", **params)
    meta = {**meta, "n_train": int(X_tr.shape[0]), "n_test": int(X_te.shape[0])}
    return (X_tr, y_tr), (X_te, y_te), meta
