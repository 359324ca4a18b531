"""Parameters of learners, streams and protocols: constraints declared as data (the
scikit-learn ``_parameter_constraints`` idea) and :class:`Base`, which reads the
parameters from the ``__init__`` signature, checks them without building the object
(:meth:`Base.check_params`), validates, clones and prints them."""

from __future__ import annotations

import copy
import inspect
import math
import numbers
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from streamlearn.errors import UserError

# --------------------------------------------------------------------------------------
# Parameter constraints (the scikit-learn ``_parameter_constraints`` idea, as data)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Interval:
    """Numeric range constraint; ``integer=True`` also requires an int."""

    low: float | None = None
    high: float | None = None
    closed: str = "both"  # "both", "left", "right", "neither"
    integer: bool = False
    allow_none: bool = False

    def check(self, value: Any) -> str | None:
        if value is None and self.allow_none:
            return None
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return f"must be {'an integer' if self.integer else 'a number'}"
        if self.integer and not isinstance(value, numbers.Integral):
            return "must be an integer"
        if isinstance(value, float) and not math.isfinite(value):
            return "must be finite"
        try:
            value = float(value)
        except OverflowError:
            return f"must be {self.describe()}"
        lo_ok = self.low is None or (
            value >= self.low if self.closed in ("both", "left") else value > self.low
        )
        hi_ok = self.high is None or (
            value <= self.high if self.closed in ("both", "right") else value < self.high
        )
        if lo_ok and hi_ok:
            return None
        return f"must be {self.describe()}"

    def describe(self) -> str:
        left = "[" if self.closed in ("both", "left") else "("
        right = "]" if self.closed in ("both", "right") else ")"
        lo = "-inf" if self.low is None else f"{self.low:g}"
        hi = "inf" if self.high is None else f"{self.high:g}"
        kind = "an integer" if self.integer else "a number"
        return f"{kind} in {left}{lo}, {hi}{right}"


@dataclass(frozen=True)
class Options:
    """Value must be one of a fixed set."""

    choices: tuple[Any, ...]

    def check(self, value: Any) -> str | None:
        if value in self.choices:
            return None
        return "must be one of " + ", ".join(repr(c) for c in self.choices)

    def describe(self) -> str:
        return "one of " + ", ".join(repr(c) for c in self.choices)


@dataclass(frozen=True)
class OfType:
    """Value must be an instance of the given type(s)."""

    types: tuple[type, ...]
    allow_none: bool = False

    def check(self, value: Any) -> str | None:
        if value is None and self.allow_none:
            return None
        if isinstance(value, bool) and bool not in self.types:
            return f"must be of type {self.describe()}"
        if isinstance(value, self.types):
            return None
        return f"must be of type {self.describe()}"

    def describe(self) -> str:
        return " or ".join(t.__name__ for t in self.types)


Constraint = Interval | Options | OfType


def _close_matches(word: str, choices: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(word, choices, n=3, cutoff=0.5)
    return f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""


# --------------------------------------------------------------------------------------
# Base with parameter introspection
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AnyOf:
    """The value must satisfy at least one of several constraints."""

    constraints: tuple[Any, ...]

    def check(self, value: Any) -> str | None:
        if any(c.check(value) is None for c in self.constraints):
            return None
        return "must be " + self.describe()

    def describe(self) -> str:
        return " or ".join(c.describe() for c in self.constraints)


class Base:
    """Parameters from the ``__init__`` signature; ``clone``; validation; a readable repr."""

    _constraints: ClassVar[dict[str, Constraint]] = {}

    @classmethod
    def _init_params(cls) -> list[inspect.Parameter]:
        """Keyword parameters of ``__init__``. Where an ``__init__`` takes ``**kwargs`` and
        passes them on to ``super().__init__``, the walk goes on up the MRO, so a subclass
        declares only its own parameters (and those whose default it changes)."""
        found: dict[str, inspect.Parameter] = {}
        for klass in cls.__mro__:
            init = klass.__dict__.get("__init__")
            if init is None:
                continue
            forwards = False
            for p in inspect.signature(init).parameters.values():
                if p.kind is p.VAR_KEYWORD:
                    forwards = True
                elif p.name != "self" and p.kind is not p.VAR_POSITIONAL:
                    found.setdefault(p.name, p)
            if not forwards:
                break
        return list(found.values())

    @classmethod
    def _param_names(cls) -> list[str]:
        return [p.name for p in cls._init_params()]

    @classmethod
    def default_params(cls) -> dict[str, Any]:
        empty = inspect.Parameter.empty
        return {p.name: p.default for p in cls._init_params() if p.default is not empty}

    def get_params(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._param_names()}

    def clone(self, **overrides: Any) -> Base:
        params = copy.deepcopy(self.get_params())
        params.update(overrides)
        return type(self)(**params)

    def _validate_params(self) -> None:
        """Check the parameters as stored (``__init__`` calls it last):
        :meth:`_check_param_values` on this object's attributes."""
        type(self)._check_param_values(_StoredParams(self))

    @classmethod
    def _check_param_values(cls, values: Mapping[str, Any]) -> None:
        """Raise a ``UserError`` for the first value in ``values`` (parameter name →
        value, every parameter present) that breaks ``_constraints``. A class with a rule
        over several parameters extends it (``super()`` first), so that the rule holds
        both when it is built and when a config is checked (:meth:`check_params`)."""
        for name, constraint in cls._constraints.items():
            value = values[name]
            problem = constraint.check(value)
            if problem is not None:
                raise UserError(
                    f"The {name!r} parameter of {cls.__name__} {problem}. "
                    f"Got {value!r} instead."
                )

    @classmethod
    def check_param_names(cls, params: dict[str, Any]) -> None:
        """Raise a ``UserError`` naming any unknown parameter and the valid ones."""
        valid = cls._param_names()
        for key in params:
            if key not in valid:
                raise UserError(
                    f"{cls.__name__} has no parameter {key!r}."
                    f"{_close_matches(key, valid)} Valid parameters: {', '.join(valid)}."
                )

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        """Raise the ``UserError`` that ``cls(**params)`` would raise for these
        parameters, without building anything: unknown names, a missing required one,
        then the given-or-default values against :meth:`_check_param_values`. The config
        check calls it, so that a learner is built once, by its run."""
        cls.check_param_names(params)
        for p in cls._init_params():
            if p.default is p.empty and p.name not in params:
                raise UserError(f"{cls.__name__} needs the parameter {p.name!r} (it has no "
                                "default).")
        cls._check_param_values({**cls.default_params(), **params})

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def _memory_arrays(self) -> Iterator[np.ndarray]:
        for value in vars(self).values():
            if isinstance(value, np.ndarray):
                yield value

    def model_bytes(self) -> int:
        """Bytes held in NumPy arrays of the learned state (a model-size measure)."""
        return int(sum(a.nbytes for a in self._memory_arrays()))


class _StoredParams(Mapping[str, Any]):
    """An object's stored parameters as a read-only mapping (name → attribute)."""

    def __init__(self, obj: Base) -> None:
        self._obj = obj

    def __getitem__(self, name: str) -> Any:
        return getattr(self._obj, name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._obj._param_names())

    def __len__(self) -> int:
        return len(self._obj._param_names())
