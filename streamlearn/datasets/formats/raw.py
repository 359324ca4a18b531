"""A data file's bytes and text: ``.gz``/``.bz2`` decompressed, text decoded, and the
" in FILE" phrase that every parser's messages use."""

from __future__ import annotations

import bz2
import gzip
import zlib
from pathlib import Path

from streamlearn.errors import DataError

__all__ = ["decode_text", "read_bytes", "where"]


def where(source: str | Path | None) -> str:
    """The phrase " in SOURCE" for a message; empty when the source is not known."""
    return f" in {source}" if source else ""


def read_bytes(path: str | Path, *, decompress: bool = True) -> bytes:
    """Read a file, transparently decompressing ``.gz`` and ``.bz2``.

    Parameters
    ----------
    path
        File to read.
    decompress
        If False, return the raw bytes even for compressed files.

    Raises
    ------
    DataError
        If the file cannot be read, or the archive is truncated or corrupt.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataError(f"Cannot read {path}: {exc.strerror or exc}.") from exc
    if not decompress:
        return raw
    suffix = path.suffix.lower()
    try:
        if suffix == ".gz":
            return gzip.decompress(raw)
        if suffix == ".bz2":
            return bz2.decompress(raw)
    except (EOFError, OSError, zlib.error, ValueError) as exc:
        kind = "gzip" if suffix == ".gz" else "bzip2"
        raise DataError(
            f"{path} is not a valid {kind} archive (truncated or corrupt: {exc}). "
            "Delete it and fetch it again (`streamlearn data fetch NAME`) or replace it "
            "with a good copy."
        ) from exc
    return raw


def decode_text(data: bytes, source: str | Path | None = None) -> str:
    """Decode bytes as UTF-8 (falling back to Latin-1) and normalise line ends; a UTF-8
    byte-order mark (spreadsheet exports) is dropped, not read as part of the first cell."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    if "\x00" in text:
        raise DataError(f"Binary data (NUL bytes) found{where(source)} where text was expected.")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text
