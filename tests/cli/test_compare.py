"""``streamlearn compare`` on real experiments made by ``streamlearn run``: 6 synthetic
streams × 3 learners × 3 seeds. Its average ranks and Friedman p-value equal SciPy's from
the run records (ties to 12 significant digits, as ``compare`` counts them; ``summary.csv``
rounds to 6); an error metric and the time rank lower-is-better; directories merge;
the CD diagrams are valid SVG and PNG; the HTML report shows the comparison; and every
refusal exits 2 with a message, no traceback, and writes nothing."""

from __future__ import annotations

import io
import json
import math
import os
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from rich.cells import cell_len
from rich.console import Console
from scipy import stats

from streamlearn.reporting.comparison import compare_dirs
from streamlearn.reporting.comparison_files import rich_renderables
from tests.cli_helpers import run_cli, run_cli_captured

LEARNERS = [{"name": "passive_aggressive", "label": "PA"},
            {"name": "majority_class", "label": "Majority"},
            {"name": "no_change", "label": "No change"}]


def _streams(n_samples: int = 200) -> list[dict]:
    sea = [{"name": "sea", "label": f"SEA{v}", "max_samples": n_samples, "reseed": True,
            "params": {"variants": [v], "drift_points": [], "noise": 0.1 + 0.05 * v}}
           for v in (0, 1, 2)]
    hyper = [{"name": "hyperplane", "label": f"HP{d}", "max_samples": n_samples,
              "reseed": True, "params": {"n_features": d}} for d in (3, 5, 10)]
    return sea + hyper


def _experiment(root: Path, name: str, streams: list[dict], learners: list[dict],
                seeds: list[int]) -> Path:
    """``streamlearn run`` on a config written into ``root``; the output directory."""
    out = root / name
    cfg = {"name": name, "protocol": "prequential-classification", "seeds": seeds,
           "streams": streams, "algorithms": learners, "metrics": ["oca", "oce"],
           "evaluation": {"checkpoints": 5},
           "outputs": {"dir": str(out), "plots": ["time"], "tables": ["markdown", "csv"]}}
    path = root / f"{name}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    code, text = run_cli_captured(["run", str(path), "--quiet"])
    assert code == 0, text
    return out


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """6 streams × 3 learners × 3 seeds (54 runs of a few hundred samples)."""
    return _experiment(tmp_path_factory.mktemp("compare"), "six", _streams(), LEARNERS,
                       [0, 1, 2])


@pytest.fixture
def copy(experiment: Path, tmp_path: Path) -> Path:
    """A private copy of the experiment, free to change."""
    dst = tmp_path / "six"
    shutil.copytree(experiment, dst)
    for name in os.listdir(dst):  # only what `streamlearn run` wrote
        if name.startswith(("comparison", "cd_", "report")):
            os.remove(dst / name)
    return dst


def _summary_pivot(out: Path, metric: str) -> pd.DataFrame:
    s = pd.read_csv(out / "summary.csv")
    s = s[(s["metric"] == metric) & (s["kind"] == "run")]
    return s.pivot(index="stream", columns="algorithm", values="mean")


def _record_means(out: Path, metric: str) -> pd.DataFrame:
    """Per-stream means over seeds read straight from the run records (timing in µs),
    to the 12 significant digits within which ``compare`` calls two means a tie;
    ``summary.csv`` keeps only 6, so two close timings can tie there and not here."""
    rows = []
    for path in sorted((out / "runs").glob("*.json")):
        r = json.loads(path.read_text())
        v = (r["timing"]["per_sample_seconds"] * 1e6 if metric == "us_per_sample"
             else r["metrics"][metric] * 100.0)
        rows.append((r["stream"], r["algorithm"], v))
    m = pd.DataFrame(rows, columns=["stream", "algorithm", "value"]).pivot_table(
        index="stream", columns="algorithm", values="value", aggfunc="mean")
    return m.map(lambda v: float(f"{v:.12g}"))


def _comparison(out: Path, metric: str) -> pd.DataFrame:
    c = pd.read_csv(out / "comparison.csv", keep_default_na=False)
    return c[c["metric"] == metric]


def _average_ranks(c: pd.DataFrame) -> pd.Series:
    r = c[c["kind"] == "average_rank"]
    return pd.Series(r["value"].astype(float).to_numpy(), index=r["learner"])


def _p(c: pd.DataFrame, kind: str) -> float:
    return float(c[c["kind"] == kind]["p_value"].iloc[0])


def _snapshot(out: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(out)): (p.stat().st_mtime_ns, p.stat().st_size)
            for p in sorted(out.rglob("*"))}


def test_ranks_and_friedman_equal_scipy_from_the_records(experiment, capsys):
    code, text = run_cli(["compare", str(experiment)], capsys)
    assert code == 0, text
    for metric, sign in (("oca", -1.0), ("us_per_sample", 1.0)):  # oca: higher is better
        means = _record_means(experiment, metric)
        ranks = stats.rankdata(sign * means.to_numpy(), axis=1).mean(axis=0)
        expected = pd.Series(ranks, index=means.columns)
        c = _comparison(experiment, metric)
        got = _average_ranks(c)
        pd.testing.assert_series_equal(got.sort_index(), expected.sort_index(),
                                       check_names=False, rtol=1e-12)
        chi2, p = stats.friedmanchisquare(*means.to_numpy().T)
        assert _p(c, "friedman") == pytest.approx(p, rel=1e-9)
        assert float(c[c["kind"] == "friedman"]["value"].iloc[0]) == pytest.approx(chi2)
        n, k = means.shape
        ff = (n - 1) * chi2 / (n * (k - 1) - chi2) if n * (k - 1) > chi2 else np.inf
        p_ff = stats.f.sf(ff, k - 1, (k - 1) * (n - 1)) if np.isfinite(ff) else 0.0
        assert _p(c, "iman_davenport") == pytest.approx(p_ff, rel=1e-9, abs=1e-300)
        # the per-stream means are the records' (summary.csv rounds them to 6 digits)
        m = c[c["kind"] == "mean"].pivot(index="stream", columns="learner", values="value")
        summary = _summary_pivot(experiment, metric)
        np.testing.assert_allclose(m.loc[means.index, means.columns].astype(float),
                                   means, rtol=1e-9)
        np.testing.assert_allclose(summary.loc[means.index, means.columns], means,
                                   rtol=1e-5)
    assert "Only 6 streams" in text and "little power" in text


def test_an_error_metric_ranks_lower_is_better(experiment, capsys):
    code, text = run_cli(["compare", str(experiment), "--metric", "oce", "--no-time"],
                         capsys)
    assert code == 0, text
    oce = _record_means(experiment, "oce")
    got = _average_ranks(_comparison(experiment, "oce"))[oce.columns]
    lower_better = stats.rankdata(oce.to_numpy(), axis=1).mean(axis=0)
    higher_better = stats.rankdata(-oce.to_numpy(), axis=1).mean(axis=0)
    np.testing.assert_allclose(got, lower_better)
    assert not np.allclose(got, higher_better)  # the ordering does flip
    # OCE = 100 − OCA: the same ranks as OCA's
    code, _ = run_cli(["compare", str(experiment), "--no-time"], capsys)
    oca = _average_ranks(_comparison(experiment, "oca"))[oce.columns]
    np.testing.assert_allclose(got, oca)
    best = got.idxmin()
    assert oce[best].mean() == oce.mean().min()


def test_cd_diagrams_are_valid_and_the_report_shows_them(copy, capsys):
    code, text = run_cli(["compare", str(copy)], capsys)
    assert code == 0, text
    for metric in ("oca", "us_per_sample"):
        svg = (copy / f"cd_{metric}.svg").read_bytes()
        assert svg and ET.fromstring(svg).tag.endswith("svg")
        png = (copy / f"cd_{metric}.png").read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        import matplotlib.pyplot as plt

        assert plt.imread(io.BytesIO(png), format="png").shape[1] > 200
    md = (copy / "comparison.md").read_text()
    assert "## OCA (%) (higher is better)" in md and "## µs/sample (lower is better)" in md
    assert "Machine of the timings:" in md and "logical cores" in md and "BLAS" in md
    code, text = run_cli(["report", str(copy), "--html"], capsys)
    assert code == 0, text
    page = (copy / "report.html").read_text()
    assert 'id="comparison"' in page and "Nemenyi" in page
    assert page.count("data:image/png") == 3  # the time chart and two CD diagrams
    assert "changed since" not in page
    # a record changed after the comparison: the report says so
    rec_path = sorted((copy / "runs").glob("*.json"))[0]
    rec = json.loads(rec_path.read_text())
    rec["metrics"]["oca"] = 0.5
    rec_path.write_text(json.dumps(rec))
    run_cli(["report", str(copy), "--html"], capsys)
    assert "changed since" in (copy / "report.html").read_text()


def test_terminal_output_fits_80_columns_and_names_the_machine(experiment, capsys):
    code, text = run_cli(["compare", str(experiment), "--test", "wilcoxon-holm"], capsys)
    assert code == 0, text
    result = compare_dirs([experiment], test="wilcoxon-holm")
    console = Console(width=80, record=True, file=io.StringIO())
    for item in rich_renderables(result):
        console.print(item)
    lines = console.export_text().splitlines()
    assert max(cell_len(line) for line in lines) <= 80
    assert "Machine of the timings:" in text and "thread" in text
    assert "Holm" in text and "no pair can be significant" in text


def test_bayesian_test_writes_probabilities(experiment, capsys):
    code, text = run_cli(["compare", str(experiment), "--test", "bayesian", "--no-time"],
                         capsys)
    assert code == 0, text
    c = _comparison(experiment, "oca")
    probs = c[c["kind"].str.startswith("bayes_")]
    assert len(probs) == 3 * 3  # 3 pairs × (better, rope, worse)
    sums = probs.groupby(["learner", "other"])["value"].apply(lambda v: v.astype(float).sum())
    np.testing.assert_allclose(sums, 1.0, atol=1e-9)
    assert "P(#1 better)" in text


def test_two_directories_merge_their_streams(experiment, tmp_path, capsys):
    more = [{"name": "sea", "label": f"SEA{v}b", "max_samples": 200, "reseed": True,
             "params": {"variants": [v], "drift_points": []}} for v in (3, 1)]
    other = _experiment(tmp_path, "two", more, LEARNERS, [0, 1, 2])
    code, text = run_cli(["compare", str(other), str(experiment), "--no-time"], capsys)
    assert code == 0, text
    means = pd.concat([_record_means(experiment, "oca"), _record_means(other, "oca")])
    assert len(means) == 8
    expected = stats.rankdata(-means.to_numpy(), axis=1).mean(axis=0)
    got = _average_ranks(_comparison(other, "oca"))[means.columns]
    np.testing.assert_allclose(got, expected)
    assert "over 8 streams" in text and (other / "comparison.md").is_file()


def _refused(args: list[str], dirs: list[Path], capsys, *words: str) -> str:
    before = [_snapshot(d) for d in dirs]
    code, text = run_cli(["compare", *args], capsys)
    assert code == 2, text
    assert "Traceback" not in text
    for w in words:
        assert w in " ".join(text.split()), (w, text)
    assert [_snapshot(d) for d in dirs] == before  # nothing written
    return text


def test_one_learner_or_one_stream_is_refused_and_writes_nothing(tmp_path, capsys):
    one_learner = _experiment(tmp_path, "one_learner", _streams(100)[:2], LEARNERS[1:2], [0])
    _refused([str(one_learner)], [one_learner], capsys, "at least two learners",
             "the runs have 1: Majority")
    one_stream = _experiment(tmp_path, "one_stream", _streams(100)[:1], LEARNERS[1:], [0])
    _refused([str(one_stream)], [one_stream], capsys, "at least two streams",
             "the runs have 1: SEA0", "about 10 streams")


def test_learners_missing_on_some_streams_are_named(experiment, tmp_path, capsys):
    more = [{"name": "sea", "label": "SEA3", "max_samples": 100, "reseed": True,
             "params": {"variants": [3], "drift_points": []}}]
    partial = _experiment(tmp_path, "partial", more, LEARNERS[1:], [0, 1, 2])
    _refused([str(experiment), str(partial)], [experiment, partial], capsys,
             "'PA' on SEA3")


def test_other_protocol_and_shared_streams_are_refused(experiment, tmp_path, capsys):
    more = [{"name": "sea", "label": "SEA3", "max_samples": 100, "reseed": True,
             "params": {"variants": [3], "drift_points": []}}]
    seeds = _experiment(tmp_path, "seeds", more, LEARNERS, [0, 1])
    _refused([str(experiment), str(seeds)], [experiment, seeds], capsys,
             "not made with the same protocol", "seeds [0, 1] (vs [0, 1, 2])")
    _refused([str(experiment), str(experiment)], [experiment], capsys, "given twice")


def test_incomplete_failed_runs_and_unrecorded_metrics_are_refused(copy, capsys):
    _refused([str(copy), "--metric", "f1"], [copy], capsys,
             "'f1' is not recorded", "oca, oce, us_per_sample")
    _refused([str(copy), "--test", "tukey"], [copy], capsys, "Unknown test 'tukey'")
    _refused([str(copy), "--metric", "us_per_update"], [copy], capsys,
             "'us_per_update' is not recorded for Majority, No change")
    (copy / "runs" / "HP5__PA__seed1.json").unlink()
    failed = copy / "runs" / "SEA1__Majority__seed2.json"
    rec = json.loads(failed.read_text())
    rec.update(status="failed", error="ValueError: boom")
    failed.write_text(json.dumps(rec))
    _refused([str(copy)], [copy], capsys, "no record yet: HP5__PA__seed1",
             "1 run(s) failed: SEA1__Majority__seed2 (ValueError: boom)")


def test_an_infinite_metric_is_refused_as_divergence_not_as_unrecorded(copy, capsys):
    """A learner whose error overflows (a regressor predicting 1e200: RMSE inf) was
    refused as "'rmse' is not recorded", which it is; now the message says what it is."""
    path = copy / "runs" / "HP5__PA__seed1.json"
    rec = json.loads(path.read_text())
    rec["metrics"]["oce"] = math.inf
    path.write_text(json.dumps(rec))
    text = _refused([str(copy), "--metric", "oce"], [copy], capsys,
                    "'oce' is infinite for PA on HP5: a learner that diverged")
    assert "not recorded" not in text


def test_a_metric_recorded_as_nan_is_refused_as_undefined_not_as_unrecorded(copy, capsys):
    """R² of a constant target is NaN in the record: the refusal had said "'r2' is not
    recorded for LR, Last, Mean", naming no stream (hunt 6, 7 Dec)."""
    path = copy / "runs" / "HP5__PA__seed1.json"
    rec = json.loads(path.read_text())
    rec["metrics"]["oce"] = math.nan  # written as NaN, as an undefined R² is
    path.write_text(json.dumps(rec))
    text = _refused([str(copy), "--metric", "oce"], [copy], capsys,
                    "'oce' has no value (NaN in the records) for PA on HP5")
    assert "not recorded" not in text


def test_several_metrics_in_one_comparison(copy, capsys):
    """``--metric oca --metric oce``: one section and one diagram per metric, then the
    time; the second ranks lower-is-better, so its average ranks equal the first's."""
    code, text = run_cli(["compare", str(copy), "--metric", "oca", "--metric", "oce"],
                         capsys)
    assert code == 0, text
    md = (copy / "comparison.md").read_text()
    assert md.count("\n## ") == 3  # oca, oce, µs/sample
    for name in ("cd_oca.svg", "cd_oce.svg", "cd_us_per_sample.svg"):
        assert (copy / name).stat().st_size > 0
    result = compare_dirs([copy], metric=["oca", "oce"])
    assert [c.table.metric for c in result.comparisons] == ["oca", "oce", "us_per_sample"]
    np.testing.assert_allclose(result.comparisons[0].avg_ranks,
                               result.comparisons[1].avg_ranks)


def test_a_user_learner_run_with_other_code_in_two_directories_is_refused(experiment, copy):
    # hunt 6 (7 Dec): `compare` ranked one label whose user code had changed between the
    # directories (RMSE 0.95 in one, 98.9 in the other) as one learner, exit 0
    from streamlearn.errors import UserError
    from streamlearn.reporting.comparison import check_protocols, load_sources

    sources = load_sources([experiment, copy])
    check_protocols(sources)  # the same code (library learners: none recorded)
    for src, sha in zip(sources, ("a" * 64, "b" * 64), strict=True):
        for run in src.runs:
            if run["algorithm"] == "PA":
                run["spec"]["code_sha256"] = sha
    with pytest.raises(UserError, match=r"learner 'PA' was run with other code in .* than "
                       r"in .*: rerun one directory with the code of the other"):
        check_protocols(sources)
    for run in sources[1].runs:  # the same user code in both: ranked together
        if run["algorithm"] == "PA":
            run["spec"]["code_sha256"] = "a" * 64
    check_protocols(sources)
