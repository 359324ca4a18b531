"""The cost of the River and CapyMOA doors (issue 27): the same learner, parameters and
samples through streamlearn's prequential loop and through the interop wrappers, timed in
one process, the doors alternated ``REPEAT`` times; per door the median µs/sample and its
ratio to streamlearn's loops. The clock is the process's CPU time (one BLAS thread, so it
is the work done; on a shared machine wall time also counts the waiting).

Doors (each a test-then-train pass over the first 10,000 samples of Electricity, or of a
synthetic stream of the same shape when the data is absent; one BLAS thread, as
``streamlearn run`` gives each run):

``streamlearn run``
    ``run_prequential`` as the protocol calls it: fused chunks (``predict_learn_many``).
``streamlearn loop``
    ``run_prequential(use_many=False)``: ``predict_one``/``learn_one`` on float64 rows,
    the calls the wrappers make.
``River wrapper``
    ``model.predict_one(x)``, ``model.learn_one(x, y)`` over River dicts (the dict → array
    step twice per sample, label lookups), in a bare loop.
``River evaluate``
    ``river.evaluate.progressive_val_score`` with ``metrics.Accuracy`` (River's loop too).
``CapyMOA wrapper``
    ``learner.predict(inst)``, ``learner.train(inst)`` over CapyMOA instances built
    beforehand (only where CapyMOA and Java are: run it with ``.venv-moa``).
``dict -> array``
    the wrapper's conversion alone (``_vector``), once per sample.

Usage: STREAMLEARN_DATA=../shared/datasets python benchmarks/bench_interop.py
(and ``.venv-moa/bin/python benchmarks/bench_interop.py`` for the CapyMOA door).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from streamlearn import components
from streamlearn.protocols.prequential_loop import run_prequential

N = 10_000
REPEAT = 7
#: configs/online_bls/drift.yaml's settings on a smaller network (n3 = 100), and the
#: quickstart's size; RLS as a cheap learner, where a fixed cost per sample weighs most
LEARNERS: dict[str, tuple[str, dict[str, Any]]] = {
    "Online-BLS n3=100": ("online_bls_fast", {"lam": 1e-8, "enh_shrink": 0.8,
                                              "shrink_source": "box", "n3": 100,
                                              "seed": 11}),
    "Online-BLS Ada n3=100": ("online_bls_ada_fast", {"mu": 0.99, "lam": 1e-8,
                                                      "enh_shrink": 0.8,
                                                      "shrink_source": "box", "n3": 100,
                                                      "seed": 11}),
    "RLS": ("rls", {}),
}


def _data() -> tuple[np.ndarray, np.ndarray, str]:
    root = os.environ.get("STREAMLEARN_DATA")
    if root and (Path(root) / "elec2").is_dir():
        stream = components.get_stream("electricity")(data_dir=root)
        X, y = stream.to_arrays(N)
        return X, y, f"Electricity, first {N} samples"
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(N, 6))
    y = (X[:, 0] + X[:, 1] > 1.0).astype(np.int64)
    return X, y, f"synthetic, {N} x 6 (STREAMLEARN_DATA has no Electricity)"


def _fresh(name: str, params: dict[str, Any], d: int) -> Any:
    learner = components.get_algorithm(name)(**params)
    learner.reset(d, 2)
    return learner


def _doors(name: str, params: dict[str, Any], X: np.ndarray,
           y: np.ndarray) -> dict[str, Callable[[], float]]:
    """Each door as a function that runs one pass and returns its seconds."""
    from river import evaluate, metrics

    from streamlearn.interop.river import StreamlearnClassifier

    rows = [dict(enumerate(r)) for r in X.tolist()]
    labels = y.tolist()
    data = list(zip(rows, labels, strict=True))
    clock = time.process_time

    def streamlearn(use_many: bool) -> Callable[[], float]:
        def run() -> float:
            learner = _fresh(name, params, X.shape[1])
            t0 = clock()
            run_prequential(learner, X, y, chunk_size=1000, use_many=use_many,
                            n_classes=2)
            return clock() - t0
        return run

    def river_bare() -> float:
        model = StreamlearnClassifier(name, classes=(0, 1), **params)
        predict, learn = model.predict_one, model.learn_one
        t0 = clock()
        for x, label in data:
            predict(x)
            learn(x, label)
        return clock() - t0

    def river_evaluate() -> float:
        model = StreamlearnClassifier(name, classes=(0, 1), **params)
        t0 = clock()
        evaluate.progressive_val_score(data, model, metrics.Accuracy())
        return clock() - t0

    def dict_to_array() -> float:
        model = StreamlearnClassifier(name, classes=(0, 1), **params)
        model._vector(rows[0])
        vector = model._vector
        t0 = clock()
        for x in rows:
            vector(x)
        return clock() - t0

    doors = {"streamlearn run": streamlearn(True), "streamlearn loop": streamlearn(False),
             "River wrapper": river_bare, "River evaluate": river_evaluate,
             "dict -> array": dict_to_array}
    capymoa = _capymoa_door(name, params, X, y)
    if capymoa is not None:
        doors["CapyMOA wrapper"] = capymoa
    return doors


def _capymoa_door(name: str, params: dict[str, Any], X: np.ndarray,
                  y: np.ndarray) -> Callable[[], float] | None:
    from streamlearn.algorithms.external.moa_baselines import moa_unavailable_reason

    if moa_unavailable_reason() is not None:
        return None
    from capymoa.core import LabeledInstance
    from capymoa.stream import NumpyStream

    from streamlearn.interop.capymoa import StreamlearnClassifier

    schema = NumpyStream(X, y).get_schema()
    instances = [LabeledInstance.from_array(schema, X[i], int(y[i])) for i in range(len(y))]
    rest = {k: v for k, v in params.items() if k != "seed"}
    seed = params.get("seed", 1)

    def run() -> float:
        learner = StreamlearnClassifier(schema, name, random_seed=seed, **rest)
        predict, train = learner.predict, learner.train
        t0 = time.process_time()
        for inst in instances:
            predict(inst)
            train(inst)
        return time.process_time() - t0
    return run


def main() -> None:
    components.load_all()
    X, y, label = _data()
    print(f"{label}; {REPEAT} alternated passes per door, median CPU µs/sample "
          "(ratio to streamlearn's loops)")
    with threadpool_limits(limits=1):
        for title, (name, params) in LEARNERS.items():
            doors = _doors(name, params, X, y)
            for run in doors.values():  # compile, load caches
                run()
            times: dict[str, list[float]] = {k: [] for k in doors}
            for _ in range(REPEAT):
                for door, run in doors.items():
                    times[door].append(run())
            med = {k: 1e6 * float(np.median(v)) / len(y) for k, v in times.items()}
            fused, loop = med["streamlearn run"], med["streamlearn loop"]
            print(f"\n{title} ({name})")
            for door, us in med.items():
                spread = 1e6 * (max(times[door]) - min(times[door])) / len(y)
                print(f"  {door:17s} {us:8.2f} µs/sample (±{spread / 2:.2f})  "
                      f"x{us / fused:5.2f} run  x{us / loop:5.2f} loop")


if __name__ == "__main__":
    main()
