"""The cost of windowed and faded metrics in a real run (issue 23: at most 5 % over the
plain run for a ~10 µs/sample learner): Online-BLS (n3 = 60, ~9 µs/sample, fused) on
Electricity (45,312 samples; needs the data: STREAMLEARN_DATA), seven metrics, the
protocol's whole run (learner + scoring) with and without ``window: 1000, fading: 0.999``,
alternated 5 times in one process; the ratio of the minima and of the medians.

Usage: STREAMLEARN_DATA=../shared/datasets python benchmarks/bench_kinds_run.py
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import numpy as np

from streamlearn import components
from streamlearn.base import RunContext
from streamlearn.config import load_config
from streamlearn.evaluation.runs import build_learner

CONFIG = """
name: kinds_cost
protocol: prequential-classification
streams: [{name: electricity, label: Electricity}]
algorithms:
  - {name: online_bls_fast, label: Online-BLS,
     params: {n3: 60, lam: 1.0e-8, enh_shrink: 0.8, shrink_source: box}}
metrics: [oca, kappa, kappa_m, kappa_t, bacc, f1, mcc]
"""
KINDS = {"plain": (None, None), "kinds": (1000, 0.999)}


def main(repeat: int = 5) -> None:
    components.load_all()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kinds_cost.yaml"
        path.write_text(CONFIG)
        cfg = load_config(str(path))
    proto = components.get_protocol(cfg.protocol)(**cfg.protocol_params)
    data = proto.prepare(cfg.streams[0], 0, os.environ.get("STREAMLEARN_DATA"))
    n = data.X.shape[0]
    runs: dict[str, list[tuple[float, float]]] = {k: [] for k in KINDS}
    for _ in range(repeat):
        for kind, (window, fading) in KINDS.items():
            ctx = RunContext(metrics=cfg.metrics, checkpoints=200, window=window,
                             fading=fading)
            learner = build_learner(cfg.algorithms[0], 0)
            proto.warm_up(learner, data)
            t0 = time.perf_counter()
            result = proto.run(learner, data, ctx)
            runs[kind].append((time.perf_counter() - t0, result.timing["total_seconds"]))
    for kind, values in runs.items():
        v = np.array(values)
        print(f"{kind}: protocol.run min {v[:, 0].min():.4f} s, median "
              f"{np.median(v[:, 0]):.4f} s; learner {1e6 * np.median(v[:, 1]) / n:.2f} "
              "µs/sample")
    plain, kinds = np.array(runs["plain"])[:, 0], np.array(runs["kinds"])[:, 0]
    print(f"window + fading / plain: {kinds.min() / plain.min():.4f} (minima), "
          f"{np.median(kinds) / np.median(plain):.4f} (medians)")


if __name__ == "__main__":
    main()
