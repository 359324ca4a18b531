"""float_env and the guard around user code: a learner whose module switches the
floating-point environment (what loading a library built with ``-ffast-math`` does) no
longer changes the numbers of the other learners run in the same process.

Measured before the fix (german, BOGD / NOGD / SkeGD at sigma 0.5, ``--jobs 1``): adding a
learner whose module loads such a library moved 4 of 6 of their mistake rates, exit 0.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from streamlearn import float_env, interrupts
from streamlearn.interrupts import float_env_note, user_code_guarded

X86_LINUX = sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")
pytestmark = pytest.mark.skipif(not X86_LINUX or not float_env.can_reset(),
                                reason="switches MXCSR through glibc's x86-64 fenv_t")

# What crtfastmath.o (linked into a library built with -ffast-math) does when the library
# is loaded: set MXCSR's flush-to-zero (bit 15) and denormals-are-zero (bit 6).
SET_FTZ_DAZ = '''
import ctypes, struct

def set_ftz_daz():
    lib = ctypes.CDLL(None)
    lib.fegetenv.argtypes = lib.fesetenv.argtypes = [ctypes.c_void_p]
    env = ctypes.create_string_buffer(1024)
    lib.fegetenv(env)
    raw = bytearray(env.raw)
    (mxcsr,) = struct.unpack_from("<I", raw, 28)  # glibc x86-64 fenv_t: __mxcsr
    struct.pack_into("<I", raw, 28, mxcsr | 0x8040)
    lib.fesetenv(ctypes.create_string_buffer(bytes(raw), 1024))
'''

_ns: dict = {}
exec(SET_FTZ_DAZ, _ns)  # the same code the user module below runs
set_ftz_daz = _ns["set_ftz_daz"]

FE_UPWARD, FE_DOWNWARD = 0x800, 0x400  # x86


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> dict[str, None]:
    """A fresh record of what user code changed; the environment is default afterwards."""
    fresh: dict[str, None] = {}
    monkeypatch.setattr(float_env, "CHANGES_SEEN", fresh)
    yield fresh
    float_env.reset()
    assert float_env.changes() == []


def test_the_default_environment_shows_no_change() -> None:
    assert float_env.changes() == []
    with np.errstate(all="ignore"):
        assert np.float64(2.2250738585072014e-308) / 4 > 0  # subnormals kept


def test_each_switch_is_seen_and_set_back(seen: dict[str, None]) -> None:
    set_ftz_daz()
    assert float_env.changes() == ["flush-to-zero", "denormals-are-zero"]
    with np.errstate(all="ignore"):
        assert np.float64(2.2250738585072014e-308) / 4 == 0.0
    assert float_env.reset() == ["flush-to-zero", "denormals-are-zero"]
    assert float_env.changes() == []
    lib = ctypes.CDLL(None)
    for mode, name in ((FE_UPWARD, "rounding upward"),
                       (FE_DOWNWARD, "rounding downward or toward zero")):
        lib.fesetround(mode)
        assert float_env.changes() == [name]
        assert float_env.reset() == [name]
        assert float_env.changes() == []
    assert float_env.reset() == []  # nothing to do: nothing called


def test_user_code_starts_in_the_default_and_leaves_it_behind(seen: dict[str, None]) -> None:
    set_ftz_daz()  # left by code that ran before, outside the guard
    with user_code_guarded():
        assert float_env.changes() == []
        set_ftz_daz()  # the learner's code
    assert float_env.changes() == []
    assert list(seen) == ["flush-to-zero", "denormals-are-zero"]
    note = float_env_note()
    assert note is not None and "flush-to-zero, denormals-are-zero" in note
    assert "-ffast-math" in note


def test_no_note_when_nothing_changed(seen: dict[str, None]) -> None:
    with user_code_guarded():
        pass
    assert interrupts.float_env_note() is None


# ------------------------------------------------------------------ end to end, CLI

# a learner that shows the environment it runs in: class 1 while subnormals are kept
PROBE = '''
import numpy as np

class SubnormalProbe:
    def __init__(self, seed=0):
        pass
    def predict_one(self, x):
        with np.errstate(all="ignore"):
            return int(np.float64(2.2250738585072014e-308) / 4 != 0.0)
    def learn_one(self, x, y):
        pass
'''

# another user's learner whose module loads a "-ffast-math library" on import
FASTMATH_USER = SET_FTZ_DAZ + '''
set_ftz_daz()

class Majority:
    def __init__(self, seed=0):
        self.counts = {}
    def predict_one(self, x):
        return max(self.counts, key=self.counts.get) if self.counts else 0
    def learn_one(self, x, y):
        self.counts[y] = self.counts.get(y, 0) + 1
'''


def _run(tmp: Path, algorithms: list[dict], jobs: str, out: str) -> tuple[int, str, dict]:
    cfg = {"name": "fpenv", "repeats": 2,
           "streams": [{"name": "sea", "label": "SEA", "max_samples": 300}],
           "algorithms": algorithms, "metrics": ["oca"],
           "outputs": {"dir": str(tmp / out), "plots": []}}
    path = tmp / f"{out}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tmp) + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.run([sys.executable, "-m", "streamlearn", "run", str(path), "-q",
                           "--jobs", jobs], cwd=tmp, env=env, capture_output=True,
                          text=True, timeout=300)
    oca = {p.stem: json.loads(p.read_text())["metrics"]["oca"]
           for p in sorted((tmp / out / "runs").glob("*Probe*.json"))}
    return proc.returncode, proc.stdout + proc.stderr, oca


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_another_learners_fast_math_library_leaves_a_learner_s_numbers_alone(
        tmp_path: Path, jobs: str) -> None:
    (tmp_path / "probe_learner.py").write_text(PROBE)
    (tmp_path / "fastmath_user.py").write_text(FASTMATH_USER)
    probe = {"name": "probe_learner:SubnormalProbe", "label": "Probe"}
    rc, text, alone = _run(tmp_path, [probe], jobs, "alone")
    assert rc == 0, text
    assert set(alone) == {"SEA__Probe__seed0", "SEA__Probe__seed1"}
    # Majority first: with --jobs 2 both workers load its module before a probe's run
    rc, text, beside = _run(tmp_path, [{"name": "fastmath_user:Majority"}, probe], jobs,
                            "beside")
    assert rc == 0, text
    assert beside == alone  # before the fix: every prediction flipped to 0
    if jobs == "1":  # the config check imports both modules in this process
        assert "changed the floating-point environment (flush-to-zero" in " ".join(
            text.split())
