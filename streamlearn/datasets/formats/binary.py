"""Binary formats: IDX (MNIST), the smallNORB binary matrix (``*.mat``, *not* MATLAB) and
RIFF/WAVE PCM (``scipy.io.wavfile``). A header that disagrees with the payload (a truncated
or padded file) is a :class:`~streamlearn.errors.DataError`, never a reshaped guess."""

from __future__ import annotations

import io
import struct
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from streamlearn.datasets.formats.raw import where
from streamlearn.errors import DataError

__all__ = ["parse_idx", "parse_norb_mat", "parse_wav"]


_IDX_DTYPES: dict[int, np.dtype[Any]] = {
    0x08: np.dtype(np.uint8),
    0x09: np.dtype(np.int8),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}


def parse_idx(data: bytes, source: str | Path | None = None) -> np.ndarray:
    """Parse an IDX file (MNIST): 2 zero bytes, a type code, the rank, big-endian dims.

    Raises
    ------
    DataError
        Bad magic number, unknown type code, or a payload whose length disagrees with
        the header (truncated or padded file).
    """
    if len(data) < 4:
        raise DataError(f"IDX file{where(source)} is too short ({len(data)} bytes).")
    zero, code, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or code not in _IDX_DTYPES or ndim == 0:
        raise DataError(f"Not an IDX file{where(source)} (bad magic number {data[:4].hex()}).")
    header = 4 + 4 * ndim
    if len(data) < header:
        raise DataError(f"IDX header{where(source)} is truncated.")
    dims = struct.unpack(f">{ndim}I", data[4:header])
    dtype = _IDX_DTYPES[code]
    expected = int(np.prod(dims, dtype=np.int64)) * dtype.itemsize
    if len(data) - header != expected:
        raise DataError(
            f"IDX payload{where(source)} has {len(data) - header} bytes; the header "
            f"{'x'.join(map(str, dims))} needs {expected} (truncated or corrupt file)."
        )
    arr = np.frombuffer(data, dtype=dtype, offset=header).reshape(dims)
    return arr.astype(dtype.newbyteorder("="), copy=False)


_NORB_DTYPES: dict[int, np.dtype[Any]] = {
    0x1E3D4C51: np.dtype("<f4"),
    0x1E3D4C53: np.dtype("<f8"),
    0x1E3D4C54: np.dtype("<i4"),
    0x1E3D4C55: np.dtype(np.uint8),
    0x1E3D4C56: np.dtype("<i2"),
}


def parse_norb_mat(data: bytes, source: str | Path | None = None) -> np.ndarray:
    """Parse a smallNORB binary matrix (``*-dat.mat``, ``*-cat.mat``, ``*-info.mat``).

    Layout (little-endian): int32 magic (type), int32 ndim, ``max(3, ndim)`` int32 dims
    (unused trailing dims are 1), then the data in C order. Not a MATLAB file.
    """
    if len(data) < 8:
        raise DataError(f"smallNORB file{where(source)} is too short ({len(data)} bytes).")
    magic, ndim = struct.unpack("<iI", data[:8])
    if magic not in _NORB_DTYPES or not 1 <= ndim <= 16:
        raise DataError(
            f"Not a smallNORB binary matrix{where(source)} (magic {magic & 0xFFFFFFFF:#x})."
        )
    n_stored = max(3, ndim)
    header = 8 + 4 * n_stored
    if len(data) < header:
        raise DataError(f"smallNORB header{where(source)} is truncated.")
    dims = struct.unpack(f"<{n_stored}i", data[8:header])[:ndim]
    if any(d < 0 for d in dims):
        raise DataError(f"Negative dimension in smallNORB header{where(source)}.")
    dtype = _NORB_DTYPES[magic]
    expected = int(np.prod(dims, dtype=np.int64)) * dtype.itemsize
    if len(data) - header != expected:
        raise DataError(
            f"smallNORB payload{where(source)} has {len(data) - header} bytes; the header "
            f"{'x'.join(map(str, dims))} needs {expected} (truncated or corrupt file)."
        )
    arr = np.frombuffer(data, dtype=dtype, offset=header).reshape(dims)
    return arr.astype(dtype.newbyteorder("="), copy=False)


def parse_wav(data: bytes, source: str | Path | None = None) -> tuple[int, np.ndarray]:
    """Read a RIFF/WAVE file; returns ``(sample_rate, samples)`` (samples as stored).

    Raises
    ------
    DataError
        Not a WAV file, truncated, or an unsupported encoding.
    """
    from scipy.io import wavfile

    if len(data) < 12 or data[:4] not in (b"RIFF", b"RIFX") or data[8:12] != b"WAVE":
        raise DataError(f"Not a RIFF/WAVE file{where(source)}.")
    declared = struct.unpack("<I" if data[:4] == b"RIFF" else ">I", data[4:8])[0] + 8
    if declared > len(data):
        raise DataError(
            f"WAV file{where(source)} is truncated: the header declares {declared} bytes, "
            f"the file has {len(data)}."
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rate, samples = wavfile.read(io.BytesIO(data))
    except (ValueError, EOFError, struct.error) as exc:
        raise DataError(f"Cannot read WAV file{where(source)}: {exc}") from exc
    return int(rate), np.asarray(samples)
