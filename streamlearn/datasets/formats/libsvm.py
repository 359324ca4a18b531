"""LIBSVM / svmlight sparse text (``label idx:value ...``, 1-based indices) to dense arrays:
an own vectorised NumPy parser (scikit-learn stays a test-only dependency, the oracle)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from streamlearn.base import physical_memory_bytes
from streamlearn.datasets.formats.raw import where
from streamlearn.errors import DataError

__all__ = ["parse_libsvm"]


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
        raise DataError(f"No data rows{where(source)}: the file is empty.")

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
                    f"Non-numeric label {lab.decode(errors='replace')!r}{where(source)} "
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
            f"Feature index {int(idx[k])} < 1{where(source)} at line "
            f"{lines_of_rows[rows[k]]}, field {_field(k, counts)} "
            f"({pairs[k].decode(errors='replace')!r}; LIBSVM indices are 1-based)."
        )
    max_idx = int(idx.max()) if idx.size else 0
    d = max_idx if n_features is None else n_features
    if max_idx > d:
        k = int(np.argmax(idx))
        raise DataError(
            f"Feature index {max_idx}{where(source)} at line {lines_of_rows[rows[k]]} "
            f"exceeds the declared {d} features."
        )
    flat = rows * d + (idx - 1)
    if flat.size > 1:
        order = np.argsort(flat, kind="stable")
        dup = np.flatnonzero(np.diff(flat[order]) == 0)
        if dup.size:
            k = int(order[dup[0] + 1])
            raise DataError(
                f"Feature index {int(idx[k])} repeated{where(source)} at line "
                f"{lines_of_rows[rows[k]]}."
            )
    need, ram = n * d * 8, physical_memory_bytes()
    too_big = DataError(
        f"{n} rows x {d} features{where(source)} make a dense float64 matrix of "
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
                f"Malformed LIBSVM token {tok.decode(errors='replace')!r}{where(source)} at "
                f"line {lines[row_of[k]]}: expected 'index:value'."
            )
    raise DataError(f"Malformed LIBSVM data{where(source)}.")  # pragma: no cover


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
                f"Invalid {what} {tok.decode(errors='replace')!r}{where(source)} at line "
                f"{lines[row_of[k]]}."
            ) from None
    raise DataError(f"Invalid {what}{where(source)}.")  # pragma: no cover
