"""A learner's ``os.umask`` does not reach the files streamlearn writes after its code.

Found by a CLI probe (as an ordinary user, ``--jobs 1``): a learner calling
``os.umask(0o777)`` made the next folder streamlearn created, ``runs/``, mode 000; its
records could not be written (PermissionError, a traceback, exit 1, the runs lost).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import yaml

from streamlearn.interrupts import user_code_guarded
from tests.cli_helpers import run_cli_subprocess

LEARNER = '''
import os


class Umask:
    def __init__(self, seed=0):
        self.n = 0

    def predict_one(self, x):
        return 0

    def learn_one(self, x, y):
        self.n += 1
        if self.n == 50:
            os.umask(0o777)
'''


def test_the_guard_sets_the_mask_back() -> None:
    before = os.umask(0o022)
    os.umask(before)
    try:
        with user_code_guarded():
            os.umask(0o777)
        after = os.umask(before)
        assert after == before
    finally:
        os.umask(before)


def test_a_learners_umask_leaves_the_records_readable(tmp_path: Path) -> None:
    (tmp_path / "umask_learner.py").write_text(LEARNER)
    cfg = {"name": "umask", "repeats": 1,
           "streams": [{"name": "sea", "label": "SEA", "max_samples": 200}],
           "algorithms": [{"name": "umask_learner:Umask", "label": "Mine"}],
           "metrics": ["oca"], "outputs": {"dir": str(tmp_path / "out"), "plots": []}}
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    proc = run_cli_subprocess(["run", "cfg.yaml", "-q", "--jobs", "1"], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs = tmp_path / "out" / "runs"
    assert stat.S_IMODE(runs.stat().st_mode) & 0o700 == 0o700  # was 000
    assert (runs / "SEA__Mine__seed0.json").is_file()
