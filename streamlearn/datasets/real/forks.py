"""Streams over the real datasets of the FORKS paper (Sec. 5, App. D).

==================  ==========================================
registry name       shape, notes
==================  ==========================================
``german``          1,000 x 24
``svmguide3``       LIBSVM files (not in the shared copy)
``svmguide3_csv``   substitute: CSV conversion
``spambase``        4,601 x 57
``codrna``          59,535 x 8 (training file)
``w7a``             24,692 x 300
``ijcnn1``          141,691 x 22 (train + test)
``kuairec``         time-ordered interactions (Sec. 5.3)
``adversarial``     b blocks x r repeats, flipped labels (Sec. 5.2)
==================  ==========================================

The files are declared in :mod:`streamlearn.datasets.catalogue.forks`.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from streamlearn.base import Stream, StreamInfo
from streamlearn.datasets.catalogue import DATASETS, get_spec
from streamlearn.datasets.formats.libsvm import parse_libsvm
from streamlearn.datasets.formats.raw import read_bytes
from streamlearn.datasets.formats.tables import parse_csv_frame, parse_numeric_table
from streamlearn.datasets.real.base import (
    PartStream,
    RealStream,
    concat_parts,
    int_labels,
    pm1_labels,
    read_text,
    real_stream_class,
    register_stream,
)
from streamlearn.errors import DataError, UserError
from streamlearn.params import Interval, Options

__all__ = [
    "AdversarialStream",
    "CodRNAStream",
    "GermanStream",
    "IJCNN1Stream",
    "KuaiRecStream",
    "SVMGuide3CSVStream",
    "SVMGuide3Stream",
    "SpambaseStream",
    "W7aStream",
]


class _LibsvmStream(PartStream):
    """Binary LIBSVM data set; the files of the selected part are concatenated in order."""

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        out = []
        for path in paths:
            X, y = parse_libsvm(read_bytes(path), n_features=self.spec.n_features, source=path)
            out.append({"X": X, "y": pm1_labels(y, path)})
        return concat_parts(out)


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
class SVMGuide3CSVStream(PartStream):
    """svmguide3 from the dense CSV conversion: substitute for the LIBSVM files [FORKS]."""

    dataset = "svmguide3_csv"

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        out = []
        for path in paths:
            table = parse_numeric_table(read_text(path), delimiter=",", n_cols=22, source=path)
            out.append({"X": table[:, 1:], "y": pm1_labels(table[:, 0], path)})
        return concat_parts(out)


@register_stream("spambase")
class SpambaseStream(RealStream):
    """UCI Spambase, raw features (4,601 x 57); label 1 = spam (<=> +1) [FORKS]."""

    dataset = "spambase"

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        (path,) = paths
        table = parse_numeric_table(read_text(path), delimiter=",", n_cols=58, source=path)
        return {"X": table[:, :57], "y": int_labels(table[:, 57], 0, 1, path)}


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
    """KuaiRec small matrix by timestamp; watch_ratio > 0.75 -> 1 (<=> +1) [FORKS Sec. 5.3].

    Reads ``small_matrix.csv``, ``user_features.csv`` and ``item_daily_features.csv``
    straight from the official ``KuaiRec.zip``. Rows without a timestamp (or date) are
    dropped, the rest stable-sorted by timestamp. Features (our choice: the FORKS paper,
    App. D.2, builds them "as specified in the code", which is not available): the
    numeric columns of the user table
    joined on ``user_id``, then the numeric columns of the daily item table joined on
    ``(video_id, date)`` (a name also in the user table, as KuaiRec 2.0's
    ``follow_user_num``, prefixed ``item_``); id columns and string columns are excluded;
    absent side information becomes 0. ``threshold`` sets the watch-ratio cut (paper: 0.75).
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
                    frames[member] = parse_csv_frame(
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
        # a name in both side tables (KuaiRec 2.0: follow_user_num) keeps both columns
        items = items.rename(columns={c: f"item_{c}" for c in items.columns
                                      if c in users.columns and c not in ("video_id", "date")})
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
    (FORKS paper, Sec. 5.2 and App. D.3: german-1 / codrna-1 use ``b=500, r=10``;
    german-2 / codrna-2 ``r=20``). The order is the construction order
    (``natural_order``); ``seed`` drives the instance draws, so a new seed gives a new,
    independent construction.

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
        **RealStream._constraints,  # data_dir, nan_policy: passed to the base stream
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
        cls = real_stream_class(self.base)
        return cls(data_dir=self.data_dir, nan_policy=self.nan_policy)  # type: ignore[call-arg]

    def check_available(self) -> None:
        self._base_stream().check_available()

    def content_sha256(self) -> str | None:
        """The base dataset's (:meth:`RealStream.content_sha256`)."""
        return self._base_stream().content_sha256()

    def content_key(self) -> tuple[Any, ...] | None:
        """The base dataset's files, with this stream's parameters."""
        base = self._base_stream().content_key()
        return None if base is None else (repr(sorted(self.get_params().items())), *base)

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
