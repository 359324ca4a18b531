"""Registered datasets: every public module in this package is imported so that its
``@register_*`` decorators run (discovery, as in scikit-learn's ``all_estimators``)."""

from __future__ import annotations

import importlib
import pkgutil

for _mod in pkgutil.iter_modules(__path__):
    if not _mod.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_mod.name}")
