"""The kernel-vs-reference tests once more on the pure-Python path (``NUMBA_DISABLE_JIT=1``).

The default run tests the compiled kernels; this runs the same ``tests/kernels/test_*.py``
files in a subprocess with the JIT disabled, so that the kernels' Python source is itself
checked against the NumPy references (coverage tools, debuggers and a broken numba build
see that path). numba reads ``NUMBA_DISABLE_JIT`` at import, hence the subprocess. Under
no JIT the kernel test files pick smaller sizes (``numba.config.DISABLE_JIT``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parents[1]


def _kernel_test_files() -> list[str]:
    own = Path(__file__).resolve()
    return sorted(
        str(p.relative_to(ROOT)) for p in TESTS.glob("test_*.py") if p.resolve() != own
    )


@pytest.mark.skipif(
    os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"),
    reason="already without the JIT: the kernel test files run directly",
)
def test_kernel_tests_pass_without_jit():
    files = _kernel_test_files()
    assert files, "no tests/kernels/test_*.py files found"
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *files],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-5000:]
    passed = re.search(r"(\d+) passed", out)
    assert passed and int(passed.group(1)) > 0, out[-5000:]
