"""streamlearn: a prequential experiment runner for online machine learning research."""

from __future__ import annotations

import os

__version__ = "0.1.0"

# Numba vectorises exp, tanh and log loops with Intel's SVML where llvmlite was built with
# it (conda's, not PyPI's) and libsvml.so loads: other roundings than the C library's, so
# other bits for the same seed. Off unless the user asks for it; set before Numba is
# imported, as Numba decides at import. Records name SVML when it is on
# (``machine.jit_svml``).
os.environ.setdefault("NUMBA_DISABLE_INTEL_SVML", "1")
