"""Every registered learner × every conformance check (streamlearn.checks), plus registry
audits."""

from __future__ import annotations

import inspect

import pytest

import streamlearn.algorithms
import streamlearn.datasets
from streamlearn import components, registry
from streamlearn.base import Learner, Stream
from streamlearn.checks import yield_checks
from streamlearn.cli.listing import describe

components.load_all()

#: the checks comparing two floating-point paths (fused chunk vs per-sample loop)
FLOAT_PATH_CHECKS = frozenset({"many_equals_loop", "scores_consistent"})


def _cases():
    for name, cls in sorted(registry.ALGORITHMS.items()):
        for i, params in enumerate(cls._test_params()):
            params = dict(params)
            if "seed" in cls._param_names() and "seed" not in params:
                params["seed"] = 0
            for check_name, check in yield_checks(cls):
                marks = [pytest.mark.floatpath] if check_name in FLOAT_PATH_CHECKS else []
                yield pytest.param(cls, params, check, id=f"{name}[{i}]-{check_name}",
                                   marks=marks)


@pytest.mark.parametrize("cls,params,check", list(_cases()))
def test_conformance(cls, params, check):
    # learners behind an optional extra (MOA through CapyMOA) say why they cannot run here
    unavailable = getattr(cls, "unavailable_reason", None)
    reason = unavailable() if callable(unavailable) else None
    if reason:
        pytest.skip(f"{cls.__name__}: {reason}")
    check(cls, params)


def _concrete_subclasses(base: type) -> set[type]:
    out, todo = set(), [base]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if not inspect.isabstract(sub) and not sub.__name__.startswith("_"):
                out.add(sub)
    return out


# Classes that are deliberately not registered, with the reason.
EXCLUDED: dict[str, str] = {}


def test_every_concrete_learner_is_registered_or_excluded():
    registered = set(registry.ALGORITHMS.values())
    for cls in _concrete_subclasses(Learner):
        if not cls.__module__.startswith("streamlearn.") or cls.__module__ == "streamlearn.base":
            continue  # test doubles and the interface classes themselves
        if cls in registered or cls.__name__ in EXCLUDED:
            continue
        # intermediate base classes define no predict_one of their own and are not leaves
        if any(sub.__module__.startswith("streamlearn.") for sub in cls.__subclasses__()):
            continue
        pytest.fail(f"{cls.__module__}.{cls.__name__} is neither registered nor excluded")


def test_every_registered_stream_describes_itself():
    for name, cls in registry.STREAMS.items():
        assert issubclass(cls, Stream), name
        assert describe(cls), f"stream {name!r} has no docstring"


def test_unknown_names_suggest_close_matches():
    from streamlearn.errors import UserError

    with pytest.raises(UserError, match="hoeffding_tree"):
        components.get_algorithm("hoeffding_tre")
    del streamlearn.algorithms, streamlearn.datasets
