"""streamlearn.checks picks a learner's suite by the tags registered protocols declare."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np
import pytest

from streamlearn import registry
from streamlearn.base import LEARNER_TAGS, Classifier, LearnerTag, Protocol, protocol_tags
from streamlearn.checks import check_suites, run_checks, yield_checks
from streamlearn.checks.common import Check, description
from streamlearn.checks.learners import yield_prequential_checks


class _Tagged(Classifier):
    """A classifier tagged with the test protocol's tag."""

    tags = frozenset({"dispatch_test_tag"})

    def reset(self, n_features: int, n_classes: int | None) -> None:
        pass

    def predict_one(self, x: np.ndarray) -> int:
        return 0

    def learn_one(self, x: np.ndarray, y: Any) -> None:
        pass


def _suite(cls: type) -> Iterator[tuple[str, Check]]:
    def always_passes(cls: type, params: dict[str, Any]) -> None:
        """the learner exists"""

    yield "exists", always_passes


@pytest.fixture
def protocol_named(request):
    """A protocol introducing ``dispatch_test_tag`` whose suite is ``request.param``,
    registered for one test."""

    class _Proto(Protocol):
        introduces_tags: ClassVar[dict[str, LearnerTag]] = {
            "dispatch_test_tag": LearnerTag("a tag of this test", checks=request.param)}

    registry.register_protocol("dispatch-test")(_Proto)
    yield _Proto
    registry.PROTOCOLS.pop("dispatch-test")
    del _Proto.registry_name


def test_a_tag_is_known_while_its_protocol_is_registered():
    class _Proto(Protocol):
        introduces_tags: ClassVar[dict[str, LearnerTag]] = {
            "dispatch_test_tag": LearnerTag("a tag of this test")}

    assert "dispatch_test_tag" not in LEARNER_TAGS  # defined, not registered
    registry.register_protocol("dispatch-test")(_Proto)
    try:
        assert LEARNER_TAGS["dispatch_test_tag"] == "a tag of this test"
        assert protocol_tags()["dispatch_test_tag"].checks is None
        assert check_suites(_Tagged) == [yield_prequential_checks]  # names no suite
        why = registry.PROTOCOLS["prequential-classification"]().incompatibility(_Tagged)
        assert why == ("it is tagged 'dispatch_test_tag' (a tag of this test): use a "
                       "protocol that runs such learners")
        assert _Proto().incompatibility(_Tagged) is None
    finally:
        registry.PROTOCOLS.pop("dispatch-test")
        del _Proto.registry_name
    assert "dispatch_test_tag" not in LEARNER_TAGS
    assert registry.PROTOCOLS["prequential-classification"]().incompatibility(_Tagged) is None


@pytest.mark.parametrize("protocol_named", [f"{__name__}:_suite"], indirect=True)
def test_the_suite_a_tag_names_replaces_the_prequential_one(protocol_named):
    names = [n for n, _ in yield_checks(_Tagged)]
    assert names == ["docstring", "params_roundtrip", "tags_known", "exists"]
    results = run_checks(_Tagged)
    assert all(r.ok for r in results)
    assert results[-1].description == "the learner exists"  # the docstring's first line


@pytest.mark.parametrize("protocol_named", ["no_such_module_xyz:suite"], indirect=True)
def test_a_suite_that_cannot_be_loaded_is_a_failed_check(protocol_named):
    (failed,) = [r for r in run_checks(_Tagged) if not r.ok]
    assert failed.check == "check_suite"
    assert failed.message.startswith("the conformance suite 'no_such_module_xyz:suite' of "
                                     "tag 'dispatch_test_tag' cannot be loaded: "
                                     "ModuleNotFoundError")


def test_descriptions_fall_back_to_the_name():
    def bare(cls: type, params: dict[str, Any]) -> None:
        pass

    assert description("bare", bare) == "bare"
