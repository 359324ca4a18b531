"""Bad input and faults, tried as a new user would: each must give a clear message, an exit
code other than 0, no traceback, and nothing half-written."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.cli_helpers import run_cli

SMALL = {
    "name": "bad",
    "streams": [{"name": "sea", "label": "SEA", "params": {"n_samples": 300}}],
    "algorithms": [{"name": "rls", "label": "RLS"}],
    "evaluation": {"checkpoints": 5},
}


_run_main = run_cli


def _write(tmp_path: Path, cfg: dict, name: str = "c.yaml") -> Path:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(cfg))
    return p


def _with(**changes: object) -> dict:
    return {**SMALL, **changes}


def _expect_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], cfg_path: Path,
                  code: int, *fragments: str, command: str = "run") -> str:
    out_dir = tmp_path / "out"
    args = [command, str(cfg_path)] + (["--out", str(out_dir), "-q"] if command == "run" else [])
    rc, text = _run_main(args, capsys)
    assert rc == code, text
    assert "Traceback" not in text
    flat = " ".join(text.split())
    for f in fragments:
        assert f in flat, flat
    assert not out_dir.exists() or not any(out_dir.iterdir()), "something was written"
    return flat


# --------------------------------------------------------------------------------------
# Labels that collide on disk
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("a,b", [("RLS (Ada.)", "RLS Ada"), ("RLS/1", "RLS 1"),
                                 ("RLS", "rls")])
def test_labels_with_the_same_file_name_are_rejected(tmp_path, capsys, a, b):
    cfg = _with(algorithms=[{"name": "rls", "label": a}, {"name": "rls", "label": b}])
    _expect_error(tmp_path, capsys, _write(tmp_path, cfg), 2, "same file name",
                  repr(a), repr(b))


def test_stream_and_learner_labels_whose_record_names_coincide_are_rejected(tmp_path,
                                                                            capsys):
    """Streams S and S__A with learners A__B and B: both pairs were S__A__B__seed0.json,
    one run's record overwriting the other's with exit 0 (hunt of 7 Dec)."""
    cfg = _with(streams=[{"name": "sea", "label": "S", "max_samples": 200},
                         {"name": "sea", "label": "S__A", "max_samples": 200}],
                algorithms=[{"name": "rls", "label": "A__B"}, {"name": "rls", "label": "B"}])
    _expect_error(tmp_path, capsys, _write(tmp_path, cfg), 2, "same record name",
                  "'S__A__B__seed0'")


def test_greek_labels_keep_distinct_file_names(tmp_path, capsys):
    cfg = _with(algorithms=[{"name": "rls", "label": "λ"}, {"name": "rls", "label": "μ"}])
    rc, text = _run_main(["run", str(_write(tmp_path, cfg)), "--out", str(tmp_path / "o"),
                          "-q"], capsys)
    assert rc == 0, text
    assert len(list((tmp_path / "o" / "runs").glob("*.json"))) == 2


def test_swept_labels_that_collide_are_rejected(tmp_path, capsys):
    cfg = _with(algorithms=[{"name": "rls", "label": "RLS {lam:.0f}",
                             "sweep": {"lam": [1.0, 1.2]}}])
    _expect_error(tmp_path, capsys, _write(tmp_path, cfg), 2, "duplicate")
    cfg = _with(algorithms=[{"name": "rls", "label": "RLS", "sweep": {"lam": [1.0, 1]}}])
    _expect_error(tmp_path, capsys, _write(tmp_path, cfg), 2, "the values 1.0 and 1 are")


# --------------------------------------------------------------------------------------
# The output directory
# --------------------------------------------------------------------------------------


def test_second_run_on_a_busy_output_directory_stops(tmp_path, capsys):
    from streamlearn.evaluation.output_dir import OutputDirLock

    out = tmp_path / "out"
    out.mkdir()
    # a live writer's temporary file must survive the other run's start-up
    live_tmp = out / f".summary.md.{os.getpid()}~abc.tmp"
    live_tmp.write_text("x")
    with OutputDirLock(out):
        proc = subprocess.run(
            [sys.executable, "-m", "streamlearn", "run", str(_write(tmp_path, SMALL)),
             "--out", str(out), "-q"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 5, proc.stderr
    assert "Another streamlearn command" in proc.stderr and str(os.getpid()) in proc.stderr
    assert "Traceback" not in proc.stderr
    assert live_tmp.exists()
    # once the lock is free the run goes ahead, and a dead writer's temporary is removed
    dead_tmp = out / ".summary.md.999999999~abc.tmp"
    dead_tmp.write_text("x")
    rc, text = _run_main(["run", str(_write(tmp_path, SMALL)), "--out", str(out), "-q"],
                         capsys)
    assert rc == 0, text
    assert live_tmp.exists() and not dead_tmp.exists()


@pytest.mark.parametrize("where", ["file", "devnull", "under_a_file"])
def test_output_directory_that_cannot_be_one(tmp_path, capsys, where):
    target = {"file": tmp_path / "afile", "devnull": Path("/dev/null"),
              "under_a_file": tmp_path / "afile" / "sub"}[where]
    (tmp_path / "afile").write_text("x")
    cfg = _with(outputs={"dir": str(target)})
    for command in ("validate", "run"):
        rc, text = _run_main([command, str(_write(tmp_path, cfg))], capsys)
        assert rc == 4, text
        assert "Traceback" not in text and "output directory" in " ".join(text.split())
    assert (tmp_path / "afile").read_text() == "x"


def test_read_only_output_location(tmp_path, capsys):
    # /proc refuses new directories even for root (chmod would not stop root)
    cfg = _with(outputs={"dir": "/proc/streamlearn-test-out"})
    rc, text = _run_main(["run", str(_write(tmp_path, cfg)), "-q"], capsys)
    assert rc == 4, text
    assert "Cannot" in text and "Traceback" not in text


def test_label_giving_a_file_name_over_255_bytes(tmp_path, capsys):
    cfg = _with(algorithms=[{"name": "rls", "label": "R" * 250}])
    _expect_error(tmp_path, capsys, _write(tmp_path, cfg), 2, "file name of", "255")


def test_disk_full_is_a_message(tmp_path, capsys, monkeypatch):
    import streamlearn.atomic as atomic

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", full)
    rc, text = _run_main(["run", str(_write(tmp_path, SMALL)), "--out", str(tmp_path / "o"),
                          "-q"], capsys)
    assert rc == 4, text
    # the console wraps the message at the terminal width: compare it unwrapped
    assert "the disk is full" in " ".join(text.split()) and "Traceback" not in text
    assert not list((tmp_path / "o").rglob("*.tmp"))  # no temporary left behind


def test_outputs_follow_the_umask(tmp_path, capsys):
    old = os.umask(0o022)
    try:
        rc, text = _run_main(["run", str(_write(tmp_path, SMALL)), "--out",
                              str(tmp_path / "o"), "-q"], capsys)
    finally:
        os.umask(old)
    assert rc == 0, text
    for p in [tmp_path / "o" / "experiment.json", *(tmp_path / "o" / "runs").glob("*.json")]:
        assert p.stat().st_mode & 0o777 == 0o644, p


# --------------------------------------------------------------------------------------
# Sizes
# --------------------------------------------------------------------------------------


def test_state_too_large_for_memory(tmp_path, capsys):
    cfg = _with(algorithms=[{"name": "online_bls", "params": {"n3": 1000000}}])
    _expect_error(tmp_path, capsys, _write(tmp_path, cfg), 2, "TiB", "online_bls",
                  command="validate")


def test_stream_too_large_for_memory(tmp_path, capsys):
    cfg = _with(streams=[{"name": "sea", "params": {"n_samples": 10_000_000_000}}])
    _expect_error(tmp_path, capsys, _write(tmp_path, cfg), 2, "GiB", "n_samples")


def test_a_million_repeats(tmp_path, capsys):
    _expect_error(tmp_path, capsys, _write(tmp_path, _with(repeats=1_000_000)), 2,
                  "repetitions")


def test_yaml_alias_bomb(tmp_path, capsys):
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]']
    for i in range(1, 10):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    (tmp_path / "bomb.yaml").write_text("\n".join(lines) + "\nname: x\n")
    t0 = time.perf_counter()
    _expect_error(tmp_path, capsys, tmp_path / "bomb.yaml", 2, "more than")
    assert time.perf_counter() - t0 < 10


def test_yaml_deep_nesting(tmp_path, capsys):
    (tmp_path / "deep.yaml").write_text("name: " + "[" * 10000 + "]" * 10000 + "\n")
    _expect_error(tmp_path, capsys, tmp_path / "deep.yaml", 2, "nested")


def test_yaml_too_large(tmp_path, capsys):
    (tmp_path / "big.yaml").write_text("# " + "x" * (2 << 20) + "\nname: x\n")
    _expect_error(tmp_path, capsys, tmp_path / "big.yaml", 2, "larger than")


# --------------------------------------------------------------------------------------
# Config values
# --------------------------------------------------------------------------------------


def test_duplicate_yaml_keys(tmp_path, capsys):
    text = yaml.safe_dump(SMALL) + "algorithms: [{name: hoeffding_tree}]\n"
    (tmp_path / "dup.yaml").write_text(text)
    _expect_error(tmp_path, capsys, tmp_path / "dup.yaml", 2, "duplicate key 'algorithms'")


def test_tilde_in_output_dir_means_home(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    rc, text = _run_main(["run", str(_write(tmp_path, _with(outputs={"dir": "~/x"}))), "-q"],
                         capsys)
    assert rc == 0, text
    assert (tmp_path / "home" / "x" / "experiment.json").exists()
    assert not (tmp_path / "~").exists()


@pytest.mark.parametrize("name", ["..", "."])
def test_dot_names_are_rejected(tmp_path, capsys, name):
    _expect_error(tmp_path, capsys, _write(tmp_path, _with(name=name)), 2, "may not be")


def test_empty_metric_list(tmp_path, capsys):
    _expect_error(tmp_path, capsys, _write(tmp_path, _with(metrics=[])), 2, "'metrics'",
                  "is empty")


def test_normalize_warmup_larger_than_the_stream(tmp_path, capsys):
    cfg = _with(streams=[{"name": "sea", "params": {"n_samples": 300}, "normalize": "minmax",
                          "normalize_warmup": 500}])
    _expect_error(tmp_path, capsys, _write(tmp_path, cfg), 2, "normalize_warmup",
                  "larger than the stream")
    cfg = _with(streams=[{"name": "sea", "max_samples": 100, "normalize": "minmax",
                          "normalize_warmup": 500}])
    _expect_error(tmp_path, capsys, _write(tmp_path, cfg), 2, "larger than max_samples")


def test_normalize_warmup_larger_than_a_stream_known_only_when_loaded():
    import numpy as np

    from streamlearn.errors import UserError
    from streamlearn.protocols.preparation import normalise

    with pytest.raises(UserError, match="larger than the stream"):
        normalise(np.zeros((10, 2)), "minmax", 11)


def test_tiny_ridge_parameter_is_named(tmp_path, capsys):
    cfg = _with(algorithms=[{"name": "online_bls", "params": {"lam": 1e-300, "n3": 50}}])
    out = tmp_path / "o"
    rc, text = _run_main(["run", str(_write(tmp_path, cfg)), "--out", str(out), "-q"], capsys)
    assert rc == 1, text  # a failed run: exit 1, the record says why
    record = json.loads(next((out / "runs").glob("*.json")).read_text())
    assert record["status"] == "failed"
    assert "'lam' parameter is 1e-300" in record["error"]
    assert "'lam' parameter is 1e-300" in " ".join(text.split())


# --------------------------------------------------------------------------------------
# Worker processes
# --------------------------------------------------------------------------------------


def _children(pid: int) -> set[int]:
    out = set()
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.add(int(d.name))
    return out


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find worker processes")
def test_workers_exit_when_the_parent_is_killed(tmp_path):
    cfg = _with(repeats=6, streams=[{"name": "sea", "params": {"n_samples": 200000}}],
                algorithms=[{"name": "hoeffding_tree"}])
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlearn", "run", str(_write(tmp_path, cfg)),
         "--out", str(tmp_path / "o"), "--jobs", "2", "-q"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: set[int] = set()
    deadline = time.time() + 60
    while time.time() < deadline and len(workers) < 2:
        workers = _children(proc.pid)
        time.sleep(0.5)
    time.sleep(3)  # let the workers start their first run (and their watchdog)
    workers = _children(proc.pid)
    assert workers, "no worker processes seen"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.time() + 15
    alive = set(workers)
    while alive and time.time() < deadline:
        alive = {w for w in alive if Path(f"/proc/{w}").exists()
                 and "Z" not in (Path(f"/proc/{w}/stat").read_text().rsplit(")", 1)[1][:3])}
        time.sleep(0.5)
    for w in alive:
        os.kill(w, signal.SIGKILL)
    assert not alive, f"workers {sorted(alive)} outlived the killed parent"


def test_a_complete_record_without_metrics_is_recomputed_on_resume(tmp_path, capsys):
    out = tmp_path / "o"
    cfg = _write(tmp_path, SMALL)
    assert _run_main(["run", str(cfg), "--out", str(out), "-q"], capsys)[0] == 0
    rec_path = next((out / "runs").glob("*.json"))
    good = json.loads(rec_path.read_text())
    rec_path.write_text(json.dumps({k: v for k, v in good.items() if k != "metrics"}))
    rc, text = _run_main(["run", str(cfg), "--out", str(out), "-q"], capsys)
    assert rc == 0, text
    assert "1 run(s) computed" in " ".join(text.split())
    assert json.loads(rec_path.read_text())["metrics"] == good["metrics"]


class NoTaskRegressor:
    """A regression learner that forgot to say so (no ``task`` attribute)."""

    def predict_one(self, x):
        return 0.0

    def learn_one(self, x, y):
        pass


def test_a_user_regressor_without_task_is_told_how_to_declare_it(tmp_path, capsys):
    cfg = _with(protocol={"name": "prequential-regression"},
                streams=[{"name": "chick_weights", "label": "CW"}],
                algorithms=[{"name": "tests.cli.test_bad_input:NoTaskRegressor",
                             "label": "Mine"}])
    _expect_error(tmp_path, capsys, _write(tmp_path, cfg), 2,
                  "it is a classification learner and this protocol needs a regression "
                  "learner (a class of your own is a classification learner unless it sets "
                  "the class attribute task = 'regression')")
    cfg["algorithms"] = [{"name": "rls", "label": "RLS"}]  # a built-in learner: no hint
    flat = _expect_error(tmp_path, capsys, _write(tmp_path, cfg), 2,
                         "it is a classification learner and this protocol needs a "
                         "regression learner")
    assert "class attribute" not in flat


def test_a_river_regressor_in_a_classification_run_is_named_as_such(tmp_path, capsys):
    # hunt 5 (7 Dec): the refusal told the user to set task = 'classification' on River's
    # LinearRegression
    cfg = _with(algorithms=[{"river": "linear_model.LinearRegression", "label": "LR"}])
    flat = _expect_error(tmp_path, capsys, _write(tmp_path, cfg), 2,
                         "it is a regression learner and this protocol needs a "
                         "classification learner (LinearRegression is a regression "
                         "estimator of river)")
    assert "class attribute" not in flat


@pytest.mark.parametrize("key", ["OCA", "mcc_"])
def test_a_reference_value_for_a_metric_the_config_lacks_is_refused(tmp_path, capsys, key):
    """A misspelt metric key in reference.values had been dropped without a word: no
    paper column, exit 0 (hunt of 7 Dec)."""
    label = SMALL["algorithms"][0]["label"]
    stream = SMALL["streams"][0]["label"]
    cfg = _with(metrics=["oca", "mcc"],
                reference={"values": {stream: {label: {"oca": 86.4, key: 50}}}})
    _expect_error(tmp_path, capsys, _write(tmp_path, cfg), 2,
                  f"{key!r} is not one of the config's metrics")
