"""The floating-point environment every run starts from: IEEE 754's default (round to
nearest, subnormal numbers kept).

The environment (the SSE control register on x86, FPCR on Arm) belongs to the process, not
to a learner. A shared library built with ``-ffast-math`` switches on flush-to-zero and
denormals-are-zero the moment it is loaded, and so does a call such as
``torch.set_flush_denormal(True)``; ``fesetround`` changes the rounding. Loaded by one
learner's module, it changed the numbers of every other learner computed in that process
afterwards: with ``--jobs 1`` all of them, with ``--jobs 2`` those that happened to share
a worker with it, so the same config and seed gave other results with another ``--jobs``,
exit 0. :func:`~streamlearn.interrupts.user_code_guarded` therefore sets the environment
this process started with before user code runs and again after it, and notes what the
user code had changed (:data:`CHANGES_SEEN`; the command prints it once).

:func:`changes` looks at the environment the way NumPy's compiled loops see it (a
subnormal quotient, a subnormal operand, a sum below half an ulp); :func:`reset` calls C's
``fesetenv`` through ``ctypes`` with the environment saved when this module was first
imported (before any user code), or C's default where that one was not the default.
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

import numpy as np

__all__ = ["CHANGES_SEEN", "can_reset", "changes", "reset"]

_SMALLEST_NORMAL = np.float64(2.2250738585072014e-308)
_SMALLEST_SUBNORMAL = np.float64(5e-324)
_BELOW_HALF_ULP = np.float64(2.0**-60)

#: what user code changed in the environment (each description once, in order seen)
CHANGES_SEEN: dict[str, None] = {}


def changes() -> list[str]:
    """How the calling thread's floating-point environment differs from IEEE 754's default
    (empty when it does not)."""
    found = []
    with np.errstate(all="ignore"):
        if np.divide(_SMALLEST_NORMAL, np.float64(4.0)) == 0.0:
            found.append("flush-to-zero")
        if np.multiply(_SMALLEST_SUBNORMAL, np.float64(1.0)) == 0.0:
            found.append("denormals-are-zero")
        one = np.float64(1.0)
        if np.add(one, _BELOW_HALF_ULP) != one:
            found.append("rounding upward")
        elif np.subtract(one, _BELOW_HALF_ULP) != one:
            found.append("rounding downward or toward zero")
    return found


def _c_library() -> Any:
    """The C library holding ``fegetenv``/``fesetenv`` (Python's own process has it on
    Linux and macOS), or ``None``."""
    for name in (None, "libm.so.6", "libm.so"):
        try:
            lib = ctypes.CDLL(name)
            lib.fegetenv.argtypes = [ctypes.c_void_p]
            lib.fesetenv.argtypes = [ctypes.c_void_p]
            return lib
        except (OSError, AttributeError):
            continue
    return None


def _saved_environment(lib: Any) -> Any:
    """The environment :func:`reset` sets: this process's at import, if it is IEEE 754's
    default; otherwise C's ``FE_DFL_ENV`` (glibc and musl define it as ``(fenv_t *) -1``),
    or ``None`` where neither is available."""
    if lib is None:
        return None
    if not changes():
        env = ctypes.create_string_buffer(1024)  # larger than any platform's fenv_t
        if lib.fegetenv(env) == 0:
            return env
    if sys.platform.startswith("linux"):
        return ctypes.c_void_p(-1)
    return None


_LIB = _c_library()
_SAVED = _saved_environment(_LIB)


def can_reset() -> bool:
    """Whether :func:`reset` can set the environment back on this platform."""
    return _SAVED is not None


def reset() -> list[str]:
    """Set the calling thread's environment to the saved default; return what differed
    from IEEE 754's default before (empty when nothing did, and then nothing is called)."""
    found = changes()
    if found and _SAVED is not None:
        _LIB.fesetenv(_SAVED)
    return found
