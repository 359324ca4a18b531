"""Learners and streams from outside the package: dotted paths, River estimators, plugins.

A config names a learner either by its registry name or by a dotted path
``module.sub:Class`` (importable from the working directory or the environment)::

    algorithms:
      - name: mypkg.learners:MyLearner          # your own learner, no fork
        params: {lr: 0.1}
      - river: linear_model.LogisticRegression  # any River estimator, through the adapter
        params: {l2: 0.001}

What a dotted path may point at:

* a :class:`streamlearn.base.Learner` subclass: used as it is;
* a River estimator class (``river.base.Classifier``/``Regressor``): wrapped by the River
  adapter of :mod:`streamlearn.algorithms.external.river_baselines` (parameters from River's own
  signature; binary River models get one-vs-rest on multi-class streams);
* any other class with ``predict_one(x)`` and ``learn_one(x, y)`` (and optionally
  ``predict_learn_many(X, y)``, ``reset(n_features, n_classes)``, ``task``, ``tags``): it
  is wrapped so that its ``__init__`` signature gives the parameters (unknown or missing
  names, and values that do not match a simple annotation — ``int``, ``float``, ``bool``,
  ``str``, optionally ``| None`` — are config errors).

A stream's dotted path must point at a :class:`streamlearn.base.Stream` subclass.

Installed packages register names through the entry-point groups ``streamlearn.algorithms``
and ``streamlearn.streams`` (``name = "pkg.module:Class"``); :func:`load_entry_points` adds
them to the registry, and a plugin that fails to import is named when it is looked up.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import os
import sys
import types
import typing
from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np

from streamlearn import registry
from streamlearn.algorithms.external.river_baselines import RiverClassifier
from streamlearn.base import Learner, Protocol, Regressor, Stream
from streamlearn.errors import ConfigError, UserError
from streamlearn.params import _close_matches

__all__ = [
    "ENTRY_POINT_GROUPS",
    "get_algorithm",
    "get_metric",
    "get_protocol",
    "get_stream",
    "is_dotted",
    "load_all",
    "load_entry_points",
    "resolve_algorithm",
    "resolve_stream",
    "river_entry",
]

ENTRY_POINT_GROUPS = {"algorithms": "streamlearn.algorithms", "streams": "streamlearn.streams"}

_resolved: dict[tuple[str, str], type] = {}
#: entry-point names whose plugin failed to load, with the reason (shown on lookup)
BROKEN_PLUGINS: dict[str, str] = {}


def is_dotted(name: Any) -> bool:
    """True when ``name`` is a ``module:attribute`` path rather than a registry name."""
    return isinstance(name, str) and ":" in name


# --------------------------------------------------------------------------------------
# Importing a dotted path
# --------------------------------------------------------------------------------------


def _import_object(path: str, kind: str) -> Any:
    """``pkg.module:Attr.Sub`` → the object. The working directory is importable, as it
    is for ``python -m``; errors name the path and what went wrong."""
    module_name, _, attr = path.partition(":")
    if not module_name or not attr:
        raise UserError(f"{kind} {path!r} is not a dotted path: write 'package.module:Class'.")
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    from streamlearn.interrupts import SigintWatch, user_code_guarded

    with SigintWatch() as interrupt, user_code_guarded():
        try:
            obj: Any = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            raise UserError(
                f"{kind} {path!r}: cannot import module {module_name!r} ({exc}). It must "
                f"be importable from the working directory ({cwd}) or the installed "
                "packages.") from None
        except BaseException as exc:  # the module's code raised (sys.exit() included)
            if interrupt.seen:  # a real Ctrl-C
                raise
            raise UserError(f"{kind} {path!r}: importing {module_name!r} failed with "
                            f"{type(exc).__name__}: {exc}") from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            names = [n for n in dir(obj) if not n.startswith("_")]
            from streamlearn.params import _close_matches

            raise UserError(f"{kind} {path!r}: {module_name!r} has no attribute {part!r}."
                            f"{_close_matches(part, names)}") from None
    return obj


def resolve_algorithm(name: str) -> type[Learner]:
    """The learner class a dotted path names (wrapped when it is not a streamlearn
    learner). The same class object is returned for the same path."""
    key = ("algorithm", name)
    if key not in _resolved:
        _resolved[key] = as_learner_class(_import_object(name, "Algorithm"), name)
    return _resolved[key]


def resolve_stream(name: str) -> type[Stream]:
    """The :class:`~streamlearn.base.Stream` subclass a dotted path names."""
    key = ("stream", name)
    if key not in _resolved:
        obj = _import_object(name, "Stream")
        if not (isinstance(obj, type) and issubclass(obj, Stream)):
            raise UserError(f"Stream {name!r} is not a streamlearn.base.Stream subclass (it "
                            f"is {obj!r}); a stream implements _load() -> (X, y).")
        _resolved[key] = obj
    return _resolved[key]


def as_learner_class(obj: Any, name: str) -> type[Learner]:
    """A streamlearn learner class for ``obj`` (see the module docstring), or a
    :class:`UserError` saying, in words, why ``obj`` is not a learner."""
    if not isinstance(obj, type):
        raise UserError(f"Algorithm {name!r} is {obj!r}, not a class. Point it at a class "
                        "with predict_one(x) and learn_one(x, y).")
    if issubclass(obj, Learner):
        return obj
    river_kind = _river_kind(obj)
    if river_kind is not None:
        return _river_wrapper(obj, name, river_kind)
    missing = [m for m in ("predict_one", "learn_one") if not callable(getattr(obj, m, None))]
    if missing:
        raise UserError(f"Algorithm {name!r} ({obj.__name__}) is not a learner: it has no "
                        f"{' and no '.join(missing)} method. A learner implements "
                        "predict_one(x) -> label and learn_one(x, y) -> None.")
    return _user_wrapper(obj, name)


# --------------------------------------------------------------------------------------
# Parameters from a signature
# --------------------------------------------------------------------------------------


def _signature_params(target: type) -> list[inspect.Parameter]:
    try:
        sig = inspect.signature(target.__init__)  # type: ignore[misc]
    except (TypeError, ValueError):  # pragma: no cover - builtins without signatures
        return []
    return [p for p in sig.parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


_SIMPLE_TYPES: dict[Any, tuple[type, ...]] = {
    int: (int,), float: (int, float), bool: (bool,), str: (str,),
    "int": (int,), "float": (int, float), "bool": (bool,), "str": (str,),
}


def _annotation_types(annotation: Any) -> tuple[tuple[type, ...], bool] | None:
    """``(accepted types, None allowed)`` for a simple annotation, else ``None``."""
    if isinstance(annotation, str):
        parts = [p.strip() for p in annotation.split("|")]
    elif isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        parts = list(typing.get_args(annotation))
    else:
        parts = [annotation]
    accepted: list[type] = []
    allow_none = False
    for part in parts:
        if part in (None, type(None), "None"):
            allow_none = True
        elif part in _SIMPLE_TYPES:
            accepted.extend(_SIMPLE_TYPES[part])
        else:
            return None
    return tuple(accepted), allow_none


def check_signature_params(target: type, params: dict[str, Any], owner: str) -> None:
    """Refuse unknown or missing parameters and values whose simple annotation they break."""
    from streamlearn.params import _close_matches

    sig = _signature_params(target)
    valid = [p.name for p in sig]
    for key in params:
        if key not in valid:
            raise UserError(f"{owner} has no parameter {key!r}.{_close_matches(key, valid)} "
                            f"Valid parameters: {', '.join(valid) or '(none)'}.")
    for p in sig:
        if p.default is p.empty and p.name not in params:
            raise UserError(f"{owner} needs the parameter {p.name!r} (it has no default).")
        if p.name not in params:
            continue
        spec = _annotation_types(p.annotation)
        value = params[p.name]
        if spec is None:
            continue
        accepted, allow_none = spec
        if value is None and allow_none:
            continue
        ok = isinstance(value, accepted) and not (isinstance(value, bool) and bool not in accepted)
        if not ok:
            want = " or ".join(sorted({t.__name__ for t in accepted}) + (["None"] if allow_none
                                                                        else []))
            raise UserError(f"The {p.name!r} parameter of {owner} must be {want}. "
                            f"Got {value!r} instead.")


def _rebuild(name: str, params: dict[str, Any], state: dict[str, Any]) -> Learner:
    """Unpickle a wrapped learner: resolve its path again, then restore its state."""
    cls = resolve_algorithm(name)
    obj = cls.__new__(cls)
    obj.__dict__.update(state)
    return obj


class _Wrapped(Learner):
    """Shared part of the wrappers: parameters are the target's ``__init__`` parameters,
    stored in ``params_``; pickling goes through the dotted path."""

    target: ClassVar[type]
    dotted_path: ClassVar[str]

    def __init__(self, **params: Any) -> None:
        check_signature_params(self.target, params, self.target.__name__)
        self.params_ = dict(params)
        self._check_target(self.params_)

    #: the run's learner seed for nested ``seed`` parameters (:meth:`take_run_seed`)
    run_seed_: int | None = None

    def take_run_seed(self, seed: int) -> None:
        self.run_seed_ = int(seed)

    def _new_target(self) -> Any:
        """A new instance of the wrapped class, built from a deep copy of the parameters:
        a class that changes a list or dict it was given cannot change the next build,
        the config, or the parameters the run's record shows. A class whose constructor
        changes how SIGINT or SIGTERM is handled (ignores Ctrl-C) has the handlers set back
        at once: the run it is built for stays interruptible. A River estimator's nested
        estimators whose ``seed`` is ``None`` take the run's learner seed."""
        from streamlearn.interrupts import set_back_interrupt_handlers

        target = self.target(**copy.deepcopy(self.params_))
        if self.run_seed_ is not None:
            target = river_seeded(target, self.run_seed_)
        set_back_interrupt_handlers()
        return target

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        """The signature's checks, then the target's own ``__init__`` (its rules are its
        code): the target is built, the learner is not."""
        check_signature_params(cls.target, params, cls.target.__name__)
        cls._check_target(params)

    @classmethod
    def _check_target(cls, params: dict[str, Any]) -> None:
        from streamlearn.interrupts import SigintWatch, user_code_guarded

        with SigintWatch() as interrupt, user_code_guarded():
            try:
                cls.target(**copy.deepcopy(params))  # the config's values stay as written
            except UserError:
                raise
            except BaseException as exc:  # SystemExit, its own KeyboardInterrupt: its code
                if interrupt.seen:  # a real Ctrl-C
                    raise
                raise UserError(f"{cls.target.__name__} rejected these parameters: "
                                f"{type(exc).__name__}: {exc}") from None

    @classmethod
    def _init_params(cls) -> list[inspect.Parameter]:
        return [p.replace(kind=p.KEYWORD_ONLY) for p in _signature_params(cls.target)]

    @classmethod
    def check_param_names(cls, params: dict[str, Any]) -> None:
        check_signature_params(cls.target, params, cls.target.__name__)

    def get_params(self) -> dict[str, Any]:
        return dict(self.params_)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params_.items())
        return f"{self.target.__name__}({args})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.dotted_path, self.params_, dict(self.__dict__)))

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        custom = getattr(cls.target, "_test_params", None)
        if callable(custom):
            yield from custom()
        else:
            yield {}


# --------------------------------------------------------------------------------------
# Plain user classes
# --------------------------------------------------------------------------------------


class _UserLearnerBase(_Wrapped):
    """A plain class with ``predict_one``/``learn_one``; built afresh in ``reset``."""

    def reset(self, n_features: int, n_classes: int | None) -> None:
        self.model_ = self._new_target()
        reset = getattr(self.model_, "reset", None)
        if callable(reset):
            reset(n_features, n_classes)
        self.n_classes_ = n_classes

    def predict_one(self, x: np.ndarray) -> Any:
        # as it is: the engine checks it (None, NaN, 2.5, a label out of range fail the run)
        return self.model_.predict_one(x)

    def learn_one(self, x: np.ndarray, y: Any) -> None:
        self.model_.learn_one(x, y)

    def add_class(self) -> None:
        """The class's own ``add_class()`` (one more class mid-stream, as the River and
        CapyMOA wrappers of :mod:`streamlearn.interop` ask); ``NotImplementedError``
        without one."""
        grow = getattr(self.model_, "add_class", None)
        if not callable(grow):
            raise NotImplementedError(f"{self.target.__name__} has no add_class()")
        grow()
        if self.n_classes_ is not None:
            self.n_classes_ += 1

    def warm_up(self, X: np.ndarray, y: np.ndarray) -> None:
        """The class's own ``warm_up(X, y)`` if it has one, on a fresh instance (see
        :meth:`streamlearn.base.Learner.warm_up`): e.g. to compile its numba kernels
        before the timed run."""
        if callable(getattr(self.target, "warm_up", None)):
            self._new_target().warm_up(X, y)

    def model_bytes(self) -> int:
        model = getattr(self, "model_", None)
        if model is None:
            return 0
        return int(sum(v.nbytes for v in vars(model).values() if isinstance(v, np.ndarray)))


class _UserLearnerMany(_UserLearnerBase):
    def predict_learn_many(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        return self.model_.predict_learn_many(X, y)  # checked by the engine, not converted


def _user_wrapper(obj: type, name: str) -> type[Learner]:
    task = getattr(obj, "task", "classification")
    if task not in ("classification", "regression"):
        raise UserError(f"Algorithm {name!r}: task must be 'classification' or "
                        f"'regression', got {task!r}.")
    base = _UserLearnerMany if callable(getattr(obj, "predict_learn_many", None)) \
        else _UserLearnerBase
    doc = inspect.getdoc(obj) or ""
    # named and placed like the user's class (what error messages and checks show);
    # pickling goes through __reduce__ and the dotted path, never the class's name
    return type(obj.__name__, (base,), {
        "__doc__": doc,
        "__module__": obj.__module__,
        "__qualname__": obj.__qualname__,
        "target": obj,
        "dotted_path": name,
        "task": task,
        "tags": frozenset(getattr(obj, "tags", frozenset())),
        "registry_name": name,
    })


# --------------------------------------------------------------------------------------
# River estimators
# --------------------------------------------------------------------------------------


def _seeded_params(params: dict[str, Any], seed: int) -> dict[str, Any] | None:
    """River's ``_get_params()`` of a nested estimator with every ``seed`` left at ``None``
    (at any depth; a nested estimator is ``(class, params)``) set to ``seed``; ``None``
    when there is none to set."""
    out, changed = dict(params), False
    for key, value in params.items():
        if key == "seed" and value is None:
            out[key], changed = seed, True
        elif (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], type)
              and isinstance(value[1], dict)):
            inner = _seeded_params(value[1], seed)
            if inner is not None:
                out[key], changed = (value[0], inner), True
    return out if changed else None


def river_seeded(model: Any, seed: int) -> Any:
    """``model`` with the ``seed`` of its nested estimators that were left at ``None`` set
    to ``seed`` (River's ``clone``), e.g. ``KNNClassifier``'s SWINN engine; ``model``
    itself when there is none (its own ``seed`` is a parameter the runner sets)."""
    get = getattr(model, "_get_params", None)
    if get is None:
        return model
    params = get()
    nested = {k: v for k, v in params.items() if k != "seed"}
    seeded = _seeded_params(nested, seed)
    if seeded is None:
        return model
    return model.clone({k: v for k, v in seeded.items() if seeded[k] is not nested[k]})


def _river_kind(obj: type) -> str | None:
    """``"classification"``/``"regression"`` for River estimator classes, else None."""
    if not getattr(obj, "__module__", "").startswith("river."):
        return None
    try:
        from river import base as river_base
    except ImportError:  # pragma: no cover - River is a dependency
        return None
    if issubclass(obj, river_base.Classifier):
        return "classification"
    if issubclass(obj, river_base.Regressor):
        return "regression"
    return None


class _RiverClassifierBase(_Wrapped, RiverClassifier):
    """Any River classifier by dotted path, through the River adapter's conventions
    (dict features, int labels, class 0 before River has learned anything; binary River
    models get one-vs-rest on multi-class streams)."""

    def _make_model(self, n_features: int, n_classes: int) -> Any:
        model = self._new_target()
        # an instance attribute read by RiverClassifier.reset, shadowing the class default
        self.binary_only = not getattr(model, "_multiclass", True)  # type: ignore[misc]
        return model


class _RiverRegressorBase(_Wrapped, Regressor):
    """Any River regressor by dotted path (dict features, float targets)."""

    def reset(self, n_features: int, n_classes: int | None) -> None:
        self.model_ = self._new_target()
        self.keys_ = list(range(int(n_features)))

    def predict_one(self, x: np.ndarray) -> float:
        y = self.model_.predict_one(dict(zip(self.keys_, x.tolist(), strict=True)))
        return 0.0 if y is None else float(y)

    def learn_one(self, x: np.ndarray, y: Any) -> None:
        self.model_.learn_one(dict(zip(self.keys_, x.tolist(), strict=True)), float(y))


def _river_wrapper(obj: type, name: str, kind: str) -> type[Learner]:
    base = _RiverClassifierBase if kind == "classification" else _RiverRegressorBase
    doc = (inspect.getdoc(obj) or "").split("\n")[0] or obj.__name__
    return type(obj.__name__, (base,), {
        "__doc__": f"River's {obj.__module__.split('.')[1]}.{obj.__name__}: {doc}",
        "__module__": obj.__module__,
        "__qualname__": obj.__qualname__,
        "target": obj,
        "dotted_path": name,
        "registry_name": name,
    })


def river_entry(d: dict[str, Any], path: str) -> dict[str, Any]:
    """A config entry ``{river: linear_model.LogisticRegression, ...}`` as an ordinary
    entry whose ``name`` is the dotted path ``river.linear_model:LogisticRegression``."""

    if "name" in d:
        raise ConfigError.at(f"{path}.river", "give either 'name' or 'river', not both.")
    value = d["river"]
    if not isinstance(value, str) or "." not in value.strip(".") or ":" in value:
        raise ConfigError.at(f"{path}.river", f"expected River's module and class, e.g. "
                    f"'linear_model.LogisticRegression', got {value!r}.")
    module, _, cls = value.rpartition(".")
    out = {k: v for k, v in d.items() if k != "river"}
    out["name"] = f"river.{module}:{cls}"
    out.setdefault("label", value)
    return out


# --------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------


def load_entry_points(algorithms: dict[str, type], streams: dict[str, type]) -> None:
    """Add the learners and streams that installed packages declare in the entry-point
    groups ``streamlearn.algorithms`` and ``streamlearn.streams``. A name already in the
    registry is not replaced (the plugin is reported as broken instead); a plugin that
    fails to import is remembered in :data:`BROKEN_PLUGINS` and named on lookup."""
    from importlib.metadata import entry_points

    for kind, table in (("algorithms", algorithms), ("streams", streams)):
        for ep in entry_points(group=ENTRY_POINT_GROUPS[kind]):
            if ep.name in table:
                if getattr(table[ep.name], "dotted_path", None) != ep.value:
                    BROKEN_PLUGINS[ep.name] = (f"entry point {ep.value!r} wants the name "
                                               f"{ep.name!r}, which is already taken")
                continue
            try:
                if kind == "algorithms":
                    cls: type = resolve_algorithm(ep.value)
                else:
                    cls = resolve_stream(ep.value)
            except UserError as exc:
                BROKEN_PLUGINS[ep.name] = str(exc)
                continue
            table[ep.name] = cls


# --------------------------------------------------------------------------------------
# Optional entries
# --------------------------------------------------------------------------------------


def drop_unavailable(raw_algos: list[Any]) -> tuple[list[Any], tuple[str, ...]]:
    """Config algorithm entries without the ``optional`` key, leaving out the optional ones
    whose learner cannot run here (its ``unavailable_reason()``, e.g. MOA without CapyMOA
    or Java), with a note for each. Entries that do not resolve are kept, so that the
    usual validation error names them."""

    kept: list[Any] = []
    notes: list[str] = []
    for i, entry in enumerate(raw_algos):
        if not isinstance(entry, dict) or "optional" not in entry:
            kept.append(entry)
            continue
        optional = entry["optional"]
        if not isinstance(optional, bool):
            raise ConfigError.at(f"algorithms[{i}].optional", f"expected true or false, got "
                        f"{optional!r}.")
        entry = {k: v for k, v in entry.items() if k != "optional"}
        name = entry.get("name")
        if optional and isinstance(name, str):
            try:
                cls = get_algorithm(name)
            except UserError:
                cls = None
            unavailable = getattr(cls, "unavailable_reason", None)
            reason = unavailable() if callable(unavailable) else None
            if reason:
                notes.append(f"Left out {entry.get('label', name)!r} (optional): {reason}.")
                continue
        kept.append(entry)
    return kept, tuple(notes)


# --------------------------------------------------------------------------------------
# Looking a name up: registry names, dotted paths, plugins
# --------------------------------------------------------------------------------------


_plugins_loaded = False


def load_all() -> None:
    """Register every built-in entry, then the learners and streams of installed packages
    (entry-point groups ``streamlearn.algorithms`` and ``streamlearn.streams``), after the
    built-in ones so that those keep their names (idempotent)."""
    global _plugins_loaded
    registry.load_builtins()
    if not _plugins_loaded:
        _plugins_loaded = True
        load_entry_points(registry.ALGORITHMS, registry.STREAMS)


def _lookup(table: dict[str, Any], kind: str, name: str) -> Any:
    load_all()
    if not isinstance(name, str) or name not in table:
        choices = sorted(table)
        hint = _close_matches(str(name), choices)
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
    :mod:`streamlearn.components`)."""
    if isinstance(name, str) and ":" in name:
        load_all()
        return resolve_algorithm(name)
    return _lookup(registry.ALGORITHMS, "algorithm", name)


def get_stream(name: str) -> type[Stream]:
    """A registered stream, or a Stream subclass by dotted path ``module:Class``."""
    if isinstance(name, str) and ":" in name:
        load_all()
        return resolve_stream(name)
    return _lookup(registry.STREAMS, "stream", name)


def get_metric(name: str) -> Any:
    return _lookup(registry.METRICS, "metric", name)


def get_protocol(name: str) -> type[Protocol]:
    return _lookup(registry.PROTOCOLS, "protocol", name)
