"""Reporting: display precision and units from the records, 80-column tables, reports on
corrupt or incomplete records, and metric-vs-parameter plots of sweeps."""

from __future__ import annotations

import io
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from rich.cells import cell_len
from rich.console import Console
from typer.testing import CliRunner

from streamlearn.cli.app import app
from streamlearn.config import parse_config
from streamlearn.evaluation import records
from streamlearn.evaluation.runner import run_experiment
from streamlearn.reporting import plots, tables
from streamlearn.reporting.display import fmt_mean_sd, metric_display
from streamlearn.reporting.report import build_report
from streamlearn.reporting.summary import COLUMNS, summarize

METRICS = ["oca", "bacc", "avrbacc", "f1", "mcc"]
LAMS = [0.001, 0.1, 10.0, 1000.0]

# A realistic table: five metrics with paper and Δ columns, µs/sample and µs/update
# (per-sample loop), long sweep labels, a cited entry; and a sweep to plot.
EXPERIMENT = {
    "name": "rep",
    "repeats": 2,
    "streams": [
        {"name": "sea", "label": "SEA", "max_samples": 300, "reseed": True},
        {"name": "hyperplane", "label": "Hyperplane", "max_samples": 300, "reseed": True},
    ],
    "algorithms": [
        {"name": "rls", "label": "RLS (ours) lam={lam:g}", "sweep": {"lam": LAMS}},
        {"name": "hoeffding_tree", "label": "HT"},
        {"name": "perceptron", "label": "Perceptron"},
    ],
    "metrics": METRICS,
    "evaluation": {"fused": False, "checkpoints": 10},
    "reference": {
        "source": "paper",
        "cited": ["HBP"],
        "values": {"SEA": {
            "HT": dict(zip(METRICS, [86.4, 85.1, 84.0, 85.5, 70.1], strict=True)),
            "RLS (ours) lam=0.1": dict(zip(METRICS, [80.0, 79, 78, 77, 60], strict=True)),
            "HBP": {"oca": 82.37},
        }},
    },
}


@pytest.fixture(scope="module")
def experiment(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("rep") / "out"
    cfg = parse_config({**EXPERIMENT, "outputs": {"dir": str(out)}})
    res = run_experiment(cfg, out)
    assert not res.failed
    return out


@pytest.fixture
def copy(experiment, tmp_path) -> Path:
    """A private copy of the experiment directory, free to damage."""
    dst = tmp_path / "out"
    shutil.copytree(experiment, dst)
    return dst


def _edit_records(out: Path, edit) -> None:
    for p in sorted((out / "runs").glob("*.json")):
        rec = json.loads(p.read_text())
        edit(rec)
        p.write_text(json.dumps(rec))


# --------------------------------------------------------------------------------------
# 1. Precision, units and labels from the records
# --------------------------------------------------------------------------------------


def test_general_notation_keeps_small_errors_readable():
    mse = metric_display("mse")
    assert mse.format(9.1e-4) == "0.00091"
    assert mse.format(0.123456) == "0.1235"
    assert fmt_mean_sd(mse, 9.1e-4, 1.2e-4, 3) == "0.00091 ± 0.00012"
    oca = metric_display("oca")
    assert fmt_mean_sd(oca, 91.234, 0.5, 3) == "91.23 ± 0.50"
    assert oca.axis_label() == "OCA (%)" and mse.axis_label() == "MSE"


def test_record_display_info_wins_over_the_registry_and_unknown_metrics_fall_back():
    m = metric_display("oca", {"label": "Acc", "unit": "pp", "scale": 100.0, "precision": 1,
                               "notation": "fixed"})
    assert m.format(91.234) == "91.2" and m.axis_label() == "Acc (pp)"
    # a garbled entry is ignored (the record is reported as incomplete elsewhere)
    assert metric_display("oca", {"precision": "two"}).format(91.234) == "91.23"
    unknown = metric_display("my_plugin_metric")
    assert unknown.label == "my_plugin_metric" and unknown.format(0.000912345) == "0.0009123"


def _regression_dir(tmp_path: Path) -> Path:
    """An output directory of a regression protocol, written by hand: records with
    metric_info and a curve axis other than samples seen."""
    out = tmp_path / "reg"
    info = {m: metric_display(m).display_info() for m in ("mse", "mae")}
    cfg = {
        "name": "reg", "protocol": "time-series", "seeds": [0, 1],
        "streams": [{"label": "Mackey-Glass", "max_samples": None}],
        "algorithms": [{"label": "ONS"}],
        "metrics": ["mse", "mae"],
        "outputs": {"tables": ["markdown", "csv"], "plots": ["learning_curve"],
                    "curve_metric": "mse"},
        "reference": {"source": "paper", "values": {"Mackey-Glass": {"ONS": {"mse": 0.0009}}},
                      "cited": [], "notes": ""},
    }
    runs = []
    for seed, (mse, mae) in enumerate([(9.0e-4, 0.021), (9.2e-4, 0.023)]):
        rid = f"Mackey-Glass__ONS__seed{seed}"
        runs.append({"run_id": rid, "digest": f"d{seed}", "stream": "Mackey-Glass",
                     "algorithm": "ONS", "seed": seed})
        rec = {
            "schema_version": records.SCHEMA_VERSION, "complete": True, "digest": f"d{seed}",
            "run_id": rid, "stream": "Mackey-Glass", "algorithm": "ONS", "seed": seed,
            "status": "ok", "metrics": {"mse": mse, "mae": mae}, "metric_info": info,
            "curves": {"t": [10, 20], "mse": [2 * mse, mse], "mae": [2 * mae, mae]},
            "curve_axis": "nodes added",
            "timing": {"per_sample_seconds": 1e-5, "per_sample_learn_seconds": None},
        }
        records.atomic_write_json(records.record_path(out, rid), rec)
    records.atomic_write_json(out / "experiment.json", {
        "schema_version": 1, "name": "reg", "smoke": False, "not_run": {}, "config": cfg,
        "runs": runs})
    return out


def test_regression_metrics_print_with_significant_digits(tmp_path, monkeypatch):
    out = _regression_dir(tmp_path)
    labels = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: labels.append(
        (fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel())))
    build_report(out)
    md = (out / "summary.md").read_text()
    assert "| ONS | 0.00091 ± 1.414e-05 | 0.0009 | +1e-05 | 0.022 ± 0.001414 |" in md
    assert "| Algorithm | MSE | paper | Δ | MAE |" in md
    csv = pd.read_csv(out / "summary.csv", keep_default_na=False)
    assert list(csv.columns) == COLUMNS
    row = csv[csv["metric"] == "mse"].iloc[0]
    assert row["unit"] == "" and float(row["mean"]) == pytest.approx(9.1e-4)
    assert csv[csv["metric"] == "us_per_sample"]["unit"].tolist() == ["µs"]
    assert labels == [("nodes added", "MSE")]


def test_csv_is_in_display_units_with_a_unit_column(experiment):
    summary = summarize(experiment)
    build_report(experiment)
    csv = pd.read_csv(experiment / "summary.csv", keep_default_na=False)
    assert list(csv.columns) == COLUMNS
    oca = csv[(csv["metric"] == "oca") & (csv["algorithm"] == "HT") & (csv["stream"] == "SEA")]
    vals = [r["metrics"]["oca"] * 100 for r in summary.runs
            if r["stream"] == "SEA" and r["algorithm"] == "HT"]
    assert oca["unit"].item() == "%"
    assert float(oca["mean"].item()) == pytest.approx(np.mean(vals), rel=1e-5)
    assert float(oca["paper"].item()) == 86.4
    assert set(csv.loc[csv["metric"].str.startswith("us_per"), "unit"]) == {"µs"}


def test_old_records_without_metric_info_fall_back_to_the_registry(copy, monkeypatch):
    before = summarize(copy).table
    _edit_records(copy, lambda r: (r.pop("metric_info"), r.pop("curve_axis")))
    after = summarize(copy)
    pd.testing.assert_frame_equal(before, after.table)
    assert after.curve_axis() == "samples seen"
    assert after.display("oca").format(91.234) == "91.23"


def test_tables_use_the_records_metric_info(copy):
    def one_decimal(rec):
        rec["metric_info"]["oca"].update(precision=1, label="Accuracy")

    _edit_records(copy, one_decimal)
    summary = summarize(copy)
    header, rows = tables.wide_rows(summary, "Hyperplane")
    assert header[1] == "Accuracy (%)"
    ht = next(r for r in rows if r[0] == "HT")
    mean, sd = ht[1].split(" ± ")
    assert len(mean.split(".")[1]) == 1 and len(sd.split(".")[1]) == 1


# --------------------------------------------------------------------------------------
# 2. 80-column terminals
# --------------------------------------------------------------------------------------


def _render(summary, width: int) -> list[str]:
    console = Console(width=width, record=True, file=io.StringIO())
    for r in tables.rich_tables(summary, width=width):
        console.print(r)
    return console.export_text().splitlines()


def _cells(summary) -> list[str]:
    """Every ``mean ± SD`` cell of the tables (metrics and times)."""
    t = summary.table[(summary.table["kind"] == "run") & (summary.table["n"] > 1)]
    return [fmt_mean_sd(summary.display(r.metric), r.mean, r.sd, r.n)
            for r in t.itertuples()]


def test_80_columns_stack_the_table_without_splitting_a_cell(experiment):
    summary = summarize(experiment)
    lines = _render(summary, 80)
    assert max(cell_len(line) for line in lines) <= 80
    text = "\n".join(lines)
    cells = _cells(summary)
    assert len(cells) == 2 * 6 * 7  # streams × algorithms × (5 metrics + 2 times)
    for cell in set(cells):  # each on one line, whole, as often as it is in the table
        assert " ± " in cell and text.count(cell) >= cells.count(cell), cell
    for header in ("OCA (%)", "AVRBACC (%)", "paper", "µs/sample", "µs/update"):
        assert header in text  # not cut
    assert "RLS (ours) lam=1000" in text
    # the wide table's place is named
    assert str(experiment / "summary.md") in text.replace("\n", "")


def test_wide_terminals_keep_the_wide_table(experiment):
    summary = summarize(experiment)
    _, rows = tables.wide_rows(summary, "SEA")
    lines = _render(summary, 300)
    assert max(cell_len(line) for line in lines) <= 300
    for row in rows:  # one line per algorithm, every cell on it
        line = next(ln for ln in lines if f"│ {row[0]} " in ln)
        for cell in row:
            assert cell in line
    assert "Narrow terminal" not in "\n".join(lines)


def test_report_command_at_80_columns(experiment):
    result = CliRunner().invoke(app, ["report", str(experiment)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    # every line but those naming a written file, whose path can be longer than 80 alone
    lines = [ln for ln in result.stdout.splitlines() if not ln.lstrip().startswith("wrote ")]
    assert max(cell_len(line) for line in lines) <= 80
    assert "HBP" in result.stdout  # the cited entry is there too


# --------------------------------------------------------------------------------------
# 3. Corrupt and incomplete records
# --------------------------------------------------------------------------------------


def _damage(out: Path) -> tuple[Path, Path]:
    corrupt = records.record_path(out, "SEA__HT__seed1")
    corrupt.write_text(corrupt.read_text()[:200])  # cut short
    incomplete = records.record_path(out, "Hyperplane__Perceptron__seed0")
    rec = json.loads(incomplete.read_text())
    del rec["metrics"]
    incomplete.write_text(json.dumps(rec))
    return corrupt, incomplete


def test_report_names_bad_records_and_builds_from_the_good_ones(copy):
    corrupt, incomplete = _damage(copy)
    result = CliRunner().invoke(app, ["report", str(copy)], env={"COLUMNS": "200"})
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    err = result.stderr
    assert "2 record(s) could not be used" in err
    assert f"{corrupt}: corrupt: is not valid JSON" in err
    assert f"{incomplete}: incomplete: the required key(s) 'metrics' are missing" in err
    assert "Traceback" not in result.output
    # the good records still make the tables: the damaged pairs have one run left
    summary = summarize(copy)
    t = summary.table.set_index(["stream", "algorithm", "metric"])
    assert t.loc[("SEA", "HT", "oca"), "n"] == 1
    assert t.loc[("Hyperplane", "Perceptron", "oca"), "n"] == 1
    assert t.loc[("SEA", "Perceptron", "oca"), "n"] == 2
    assert len(summary.runs) == 2 * 6 * 2 - 2 and not summary.missing
    md = (copy / "summary.md").read_text()
    assert "2 record(s) are corrupt or incomplete" in md


@pytest.mark.parametrize("edit, words", [
    (lambda r: r["metrics"].pop("mcc"), "'metrics' lacks 'mcc'"),
    (lambda r: r["metrics"].update(oca="high"), "metrics.oca is 'high', not a number"),
    (lambda r: r.update(timing=[]), "'timing' is list, not a mapping"),
    (lambda r: r["curves"].update(oca=[1.0]), "curves.oca is not a list of 10 values"),
    (lambda r: r["metric_info"]["oca"].update(precision="2"), "metric_info.oca precision"),
    (lambda r: r.update(status="running"), "'status' is 'running'"),
    (lambda r: r.update(complete=False), "not marked complete"),
])
def test_each_kind_of_incomplete_record_is_named(copy, edit, words):
    path = records.record_path(copy, "SEA__Perceptron__seed0")
    rec = json.loads(path.read_text())
    edit(rec)
    path.write_text(json.dumps(rec))
    summary = summarize(copy)
    assert [p.run_id for p in summary.problems] == ["SEA__Perceptron__seed0"]
    assert summary.problems[0].kind == "incomplete"
    assert words in summary.problems[0].reason


def test_a_stale_record_is_missing_not_a_problem(copy):
    path = records.record_path(copy, "SEA__Perceptron__seed0")
    rec = json.loads(path.read_text())
    rec["digest"] = "0000"
    path.write_text(json.dumps(rec))
    result = CliRunner().invoke(app, ["report", str(copy)], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "1 planned run(s) have no complete record yet (1 of them have a record of an " \
           "earlier config" in result.stdout


def test_report_subprocess_exit_codes_and_no_traceback(copy, tmp_path):
    corrupt, _ = _damage(copy)
    cmd = [sys.executable, "-m", "streamlearn", "report"]
    env = {"MPLBACKEND": "Agg", "COLUMNS": "100", "PATH": "/usr/bin:/bin"}
    bad = subprocess.run([*cmd, str(copy)], capture_output=True, text=True, env=env)
    assert bad.returncode == 1
    assert str(corrupt) in bad.stderr and "Traceback" not in bad.stderr + bad.stdout
    assert (copy / "summary.md").exists()

    empty = tmp_path / "empty"
    empty.mkdir()
    none = subprocess.run([*cmd, str(empty)], capture_output=True, text=True, env=env)
    assert none.returncode == 2
    assert "not a streamlearn results directory" in " ".join(none.stderr.split())
    assert "Traceback" not in none.stderr + none.stdout

    (empty / "experiment.json").write_text("{\"config\": ")
    cut = subprocess.run([*cmd, str(empty)], capture_output=True, text=True, env=env)
    assert cut.returncode == 2 and "is not valid JSON" in " ".join(cut.stderr.split())
    assert "Traceback" not in cut.stderr + cut.stdout


def test_report_without_records_refuses_and_keeps_the_tables(copy):
    """A results directory without its records (a fresh clone: records are not in git)
    must not have its committed tables and page replaced by empty ones."""
    CliRunner().invoke(app, ["report", str(copy), "--html"], env={"COLUMNS": "120"})
    kept = {name: (copy / name).read_bytes() for name in ("summary.md", "summary.csv",
                                                          "report.html")}
    shutil.rmtree(copy / "runs")
    env = {"MPLBACKEND": "Agg", "COLUMNS": "100", "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-m", "streamlearn", "report", str(copy),
                             "--html"], capture_output=True, text=True, env=env)
    assert result.returncode != 0
    assert "no usable run record" in " ".join(result.stderr.split())
    assert "Traceback" not in result.stderr + result.stdout
    for name, content in kept.items():
        assert (copy / name).read_bytes() == content, name


# --------------------------------------------------------------------------------------
# 4. Sweep plots
# --------------------------------------------------------------------------------------


def test_x_scale():
    assert plots.x_scale([0.001, 0.1, 10]) == "log"
    assert plots.x_scale([1, 100]) == "linear"  # exactly two decades
    assert plots.x_scale([0, 10, 1000]) == "linear"  # not all positive
    assert plots.x_scale(["mc", "nba"]) == "categorical"
    assert plots.x_scale([True, False]) == "categorical"
    assert plots.x_scale([None, 5]) == "categorical"


def test_sweep_plot_means_are_the_table_means(experiment, tmp_path):
    summary, written = build_report(experiment)  # plots default to all kinds with a sweep
    assert sorted(p.name for p in written if p.name.startswith("sweep_")) == [
        f"sweep_RLS-ours-lam_{m}.png" for m in sorted(METRICS)]
    figures = plots.sweep_plots(summary, tmp_path)
    assert len(figures) == len(METRICS)
    t = summary.table.set_index(["stream", "algorithm", "metric"])
    for f in figures:
        assert f.path.is_file() and f.path.stat().st_size > 0
        assert (f.kind, f.group, f.param, f.x, f.scale) == (
            "algorithm", "RLS (ours) lam={lam:g}", "lam", LAMS, "log")
        assert [ln.label for ln in f.lines] == ["SEA", "Hyperplane"]
        for line in f.lines:
            for lam, mean, sd, n in zip(f.x, line.mean, line.sd, line.n, strict=True):
                row = t.loc[(line.label, f"RLS (ours) lam={lam:g}", f.metric)]
                assert (mean, sd, n) == (row["mean"], row["sd"], row["n"])
                assert n == 2 and math.isfinite(mean)
    assert len({f.path for f in figures}) == len(figures)


SWEEPS = {
    "name": "sweeps",
    "repeats": 2,
    "streams": [{"name": "sea", "label": "SEA", "max_samples": 200, "reseed": True,
                 "sweep": {"noise": [0.0, 0.2]}}],
    "algorithms": [
        {"name": "rls", "label": "RLS"},
        {"name": "hoeffding_tree", "label": "HT {leaf_prediction}",
         "sweep": {"leaf_prediction": ["mc", "nba"]}},
        {"name": "rls", "label": "RLS2", "sweep": {"lam": [0.01, 1.0],
                                                   "forgetting": [1.0, 0.95]}},
    ],
    "metrics": ["oca", "bacc"],
    "evaluation": {"checkpoints": 5},
}


def test_stream_categorical_and_two_parameter_sweeps(tmp_path):
    out = tmp_path / "out"
    run_experiment(parse_config({**SWEEPS, "outputs": {"dir": str(out)}}), out)
    summary, written = build_report(out)
    figures = plots.sweep_plots(summary, tmp_path / "again")  # the same data, drawn again
    names = [f.path.name for f in figures]
    assert len(set(names)) == len(names)
    assert {p.name for p in written if p.name.startswith("sweep")} == set(names)
    t = summary.table.set_index(["stream", "algorithm", "metric"])

    # the categorical algorithm sweep: a line per stream variant
    ht = next(f for f in figures if f.group == "HT {leaf_prediction}" and f.metric == "oca")
    assert ht.scale == "categorical" and ht.x == ["mc", "nba"]
    assert [ln.label for ln in ht.lines] == ["SEA noise=0", "SEA noise=0.2"]
    assert ht.lines[1].mean[0] == t.loc[("SEA noise=0.2", "HT mc", "oca"), "mean"]

    # two swept parameters: a figure per stream, x = lam, a line per forgetting value
    rls2 = [f for f in figures if f.group == "RLS2" and f.metric == "bacc"]
    assert len(rls2) == 2 and {f.path.name for f in rls2} == {
        "sweep_RLS2_SEA-noise-0_bacc.png", "sweep_RLS2_SEA-noise-0.2_bacc.png"}
    f = next(f for f in rls2 if "noise=0.2" in f.title)
    assert f.x == [0.01, 1.0] and [ln.label for ln in f.lines] == [
        "forgetting=1", "forgetting=0.95"]
    assert f.lines[1].mean == [
        t.loc[("SEA noise=0.2", f"RLS2 lam={lam:g} forgetting=0.95", "bacc"), "mean"]
        for lam in (0.01, 1.0)]

    # the stream sweep: x = noise, a line per algorithm
    st = [f for f in figures if f.kind == "stream" and f.metric == "oca"]
    assert len(st) == 1 and st[0].x == [0.0, 0.2] and st[0].scale == "linear"
    assert st[0].path.name == "sweep-streams_SEA_oca.png"
    assert [ln.label for ln in st[0].lines] == [a.label for a in parse_config(
        {**SWEEPS, "outputs": {"dir": str(out)}}).algorithms]
    assert st[0].lines[0].mean == [t.loc[(f"SEA noise={v:g}", "RLS", "oca"), "mean"]
                                   for v in (0.0, 0.2)]


def test_smoke_override_of_a_swept_parameter_is_flagged(tmp_path):
    cfg = json.loads(json.dumps(SWEEPS))
    cfg["streams"][0].pop("sweep")
    cfg["algorithms"] = [{"name": "rls", "label": "RLS", "sweep": {"lam": [0.1, 10.0]},
                          "smoke_params": {"lam": 1.0}}]
    out = tmp_path / "out"
    run_experiment(parse_config({**cfg, "outputs": {"dir": str(out)}}).smoke_version(), out,
                   smoke=True)
    figures = plots.sweep_plots(summarize(out), out)
    assert figures and all(f.overridden == ["lam=1"] for f in figures)


def test_difference_from_the_paper_keeps_the_metric_s_own_decimals():
    """Δ = ours − paper: points with one decimal for a percent metric, the metric's own
    decimals for R² (one decimal had printed -0.0 for -0.0403 and -0.2 for -0.1803, hunt
    of 7 Dec), significant digits for a general-notation one."""
    from streamlearn.reporting.display import fmt_difference, metric_display

    assert fmt_difference(metric_display("oca"), 1.234) == "+1.2"
    assert fmt_difference(metric_display("r2"), -0.0403) == "-0.0403"
    assert fmt_difference(metric_display("r2"), -0.1803) == "-0.1803"
    assert fmt_difference(metric_display("update_accuracy"), -0.26) == "-0.3"
    assert fmt_difference(metric_display("mse"), 0.000123456).startswith("+0.0001235")


def test_a_smoke_run_captions_the_caps_it_applied(tmp_path):
    """``--smoke`` caps every stream at 2,000 samples: a 200-sample stream had been
    captioned "D first 2000" though the cap did not cut it. A config's own cap is
    captioned the same way (a 2,310-sample stream had been captioned "first 6000")."""
    cfg = {"name": "caps", "repeats": 1,
           "streams": [{"name": "sea", "label": "Short", "params": {"n_samples": 200}},
                       {"name": "sea", "label": "Long", "params": {"n_samples": 3000}}],
           "algorithms": [{"name": "majority_class"}], "metrics": ["oca"],
           "outputs": {"plots": []}}
    out = tmp_path / "smoke"
    run_experiment(parse_config(cfg).smoke_version(), out, smoke=True)
    text = tables.caption(summarize(out))
    assert "Sample caps: Short whole (not longer than 2000), Long first 2000." in text
    cfg["streams"][0]["max_samples"] = 500
    cfg["streams"][1]["max_samples"] = 2500
    out = tmp_path / "plain"
    run_experiment(parse_config(cfg), out)
    assert "Sample caps: Short whole (not longer than 500), Long first 2500." in \
        tables.caption(summarize(out))
