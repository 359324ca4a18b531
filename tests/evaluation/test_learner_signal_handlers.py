"""A learner that ignores Ctrl-C cannot make an experiment uninterruptible.

Found by a CLI probe (``--jobs 1``): a learner calling
``signal.signal(signal.SIGINT, signal.SIG_IGN)`` in its ``__init__`` made Ctrl-C do
nothing for the rest of the experiment (every run went on to the end). The handlers are
now set back as soon as a learner is built and when any user code ends
(:func:`streamlearn.interrupts.user_code_guarded`).
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest
import yaml

from streamlearn.interrupts import user_code_guarded
from tests.cli_helpers import start_cli_subprocess

LEARNER = '''
import signal
import time


class IgnoresCtrlC:
    def __init__(self, seed=0):
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    def predict_one(self, x):
        return 0

    def learn_one(self, x, y):
        time.sleep(0.002)
'''


def test_the_guard_sets_the_handlers_back() -> None:
    before = signal.getsignal(signal.SIGINT)
    try:
        with user_code_guarded():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        assert signal.getsignal(signal.SIGINT) == before
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    finally:
        signal.signal(signal.SIGINT, before)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_stops_an_experiment_whose_learner_ignores_it(tmp_path: Path, jobs: str) -> None:
    (tmp_path / "ignoring_learner.py").write_text(LEARNER)
    cfg = {"name": "ignores", "seeds": list(range(12)),
           "streams": [{"name": "sea", "label": "SEA", "max_samples": 600}],
           "algorithms": [{"name": "ignoring_learner:IgnoresCtrlC", "label": "Mine"}],
           "metrics": ["oca"], "outputs": {"dir": str(tmp_path / "out"), "plots": []}}
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    proc = start_cli_subprocess(["run", "cfg.yaml", "-q", "--jobs", jobs], tmp_path)
    runs = tmp_path / "out" / "runs"
    deadline = time.time() + 120
    while time.time() < deadline and len(list(runs.glob("*.json"))) < 1:
        time.sleep(0.05)
    time.sleep(0.5)  # the next run is in its learner's learn_one
    t0 = time.time()
    os.kill(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err  # was 0: every run went on to the end
    assert time.time() - t0 < 10
    assert "Interrupted." in err
    records = list(runs.glob("*.json"))
    assert 1 <= len(records) < 12
    assert all(json.loads(p.read_text())["status"] == "ok" for p in records)
