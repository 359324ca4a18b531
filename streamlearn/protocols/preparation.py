"""Data preparation: from a stream entry of the config to the arrays a protocol runs on.

Each step is a small function a protocol composes: :func:`build_stream` (registry name →
stream object, with the run's derived seed and the data directory), :func:`shuffle`
(per-seed order), :func:`cap` (first ``max_samples``), :func:`normalise` (scaling fitted
on a declared warm-up prefix, or a declared input range), :func:`train_test_split` (a
fixed split for protocols that grow a network on it) and :func:`shift_target` (the next
value of a series as the target of the window that precedes it).

:func:`prepare_stream` runs build → shuffle → cap → normalise and caches the result per
process, so the algorithms of one (stream, seed) share one materialisation.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any

import numpy as np

from streamlearn import components
from streamlearn.base import PreparedData, UserError


def derive_seeds(seed: int) -> dict[str, int]:
    """Independent child seeds of a run seed (stream generation, order, learner)."""
    children = np.random.SeedSequence(seed).spawn(3)
    names = ("stream", "order", "learner")
    return {n: int(c.generate_state(1, dtype=np.uint32)[0])
            for n, c in zip(names, children, strict=True)}


def build_stream(scfg: Any, seed: int, data_dir: str | None) -> Any:
    """The stream object of a config entry; generated streams that vary per run get the
    run's derived stream seed, file-backed streams the data directory."""
    cls = components.get_stream(scfg.name)
    params = dict(scfg.params)
    names = cls._param_names()
    reseed = cls.reseed_per_run if scfg.reseed is None else scfg.reseed
    if reseed and "seed" in names and "seed" not in params:
        params["seed"] = derive_seeds(seed)["stream"]
    if getattr(cls, "needs_data", False) and "data_dir" in names and "data_dir" not in params:
        params["data_dir"] = data_dir
    return cls(**params)


def shuffle(X: np.ndarray, y: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows in the run's own random order (derived "order" seed)."""
    perm = np.random.default_rng(derive_seeds(seed)["order"]).permutation(X.shape[0])
    return X[perm], y[perm]


def cap(X: np.ndarray, y: np.ndarray, n: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The first ``n`` rows (all when ``n`` is None or larger)."""
    if n is None or n >= X.shape[0]:
        return X, y
    return X[:n], y[:n]


def normalise(
    X: np.ndarray,
    method: str,
    warmup: int | None,
    declared: tuple[float, float] | None = None,
) -> np.ndarray:
    """Min-max or z-score scaling with statistics from the first ``warmup`` rows (all if None),
    or (``range``) the map of a declared input range ``[lo, hi]`` onto ``[0, 1]``.

    A column constant on the fitting rows is only shifted (scale 1), so values that differ
    later keep their information. With a warm-up prefix the scale is fixed before the rest
    of the stream is seen, as an online learner would have it; later values may fall
    outside [0, 1] (min-max) and are not clipped.
    """
    if method == "none":
        return X
    if method == "range":
        if declared is None:  # validated in config
            raise ValueError("normalize 'range' needs the declared range")
        lo, hi = declared
        return np.ascontiguousarray((X - lo) / (hi - lo))
    if warmup is not None and warmup > X.shape[0]:
        raise UserError(f"normalize_warmup = {warmup} is larger than the stream "
                        f"({X.shape[0]} samples): the scale cannot be fitted on a prefix "
                        "that long. Lower normalize_warmup or drop it (fit on all samples).")
    ref = X if warmup is None else X[:warmup]
    if method == "minmax":
        lo, hi = ref.min(axis=0), ref.max(axis=0)
        span = hi - lo
        shift, scale = lo, np.where(span > 0, span, 1.0)
    elif method == "zscore":
        mu, sd = ref.mean(axis=0), ref.std(axis=0)
        shift, scale = mu, np.where(sd > 0, sd, 1.0)
    else:  # validated in config
        raise ValueError(method)
    return np.ascontiguousarray((X - shift) / scale)


def train_test_split(
    X: np.ndarray, y: np.ndarray, n_test: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The last ``n_test`` rows as a held-out test set (after any per-seed shuffle):
    ``X_train, y_train, X_test, y_test``."""
    n = X.shape[0]
    if not 0 < n_test < n:
        raise UserError(f"a test split of {n_test} samples needs a stream of more than "
                        f"{n_test} samples (this one has {n}).")
    return X[: n - n_test], y[: n - n_test], X[n - n_test:], y[n - n_test:]


def shift_target(series: np.ndarray, horizon: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Inputs and targets of one-step-ahead prediction on a series: at step ``t`` the
    learner holds ``x_1..x_t`` and predicts ``x_{t+horizon}``. Returns the views
    ``(series[:-horizon], series[horizon:])``; no lag matrix is built."""
    if horizon < 1:
        raise ValueError("horizon must be >= 1")
    if series.shape[0] <= horizon:
        raise UserError(f"a series of {series.shape[0]} values has no target "
                        f"{horizon} step(s) ahead.")
    return series[:-horizon], series[horizon:]


_CACHE: OrderedDict[str, PreparedData] = OrderedDict()
_CACHE_SIZE = 2


def prepare_stream(scfg: Any, seed: int, data_dir: str | None) -> PreparedData:
    """Build, shuffle (per seed), cap and normalise a stream; cached per process."""
    stream = build_stream(scfg, seed, data_dir)
    # a file stream's content is part of the key: a file changed since (a worker process
    # that outlives an experiment, a test) is read again, never served from the cache
    content_key = getattr(stream, "content_key", None)
    key = json.dumps([scfg.to_dict(), seed, data_dir, content_key() if content_key else None],
                     sort_keys=True, default=str)
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    stream.check_available()
    X, y = stream.to_arrays()
    info = stream.info()
    steps = []
    if (not stream.natural_order) if scfg.shuffle is None else scfg.shuffle:
        X, y = shuffle(X, y, seed)
        steps.append("shuffled per seed")
    if scfg.max_samples is not None and scfg.max_samples < X.shape[0]:
        X, y = cap(X, y, scfg.max_samples)
        steps.append(f"first {scfg.max_samples} samples")
    if scfg.normalize != "none":
        try:
            X = normalise(X, scfg.normalize, scfg.normalize_warmup, scfg.normalize_range)
        except UserError as exc:
            raise UserError(f"Stream {scfg.label!r}: {exc}") from None
        if scfg.normalize == "range":
            lo, hi = scfg.normalize_range or (0.0, 1.0)
            steps.append(f"declared range [{lo:g}, {hi:g}] mapped to [0, 1]")
        else:
            where = "all samples" if scfg.normalize_warmup is None else (
                f"first {scfg.normalize_warmup} samples")
            steps.append(f"{scfg.normalize} scaling fitted on {where}")
    X = np.ascontiguousarray(X, dtype=np.float64)
    if not np.all(np.isfinite(X)):
        raise UserError(f"Stream {scfg.label!r} contains NaN or infinite feature values.")
    info_dict = {
        "name": scfg.name,
        "label": scfg.label,
        "task": info.task,
        "n_samples": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "n_classes": info.n_classes,
        "source": info.source,
        "loader_preprocessing": list(info.preprocessing),
        "runner_preprocessing": steps,
        "substitute_for": info.substitute_for,
    }
    prepared = PreparedData(X=X, y=y, info=info_dict, n_classes=info.n_classes)
    _CACHE[key] = prepared
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return prepared
