"""Reporting of the other evaluation kinds (issue 23): summary rows ``<metric>.<kind>``,
their table columns and caption, ``curves.csv``, the kinds' learning curves and their HTML
sections, and malformed blocks named as problem records."""

from __future__ import annotations

import json
import math
import shutil
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from streamlearn import registry
from streamlearn.base import Metric
from streamlearn.cli.app import app
from streamlearn.components import get_metric
from streamlearn.config import parse_config
from streamlearn.evaluation import records
from streamlearn.evaluation.runner import run_experiment
from streamlearn.reporting import plots, tables
from streamlearn.reporting.curves import CURVE_COLUMNS
from streamlearn.reporting.html import render_html, write_html
from streamlearn.reporting.report import build_report
from streamlearn.reporting.summary import COLUMNS, summarize
from tests.reporting.kinds_records import (
    ALGOS,
    ALPHA,
    HELD_OUT_T,
    METRICS,
    STREAMS,
    WINDOW,
    T,
    run_id,
    write_kinds_dir,
)

KIND_PARAMS = {"windowed": "window", "fading": "alpha", "holdout": "every"}


@pytest.fixture(scope="module")
def kinds_dir(tmp_path_factory) -> Path:
    return write_kinds_dir(tmp_path_factory.mktemp("kinds") / "out")


@pytest.fixture(scope="module")
def folds_dir(tmp_path_factory) -> Path:
    return write_kinds_dir(tmp_path_factory.mktemp("folds") / "out", folds=3)


def _records(out: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((out / "runs").glob("*.json"))]


def _expected_rows(out: Path) -> pd.DataFrame:
    """The kinds' rows computed here: every final value in display units, then a pandas
    groupby over (stream, algorithm, metric)."""
    long = []
    for r in _records(out):
        for kind in KIND_PARAMS:
            for m, v in r[kind]["metrics"].items():
                long.append({"stream": r["stream"], "algorithm": r["algorithm"],
                             "metric": f"{m}.{kind}", "value": v * get_metric(m).scale})
    g = pd.DataFrame(long).groupby(["stream", "algorithm", "metric"])["value"]
    return pd.DataFrame({"mean": g.mean(), "sd": g.std(ddof=1), "n": g.count()})


# --------------------------------------------------------------------------------------
# Summary rows and tables
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["seeds", "folds x seeds"])
def test_kind_rows_equal_a_pandas_groupby(kinds_dir, folds_dir, which):
    out = kinds_dir if which == "seeds" else folds_dir
    summary = summarize(out)
    assert not summary.problems and len(summary.runs) == len(_records(out))
    expected = _expected_rows(out)
    kind_rows = summary.table[summary.table["metric"].str.contains(".", regex=False)]
    got = kind_rows.set_index(["stream", "algorithm", "metric"])[["mean", "sd", "n"]]
    assert sorted(got.index) == sorted(expected.index)
    got = got.loc[expected.index]
    np.testing.assert_allclose(got["mean"], expected["mean"], rtol=1e-12)
    np.testing.assert_allclose(got["sd"], expected["sd"], rtol=1e-12)
    assert (got["n"].to_numpy() == expected["n"].to_numpy()).all()
    assert set(got["n"]) == {len(_records(out)) // (len(STREAMS) * len(ALGOS))}
    # MCC has no faded form in these records: no row
    assert "mcc.fading" not in set(summary.table["metric"])
    assert set(kind_rows["unit"]) == {"%"} and kind_rows["paper"].isna().all()
    # the same rows in summary.csv, rounded as the other rows
    build_report(out)
    csv = pd.read_csv(out / "summary.csv", keep_default_na=False)
    assert list(csv.columns) == COLUMNS
    row = csv[(csv["metric"] == "oca.windowed") & (csv["stream"] == "SEA")
              & (csv["algorithm"] == "A")].iloc[0]
    assert float(row["mean"]) == pytest.approx(expected.loc[("SEA", "A", "oca.windowed"),
                                                            "mean"], rel=1e-5)


def test_without_blocks_the_tables_are_those_of_before(kinds_dir, tmp_path):
    """The blocks only add rows: every other row, the Markdown table and the caption are
    those of the same records without the blocks."""
    plain = write_kinds_dir(tmp_path / "plain", blocks=False)
    without, with_ = summarize(plain), summarize(kinds_dir)
    assert not without.kind_keys and not without.kinds and without.folds is None
    rest = with_.table[~with_.table["metric"].str.contains(".", regex=False)]
    pd.testing.assert_frame_equal(without.table, rest.reset_index(drop=True))
    md = tables.to_markdown(without)
    assert "w=" not in md and "α" not in md and "held-out" not in md and "fold" not in md
    header, _ = tables.wide_rows(without, "SEA")
    assert header == ["Algorithm", "OCA (%)", "MCC (%)", "µs/sample", "runs"]
    assert tables.wide_rows(without, "SEA", "cumulative") == tables.wide_rows(without, "SEA")
    build_report(plain)
    assert sorted(p.name for p in plain.iterdir() if p.suffix == ".png") == [
        "curve_oca_Elec.png", "curve_oca_SEA.png"]


def test_headers_caption_and_stacked_rows(kinds_dir, folds_dir):
    summary = summarize(kinds_dir)
    header, rows = tables.wide_rows(summary, "SEA")
    assert header == ["Algorithm", "OCA (%)", "MCC (%)", f"OCA (%) w={WINDOW}",
                      f"MCC (%) w={WINDOW}", f"OCA (%) α={ALPHA}", "OCA (%) held-out",
                      "MCC (%) held-out", "µs/sample", "runs"]
    t = summary.table
    oca_w = t[(t["stream"] == "SEA") & (t["algorithm"] == "A")
              & (t["metric"] == "oca.windowed")].iloc[0]
    assert rows[0][3] == f"{oca_w['mean']:.2f} ± {oca_w['sd']:.2f}"
    assert rows[0][-1] == "2"
    # one kind's table: its columns and the runs
    header, rows = tables.wide_rows(summary, "SEA", "fading")
    assert header == ["Algorithm", f"OCA (%) α={ALPHA}", "runs"] and len(rows) == len(ALGOS)
    text = tables.caption(summary)
    assert "over seeds" in text and f"the last {WINDOW} predictions" in text
    assert f"fading factor {ALPHA}" in text and "No α=0.99 value of: MCC." in text
    assert "every 100 samples" in text and "next 20 samples" in text
    # folds: n counts folds × seeds, and the caption says so
    folded = summarize(folds_dir)
    text = tables.caption(folded)
    assert "over folds × seeds" in text and "cross-validation with 3 folds" in text
    assert "n = folds × seeds" in text
    assert tables.wide_rows(folded, "Elec")[1][0][-1] == "6"
    _, blocks = tables.stacked_rows(summary, "Elec")
    assert [row[1] for row in blocks[0]][:4] == ["OCA (%)", "MCC (%)", f"OCA (%) w={WINDOW}",
                                                 f"MCC (%) w={WINDOW}"]


# --------------------------------------------------------------------------------------
# Malformed blocks: problem records, named
# --------------------------------------------------------------------------------------


def _set(path: str, value):
    def edit(rec):
        keys = path.split(".")
        target = rec
        for k in keys[:-1]:
            target = target[k]
        target[keys[-1]] = value
    return edit


def _drop(path: str):
    def edit(rec):
        keys = path.split(".")
        target = rec
        for k in keys[:-1]:
            target = target[k]
        del target[keys[-1]]
    return edit


@pytest.mark.parametrize("edit, words", [
    (_set("windowed", [1, 2]), "'windowed' is list"),
    (_set("windowed.window", 0), "windowed.window is 0"),
    (_set("windowed.window", True), "windowed.window is True"),
    (_set("fading.alpha", 1.5), "fading.alpha is 1.5"),
    (_drop("fading.metrics"), "fading.metrics is missing"),
    (_set("windowed.metrics.oca", "0.9"), "windowed.metrics.oca is '0.9'"),
    (_set("windowed.curves.mcc", [0.5]), "windowed.curves.mcc is not a list of 4 values"),
    (_set("fading.not_supported", []), "fading.metrics lacks 'mcc'"),
    (_set("fading.not_supported", "mcc"), "fading.not_supported is 'mcc'"),
    (_set("holdout.size", -1), "holdout.size is -1"),
    (_drop("holdout.curves.t"), "holdout.curves.t"),
    (_set("holdout.curves.oca", [0.5, "x"]), "holdout.curves.oca holds a value"),
    (_set("fold", {"method": "loo", "index": 0, "folds": 3}), "fold.method is 'loo'"),
    (_set("fold", {"method": "cross", "index": 0, "folds": 1}), "fold.folds is 1"),
    (_set("fold", {"method": "cross", "index": 7, "folds": 3}), "fold.index is 7"),
])
def test_a_malformed_block_makes_a_named_problem_record(kinds_dir, tmp_path, edit, words):
    out = tmp_path / "out"
    shutil.copytree(kinds_dir, out)
    path = records.record_path(out, run_id("SEA", "A", 0, None))
    rec = json.loads(path.read_text())
    edit(rec)
    path.write_text(json.dumps(rec))
    summary = summarize(out)
    assert [p.run_id for p in summary.problems] == [run_id("SEA", "A", 0, None)]
    assert words in summary.problems[0].reason, summary.problems[0].reason
    assert summary.problems[0].kind == "incomplete"
    # the others are used: SEA × A now has one run
    n = summary.table.set_index(["stream", "algorithm", "metric"])["n"]
    assert n[("SEA", "A", "oca")] == 1 and n[("SEA", "B", "oca.windowed")] == 2


# --------------------------------------------------------------------------------------
# curves.csv
# --------------------------------------------------------------------------------------


def test_curves_csv_holds_every_value_of_every_curve(folds_dir):
    _, written = build_report(folds_dir)
    assert folds_dir / "curves.csv" in written
    csv = pd.read_csv(folds_dir / "curves.csv", dtype={"fold": "Int64"})
    assert list(csv.columns) == CURVE_COLUMNS
    expected_rows = 0
    for r in _records(folds_dir):
        mine = csv[(csv["stream"] == r["stream"]) & (csv["algorithm"] == r["algorithm"])
                   & (csv["seed"] == r["seed"]) & (csv["fold"] == r["fold"]["index"])]
        curves = {("cumulative", m): (T, r["curves"][m]) for m in METRICS}
        for kind in ("windowed", "fading"):
            curves.update({(kind, m): (T, ys) for m, ys in r[kind]["curves"].items()})
        curves.update({("holdout", m): (HELD_OUT_T, r["holdout"]["curves"][m])
                       for m in METRICS})
        assert len(mine) == sum(len(t) for t, _ in curves.values())
        for (kind, m), (t, ys) in curves.items():
            rows = mine[(mine["kind"] == kind) & (mine["metric"] == m)]
            assert rows["t"].tolist() == t
            want = [math.nan if y is None else y * get_metric(m).scale for y in ys]
            # every digit: the CSV holds the exact float of value × scale
            np.testing.assert_array_equal(rows["value"].to_numpy(), np.array(want))
        expected_rows += len(mine)
    assert len(csv) == expected_rows
    assert set(csv["kind"]) == {"cumulative", "windowed", "fading", "holdout"}


def test_curves_csv_of_ordinary_runs_has_an_empty_fold(kinds_dir):
    build_report(kinds_dir)
    text = (kinds_dir / "curves.csv").read_text().splitlines()
    assert text[0] == ",".join(CURVE_COLUMNS)
    assert text[1].startswith("SEA,A,0,,oca,cumulative,50,")
    csv = pd.read_csv(kinds_dir / "curves.csv")
    assert csv["fold"].isna().all()
    assert csv["t"].dtype == np.int64  # sample counts as whole numbers


# --------------------------------------------------------------------------------------
# Plots and the HTML report
# --------------------------------------------------------------------------------------


def test_kind_curves_are_the_mean_over_folds_and_seeds(folds_dir, monkeypatch):
    drawn = {}

    def capture(fig, path):
        ax = fig.axes[0]
        drawn[path.name] = (ax.get_ylabel(), ax.get_title(),
                            {line.get_label(): (line.get_xdata(), line.get_ydata())
                             for line in ax.get_lines()})

    monkeypatch.setattr(plots, "_save", capture)
    _, written = build_report(folds_dir)
    names = {p.name for p in written if p.suffix == ".png"}
    assert names == {f"{prefix}_oca_{s}.png" for s in STREAMS
                     for prefix in ("curve", "curve-windowed", "curve-fading",
                                    "curve-holdout")}
    recs = [r for r in _records(folds_dir) if r["stream"] == "Elec" and r["algorithm"] == "B"]
    for kind, t in (("windowed", T), ("fading", T), ("holdout", HELD_OUT_T)):
        ylabel, title, lines = drawn[f"curve-{kind}_oca_Elec.png"]
        curves = [r[kind]["curves"]["oca"] for r in recs]
        want = np.array(curves, dtype=float).mean(axis=0) * 100
        x, y = lines["B"]
        assert list(x) == t and len(curves) == 6
        np.testing.assert_allclose(y, want, rtol=1e-12)
        assert ylabel.startswith("OCA (%) ") and "over folds × seeds" in title
    assert drawn["curve_oca_Elec.png"][0] == "OCA (%)"
    assert plots.curve_kind(Path("curve-holdout_oca_SEA.png")) == "holdout"
    assert plots.curve_kind(Path("curve_oca_SEA.png")) == "cumulative"
    assert plots.curve_kind(Path("time_per_sample.png")) is None


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.sections: list[tuple[str, list[str]]] = []  # (h2 id or text, img alts)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "h2":
            self.sections.append((a.get("id") or "", []))
        elif tag == "img" and self.sections:
            self.sections[-1][1].append(a.get("alt") or "")


def test_html_has_a_section_per_kind_with_its_table_and_curves(kinds_dir):
    summary, written = build_report(kinds_dir)
    page = write_html(summary, kinds_dir, written)
    text = page.read_text()
    parser = _Page()
    parser.feed(text)
    sections = dict(parser.sections)
    for kind in ("windowed", "fading", "holdout"):
        assert sorted(sections[f"kind-{kind}"]) == [f"curve-{kind}_oca_Elec",
                                                    f"curve-{kind}_oca_SEA"]
    assert f'<h2 id="kind-windowed">Windowed metrics (w = {WINDOW})</h2>' in text
    assert f"<th>OCA (%) α={ALPHA}</th>" in text and "<th>MCC (%) held-out</th>" in text
    assert text.count('<table class="results-holdout">') == len(STREAMS)
    # the results table is the cumulative one; the plots section its curves only
    results = text.split("<h2>Results</h2>", 1)[1].split("<h2>", 1)[0]
    assert "w=" not in results and "held-out" not in results
    plain = [alts for h, alts in parser.sections if h == ""]
    assert ["curve_oca_SEA", "curve_oca_Elec"] in plain or \
        ["curve_oca_Elec", "curve_oca_SEA"] in plain


def test_html_without_kinds_has_no_kind_section(tmp_path):
    plain = write_kinds_dir(tmp_path / "plain", blocks=False)
    summary, written = build_report(plain)
    assert 'id="kind-' not in render_html(summary, written)


# --------------------------------------------------------------------------------------
# End to end: a run whose protocol writes the windowed and faded blocks
# --------------------------------------------------------------------------------------


class _HitRate(Metric):
    """Accuracy with a windowed and a faded form (a test-only metric)."""

    label = "Hit rate"
    unit = "%"
    scale = 100.0
    precision = 2
    notation = "fixed"
    kinds = ("cumulative", "windowed", "fading")

    @classmethod
    def curve(cls, y_true, y_pred, at, context):
        return np.cumsum(y_true == y_pred)[at - 1] / at

    @classmethod
    def windowed_curve(cls, y_true, y_pred, at, window, context):
        hits = np.concatenate([[0], np.cumsum(y_true == y_pred)])
        lo = np.maximum(at - window, 0)
        return (hits[at] - hits[lo]) / (at - lo)

    @classmethod
    def fading_curve(cls, y_true, y_pred, at, alpha, context):
        s = n = 0.0
        out = []
        for i, hit in enumerate(y_true == y_pred, start=1):
            s, n = alpha * s + hit, alpha * n + 1.0
            if i in set(at.tolist()):
                out.append(s / n)
        return np.array(out)


def test_a_run_with_window_and_fading_is_reported(tmp_path, monkeypatch):
    monkeypatch.setitem(registry.METRICS, "hit_rate", _HitRate)
    out = tmp_path / "out"
    cfg = parse_config({
        "name": "e2e", "repeats": 2,
        "streams": [{"name": "sea", "label": "SEA", "max_samples": 300}],
        "algorithms": [{"name": "perceptron", "label": "Perceptron"}],
        "metrics": ["oca", "hit_rate"], "evaluation": {"window": 50, "fading": 0.99,
                                                       "checkpoints": 10},
        "outputs": {"dir": str(out), "plots": ["learning_curve"],
                    "curve_metric": "hit_rate"}})
    assert not run_experiment(cfg, out).failed
    summary, written = build_report(out)
    assert not summary.problems and len(summary.runs) == 2
    recs = summary.runs
    assert all("hit_rate" in r["windowed"]["metrics"] and r["fading"]["alpha"] == 0.99
               for r in recs)
    row = summary.table.set_index("metric").loc["hit_rate.windowed"]
    vals = np.array([r["windowed"]["metrics"]["hit_rate"] for r in recs]) * 100
    assert row["mean"] == pytest.approx(vals.mean(), rel=1e-12) and row["n"] == 2
    # OCA has windowed and faded forms too (metrics/classification.py): its columns come
    # first, in the order of the config's metrics
    assert tables.wide_rows(summary, "SEA")[0][3:7] == [
        "OCA (%) w=50", "Hit rate (%) w=50", "OCA (%) α=0.99", "Hit rate (%) α=0.99"]
    csv = pd.read_csv(out / "curves.csv")
    for r in recs:
        got = csv[(csv["seed"] == r["seed"]) & (csv["metric"] == "hit_rate")
                  & (csv["kind"] == "fading")]
        assert got["t"].tolist() == r["curves"]["t"]
        np.testing.assert_array_equal(got["value"].to_numpy(),
                                      np.array(r["fading"]["curves"]["hit_rate"]) * 100)
    assert {p.name for p in written if p.suffix == ".png"} == {
        "curve_hit_rate_SEA.png", "curve-windowed_hit_rate_SEA.png",
        "curve-fading_hit_rate_SEA.png"}


def test_report_command_writes_curves_csv_only_with_the_csv_tables(tmp_path):
    out = write_kinds_dir(tmp_path / "out")
    result = CliRunner().invoke(app, ["report", str(out)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert f"wrote {out / 'curves.csv'}" in result.stdout
    # the tables, kinds' columns included, fit in 80 columns (stacked)
    assert max(cell_len(line) for line in result.stdout.splitlines()
               if not line.startswith("  wrote ")) <= 80
    assert "OCA (%) w=50" in result.stdout
    manifest = json.loads((out / "experiment.json").read_text())
    manifest["config"]["outputs"]["tables"] = ["markdown"]
    (out / "experiment.json").write_text(json.dumps(manifest))
    (out / "curves.csv").unlink()
    _, written = build_report(out)
    assert not (out / "curves.csv").exists() and out / "summary.md" in written
