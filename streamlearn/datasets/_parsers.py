"""Fast, strict parsers for the official file formats of the papers' datasets.

Every parser either returns arrays that faithfully reflect the file or raises
:class:`streamlearn.base.DataError` naming the file and, where known, the line. Nothing
here silently drops, pads or guesses values: a truncated archive, a ragged row, a
non-numeric token or an empty file is an error. Missing values (NaN/inf) are *passed
through* to the caller, which applies the stream's ``nan_policy``.

Formats
-------
* compressed containers: ``.gz`` (gzip), ``.bz2`` (bzip2) — :func:`read_bytes`;
* delimited text (UCI csv / whitespace tables, ESL ``zip.*``) — :func:`parse_numeric_table`,
  :func:`parse_string_table` (NumPy's C ``loadtxt`` reader, vectorised);
* LIBSVM / svmlight sparse text — :func:`parse_libsvm` (own NumPy parser; scikit-learn
  stays a test-only dependency);
* ARFF (dense, as written by Weka/MOA) — :func:`parse_arff`;
* IDX (MNIST) — :func:`parse_idx`;
* the smallNORB binary matrix (``*.mat``, *not* MATLAB) — :func:`parse_norb_mat`;
* RIFF/WAVE PCM — :func:`parse_wav` (``scipy.io.wavfile``);
* CSV with a header (KuaiRec, temperature traces) — :func:`parse_csv_frame` (pandas).
"""

from __future__ import annotations

import bz2
import gzip
import io
import re
import struct
import warnings
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from streamlearn.base import DataError, physical_memory_bytes

__all__ = [
    "ArffData",
    "decode_text",
    "encode_labels",
    "parse_arff",
    "parse_csv_frame",
    "parse_idx",
    "parse_libsvm",
    "parse_norb_mat",
    "parse_numeric_table",
    "parse_string_table",
    "parse_wav",
    "read_bytes",
    "to_float_columns",
]

_BLANK_LINES = re.compile(r"(?m)^[ \t\r]*\n")


def _where(source: str | Path | None) -> str:
    return f" in {source}" if source else ""


# --------------------------------------------------------------------------------------
# Containers
# --------------------------------------------------------------------------------------


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
        raise DataError(f"Binary data (NUL bytes) found{_where(source)} where text was expected.")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


# --------------------------------------------------------------------------------------
# Delimited text
# --------------------------------------------------------------------------------------


def _prepare_lines(text: str, skip_rows: int, source: str | Path | None) -> str:
    if skip_rows:
        parts = text.split("\n", skip_rows)
        text = parts[skip_rows] if len(parts) > skip_rows else ""
    # loadtxt skips blank lines anyway, but warns about them in chunked reads.
    text = _BLANK_LINES.sub("", text)
    if not text.strip():
        raise DataError(f"No data rows{_where(source)}: the file is empty.")
    return text


def _loadtxt(text: str, source: str | Path | None, **kwargs: Any) -> np.ndarray:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return np.loadtxt(io.StringIO(text), ndmin=2, comments=None, **kwargs)
    except ValueError as exc:
        msg = str(exc).split("; use `usecols`")[0]
        raise DataError(
            f"Malformed data{_where(source)}: {msg} (rows count non-blank data lines)."
        ) from exc


def parse_numeric_table(
    text: str,
    *,
    delimiter: str | None = None,
    skip_rows: int = 0,
    n_cols: int | None = None,
    source: str | Path | None = None,
) -> np.ndarray:
    """Parse a purely numeric delimited table into a float64 matrix.

    Parameters
    ----------
    text
        File contents.
    delimiter
        Field separator; ``None`` splits on runs of whitespace.
    skip_rows
        Header lines to skip.
    n_cols
        Expected number of columns (an error if different).
    source
        File name used in error messages.

    Raises
    ------
    DataError
        Empty file, ragged rows (the message gives the row), non-numeric tokens,
        or a column count other than ``n_cols``.
    """
    text = _prepare_lines(text, skip_rows, source)
    arr = _loadtxt(text, source, delimiter=delimiter, dtype=np.float64)
    _check_cols(arr, n_cols, source)
    return arr


def parse_string_table(
    text: str,
    *,
    delimiter: str | None = None,
    skip_rows: int = 0,
    n_cols: int | None = None,
    strip: bool = True,
    source: str | Path | None = None,
) -> np.ndarray:
    """Parse a delimited table into a 2-D array of strings (for mixed-type files).

    Same checks as :func:`parse_numeric_table`; fields are whitespace-stripped when
    ``strip`` is True (UCI Adult writes ``", "`` between fields).
    """
    text = _prepare_lines(text, skip_rows, source)
    arr = _loadtxt(text, source, delimiter=delimiter, dtype=str)
    _check_cols(arr, n_cols, source)
    if strip:
        arr = np.char.strip(arr)
    return arr


def _check_cols(arr: np.ndarray, n_cols: int | None, source: str | Path | None) -> None:
    if n_cols is not None and arr.shape[1] != n_cols:
        raise DataError(
            f"Wrong number of columns{_where(source)}: expected {n_cols}, found {arr.shape[1]}."
        )


def to_float_columns(
    table: np.ndarray, columns: Sequence[int], source: str | Path | None = None
) -> np.ndarray:
    """Convert string columns of ``table`` to a float64 matrix, naming the first bad cell."""
    out = np.empty((table.shape[0], len(columns)), dtype=np.float64)
    for k, j in enumerate(columns):
        try:
            out[:, k] = table[:, j].astype(np.float64)
        except ValueError:
            for i, cell in enumerate(table[:, j]):
                try:
                    float(cell)
                except ValueError:
                    raise DataError(
                        f"Non-numeric value {str(cell)!r}{_where(source)} at data row {i + 1}, "
                        f"column {j + 1}."
                    ) from None
            raise  # pragma: no cover - astype failed but every cell converts
    return out


def encode_labels(
    values: np.ndarray,
    classes: Sequence[Any] | None = None,
    source: str | Path | None = None,
) -> tuple[np.ndarray, list[Any]]:
    """Map label values to integer codes ``0..C-1``.

    Parameters
    ----------
    values
        Raw labels (strings or numbers).
    classes
        The class order; code ``k`` is ``classes[k]``. ``None`` uses the sorted distinct
        values. A value not in ``classes`` is an error.

    Returns
    -------
    codes, classes
    """
    uniq, inverse = np.unique(values, return_inverse=True)
    if classes is None:
        return inverse.astype(np.int64).reshape(-1), list(uniq.tolist())
    lookup = {c: k for k, c in enumerate(classes)}
    try:
        table = np.array([lookup[u] for u in uniq.tolist()], dtype=np.int64)
    except KeyError as exc:
        raise DataError(
            f"Unexpected class label {exc.args[0]!r}{_where(source)}; expected one of "
            f"{', '.join(repr(c) for c in classes)}."
        ) from None
    return table[inverse.reshape(-1)], list(classes)


# --------------------------------------------------------------------------------------
# LIBSVM
# --------------------------------------------------------------------------------------


_TWO_COLONS = re.compile(rb":[^\s:]*:")


def parse_libsvm(
    data: bytes,
    *,
    n_features: int | None = None,
    source: str | Path | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Parse LIBSVM/svmlight text (``label idx:value ...``, 1-based indices) to dense arrays.

    Vectorised: one Python ``split`` per line, then the ``idx:value`` tokens of all lines
    are converted in bulk. Comments after ``#`` are dropped. Rows may be empty (label
    only). Absent entries are 0.

    Parameters
    ----------
    data
        File contents (decompressed).
    n_features
        Number of columns of ``X``. ``None`` uses the largest index present. An index
        above ``n_features`` is an error.
    source
        File name used in error messages.

    Returns
    -------
    X
        float64 matrix ``(n_samples, n_features)``.
    y
        float64 labels as written in the file (e.g. ``-1``/``+1``).

    Raises
    ------
    DataError
        Empty file; a token that is not ``idx:value``; a non-integer or non-positive
        index; a repeated index within a row; a non-numeric label or value.
    """
    if b"\r" in data:
        data = data.replace(b"\r", b"")
    labels: list[bytes] = []
    counts: list[int] = []
    pairs: list[bytes] = []
    lines_of_rows: list[int] = []
    has_comment = b"#" in data
    for lineno, line in enumerate(data.split(b"\n"), start=1):
        if has_comment and b"#" in line:
            line = line.split(b"#", 1)[0]
        parts = line.split()
        if not parts:
            continue
        labels.append(parts[0])
        counts.append(len(parts) - 1)
        pairs.extend(parts[1:])
        lines_of_rows.append(lineno)
    if not labels:
        raise DataError(f"No data rows{_where(source)}: the file is empty.")

    joined = b" ".join(pairs)
    bad = joined.count(b":") != len(pairs) or _TWO_COLONS.search(joined) is not None
    tokens = joined.replace(b":", b" ").split() if not bad else []
    if bad or len(tokens) != 2 * len(pairs):
        _raise_bad_pair(pairs, counts, lines_of_rows, source)

    try:
        y = np.fromiter(map(float, labels), dtype=np.float64, count=len(labels))
    except ValueError:
        for i, lab in enumerate(labels):
            try:
                float(lab)
            except ValueError:
                raise DataError(
                    f"Non-numeric label {lab.decode(errors='replace')!r}{_where(source)} "
                    f"at line {lines_of_rows[i]}."
                ) from None
        raise  # pragma: no cover
    try:
        idx = np.fromiter(map(int, tokens[0::2]), dtype=np.int64, count=len(pairs))
    except ValueError:
        _raise_bad_token(tokens[0::2], "feature index", int, counts, lines_of_rows, source)
    try:
        val = np.fromiter(map(float, tokens[1::2]), dtype=np.float64, count=len(pairs))
    except ValueError:
        _raise_bad_token(tokens[1::2], "value", float, counts, lines_of_rows, source)

    n = len(labels)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.asarray(counts, dtype=np.int64))
    if idx.size and idx.min() < 1:
        k = int(np.flatnonzero(idx < 1)[0])  # the first in the file, not the smallest
        raise DataError(
            f"Feature index {int(idx[k])} < 1{_where(source)} at line "
            f"{lines_of_rows[rows[k]]}, field {_field(k, counts)} "
            f"({pairs[k].decode(errors='replace')!r}; LIBSVM indices are 1-based)."
        )
    max_idx = int(idx.max()) if idx.size else 0
    d = max_idx if n_features is None else n_features
    if max_idx > d:
        k = int(np.argmax(idx))
        raise DataError(
            f"Feature index {max_idx}{_where(source)} at line {lines_of_rows[rows[k]]} "
            f"exceeds the declared {d} features."
        )
    flat = rows * d + (idx - 1)
    if flat.size > 1:
        order = np.argsort(flat, kind="stable")
        dup = np.flatnonzero(np.diff(flat[order]) == 0)
        if dup.size:
            k = int(order[dup[0] + 1])
            raise DataError(
                f"Feature index {int(idx[k])} repeated{_where(source)} at line "
                f"{lines_of_rows[rows[k]]}."
            )
    need, ram = n * d * 8, physical_memory_bytes()
    too_big = DataError(
        f"{n} rows x {d} features{_where(source)} make a dense float64 matrix of "
        f"{need / 2**30:,.1f} GiB, more than this machine's memory; the highest feature "
        f"index is {d} (is one index wrong?).")
    if ram is not None and need > ram:
        raise too_big
    try:
        X = np.zeros((n, d), dtype=np.float64)
    except MemoryError:
        raise too_big from None
    X.reshape(-1)[flat] = val
    return X, y


def _field(k: int, counts: list[int]) -> int:
    """1-based field number on its line of the ``k``-th ``idx:value`` pair of the file
    (field 1 is the label)."""
    starts = np.cumsum([0, *counts[:-1]])
    row = int(np.searchsorted(starts, k, side="right")) - 1
    return k - int(starts[row]) + 2


def _raise_bad_pair(
    pairs: list[bytes], counts: list[int], lines: list[int], source: str | Path | None
) -> None:
    row_of = np.repeat(np.arange(len(counts)), counts)
    for k, tok in enumerate(pairs):
        left, sep, right = tok.partition(b":")
        if not sep or not left or not right or b":" in right:
            raise DataError(
                f"Malformed LIBSVM token {tok.decode(errors='replace')!r}{_where(source)} at "
                f"line {lines[row_of[k]]}: expected 'index:value'."
            )
    raise DataError(f"Malformed LIBSVM data{_where(source)}.")  # pragma: no cover


def _raise_bad_token(
    tokens: list[bytes],
    what: str,
    conv: Any,
    counts: list[int],
    lines: list[int],
    source: str | Path | None,
) -> None:
    row_of = np.repeat(np.arange(len(counts)), counts)
    for k, tok in enumerate(tokens):
        try:
            conv(tok)
        except ValueError:
            raise DataError(
                f"Invalid {what} {tok.decode(errors='replace')!r}{_where(source)} at line "
                f"{lines[row_of[k]]}."
            ) from None
    raise DataError(f"Invalid {what}{_where(source)}.")  # pragma: no cover


# --------------------------------------------------------------------------------------
# ARFF
# --------------------------------------------------------------------------------------


@dataclass
class ArffData:
    """A dense ARFF file: attribute names, types and the data as a string table.

    ``types[j]`` is ``"numeric"`` or the list of nominal values in declaration order.
    """

    relation: str
    names: list[str]
    types: list[str | list[str]]
    table: np.ndarray

    def column(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise DataError(
                f"ARFF attribute {name!r} not found; attributes: {', '.join(self.names)}."
            ) from None


_ATTR = re.compile(r"@attribute\s+('(?:[^']*)'|\"(?:[^\"]*)\"|\S+)\s+(.+)$", re.IGNORECASE)


def parse_arff(text: str, source: str | Path | None = None) -> ArffData:
    """Parse a dense ARFF file (numeric/real/integer and nominal attributes).

    Values are kept as strings; use :func:`to_float_columns` / :func:`encode_labels`.
    Sparse ARFF (``{i v, ...}`` rows), string and date attributes are rejected. A ``?``
    (missing) in a numeric column becomes NaN downstream; in a nominal column it is an
    error when the column is encoded.
    """
    lines = text.split("\n")
    relation = ""
    names: list[str] = []
    types: list[str | list[str]] = []
    data_start = None
    for i, raw in enumerate(lines):
        line = raw.strip()
        if not line or line.startswith("%"):
            continue
        low = line.lower()
        if low.startswith("@relation"):
            relation = line[len("@relation") :].strip()
        elif low.startswith("@attribute"):
            at = f"{_where(source)} at line {i + 1}"
            m = _ATTR.match(line)
            if m is None:
                raise DataError(f"Malformed ARFF attribute line{at}: {line!r} (expected "
                                "'@attribute NAME TYPE').")
            name = m.group(1).strip("'\"")
            kind = m.group(2).strip()
            if kind.startswith("{"):
                if not kind.endswith("}"):
                    raise DataError(f"Malformed nominal attribute{at}: {line!r} (the list "
                                    "of values needs a closing '}').")
                values = [v.strip().strip("'\"") for v in kind[1:-1].split(",")]
                if len(set(values)) != len(values) or "" in values:
                    raise DataError(f"Malformed nominal attribute{at}: {line!r} (its values "
                                    "must be distinct and non-empty).")
                types.append(values)
            elif kind.lower() in ("numeric", "real", "integer"):
                types.append("numeric")
            else:
                raise DataError(
                    f"Unsupported ARFF attribute type {kind!r}{at} "
                    f"(attribute {name!r}); only numeric and nominal are supported."
                )
            if name in names:
                raise DataError(f"Duplicate ARFF attribute name {name!r}{at} (also "
                                f"attribute {names.index(name) + 1}); give each attribute "
                                "its own name.")
            names.append(name)
        elif low.startswith("@data"):
            data_start = i + 1
            break
        else:
            raise DataError(f"Unexpected ARFF header line{_where(source)} at line {i + 1}: "
                            f"{line!r} (expected @relation, @attribute or @data before the "
                            "data rows).")
    if data_start is None or not names:
        missing = "@data line" if names else "@attribute line"
        raise DataError(f"Not an ARFF file{_where(source)}: no @attribute/@data section "
                        f"(no {missing}; a dense ARFF file has @relation, @attribute "
                        "lines, then @data and the rows).")
    body = "\n".join(
        ln for ln in lines[data_start:] if ln.strip() and not ln.lstrip().startswith("%")
    )
    if not body:
        raise DataError(f"No data rows{_where(source)}: the ARFF @data section is empty.")
    if body.lstrip().startswith("{"):
        raise DataError(f"Sparse ARFF{_where(source)} is not supported.")
    table = parse_string_table(body, delimiter=",", n_cols=len(names), source=source)
    table = np.char.strip(np.char.strip(table), "'\"")
    return ArffData(relation=relation, names=names, types=types, table=table)


# --------------------------------------------------------------------------------------
# Binary formats
# --------------------------------------------------------------------------------------


_IDX_DTYPES = {
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
        raise DataError(f"IDX file{_where(source)} is too short ({len(data)} bytes).")
    zero, code, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or code not in _IDX_DTYPES or ndim == 0:
        raise DataError(f"Not an IDX file{_where(source)} (bad magic number {data[:4].hex()}).")
    header = 4 + 4 * ndim
    if len(data) < header:
        raise DataError(f"IDX header{_where(source)} is truncated.")
    dims = struct.unpack(f">{ndim}I", data[4:header])
    dtype = _IDX_DTYPES[code]
    expected = int(np.prod(dims, dtype=np.int64)) * dtype.itemsize
    if len(data) - header != expected:
        raise DataError(
            f"IDX payload{_where(source)} has {len(data) - header} bytes; the header "
            f"{'x'.join(map(str, dims))} needs {expected} (truncated or corrupt file)."
        )
    arr = np.frombuffer(data, dtype=dtype, offset=header).reshape(dims)
    return arr.astype(dtype.newbyteorder("="), copy=False)


_NORB_DTYPES = {
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
        raise DataError(f"smallNORB file{_where(source)} is too short ({len(data)} bytes).")
    magic, ndim = struct.unpack("<iI", data[:8])
    if magic not in _NORB_DTYPES or not 1 <= ndim <= 16:
        raise DataError(
            f"Not a smallNORB binary matrix{_where(source)} (magic {magic & 0xFFFFFFFF:#x})."
        )
    n_stored = max(3, ndim)
    header = 8 + 4 * n_stored
    if len(data) < header:
        raise DataError(f"smallNORB header{_where(source)} is truncated.")
    dims = struct.unpack(f"<{n_stored}i", data[8:header])[:ndim]
    if any(d < 0 for d in dims):
        raise DataError(f"Negative dimension in smallNORB header{_where(source)}.")
    dtype = _NORB_DTYPES[magic]
    expected = int(np.prod(dims, dtype=np.int64)) * dtype.itemsize
    if len(data) - header != expected:
        raise DataError(
            f"smallNORB payload{_where(source)} has {len(data) - header} bytes; the header "
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
        raise DataError(f"Not a RIFF/WAVE file{_where(source)}.")
    declared = struct.unpack("<I" if data[:4] == b"RIFF" else ">I", data[4:8])[0] + 8
    if declared > len(data):
        raise DataError(
            f"WAV file{_where(source)} is truncated: the header declares {declared} bytes, "
            f"the file has {len(data)}."
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rate, samples = wavfile.read(io.BytesIO(data))
    except (ValueError, EOFError, struct.error) as exc:
        raise DataError(f"Cannot read WAV file{_where(source)}: {exc}") from exc
    return int(rate), np.asarray(samples)


# --------------------------------------------------------------------------------------
# CSV with header (pandas)
# --------------------------------------------------------------------------------------


def parse_csv_frame(
    data: bytes | str,
    *,
    required: Sequence[str] = (),
    source: str | Path | None = None,
    **kwargs: Any,
) -> Any:
    """Read a CSV file with a header row into a pandas DataFrame (C engine).

    Parameters
    ----------
    data
        File contents.
    required
        Column names that must be present.
    source
        File name for error messages.
    **kwargs
        Passed to :func:`pandas.read_csv`.

    Raises
    ------
    DataError
        Empty file, a malformed row (too many fields), or a missing required column.
    """
    import pandas as pd

    buf = io.BytesIO(data) if isinstance(data, bytes) else io.StringIO(data)
    try:
        frame = pd.read_csv(buf, **kwargs)
    except pd.errors.EmptyDataError as exc:
        raise DataError(f"No data{_where(source)}: the file is empty.") from exc
    except (pd.errors.ParserError, ValueError, UnicodeDecodeError) as exc:
        raise DataError(f"Malformed CSV{_where(source)}: {exc}") from exc
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise DataError(
            f"Column(s) {', '.join(map(repr, missing))} missing{_where(source)}; found "
            f"{', '.join(map(str, frame.columns))}."
        )
    if len(frame) == 0:
        raise DataError(f"No data rows{_where(source)}: only a header.")
    return frame
