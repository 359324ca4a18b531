"""The package's layout rules (issue 22): the import layers of pyproject.toml hold (no
circle, no import up the layers), and no module outgrows one concept. And one hygiene rule
that has failed CI: no ``np.load`` of a path left for the garbage collector to close."""

from __future__ import annotations

import ast
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


def _unclosed_np_loads(source: str) -> list[int]:
    """Lines of ``np.load(...)`` calls that open a file no one closes: neither the context
    expression of a ``with`` nor reading a handle (a plain name) its caller already manages.
    An ``NpzFile`` left open is closed by the garbage collector in whichever later test it
    runs, as an unraisable ``ResourceWarning`` that ``-W error`` turns into that test's
    failure (CI of 28 Nov 2026 failed so)."""
    tree = ast.parse(source)
    managed = {id(item.context_expr) for node in ast.walk(tree)
               if isinstance(node, (ast.With, ast.AsyncWith)) for item in node.items}
    return sorted(
        node.lineno for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        and node.func.attr == "load" and isinstance(node.func.value, ast.Name)
        and node.func.value.id in ("np", "numpy") and id(node) not in managed
        and not (node.args and isinstance(node.args[0], ast.Name)))


def test_the_unclosed_load_rule_sees_a_bare_load():
    assert _unclosed_np_loads("import numpy as np\nz = np.load(p / 'a.npz')\n") == [2]
    assert _unclosed_np_loads("with np.load(p / 'a.npz') as z:\n    pass\n") == []
    assert _unclosed_np_loads("with open(p, 'rb') as fh:\n    z = np.load(fh)\n") == []


def test_no_np_load_is_left_for_the_garbage_collector():
    found = {f"{p.relative_to(ROOT)}:{line}"
             for top in ("streamlearn", "tests", "scripts", "benchmarks", "examples")
             for p in (ROOT / top).rglob("*.py")
             for line in _unclosed_np_loads(p.read_text(encoding="utf-8"))}
    assert not found, f"np.load without a with (use tests.saved_predictions): {sorted(found)}"


#: modules that exist on POSIX systems only: imported at a module's top level they stop
#: the package importing on Windows (``import posix`` in interrupts.py did, session 21)
POSIX_ONLY = frozenset({"posix", "fcntl", "resource", "termios", "pwd", "grp", "tty", "pty",
                        "_posixsubprocess"})


def _top_level_posix_imports(source: str) -> list[str]:
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Import):
            names = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module.split(".")[0]]
        else:
            continue
        found += [n for n in names if n in POSIX_ONLY]
    return found


def test_the_posix_import_rule_sees_a_top_level_import():
    assert _top_level_posix_imports("import os\nimport posix\n") == ["posix"]
    assert _top_level_posix_imports("from fcntl import flock\n") == ["fcntl"]
    assert _top_level_posix_imports("def f():\n    import resource\n") == []


def test_no_module_imports_a_posix_only_module_at_top_level():
    bad = {str(p.relative_to(ROOT)): names for p in PACKAGE.rglob("*.py")
           if (names := _top_level_posix_imports(p.read_text(encoding="utf-8")))}
    assert not bad, f"POSIX-only imports at module level (stop the import on Windows): {bad}"
