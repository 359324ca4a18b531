"""Streams over the real time series of the Fast-ONS paper (Sec. 4).

=========================  ==========================================
registry name              notes
=========================  ==========================================
``cmu_arctic``             full single-speaker recording
``cmu_arctic_sample``      partial: 9 utterances
``temperature``            UMass trace (not in the shared copy)
``temperature_whately``    substitute: MacLeish/Whately trace
=========================  ==========================================

Each is a scalar series scaled to [-1, 1] with ``X[:, 0] = y = x_t``. The files are
declared in :mod:`streamlearn.datasets.catalogue.fast_ons`.
"""

from __future__ import annotations

import os
import re
import tarfile
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from streamlearn.datasets.catalogue.spec import FileSpec
from streamlearn.datasets.formats.binary import parse_wav
from streamlearn.datasets.formats.raw import read_bytes
from streamlearn.datasets.formats.tables import parse_csv_frame
from streamlearn.datasets.real.base import (
    RealStream,
    apply_nan_policy,
    register_stream,
)
from streamlearn.errors import DataError
from streamlearn.params import OfType, Options

__all__ = [
    "CMUArcticSampleStream",
    "CMUArcticStream",
    "TemperatureStream",
    "TemperatureWhatelyStream",
]


class _SeriesStream(RealStream):
    """A scalar series scaled to [-1, 1]; ``X[:, 0] = y = x_t``."""

    task: ClassVar[str] = "regression"
    natural_order: ClassVar[bool] = True
    series: ClassVar[bool] = True
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
    rate, samples = parse_wav(data, source)
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
        chunks = [_read_pcm(read_bytes(p), str(p)) for p in sorted(paths, key=lambda p: p.name)]
        return {"series": np.concatenate(chunks), "n_utterances": np.array(len(chunks))}


@register_stream("temperature")
class TemperatureStream(_SeriesStream):
    """UMass Davis-station temperature trace in [-1, 1] [Fast-ONS] (file not stored here).

    Reads ``temperature/umass_davis_temperature.csv``: a CSV with a header row. The value
    column is ``column`` if given, else the first column whose name contains "temp".
    Non-numeric readings are dropped (the count is in the metadata), order is kept, no
    interpolation (our choice: the Fast-ONS paper, Sec. 4, does not discuss them).
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
        frame = parse_csv_frame(read_bytes(path), source=path, dtype=str, keep_default_na=False)
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
        frame = parse_csv_frame(read_bytes(path), required=("timestamp", "temp_c"), source=path)
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
