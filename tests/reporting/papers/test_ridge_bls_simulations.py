"""exg_e_simulations.md: Exg-E simulations on the paper's network against the paper's mean
and SD of 100; hand-made records give checked numbers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from scipy import stats

from streamlearn.errors import UserError
from streamlearn.reporting.papers import ridge_bls
from streamlearn.reporting.papers.ridge_bls_simulations import PAPER_NETWORK, simulations_md

LAM8 = 0.125


def _record(folder: Path, seed: int, acc: list[float], lam: float = LAM8,
            network: dict | None = None, algo: str = "bls_exg_e") -> None:
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    if not (folder / "experiment.json").exists():
        (folder / "experiment.json").write_text(json.dumps({"config": {}}))
    (folder / "runs" / f"{algo}-{lam}-{seed}.json").write_text(json.dumps({
        "status": "ok", "complete": True, "seed": seed, "algorithm": f"Exg-E lam={lam:g}",
        "spec": {"algorithm": {"name": algo, "params": {"lam": lam}},
                 "protocol_params": network or dict(PAPER_NETWORK, updates=len(acc) - 1)},
        "curves": {"update_accuracy": acc}}))


def _root(tmp_path: Path) -> Path:
    # λ_8 is block 8 (index 7) of the calibration
    (tmp_path / "calibration.json").write_text(json.dumps(
        {"picked_log2_lambda": [-30, -29, -25, -16, -13, -10, -7, -3]}))
    return tmp_path


def test_the_means_sds_and_tests_are_those_of_the_records(tmp_path):
    root = _root(tmp_path)
    u6 = [0.9151, 0.9174, 0.9059]
    for seed, last in enumerate(u6):
        _record(root / f"e{seed}", seed, [0.93, 0.94, 0.945, 0.945, 0.94, 0.93, last])
    # the same seed in a second folder, further: counted once, the longer run kept
    _record(root / "long", 0, [0.93, 0.94, 0.945, 0.945, 0.94, 0.93, 0.9151, 0.90])
    # not Exg-E, not the paper's network, another λ with too few seeds: left out
    _record(root / "other", 5, [0.5] * 7, algo="d_rdg")
    _record(root / "other", 6, [0.5] * 7, network=dict(PAPER_NETWORK, update_additional=750))
    _record(root / "other", 7, [0.5] * 7, lam=2.0**-13)
    text = simulations_md(root, ridge_bls.paper_values())
    assert "## λ = 2^-3 (paper block λ_8), seeds 0, 1, 2" in text
    assert "2^-13" not in text and "| 5 |" not in text and "| 6 |" not in text
    paper = ridge_bls.paper_values()
    mean_p, sd_p = paper["blocks"][7]["Exg-E"][6], paper["exg_e_std"][7][6]
    assert (mean_p, sd_p) == (93.05, 1.419)  # Table III, λ_8, u6: Mean and Std
    ours = [100 * v for v in u6]
    m = sum(ours) / 3
    sd = math.sqrt(sum((v - m) ** 2 for v in ours) / 2)
    t, p = stats.ttest_ind_from_stats(m, sd, 3, mean_p, sd_p, 100, equal_var=False)
    row = next(line for line in text.splitlines() if line.startswith("| u6 |"))
    z = [(v - mean_p) / sd_p for v in ours]
    assert row == (f"| u6 | {m:.2f} ± {sd:.2f} (3) | 93.05 ± 1.419 | {m - mean_p:+.2f} | "
                   f"{t:+.2f} | {p:.2g} | 3 of 3 | {min(z):+.2f} … {max(z):+.2f} |")
    # an update only one seed ran: its value and z, no test
    z7 = (90.0 - 91.64) / 2.126
    assert (f"| u7 | 90.00 (1) | 91.64 ± 2.126 | -1.64 | — | — | 1 of 1 | "
            f"{z7:+.2f} … {z7:+.2f} |") in text
    # the one seed that ran to u7, at u6 and u7: its z, beside the mean z of all that ran it
    z6 = [(v - mean_p) / sd_p for v in ours]
    assert "Seeds that ran to u7 (0), at every update" in text
    assert f"| u6 | 91.51 | {z6[0]:+.2f} | {sum(z6) / 3:+.2f} (3) |" in text
    assert f"| u7 | 90.00 | {z7:+.2f} | {z7:+.2f} (1) |" in text
    assert "| 0 | long | 93.00 |" in text and "| 1 | e1 | 93.00 |" in text
    assert text.count("| 91.51 | 90.00 |") == 1 and "| 91.74 |  |" in text


def test_a_seed_giving_two_results_is_refused(tmp_path):
    root = _root(tmp_path)
    for seed in range(3):
        _record(root / "a", seed, [0.93, 0.94])
    _record(root / "b", 1, [0.93, 0.95])
    with pytest.raises(UserError, match="seed 1: b and a give different accuracies"):
        simulations_md(root, ridge_bls.paper_values())


def test_the_paper_sds_are_the_seed_texts_std_rows():
    """The reference file's Exg-E SDs, read again from the seed text when it is here."""
    seed = Path(__file__).parents[3].parent / "shared" / "seeds" / "002_55f14ea8d603c5fb.txt"
    if not seed.is_file():
        pytest.skip("the seed text is not beside the project")
    lines = seed.read_text().split("\n")
    mnist = [i for i, line in enumerate(lines) if "Exg-E | Mean" in line][:8]  # Tables II-III
    stds = [[float(v) for v in lines[i + 1].split("|")[2:14]] for i in mnist]
    assert stds == ridge_bls.paper_values()["exg_e_std"]


def test_no_long_runs_table_when_every_seed_ran_every_update(tmp_path):
    root = _root(tmp_path)
    for seed in range(3):
        _record(root / "a", seed, [0.93, 0.94 + seed / 1000])
    text = simulations_md(root, ridge_bls.paper_values())
    assert "| u1 | 94.10 ± 0.10 (3) |" in text and "Seeds that ran to" not in text
