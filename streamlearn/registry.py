"""Name → class registries for algorithms, streams, metrics and protocols.

A config's ``name:`` is looked up here. Classes register themselves with a decorator::

    @register_algorithm("online_bls")
    class OnlineBLS(Classifier): ...

Modules that define registered classes are imported lazily by :func:`load_all`, so that
importing :mod:`streamlearn` stays cheap.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable
from typing import Any, TypeVar

from streamlearn.base import Learner, Protocol, Stream, UserError, _close_matches

T = TypeVar("T")

ALGORITHMS: dict[str, type] = {}
STREAMS: dict[str, type] = {}
METRICS: dict[str, Any] = {}
PROTOCOLS: dict[str, type] = {}

# Modules whose import registers entries. New algorithm/stream modules are added here.
_MODULES = (
    "streamlearn.metrics",
    "streamlearn.algorithms",
    "streamlearn.datasets",
    "streamlearn.evaluation.protocols",
    "streamlearn.evaluation.prequential_regression",
    "streamlearn.regret",
    "streamlearn.regret_kernel",
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


def load_all() -> None:
    """Import every module that registers entries (idempotent)."""
    global _loaded
    if _loaded:
        return
    for module in _MODULES:
        importlib.import_module(module)
    _loaded = True
    # learners and streams of installed packages (entry-point groups streamlearn.algorithms
    # and streamlearn.streams), after the built-in ones so that those keep their names
    from streamlearn.user_components import load_entry_points

    load_entry_points(ALGORITHMS, STREAMS)


def _lookup(table: dict[str, Any], kind: str, name: str) -> Any:
    load_all()
    if not isinstance(name, str) or name not in table:
        choices = sorted(table)
        hint = _close_matches(str(name), choices)
        from streamlearn.user_components import BROKEN_PLUGINS

        if isinstance(name, str) and name in BROKEN_PLUGINS:
            raise UserError(f"The plugin {kind} {name!r} could not be loaded: "
                            f"{BROKEN_PLUGINS[name]}")
        raise UserError(
            f"Unknown {kind} {name!r}.{hint} Valid {kind}s: {', '.join(choices)}, or a "
            "dotted path 'package.module:Class'."
            if kind in ("algorithm", "stream") else
            f"Unknown {kind} {name!r}.{hint} Valid {kind}s: {', '.join(choices)}."
        )
    return table[name]


def get_algorithm(name: str) -> type[Learner]:
    """A registered learner, or a learner class by dotted path ``module:Class`` (see
    :mod:`streamlearn.user_components`)."""
    if isinstance(name, str) and ":" in name:
        from streamlearn.user_components import resolve_algorithm

        load_all()
        return resolve_algorithm(name)
    return _lookup(ALGORITHMS, "algorithm", name)


def get_stream(name: str) -> type[Stream]:
    """A registered stream, or a Stream subclass by dotted path ``module:Class``."""
    if isinstance(name, str) and ":" in name:
        from streamlearn.user_components import resolve_stream

        load_all()
        return resolve_stream(name)
    return _lookup(STREAMS, "stream", name)


def get_metric(name: str) -> Any:
    return _lookup(METRICS, "metric", name)


def get_protocol(name: str) -> type[Protocol]:
    return _lookup(PROTOCOLS, "protocol", name)


#: words ending in a period that do not end a sentence
_ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "cf.", "vs.", "etc.", "Alg.", "Algs.", "Eq.",
                  "eq.", "eqs.", "Fig.", "Sec.", "Thm.", "No.", "resp.", "approx.")
_RST = (
    (re.compile(r":[\w:.+-]+:`~?([^`<]*?)\s*(?:<[^>]*>)?`"), r"\1"),  # :class:`~a.B` → a.B
    (re.compile(r"``(.+?)``"), r"\1"),                               # ``literal``
    (re.compile(r"`([^`]+?)\s*(?:<[^>]*>)?`_{0,2}"), r"\1"),           # `text <url>`_
    (re.compile(r"\*\*(\S(?:.*?\S)?)\*\*"), r"\1"),                    # **strong**
    (re.compile(r"(?<![\w*])\*(\S(?:[^*]*?\S)?)\*(?![\w*])"), r"\1"),    # *emphasis*
)


def describe(obj: Any) -> str:
    """The first sentence of an object's docstring, on one line, without reST markup
    (what ``streamlearn list`` shows)."""
    doc = inspect.cleandoc(getattr(obj, "__doc__", None) or "")
    text = " ".join(doc.split("\n\n", 1)[0].split())  # the first paragraph
    for pattern, repl in _RST:
        text = pattern.sub(repl, text)
    for m in re.finditer(r"[.!?](?=\s+[A-Z]|$)", text):
        head = text[: m.end()]
        if not head.endswith(_ABBREVIATIONS):
            return head
    return text
