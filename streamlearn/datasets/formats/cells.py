"""Text cells of a user's file → checked values, every refusal naming the file, the line
and the column: floats and finiteness, target columns and labels, separators and header
names. Used by the file streams of :mod:`streamlearn.datasets.files`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from streamlearn.errors import DataError, UserError
from streamlearn.params import _close_matches

__all__ = [
    "MAX_NON_INTEGER_CLASSES",
    "MISSING_LABELS",
    "cells_to_float",
    "data_lines",
    "is_number",
    "ragged_row_error",
    "refuse_continuous_labels",
    "refuse_missing_labels",
    "refuse_non_finite",
    "refuse_other_separator",
    "refuse_quoted_cells",
    "refuse_repeated_names",
    "row_place",
    "shown_cell",
    "target_column",
]

#: target values that mean "missing" in a text file (compared in lower case, stripped);
#: none of them may become a class. ``na``, ``n/a``, ``null``, ``none``: R's and pandas'
#: markers (an ``NA`` target had become a class of its own, the classes in string order)
MISSING_LABELS = frozenset({"", "?", "nan", "+nan", "-nan", "inf", "+inf", "-inf",
                             "infinity", "+infinity", "-infinity",
                             "na", "n/a", "null", "none"})


#: more distinct non-integer numeric labels than this is a regression target, not classes
#: (class labels written as numbers are integers, or a few values such as 0.5 / 1.5)
MAX_NON_INTEGER_CLASSES = 100


def refuse_continuous_labels(labels: np.ndarray, src: Path, where: str, name: str,
                              ) -> None:
    """Refuse numeric labels that are a regression target: each distinct value would
    become a class of its own (a 2,000-row CSV of real-valued targets gave 2,000 classes,
    OCA 0.00 for every learner, exit 0)."""
    distinct = np.unique(labels)
    fractional = distinct[distinct != np.round(distinct)]
    if fractional.size and distinct.size > MAX_NON_INTEGER_CLASSES:
        shown = ", ".join(f"{v:g}" for v in fractional[:3])
        raise DataError(
            f"{src}, {where}: {distinct.size} distinct numeric labels in {labels.size} rows, "
            f"non-integer ones among them ({shown}, ...): a regression target, not classes "
            f"(each value would be a class of its own). Run it as a regression stream "
            f"(`name: {name}_regression` under `protocol: prequential-regression`), or map "
            f"it to classes first.")


def refuse_missing_labels(raw: np.ndarray, src: Path, lines: list[int] | None,
                          where: str) -> None:
    """Refuse a text target that is a missing-value marker (:data:`MISSING_LABELS`, any
    letter case), naming the file, the line and the column: it must not become a class."""
    text = np.char.strip(raw.astype(str))
    missing = np.flatnonzero(np.isin(np.char.lower(text), list(MISSING_LABELS)))
    if not missing.size:
        return
    i = int(missing[0])
    value = str(text[i])
    shown = "empty" if not value else f"{value!r}, a missing value"
    rename = (f" (or, if {value!r} is a class, give it another name)"
              if value[:1].isalpha() and not is_number(value) else "")
    raise DataError(f"{row_place(src, lines, i)}, {where}: the target is {shown}; a missing "
                    f"target cannot be a class. Fill or drop such rows{rename}.")


def refuse_quoted_cells(raw: np.ndarray, src: Path, lines: list[int] | None,
                        where: str) -> None:
    """Refuse a cell in double quotes (RFC 4180's quoted field), naming the file, the line
    and the column: the CSV reader does not take quoting, so ``"a"`` would be read with
    its quotes, a class apart from ``a`` (``"a"``, ``a``, ``"b"``, ``b`` had made four
    classes, exit 0)."""
    text = np.asarray(raw).astype(str, copy=False)  # the reader strips the cells
    quoted = np.flatnonzero(np.char.startswith(text, '"') | np.char.endswith(text, '"'))
    if not quoted.size:
        return
    i = int(quoted[0])
    raise DataError(f"{row_place(src, lines, i)}, {where}: the value {text[i]!s} is "
                    "quoted (a double quote at its start or end); the CSV reader does not "
                    "take quoted fields (the quotes "
                    "would be part of the value, and \"a\" a class apart from a). Remove "
                    "the quotes from the file.")


def row_place(src: Path, lines: list[int] | None, row: int) -> str:
    """``file, line N`` for data row ``row`` (``row N`` where lines are not known)."""
    return f"{src}, line {lines[row]}" if lines is not None else f"{src}, row {row + 1}"


def refuse_non_finite(X: np.ndarray, src: Path, lines: list[int] | None, names: list[str],
                      cells: np.ndarray | None = None) -> None:
    """Refuse NaN and infinities, naming the first one's line and column (and the text of
    the cell, when ``cells`` holds the file's strings: ``1e999`` reads as inf)."""
    bad = np.argwhere(~np.isfinite(X))
    if bad.size:
        i, j = (int(v) for v in bad[0])
        shown = f"{X[i, j]}"
        if cells is not None and str(cells[i, j]).strip().lower() not in MISSING_LABELS:
            shown = f"{str(cells[i, j]).strip()!r}, read as {X[i, j]}"
        raise DataError(f"{row_place(src, lines, i)}, column {names[j]}: missing or non-finite "
                        f"value ({shown}); fill or drop such rows before streaming them.")


def cells_to_float(table: np.ndarray, cols: list[int], src: Path, lines: list[int] | None,
                   names: list[str]) -> np.ndarray:
    """String columns → float64, naming the file, line and column of the first bad cell."""
    out = np.empty((table.shape[0], len(cols)), dtype=np.float64)
    for k, j in enumerate(cols):
        try:
            out[:, k] = table[:, j].astype(np.float64)
        except ValueError:
            for i, cell in enumerate(table[:, j].tolist()):
                try:
                    float(cell)
                except ValueError:
                    shown = "an empty value" if not str(cell).strip() else shown_cell(cell)
                    raise DataError(f"{row_place(src, lines, i)}, column {names[j]}: {shown} is "
                                    "not a number.") from None
            raise  # pragma: no cover
    return out


def shown_cell(cell: str) -> str:
    """A cell for a message; ARFF's missing-value mark ``?`` is named as such."""
    return "'?' (a missing value)" if str(cell).strip() == "?" else repr(str(cell))


def data_lines(text: str, start: int, comment: str | None = None) -> list[int]:
    """1-based line numbers of the non-blank (non-comment) lines from line index ``start``."""
    out = []
    for i, line in enumerate(text.split("\n")[start:], start=start + 1):
        s = line.strip()
        if s and not (comment and s.startswith(comment)):
            out.append(i)
    return out


def ragged_row_error(text: str, lines: list[int], delimiter: str, n_cols: int,
                     src: Path) -> DataError:
    """The error for the first row whose field count differs from the first row's."""
    all_lines = text.split("\n")
    for ln in lines:
        n = len(all_lines[ln - 1].split(delimiter))
        if n != n_cols:
            return DataError(f"{src}, line {ln}: {n} field(s), expected {n_cols} (as in the "
                             "first row).")
    return DataError(f"{src}: malformed rows.")  # pragma: no cover


def target_column(target: int | str, names: list[str], src: Path, has_names: bool) -> int:
    """The index of the target column, given by header name or by index (-1 = last)."""
    if isinstance(target, str):
        if not has_names:
            raise UserError(f"target {target!r} names a column, but {src} has no header "
                            "row; give the column's index instead (0-based, -1 = last).")
        if target not in names:
            raise UserError(f"{src} has no column {target!r}.{_close_matches(target, names)}"
                            f" Columns: {', '.join(names)}.")
        return names.index(target)
    n = len(names)
    if not -n <= target < n:
        raise UserError(f"target column {target} is out of range: {src} has {n} columns "
                        f"(0..{n - 1}, or -1 for the last).")
    return target % n


def refuse_other_separator(cell: str, delimiter: str, src: Path, line: int) -> None:
    """Refuse a first row that is one field but holds another usual separator: a ';'- or
    tab-separated file read at ',' would otherwise be reported as a missing column."""
    for sep, name in ((";", "';'"), ("\t", "a tab"), ("|", "'|'")):
        if sep != delimiter and sep in cell:
            shown = "'\\t'" if sep == "\t" else repr(sep)
            raise UserError(f"{src}, line {line}: the row is a single field {cell!r} when "
                            f"split at {delimiter!r}, and it contains {name}. If the file's "
                            f"fields are separated by {name}, add delimiter: {shown} to the "
                            "stream's params.")


def refuse_repeated_names(names: list[str], src: Path, where: str, what: str) -> None:
    """Refuse a header that names two columns alike: a target or a message naming one
    would be ambiguous."""
    seen: dict[str, list[int]] = {}
    for k, name in enumerate(names):
        seen.setdefault(name, []).append(k)
    dups = {n: ks for n, ks in seen.items() if len(ks) > 1}
    if dups:
        listed = "; ".join(f"{n!r} ({what}s {', '.join(str(k + 1) for k in ks)})"
                           for n, ks in dups.items())
        raise DataError(f"{src}, {where}: the header names more than one {what} alike: "
                        f"{listed}. Give each {what} its own name.")


def is_number(cell: str) -> bool:
    """True when the cell reads as a float."""
    try:
        float(cell)
    except ValueError:
        return False
    return True
