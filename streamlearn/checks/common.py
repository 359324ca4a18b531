"""What every conformance suite shares: the check type, the result of a check, a check's
description in words, the comparison helpers, and the checks every learner passes
whatever its protocol (a docstring, its parameters, known tags).

A check is a function ``check(cls, params)`` that raises ``AssertionError`` (its first
line says what went wrong, in words) when ``cls`` built with ``params`` does not conform;
:func:`described_as` attaches the one-line description ``streamlearn check`` prints.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from streamlearn.base import LEARNER_TAGS

Check = Callable[[type, dict[str, Any]], None]
_C = TypeVar("_C", bound=Callable[..., None])


@dataclass
class CheckResult:
    """Outcome of one conformance check on one parameter set."""

    check: str
    params: dict[str, Any]
    ok: bool
    message: str = ""
    #: what the check verifies, in words (see :func:`description`)
    description: str = ""


def described_as(text: str) -> Callable[[_C], _C]:
    """Decorator: what a check verifies, in words (shown by ``streamlearn check``)."""

    def mark(check: _C) -> _C:
        check.description = text  # type: ignore[attr-defined]
        return check

    return mark


def description(name: str, check: Check) -> str:
    """A check's description: the one :func:`described_as` gave, else the first line of
    its docstring, else its name."""
    text = getattr(check, "description", None)
    if text:
        return str(text)
    doc = (getattr(check, "__doc__", None) or "").strip()
    return doc.split("\n")[0] if doc else name


def n_differ(a: Any, b: Any) -> int:
    """How many of two equally long sequences differ (NaN equals NaN)."""
    a, b = np.asarray(a), np.asarray(b)
    same = a == b
    if a.dtype.kind == "f" and b.dtype.kind == "f":
        same |= np.isnan(a) & np.isnan(b)
    return int(a.size - np.count_nonzero(same))


def assert_same(a: Any, b: Any, what: str) -> None:
    """``a`` and ``b`` are the same array exactly (NaN equals NaN); else an
    ``AssertionError`` saying, in words, ``what`` differs and in how many entries."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, f"{what}: shapes {a.shape} and {b.shape} differ"
    n = n_differ(a, b)
    assert n == 0, f"{what}: {n} of {a.size} entries differ"


@described_as("the class has a docstring (its first line is the description in tables)")
def check_has_docstring(cls: type, params: dict[str, Any]) -> None:
    assert (cls.__doc__ or "").strip(), f"{cls.__name__} has no docstring"


@described_as("get_params() returns the parameters it was built with, and clone() builds "
              "an equal learner")
def check_params_roundtrip(cls: type, params: dict[str, Any]) -> None:
    learner = cls(**params)
    got = learner.get_params()
    for k, v in params.items():
        assert got[k] == v, f"get_params()[{k!r}] = {got[k]!r}, expected {v!r}"
    assert learner.clone().get_params() == got


@described_as("its tags are ones the protocols know")
def check_tags_known(cls: type, params: dict[str, Any]) -> None:
    unknown = set(cls.all_tags()) - set(LEARNER_TAGS)
    assert not unknown, f"unknown tags {sorted(unknown)}; known: {sorted(LEARNER_TAGS)}"
    if "binary_only" in cls.all_tags():
        assert cls.task == "classification", "binary_only on a non-classifier"


def yield_common_checks(cls: type) -> Iterator[tuple[str, Check]]:
    """The checks every learner must pass, whatever protocol runs it."""
    yield "docstring", check_has_docstring
    yield "params_roundtrip", check_params_roundtrip
    yield "tags_known", check_tags_known
