"""The declarative types of the dataset catalogue: :class:`FileSpec` and :class:`DatasetSpec`.

The entries themselves live in one module per paper beside this one (``online_bls``,
``forks``, ``ridge_bls``, ``fast_ons``); the package (:mod:`streamlearn.datasets.catalogue`)
collects them into ``DATASETS``, and :mod:`streamlearn.datasets.store` does everything
that touches the disk. This module only defines the types, the download sites the
entries share, and :func:`served_from`, which keeps an entry for a file served under its
own name to a line or two.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "HASH_FROM_MANIFEST",
    "LIBSVM",
    "NO_HASH",
    "UCI",
    "DatasetSpec",
    "FileSpec",
    "served_from",
]

UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases"
LIBSVM = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets"

#: ``hash_source`` of the files whose reference hash is that of the project's shared copy.
HASH_FROM_MANIFEST = "shared/datasets/manifest.json"
#: ``hash_source`` of the files without a reference hash (they are used unverified).
NO_HASH = "none known"


@dataclass(frozen=True)
class FileSpec:
    """One file of a dataset.

    Attributes
    ----------
    path
        Path relative to the data directory (``/`` separated).
    sha256
        Accepted SHA-256 digests (several when equivalent copies exist); empty when no
        reference hash is known.
    size
        Size in bytes of the reference copy, if known.
    url
        Official download URL, or None when the file cannot be fetched as is.
    group
        Which part of the dataset the file belongs to (``"train"``, ``"test"``, a
        speaker, ...); streams select files by group.
    required
        False for files that are not needed to load the data (documentation files,
        alternatives).
    hash_source
        Where the reference hash comes from.
    note
        Anything the user must know to obtain the file.
    """

    path: str
    sha256: tuple[str, ...] = ()
    size: int | None = None
    url: str | None = None
    group: str = "all"
    required: bool = True
    hash_source: str = HASH_FROM_MANIFEST
    note: str = ""


def served_from(url_dir: str, local_dir: str) -> Callable[..., FileSpec]:
    """A maker of :class:`FileSpec` for files kept as ``<local_dir>/<name>`` in the data
    directory and served as ``<url_dir>/<name>``.

    The maker takes ``(name, size=None, *, sha256=None, **other FileSpec fields)``; one
    ``sha256`` string becomes the single accepted digest, and a file without one gets
    ``hash_source=NO_HASH``.
    """

    def make(
        name: str, size: int | None = None, *, sha256: str | None = None, **fields: Any
    ) -> FileSpec:
        if sha256 is None:
            fields.setdefault("hash_source", NO_HASH)
        return FileSpec(
            f"{local_dir}/{name}", (sha256,) if sha256 else (), size, f"{url_dir}/{name}", **fields
        )

    return make


@dataclass(frozen=True)
class DatasetSpec:
    """Static metadata of a dataset: files, shape, provenance, status kind."""

    name: str
    title: str
    papers: tuple[str, ...]
    task: str
    files: tuple[FileSpec, ...]
    n_features: int | None
    n_classes: int | None
    sizes: Mapping[str, int | None]
    default_part: str = "all"
    kind: str = "official"  # "official" | "substitute" | "partial"
    substitute_for: str | None = None
    natural_order: bool = False
    source: str = ""
    preprocessing: tuple[str, ...] = ()
    notes: str = ""
    class_names: tuple[str, ...] | None = None

    @property
    def n_samples(self) -> int | None:
        return self.sizes.get(self.default_part)

    def groups_for(self, part: str) -> tuple[str, ...]:
        """File groups a ``part`` needs (``"all"`` means every group of the parts)."""
        if part == "all":
            return tuple(sorted({f.group for f in self.files if f.required}))
        return (part,)

    def files_for(self, part: str | None = None) -> tuple[FileSpec, ...]:
        groups = self.groups_for(self.default_part if part is None else part)
        return tuple(
            f for f in self.files if f.required and (f.group in groups or f.group == "all")
        )

    def shape_text(self, part: str | None = None) -> str:
        n = self.sizes.get(self.default_part if part is None else part)
        rows = f"{n:,}" if n is not None else "?"
        cols = str(self.n_features) if self.n_features is not None else "?"
        return f"{rows} x {cols}"
