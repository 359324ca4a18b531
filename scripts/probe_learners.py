"""Learners for scripts/probe_hostile_inputs.py: a few honest ones whose scores the probe
computes by hand, and misbehaving ones (raise, exit, mutate their input, predict nonsense).

The probe copies this file into each case's working directory, where a config names its
classes as ``probe_learners:Class``. Not a part of streamlearn.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any, ClassVar

import numpy as np


def boom(what: str) -> None:
    """Misbehave as ``what`` says (raise an exception, exit, or kill the process)."""
    if what == "ValueError":
        raise ValueError("probe: a learner's own ValueError")
    if what == "SystemExit0":
        raise SystemExit(0)
    if what == "SystemExit1":
        raise SystemExit(1)
    if what == "SystemExitMsg":
        raise SystemExit("probe: a learner calling sys.exit with a message")
    if what == "KeyboardInterrupt":
        raise KeyboardInterrupt
    if what == "GeneratorExit":
        raise GeneratorExit
    if what == "MemoryError":
        raise MemoryError("probe: a learner's own MemoryError")
    if what == "RecursionError":
        def deep(k: int) -> int:
            return deep(k + 1) + 1
        deep(0)
    if what == "BaseException":
        raise BaseException("probe: a bare BaseException")
    if what == "os_exit0":
        os._exit(0)
    if what == "os_exit3":
        os._exit(3)
    if what == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError(f"unknown misbehaviour {what!r}")


class Threshold:
    """Predicts 1 when x[0] > 0, else 0; learns nothing (its OCA is computed by hand)."""

    def predict_one(self, x):
        return 1 if x[0] > 0 else 0

    def learn_one(self, x, y):
        pass


class Majority:
    """Predicts the most frequent class so far (ties: the smallest), 0 before any."""

    def __init__(self):
        self.counts: dict[int, int] = {}

    def reset(self, n_features, n_classes):
        self.counts = {}

    def predict_one(self, x):
        if not self.counts:
            return 0
        return min(self.counts, key=lambda c: (-self.counts[c], c))

    def learn_one(self, x, y):
        self.counts[y] = self.counts.get(y, 0) + 1


class Centroid:
    """Nearest running class mean: an honest learner that passes `streamlearn check`."""

    def __init__(self, seed: int | None = None):
        self.seed = seed

    def reset(self, n_features, n_classes):
        self.sums = np.zeros((n_classes, n_features))
        self.counts = np.zeros(n_classes)

    def predict_one(self, x):
        if not self.counts.any():
            return 0
        means = self.sums / np.maximum(self.counts, 1)[:, None]
        d = ((means - x) ** 2).sum(axis=1)
        d[self.counts == 0] = np.inf
        return int(np.argmin(d))

    def learn_one(self, x, y):
        self.sums[y] += x
        self.counts[y] += 1


class Raises(Threshold):
    """Threshold that misbehaves (``what``) in ``where``, at its ``after``-th call there."""

    def __init__(self, where: str = "predict_one", what: str = "ValueError", after: int = 5):
        self.where, self.what, self.after, self.calls = where, what, after, 0
        if where == "__init__":
            boom(what)

    def _tick(self, here: str) -> None:
        if here == self.where:
            self.calls += 1
            if self.calls >= self.after:
                boom(self.what)

    def reset(self, n_features, n_classes):
        self._tick("reset")

    def warm_up(self, X, y):
        self._tick("warm_up")

    def predict_one(self, x):
        self._tick("predict_one")
        return super().predict_one(x)

    def learn_one(self, x, y):
        self._tick("learn_one")


class Predicts:
    """Predicts ``value`` (a name for a bad or odd prediction) for every sample."""

    VALUES: ClassVar[dict[str, Any]] = {
        "none": None, "nan": float("nan"), "inf": float("inf"), "1.5": 1.5, "99": 99,
        "-1": -1, "n_classes": 2, "huge": 2 ** 70, "str": "a", "str1": "1",
        "float32_half": np.float32(0.5), "complex": 1 + 0j, "int64_1": np.int64(1),
        "float_1": 1.0, "true": True, "array_1": np.array([1]), "array_0d": np.array(1),
        "list_1": [1], "dict": {},
    }

    def __init__(self, value: str = "none"):
        self.value = value

    def predict_one(self, x):
        return self.VALUES[self.value]

    def learn_one(self, x, y):
        pass


class Fused:
    """A learner whose predict_learn_many returns ``kind`` (wrong shapes, dtypes, values;
    ``ones``: correct predictions of class 1)."""

    def __init__(self, kind: str = "ones"):
        self.kind = kind

    def predict_one(self, x):
        return 1

    def learn_one(self, x, y):
        pass

    def predict_learn_many(self, X, y):
        n = len(y)
        ones = np.ones(n, dtype=np.int64)
        k = self.kind
        out = {
            "ones": ones, "short": ones[:-1], "long": np.ones(n + 1, dtype=np.int64),
            "2d_col": ones[:, None], "2d_row": ones[None, :], "half": np.full(n, 0.5),
            "float_ones": ones.astype(np.float64), "nan": np.full(n, np.nan),
            "99": np.full(n, 99), "neg": np.full(n, -1), "none": None, "list": [1] * n,
            "str": np.array(["a"] * n), "bool": ones.astype(bool),
            "object_none": np.array([None] * n, dtype=object), "scalar": 1,
            "empty": np.empty(0, dtype=np.int64),
        }[k]
        return out


class Mutates:
    """Predicts 0, and writes zeros over its input in ``where`` (predict_one, learn_one,
    warm_up, or predict_learn_many's X / y)."""

    def __init__(self, where: str = "predict_one"):
        self.where = where

    def warm_up(self, X, y):
        if self.where == "warm_up":
            X[:] = 0.0

    def predict_one(self, x):
        if self.where == "predict_one":
            x[:] = 0.0
        return 0

    def learn_one(self, x, y):
        if self.where == "learn_one":
            x[:] = 0.0


class MutatesFused:
    """predict_learn_many that zeroes X (``X``) or y (``y``), predicting 0."""

    def __init__(self, where: str = "X"):
        self.where = where

    def predict_one(self, x):
        return 0

    def learn_one(self, x, y):
        pass

    def predict_learn_many(self, X, y):
        if self.where == "X":
            X[:] = 0.0
        else:
            y[:] = 0
        return np.zeros(len(y), dtype=np.int64)


class Slow(Threshold):
    """Threshold that sleeps ``delay`` seconds per prediction."""

    def __init__(self, delay: float = 0.01):
        self.delay = delay

    def predict_one(self, x):
        time.sleep(self.delay)
        return super().predict_one(x)


class Unpicklable(Threshold):
    """Threshold holding a lock and a lambda (pickle refuses both)."""

    def __init__(self, seed: int | None = None):
        self.seed = seed
        self.lock = threading.Lock()
        self.fn = lambda v: v


class ChangesDirectory(Threshold):
    """Threshold that changes the process's working directory in reset."""

    def reset(self, n_features, n_classes):
        target = os.path.join(os.environ.get("PROBE_TMP", "."), "elsewhere")
        os.makedirs(target, exist_ok=True)
        os.chdir(target)


class ExitsInWorker(Threshold):
    """Threshold that misbehaves (``how``) at its 5th prediction, in a worker process only
    (the probe's environment names the parent process)."""

    def __init__(self, how: str = "os_exit0", seed: int | None = None):
        self.how, self.seed, self.calls = how, seed, 0

    def predict_one(self, x):
        self.calls += 1
        if self.calls == 5 and str(os.getppid()) != os.environ.get("PROBE_PID"):
            boom(self.how)
        return super().predict_one(x)
