"""ARFF, dense, as Weka and MOA write it: numeric and nominal attributes, the rows kept as
a string table (:func:`~streamlearn.datasets.formats.tables.to_float_columns` and
:func:`~streamlearn.datasets.formats.tables.encode_labels` convert them)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from streamlearn.datasets.formats.raw import where
from streamlearn.datasets.formats.tables import parse_string_table
from streamlearn.errors import DataError

__all__ = ["ArffData", "parse_arff"]


@dataclass
class ArffData:
    """A dense ARFF file: attribute names, types and the data as a string table.

    ``types[j]`` is ``"numeric"`` or the list of nominal values in declaration order;
    ``missing`` marks the cells that are ARFF's missing value, an unquoted ``?`` (a quoted
    ``'?'`` is the value ``?``, as in Weka's and MOA's reader).
    """

    relation: str
    names: list[str]
    types: list[str | list[str]]
    table: np.ndarray
    missing: np.ndarray | None = None

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

    Values are kept as strings, quotes removed; use :func:`to_float_columns` /
    :func:`encode_labels`. Sparse ARFF (``{i v, ...}`` rows), string and date attributes
    are rejected. The missing values (unquoted ``?``) are marked in ``missing``; the
    readers refuse them (not a number; not a class or a category of its own).
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
            at = f"{where(source)} at line {i + 1}"
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
            raise DataError(f"Unexpected ARFF header line{where(source)} at line {i + 1}: "
                            f"{line!r} (expected @relation, @attribute or @data before the "
                            "data rows).")
    if data_start is None or not names:
        missing = "@data line" if names else "@attribute line"
        raise DataError(f"Not an ARFF file{where(source)}: no @attribute/@data section "
                        f"(no {missing}; a dense ARFF file has @relation, @attribute "
                        "lines, then @data and the rows).")
    body = "\n".join(
        ln for ln in lines[data_start:] if ln.strip() and not ln.lstrip().startswith("%")
    )
    if not body:
        raise DataError(f"No data rows{where(source)}: the ARFF @data section is empty.")
    if body.lstrip().startswith("{"):
        raise DataError(f"Sparse ARFF{where(source)} is not supported.")
    table = parse_string_table(body, delimiter=",", n_cols=len(names), source=source)
    table = np.char.strip(table)
    missing = table == "?"  # before the quotes go: '?' is a value, ? the missing mark
    table = np.char.strip(table, "'\"")
    return ArffData(relation=relation, names=names, types=types, table=table,
                    missing=missing)
