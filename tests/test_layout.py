"""The package's layout rules (issue 22): the import layers of pyproject.toml hold (no
circle, no import up the layers), and no module outgrows one concept."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "streamlearn"

#: the longest a module may be: past it, a module holds two things
MAX_LINES = 700
#: modules that are declared data tables, exempt from MAX_LINES (none today)
DATA_TABLES: frozenset[str] = frozenset()


def test_no_module_over_the_line_limit():
    too_long = {
        str(p.relative_to(ROOT)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
        and str(p.relative_to(ROOT)) not in DATA_TABLES
    }
    assert not too_long, f"modules over {MAX_LINES} lines: {too_long}"


def test_import_layers_hold():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("import-linter is not installed (the dev extra)")
    proc = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout
