"""``streamlearn records diff``: a rerun compared with a results folder, run by run and cell
by cell (reporting/record_diff.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from streamlearn.config import parse_config
from streamlearn.evaluation.runner import run_experiment
from streamlearn.reporting.record_diff import ROUNDING_REL, _cells, diff_folders
from streamlearn.reporting.summary import summarize
from tests.cli_helpers import run_cli

TINY = {
    "name": "tiny",
    "repeats": 2,
    "streams": [{"name": "sea", "label": "SEA", "max_samples": 300}],
    "algorithms": [{"name": "perceptron", "label": "Perceptron"},
                   {"name": "rls", "label": "RLS", "params": {"lam": 1.0}}],
    "metrics": ["oca", "mcc"],
    "evaluation": {"checkpoints": 5, "window": 100},
}


def _run(out: Path, **extra) -> Path:
    cfg = parse_config({**TINY, **extra, "outputs": {"dir": str(out), "plots": []}})
    assert not run_experiment(cfg, out).failed
    return out


@pytest.fixture(scope="module")
def pair(tmp_path_factory) -> tuple[Path, Path]:
    """The same config run twice, into two folders."""
    root = tmp_path_factory.mktemp("diff")
    return _run(root / "a"), _run(root / "b")


@pytest.fixture
def folders(pair, tmp_path) -> tuple[Path, Path]:
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(pair[0], a)
    shutil.copytree(pair[1], b)
    return a, b


def _edit(folder: Path, run_id: str, change) -> None:
    path = folder / "runs" / f"{run_id}.json"
    rec = json.loads(path.read_text())
    change(rec)
    path.write_text(json.dumps(rec))


RID = "SEA__RLS__seed1"


def _both_cells(a: Path, b: Path):
    ca, cb = _cells(summarize(a)), _cells(summarize(b))
    return [(key, ca[key], cb[key]) for key in ca]


def test_a_rerun_of_the_same_config_is_the_same_bits(folders, capsys):
    a, b = folders
    res = diff_folders(a, b)
    assert [r.verdict for r in res.runs] == ["same"] * 4
    assert res.cells == [] and res.cells_compared > 0
    assert res.reproduced(exact=True)
    rc, out = run_cli(["records", "diff", str(a), str(b), "--exact"], capsys)
    assert rc == 0, out
    assert "4 run(s) in both (4 same)" in out and "reproduced (same bits)" in out


def test_the_committed_archive_is_read_when_runs_is_absent(folders, capsys):
    a, b = folders
    rc, out = run_cli(["records", "pack", str(a)], capsys)
    assert rc == 0, out
    shutil.rmtree(a / "runs")
    rc, out = run_cli(["records", "diff", str(a), str(b)], capsys)
    assert rc == 0 and "4 same" in out, out


def test_a_difference_below_the_printed_digits_is_rounding(folders, capsys):
    a, b = folders

    def nudge(rec):
        rec["metrics"]["oca"] *= 1 + 1e-13
        rec["curves"]["mcc"][2] *= 1 - 1e-13

    _edit(b, RID, nudge)
    res = diff_folders(a, b)
    run = next(r for r in res.runs if r.run_id == RID)
    assert run.verdict == "rounding" and 0 < run.max_rel < 1e-12
    assert set(run.fields) == {"metrics", "curves"}
    assert res.reproduced() and not res.reproduced(exact=True)
    rc, out = run_cli(["records", "diff", str(a), str(b)], capsys)
    assert rc == 0 and "1 rounding" in out and RID in out, out
    rc, out = run_cli(["records", "diff", str(a), str(b), "--exact"], capsys)
    assert rc == 1 and "NOT reproduced" in out, out


@pytest.mark.parametrize("key, value", [("zero", -0.0), ("n", 3.0)])
def test_zeros_sign_and_an_int_as_float_are_not_the_same_bits(folders, key, value):
    """``0.0`` vs ``-0.0`` and ``3`` vs ``3.0`` had passed ``--exact`` ("the same bits"):
    they are rounding now, reproduced as printed, not with the same bits."""
    a, b = folders
    for folder in (a, b):
        _edit(folder, RID, lambda rec: rec["learner_counters"].update(zero=0.0, n=3))
    _edit(b, RID, lambda rec: rec["learner_counters"].__setitem__(key, value))
    res = diff_folders(a, b)
    run = next(r for r in res.runs if r.run_id == RID)
    assert run.verdict == "rounding" and run.max_rel == 0.0
    assert res.reproduced() and not res.reproduced(exact=True)


def test_an_identity_field_of_another_json_type_is_another_run(folders):
    """A spec value ``true`` against ``1`` is another run (``True == 1`` had hidden it)."""
    a, b = folders
    _edit(a, RID, lambda rec: rec["spec"].__setitem__("x", True))
    _edit(b, RID, lambda rec: rec["spec"].__setitem__("x", 1))
    res = diff_folders(a, b)
    run = next(r for r in res.runs if r.run_id == RID)
    assert run.verdict == "different run" and run.fields == ("spec",)


def test_a_final_metric_printed_differently_is_named_with_both_values(folders, capsys):
    a, b = folders
    before = json.loads((a / "runs" / f"{RID}.json").read_text())["metrics"]["oca"]
    _edit(b, RID, lambda rec: rec["metrics"].__setitem__("oca", before + 0.001))
    rc, out = run_cli(["records", "diff", str(a), str(b)], capsys)
    assert rc == 1, out
    assert f"differs: {RID}: oca {100 * before:.2f} → {100 * (before + 0.001):.2f}" in out
    # the table cell (mean over the two seeds) moves too
    assert "SEA / RLS / oca:" in out and "1 printed differently" in out


def test_a_curve_point_or_a_windowed_value_printed_differently_differs(folders):
    a, b = folders
    _edit(b, RID, lambda rec: rec["curves"]["oca"].__setitem__(1, 0.0))
    _edit(b, "SEA__Perceptron__seed0",
          lambda rec: rec["windowed"]["metrics"].__setitem__("mcc", 0.123456))
    res = diff_folders(a, b)
    by_id = {r.run_id: r for r in res.runs}
    assert by_id[RID].verdict == "differs"
    assert any("oca curve point 1:" in d for d in by_id[RID].differences)
    assert by_id["SEA__Perceptron__seed0"].verdict == "differs"
    assert any(d.startswith("mcc.windowed ") for d in by_id["SEA__Perceptron__seed0"].differences)
    assert not res.reproduced()


def test_a_counter_differs_only_beyond_its_rounding_bound(folders):
    a, b = folders
    key = "last_score_"  # a float counter, as the kernel learners keep

    def counter(value):
        return lambda rec: rec["learner_counters"].__setitem__(key, value)

    _edit(a, RID, counter(0.75))
    _edit(b, RID, counter(0.75 * (1 + ROUNDING_REL / 10)))
    assert next(r for r in diff_folders(a, b).runs if r.run_id == RID).verdict == "rounding"
    _edit(b, RID, counter(0.76))
    run = next(r for r in diff_folders(a, b).runs if r.run_id == RID)
    assert run.verdict == "differs" and run.differences == (f"learner_counters.{key} 0.75 → 0.76",)
    # an integer counter: any difference
    _edit(b, RID, counter(0.75))
    _edit(b, RID, lambda rec: rec["learner_counters"].__setitem__("n_classes_", 3))
    run = next(r for r in diff_folders(a, b).runs if r.run_id == RID)
    assert run.verdict == "differs" and run.differences == ("learner_counters.n_classes_ 2 → 3",)


def test_a_text_that_differs_is_other_fields_and_passes_unless_exact(folders):
    a, b = folders
    _edit(b, RID, lambda rec: rec["stream_info"].__setitem__("source", "another text"))
    res = diff_folders(a, b)
    run = next(r for r in res.runs if r.run_id == RID)
    assert run.verdict == "other fields" and "another text" in run.differences[0]
    assert res.reproduced() and not res.reproduced(exact=True)


@pytest.mark.parametrize("change", [
    lambda rec: rec["curves"].pop("mcc"),                       # a whole curve deleted
    lambda rec: rec.pop("curves"),                              # every curve
    lambda rec: rec["learner_counters"].__setitem__("n_classes_", None),
    lambda rec: rec["learner_counters"].__setitem__("n_classes_", "2"),
    lambda rec: rec["learner_counters"].__setitem__("n_classes_", True),
    lambda rec: rec["learner_counters"].pop("n_classes_"),
], ids=["curve", "curves", "count-null", "count-text", "count-bool", "count-gone"])
def test_numbers_missing_from_one_record_differ_even_without_exact(folders, change):
    """A number against nothing (or a text, a bool, null) is not a text difference: the
    default mode had said "reproduced, texts only" with a deleted curve or count (hunt of
    7 Dec)."""
    a, b = folders
    _edit(b, RID, change)
    res = diff_folders(a, b)
    assert not res.reproduced()
    run = next((r for r in res.runs if r.run_id == RID), None)
    if run is None:  # without its curves the record is incomplete: a problem, named
        assert any("'curves' are missing" in p for p in res.problems)
    else:
        assert run.verdict == "differs", run


def test_records_of_another_run_or_status_are_never_reproduced(folders):
    a, b = folders
    _edit(b, RID, lambda rec: rec["derived_seeds"].__setitem__("learner", 1))
    _edit(b, "SEA__RLS__seed0", lambda rec: rec.__setitem__("status", "failed"))
    res = diff_folders(a, b)
    by_id = {r.run_id: r for r in res.runs}
    assert by_id[RID].verdict == "different run" and by_id[RID].fields == ("derived_seeds",)
    assert not res.reproduced()


def test_a_run_only_one_folder_holds_fails_unless_subset(folders, capsys):
    a, b = folders
    (b / "runs" / f"{RID}.json").unlink()
    rc, out = run_cli(["records", "diff", str(a), str(b)], capsys)
    assert rc == 1 and f"1 run(s) only in {a}: {RID}" in out and "--subset" in out, out
    rc, out = run_cli(["records", "diff", str(a), str(b), "--subset"], capsys)
    assert rc == 0, out
    # the RLS cells have two runs in a and one in b: not compared, and said so
    assert "not compared (different numbers of runs)" in out


def test_a_corrupt_record_fails_the_diff_and_is_named(folders, capsys):
    a, b = folders
    (b / "runs" / f"{RID}.json").write_text("{not json")
    rc, out = run_cli(["records", "diff", str(a), str(b), "--subset"], capsys)
    assert rc == 1 and "unusable record" in out and RID in out, out


def test_a_folder_that_is_no_results_folder_is_a_user_error(folders, tmp_path, capsys):
    rc, out = run_cli(["records", "diff", str(folders[0]), str(tmp_path / "nothing")], capsys)
    assert rc == 2 and "Traceback" not in out and "not a streamlearn results directory" in out


def general(value):
    """A record edit: MCC printed in general notation, with ``value``."""
    def change(rec):
        rec["metric_info"]["mcc"]["notation"] = "general"
        rec["metrics"]["mcc"] = value
    return change


def test_an_sd_that_differs_by_rounding_only_is_not_a_cell_difference(folders):
    """An SD printed in general notation shows the rounding of equal runs (2e-18 against
    0): not a difference; an SD that really differs, with the same mean, is one."""
    a, b = folders

    for folder in (a, b):
        for seed in (0, 1):
            _edit(folder, f"SEA__RLS__seed{seed}", general(0.3))
            _edit(folder, f"SEA__Perceptron__seed{seed}", lambda rec: rec["metric_info"][
                "mcc"].__setitem__("notation", "general"))
    _edit(b, "SEA__RLS__seed1", general(0.3 * (1 + 4e-16)))
    res = diff_folders(a, b)
    assert res.cells == [], res.cells
    texts = {c: (x.text, y.text) for c, x, y in _both_cells(a, b) if x.text != y.text}
    assert list(texts) == [("SEA", "RLS", "mcc")]  # printed differently: 0 against ~8e-17
    _edit(b, "SEA__RLS__seed0", general(0.29))
    _edit(b, "SEA__RLS__seed1", general(0.31))
    res = diff_folders(a, b)
    assert [(c.algorithm, c.metric) for c in res.cells] == [("RLS", "mcc")]


def test_an_sd_that_differs_beside_a_large_mean_is_a_cell_difference(folders):
    """A mean printed alike ("1e+08") with SDs of 14 against 21: the runs
    print alike too, so only the cell shows it; a tolerance of 1e-6 of the mean had
    called it rounding."""
    a, b = folders

    for folder, second in ((a, 1e6 + 0.2), (b, 1e6 + 0.3)):
        _edit(folder, "SEA__RLS__seed0", general(1e6))
        _edit(folder, "SEA__RLS__seed1", general(second))
        for seed in (0, 1):
            _edit(folder, f"SEA__Perceptron__seed{seed}", lambda rec: rec["metric_info"][
                "mcc"].__setitem__("notation", "general"))
    texts = {c: (x.text, y.text) for c, x, y in _both_cells(a, b) if x.text != y.text}
    assert texts[("SEA", "RLS", "mcc")][0] != texts[("SEA", "RLS", "mcc")][1], texts
    res = diff_folders(a, b)
    assert [(c.algorithm, c.metric) for c in res.cells] == [("RLS", "mcc")], res.cells


def test_a_difference_between_records_of_other_blas_kernels_says_so(folders, capsys):
    a, b = folders

    def kernel(rec):
        rec["machine"]["blas"] = [{"library": "openblas", "version": "0.3.30",
                                   "kernel": "SkylakeX", "threads": 1}]
        rec["metrics"]["oca"] = 0.5

    for seed in (0, 1):
        _edit(b, f"SEA__RLS__seed{seed}", kernel)
        _edit(b, f"SEA__Perceptron__seed{seed}", kernel)
    res = diff_folders(a, b)
    assert res.kernels_b == ["openblas 0.3.30: SkylakeX"] and res.kernels_a != res.kernels_b
    rc, out = run_cli(["records", "diff", str(a), str(b)], capsys)
    assert rc == 1 and "made under other BLAS kernels" in out and "OPENBLAS_CORETYPE" in out


def test_a_difference_between_records_of_other_numba_targets_says_so(folders, capsys):
    a, b = folders

    def target(cpu, features=None):
        def edit(rec):
            rec["machine"]["jit_cpu"] = cpu
            rec["machine"].pop("jit_features", None)
            if features:
                rec["machine"]["jit_features"] = features
            rec["metrics"]["oca"] = 0.5 if features else rec["metrics"]["oca"]
        return edit

    for seed in (0, 1):
        for algo in ("RLS", "Perceptron"):
            _edit(a, f"SEA__{algo}__seed{seed}", target("znver4"))
            _edit(b, f"SEA__{algo}__seed{seed}", target("emeraldrapids", "-prefer-256-bit"))
    res = diff_folders(a, b)
    assert (res.jit_a, res.jit_b) == (["znver4"], ["emeraldrapids -prefer-256-bit"])
    rc, out = run_cli(["records", "diff", str(a), str(b)], capsys)
    assert rc == 1 and "Numba compiled the kernels for other targets (znver4 against " \
        "emeraldrapids -prefer-256-bit)" in " ".join(out.split())


def test_a_difference_between_jit_and_no_jit_records_says_so(folders, capsys):
    from streamlearn.evaluation.records import NO_JIT

    a, b = folders

    def target(cpu):
        def edit(rec):
            rec["machine"]["jit_cpu"] = cpu
            rec["machine"].pop("jit_features", None)
            rec["metrics"]["oca"] = 0.5 if cpu == NO_JIT else rec["metrics"]["oca"]
        return edit

    for seed in (0, 1):
        for algo in ("RLS", "Perceptron"):
            _edit(a, f"SEA__{algo}__seed{seed}", target("znver4"))
            _edit(b, f"SEA__{algo}__seed{seed}", target(NO_JIT))
    res = diff_folders(a, b)
    assert (res.jit_a, res.jit_b) == (["znver4"], [NO_JIT])
    rc, out = run_cli(["records", "diff", str(a), str(b)], capsys)
    assert rc == 1 and "Numba compiled the kernels for other targets (or not at all: " \
        "NUMBA_DISABLE_JIT ran them as Python) (znver4 against none (NUMBA_DISABLE_JIT))" \
        in " ".join(out.split())


def test_a_value_printed_as_zero_with_another_sign_is_rounding(folders):
    """-1e-17 and +1e-17 print as -0.00 and 0.00: not a printed difference."""
    a, b = folders
    _edit(a, RID, lambda rec: rec["metrics"].__setitem__("mcc", 1e-17))
    _edit(b, RID, lambda rec: rec["metrics"].__setitem__("mcc", -1e-17))
    run = next(r for r in diff_folders(a, b).runs if r.run_id == RID)
    assert run.verdict == "rounding", run


def _edit_predictions(folder: Path, run_id: str, change) -> None:
    """Change a run's saved predictions and name the new file in its record, as a
    consistent (not corrupt) other result would be."""
    import hashlib
    import io

    import numpy as np

    path = folder / "runs" / f"{run_id}.pred.npz"
    with np.load(path) as z:
        arrays = {k: z[k].copy() for k in z.files}
    change(arrays)
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    path.write_bytes(buf.getvalue())
    _edit(folder, run_id, lambda rec: rec.__setitem__(
        "predictions_sha256", hashlib.sha256(buf.getvalue()).hexdigest()))


@pytest.fixture(scope="module")
def saved_pair(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("diffpred")
    extra = {"evaluation": {**TINY["evaluation"], "save_predictions": True}}
    return _run(root / "a", **extra), _run(root / "b", **extra)


def test_saved_predictions_are_compared(saved_pair, tmp_path, capsys):
    """Hunt of 7 Dec: two labels swapped between right and wrong (OCA unchanged) passed as
    "reproduced (same bits)": the .pred.npz files were never opened. Labels now compare
    exactly; real values to ROUNDING_REL (below it rounding, which --exact refuses)."""
    import numpy as np

    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(saved_pair[0], a)
    shutil.copytree(saved_pair[1], b)
    res = diff_folders(a, b)
    assert res.reproduced(exact=True) and res.predictions_compared == 4

    def swap(arrays):  # one right answer made wrong, one wrong made right
        y, p = arrays["y_true"], arrays["y_pred"]
        right = np.flatnonzero(p == y)[0]
        wrong = np.flatnonzero(p != y)[0]
        p[right], p[wrong] = 1 - p[right], y[wrong]

    _edit_predictions(b, RID, swap)
    res = diff_folders(a, b)
    run = next(r for r in res.runs if r.run_id == RID)
    assert run.verdict == "differs", run
    assert "saved predictions: y_pred: 2 of 300 differ" in run.differences
    assert not res.reproduced()
    rc, out = run_cli(["records", "diff", str(a), str(b)], capsys)
    assert rc == 1 and "saved predictions: compared for 4 run(s)" in " ".join(out.split())


def test_real_valued_predictions_differ_by_rounding_or_beyond(tmp_path):
    """A regressor's saved predictions: 1 ulp is rounding (--exact fails, the default
    passes), 1e-3 relative is a difference."""
    cfg = {"name": "reg", "repeats": 1, "protocol": "prequential-regression",
           "streams": [{"name": "friedman", "label": "F", "max_samples": 200}],
           "algorithms": [{"name": "linear_regression", "label": "LR"}],
           "metrics": ["rmse"], "evaluation": {"save_predictions": True},
           "outputs": {"dir": str(tmp_path / "a"), "plots": []}}
    a = tmp_path / "a"
    assert not run_experiment(parse_config(cfg), a).failed
    for factor, exact_ok, ok in ((1 + 2.0**-52, False, True), (1 + 1e-3, False, False)):
        b = tmp_path / f"b{factor}"
        shutil.copytree(a, b)
        rid = next((b / "runs").glob("*.json")).stem
        _edit_predictions(b, rid, lambda arrays, f=factor: arrays.__setitem__(
            "y_pred", arrays["y_pred"] * f))
        res = diff_folders(a, b)
        assert res.reproduced(exact=True) is exact_ok and res.reproduced() is ok, res.runs
        if ok:
            assert res.runs[0].verdict == "rounding"
