"""A user's stream class (``module:Class``) whose code misbehaves fails its own runs, named,
and the others go on; nothing ends the experiment with exit code 0 or a traceback.

Found by CLI probes: ``sys.exit(0)`` or ``os._exit(0)`` in a user's stream's ``_load``
ended ``streamlearn run --jobs 1`` with exit code 0, that stream's runs missing and no
summary written; an exception there, or in its ``estimate_size``, ended it with a
traceback; its own ``KeyboardInterrupt`` was taken for a Ctrl-C (exit 130); labels 0.5
and 1.5 became classes 0 and 1 (exit 0).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.cli_helpers import run_cli_subprocess

STREAMS = '''
import os, sys
import numpy as np
from streamlearn.base import Stream


class _Base(Stream):
    def __init__(self, n_samples: int = 200, seed: int = 0):
        self.n_samples = n_samples
        self.seed = seed

    def _load(self):
        X = np.random.default_rng(self.seed).normal(size=(self.n_samples, 2))
        return X, (X[:, 0] > 0).astype(int)


class SysExit(_Base):
    def _load(self):
        sys.exit(0)


class OsExit(_Base):
    def _load(self):
        os._exit(0)


class Raises(_Base):
    def _load(self):
        raise ValueError("bad data")


class OwnInterrupt(_Base):
    def _load(self):
        raise KeyboardInterrupt


class NaNs(_Base):
    def _load(self):
        X, y = super()._load()
        X[5, 1] = np.nan
        return X, y


class HalfLabels(_Base):
    def _load(self):
        X, y = super()._load()
        return X, y + 0.5


class SizeRaises(_Base):
    def estimate_size(self):
        raise ValueError("cannot tell")
'''

EXPECTED = {
    "SysExit": "SystemExit: 0 (the stream user_streams:SysExit called sys.exit()",
    "OsExit": "called os._exit(0); streamlearn refused to end the process",
    "Raises": "ValueError: bad data",
    "OwnInterrupt": "raised KeyboardInterrupt itself; no Ctrl-C reached streamlearn",
    "NaNs": "contains NaN or infinite feature values",
    # a cast to int64 had made 0.5 and 1.5 classes 0 and 1, exit 0
    "HalfLabels": "classification labels must be class indices 0..C-1 (integers); label",
}


def _run(tmp: Path, stream: str, jobs: str) -> tuple[int, str]:
    (tmp / "user_streams.py").write_text(STREAMS)
    cfg = {"name": "streams", "repeats": 2,
           "streams": [{"name": "sea", "label": "SEA", "max_samples": 200},
                       {"name": f"user_streams:{stream}", "label": "Mine"}],
           "algorithms": [{"name": "perceptron"}], "metrics": ["oca"],
           "outputs": {"dir": str(tmp / "out"), "plots": []}}
    (tmp / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    # a child process: were sys.exit(0) or os._exit(0) to get through, they would end the
    # child with 0, not this test session
    proc = run_cli_subprocess(["run", "cfg.yaml", "-q", "--jobs", jobs], tmp)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.parametrize(("stream", "jobs"), [
    *[(s, "1") for s in EXPECTED], ("SysExit", "2"), ("OsExit", "2"), ("Raises", "2")])
def test_a_misbehaving_user_stream_fails_its_runs_and_the_others_are_kept(
        tmp_path: Path, stream: str, jobs: str) -> None:
    rc, text = _run(tmp_path, stream, jobs)
    assert rc == 1, text
    assert "Traceback" not in text
    assert "4 run(s) computed, 0 already complete, 2 failed" in " ".join(text.split())
    recs = {p.stem: json.loads(p.read_text()) for p in (tmp_path / "out" / "runs").glob("*")}
    for seed in (0, 1):
        assert recs[f"SEA__perceptron__seed{seed}"]["status"] == "ok"
        mine = recs[f"Mine__perceptron__seed{seed}"]
        assert mine["status"] == "failed"
        assert mine["error"].startswith("preparing the stream 'Mine' (user_streams:")
        assert EXPECTED[stream] in mine["error"]
    assert (tmp_path / "out" / "summary.md").is_file()


def test_a_user_streams_size_method_that_raises_is_a_config_error(tmp_path: Path) -> None:
    rc, text = _run(tmp_path, "SizeRaises", "1")
    assert rc == 2, text
    assert "Traceback" not in text
    assert "estimating the size of SizeRaises failed: ValueError: cannot tell" in " ".join(
        text.split())
    assert not (tmp_path / "out").exists()
