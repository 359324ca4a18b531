"""The records archive of a results folder (``runs.tar.xz``): deterministic bytes, the
records byte for byte, ``streamlearn report`` and the paper tables from the archive alone,
``unpack`` back to ``runs/``."""

from __future__ import annotations

import io
import json
import os
import shutil
import tarfile
from pathlib import Path

import pytest

from streamlearn.config import parse_config
from streamlearn.evaluation import record_archive
from streamlearn.evaluation.runner import run_experiment
from streamlearn.reporting.papers import forks
from streamlearn.reporting.report import build_report
from tests.cli_helpers import run_cli

TINY = {
    "name": "tiny",
    "repeats": 2,
    "streams": [{"name": "sea", "label": "SEA", "max_samples": 200}],
    "algorithms": [{"name": "perceptron", "label": "Perceptron"},
                   {"name": "rls", "label": "RLS", "params": {"lam": 1.0}}],
    "metrics": ["oca", "mcc"],
    "evaluation": {"checkpoints": 5},
    "reference": {"source": "paper", "values": {"SEA": {"RLS": {"oca": 80.0}}}},
}


def _run_tiny(out: Path, tables: list[str], **extra) -> Path:
    cfg = parse_config({**TINY, **extra,
                        "outputs": {"dir": str(out), "tables": tables, "plots": []}})
    assert not run_experiment(cfg, out).failed
    return out


@pytest.fixture(scope="module")
def experiment(tmp_path_factory) -> Path:
    out = _run_tiny(tmp_path_factory.mktemp("tiny") / "out", ["markdown", "csv"])
    build_report(out)
    return out


@pytest.fixture
def folder(experiment, tmp_path) -> Path:
    dst = tmp_path / "out"
    shutil.copytree(experiment, dst)
    return dst


def test_pack_is_deterministic_and_keeps_the_records_byte_for_byte(folder, capsys):
    rc, out = run_cli(["records", "pack", str(folder)], capsys)
    assert rc == 0, out
    archive = folder / "runs.tar.xz"
    first = archive.read_bytes()
    assert "4 record(s)" in out
    # the same records, written again later (other mtimes): the same bytes
    for p in (folder / "runs").glob("*.json"):
        os.utime(p, (1e9, 1e9))
    (folder / "runs" / "x.pred.npz").write_bytes(b"not archived")
    rc, out = run_cli(["records", "pack", str(folder)], capsys)
    assert rc == 0 and archive.read_bytes() == first
    assert "left out 1 prediction file(s)" in out
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        assert [m.name for m in members] == sorted(
            f"runs/{p.name}" for p in (folder / "runs").glob("*.json"))
        assert {(m.mtime, m.uid, m.gid, m.mode) for m in members} == {(0, 0, 0, 0o644)}
        for m in members:
            fh = tar.extractfile(m)
            assert fh is not None
            assert fh.read() == (folder / m.name).read_bytes()


def test_report_works_from_the_archive_alone(folder, capsys):
    committed = {n: (folder / n).read_text() for n in ("summary.md", "summary.csv")}
    assert run_cli(["records", "pack", str(folder)], capsys)[0] == 0
    shutil.rmtree(folder / "runs")
    for n in committed:
        (folder / n).unlink()
    rc, out = run_cli(["report", str(folder)], capsys)
    assert rc == 0, out
    assert "Records read from" in out and "runs.tar.xz (4 usable)" in " ".join(out.split())
    for n, text in committed.items():
        assert (folder / n).read_text() == text, n
    assert not (folder / "runs").exists()  # reading does not unpack


def test_runs_dir_comes_before_the_archive(folder, capsys):
    assert run_cli(["records", "pack", str(folder)], capsys)[0] == 0
    victim = next((folder / "runs").glob("SEA__RLS__seed0.json"))
    rec = json.loads(victim.read_text())
    rec["metrics"]["oca"] = 0.5
    victim.write_text(json.dumps(rec))
    rc, out = run_cli(["report", str(folder)], capsys)
    assert rc == 0 and "Records read from" not in out
    assert record_archive.store(folder).archive is None


def test_unpack_restores_runs_and_refuses_to_overwrite(folder, capsys):
    original = {p.name: p.read_bytes() for p in (folder / "runs").glob("*.json")}
    assert run_cli(["records", "pack", str(folder)], capsys)[0] == 0
    shutil.rmtree(folder / "runs")
    rc, out = run_cli(["records", "unpack", str(folder)], capsys)
    assert rc == 0, out
    assert {p.name: p.read_bytes() for p in (folder / "runs").glob("*.json")} == original
    (folder / "runs" / "SEA__RLS__seed1.json").write_text("{}")
    rc, out = run_cli(["records", "unpack", str(folder)], capsys)
    assert rc == 2 and "SEA__RLS__seed1.json" in out.replace("\n", "")
    assert (folder / "runs" / "SEA__RLS__seed1.json").read_text() == "{}"


def test_an_interrupted_unpack_leaves_no_partial_runs(folder, capsys, monkeypatch):
    """Was: unpack wrote runs/ file by file, so Ctrl-C left a runs/ with part of the
    records (557 of 1,020), which every reader then took for the folder's records instead
    of the archive. Now the records appear in runs/ all at once, or not at all."""
    original = {p.name: p.read_bytes() for p in (folder / "runs").glob("*.json")}
    assert run_cli(["records", "pack", str(folder)], capsys)[0] == 0
    shutil.rmtree(folder / "runs")
    real = record_archive.atomic.write_bytes
    calls = []

    def interrupted_at_the_third(path, data):
        calls.append(path)
        if len(calls) == 3:
            raise KeyboardInterrupt
        real(path, data)

    monkeypatch.setattr(record_archive.atomic, "write_bytes", interrupted_at_the_third)
    with pytest.raises(KeyboardInterrupt):
        record_archive.unpack(folder)
    monkeypatch.undo()
    assert len(calls) == 3
    assert not (folder / "runs").exists()
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".runs")) == []
    assert record_archive.store(folder).archive is not None  # readers use the archive
    rc, out = run_cli(["records", "unpack", str(folder)], capsys)
    assert rc == 0, out
    assert {p.name: p.read_bytes() for p in (folder / "runs").glob("*.json")} == original


def test_report_refuses_a_runs_dir_short_of_the_archives_records(folder, capsys):
    """Was: with part of the records in runs/ (an unpack interrupted by an earlier
    version), report read only those, ignored the complete archive and overwrote the
    tables with partial ones, exit 0. Now it names the records runs/ lacks, writes
    nothing, and exits non-zero; once unpacked, the tables are the archive's again."""
    committed = {n: (folder / n).read_bytes() for n in ("summary.md", "summary.csv")}
    assert run_cli(["records", "pack", str(folder)], capsys)[0] == 0
    (folder / "runs" / "SEA__RLS__seed1.json").unlink()
    (folder / "runs" / "SEA__Perceptron__seed0.json").unlink()
    rc, out = run_cli(["report", str(folder)], capsys)
    flat = "".join(out.split())
    assert rc != 0 and "Traceback" not in out, out
    assert "lacks2record(s)ofplannedrunsthat" in flat, out
    assert "SEA__RLS__seed1" in flat and f"streamlearnrecordsunpack{folder}" in flat, out
    assert {n: (folder / n).read_bytes() for n in committed} == committed
    rc, out = run_cli(["records", "unpack", str(folder)], capsys)
    assert rc == 0, out
    rc, out = run_cli(["report", str(folder)], capsys)
    assert rc == 0, out
    assert {n: (folder / n).read_bytes() for n in committed} == committed


def test_pack_and_unpack_wait_for_a_run_on_the_folder(folder, capsys):
    """While a `streamlearn run` holds the folder (its lock), pack would archive a
    snapshot without the runs in flight (exit 0, "4 planned run(s) have no record") and
    unpack could meet a record the run is writing; both now stop with exit 5, as a
    second run does, and write nothing."""
    from streamlearn.evaluation.output_dir import OutputDirLock

    assert run_cli(["records", "pack", str(folder)], capsys)[0] == 0
    archive = (folder / "runs.tar.xz").read_bytes()
    shutil.rmtree(folder / "runs")
    (folder / "runs").mkdir()
    with OutputDirLock(folder):
        for command, then in (("unpack", "Unpack the archive when it has finished."),
                              ("pack", "Pack its records when it has finished.")):
            rc, out = run_cli(["records", command, str(folder)], capsys)
            flat = " ".join(out.split())
            assert rc == 5, out
            assert "Another streamlearn command" in flat and then in flat
    assert (folder / "runs.tar.xz").read_bytes() == archive
    assert not any((folder / "runs").iterdir())


def test_report_while_a_run_holds_the_folder_shows_and_writes_nothing(folder, capsys):
    """A report that read the records just before a run's last one and wrote its tables
    just after the run's left them a run short, exit 0. While a run holds the folder a
    report now shows the tables so far and writes nothing; otherwise it writes them
    holding the folder's lock, so a run cannot end in between."""
    from streamlearn.evaluation.output_dir import OutputDirLock

    (folder / "runs" / "SEA__RLS__seed1.json").unlink()  # the run's last record, not yet
    before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir() if p.is_file()}
    with OutputDirLock(folder):
        rc, out = run_cli(["report", str(folder), "--html"], capsys)
    flat = " ".join(out.split())
    assert rc == 0, out
    assert f"A streamlearn run (process {os.getpid()}) is computing into {folder}" in flat
    assert "no file was written" in flat and "wrote" not in flat
    assert "1 planned run(s) have no complete record yet" in flat
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir() if p.is_file()} == before
    rc, out = run_cli(["report", str(folder)], capsys)  # the run has ended: written
    assert rc == 0 and "wrote" in out and not (folder / ".streamlearn.lock").exists()


def test_a_folder_above_packs_every_experiment_below(folder, tmp_path, capsys):
    other = tmp_path / "tree" / "b"
    shutil.copytree(folder, tmp_path / "tree" / "a")
    shutil.copytree(folder, other)
    rc, out = run_cli(["records", "pack", str(tmp_path / "tree")], capsys)
    assert rc == 0, out
    assert (tmp_path / "tree" / "a" / "runs.tar.xz").is_file()
    assert (other / "runs.tar.xz").read_bytes() == (
        tmp_path / "tree" / "a" / "runs.tar.xz").read_bytes()


def test_a_damaged_archive_is_named(folder, capsys):
    assert run_cli(["records", "pack", str(folder)], capsys)[0] == 0
    shutil.rmtree(folder / "runs")
    data = (folder / "runs.tar.xz").read_bytes()
    (folder / "runs.tar.xz").write_bytes(data[: len(data) // 2])
    rc, out = run_cli(["report", str(folder)], capsys)
    assert rc == 2
    # rich folds a long path anywhere (a long temporary directory, e.g. under pytest-xdist)
    assert "runs.tar.xzcannotbereadasanxzarchive" in "".join(out.split())


def test_archive_members_outside_runs_are_ignored(tmp_path):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz") as tar:
        for name in ("../evil.json", "runs/sub/x.json", "runs/ok.json", "other/y.json"):
            info = tarfile.TarInfo(name)
            info.size = 2
            tar.addfile(info, io.BytesIO(b"{}"))
    (tmp_path / "runs.tar.xz").write_bytes(buf.getvalue())
    assert list(record_archive.read_archive(tmp_path / "runs.tar.xz")) == ["ok"]


def test_paper_tables_read_the_archive(tmp_path):
    """A paper builder (FORKS pnk_ridge.md) gives the same text from archives as from runs/."""
    for ds in forks.DS:
        members = {}
        for r in forks.PNK_RIDGE:
            for seed, rate in enumerate((0.30, 0.32)):
                members[f"PROS-N-KONS-ridge-{r}__{seed}"] = json.dumps({
                    "status": "ok", "complete": True, "algorithm": f"PROS-N-KONS ridge={r}",
                    "learner": "PROSNKONS(ridge=1, sigma=128.0)",
                    "metrics": {"mistake_rate": rate}, "timing": {"total_seconds": 0.5},
                    "learner_counters": {"n_sv_": 40 + seed}}).encode()
        d = tmp_path / "archived" / "pnk_ridge" / ds
        d.mkdir(parents=True)
        (d / "runs.tar.xz").write_bytes(record_archive.archive_bytes(members))
        runs = tmp_path / "files" / "pnk_ridge" / ds / "runs"
        runs.mkdir(parents=True)
        for rid, data in members.items():
            (runs / f"{rid}.json").write_bytes(data)
    from_archive = forks.pnk_ridge(tmp_path / "archived")
    assert "not run" not in from_archive
    assert from_archive == forks.pnk_ridge(tmp_path / "files")


def test_a_run_beside_an_archive_says_to_pack(folder, tmp_path, capsys):
    import yaml

    assert run_cli(["records", "pack", str(folder)], capsys)[0] == 0
    shutil.rmtree(folder / "runs")
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({**TINY, "outputs": {"dir": str(folder),
                                                          "tables": ["markdown"],
                                                          "plots": []}}))
    # the archive's complete records are reused (into runs/, the same bytes): nothing to pack
    rc, out = run_cli(["run", str(config), "--quiet"], capsys)
    assert rc == 0, out
    assert "0 run(s) computed" in out
    assert "still holds the earlier records" not in " ".join(out.split())
    # recomputed records (new times) differ from the archive's: say to pack them
    rc, out = run_cli(["run", str(config), "--quiet", "--force"], capsys)
    assert rc == 0, out
    assert "still holds the earlier records" in " ".join(out.split())


# ------------------------------------------------------ the opt-in predictions archive


@pytest.fixture(scope="module")
def experiment_with_predictions(tmp_path_factory) -> Path:
    return _run_tiny(tmp_path_factory.mktemp("tiny_pred") / "out", ["markdown"],
                     evaluation={"checkpoints": 5, "save_predictions": True})


@pytest.fixture
def pred_folder(experiment_with_predictions, tmp_path) -> Path:
    return Path(shutil.copytree(experiment_with_predictions, tmp_path / "out"))


def test_predictions_are_archived_only_on_request_and_read_back(pred_folder, capsys):
    runs = pred_folder / "runs"
    files = {p.name: p.read_bytes() for p in runs.glob("*.pred.npz")}
    assert len(files) == 4
    rc, out = run_cli(["records", "pack", str(pred_folder)], capsys)
    assert rc == 0 and not record_archive.predictions_path(pred_folder).exists()
    assert "left out 4 prediction file(s)" in out
    rc, out = run_cli(["records", "pack", "--predictions", str(pred_folder)], capsys)
    assert rc == 0, out
    assert "4 prediction file(s)" in out and "left out" not in out
    parchive = record_archive.predictions_path(pred_folder)
    first = parchive.read_bytes()
    with tarfile.open(parchive) as tar:
        assert sorted(m.name for m in tar.getmembers()) == sorted(
            ["records.sha256", *(f"runs/{n}" for n in files)])
    # deterministic, and kept up to date by a plain pack once the folder has opted in
    for p in runs.iterdir():
        os.utime(p, (1e9, 1e9))
    assert run_cli(["records", "pack", str(pred_folder)], capsys)[0] == 0
    assert parchive.read_bytes() == first
    # read from runs/ while it holds records, from the archive once it does not
    rid = "SEA__RLS__seed1"
    assert record_archive.read_predictions(pred_folder, rid) == files[f"{rid}.pred.npz"]
    shutil.rmtree(runs)
    assert record_archive.has_predictions(pred_folder)
    assert record_archive.read_predictions(pred_folder, rid) == files[f"{rid}.pred.npz"]
    assert record_archive.read_predictions(pred_folder, "no_such_run") is None
    # unpack gives back the records and the predictions, byte for byte
    assert run_cli(["records", "unpack", str(pred_folder)], capsys)[0] == 0
    assert {p.name: p.read_bytes() for p in runs.glob("*.pred.npz")} == files


def test_pack_refuses_a_complete_run_without_predictions_and_writes_nothing(pred_folder,
                                                                            capsys):
    assert run_cli(["records", "pack", "--predictions", str(pred_folder)], capsys)[0] == 0
    before = {n: (pred_folder / n).read_bytes()
              for n in ("runs.tar.xz", record_archive.PREDICTIONS_NAME)}
    victim = pred_folder / "runs" / "SEA__Perceptron__seed0.json"
    rec = json.loads(victim.read_text())
    rec["metrics"]["oca"] = 0.25  # a changed record, so a pack would change runs.tar.xz
    victim.write_text(json.dumps(rec))
    (pred_folder / "runs" / "SEA__Perceptron__seed0.pred.npz").unlink()
    rc, out = run_cli(["records", "pack", str(pred_folder)], capsys)
    out = " ".join(out.split())
    assert rc != 0 and "no saved predictions" in out and "SEA__Perceptron__seed0" in out
    assert "Traceback" not in out
    for n, data in before.items():
        assert (pred_folder / n).read_bytes() == data, n


def test_without_records_in_runs_there_are_no_predictions_to_read(pred_folder):
    # predictions beside no record: the records (and so the predictions) are the archive's
    assert record_archive.has_predictions(pred_folder)
    for p in (pred_folder / "runs").glob("*.json"):
        p.unlink()
    assert not record_archive.has_predictions(pred_folder)
    assert record_archive.read_predictions(pred_folder, "SEA__RLS__seed0") is None


def test_a_predictions_archive_of_other_records_is_refused(pred_folder, capsys):
    """A pack interrupted between its two writes leaves runs.tar.xz new and
    predictions.tar.xz old: every reader refuses the pair instead of serving the old
    predictions as the new runs'."""
    assert run_cli(["records", "pack", "--predictions", str(pred_folder)], capsys)[0] == 0
    parchive = record_archive.predictions_path(pred_folder)
    old = parchive.read_bytes()
    victim = pred_folder / "runs" / "SEA__RLS__seed0.json"
    rec = json.loads(victim.read_text())
    rec["metrics"]["oca"] = 0.25  # a rerun with another result
    victim.write_text(json.dumps(rec))
    assert run_cli(["records", "pack", str(pred_folder)], capsys)[0] == 0
    assert parchive.read_bytes() != old  # the digest of the records changed with them
    parchive.write_bytes(old)  # as if the pack had stopped before its second write
    shutil.rmtree(pred_folder / "runs")
    with pytest.raises(record_archive.ArchiveError, match="not packed with the records"):
        record_archive.read_predictions(pred_folder, "SEA__RLS__seed1")
    rc, out = run_cli(["records", "unpack", str(pred_folder)], capsys)
    out = " ".join(out.split())
    assert rc != 0 and "not packed with the records" in out and "Traceback" not in out
    assert not (pred_folder / "runs").exists()


def test_a_predictions_archive_without_its_records_digest_is_refused(pred_folder, capsys):
    assert run_cli(["records", "pack", "--predictions", str(pred_folder)], capsys)[0] == 0
    preds = {p.name.removesuffix(".pred.npz"): p.read_bytes()
             for p in (pred_folder / "runs").glob("*.pred.npz")}
    record_archive.predictions_path(pred_folder).write_bytes(
        record_archive.archive_bytes(preds, ".pred.npz"))  # no records.sha256
    shutil.rmtree(pred_folder / "runs")
    with pytest.raises(record_archive.ArchiveError, match="is missing"):
        record_archive.read_predictions(pred_folder, "SEA__RLS__seed1")


def test_pack_leaves_out_a_record_of_another_config(folder, capsys):
    """A run of a changed config interrupted before it wrote its record leaves the old
    config's record under the same run id: pack had archived it as this config's (hunt
    of 7 Dec). It is left out and the run counted as without a record."""
    import json as _json

    manifest = _json.loads((folder / "experiment.json").read_text())
    rid = manifest["runs"][0]["run_id"]
    path = folder / "runs" / f"{rid}.json"
    rec = _json.loads(path.read_text())
    rec["digest"] = "0" * 16  # as a record of another config of this run id
    path.write_text(_json.dumps(rec))
    rc, out = run_cli(["records", "pack", str(folder)], capsys)
    assert rc == 0, out
    flat = " ".join(out.split())
    assert "1 planned run(s) have no record" in flat and f"{rid}.json" in flat
    names = [m for m in record_archive.read_archive(folder / "runs.tar.xz")]
    assert rid not in names and len(names) == len(manifest["runs"]) - 1


@pytest.mark.parametrize("damage", ["truncated", "not_complete", "a_list"])
def test_pack_refuses_a_record_that_is_not_a_finished_runs(folder, capsys, damage):
    """Was: a truncated record (digest unreadable, so not "of another config") was
    archived, exit 0, and the committed archive held an unusable record. Now pack names
    it and writes nothing."""
    assert run_cli(["records", "pack", str(folder)], capsys)[0] == 0
    archive = (folder / "runs.tar.xz").read_bytes()
    victim = folder / "runs" / "SEA__RLS__seed1.json"
    good = victim.read_text()
    if damage == "truncated":
        victim.write_text(good[:700])
    elif damage == "not_complete":
        victim.write_text(json.dumps({**json.loads(good), "complete": False}))
    else:
        victim.write_text("[]")
    (folder / "runs" / "SEA__RLS__seed0.json").write_text(json.dumps({
        **json.loads(good), "digest": "0" * 16}))  # a stale one beside it: left out as ever
    rc, out = run_cli(["records", "pack", str(folder)], capsys)
    flat = " ".join(out.split())
    assert rc != 0 and "Traceback" not in out, flat
    assert "SEA__RLS__seed1.json" in "".join(out.split()), flat
    assert {"truncated": "does not parse as JSON", "not_complete": "is not marked complete",
            "a_list": "is a JSON list"}[damage] in flat, flat
    assert "nothing was written" in flat
    assert (folder / "runs.tar.xz").read_bytes() == archive
