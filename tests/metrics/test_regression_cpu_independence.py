"""The regression metrics' weighted sums do not go through BLAS, so their bits do not
depend on the CPU: under each OpenBLAS kernel a machine can run, R² (cumulative, faded,
windowed) and the faded MSE/MAE are the same doubles. With ``np.dot`` (``ddot``) they
differed under each of Prescott, Sandybridge, Haswell and SkylakeX, and the committed R²
of the regression suite (Haswell) differed by 1.1e-13 under SkylakeX."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

_SCRIPT = """
import json, numpy as np
from streamlearn.base import MetricContext
from streamlearn.metrics.regression import MAE, MSE, R2
rng = np.random.default_rng(0)
y = rng.normal(size=3001) * 3 + 1
p = y + rng.normal(size=3001)
at = np.arange(100, 3001, 100)
ctx = MetricContext()
out = [R2.curve(y, p, at, ctx), R2.fading_curve(y, p, at, 0.999, ctx),
       R2.windowed_curve(y, p, at, 500, ctx), MSE.fading_curve(y, p, at, 0.99, ctx),
       MAE.fading_curve(y, p, at, 0.99, ctx)]
print(json.dumps([v.hex() for a in out for v in a.tolist()]))
"""

#: kernels every x86-64 machine with AVX can run (SSE3 and AVX); the machine's own kernel
#: is added by running once without OPENBLAS_CORETYPE
_KERNELS = ("Prescott", "Sandybridge", None)


def _bits(kernel: str | None) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    if kernel is not None:
        env["OPENBLAS_CORETYPE"] = kernel
    out = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux") or os.uname().machine != "x86_64",
                    reason="OpenBLAS's x86-64 kernels are chosen by OPENBLAS_CORETYPE")
def test_regression_metric_bits_do_not_depend_on_the_blas_kernel():
    runs = {k: _bits(k) for k in _KERNELS}
    first = runs[_KERNELS[0]]
    assert len(first) == 5 * 30
    for kernel, bits in runs.items():
        assert bits == first, f"OPENBLAS_CORETYPE={kernel} gives other bits"


def test_weighted_sum_is_the_pairwise_sum_of_the_rounded_products():
    from streamlearn.metrics.regression import weighted_sum

    rng = np.random.default_rng(1)
    w, v = rng.random(1001), rng.normal(size=1001)
    assert weighted_sum(w, v) == float(np.sum(w * v))
    assert weighted_sum(np.ones(3), np.array([1e16, 1.0, -1e16])) == 0.0  # no reassociation
