"""scripts/rerun_audit.py: a folder that is not reproduced is rerun under the OpenBLAS
kernel its committed records name."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script():
    path = ROOT / "scripts" / "rerun_audit.py"
    spec = importlib.util.spec_from_file_location("rerun_audit", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize(("folder", "kernel"), [
    ("results/ridge_bls/chol1_kernel_sandybridge", "Sandybridge"),  # records name it
    ("results/forks/german_budget", "SkylakeX"),
    ("results/forks/pnk_ridge/spambase", "Haswell"),  # records before machine.blas
])
def test_the_attribution_rerun_follows_the_records_kernel(folder, kernel):
    mod = _script()
    assert mod.records_kernel(ROOT / folder) == kernel
    env = mod.attribution_env(ROOT / folder)
    assert env == {"OPENBLAS_CORETYPE": kernel}
    assert mod.work_folder(ROOT / folder, Path("/w"), env).name.endswith(
        f"@OPENBLAS_CORETYPE={kernel}")


def test_a_folder_that_is_no_committed_results_folder_is_refused_by_name(tmp_path):
    mod = _script()
    assert "is not under" in mod.check_folders([tmp_path])
    assert "has no experiment.json" in mod.check_folders([ROOT / "results" / "nonexistent"])
    assert mod.check_folders([ROOT / "results" / "forks" / "german_budget"]) is None


def test_every_paired_run_is_in_one_column_of_the_row():
    """A run with texts only, another status or another identity had been in no column
    (runs 6 = same 3 + rounding 0 + printed differently 0; hunt 11)."""
    from streamlearn.reporting.record_diff import RecordsDiff, RunDiff

    mod = _script()
    runs = [RunDiff("a", "same"), RunDiff("b", "other fields"), RunDiff("c", "status"),
            RunDiff("d", "different run"), RunDiff("e", "rounding", 1e-15)]
    res = RecordsDiff(Path("x"), Path("y"), runs, [], [], [], 0, 0, [], set(), set(),
                      set(), set())
    row = mod._row(ROOT / "results" / "x", res, 1.0, "")
    cells = [c.strip() for c in row.split("|")[1:-1]]
    assert cells[1:6] == ["5", "1", "1 (≤ 1.0e-15)", "0",
                          "1 other fields, 1 status, 1 different run"]
