"""`streamlearn check`'s fused-path check (many_equals_loop) fails a ``predict_learn_many``
that is off by one sample, classification and regression alike: on the easy blobs it had
checked on, a class-mean classifier that never learns a chunk's last row predicted what
its loop did, and passed (exit 0). The registry's learners all pass it
(``tests/checks/test_conformance.py``)."""

from __future__ import annotations

import pytest

from streamlearn import components
from streamlearn.checks.learners import check_many_equals_loop
from tests.cli_helpers import run_cli

MODULE = "tests.checks.broken_fused"


@pytest.mark.parametrize("name", ["PeeksClassifier", "SkipsLastClassifier",
                                  "PeeksRegressor", "SkipsLastRegressor"])
def test_a_fused_path_off_by_one_sample_fails(name):
    cls = components.get_algorithm(f"{MODULE}:{name}")
    with pytest.raises(AssertionError, match=r"predict_learn_many over chunks of 37 "
                                             r"predicts differently"):
        check_many_equals_loop(cls, {})


@pytest.mark.parametrize("name", ["RightClassifier", "RightRegressor"])
def test_the_same_learners_with_a_correct_fused_path_pass(name):
    check_many_equals_loop(components.get_algorithm(f"{MODULE}:{name}"), {})


def test_streamlearn_check_says_which_check_fails(capsys):
    rc, text = run_cli(["check", f"{MODULE}:SkipsLastClassifier"], capsys)
    flat = " ".join(text.split())
    assert rc == 1, text
    assert "FAIL many_equals_loop" in flat and "9 of 10 checks passed" in flat, text
