"""Discovery of registered components: import every public module of a package, its
subpackages included, so that their ``@register_*`` decorators run (as scikit-learn's
``all_estimators`` walks its package). A module or package whose name starts with ``_``
is private and not walked."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable


def import_public_modules(path: Iterable[str], package: str) -> None:
    """Import every module under ``package`` (its ``__path__`` is ``path``) whose dotted
    name has no part starting with ``_``."""
    for mod in pkgutil.walk_packages(list(path), prefix=f"{package}."):
        if any(part.startswith("_") for part in mod.name[len(package) + 1:].split(".")):
            continue
        importlib.import_module(mod.name)
