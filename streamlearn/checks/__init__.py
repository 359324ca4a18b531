"""Conformance checks of learners, dispatched on their tags (River's ``checks`` idea).

Every learner passes the common checks (:mod:`streamlearn.checks.common`), then the suite
its tags ask for: a protocol that introduces a tag may name the suite of the learners
carrying it (:attr:`streamlearn.base.LearnerTag.checks`, ``"module:function"``), e.g. the
``incremental-nodes`` protocol names :mod:`streamlearn.checks.node_learners` for
``grows_on_split``; a learner whose tags name no suite gets the prequential one
(:mod:`streamlearn.checks.learners`). A new protocol with its own learners adds its suite
where it declares its tag; nothing here changes.

:func:`yield_checks` gives the ``(name, check)`` pairs, :func:`run_checks` runs them and
returns :class:`CheckResult`\\ s (what ``streamlearn check`` prints).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import Any

from streamlearn import registry
from streamlearn.base import protocol_tags
from streamlearn.checks.common import Check, CheckResult, description, yield_common_checks
from streamlearn.checks.learners import yield_prequential_checks
from streamlearn.interrupts import SigintWatch, user_code_guarded

__all__ = ["Check", "CheckResult", "check_suites", "run_checks", "yield_checks"]

Suite = Callable[[type], Iterator[tuple[str, Check]]]


def _load_suite(path: str, tag: str) -> Suite:
    """The suite function ``"module:function"`` names; a suite that cannot be loaded is
    one failing check saying why."""
    module, _, name = path.partition(":")
    try:
        suite = getattr(importlib.import_module(module), name)
    except Exception as exc:
        why = f"the conformance suite {path!r} of tag {tag!r} cannot be loaded: " \
              f"{type(exc).__name__}: {exc}"

        def unavailable(cls: type, params: dict[str, Any]) -> None:
            raise AssertionError(why)

        return lambda cls: iter([("check_suite", unavailable)])
    return suite


def check_suites(cls: type) -> list[Suite]:
    """The suites a learner's tags ask for (in the order of the tags' names), or the
    prequential suite when none does."""
    registry.load_builtins()  # the built-in protocols declare their tags
    tags = cls.all_tags()
    named = {t.checks: tag for tag, t in sorted(protocol_tags().items())
             if tag in tags and t.checks}
    if not named:
        return [yield_prequential_checks]
    return [_load_suite(path, tag) for path, tag in named.items()]


def yield_checks(cls: type) -> Iterator[tuple[str, Check]]:
    """The checks that apply to a learner class: the common ones, then its suites."""
    yield from yield_common_checks(cls)
    for suite in check_suites(cls):
        yield from suite(cls)


def run_checks(cls: type, params: dict[str, Any] | None = None) -> list[CheckResult]:
    """Every check of :func:`yield_checks` on every ``_test_params()`` set of ``cls`` (or
    on ``params`` alone, when given); a failing or raising check is a result (its message
    says what went wrong), not an exception."""
    out: list[CheckResult] = []
    try:
        param_sets = ([dict(params)] if params is not None
                      else [dict(p) for p in cls._test_params()])
    except Exception as exc:
        return [CheckResult("test_params", {}, False, f"_test_params() raised "
                            f"{type(exc).__name__}: {exc}",
                            "_test_params() gives the parameter sets of the checks")]
    for params in param_sets:
        if "seed" in cls._param_names() and "seed" not in params:
            params["seed"] = 0
        for name, check in yield_checks(cls):
            what = description(name, check)
            with SigintWatch() as interrupt, user_code_guarded():
                try:
                    check(cls, params)
                except AssertionError as exc:
                    out.append(CheckResult(name, params, False,
                                           str(exc).strip().split("\n")[0]
                                           or "assertion failed", what))
                except BaseException as exc:  # SystemExit, its own KeyboardInterrupt, ...
                    if interrupt.seen:  # a real Ctrl-C stops the checks
                        raise
                    out.append(CheckResult(name, params, False,
                                           f"raised {type(exc).__name__}: {exc}", what))
                else:
                    out.append(CheckResult(name, params, True, "", what))
    return out
