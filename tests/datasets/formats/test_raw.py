"""A file's bytes and text (:mod:`streamlearn.datasets.formats.raw`): .gz/.bz2 archives,
truncated or corrupt ones, line ends and binary data where text belongs."""

from __future__ import annotations

import bz2
import gzip

import pytest

from streamlearn.datasets.formats.raw import decode_text, read_bytes
from streamlearn.errors import DataError


def test_read_bytes_decompresses_gzip_and_bz2(tmp_path):
    payload = b"1 2 3\n4 5 6\n"
    (tmp_path / "a.gz").write_bytes(gzip.compress(payload))
    (tmp_path / "a.bz2").write_bytes(bz2.compress(payload))
    (tmp_path / "a.txt").write_bytes(payload)
    for name in ("a.gz", "a.bz2", "a.txt"):
        assert read_bytes(tmp_path / name) == payload
    assert read_bytes(tmp_path / "a.gz", decompress=False) != payload


@pytest.mark.parametrize("suffix,compress", [(".gz", gzip.compress), (".bz2", bz2.compress)])
def test_truncated_archive_is_an_error(tmp_path, suffix, compress):
    blob = compress(b"0123456789" * 1000)
    path = tmp_path / f"data{suffix}"
    path.write_bytes(blob[: len(blob) // 2])
    with pytest.raises(DataError, match="truncated or corrupt"):
        read_bytes(path)


@pytest.mark.parametrize("suffix", [".gz", ".bz2"])
def test_garbage_archive_is_an_error(tmp_path, suffix):
    path = tmp_path / f"data{suffix}"
    path.write_bytes(b"this is not compressed at all")
    with pytest.raises(DataError, match=str(path.name)):
        read_bytes(path)


def test_missing_file_is_a_data_error(tmp_path):
    with pytest.raises(DataError, match="Cannot read"):
        read_bytes(tmp_path / "nope.csv")


def test_decode_text_normalises_line_ends_and_rejects_binary():
    assert decode_text(b"a\r\nb\rc\n") == "a\nb\nc\n"
    with pytest.raises(DataError, match="Binary"):
        decode_text(b"\x00\x01\x02")
