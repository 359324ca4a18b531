"""Numba's vector width on Intel's newer AVX-512 cores (streamlearn.kernels._jit_target)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest
from numba.core import config

from streamlearn.kernels._jit_target import (
    FULL_WIDTH_FEATURE,
    full_width_features,
)

AVX512 = "+avx,+avx2,+avx512f,+avx512bw,+fma"


def test_full_width_on_the_listed_intel_cores_only() -> None:
    got = full_width_features("emeraldrapids", AVX512, "x86_64", False, False)
    assert got == AVX512 + "," + FULL_WIDTH_FEATURE
    assert full_width_features("sapphirerapids", AVX512, "AMD64", False, False) is not None
    # Skylake-SP and its kin lower their clock for 512-bit code; Zen 4 uses it already
    for cpu in ("skylake-avx512", "cascadelake", "icelake-server", "znver4", "haswell"):
        assert full_width_features(cpu, AVX512, "x86_64", False, False) is None


def test_no_full_width_without_avx512f_or_off_x86() -> None:
    assert full_width_features("emeraldrapids", "+avx,+avx2,-avx512f", "x86_64",
                               False, False) is None
    assert full_width_features("emeraldrapids", AVX512, "aarch64", False, False) is None


def test_a_users_numba_cpu_name_or_features_stand() -> None:
    assert full_width_features("emeraldrapids", AVX512, "x86_64", True, False) is None
    assert full_width_features("emeraldrapids", AVX512, "x86_64", False, True) is None


_PROBE = """
import json, os, sys
if sys.argv[1] == "numba-first":
    import numba
    numba.njit(lambda x: x + 1)(1)
import streamlearn.kernels
import numba
import numpy as np
from llvmlite import binding
from numba.core import config
from streamlearn.evaluation.records import machine_info
from streamlearn.kernels._jit_target import full_width_features, in_force

@numba.njit
def axpy(y, a, x):
    for i in range(x.shape[0]):
        y[i] = y[i] + a * x[i]

axpy(np.ones(64), 2.0, np.ones(64))
asm = next(iter(axpy.inspect_asm().values()))
host = binding.get_host_cpu_features().flatten()
print(json.dumps({
    "env": os.environ.get("NUMBA_CPU_FEATURES"),
    "qualifies": full_width_features(binding.get_host_cpu_name(), host,
                                     __import__("platform").machine(), False, False),
    "zmm": "zmm" in asm,
    "jit_features": machine_info().get("jit_features"),
    "in_force": in_force(),
}))
"""


needs_jit = pytest.mark.skipif(bool(config.DISABLE_JIT),
                               reason="inspects compiled code (NUMBA_DISABLE_JIT is set)")


def _probe(mode: str, **env: str) -> dict[str, object]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CPU")}
    out = subprocess.run([sys.executable, "-c", _PROBE, mode], env={**clean, **env},
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@needs_jit
@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                    reason="the setting is for x86-64 only")
def test_importing_the_kernels_sets_full_width_where_the_host_qualifies() -> None:
    got = _probe("streamlearn-first")
    if got["qualifies"] is None:
        # not one of the listed cores: nothing is set, Numba keeps LLVM's choice
        assert got["env"] is None and got["jit_features"] is None
        pytest.skip("this CPU is not one of FULL_WIDTH_CPUS: nothing to set here")
    assert got["env"] == got["qualifies"]
    assert got["zmm"], "the compiled loop should use 512-bit registers"
    assert got["jit_features"] == FULL_WIDTH_FEATURE and got["in_force"]


@needs_jit
def test_nothing_is_set_when_the_user_names_a_cpu_or_numba_was_set_up_first() -> None:
    got = _probe("streamlearn-first", NUMBA_CPU_NAME="haswell")
    assert got["env"] is None and got["jit_features"] is None
    got = _probe("streamlearn-first", NUMBA_CPU_NAME="haswell", NUMBA_CPU_FEATURES="")
    assert got["env"] == "" and not got["zmm"] and got["jit_features"] == ""
    got = _probe("numba-first")
    assert got["env"] is None and got["jit_features"] is None and not got["in_force"]
