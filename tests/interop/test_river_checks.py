"""River's own estimator checks (``river.checks``) on every wrapped built-in classifier
and on the short names: repr/clone/parameter round trips, pickling, feature order and
emerging or disappearing features, purity of learn/predict, seen labels, probabilities,
seeding, bounded memory."""

from __future__ import annotations

import pytest
from river import checks

from streamlearn import registry
from streamlearn.interop.river import FORKS, OnlineBLS, OnlineBLSAda, StreamlearnClassifier
from tests.interop.learners import EXCLUDED, checked, classifiers, small_params


def _run_checks(model: StreamlearnClassifier) -> None:
    """``river.checks.check_estimator`` (the wrappers skip none of its checks), one check
    at a time so that a failure names its check."""
    assert model._unit_test_skips() == set()
    for check in checks.yield_checks(model):
        try:
            check(model.clone())
        except Exception as exc:
            raise AssertionError(f"{check.__name__} failed: {type(exc).__name__}: "
                                 f"{exc}") from exc


def test_every_classifier_is_checked_or_excluded_with_a_reason() -> None:
    names = classifiers()
    assert {"online_bls_fast", "online_bls_ada_fast", "forks", "skegd", "pros_n_kons",
            "nogd", "bogd", "bpa_s", "fogd", "projectron", "rbp", "rls"} <= set(checked())
    assert set(EXCLUDED) <= set(registry.ALGORITHMS), "an exclusion names no learner"
    assert all(reason.strip() for reason in EXCLUDED.values())
    assert set(names) == set(checked()) | (set(EXCLUDED) & set(names))


@pytest.mark.parametrize("name", checked())
def test_check_estimator_on_wrapped_learner(name: str) -> None:
    _run_checks(StreamlearnClassifier(name, **small_params(name)))


@pytest.mark.parametrize("short", [OnlineBLS, OnlineBLSAda, FORKS], ids=lambda c: c.__name__)
def test_check_estimator_on_short_names(short: type) -> None:
    for params in short._unit_test_params():
        _run_checks(short(**params))
