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
