"""Delimited text: numeric and string tables (UCI csv and whitespace tables, the ESL
``zip.*`` files) read with NumPy's C ``loadtxt`` reader, CSV with a header row (KuaiRec,
the temperature traces) read with pandas, and the column helpers that turn a table's cells
into floats and class codes. Every function raises :class:`~streamlearn.errors.DataError`
naming the file (and row or column) rather than dropping, padding or guessing a value.
"""

from __future__ import annotations

import io
import re
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from streamlearn.datasets.formats.raw import where
from streamlearn.errors import DataError

__all__ = [
    "encode_labels",
    "parse_csv_frame",
    "parse_numeric_table",
    "parse_string_table",
    "to_float_columns",
]

_BLANK_LINES = re.compile(r"(?m)^[ \t\r]*\n")


def _prepare_lines(text: str, skip_rows: int, source: str | Path | None) -> str:
    if skip_rows:
        parts = text.split("\n", skip_rows)
        text = parts[skip_rows] if len(parts) > skip_rows else ""
    # loadtxt skips blank lines anyway, but warns about them in chunked reads.
    text = _BLANK_LINES.sub("", text)
    if not text.strip():
        raise DataError(f"No data rows{where(source)}: the file is empty.")
    return text


def _loadtxt(text: str, source: str | Path | None, **kwargs: Any) -> np.ndarray:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return np.loadtxt(io.StringIO(text), ndmin=2, comments=None, **kwargs)
    except ValueError as exc:
        msg = str(exc).split("; use `usecols`")[0]
        raise DataError(
            f"Malformed data{where(source)}: {msg} (rows count non-blank data lines)."
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
            f"Wrong number of columns{where(source)}: expected {n_cols}, found {arr.shape[1]}."
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
                        f"Non-numeric value {str(cell)!r}{where(source)} at data row {i + 1}, "
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
            f"Unexpected class label {exc.args[0]!r}{where(source)}; expected one of "
            f"{', '.join(repr(c) for c in classes)}."
        ) from None
    return table[inverse.reshape(-1)], list(classes)


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
        raise DataError(f"No data{where(source)}: the file is empty.") from exc
    except (pd.errors.ParserError, ValueError, UnicodeDecodeError) as exc:
        raise DataError(f"Malformed CSV{where(source)}: {exc}") from exc
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise DataError(
            f"Column(s) {', '.join(map(repr, missing))} missing{where(source)}; found "
            f"{', '.join(map(str, frame.columns))}."
        )
    if len(frame) == 0:
        raise DataError(f"No data rows{where(source)}: only a header.")
    return frame
