"""An edited learner is a new run: a resumed experiment never mixes two versions of a
user's learner (found by a CLI probe: after an interrupted run, editing the learner's
module and running again reused the records of the old code beside new ones, exit 0)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import yaml

from streamlearn.evaluation.code_identity import user_code_sha256
from tests.cli_helpers import forget_module, run_cli, user_module

LEARNER = '''
import numpy as np


class Majority:
    """The most frequent class so far (FLIP: the least frequent)."""

    FLIP = False

    def reset(self, n_features, n_classes):
        self.counts = np.zeros(n_classes)

    def predict_one(self, x):
        return int(np.argmin(self.counts) if self.FLIP else np.argmax(self.counts))

    def learn_one(self, x, y):
        self.counts[y] += 1
'''


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cfg = {"name": "edited", "repeats": 2,
           "streams": [{"name": "sea", "label": "SEA", "max_samples": 300}],
           "algorithms": [{"name": "edited_learners:Majority", "label": "Mine"},
                          {"name": "perceptron", "label": "Perceptron"}],
           "metrics": ["oca"], "outputs": {"dir": str(tmp_path / "out"), "plots": []}}
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    with user_module(tmp_path, monkeypatch, "edited_learners", LEARNER) as directory:
        yield directory


def _records(out: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in (out / "runs").glob("*.json")}


def test_an_edited_learner_is_recomputed_and_the_others_are_reused(work, capsys):
    rc, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
    assert rc == 0, text
    before = _records(work / "out")
    sha = hashlib.sha256((work / "edited_learners.py").read_bytes()).hexdigest()
    assert before["SEA__Mine__seed0"]["spec"]["code_sha256"] == sha
    assert "code_sha256" not in before["SEA__Perceptron__seed0"]["spec"]

    rc, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
    assert "0 run(s) computed, 4 already complete" in " ".join(text.split())

    # the user changes the learner: its two runs are computed again, with the new code
    (work / "edited_learners.py").write_text(LEARNER.replace("FLIP = False", "FLIP = True"))
    forget_module("edited_learners")
    rc, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
    assert rc == 0, text
    assert "2 run(s) computed, 2 already complete" in " ".join(text.split())
    after = _records(work / "out")
    for seed in (0, 1):
        mine = f"SEA__Mine__seed{seed}"
        assert after[mine]["metrics"]["oca"] != before[mine]["metrics"]["oca"]
        perceptron = f"SEA__Perceptron__seed{seed}"
        assert after[perceptron] == before[perceptron]


def test_registered_names_and_installed_code_are_not_hashed():
    assert user_code_sha256("perceptron") is None
    assert user_code_sha256("river.linear_model:LogisticRegression") is None


# ------------------------------------------------ the user's modules a learner depends on

HELPED = '''
import helper_constants
from helper_functions import label_of
from helper_base import Base


class Helped(Base):
    def predict_one(self, x):
        return label_of(helper_constants.ANSWER)

    def learn_one(self, x, y):
        from helper_lazy import touch  # imported when it first runs
        touch()
'''

HELPERS = {
    "helper_constants": "ANSWER = 0\n",
    "helper_functions": "def label_of(answer):\n    return answer\n",
    "helper_base": "class Base:\n    def reset(self, n_features, n_classes):\n        pass\n",
    "helper_lazy": "def touch():\n    return None\n",
}


@pytest.fixture
def helped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, source in HELPERS.items():
        (tmp_path / f"{name}.py").write_text(source)
    pkg = tmp_path / "userpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "common.py").write_text("SHIFT = 0\n")
    (pkg / "learner.py").write_text(
        "from .common import SHIFT\n\n\nclass Shifted:\n"
        "    def predict_one(self, x):\n        return SHIFT\n\n"
        "    def learn_one(self, x, y):\n        pass\n")
    with user_module(tmp_path, monkeypatch, "helped_learner", HELPED) as directory:
        yield directory
    for name in [*HELPERS, "userpkg", "userpkg.common", "userpkg.learner"]:
        forget_module(name)


def _config(directory: Path, algorithm: str, seeds: list[int]) -> None:
    cfg = {"name": "helped", "seeds": seeds,
           "streams": [{"name": "sea", "label": "SEA", "max_samples": 300}],
           "algorithms": [{"name": algorithm, "label": "Mine"}],
           "metrics": ["oca"], "outputs": {"dir": str(directory / "out"), "plots": []}}
    (directory / "cfg.yaml").write_text(yaml.safe_dump(cfg))


@pytest.mark.parametrize(("module", "old", "new"), [
    ("helper_constants", "ANSWER = 0", "ANSWER = 1"),  # a module it imports
    ("helper_functions", "return answer", "return 1 - answer"),  # a function from one
    ("helper_base", "pass", "self.n = n_features"),  # its base class's file
    ("helper_lazy", "return None", "return 1"),  # an import inside a method
])
def test_an_edited_helper_module_is_a_new_run(helped, capsys, module, old, new):
    """Before: only the learner's own file was hashed. Seeds added after a helper was
    edited were computed with the new helper and summarised beside the old records
    (a probe: 44.33 ± 19.63 from runs of two versions, exit 0)."""
    _config(helped, "helped_learner:Helped", [0, 1])
    rc, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
    assert rc == 0, text
    path = helped / f"{module}.py"
    path.write_text(path.read_text().replace(old, new))
    for name in ["helped_learner", *HELPERS]:
        forget_module(name)
    _config(helped, "helped_learner:Helped", [0, 1, 2])
    rc, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
    assert rc == 0, text
    assert "3 run(s) computed, 0 already complete" in " ".join(text.split())


def test_a_relative_import_in_a_users_package_is_followed(helped, capsys):
    _config(helped, "userpkg.learner:Shifted", [0])
    rc, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
    assert rc == 0, text
    (helped / "userpkg" / "common.py").write_text("SHIFT = 1\n")
    for name in ("userpkg", "userpkg.common", "userpkg.learner"):
        forget_module(name)
    rc, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
    assert "1 run(s) computed, 0 already complete" in " ".join(text.split())


def test_a_learner_of_one_file_keeps_the_hash_of_that_file(work):
    """Records made before helpers were hashed keep their digests: for a learner whose
    module imports no user module the hash is still the file's own SHA-256."""
    sha = hashlib.sha256((work / "edited_learners.py").read_bytes()).hexdigest()
    assert user_code_sha256("edited_learners:Majority") == sha


def test_the_helper_files_are_named_when_a_worker_has_other_code(helped):
    from streamlearn.evaluation.code_identity import code_mismatch

    why = code_mismatch("helped_learner:Helped", "0" * 64, None)
    assert why is not None
    for name in ("helped_learner", *HELPERS):
        assert f"{name}.py" in why


STREAM = '''
import numpy as np

from streamlearn.base import Stream
from stream_helper import THRESHOLD


class Toy(Stream):
    def __init__(self, n_samples: int = 300, seed: int = 0):
        self.n_samples = n_samples
        self.seed = seed

    def _load(self):
        X = np.random.default_rng(self.seed).normal(size=(self.n_samples, 2))
        return X, (X[:, 0] > THRESHOLD).astype(int)
'''


@pytest.mark.parametrize("edited", ["toy_stream", "stream_helper"])
def test_an_edited_user_stream_is_a_new_run(tmp_path, monkeypatch, capsys, edited):
    """Before: a user's stream class was not hashed at all. Seeds added after it was
    edited were summarised beside the records of the old stream (a probe: 95.47 ± 2.47
    over two versions of the data, exit 0)."""
    (tmp_path / "stream_helper.py").write_text("THRESHOLD = 0.0\n")

    def config(seeds: list[int]) -> None:
        cfg = {"name": "toy", "seeds": seeds,
               "streams": [{"name": "toy_stream:Toy", "label": "toy"}],
               "algorithms": [{"name": "perceptron"}],
               "metrics": ["oca"], "outputs": {"dir": str(tmp_path / "out"), "plots": []}}
        (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))

    with user_module(tmp_path, monkeypatch, "toy_stream", STREAM):
        config([0, 1])
        rc, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
        assert rc == 0, text
        path = tmp_path / f"{edited}.py"
        old, new = (("X[:, 0] >", "X[:, 1] >") if edited == "toy_stream"
                    else ("THRESHOLD = 0.0", "THRESHOLD = 1.0"))
        path.write_text(path.read_text().replace(old, new))
        for name in ("toy_stream", "stream_helper"):
            forget_module(name)
        config([0, 1, 2])
        rc, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
        assert rc == 0, text
        assert "3 run(s) computed, 0 already complete" in " ".join(text.split())
        from streamlearn.evaluation.code_identity import code_mismatch

        why = code_mismatch("perceptron", None, None, "toy_stream:Toy", "0" * 64)
        assert why is not None and "the stream 'toy_stream:Toy'" in why
        assert "stream_helper.py" in why
    forget_module("stream_helper")
