"""``streamlearn tables ridge_bls``: calibration.md from calibration.json and the per-update
tables from run records; hand-made records give a fixed, checked text."""

from __future__ import annotations

import json
from pathlib import Path

from streamlearn.reporting.papers import ridge_bls
from tests.cli_helpers import run_cli

MIB = 2**20


def _record(exp: Path, algo: str, lam: float, seed: int, accuracy: list[float | None],
            failed: list[int], update_seconds: list[float]) -> None:
    runs = exp / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    (runs / f"{algo}-{lam}-{seed}.json").write_text(json.dumps({
        "status": "ok", "complete": True, "algorithm": f"{algo} lam={lam:g}",
        "spec": {"algorithm": {"params": {"lam": lam},
                               "sweep": {"group": f"{algo} lam={{lam:g}}"}}},
        "updates": {"nodes": [100, 150, 200], "accuracy": accuracy, "failed": failed},
        "timing": {"update_seconds": update_seconds,
                   "step_seconds": [10 * t for t in update_seconds],
                   "peak_traced_bytes": [3 * MIB, 5 * MIB, 4 * MIB],
                   "state_bytes": [MIB, MIB, 2 * MIB], "node_matrix_bytes": 8 * MIB}}))


def _experiment(root: Path) -> Path:
    """Two λ (2^-30: block λ_1 of calibration.json; 2^-10: no block), Chol-1 and D-Rdg,
    two seeds; Chol-1 fails from update u1 in one seed at 2^-30."""
    exp = root / "mnist_tables"
    exp.mkdir(parents=True)
    (exp / "experiment.json").write_text(json.dumps(
        {"config_path": "configs/x.yaml", "config": {"seeds": [0, 1]}}))
    (root / "calibration.json").write_text(json.dumps({"picked_log2_lambda": [-30, -29]}))
    lo, hi = 2.0**-30, 2.0**-10
    _record(exp, "Chol-1", lo, 0, [0.90, 0.92, 0.94], [0, 0, 0], [1.0, 0.5, 0.5])
    _record(exp, "Chol-1", lo, 1, [0.90, None, None], [0, 1, 1], [1.0, 0.5, 0.5])
    _record(exp, "D-Rdg", lo, 0, [0.90, 0.91, 0.92], [0, 0, 0], [2.0, 2.0, 2.0])
    _record(exp, "D-Rdg", lo, 1, [0.92, 0.93, 0.94], [0, 0, 0], [2.0, 2.0, 2.0])
    for seed in (0, 1):
        _record(exp, "Chol-1", hi, seed, [0.80, 0.85, 0.83], [0, 0, 0], [1.0, 1.0, 1.0])
        _record(exp, "D-Rdg", hi, seed, [0.81, 0.86, 0.84], [0, 0, 0], [4.0, 4.0, 4.0])
    return exp


def test_tables_text_is_fixed(tmp_path):
    exp = _experiment(tmp_path)
    text = ridge_bls.tables_md(exp)
    paper = ridge_bls.paper_values()["blocks"][0]
    assert text.split("\n")[4:] == [
        "## λ = 2^-30 (paper block λ_1)", "",
        "| algorithm | u0 | u1 | u2 |", "|---|---|---|---|",
        "| Chol-1 | 90.00 | NA (1/2) | NA (1/2) |",
        "| *paper Chol-1* | " + " | ".join(f"*{v:.2f}*" for v in paper["Chol-1"][:3]) + " |",
        "| D-Rdg | 91.00 | 92.00 | 93.00 |",
        "| *paper D-Rdg* | " + " | ".join(f"*{v:.2f}*" for v in paper["D-Rdg"][:3]) + " |",
        "",
        "## λ = 2^-10", "",
        "| algorithm | u0 | u1 | u2 |", "|---|---|---|---|",
        "| Chol-1 | 80.00 | 85.00 | 83.00 |",
        "| D-Rdg | 81.00 | 86.00 | 84.00 |",
        "",
        "## Fig. 1: maximum test accuracy over u0..u2 vs λ", "",
        "| λ | Chol-1 | D-Rdg |", "|---|---|---|",
        "| 2^-30 | 90.00 (u0) | 93.00 (u2) |",   # nanmax over the mean of the seeds
        "| 2^-10 | 85.00 (u1) | 86.00 (u1) |",
        "",
        "## Table VI: training time per update (s)", "",
        "Weight update alone (node generation excluded; it is the same for every algorithm); "
        "u0 = the whole initial training; λ = 2^-10, and over seeds. S(·) = time(·)/time("
        "Chol-1). One BLAS thread per run, on a 2-core machine shared with other jobs: "
        "individual times are noisy.", "",
        "| u | nodes | add. Chol-1 | add. D-Rdg | S(Orig.) | S(Exg-E) | acc. Chol-1 | acc. "
        "D-Rdg | S(Orig.) | S(Exg-E) | paper S(Orig.) acc. | paper S(Exg-E) acc. |",
        "|---" * 12 + "|",
        "| u0 | 100 | 1.000 | 4.000 |  |  | 1.000 | 4.000 |  |  | "
        + _t6(0) + " |",
        "| u1 | 150 | 1.000 | 4.000 |  |  | 2.000 | 8.000 |  |  | " + _t6(1) + " |",
        "| u2 | 200 | 1.000 | 4.000 |  |  | 3.000 | 12.000 |  |  | " + _t6(2) + " |",
        "", "Whole step as in [16]'s code (node generation + weight update), accumulated (s), "
        "with Chol-1's speedups:", "",
        "| u | acc. Chol-1 | acc. D-Rdg | S(Orig.) | S(Exg-E) |", "|---|---|---|---|---|",
        "| u0 | 10.00 | 40.00 |  |  |", "| u1 | 20.00 | 80.00 |  |  |",
        "| u2 | 30.00 | 120.00 |  |  |",
        "", "Peak memory traced per run (max over updates, MiB; node matrices train+test: "
        "8 MiB):", "",
        "| algorithm | peak (MiB) | learner state at the end (MiB) |", "|---|---|---|",
        "| Chol-1 | 5 | 2 |", "| D-Rdg | 5 | 2 |", ""]
    assert (exp / "fig1_max_accuracy_vs_lambda.png").stat().st_size > 0


def _t6(u: int) -> str:
    row = ridge_bls.paper_values()["table6"][u]
    exge = "—" if row["acc_S_exge"] is None else f"{row['acc_S_exge']:.2f}"
    return f"{row['acc_S_orig']:.2f} | {exge}"


def test_the_results_folder_writes_every_experiment_and_the_calibration(tmp_path, capsys):
    exp = _experiment(tmp_path)
    calibration = json.loads((Path(__file__).parents[3] / "results" / "ridge_bls"
                              / "calibration.json").read_text())
    (tmp_path / "calibration.json").write_text(json.dumps(calibration))
    (tmp_path / "mnist_na").mkdir()  # an experiment not run here
    (tmp_path / "mnist_na" / "experiment.json").write_text("{}")
    rc, out = run_cli(["tables", "ridge_bls", str(tmp_path)], capsys)
    assert rc == 0, out
    out = " ".join(out.split())
    assert f"wrote {tmp_path / 'calibration.md'}" in out
    assert f"wrote {exp / 'tables.md'}" in out
    assert f"not written: mnist_na/tables.md (no run records in {tmp_path / 'mnist_na'})" in out
    md = (tmp_path / "calibration.md").read_text()
    assert md.startswith("# λ calibration (MNIST, initial 60/3000 network, D-Rdg)\n\n"
                         "Regenerate: `python scripts/ridge_bls_calibrate.py --seeds 0 1` "
                         "(whole training set 60,000 / test set 10,000, 2 simulation(s), "
                         f"{calibration['seconds']:.0f} s on this machine")
    assert "| λ_8 | 93.64 | 4.66 | -3 |" in md


def test_one_experiment_folder_writes_its_tables(tmp_path, capsys):
    exp = _experiment(tmp_path)
    rc, out = run_cli(["tables", "ridge_bls", str(exp), "--only", "tables.md",
                       "--timing-lam", str(2.0**-30)], capsys)
    assert rc == 0, out
    assert "λ = 2^-30, and over seeds" in (exp / "tables.md").read_text()
    assert not (tmp_path / "calibration.md").exists()


def test_no_calibration_json_is_named(tmp_path, capsys):
    rc, out = run_cli(["tables", "ridge_bls", str(tmp_path), "--only", "calibration.md"],
                      capsys)
    assert rc == 1
    assert f"not written: calibration.md (no file {tmp_path / 'calibration.json'})" in \
        " ".join(out.split())
