"""The dataset catalogue: the files of each paper's datasets (names, sizes, checksums,
official URLs), one module per paper; the types are in :mod:`.spec`. A paper's module is
found, not listed: every module here that declares ``PAPER`` is a catalogue."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def paper_catalogues() -> tuple[ModuleType, ...]:
    """Every paper's catalogue module, in the order of the papers' numbers
    (``PAPER_NUMBER``)."""
    modules = [importlib.import_module(f"{__name__}.{m.name}")
               for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")]
    return tuple(sorted((m for m in modules if hasattr(m, "PAPER")),
                        key=lambda m: m.PAPER_NUMBER))
