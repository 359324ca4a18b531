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
