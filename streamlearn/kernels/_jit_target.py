"""The vector width Numba compiles the kernels for on Intel's newer AVX-512 servers.

LLVM tunes every Intel AVX-512 core with ``prefer-256-bit``: its loop vectoriser then
uses 256-bit registers although 512-bit ones exist. The choice was made for Skylake-SP,
whose cores lowered their clock while running 512-bit code. For AMD Zen 4 LLVM keeps
512-bit vectors, and most committed run records were made there (Numba target
``znver4``). On an Emerald Rapids Xeon VM (7 Dec 2026) 512-bit vectors took 0.90
[0.80–1.22] of the time of a fixed ``online_bls_blocked`` + ``online_bls_fast`` workload
(15 alternated process pairs), fast ONS at M = 128 152–161 ns against 178–181; and
reruns there of fast-ONS records made on Zen 4 came back with the same bits, those of
records made with 256-bit vectors within rounding, as before (README, "Timing").

:func:`use_full_vector_width` runs once, before the first kernel is defined. It turns
``prefer-256-bit`` off (``NUMBA_CPU_FEATURES`` = the host's own features and
``-prefer-256-bit``) when all of these hold:

* LLVM names the host one of :data:`FULL_WIDTH_CPUS` (Sapphire Rapids and later; measured
  on Emerald Rapids only, the Skylake-SP family keeps LLVM's choice) and it has AVX-512F;
* neither ``NUMBA_CPU_NAME`` nor ``NUMBA_CPU_FEATURES`` is set (by the environment or a
  ``.numba_config.yaml``): a user's choice stands, and so does ``make
  test-blas-kernels``', which compiles for other CPUs;
* Numba's CPU target has not been set up yet (code compiled before ``streamlearn`` was
  imported fixed it; then nothing changes).

It is set in the environment so that a worker process (joblib, Dask) compiles the same
code. What changes is which lanes an instruction holds, and so the summation order of the
few reductions compiled with ``reassoc``: bits in the last place, as between any two CPUs
(README, "Seeds and reproducibility"). Each learner's per-sample and chunked paths still
run the same compiled code. Run records name the setting (``machine.jit_features``).
"""

from __future__ import annotations

import os
import platform

__all__ = ["FULL_WIDTH_CPUS", "FULL_WIDTH_FEATURE", "full_width_features", "in_force",
           "use_full_vector_width"]

#: LLVM's names of the Intel server cores from Sapphire Rapids on; measured on
#: ``emeraldrapids``
FULL_WIDTH_CPUS = frozenset({"sapphirerapids", "emeraldrapids", "graniterapids",
                             "graniterapids-d"})
#: the LLVM feature this module adds to the host's
FULL_WIDTH_FEATURE = "-prefer-256-bit"


def full_width_features(cpu_name: str, host_features: str, machine: str,
                        cpu_name_set: bool, cpu_features_set: bool) -> str | None:
    """The ``NUMBA_CPU_FEATURES`` value that turns ``prefer-256-bit`` off, or ``None``
    when the host is not one of :data:`FULL_WIDTH_CPUS` with AVX-512F on x86-64, or the
    user set Numba's CPU name or features."""
    if cpu_name_set or cpu_features_set:
        return None
    if machine.lower() not in ("x86_64", "amd64") or cpu_name not in FULL_WIDTH_CPUS:
        return None
    features = [f for f in host_features.split(",") if f]
    if "+avx512f" not in features:
        return None
    return ",".join([*features, FULL_WIDTH_FEATURE])


def _target_set_up() -> bool:
    """True when Numba's CPU target context exists (its code generator is then fixed)."""
    from numba.core.registry import cpu_target

    return "_toplevel_target_context" in vars(cpu_target)


def use_full_vector_width() -> str | None:
    """Set ``NUMBA_CPU_FEATURES`` as :func:`full_width_features` says, when Numba's target
    is not set up yet; return the value set, or ``None`` when nothing was changed."""
    from llvmlite import binding
    from numba.core import config

    config.reload_config()  # NUMBA_* as they are now (a .numba_config.yaml included)
    value = full_width_features(
        str(binding.get_host_cpu_name()), binding.get_host_cpu_features().flatten(),
        platform.machine(), getattr(config, "CPU_NAME", None) is not None,
        getattr(config, "CPU_FEATURES", None) is not None)
    if value is None or _target_set_up():
        return None
    os.environ["NUMBA_CPU_FEATURES"] = value
    config.reload_config()
    return value


def in_force() -> bool:
    """True when Numba's features in this process end with :data:`FULL_WIDTH_FEATURE`
    (set here, or by the user in the same way)."""
    from numba.core import config

    return str(getattr(config, "CPU_FEATURES", None) or "").endswith(FULL_WIDTH_FEATURE)
