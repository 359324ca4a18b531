"""benchmarks/fast_ons_variants.py: the not-kept fast-ONS variants still build from the
landed kernel's source and compute the same predictor up to rounding."""

from __future__ import annotations

import numpy as np

from streamlearn.datasets.synthetic.series import SpeechLikeSeries
from tests.benchmarks import load_benchmark


def test_variants_agree_with_landed_kernel_up_to_rounding():
    mod = load_benchmark("fast_ons_variants")
    kernels = mod._variant_kernels()
    series = SpeechLikeSeries(n_samples=3001, seed=1).to_arrays()[1]
    x, y = series[:-1, None], series[1:]
    preds = {}
    for name in ("F-ONS", "sqrt", "sqrt+fma"):
        learner = mod._learner(name, 8, kernels)
        learner.reset(1, None)
        preds[name] = learner.predict_learn_many(x, y)
    scale = np.max(np.abs(preds["F-ONS"]))
    for name in ("sqrt", "sqrt+fma"):
        rel = np.max(np.abs(preds[name] - preds["F-ONS"])) / scale
        assert rel < 1e-9, (name, rel)
