"""What the River and CapyMOA wrappers share: which streamlearn learner they run, whether
it is binary, how it takes a new class, and its scores as probabilities.

No other library is imported here.
"""

from __future__ import annotations

import inspect
import math
from typing import Any

import numpy as np

from streamlearn import components
from streamlearn.base import Learner
from streamlearn.errors import UserError

__all__ = [
    "add_class",
    "check_params",
    "is_binary",
    "learner_class",
    "learner_parameters",
    "score_kind",
    "sigmoid",
    "softmax",
]

#: tags a learner may carry and still run in a plain test-then-train loop of one sample at
#: a time (every other tag asks for a protocol of streamlearn's own)
_LOOP_TAGS = frozenset({"binary_only", "scores", "reference"})

_by_class: dict[type, type[Learner]] = {}


def learner_class(name_or_class: str | type) -> type[Learner]:
    """The streamlearn classifier class that ``name_or_class`` names: a registered name
    (``"online_bls_fast"``), a dotted path ``"module:Class"``, or a class (a
    :class:`~streamlearn.base.Learner`, or any class with ``predict_one``/``learn_one``,
    wrapped as ``streamlearn run`` wraps it). Regressors and learners that need one of
    streamlearn's own protocols are refused with the reason (``ValueError``)."""
    if isinstance(name_or_class, str):
        try:
            cls = components.get_algorithm(name_or_class)
        except UserError as exc:
            raise ValueError(str(exc)) from None
    elif isinstance(name_or_class, type):
        if issubclass(name_or_class, Learner):
            cls = name_or_class
        else:
            if name_or_class not in _by_class:
                path = f"{name_or_class.__module__}:{name_or_class.__qualname__}"
                try:
                    _by_class[name_or_class] = components.as_learner_class(name_or_class, path)
                except UserError as exc:
                    raise ValueError(str(exc)) from None
            cls = _by_class[name_or_class]
    else:
        raise TypeError(f"name_or_class must be a learner name, a 'module:Class' path or a "
                        f"class; got {name_or_class!r}.")
    if cls.task != "classification":
        raise ValueError(f"{cls.__name__} is a {cls.task} learner; these wrappers run "
                         "classifiers.")
    other = sorted(cls.all_tags() - _LOOP_TAGS)
    if other:
        raise ValueError(f"{cls.__name__} is tagged {', '.join(map(repr, other))}: it needs a "
                         "protocol of streamlearn's own (streamlearn run), not a plain "
                         "test-then-train loop.")
    return cls


def learner_parameters(cls: type[Learner]) -> list[inspect.Parameter]:
    """The learner's parameters (keyword-only, with their defaults), from its
    ``__init__`` up the classes it forwards ``**kwargs`` to."""
    init_params = getattr(cls, "_init_params", None)
    found = init_params() if callable(init_params) else []
    return [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in found]


def check_params(cls: type[Learner], params: dict[str, Any]) -> None:
    """Check the parameters as a config's are checked, then build the learner once, so
    that an unknown name or a bad value fails where the wrapper is made (``ValueError``
    with streamlearn's message), not at its first sample."""
    try:
        cls.check_params(params)  # names (with the close matches), required ones, values
        cls(**params)
    except UserError as exc:
        raise ValueError(str(exc)) from None


def is_binary(cls: type[Learner]) -> bool:
    """True for learners of two classes only (tag ``binary_only``)."""
    return "binary_only" in cls.all_tags()


def score_kind(cls: type[Learner]) -> str | None:
    """``"vector"`` when the learner gives one score per class (``predict_scores_one``),
    ``"margin"`` for a binary learner whose real score's sign is its prediction (tag
    ``scores``: ``last_score_`` after ``predict_one``), ``None`` otherwise."""
    if callable(getattr(cls, "predict_scores_one", None)):
        return "vector"
    tags = cls.all_tags()
    if "scores" in tags and "binary_only" in tags:
        return "margin"
    return None


def add_class(learner: Learner, label: Any, known: list[Any]) -> None:
    """Grow ``learner`` by one class (its ``add_class()``), or refuse with a ``ValueError``
    that says how to go on: give the classes up front."""
    grow = getattr(learner, "add_class", None)
    reason = "it has no add_class()"
    if callable(grow):
        try:
            grow()
            return
        except NotImplementedError as exc:
            reason = str(exc)
    raise ValueError(
        f"{type(learner).__name__} cannot take the new class {label!r} mid-stream "
        f"({reason}); it knows {known!r}. Give every class up front: classes=(...).")


def softmax(s: np.ndarray) -> np.ndarray:
    """``exp(s) / Σ exp(s)``, computed without overflow: a monotone map of the scores to
    probabilities (its argmax is the scores' argmax); not a calibration."""
    e = np.exp(s - s.max())
    return e / e.sum()


def sigmoid(f: float) -> float:
    """``1 / (1 + exp(-f))`` without overflow, the probability of the positive class from
    a margin ``f`` (0.5 at ``f = 0``)."""
    return 0.5 * (1.0 + math.tanh(0.5 * f))
