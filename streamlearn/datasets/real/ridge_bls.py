"""Streams over the real datasets of the Ridge-BLS paper (Sec. V-B).

==================  ==========================================
registry name       shape, notes
==================  ==========================================
``smallnorb``       48,600 x 2048, 5 classes (Tables IV, V)
``mnist``           the Online-BLS stream, ``part="train"/"test"``
==================  ==========================================

MNIST (Tables II, III, VI) is :class:`streamlearn.datasets.real.online_bls.MNISTStream`
with its standard split (:func:`streamlearn.datasets.real.base.load_split`). The files are
declared in :mod:`streamlearn.datasets.catalogue.ridge_bls`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from streamlearn.datasets.formats.binary import parse_norb_mat
from streamlearn.datasets.formats.raw import read_bytes
from streamlearn.datasets.real.base import (
    PartStream,
    concat_parts,
    int_labels,
    register_stream,
)
from streamlearn.errors import DataError
from streamlearn.params import Options

__all__ = ["SmallNORBStream"]


@register_stream("smallnorb")
class SmallNORBStream(PartStream):
    """small NORB, stereo pairs downsampled to 2x32x32 = 2048 inputs in [0, 1] [Ridge-BLS].

    Reads the official ``*-dat.mat.gz`` / ``*-cat.mat.gz`` binary matrices. Each 96x96
    image is reduced to 32x32 by 3x3 block means (the 2048-input setting of Chen and
    Liu's BLS paper, ref. [16] of the Ridge-BLS paper, which Sec. V-B follows);
    ``image_size=96`` keeps full resolution (18,432 inputs; ~7 GB as float64 for the
    whole set). ``part="all"`` is the training set then the testing set.
    """

    dataset = "smallnorb"
    _constraints: ClassVar[dict[str, Any]] = {
        **PartStream._constraints,
        "image_size": Options((32, 96)),
    }

    def __init__(
        self,
        *,
        part: str | None = None,
        image_size: int = 32,
        data_dir: str | os.PathLike[str] | None = None,
        nan_policy: str = "raise",
    ) -> None:
        self.image_size = image_size
        super().__init__(part=part, data_dir=data_dir, nan_policy=nan_policy)

    def _parse_params(self) -> dict[str, Any]:
        return {"part": self._part(), "image_size": self.image_size}

    def _n_features(self) -> int:
        return 2 * self.image_size * self.image_size

    def _parse(self, paths: list[Path]) -> dict[str, np.ndarray]:
        out = []
        for dat_path, cat_path in zip(paths[0::2], paths[1::2], strict=True):
            dat = parse_norb_mat(read_bytes(dat_path), dat_path)
            cat = parse_norb_mat(read_bytes(cat_path), cat_path)
            if dat.ndim != 4 or dat.shape[1:] != (2, 96, 96) or dat.dtype != np.uint8:
                raise DataError(
                    f"{dat_path} holds {dat.dtype} data of shape {dat.shape}; expected "
                    "uint8 N x 2 x 96 x 96."
                )
            cat = cat.reshape(-1)
            if cat.shape[0] != dat.shape[0]:
                raise DataError(f"{cat_path} has {cat.shape[0]} labels for {dat.shape[0]} images.")
            n = dat.shape[0]
            if self.image_size == 32:
                X = dat.reshape(n, 2, 32, 3, 32, 3).sum(axis=(3, 5), dtype=np.uint16)
            else:
                X = dat
            out.append({"X": X.reshape(n, -1), "y": int_labels(cat, 0, 4, cat_path)})
        return concat_parts(out)

    def _finish(self, arrays: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, dict]:
        scale = 255.0 * (9.0 if self.image_size == 32 else 1.0)
        X = np.divide(arrays["X"], scale, dtype=np.float64)
        return X, arrays["y"], {}
