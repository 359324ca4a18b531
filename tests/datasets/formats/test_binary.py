"""Binary formats (:mod:`streamlearn.datasets.formats.binary`): IDX (MNIST), the smallNORB
binary matrix and WAV, round trips and truncated or foreign headers."""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from streamlearn.datasets.formats.binary import parse_idx, parse_norb_mat, parse_wav
from streamlearn.errors import DataError


def idx_bytes(arr: np.ndarray, code: int = 0x08) -> bytes:
    head = struct.pack(">HBB", 0, code, arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape)
    return head + arr.astype(arr.dtype.newbyteorder(">")).tobytes()


def test_idx_round_trip():
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(3, 28, 28), dtype=np.uint8)
    assert_array_equal(parse_idx(idx_bytes(images)), images)
    labels = np.array([7, 2, 1], dtype=np.uint8)
    assert_array_equal(parse_idx(idx_bytes(labels)), labels)
    ints = np.array([[1, -2], [300000, 4]], dtype=np.int32)
    out = parse_idx(idx_bytes(ints, 0x0C))
    assert_array_equal(out, ints)
    assert out.dtype == np.int32


def test_idx_errors():
    good = idx_bytes(np.zeros((2, 28, 28), dtype=np.uint8))
    with pytest.raises(DataError, match="bad magic"):
        parse_idx(b"\x01\x02" + good[2:])
    with pytest.raises(DataError, match="truncated or corrupt"):
        parse_idx(good[:-1])
    with pytest.raises(DataError, match="truncated or corrupt"):
        parse_idx(good + b"\x00")
    with pytest.raises(DataError, match="too short"):
        parse_idx(b"\x00")


def norb_bytes(arr: np.ndarray, magic: int) -> bytes:
    dims = list(arr.shape) + [1] * max(0, 3 - arr.ndim)
    head = struct.pack("<iI", magic, arr.ndim) + struct.pack(f"<{len(dims)}i", *dims)
    return head + arr.astype(arr.dtype.newbyteorder("<")).tobytes()


def test_norb_mat_header_formats():
    rng = np.random.default_rng(1)
    dat = rng.integers(0, 256, size=(2, 2, 96, 96), dtype=np.uint8)
    assert_array_equal(parse_norb_mat(norb_bytes(dat, 0x1E3D4C55)), dat)
    cat = np.array([4, 0], dtype=np.int32)  # 1-D: header still stores 3 dims (2, 1, 1)
    blob = norb_bytes(cat, 0x1E3D4C54)
    assert len(blob) == 8 + 12 + 8
    assert_array_equal(parse_norb_mat(blob), cat)
    info = rng.integers(0, 9, size=(2, 4)).astype(np.int32)
    assert_array_equal(parse_norb_mat(norb_bytes(info, 0x1E3D4C54)), info)


def test_norb_mat_errors():
    blob = norb_bytes(np.zeros((2, 2, 96, 96), dtype=np.uint8), 0x1E3D4C55)
    with pytest.raises(DataError, match="Not a smallNORB"):
        parse_norb_mat(b"\x00\x00\x00\x00" + blob[4:])
    with pytest.raises(DataError, match="truncated or corrupt"):
        parse_norb_mat(blob[:-10])
    with pytest.raises(DataError, match="too short"):
        parse_norb_mat(blob[:3])


# --------------------------------------------------------------------------------------
# WAV
# --------------------------------------------------------------------------------------


def wav_bytes(samples: np.ndarray, rate: int = 16000) -> bytes:
    from scipy.io import wavfile

    buf = io.BytesIO()
    wavfile.write(buf, rate, samples)
    return buf.getvalue()


def test_wav_round_trip():
    samples = np.array([0, 1, -1, 21298, -21298, 5], dtype=np.int16)
    rate, out = parse_wav(wav_bytes(samples))
    assert rate == 16000
    assert_array_equal(out, samples)
    assert out.dtype == np.int16


def test_wav_errors():
    blob = wav_bytes(np.arange(100, dtype=np.int16))
    with pytest.raises(DataError, match="Not a RIFF/WAVE"):
        parse_wav(b"ID3" + blob[3:], "x.wav")
    with pytest.raises(DataError, match="truncated"):
        parse_wav(blob[:-20], "x.wav")
