"""The reference learners ``majority_class`` and ``no_change``: they follow the rules of
the plain loops (tests/reference/reference_rules.py), pass the conformance checks, and
refuse bad labels with a message."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from streamlearn.algorithms.reference import MajorityClass, NoChange
from streamlearn.checks import run_checks
from streamlearn.components import get_algorithm
from streamlearn.errors import UserError
from tests.reference.reference_rules import majority_class_loop, no_change_loop


def _stream(seed: int, n: int = 300, c: int = 4):
    rng = np.random.default_rng(seed)
    y = rng.choice(c, size=n, p=rng.dirichlet(np.ones(c)))
    X = rng.normal(size=(n, 3))
    return X, y


@pytest.mark.parametrize("cls,rule", [(MajorityClass, lambda y: majority_class_loop(y, 4)),
                                      (NoChange, no_change_loop)])
@pytest.mark.parametrize("seed", range(3))
def test_follows_its_rule_one_by_one_and_in_chunks(cls, rule, seed: int) -> None:
    X, y = _stream(seed)
    one = cls()
    one.reset(X.shape[1], 4)
    loop = []
    for x, label in zip(X, y, strict=True):
        loop.append(one.predict_one(x))
        one.learn_one(x, int(label))
    assert loop == rule(y)
    many = cls()
    many.reset(X.shape[1], 4)
    chunks = [many.predict_learn_many(X[s:s + 41], y[s:s + 41]) for s in range(0, 300, 41)]
    assert_array_equal(np.concatenate(chunks), rule(y))
    assert all(c.dtype == np.int64 for c in chunks)


def test_registered_under_the_issue_names() -> None:
    assert get_algorithm("majority_class") is MajorityClass
    assert get_algorithm("no_change") is NoChange


@pytest.mark.parametrize("cls", [MajorityClass, NoChange])
def test_conformance_checks_pass(cls) -> None:
    results = run_checks(cls)
    failed = [(r.check, r.message) for r in results if not r.ok]
    assert not failed
    assert {"many_equals_loop", "pickle_roundtrip"} <= {r.check for r in results}


@pytest.mark.parametrize("cls", [MajorityClass, NoChange])
def test_bad_labels_are_refused(cls) -> None:
    learner = cls()
    learner.reset(2, 3)
    with pytest.raises(UserError, match="label 3"):
        learner.learn_one(np.zeros(2), 3)
    with pytest.raises(UserError, match=r"outside 0\.\.2"):
        learner.predict_learn_many(np.zeros((2, 2)), np.array([0, -1]))
    with pytest.raises(UserError, match=r"outside 0\.\.2"):
        learner.predict_learn_many(np.zeros((1, 2)), np.array([1.5]))
    with pytest.raises(UserError, match="n_classes"):
        cls().reset(2, None)
