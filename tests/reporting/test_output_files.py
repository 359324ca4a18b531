"""The tables and figures of an output directory show this config's runs only: a config
changed and run again into the same directory removes the files the earlier report wrote
and this one does not (a stream, a kind or a table format taken out), names them, and
leaves every other file (the user's, the records) alone."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from streamlearn.reporting.output_files import LIST_NAME, previous_outputs, replace_outputs
from tests.cli_helpers import run_cli


def _config(tmp_path: Path, name: str, streams: list[str], *, window: bool,
            tables: list[str]) -> Path:
    cfg = {"name": "stale", "protocol": "prequential-classification", "repeats": 1,
           "streams": [{"name": s.lower(), "label": s, "max_samples": 300} for s in streams],
           "algorithms": [{"name": "perceptron", "label": "Perc"}],
           "metrics": ["oca"],
           "evaluation": {"checkpoints": 5, **({"window": 50} if window else {})},
           "outputs": {"dir": str(tmp_path / "out"), "plots": ["learning_curve", "time"],
                       "curve_metric": "oce", "tables": tables}}
    path = tmp_path / name
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_a_changed_config_leaves_no_figure_or_table_of_the_earlier_one(tmp_path, capsys):
    """Was: after taking Hyperplane, the window and the CSV tables out of the config,
    curve_oce_Hyperplane.png/.svg, the curve-windowed_* figures, summary.csv and
    curves.csv of the earlier run stayed beside the new ones (exit 0)."""
    out = tmp_path / "out"
    first = _config(tmp_path, "a.yaml", ["SEA", "Hyperplane"], window=True,
                    tables=["markdown", "csv"])
    second = _config(tmp_path, "b.yaml", ["SEA"], window=False, tables=["markdown"])
    rc, text = run_cli(["run", str(first), "-q"], capsys)
    assert rc == 0, text
    rc, text = run_cli(["report", str(out), "--html"], capsys)
    assert rc == 0, text
    before = {p.name for p in out.iterdir()}
    assert {"curve_oce_Hyperplane.png", "curve_oce_Hyperplane.svg",
            "curve-windowed_oce_SEA.png", "summary.csv", "curves.csv"} <= before
    (out / "curve_oce_Mine.png").write_bytes(b"the user's own figure")
    (out / "notes.md").write_text("mine")
    records = sorted(p.name for p in (out / "runs").iterdir())

    rc, text = run_cli(["run", str(second), "-q"], capsys)
    assert rc == 0, text
    after = {p.name for p in out.iterdir()}
    gone = {"curve_oce_Hyperplane.png", "curve_oce_Hyperplane.svg",
            "curve-windowed_oce_SEA.png", "curve-windowed_oce_SEA.svg",
            "curve-windowed_oce_Hyperplane.png", "curve-windowed_oce_Hyperplane.svg",
            "summary.csv", "curves.csv"}
    assert not gone & after, gone & after
    assert {"curve_oce_SEA.png", "curve_oce_SEA.svg", "summary.md", "time_per_sample.png",
            "curve_oce_Mine.png", "notes.md", "experiment.json", "runs"} <= after
    assert sorted(p.name for p in (out / "runs").iterdir()) == records  # records kept
    flat = " ".join(text.split())
    assert f"removed {len(gone)} file(s) that an earlier report wrote" in flat, text
    # the HTML page an earlier `report --html` wrote is this config's now
    page = (out / "report.html").read_text()
    assert "Hyperplane" not in page.split("<h2>Config</h2>")[0]
    assert 'alt="curve_oce_SEA"' in page and "curve-windowed" not in page
    assert set(previous_outputs(out)) == {p.name for p in out.iterdir()} - {
        "curve_oce_Mine.png", "notes.md", "experiment.json", "runs", LIST_NAME}


def test_only_files_the_list_names_are_removed(tmp_path):
    """No list (a folder written before it existed): nothing is removed. A list naming
    records, folders or paths outside the directory: none of them is touched."""
    out = tmp_path / "out"
    (out / "runs").mkdir(parents=True)
    for name in ("experiment.json", "runs.tar.xz", "old.png", "summary.md"):
        (out / name).write_text("x")
    (out / "runs" / "r.json").write_text("{}")
    (tmp_path / "outside.png").write_text("x")
    assert previous_outputs(out) == []
    assert replace_outputs(out, [out / "summary.md"], previous_outputs(out)) == []
    assert (out / "old.png").is_file()
    (out / LIST_NAME).write_text(json.dumps({"written": [
        "experiment.json", "runs.tar.xz", "runs", "../outside.png", "runs/r.json",
        str(tmp_path / "outside.png"), "", ".", "..", 3, "old.png"]}))
    assert previous_outputs(out) == ["old.png"]
    removed = replace_outputs(out, [out / "summary.md"], previous_outputs(out))
    assert removed == [out / "old.png"]
    assert {p.name for p in out.iterdir()} == {"experiment.json", "runs.tar.xz", "runs",
                                              "summary.md", LIST_NAME}
    assert (out / "runs" / "r.json").is_file() and (tmp_path / "outside.png").is_file()
    (out / LIST_NAME).write_text("not json")
    assert previous_outputs(out) == []


def _pa_config(tmp_path: Path, name: str, c: float) -> Path:
    cfg = {"name": "partial", "protocol": "prequential-classification", "repeats": 1,
           "streams": [{"name": "sea", "label": "SEA", "max_samples": 300}],
           "algorithms": [{"name": "passive_aggressive", "label": "PA", "params": {"C": c}}],
           "metrics": ["oca"], "evaluation": {"checkpoints": 5},
           "outputs": {"dir": str(tmp_path / "out"), "plots": ["learning_curve"],
                       "curve_metric": "oce", "tables": ["markdown", "csv"]}}
    path = tmp_path / name
    path.write_text(yaml.safe_dump(cfg))
    return path


def _pa_row(out: Path) -> str:
    return next(line for line in (out / "summary.csv").read_text().splitlines()
                if line.startswith("SEA,PA,oca,"))


def test_an_interrupted_writing_of_the_tables_is_said_and_repaired(tmp_path, capsys,
                                                                   monkeypatch):
    """Was: Ctrl-C while `run` wrote its tables left the new config's summary.md beside
    the earlier config's summary.csv, with a bare "Interrupted." (exit 130) and nothing in
    the folder telling the two apart. Now the list marks the build in progress, the
    message says the tables may be partial and how to rewrite them, and `report` (or the
    next run) rewrites them and says so."""
    from streamlearn.reporting import output_files, plots

    out = tmp_path / "out"
    rc, text = run_cli(["run", str(_pa_config(tmp_path, "x.yaml", 0.01)), "-q"], capsys)
    assert rc == 0, text
    old_row = _pa_row(out)
    rc, text = run_cli(["run", str(_pa_config(tmp_path, "ref.yaml", 1.0)), "-q",
                        "--out", str(tmp_path / "ref")], capsys)
    assert rc == 0, text
    new_row = _pa_row(tmp_path / "ref")
    assert new_row != old_row

    def ctrl_c(*args, **kwargs):  # after summary.md and summary.csv, before the plots
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(plots, "learning_curves", ctrl_c)
        rc, text = run_cli(["run", str(_pa_config(tmp_path, "a.yaml", 1.0)), "-q"], capsys)
    flat = " ".join(text.split())
    assert rc == 130, flat
    assert "Interrupted while the tables and plots were written" in flat, flat
    assert "may be partial" in flat and f"streamlearn report {out}" in flat, flat
    assert output_files.build_interrupted(out)
    assert not (out / ".streamlearn.lock").exists()

    rc, text = run_cli(["report", str(out)], capsys)
    flat = " ".join(text.split())
    assert rc == 0, flat
    assert "had been interrupted" in flat and "all are written again" in flat, flat
    assert not output_files.build_interrupted(out)
    assert _pa_row(out) == new_row
    rc, text = run_cli(["report", str(out)], capsys)
    assert rc == 0 and "had been interrupted" not in text, text


def test_run_writes_its_tables_under_the_lock(tmp_path, capsys, monkeypatch):
    """Was: the tables were written after the lock was released, so a second command
    could start on the folder while the first still wrote them."""
    from streamlearn.evaluation.output_dir import OutputDirBusy, OutputDirLock
    from streamlearn.reporting import report

    out = tmp_path / "out"
    real = report.build_report
    busy = []

    def checking(directory, **kwargs):
        try:
            with OutputDirLock(directory):
                busy.append(False)
        except OutputDirBusy:
            busy.append(True)
        return real(directory, **kwargs)

    monkeypatch.setattr(report, "build_report", checking)
    rc, text = run_cli(["run", str(_pa_config(tmp_path, "a.yaml", 1.0)), "-q"], capsys)
    assert rc == 0, text
    assert busy == [True]
    assert not (out / ".streamlearn.lock").exists()


def test_report_on_a_folder_it_cannot_write_shows_the_tables(tmp_path, capsys,
                                                             monkeypatch):
    """Was: `report` on a read-only results folder stopped with the write error alone
    (exit 4); the tables, which need no write, are now shown before it."""
    from streamlearn import atomic

    out = tmp_path / "out"
    rc, text = run_cli(["run", str(_pa_config(tmp_path, "a.yaml", 1.0)), "-q"], capsys)
    assert rc == 0, text
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}

    def read_only(path, **kwargs):
        raise atomic.OutputError(f"Cannot write {path}: the file system is read-only.")

    monkeypatch.setattr(atomic, "open_write", read_only)
    rc, text = run_cli(["report", str(out)], capsys)
    assert rc == 4, text
    assert "PA" in text and "OCA (%)" in text, text
    assert "read-only" in text and "Traceback" not in text
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before


def test_the_first_build_interrupted_leaves_no_figure_unlisted(tmp_path, capsys,
                                                              monkeypatch):
    """Was: the first build into a folder, interrupted after its learning curves and
    before its time plot, had listed none of its files; the next config (Hyperplane taken
    out) then left curve_oce_Hyperplane.png beside its own figures. Each file is now
    listed before it is written."""
    from streamlearn.reporting import output_files, plots

    out = tmp_path / "out"
    first = _config(tmp_path, "a.yaml", ["SEA", "Hyperplane"], window=False,
                    tables=["markdown"])
    second = _config(tmp_path, "b.yaml", ["SEA"], window=False, tables=["markdown"])

    def ctrl_c(*args, **kwargs):
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(plots, "time_bars", ctrl_c)
        rc, text = run_cli(["run", str(first), "-q"], capsys)
    assert rc == 130, text
    assert output_files.build_interrupted(out)
    assert (out / "curve_oce_Hyperplane.png").is_file()
    listed = set(previous_outputs(out))
    assert {"summary.md", "curve_oce_Hyperplane.png", "curve_oce_Hyperplane.svg",
            "curve_oce_SEA.png"} <= listed, listed

    rc, text = run_cli(["run", str(second), "-q"], capsys)
    assert rc == 0, text
    after = {p.name for p in out.iterdir()}
    assert not {"curve_oce_Hyperplane.png", "curve_oce_Hyperplane.svg"} & after, after
    assert {"curve_oce_SEA.png", "summary.md", "time_per_sample.png"} <= after
    assert not output_files.build_interrupted(out)
