"""Name → class registries for algorithms, streams, metrics and protocols: the tables and
the ``register_*`` decorators, nothing else (a leaf: it imports no other streamlearn
module). Classes register themselves::

    @register_algorithm("online_bls")
    class OnlineBLS(Classifier): ...

Looking a name up (dotted paths and installed plugins included) is
:mod:`streamlearn.components`' job.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

ALGORITHMS: dict[str, type] = {}
STREAMS: dict[str, type] = {}
METRICS: dict[str, Any] = {}
PROTOCOLS: dict[str, type] = {}

#: The packages whose modules register entries; each imports all its public modules (and
#: subpackages), so a new learner, stream, metric or protocol module is found, not listed.
PACKAGES = (
    "streamlearn.metrics",
    "streamlearn.algorithms",
    "streamlearn.datasets",
    "streamlearn.protocols",
)

_loaded = False


def _register(table: dict[str, Any], kind: str, name: str) -> Callable[[T], T]:
    def decorator(obj: T) -> T:
        if name in table and table[name] is not obj:
            raise RuntimeError(f"{kind} {name!r} registered twice")
        table[name] = obj
        obj.registry_name = name  # type: ignore[attr-defined]
        return obj

    return decorator


def register_algorithm(name: str) -> Callable[[T], T]:
    return _register(ALGORITHMS, "algorithm", name)


def register_stream(name: str) -> Callable[[T], T]:
    return _register(STREAMS, "stream", name)


def register_metric(name: str) -> Callable[[T], T]:
    return _register(METRICS, "metric", name)


def register_protocol(name: str) -> Callable[[T], T]:
    """Register an evaluation protocol (a :class:`~streamlearn.base.Protocol` subclass);
    a config selects it with ``protocol: NAME``. Works from outside the package too."""
    return _register(PROTOCOLS, "protocol", name)


def load_builtins() -> None:
    """Import the built-in packages of :data:`PACKAGES` (idempotent). They are named, not
    imported at the top, so that importing :mod:`streamlearn` stays cheap and the registry
    stays a leaf."""
    global _loaded
    if _loaded:
        return
    for package in PACKAGES:
        importlib.import_module(package)
    _loaded = True
