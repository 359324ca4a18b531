"""A learner whose compiled code calls C's ``exit()`` (here through ctypes), and
``posix._exit``: none may end ``streamlearn run`` with status 0 and a run missing.

``--jobs 1`` runs the learner in the command's own process: C's ``exit(0)`` cannot be
refused there, so the command ends with a message and status 70, the runs written before
it kept (:func:`streamlearn.interrupts.c_exit_refused`); with ``--jobs 2`` the worker's
death fails that run only. Each command runs in a child process (``python -m
streamlearn``): an exit that got through ends the child, not the test session.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from streamlearn.interrupts import C_EXIT_STATUS, _glibc
from tests.evaluation.test_misbehaving_learners import MODULE as MISBEHAVING

pytestmark = pytest.mark.skipif(_glibc() is None, reason="C's exit() is guarded on glibc")

MODULE = MISBEHAVING + '''
import ctypes
import posix


class CExits(Majority):
    """Calls C's exit(0) through ctypes at the 5th prediction."""

    def predict_one(self, x):
        if self.counts.sum() >= 4:
            ctypes.CDLL(None).exit(0)
        return super().predict_one(x)


class PosixExits(Majority):
    """Calls posix._exit(0) (os._exit under another name) at the 5th prediction."""

    def predict_one(self, x):
        if self.counts.sum() >= 4:
            posix._exit(0)
        return super().predict_one(x)
'''


def _experiment(tmp_path: Path, bad: str) -> Path:
    (tmp_path / "compiled_exit.py").write_text(MODULE)
    cfg = {"name": "compiled-exit", "repeats": 1,
           "streams": [{"name": "sea", "label": "SEA", "max_samples": 200}],
           "algorithms": [{"name": "compiled_exit:Majority", "label": "Majority"},
                          {"name": f"compiled_exit:{bad}", "label": "Bad"}],
           "metrics": ["oca"], "outputs": {"dir": str(tmp_path / "out"), "plots": []}}
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _run(cfg: Path, jobs: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(cfg.parent), *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]])}
    return subprocess.run([sys.executable, "-m", "streamlearn", "run", str(cfg), "-q",
                           "--jobs", jobs], cwd=cfg.parent, env=env, capture_output=True,
                          text=True, timeout=180)


def _records(out: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in (out / "runs").glob("*.json")}


def _bad_run_failed(proc: subprocess.CompletedProcess[str], out: Path, error: str) -> None:
    """The command exits 1, Majority's run is ok, Bad's failed with ``error``, summary written."""
    assert proc.returncode == 1, proc.stdout + proc.stderr
    recs = _records(out)
    assert recs["SEA__Majority__seed0"]["status"] == "ok"
    assert recs["SEA__Bad__seed0"]["status"] == "failed"
    assert error in recs["SEA__Bad__seed0"]["error"]
    assert (out / "summary.md").exists()


def test_c_exit_0_under_jobs_1_ends_the_command_with_70_and_keeps_the_runs_before(tmp_path):
    """C's exit(0) from a learner had ended `streamlearn run --jobs 1` with status 0, that
    run's record and the summary missing. Now: status 70 and a message; the run finished
    before it is written, and running again resumes after it (and ends the same way)."""
    cfg = _experiment(tmp_path, "CExits")
    proc = _run(cfg, "1")
    text = proc.stdout + proc.stderr
    assert proc.returncode == C_EXIT_STATUS, text
    assert "compiled code called C's exit(0)" in text
    assert "the run SEA__Bad__seed0 has no record" in " ".join(text.split())
    assert "Traceback" not in text
    recs = _records(tmp_path / "out")
    assert recs["SEA__Majority__seed0"]["status"] == "ok"
    assert "SEA__Bad__seed0" not in recs
    again = _run(cfg, "1")
    assert again.returncode == C_EXIT_STATUS
    assert "1 already complete, 1 to run" in " ".join((again.stdout + again.stderr).split())


def test_c_exit_0_in_a_worker_fails_its_run_only(tmp_path):
    """--jobs 2: the worker that called exit(0) dies; that run is recorded failed, the
    other completes, the command exits 1 with the summary written."""
    _bad_run_failed(_run(_experiment(tmp_path, "CExits"), "2"), tmp_path / "out", "died")


def test_posix_exit_is_refused_like_os_exit(tmp_path):
    """posix._exit is os._exit under its module's name: refused while the learner's code
    runs (its run fails, the experiment goes on, exit 1)."""
    _bad_run_failed(_run(_experiment(tmp_path, "PosixExits"), "1"), tmp_path / "out",
                    "called os._exit(0)")


SCRIPT = textwrap.dedent('''
    import ctypes, os, sys
    from streamlearn.interrupts import c_exit_refused

    mode = sys.argv[1]
    with c_exit_refused():
        if mode == "exit-inside":
            ctypes.CDLL(None).exit(int(sys.argv[2]))
        if mode == "fork":
            pid = os.fork()
            if pid == 0:  # the child's exit is its own: the guard was taken back at the fork
                ctypes.CDLL(None).exit(5)
            _, status = os.waitpid(pid, 0)
            print("child", os.waitstatus_to_exitcode(status))
    if mode == "exit-after":
        ctypes.CDLL(None).exit(3)  # after the block: the process's own exit
    sys.exit(4)
''')


@pytest.mark.parametrize(("args", "status", "said"), [
    (["exit-inside", "0"], C_EXIT_STATUS, True),   # exit(0) inside: 70, with the message
    (["exit-inside", "2"], 2, True),               # a failing status is kept
    (["exit-after"], 3, False),                    # the guard is taken back when it ends
    (["plain"], 4, False),                         # Python's own exit, as before
    (["fork"], 4, False),                          # a forked child exits with its own 5
])
def test_the_guard_changes_only_an_exit_inside_it(tmp_path, args, status, said):
    script = tmp_path / "guarded.py"
    script.write_text(SCRIPT)
    proc = subprocess.run([sys.executable, str(script), *args], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == status, proc.stderr
    assert ("compiled code called C's exit" in proc.stderr) == said, proc.stderr
    if args == ["fork"]:
        assert proc.stdout.strip() == "child 5"
