"""scripts/ridge_bls_orig_rounding.py (Orig. against Exg-E and an accurately solved
reference, update by update) and the orig_rounding.md it feeds."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg

from streamlearn.reporting.papers import ridge_bls
from tests.conftest import shared_data_dir

ROOT = Path(__file__).resolve().parents[3]


def _script():
    spec = importlib.util.spec_from_file_location(
        "ridge_bls_orig_rounding", ROOT / "scripts" / "ridge_bls_orig_rounding.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("n", [10, 12])
def test_refined_solve_beats_a_float64_solve_on_an_ill_conditioned_system(n: int) -> None:
    # Pascal matrices are integer and ill-conditioned (cond ≈ 4e9 at n = 10, 2e12 at 12);
    # with an integer X, B = M X is exact in float64, so X is the exact solution
    M = scipy.linalg.pascal(n).astype(float)
    X = np.random.default_rng(n).integers(-3, 4, size=(n, 3)).astype(float)
    B = M @ X
    assert np.array_equal(B, (M.astype(object) @ X.astype(int).astype(object)).astype(float))
    plain = scipy.linalg.lu_solve(scipy.linalg.lu_factor(M), B)
    refined, last_step = _script().refined_solve(M, B)
    err_plain = np.linalg.norm(plain - X) / np.linalg.norm(X)
    err_refined = np.linalg.norm(refined - X) / np.linalg.norm(X)
    assert err_refined < 1e-3 * err_plain or err_refined < 1e-13
    assert err_refined < 1e-9
    assert last_step < 1e-9


def test_the_table_skips_smoke_entries_and_shows_every_update(tmp_path: Path) -> None:
    row0 = {"update": 0, "nodes": 100, "rel_P": 0.0, "eta_orig": 1e-14, "eta_exg": 1e-17,
            "err_P_orig": 1e-9, "err_P_exg": 1e-9, "err_W_orig": 1e-9, "err_W_exg": 1e-9,
            "acc_orig": 0.9, "acc_exg": 0.9, "acc_ref": 0.9, "disagree": 0.0,
            "rel_W": 0.0, "seconds": 120.0}
    row1 = {**row0, "update": 1, "nodes": 150, "rel_C": 2e-3, "c_over_h": 1e-2,
            "c_sigma_min_sq": 2**-19, "err_P_orig": 3e-2, "acc_orig": 0.85,
            "disagree": 0.05}
    run = {"config": "cfg", "stream": "MNIST", "seed": 0, "lam": 2.0**-20, "n_train": 60000,
           "n_test": 10000, "rows_compared": 2048, "machine": {"cpu": "CPU X"},
           "updates": [row0, row1]}
    (tmp_path / "orig_rounding.json").write_text(json.dumps(
        {"runs": [run, {**run, "config": "small", "smoke": True}]}))
    md = ridge_bls.orig_rounding_md(tmp_path)
    assert "## cfg, MNIST, seed 0, λ = 2^-20" in md and "small" not in md
    assert "| u1 | 150 | 85.00 | 90.00 | 90.00 | 5.00 % | 2.0e-03 | 3.0e-02 |" in md
    assert md.rstrip().endswith("| 1.0e-02 | 2 |")
    assert "2 minutes on CPU X" in md
    names = [o.name for o in ridge_bls.outputs(tmp_path)]
    assert "orig_rounding.md" in names


@pytest.mark.skipif(shared_data_dir() is None or not (shared_data_dir() / "mnist").exists(),
                    reason="MNIST is not in the test data directory")
def test_the_smoke_network_shows_exg_e_stable_and_orig_drifting(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STREAMLEARN_DATA", str(shared_data_dir()))
    out = _script().measure(ROOT / "configs/ridge_bls/mnist_full_mid.yaml", 2.0**-20,
                            smoke=True)
    rows = out["updates"]
    assert [r["update"] for r in rows] == [0, 1, 2]
    # M_k (the docstring's formula) is the matrix Exg-E's factor inverts: its backward
    # error stays at the unit roundoff, update after update
    assert max(r["eta_exg"] for r in rows) < 1e-14
    # Exg-E's states are as accurate as the conditioning allows; Orig.'s error grows
    assert max(r["err_P_exg"] for r in rows) < 1e-6
    assert rows[-1]["err_P_orig"] > 1e3 * rows[-1]["err_P_exg"]
    assert rows[-1]["acc_ref"] == rows[-1]["acc_exg"]
