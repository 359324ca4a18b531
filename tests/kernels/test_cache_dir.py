"""kernels/_cache_dir.py: streamlearn imports and its kernels compile (and are cached)
when Numba can write neither beside the source nor in the user's cache folder."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from numba.core import config

import streamlearn
from streamlearn.kernels import _cache_dir

ROOT = Path(streamlearn.__file__).resolve().parent.parent

# Run in a child: Numba is told that every folder outside ``ALLOWED`` is read-only (its
# locators' own writability check raises, as it does on a read-only install with no
# writable home), then streamlearn is imported and a kernel runs.
_CHILD = textwrap.dedent("""
    import os, sys
    from numba.core import caching
    allowed = os.environ["ALLOWED"]
    real = caching._CacheLocator.ensure_cache_path
    def ensure_cache_path(self):
        if not self.get_cache_path().startswith(allowed):
            raise PermissionError(13, "read-only (simulated)", self.get_cache_path())
        return real(self)
    caching._CacheLocator.ensure_cache_path = ensure_cache_path
    if sys.argv[1] == "control":
        from numba import njit
        def f(x):
            return x + 1
        try:
            njit(cache=True)(f)
        except RuntimeError as exc:
            print("RuntimeError:", exc)
        sys.exit(0)
    import numpy as np
    from numba.core import config
    from streamlearn.kernels.reference_rules import majority_class_predictions
    y = np.array([1, 1, 0, 1, 0, 0])
    print(majority_class_predictions(y, np.zeros(2, np.int64)).tolist())
    print("CACHE_DIR", config.CACHE_DIR)
""")


def _child(mode: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TMPDIR": str(tmp), "ALLOWED": str(tmp / "streamlearn-numba-cache"),
           "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    return subprocess.run([sys.executable, "-c", _CHILD, mode], env=env, cwd=tmp,
                          capture_output=True, text=True, timeout=600)


def test_numba_refuses_a_cached_function_with_nowhere_to_write(tmp_path: Path) -> None:
    """The simulation reproduces the defect: without a place Numba will not define it."""
    out = _child("control", tmp_path)
    assert out.returncode == 0, out.stderr
    assert "RuntimeError: cannot cache function" in out.stdout


def test_kernels_compile_and_cache_in_a_private_temporary_folder(tmp_path: Path) -> None:
    out = _child("kernels", tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "[0, 1, 1, 1, 1, 1]"
    cache = Path(lines[1].split(" ", 1)[1])
    assert cache.parent == tmp_path and cache.name.startswith("streamlearn-numba-cache")
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert any(cache.rglob("*.nbi")), "no kernel was cached in the fallback folder"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root writes to read-only folders; the simulated test covers it")
def test_a_real_read_only_install_with_a_read_only_home(tmp_path: Path) -> None:
    pkg = tmp_path / "site"
    shutil.copytree(ROOT / "streamlearn", pkg / "streamlearn",
                    ignore=shutil.ignore_patterns("__pycache__"))
    home = tmp_path / "home"
    home.mkdir()
    for p in (*pkg.rglob("*"), pkg, home):
        p.chmod(p.stat().st_mode & ~0o222)
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"),
           "TMPDIR": str(tmp_path), "PYTHONPATH": str(pkg)}
    env.pop("NUMBA_CACHE_DIR", None)
    code = ("from streamlearn.kernels.reference_rules import majority_class_predictions\n"
            "import numpy as np\n"
            "counts = np.zeros(2, np.int64)\n"
            "print(majority_class_predictions(np.array([1, 1, 0]), counts).tolist())")
    try:
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, timeout=600)
    finally:
        for p in (*pkg.rglob("*"), pkg, home):
            p.chmod(p.stat().st_mode | 0o200)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[0, 1, 1]"


def test_a_user_chosen_cache_dir_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config, "CACHE_DIR", "/chosen/by/the/user")
    monkeypatch.setattr(_cache_dir, "_numba_finds_a_place", lambda: False)
    assert _cache_dir.ensure_cache_dir() is None
    assert config.CACHE_DIR == "/chosen/by/the/user"


def test_nothing_changes_where_numba_has_a_place(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config, "CACHE_DIR", "")
    monkeypatch.setattr(_cache_dir, "_numba_finds_a_place", lambda: True)
    assert _cache_dir.ensure_cache_dir() is None
    assert config.CACHE_DIR == ""


def test_another_users_or_a_shared_folder_is_never_used(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         ) -> None:
    """A folder of that name that others can write (or a file) is not trusted: a cached
    kernel is code, so a fresh private folder is made instead."""
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    taken = tmp_path / f"streamlearn-numba-cache-{uid}"
    taken.mkdir()
    taken.chmod(0o777)
    got = _cache_dir.fallback_dir()
    assert got != taken and got.parent == tmp_path
    assert stat.S_IMODE(got.stat().st_mode) == 0o700
    taken.rmdir()
    taken.write_text("not a folder")
    assert _cache_dir.fallback_dir() not in (taken, got)
    taken.unlink()
    assert _cache_dir.fallback_dir() == taken  # absent: made, private, and reused
    assert stat.S_IMODE(taken.stat().st_mode) == 0o700
    assert _cache_dir.fallback_dir() == taken
