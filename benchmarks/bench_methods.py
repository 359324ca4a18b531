"""Cost of the evaluation methods of ``prequential-classification`` (issue 23) against the
plain run, on Electricity (45,312 samples, natural order).

Not a test: prints, per learner, the wall time of ``protocol.run`` (learner calls and
scoring; warm-up excluded) for the plain run (fused where the learner has
``predict_learn_many``), the plain per-sample run, ``delay: 100``, ``holdout: {every: 1000,
size: 200}`` and the sum over the 10 copies of each 10-fold validation, with the ratios to
the two plain runs. Needs the Electricity file (``STREAMLEARN_DATA``).

Usage::

    python benchmarks/bench_methods.py [LEARNER ...]     # default: perceptron online_bls_fast
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from streamlearn import components
from streamlearn.base import RunContext
from streamlearn.config import StreamConfig
from streamlearn.protocols.prequential_classification import PrequentialClassification

PARAMS = {"online_bls_fast": {"n3": 100, "lam": 1e-8, "enh_shrink": 0.8,
                              "shrink_source": "box"}}


def main(names: list[str]) -> None:
    components.load_all()
    data = PrequentialClassification().prepare(
        StreamConfig(name="electricity", label="Electricity"), 0, None)
    n = data.X.shape[0]

    def timed(proto: PrequentialClassification, name: str, **kw: object) -> tuple[float, float]:
        learner = components.get_algorithm(name)(**PARAMS.get(name, {}))
        proto.warm_up(learner, data)
        ctx = RunContext(metrics=("oca",), checkpoints=100, **kw)  # type: ignore[arg-type]
        t0 = time.perf_counter()
        result = proto.run(learner, data, ctx)
        return time.perf_counter() - t0, result.metrics["oca"]

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for name in names:
        rows = [("plain", *timed(PrequentialClassification(), name)),
                ("plain per-sample", *timed(PrequentialClassification(), name, fused=False)),
                ("delay 100", *timed(PrequentialClassification(delay=100), name)),
                ("holdout 1000/200", *timed(
                    PrequentialClassification(holdout={"every": 1000, "size": 200}), name))]
        for method in ("cross", "split", "bootstrap"):
            proto = PrequentialClassification(validation={"method": method, "folds": 10})
            runs = [timed(proto, name, fold=f, seed=0) for f in range(10)]
            rows.append((f"10-fold {method} (sum)", sum(t for t, _ in runs),
                         float(np.mean([a for _, a in runs]))))
        plain, per_sample = rows[0][1], rows[1][1]
        for label, t, acc in rows:
            print(f"{name:16s} {label:24s} {t:7.2f} s  {t / plain:5.2f}x plain  "
                  f"{t / per_sample:5.2f}x per-sample  {1e6 * t / n:7.1f} us/sample  "
                  f"OCA {acc:.4f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["perceptron", "online_bls_fast"])
