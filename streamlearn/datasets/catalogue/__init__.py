"""The dataset catalogue: the files of each paper's datasets (names, sizes, checksums,
official URLs), one module per paper, and the table that joins them.

A paper's module is found, not listed: every module here that declares ``PAPER`` is a
catalogue. It has ``PAPER`` (its key in ``DatasetSpec.papers``), ``PAPER_NUMBER`` (its
place in ``streamlearn data list``), ``PAPER_LABEL``, ``SPECS`` (the datasets the paper
introduced) and ``ALSO_USES`` (names of datasets declared with another paper). The entry
types are in :mod:`.spec`; everything that touches the disk is in
:mod:`streamlearn.datasets.store`.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from types import ModuleType

from streamlearn.datasets.catalogue.spec import DatasetSpec
from streamlearn.errors import UserError

__all__ = ["CATALOGUES", "DATASETS", "get_spec", "paper_catalogues"]


def paper_catalogues() -> tuple[ModuleType, ...]:
    """Every paper's catalogue module, in the order of the papers' numbers
    (``PAPER_NUMBER``)."""
    modules = [importlib.import_module(f"{__name__}.{m.name}")
               for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")]
    return tuple(sorted((m for m in modules if hasattr(m, "PAPER")),
                        key=lambda m: m.PAPER_NUMBER))


def _index(specs: Iterable[DatasetSpec]) -> dict[str, DatasetSpec]:
    table: dict[str, DatasetSpec] = {}
    for spec in specs:
        if spec.name in table:
            raise RuntimeError(f"dataset {spec.name!r} declared twice")
        table[spec.name] = spec
    return table


#: The per-paper catalogue modules, in the order of ``streamlearn data list``.
CATALOGUES = paper_catalogues()

#: Every declared dataset by name.
DATASETS: dict[str, DatasetSpec] = _index(s for module in CATALOGUES for s in module.SPECS)


def get_spec(name: str) -> DatasetSpec:
    """The :class:`DatasetSpec` called ``name`` (a ``UserError`` listing close names if absent)."""
    if name not in DATASETS:
        from streamlearn.params import _close_matches

        raise UserError(
            f"Unknown dataset {name!r}.{_close_matches(name, sorted(DATASETS))} "
            f"Known datasets: {', '.join(sorted(DATASETS))}."
        )
    return DATASETS[name]
