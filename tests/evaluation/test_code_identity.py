"""The process that computes a run runs the code the run was planned with: streamlearn's
source and a user's learner's file, as loaded (:mod:`streamlearn.evaluation.code_identity`).
A worker with another copy is tested on a Dask cluster in ``test_dask_backend.py``."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import pytest
import yaml

from streamlearn.config import load_config
from streamlearn.evaluation.code_identity import (
    code_mismatch,
    streamlearn_source_sha256,
    user_code_sha256,
)
from streamlearn.evaluation.runs import compute_run, plan_runs
from tests.cli_helpers import forget_module, user_module

LEARNER = '''
class Constant:
    """Predicts class 0."""

    def predict_one(self, x):
        return 0

    def learn_one(self, x, y):
        pass
'''


@pytest.fixture
def spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    cfg = {"name": "code", "streams": [{"name": "sea", "label": "SEA", "max_samples": 200}],
           "algorithms": [{"name": "code_identity_learner:Constant", "label": "Mine"}],
           "metrics": ["oca"], "outputs": {"dir": str(tmp_path / "out"), "plots": []}}
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    with user_module(tmp_path, monkeypatch, "code_identity_learner", LEARNER):
        (run,) = plan_runs(load_config(tmp_path / "cfg.yaml"))
        yield run


def test_a_planned_run_carries_both_hashes_and_computes(spec):
    assert spec.code_sha256 == hashlib.sha256(LEARNER.encode()).hexdigest()
    assert spec.streamlearn_sha256 == streamlearn_source_sha256()
    assert "streamlearn_sha256" not in spec.identity()  # earlier records keep their digest
    assert compute_run(spec, None).record["status"] == "ok"


@pytest.mark.parametrize("which", ["code_sha256", "streamlearn_sha256"])
def test_other_code_than_planned_fails_the_run_for_a_retry(spec, which):
    other = dataclasses.replace(spec, **{which: "0" * 64})
    record = compute_run(other, None).record
    assert record["status"] == "failed" and record["retry_on_resume"] is True
    assert "metrics" not in record
    what = "learner 'code_identity_learner:Constant'" if which == "code_sha256" else \
        "other streamlearn code"
    assert what in record["error"] and "000000000000" in record["error"]


def test_the_hash_is_of_the_code_loaded_not_of_the_file_now(spec, tmp_path):
    """An edit after the import does not change what this process runs, nor its hash;
    once the module is imported again, both change."""
    before = user_code_sha256(spec.algorithm.name)
    (tmp_path / "code_identity_learner.py").write_text(LEARNER.replace("return 0",
                                                                       "return 1"))
    assert user_code_sha256(spec.algorithm.name) == before
    assert code_mismatch(spec.algorithm.name, before, None) is None
    forget_module("code_identity_learner")
    assert user_code_sha256(spec.algorithm.name) != before
    assert "was edited during the experiment" in code_mismatch(spec.algorithm.name, before,
                                                               None)


def test_registered_learners_have_no_file_to_check():
    assert code_mismatch("perceptron", None, streamlearn_source_sha256()) is None
