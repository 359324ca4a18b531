"""Dask backend (issue 14) on a real LocalCluster: 2 worker processes, 1 thread each, on
127.0.0.1. Same records as --jobs 1, a worker killed mid-run, a worker without the data."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from streamlearn.config import load_config
from streamlearn.evaluation.runner import run_experiment
from streamlearn.reporting.report import build_report
from tests.cli_helpers import run_cli
from tests.saved_predictions import load_predictions

distributed = pytest.importorskip(
    "distributed", reason="the dask extra is not installed (pip install 'streamlearn[dask]')")

# Fields that legitimately differ between two executions of the same run.
VOLATILE = {"timing", "memory", "git_commit", "versions", "machine"}


class DiesInWorker:
    """A majority-class learner that kills its Dask worker process (SIGKILL, as the
    system's out-of-memory killer would; ``os._exit`` is refused while a run executes) at its
    200th update while ``marker_dir`` holds fewer than ``deaths`` files (one file per
    death); outside a Dask worker (``--jobs 1``) it never dies."""

    def __init__(self, marker_dir: str = "", deaths: int = 1) -> None:
        self.marker_dir = marker_dir
        self.deaths = deaths

    def reset(self, n_features: int, n_classes: int) -> None:
        self.counts_ = np.zeros(n_classes)

    def predict_one(self, x: np.ndarray) -> int:
        return int(np.argmax(self.counts_))

    def learn_one(self, x: np.ndarray, y: int) -> None:
        self.counts_[y] += 1
        if self.counts_.sum() == 200 and self.marker_dir and _in_dask_worker():
            folder = Path(self.marker_dir)
            n = len(list(folder.iterdir()))
            if n < self.deaths:
                (folder / f"death{n}").write_text(str(os.getpid()))
                os.kill(os.getpid(), signal.SIGKILL)


class GuessesFromGlobalGenerator:
    """Guesses a class with NumPy's global generator (no generator of its own), and
    gives up the CPU now and then, so two runs in threads of one process interleave."""

    def reset(self, n_features: int, n_classes: int) -> None:
        self.c, self.k = n_classes, 0

    def predict_one(self, x: np.ndarray) -> int:
        self.k += 1
        if self.k % 500 == 0:
            time.sleep(0.002)
        return int(np.random.randint(self.c))  # noqa: NPY002 - the point of the test

    def learn_one(self, x: np.ndarray, y: int) -> None:
        pass


def _in_dask_worker() -> bool:
    try:
        distributed.get_worker()
    except ValueError:
        return False
    return True


def _config(**extra: object) -> dict:
    return {
        "name": "dask_t",
        "repeats": 2,
        "streams": [{"name": "sea", "label": "SEA", "max_samples": 2000, "reseed": True}],
        "algorithms": [{"name": "rls", "label": "RLS"},
                       {"name": "hoeffding_tree", "label": "HT"}],
        "evaluation": {"chunk_size": 256, "checkpoints": 10},
        "outputs": {"plots": []},
        **extra,
    }


def _records(out: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted((out / "runs").glob("*.json"))}


def _stable(record: dict) -> dict:
    return {k: v for k, v in record.items() if k not in VOLATILE}


def _table(out: Path) -> list[str]:
    return [r for r in (out / "summary.csv").read_text().splitlines() if "us_per_" not in r]


_cli = run_cli


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    """A cluster whose workers' $STREAMLEARN_DATA is an empty directory (they have no
    dataset files); runs reach it with --scheduler, like a remote cluster."""
    import dask

    empty = tmp_path_factory.mktemp("empty_data")
    with dask.config.set({"distributed.scheduler.allowed-failures": 0,
                          "distributed.scheduler.worker-saturation": 1.0}):
        lc = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                      scheduler_kwargs={"dashboard": False},
                                      env={"STREAMLEARN_DATA": str(empty)})
    lc.worker_data_dir = empty  # type: ignore[attr-defined]
    with lc:
        yield lc


def test_local_cluster_gives_the_records_of_jobs_1_and_resumes(tmp_path, capsys, cluster):
    """`--backend dask --jobs 2` (its own LocalCluster): records and predictions identical
    to --jobs 1; a second run skips every run; --force (on --scheduler) recomputes them."""
    cfg = _config(evaluation={"chunk_size": 256, "checkpoints": 10, "save_predictions": True})
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    run_experiment(load_config(path), tmp_path / "serial", jobs=1)
    args = ["run", str(path), "--out", str(tmp_path / "dask"), "--backend", "dask",
            "--jobs", "2", "--quiet"]
    rc, text = _cli(args, capsys)
    assert rc == 0, text
    a, b = _records(tmp_path / "serial"), _records(tmp_path / "dask")
    assert len(a) == 4 and a.keys() == b.keys()
    for k in a:
        assert b[k]["status"] == "ok"
        assert _stable(a[k]) == _stable(b[k])
        assert json.dumps(a[k]["metrics"]) == json.dumps(b[k]["metrics"])
        pa = load_predictions(tmp_path / "serial" / "runs" / f"{k}.pred.npz")
        pb = load_predictions(tmp_path / "dask" / "runs" / f"{k}.pred.npz")
        assert sorted(pa) == sorted(pb)
        for name in pa:
            np.testing.assert_array_equal(pa[name], pb[name])
    assert a["SEA__RLS__seed0"]["metrics"] != a["SEA__RLS__seed1"]["metrics"]
    rc, text = _cli(args, capsys)
    assert rc == 0 and "0 run(s) computed, 4 already complete" in text, text
    rc, text = _cli([*args, "--force", "--scheduler", cluster.scheduler_address], capsys)
    assert rc == 0 and "4 run(s) computed, 0 already complete" in text, text


def test_killed_worker_is_recorded_then_retried(tmp_path, capsys, cluster):
    """A worker killed mid-run: with --retries 0 its run is recorded failed (the reason
    named) and the others complete; re-running computes it again, the worker dies again,
    the client resubmits it, and the final table equals the one of --jobs 1."""
    markers = tmp_path / "deaths"
    markers.mkdir()
    cfg = _config()
    cfg["algorithms"].append({"name": "tests.evaluation.test_dask_backend:DiesInWorker",
                              "label": "Dies",
                              "params": {"marker_dir": str(markers), "deaths": 2}})
    cfg["repeats"] = 1
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    run_experiment(load_config(path), tmp_path / "serial", jobs=1)
    assert not list(markers.iterdir())  # never dies outside a worker
    args = ["run", str(path), "--out", str(tmp_path / "dask"), "--backend", "dask",
            "--scheduler", cluster.scheduler_address, "--quiet"]
    rc, text = _cli([*args, "--retries", "0"], capsys)
    assert rc == 1, text
    assert len(list(markers.iterdir())) == 1
    rec = _records(tmp_path / "dask")
    assert rec["SEA__Dies__seed0"]["status"] == "failed"
    assert "worker lost 1 time(s)" in rec["SEA__Dies__seed0"]["error"]
    assert "KilledWorker" in rec["SEA__Dies__seed0"]["error"]
    assert rec["SEA__Dies__seed0"]["retry_on_resume"] is True
    assert [k for k, r in rec.items() if r["status"] == "ok"] == [
        "SEA__HT__seed0", "SEA__RLS__seed0"]
    rc, text = _cli([*args, "--retries", "2"], capsys)
    assert rc == 0, text
    assert "1 run(s) computed, 2 already complete, 0 failed" in text
    assert len(list(markers.iterdir())) == 2  # it died once more, and was resubmitted
    a, b = _records(tmp_path / "serial"), _records(tmp_path / "dask")
    assert a.keys() == b.keys()
    for k in a:
        assert _stable(a[k]) == _stable(b[k])
    build_report(tmp_path / "serial")
    assert _table(tmp_path / "serial") == _table(tmp_path / "dask")


def test_worker_without_the_data_fails_that_run_only(tmp_path, capsys, cluster, monkeypatch):
    """Workers whose $STREAMLEARN_DATA is empty, a config that needs a real dataset: that
    run is a failed record with the 'not in the data directory' message, the synthetic
    runs complete, the exit code is 1; the client's own data directory is not used."""
    monkeypatch.setenv("STREAMLEARN_DATA", str(tmp_path / "client_data"))
    cfg = _config(repeats=1)
    cfg["streams"].append({"name": "segment", "label": "IS", "max_samples": 200})
    cfg["algorithms"] = cfg["algorithms"][:1]
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    rc, text = _cli(["run", str(path), "--out", str(tmp_path / "o"), "--backend", "dask",
                     "--scheduler", cluster.scheduler_address, "--quiet"], capsys)
    assert rc == 1, text
    assert "Traceback" not in text
    rec = _records(tmp_path / "o")
    assert rec["SEA__RLS__seed0"]["status"] == "ok"
    failed = rec["IS__RLS__seed0"]
    assert failed["status"] == "failed" and failed["retry_on_resume"] is True
    assert "DataMissingError on worker tcp://127.0.0.1:" in failed["error"]
    assert "which is not in the data directory" in failed["error"]
    # the worker's own directory, not the client's
    assert f"{cluster.worker_data_dir} (from $STREAMLEARN_DATA)" in failed["error"]
    assert "1 failed" in " ".join(text.split())


def test_without_the_extra_the_message_says_how_to_install(tmp_path, capsys, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "distributed" else real(name, *a))
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(_config()))
    rc, text = _cli(["run", str(path), "--out", str(tmp_path / "o"), "--backend", "dask"],
                    capsys)
    assert rc == 2
    assert "pip install 'streamlearn[dask]'" in " ".join(text.split())
    assert "Traceback" not in text and not (tmp_path / "o").exists()


def test_unreachable_scheduler_is_a_message_and_nothing_is_written(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(_config()))
    rc, text = _cli(["run", str(path), "--out", str(tmp_path / "o"), "--backend", "dask",
                     "--scheduler", "nosuch://127.0.0.1:1"], capsys)
    flat = " ".join(text.split())
    assert rc == 2 and "Cannot connect to the Dask scheduler at 'nosuch://127.0.0.1:1'" in flat
    assert "Traceback" not in text and not (tmp_path / "o").exists()


class _NotDask:
    """A TCP service on 127.0.0.1 that is not a Dask scheduler: an HTTP server (it waits for
    a request line that Dask's handshake never sends) or a port that answers garbage."""

    def __init__(self, kind: str) -> None:
        import http.server
        import socket
        import threading

        self.kind = kind
        if kind == "http":
            self.server = http.server.ThreadingHTTPServer(
                ("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
            self.port = self.server.server_address[1]
            target = self.server.serve_forever
        else:
            self.sock = socket.create_server(("127.0.0.1", 0))
            self.sock.settimeout(0.2)
            self.port = self.sock.getsockname()[1]
            self.stop = threading.Event()
            target = self._garbage
        self.thread = threading.Thread(target=target, daemon=True)
        self.thread.start()

    def _garbage(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            conn.sendall(b"\xff" * 64 + b"not dask " * 50)
            time.sleep(0.5)
            conn.close()

    def close(self) -> None:
        if self.kind == "http":
            self.server.shutdown()
            self.server.server_close()
        else:
            self.stop.set()
            self.thread.join()
            self.sock.close()


@pytest.mark.parametrize("kind,cause", [
    ("http", "no answer in Dask's protocol within 3 s (not a Dask scheduler?)"),
    ("garbage", "its answer is not Dask's protocol, so not a Dask scheduler"),
    ("worker", "it answered as 'Worker', not as a Dask scheduler"),
])
def test_a_scheduler_address_that_is_not_dask_is_exit_2_within_the_timeout(
        tmp_path, capsys, monkeypatch, cluster, kind, cause):
    """Was: more than 150 s of hang (an HTTP server), or exit 1 with a traceback ("Unable
    to allocate 3.07 EiB" from the handshake). Now exit 2 with the address and the cause
    within the connect timeout (3 s here), nothing written."""
    import threading

    from streamlearn.evaluation import dask_backend

    monkeypatch.setattr(dask_backend, "CONNECT_TIMEOUT", 3.0)
    service = None
    if kind == "worker":  # a Dask worker's address: Dask's protocol, but not a scheduler
        address = next(iter(cluster.scheduler_info["workers"]))
    else:
        service = _NotDask(kind)
        address = f"tcp://127.0.0.1:{service.port}"
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(_config()))
    result: list = []
    t0 = time.perf_counter()
    try:
        runner = threading.Thread(target=lambda: result.append(_cli(
            ["run", str(path), "--out", str(tmp_path / "o"), "--backend", "dask",
             "--scheduler", address], capsys)), daemon=True)
        runner.start()
        runner.join(timeout=30)
        elapsed = time.perf_counter() - t0
        assert not runner.is_alive(), "streamlearn run hung on a service that is not Dask"
    finally:
        if service is not None:
            service.close()
    rc, text = result[0]
    flat = " ".join(text.split())
    assert rc == 2, text
    assert f"Cannot connect to the Dask scheduler at '{address}' (connect timeout 3 s): " \
        f"{cause}" in flat
    assert "Traceback" not in text and not (tmp_path / "o").exists()
    assert elapsed < 3.0 + 5.0


@pytest.mark.parametrize("to_group", [False, True], ids=["client", "process-group"])
def test_ctrl_c_cancels_and_leaves_complete_records_only(tmp_path, to_group):
    """SIGINT to the client mid-experiment: exit 130 with the usual message, the runs
    already finished are complete records, nothing else is in runs/. To the whole process
    group, as a terminal's Ctrl-C: the local workers had printed a KeyboardInterrupt
    traceback each (hunt of 7 Dec); they now ignore SIGINT and the client stops them."""
    cfg = _config(repeats=20)
    cfg["streams"][0]["max_samples"] = 8000
    cfg["algorithms"] = [{"name": "hoeffding_tree", "label": "HT"}]
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    out = tmp_path / "o"
    cmd = [sys.executable, "-m", "streamlearn", "run", str(path), "--out", str(out),
           "--backend", "dask", "--jobs", "2", "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            # SIGINT at its default in the child even when this session
                            # runs in the background of a non-interactive shell
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                            start_new_session=to_group)
    runs = out / "runs"
    deadline = time.time() + 240  # a loaded machine starts a LocalCluster slowly
    while time.time() < deadline and len(list(runs.glob("*.json"))) < 2:
        time.sleep(0.05)
    assert len(list(runs.glob("*.json"))) >= 2, "no two runs finished within 240 s"
    if to_group:
        os.killpg(proc.pid, signal.SIGINT)
    else:
        os.kill(proc.pid, signal.SIGINT)
    out_text, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Interrupted. Finished runs are saved in" in " ".join(err.split())
    assert "Traceback" not in err + out_text, err
    files = sorted(runs.iterdir())
    assert 2 <= len(files) < 20 and all(f.suffix == ".json" for f in files)
    for f in files:
        rec = json.loads(f.read_text())
        assert rec["complete"] is True and rec["status"] == "ok"


def test_a_worker_with_several_threads_computes_one_run_at_a_time(tmp_path, capsys):
    """`dask worker --nthreads 2`: two runs in threads of one process would share its
    global generator (a learner drawing from it got other numbers than with --jobs 1,
    exit 0) and its CPU clock; the worker takes them one at a time, so the records are
    those of --jobs 1."""
    cfg = _config()
    cfg["repeats"] = 4
    cfg["algorithms"] = [{"name": "tests.evaluation.test_dask_backend:"
                                  "GuessesFromGlobalGenerator", "label": "Guess"}]
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    run_experiment(load_config(path), tmp_path / "serial", jobs=1)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                  scheduler_kwargs={"dashboard": False}) as lc:
        rc, text = _cli(["run", str(path), "--out", str(tmp_path / "dask"), "--backend",
                         "dask", "--scheduler", lc.scheduler_address, "--quiet"], capsys)
    assert rc == 0, text
    a, b = _records(tmp_path / "serial"), _records(tmp_path / "dask")
    assert len(a) == 4 and a.keys() == b.keys()
    for k in a:
        assert json.dumps(a[k]["metrics"]) == json.dumps(b[k]["metrics"]), k


COPY = '''
class Constant:
    """Predicts class CLASS."""

    def predict_one(self, x):
        return CLASS

    def learn_one(self, x, y):
        pass
'''


def test_a_worker_with_another_copy_of_the_learner_fails_its_runs(tmp_path, capsys,
                                                                   monkeypatch):
    """The worker imports its own copy of a user's module. One that differs from the
    client's (here: predicts class 1, the client's class 0) gave its numbers under the
    client's code hash, exit 0; now each run fails, naming the file, exit 1."""
    client, worker = tmp_path / "client", tmp_path / "worker"
    for folder, cls in ((client, 0), (worker, 1)):
        folder.mkdir()
        (folder / "copied_learner.py").write_text(COPY.replace("CLASS", str(cls)))
    cfg = _config(algorithms=[{"name": "copied_learner:Constant", "label": "Mine"}])
    (client / "c.yaml").write_text(yaml.safe_dump(cfg))
    monkeypatch.chdir(worker)  # the workers start here, with this folder importable
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                  scheduler_kwargs={"dashboard": False},
                                  env={"PYTHONPATH": str(worker)}) as lc:
        monkeypatch.chdir(client)
        monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(client))])
        try:
            rc, text = _cli(["run", "c.yaml", "--out", str(tmp_path / "out"), "--backend",
                             "dask", "--scheduler", lc.scheduler_address, "--quiet"], capsys)
        finally:
            sys.modules.pop("copied_learner", None)
            from streamlearn import components

            for key in [k for k in components._resolved if "copied_learner" in k[1]]:
                del components._resolved[key]
    assert rc == 1, text
    recs = _records(tmp_path / "out")
    assert sorted(recs) == ["SEA__Mine__seed0", "SEA__Mine__seed1"]
    for rec in recs.values():
        assert rec["status"] == "failed" and rec["retry_on_resume"] is True
        assert "the learner 'copied_learner:Constant' that this process loaded" in rec["error"]
        assert str(worker / "copied_learner.py") in rec["error"]


class SlowMajority(DiesInWorker):
    """The majority-class learner (it never dies: no marker folder), sleeping 1 ms per
    update, so a run lasts seconds."""

    def learn_one(self, x: np.ndarray, y: int) -> None:
        super().learn_one(x, y)
        time.sleep(0.001)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(args: list[str], log: Path) -> subprocess.Popen:
    with log.open("w") as f:  # the child keeps its own copy of the descriptor
        return subprocess.Popen([sys.executable, "-m", *args], stdout=f,
                                stderr=subprocess.STDOUT, start_new_session=True)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


def test_a_scheduler_lost_mid_run_fails_the_unfinished_runs_and_a_rerun_resumes(tmp_path):
    """The scheduler killed while runs are in flight (a crashed or preempted machine). Was:
    a 90-line traceback (ClosedClientError, raised again by the clean-up's cancel), exit 1,
    no summary and no word on the runs in flight. Now each unfinished run gets a failed
    record that says so, the finished ones stay complete, the summary is written, exit 1;
    the same command with a scheduler again computes only the failed runs."""
    cfg = _config(repeats=3)
    cfg["streams"][0]["max_samples"] = 3000
    cfg["algorithms"] = [{"name": "rls", "label": "RLS"},
                         {"name": "tests.evaluation.test_dask_backend:SlowMajority",
                          "label": "Slow"}]
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    out, address = tmp_path / "o", f"tcp://127.0.0.1:{_free_port()}"
    scheduler_cmd = ["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port",
                     address.rsplit(":", 1)[1], "--no-dashboard"]
    worker_cmd = ["distributed.cli.dask_worker", address, "--nworkers", "2", "--nthreads",
                  "1", "--no-dashboard"]
    scheduler = _start(scheduler_cmd, tmp_path / "scheduler.log")
    worker = _start(worker_cmd, tmp_path / "worker.log")
    cmd = [sys.executable, "-m", "streamlearn", "run", str(path), "--out", str(out),
           "--backend", "dask", "--scheduler", address, "--quiet"]
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, cwd=Path(__file__).parents[2])
        runs = out / "runs"
        deadline = time.time() + 240
        while time.time() < deadline and len(list(runs.glob("*RLS*.json"))) < 1:
            time.sleep(0.05)
        assert list(runs.glob("*RLS*.json")), "no run finished within 240 s"
        _stop(scheduler)
        stdout, stderr = proc.communicate(timeout=120)
        text = stdout + stderr
        assert proc.returncode == 1, text
        assert "Traceback" not in text
        records = _records(out)
        assert len(records) == 6, sorted(records)
        complete = {k for k, r in records.items() if r["status"] == "ok" and r["complete"]}
        failed = {k for k, r in records.items() if r["status"] == "failed"}
        assert complete | failed == set(records) and failed, records.keys()
        for k in failed:
            assert records[k]["retry_on_resume"] is True
            assert f"the Dask scheduler at '{address}' was lost" in records[k]["error"]
        flat = " ".join(text.split())
        assert f"{len(failed)} failed" in flat and (out / "summary.csv").exists()
        before = {k: records[k] for k in complete}

        _stop(worker)
        scheduler = _start(scheduler_cmd, tmp_path / "scheduler2.log")
        worker = _start(worker_cmd, tmp_path / "worker2.log")
        again = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                               cwd=Path(__file__).parents[2])
        assert again.returncode == 0, again.stdout + again.stderr
        after = _records(out)
        assert all(r["status"] == "ok" and r["complete"] for r in after.values())
        assert {k: after[k] for k in complete} == before  # kept, not recomputed
        flat = " ".join(again.stdout.split() + again.stderr.split())
        assert f"{len(failed)} run(s) computed, {len(complete)} already complete" in flat
    finally:
        _stop(scheduler)
        _stop(worker)


def test_a_scheduler_without_workers_fails_the_runs_after_a_while(tmp_path, capsys,
                                                                   monkeypatch):
    """Hunt 7 (7 Dec): a scheduler with no worker (never had one, or restarted without
    them) left the command waiting for ever, silent under --quiet. After
    NO_WORKER_SECONDS without a worker the waiting runs fail (retried on resume), exit 1."""
    from streamlearn.evaluation import dask_backend

    monkeypatch.setattr(dask_backend, "NO_WORKER_SECONDS", 3.0)
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(_config()))
    with distributed.LocalCluster(n_workers=0, processes=True, host="127.0.0.1",
                                  dashboard_address="127.0.0.1:0",
                                  scheduler_kwargs={"dashboard": False}) as lc:
        t = time.time()
        rc, text = _cli(["run", str(path), "--out", str(tmp_path / "out"), "--backend",
                         "dask", "--scheduler", lc.scheduler_address, "--quiet"], capsys)
    assert rc == 1, text
    assert time.time() - t < 60
    recs = _records(tmp_path / "out")
    assert recs and all(r["status"] == "failed" and r["retry_on_resume"] for r in recs.values())
    assert "had no worker for 3 s" in next(iter(recs.values()))["error"]


def test_a_bad_delay_column_is_refused_as_on_the_processes_backend(tmp_path, capsys,
                                                                   cluster):
    """Fixes A (1): a negative value in the delay column of `delay: {column: J}` stopped
    `--backend processes` with a config error, but on Dask every run failed on the
    workers (exit 1, records and a summary of failed runs written). Now both the local
    cluster and a remote scheduler (the CSV is readable here) refuse it before anything
    is written, exit 2."""
    delays = [3] * 40
    delays[25] = -2
    rows = ["x,lag,label"] + [f"{i % 7}.5,{d},{i % 2}" for i, d in enumerate(delays)]
    (tmp_path / "d.csv").write_text("\n".join(rows) + "\n")
    cfg = _config(repeats=1, protocol={"name": "prequential-classification",
                                       "params": {"delay": {"column": 1}}})
    cfg["streams"] = [{"name": "csv", "label": "D",
                       "params": {"path": str(tmp_path / "d.csv"), "target": "label"}}]
    cfg["algorithms"] = [{"name": "no_change"}]
    cfg["metrics"] = ["oca"]
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    for where in (["--jobs", "1"], ["--scheduler", cluster.scheduler_address]):
        rc, text = _cli(["run", str(path), "--out", str(tmp_path / "o"), "--backend", "dask",
                         "--quiet", *where], capsys)
        assert rc == 2, text
        assert "the delay column gives sample 25 the delay -2.0" in " ".join(text.split())
        assert "Traceback" not in text and not (tmp_path / "o").exists()
