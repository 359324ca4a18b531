"""A learner that closes ``sys.stdout`` or ``sys.stderr`` does not lose the command's output.

Found by a CLI probe (as an ordinary user, ``--jobs 1``): a learner calling
``sys.stdout.close()`` let every run finish and every file be written, and then the
summary table's print raised ``ValueError: I/O operation on closed file``: a traceback,
exit code 1, for a run whose results were complete.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import yaml

from streamlearn.interrupts import user_code_guarded
from tests.cli_helpers import run_cli_subprocess

LEARNER = '''
import sys


class Closer:
    def __init__(self, seed=0):
        self.n = 0

    def predict_one(self, x):
        return 0

    def learn_one(self, x, y):
        self.n += 1
        if self.n == 50:
            getattr(sys, "{stream}").close()
'''


@pytest.mark.parametrize("name", ["stdout", "stderr"])
def test_the_guard_reopens_a_closed_standard_stream(name: str, capfd) -> None:
    saved = getattr(sys, name)
    fd = 1 if name == "stdout" else 2
    fake = open(os.dup(fd), "w")  # closed by the block, as a learner would
    setattr(sys, name, fake)
    try:
        with user_code_guarded():
            fake.close()
        now = getattr(sys, name)
        assert now is not fake and not now.closed
        print("after the block", file=now, flush=True)
        assert "after the block" in getattr(capfd.readouterr(), "out" if fd == 1 else "err")
    finally:
        setattr(sys, name, saved)
    # a stream left open (a learner's own redirection) is left alone
    other = open(os.devnull, "w")
    setattr(sys, name, other)
    try:
        with user_code_guarded():
            pass
        assert getattr(sys, name) is other
    finally:
        setattr(sys, name, saved)
        other.close()


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_a_learner_closing_a_standard_stream_loses_no_output(tmp_path: Path, stream: str) -> None:
    (tmp_path / "closer_learner.py").write_text(LEARNER.format(stream=stream))
    cfg = {"name": "closer", "seeds": [0, 1],
           "streams": [{"name": "sea", "label": "SEA", "max_samples": 300}],
           "algorithms": [{"name": "closer_learner:Closer", "label": "Mine"},
                          {"name": "perceptron"}],
           "metrics": ["oca"], "outputs": {"dir": str(tmp_path / "out"), "plots": []}}
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    proc = run_cli_subprocess(["run", "cfg.yaml", "--jobs", "1"], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr  # was 1, a traceback
    assert "Traceback" not in proc.stderr
    assert "Mine" in proc.stdout and "perceptron" in proc.stdout  # the table printed
    assert f"a learner's code closed sys.{stream}" in " ".join(proc.stderr.split())
    for seed in (0, 1):
        record = json.loads((tmp_path / "out" / "runs" / f"SEA__Mine__seed{seed}.json").read_text())
        assert record["status"] == "ok"
