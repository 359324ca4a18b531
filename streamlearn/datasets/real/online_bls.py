"""Streams over the real datasets of the Online-BLS paper (Sec. 5, Table 2, Appendix B).

==================  ==========================================
registry name       shape, notes
==================  ==========================================
``segment``         2,310 x 19, 7 classes
``usps``            9,298 x 256, 10 classes (ESL files)
``letter``          20,000 x 16, 26 classes
``adult``           45,222 x 14, 2 classes
``shuttle``         58,000 x 8, 7 classes
``mnist``           70,000 x 784 (``part`` for the split; also Ridge-BLS)
``electricity``     45,312 x 6, natural order
``covtype``         581,012 x 54, natural order
==================  ==========================================

The files are declared in :mod:`streamlearn.datasets.catalogue.online_bls`; the drift
streams Hyperplane and SEA are in :mod:`streamlearn.datasets.synthetic.drift`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from streamlearn.datasets.catalogue.spec import FileSpec
from streamlearn.datasets.formats.arff import parse_arff
from streamlearn.datasets.formats.binary import parse_idx
from streamlearn.datasets.formats.raw import read_bytes
from streamlearn.datasets.formats.tables import (
    encode_labels,
    parse_numeric_table,
    parse_string_table,
    to_float_columns,
)
from streamlearn.datasets.real.base import (
    PartStream,
    RealStream,
    concat_parts,
    int_labels,
    read_text,
    register_stream,
)
from streamlearn.errors import DataError

__all__ = [
    "AdultStream",
    "CovtypeStream",
    "ElectricityStream",
    "LetterStream",
    "MNISTStream",
    "SegmentStream",
    "ShuttleStream",
    "USPSStream",
]


@register_stream("segment")
class SegmentStream(PartStream):
    """UCI Image Segmentation, train+test merged (2,310 x 19, 7 classes) [Online-BLS]."""

    dataset = "segment"

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        out = []
        for path in paths:
            lines = [
                ln
                for ln in read_text(path).split("\n")
                if ln.strip() and not ln.startswith(";") and not ln.startswith("REGION-CENTROID")
            ]
            table = parse_string_table("\n".join(lines), delimiter=",", n_cols=20, source=path)
            y, _ = encode_labels(table[:, 0], self.spec.class_names, path)
            out.append({"X": to_float_columns(table, range(1, 20), path), "y": y})
        return concat_parts(out)


@register_stream("usps")
class USPSStream(PartStream):
    """USPS digits from the ESL zip.train/zip.test files, merged (9,298 x 256) [Online-BLS]."""

    dataset = "usps"

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        out = []
        for path in paths:
            table = parse_numeric_table(read_text(path), n_cols=257, source=path)
            out.append({"X": table[:, 1:], "y": int_labels(table[:, 0], 0, 9, path)})
        return concat_parts(out)


@register_stream("letter")
class LetterStream(RealStream):
    """UCI Letter Recognition (20,000 x 16, 26 classes) [Online-BLS]."""

    dataset = "letter"

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        (path,) = paths
        table = parse_string_table(read_text(path), delimiter=",", n_cols=17, source=path)
        y, _ = encode_labels(table[:, 0], self.spec.class_names, path)
        return {"X": to_float_columns(table, range(1, 17), path), "y": y}


_ADULT_CATEGORICAL = (1, 3, 5, 6, 7, 8, 9, 13)
_ADULT_NUMERIC = (0, 2, 4, 10, 11, 12)


@register_stream("adult")
class AdultStream(PartStream):
    """UCI Adult, train+test merged, rows with '?' removed (45,222 x 14) [Online-BLS].

    Categorical attributes (workclass, education, marital-status, occupation,
    relationship, race, sex, native-country) become integer codes: the rank of the
    whitespace-stripped string among the sorted distinct values of the merged, cleaned
    data (so ``part="train"`` and ``part="test"`` share codes). Columns keep the UCI
    order; label ``<=50K`` -> 0, ``>50K`` -> 1.
    """

    dataset = "adult"

    def _required(self) -> tuple[FileSpec, ...]:
        return self.spec.files_for("all")  # the codes depend on both files

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        tables, part_ids = [], []
        for k, path in enumerate(paths):
            text = read_text(path)
            skip = 1 if text.startswith("|") else 0
            table = parse_string_table(
                text, delimiter=",", skip_rows=skip, n_cols=15, source=path
            )
            tables.append(table)
            part_ids.append(np.full(table.shape[0], k, dtype=np.int8))
        table = np.concatenate(tables)
        part_id = np.concatenate(part_ids)
        keep = ~(table == "?").any(axis=1)
        table, part_id = table[keep], part_id[keep]
        labels = np.char.rstrip(table[:, 14], ".")
        y, _ = encode_labels(labels, self.spec.class_names, "adult")
        X = np.empty((table.shape[0], 14), dtype=np.float64)
        X[:, list(_ADULT_NUMERIC)] = to_float_columns(table, _ADULT_NUMERIC, "adult")
        for j in _ADULT_CATEGORICAL:
            codes, _ = encode_labels(table[:, j])
            X[:, j] = codes
        part_index = {"all": None, "train": 0, "test": 1}[self._part()]
        if part_index is not None:
            sel = part_id == part_index
            X, y = X[sel], y[sel]
        return {"X": X, "y": y}


@register_stream("shuttle")
class ShuttleStream(PartStream):
    """UCI Statlog Shuttle, merged, time attribute dropped (58,000 x 8, 7 classes) [Online-BLS]."""

    dataset = "shuttle"

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        out = []
        for path in paths:
            table = parse_numeric_table(read_text(path), n_cols=10, source=path)
            out.append({"X": table[:, 1:9], "y": int_labels(table[:, 9], 1, 7, path)})
        return concat_parts(out)


@register_stream("mnist")
class MNISTStream(PartStream):
    """MNIST digits scaled to [0, 1]; part='all' merges train+test (70,000 x 784) [Online-BLS].

    ``part="train"`` / ``part="test"`` give the standard 60,000 / 10,000 split used by
    Ridge-BLS (see also :func:`load_split`).
    """

    dataset = "mnist"

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        out = []
        for images_path, labels_path in zip(paths[0::2], paths[1::2], strict=True):
            images = parse_idx(read_bytes(images_path), images_path)
            labels = parse_idx(read_bytes(labels_path), labels_path)
            if images.ndim != 3 or images.shape[1:] != (28, 28) or images.dtype != np.uint8:
                raise DataError(
                    f"{images_path} holds {images.dtype} images of shape {images.shape}; "
                    "expected uint8 N x 28 x 28."
                )
            if labels.ndim != 1 or labels.shape[0] != images.shape[0]:
                raise DataError(
                    f"{labels_path} has {labels.shape[0]} labels for {images.shape[0]} images "
                    f"in {images_path}."
                )
            y = int_labels(labels, 0, 9, labels_path)
            out.append({"X": images.reshape(images.shape[0], 784), "y": y})
        return concat_parts(out)

    def _finish(self, arrays: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, dict]:
        X = np.divide(arrays["X"], 255.0, dtype=np.float64)
        return X, arrays["y"], {}


_ELEC_FEATURES = ("period", "nswprice", "nswdemand", "vicprice", "vicdemand", "transfer")


@register_stream("electricity")
class ElectricityStream(RealStream):
    """Electricity (MOA elecNormNew), date/day dropped, natural order (45,312 x 6) [Online-BLS]."""

    dataset = "electricity"
    natural_order = True

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        (path,) = paths
        arff = parse_arff(read_text(path), path)
        cols = [arff.column(name) for name in _ELEC_FEATURES]
        X = to_float_columns(arff.table, cols, path)
        y, _ = encode_labels(arff.table[:, arff.column("class")], self.spec.class_names, path)
        return {"X": X, "y": y}


@register_stream("covtype")
class CovtypeStream(RealStream):
    """UCI Covertype, all 54 columns, natural order (581,012 x 54, 7 classes) [Online-BLS]."""

    dataset = "covtype"
    natural_order = True

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        (path,) = paths
        table = parse_numeric_table(read_text(path), delimiter=",", n_cols=55, source=path)
        return {"X": table[:, :54], "y": int_labels(table[:, 54], 1, 7, path)}
