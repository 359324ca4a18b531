"""Your own data as a stream: CSV, ARFF, LIBSVM/SVMlight and NumPy files.

A config names the file and, optionally, its SHA-256, which is verified before any run
starts (a mismatch is refused, exit code 3)::

    streams:
      - name: csv                     # or arff, libsvm, numpy (+ _regression variants)
        label: My data
        params:
          path: data/mydata.csv       # relative paths: from the working directory
          target: label               # column name, or index (0-based, -1 = last)
          header: null                # null: detected (a non-numeric first row is a header;
                                      #   numbers with a unique text target: set it)
          sha256: 3f1a...             # optional; `sha256sum FILE` prints it

Rows keep the file's order (``shuffle: true`` in the config shuffles them per seed).
Classification targets (numbers or strings) become class indices ``0..C-1`` in sorted
order (ARFF: the declared order of the nominal values). Feature values must be numeric
and finite, except ARFF nominal features, which become their value's index; a missing
feature value (an empty CSV cell, ARFF's unquoted ``?``, also in a nominal attribute that
declares ``?``) is refused like a missing target. A bad row is an error naming the file,
the line and the column. The parsing is the dataset layer's
(:mod:`streamlearn.datasets.formats`); ``.gz``/``.bz2`` files are decompressed.
"""

from __future__ import annotations

import dataclasses
import re
import zipfile
import zlib
from collections import OrderedDict
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from streamlearn.base import Stream, StreamInfo
from streamlearn.datasets.formats.arff import parse_arff
from streamlearn.datasets.formats.cells import (
    MISSING_LABELS,
    cells_to_float,
    data_lines,
    is_number,
    ragged_row_error,
    refuse_continuous_labels,
    refuse_missing_labels,
    refuse_non_finite,
    refuse_other_separator,
    refuse_quoted_cells,
    refuse_repeated_names,
    row_place,
    shown_cell,
    target_column,
)
from streamlearn.datasets.formats.libsvm import parse_libsvm
from streamlearn.datasets.formats.raw import decode_text, read_bytes
from streamlearn.datasets.formats.tables import encode_labels, parse_string_table
from streamlearn.errors import DataError, DataMissingError, UserError
from streamlearn.params import Interval, OfType
from streamlearn.registry import register_stream

__all__ = ["ARFFStream", "CSVStream", "ChecksumMismatch", "LIBSVMStream", "NumpyStream"]

_SHA256 = re.compile(r"^[0-9a-f]{64}$")

#: parsed files kept for the runs of this process (see ``_FileStream.check_content``)
_PARSED: OrderedDict[tuple[Any, ...], tuple[np.ndarray, np.ndarray, tuple[str, ...] | None]] = (
    OrderedDict())
_PARSED_BUDGET = 256 << 20  # bytes of arrays; a larger file is parsed again by its runs



def _remember(key: tuple[Any, ...], X: np.ndarray, y: np.ndarray,
              names: tuple[str, ...] | None) -> None:
    size = X.nbytes + y.nbytes
    if size > _PARSED_BUDGET:
        return
    _PARSED[key] = (X, y, names)
    while sum(a.nbytes + b.nbytes for a, b, _ in _PARSED.values()) > _PARSED_BUDGET:
        _PARSED.popitem(last=False)


class ChecksumMismatch(UserError):
    """A data file's SHA-256 is not the one the config declares. Refused even with
    ``--skip-missing-data`` (the file is there, but it is not the declared data)."""

    exit_code = 3


class _FileStream(Stream):
    """Shared part: the path, the optional SHA-256 and the check before any run."""

    natural_order: ClassVar[bool] = True
    needs_data: ClassVar[bool] = False
    reseed_per_run: ClassVar[bool] = False
    #: what the format is called in messages
    format_name: ClassVar[str] = ""
    #: the features' names from the file's header (CSV header row, ARFF attributes), the
    #: target's excluded; ``None`` when the file names no columns. Set by ``_parse``.
    _feature_names: tuple[str, ...] | None = None

    def __init__(self, *, path: str, sha256: str | None = None, **kwargs: Any) -> None:
        self.path = path
        self.sha256 = sha256
        if not isinstance(path, str) or not path:
            raise UserError(f"The 'path' parameter of {type(self).__name__} must be a "
                            f"non-empty string. Got {path!r} instead.")
        if sha256 is not None and (not isinstance(sha256, str)
                                   or not _SHA256.match(sha256.lower())):
            raise UserError(f"The 'sha256' parameter of {type(self).__name__} must be 64 "
                            f"hexadecimal digits (as `sha256sum FILE` prints). Got "
                            f"{sha256!r} instead.")

    def _file(self) -> Path:
        return Path(self.path).expanduser().absolute()

    def check_available(self) -> None:
        """The file exists and, when the config gives ``sha256``, has that hash."""
        p = self._file()
        if not p.is_file():
            where = "" if Path(self.path).expanduser().is_absolute() else (
                f" (relative paths are read from the working directory {Path.cwd()})")
            what = "is not a regular file" if p.exists() else "not found"
            error = DataError if p.exists() else DataMissingError
            raise error(f"{self.format_name} file {p} {what}{where}.")
        if self.sha256 is not None:
            from streamlearn.datasets.store.checksums import file_sha256

            got = file_sha256(p)
            if got != self.sha256.lower():
                raise ChecksumMismatch(
                    f"{p} does not have the SHA-256 the config declares: expected "
                    f"{self.sha256.lower()}, found {got}. The file changed (or the config "
                    "names another file); nothing was run. If the new file is the right "
                    "one, put its hash in the config.")

    def _text(self) -> str:
        return decode_text(read_bytes(self._file()), self._file())

    def _parse(self) -> tuple[np.ndarray, np.ndarray]:
        """Read and validate the whole file: ``(X, y)`` or a :class:`DataError` naming the
        file, line and column (a :class:`UserError` for a parameter the file contradicts)."""
        raise NotImplementedError

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        self.check_available()
        key = self.content_key()
        if key is not None and key in _PARSED:
            _PARSED.move_to_end(key)
            X, y, self._feature_names = _PARSED[key]
            return X.copy(), y.copy()  # each caller owns its arrays; the cache stays intact
        return self._parse()

    def info(self) -> StreamInfo:
        """Metadata, with the features' names when the file has a header (a delay column
        is then named like the target column)."""
        info = super().info()  # loads the file, which sets the names
        return dataclasses.replace(info, feature_names=self._feature_names)

    def content_sha256(self) -> str:
        """SHA-256 of the file (the declared one once :meth:`check_available` has verified
        it): part of each run's identity, so a changed file is never resumed from the
        records of the old one."""
        if self.sha256 is not None:
            return self.sha256.lower()
        from streamlearn.datasets.store.checksums import file_sha256

        return file_sha256(self._file())

    def check_content(self, keep: bool = True) -> None:
        """Parse and validate the whole file now, so that a bad file stops an experiment
        before anything is written; call after :meth:`check_available`. With ``keep`` the
        arrays are kept (within a memory budget) for the runs of this process, which then
        do not parse the file again."""
        X, y = self._parse()
        key = self.content_key() if keep else None
        if key is not None:
            _remember(key, X, y, self._feature_names)

    def content_key(self) -> tuple[Any, ...] | None:
        """The parameters and the file's identity (inode, size, times): a changed file
        parses again, and is prepared again (the per-process stream cache of
        :func:`streamlearn.protocols.preparation.prepare_stream` uses it too)."""
        try:
            st = self._file().stat()
        except OSError:
            return None
        return (type(self).__qualname__, repr(sorted(self.get_params().items())),
                str(self._file()), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
                st.st_ctime_ns)

    def _targets(self, raw: np.ndarray, lines: list[int] | None,
                 column: str = "target") -> np.ndarray:
        """Class indices (classification) or floats (regression) from raw target values.

        A missing target (empty, ``?``, ``NA``, ``N/A``, ``NULL``, ``None``, ``nan``,
        ``inf``, in any letter case) is an error naming the file, the line and the column:
        it must not become a class of its own."""
        src = self._file()
        where = f"column {column}" if column != "target" else "the target column"
        if self.task == "classification":
            if raw.dtype.kind in "US":
                refuse_missing_labels(raw, src, lines, where)
                try:  # numeric labels in a text file: numeric order (2 before 10)
                    raw = raw.astype(np.float64)
                except ValueError:
                    pass
            elif raw.dtype.kind == "f":
                bad = np.flatnonzero(~np.isfinite(raw))
                if bad.size:
                    i = int(bad[0])
                    raise DataError(f"{row_place(src, lines, i)}, {where}: the target is "
                                    f"{raw[i]}, a missing value; a missing target cannot be "
                                    "a class. Fill or drop such rows.")
            if raw.dtype.kind == "f":
                refuse_continuous_labels(raw, src, where,
                                          getattr(self, "registry_name", "csv"))
            codes, _ = encode_labels(raw, source=src)
            return codes
        try:
            y = raw.astype(np.float64)
        except ValueError:
            for i, v in enumerate(raw.tolist()):
                try:
                    float(v)
                except ValueError:
                    raise DataError(f"{row_place(src, lines, i)}, {where}: the target {v!r} is "
                                    "not a number (a regression stream needs numeric "
                                    "targets).") from None
            raise  # pragma: no cover
        refuse_non_finite(y[:, None], src, lines, [column],
                raw[:, None] if raw.dtype.kind in "US" else None)
        return y


_TARGET = OfType((int, str))


@register_stream("csv")
class CSVStream(_FileStream):
    """Your own CSV file (or any delimited text) as a classification stream.

    Parameters
    ----------
    path
        The file (``.gz``/``.bz2`` are decompressed). Relative: from the working directory.
    target
        The target column: its header name, or its index (0-based; -1 = the last).
    header
        Whether the first row holds column names; ``None`` detects it (a first row with a
        non-numeric cell outside the target column is a header; numeric features with a
        text target that no other row has, e.g. ``400,410,label``, are refused: set it).
    delimiter
        Field separator (one character). Fields are not quoted: a target value in double
        quotes is refused, naming its line (it would be a class apart from the unquoted
        value), and a quoted feature is not a number.
    sha256
        The file's SHA-256; verified before any run when given.
    """

    format_name = "CSV"
    _constraints: ClassVar[dict[str, Any]] = {"target": _TARGET,
                                              "header": OfType((bool,), allow_none=True),
                                              "delimiter": OfType((str,))}

    def __init__(self, *, path: str, target: int | str = -1, header: bool | None = None,
                 delimiter: str = ",", sha256: str | None = None) -> None:
        super().__init__(path=path, sha256=sha256)
        self.target = target
        self.header = header
        self.delimiter = delimiter
        self._validate_params()
        if len(delimiter) != 1 or delimiter in "\n\r\"'":
            raise UserError(f"The 'delimiter' parameter of CSVStream must be one character "
                            f"(not a quote or a line break). Got {delimiter!r} instead.")

    def _parse(self) -> tuple[np.ndarray, np.ndarray]:
        text = self._text()
        src = self._file()
        lines = data_lines(text, 0)
        if not lines:
            raise DataError(f"{src} is empty.")
        rows = text.split("\n")
        first = [c.strip() for c in rows[lines[0] - 1].split(self.delimiter)]
        if len(first) == 1:
            refuse_other_separator(first[0], self.delimiter, src, lines[0])
        header = self.header
        if header is None:
            header = isinstance(self.target, str) or any(
                not is_number(c) for k, c in enumerate(first)
                if k != (self.target % len(first) if isinstance(self.target, int) else -1))
        names = first if header else [str(k) for k in range(len(first))]
        if header:
            refuse_repeated_names(names, src, f"line {lines[0]}", "column")
        j = target_column(self.target, names, src, bool(header))
        if header:
            lines = lines[1:]
            if not lines:
                raise DataError(f"{src} has a header row but no data rows.")
        body = "\n".join(rows[ln - 1] for ln in lines)
        try:
            table = parse_string_table(body, delimiter=self.delimiter, n_cols=len(first),
                                       source=src)
        except DataError:
            raise ragged_row_error(text, lines, self.delimiter, len(first), src) from None
        if self.header is None and not header:
            self._refuse_ambiguous_first_row(table[:, j], lines[0])
        feats = [k for k in range(len(first)) if k != j]
        if not feats:
            raise UserError(f"{src} has only the target column; a stream needs features.")
        X = cells_to_float(table, feats, src, lines, names)
        refuse_non_finite(X, src, lines, [names[k] for k in feats], table[:, feats])
        refuse_quoted_cells(table[:, j], src, lines, f"column {names[j]}")
        y = self._targets(table[:, j], lines, names[j])
        self._feature_names = tuple(names[k] for k in feats) if header else None
        return X, y

    def _refuse_ambiguous_first_row(self, targets: np.ndarray, line: int) -> None:
        """Refuse to guess whether a first row of numbers with a text target is a header:
        ``400,410,label`` (numeric column names) read as data had made ``label`` a class of
        one sample, and OCA and kappa wrong, with exit code 0. It is data when its target
        value occurs again (or is a missing marker, refused as such later)."""
        if self.task != "classification":
            return  # a text target is no number: refused by _targets, naming the line
        values = [str(v).strip() for v in targets.tolist()]
        first = values[0]
        if is_number(first) or first.lower() in MISSING_LABELS or first in values[1:]:
            return
        raise UserError(
            f"{self._file()}, line {line}: is the first row a header or data? Its features "
            f"are numbers but its target {first!r} is text that no other row has (read as "
            f"data, it would be a class of one sample). Add header: true (the row names "
            f"the columns) or header: false (it is a sample) to the stream's params.")


@register_stream("arff")
class ARFFStream(_FileStream):
    """Your own ARFF file (dense, as Weka and MOA write it) as a classification stream.

    Parameters
    ----------
    path
        The file. Relative: from the working directory.
    target
        The target attribute: its name, or its index (0-based; -1 = the last, as in MOA).
    sha256
        The file's SHA-256; verified before any run when given.
    """

    format_name = "ARFF"
    _constraints: ClassVar[dict[str, Any]] = {"target": _TARGET}

    def __init__(self, *, path: str, target: int | str = -1, sha256: str | None = None) -> None:
        super().__init__(path=path, sha256=sha256)
        self.target = target
        self._validate_params()

    def _parse(self) -> tuple[np.ndarray, np.ndarray]:
        text = self._text()
        src = self._file()
        try:
            arff = parse_arff(text, source=src)
        except DataError as exc:
            if "Malformed data" not in str(exc):
                raise
            start = next(i for i, ln in enumerate(text.split("\n"))
                         if ln.strip().lower().startswith("@data")) + 1
            n_attr = sum(1 for ln in text.split("\n")[:start]
                         if ln.strip().lower().startswith("@attribute"))
            raise ragged_row_error(text, data_lines(text, start, "%"), ",", n_attr, src) from None
        start = next(i for i, ln in enumerate(text.split("\n"))
                     if ln.strip().lower().startswith("@data")) + 1
        lines = data_lines(text, start, "%")
        j = target_column(self.target, arff.names, src, True)
        cols = []
        for k, kind in enumerate(arff.types):
            if k == j:
                continue
            if kind == "numeric":
                cols.append(cells_to_float(arff.table, [k], src, lines, arff.names)[:, 0])
                continue
            codes = {v: float(i) for i, v in enumerate(kind)}
            vals = arff.table[:, k].tolist()
            missing = arff.missing[:, k] if arff.missing is not None else None
            col = np.empty(len(vals))
            for i, v in enumerate(vals):
                if missing is not None and missing[i]:
                    declared = (" (unquoted, ? is ARFF's missing value even where the header "
                                "declares it; a value named ? is written '?')"
                                if "?" in kind else "")
                    raise DataError(f"{row_place(src, lines, i)}, column {arff.names[k]}: "
                                    "'?' (a missing value) in a nominal attribute"
                                    f"{declared}; missing feature values are refused, "
                                    "nominal as numeric: fill or drop such rows before "
                                    "streaming them.")
                if v not in codes:
                    raise DataError(f"{row_place(src, lines, i)}, column {arff.names[k]}: "
                                    f"{shown_cell(v) if missing is None else repr(v)} is "
                                    "not one of the declared values "
                                    f"{{{', '.join(kind)}}}.")
                col[i] = codes[v]
            cols.append(col)
        if not cols:
            raise UserError(f"{src} has only the target attribute; a stream needs features.")
        X = np.column_stack(cols)
        feats = [k for k in range(len(arff.names)) if k != j]
        refuse_non_finite(X, src, lines, [arff.names[k] for k in feats], arff.table[:, feats])
        self._feature_names = tuple(arff.names[k] for k in feats)
        kind = arff.types[j]
        raw = arff.table[:, j]
        if self.task == "classification" and isinstance(kind, list):
            bad = [i for i, v in enumerate(raw.tolist()) if v not in kind]
            if bad:
                value = str(raw[bad[0]])
                raise DataError(f"{row_place(src, lines, bad[0])}, column {arff.names[j]}: the "
                                f"class {shown_cell(value)} is not one of the declared values "
                                f"{{{', '.join(kind)}}}.")
            # a declared missing marker too (Weka's CSVLoader makes R's NA a nominal value)
            refuse_missing_labels(raw, src, lines, f"column {arff.names[j]}")
            codes, _ = encode_labels(raw, classes=kind, source=src)
            return X, codes
        return X, self._targets(raw, lines, arff.names[j])


@register_stream("libsvm")
class LIBSVMStream(_FileStream):
    """Your own LIBSVM/SVMlight file (``label idx:value ...``) as a classification stream.

    Parameters
    ----------
    path
        The file (``.gz``/``.bz2`` are decompressed). Relative: from the working directory.
    n_features
        Number of features (``None``: the largest index in the file).
    sha256
        The file's SHA-256; verified before any run when given.
    """

    format_name = "LIBSVM"
    _constraints: ClassVar[dict[str, Any]] = {
        "n_features": Interval(1, None, integer=True, allow_none=True)}

    def __init__(self, *, path: str, n_features: int | None = None,
                 sha256: str | None = None) -> None:
        super().__init__(path=path, sha256=sha256)
        self.n_features = n_features
        self._validate_params()

    def estimate_size(self) -> tuple[int, int] | None:
        return None  # n_features is not a sample count

    def _parse(self) -> tuple[np.ndarray, np.ndarray]:
        src = self._file()
        data = read_bytes(src)
        X, y = parse_libsvm(data, n_features=self.n_features, source=src)
        lines = data_lines(decode_text(data, src), 0, "#") if not np.all(
            np.isfinite(X)) or not np.all(np.isfinite(y)) else None
        refuse_non_finite(X, src, lines, [str(k + 1) for k in range(X.shape[1])])
        return X, self._targets(y, lines, "label")


@register_stream("numpy")
class NumpyStream(_FileStream):
    """Your own NumPy arrays: an ``.npz`` with ``X`` and ``y``, or an ``.npy`` matrix
    whose target is one of its columns.

    Parameters
    ----------
    path
        ``.npz`` (arrays named by ``x_key`` and ``y_key``) or ``.npy`` (2-D).
    x_key, y_key
        Array names in an ``.npz`` file.
    target
        ``.npy`` only: the target column (0-based; -1 = the last).
    sha256
        The file's SHA-256; verified before any run when given.
    """

    format_name = "NumPy"
    _constraints: ClassVar[dict[str, Any]] = {"x_key": OfType((str,)),
                                              "y_key": OfType((str,)),
                                              "target": Interval(None, None, integer=True)}

    def __init__(self, *, path: str, x_key: str = "X", y_key: str = "y", target: int = -1,
                 sha256: str | None = None) -> None:
        super().__init__(path=path, sha256=sha256)
        self.x_key = x_key
        self.y_key = y_key
        self.target = target
        self._validate_params()
        if Path(path).suffix.lower() not in (".npz", ".npy"):
            raise UserError(f"The 'path' parameter of NumpyStream must name a .npz or .npy "
                            f"file. Got {path!r} instead.")

    def _parse(self) -> tuple[np.ndarray, np.ndarray]:
        src = self._file()
        # what np.load and reading an .npz member raise on a damaged or truncated file, or
        # on an object array (refused: loading it would run pickle)
        unreadable = (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error)
        with open(src, "rb") as fh:  # ours to close, also when np.load fails half-way
            try:
                loaded = np.load(fh, allow_pickle=False)
            except unreadable as exc:
                raise DataError(f"{src} is not a readable NumPy file ({exc}).") from None
            if isinstance(loaded, np.lib.npyio.NpzFile):
                with loaded:
                    missing = [k for k in (self.x_key, self.y_key) if k not in loaded.files]
                    if missing:
                        raise DataError(f"{src} has no array {missing[0]!r}; it holds "
                                        f"{', '.join(loaded.files) or 'no arrays'}. Set "
                                        "x_key and y_key.")
                    try:
                        X, y = loaded[self.x_key], loaded[self.y_key]
                    except unreadable as exc:
                        raise DataError(f"{src}: its arrays cannot be read ({exc}).") from None
                loaded = None
        if loaded is not None:  # an .npy matrix
            if loaded.ndim != 2:
                raise DataError(f"{src} holds a {loaded.ndim}-D array; an .npy stream is a "
                                "2-D matrix with the target as one column.")
            j = target_column(self.target, [str(k) for k in range(loaded.shape[1])], src, False)
            X, y = np.delete(loaded, j, axis=1), loaded[:, j]
        if X.ndim == 1:
            X = X[:, None]
        if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
            raise DataError(f"{src}: X must be 2-D and y 1-D with as many rows; found X "
                            f"{X.shape} and y {y.shape}.")
        if X.dtype.kind not in "biuf":
            raise DataError(f"{src}: X has dtype {X.dtype}; features must be numeric.")
        if X.shape[0] == 0:
            raise DataError(f"{src} holds no samples (X has shape {X.shape}).")
        X = X.astype(np.float64)
        refuse_non_finite(X, src, None, [str(k) for k in range(X.shape[1])])
        return X, self._targets(y, None)


# Regression variants: the same readers, float targets.
for _cls in (CSVStream, ARFFStream, LIBSVMStream, NumpyStream):
    _name = f"{_cls.registry_name}_regression"  # type: ignore[attr-defined]
    _doc = (_cls.__doc__ or "").replace("as a classification stream", "as a regression "
                                        "stream (float targets)", 1)
    register_stream(_name)(type(f"{_cls.__name__}Regression", (_cls,), {
        "__doc__": _doc, "__module__": __name__, "task": "regression"}))
