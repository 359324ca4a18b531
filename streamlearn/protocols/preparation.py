"""Data preparation: from a stream entry of the config to the arrays a protocol runs on.

One path for every protocol, :func:`prepare_stream`:

1. build — registry name → stream object (:func:`build_stream`: the run's derived seed
   for generated streams that vary per run, the data directory for file-backed ones);
2. load — the stream's arrays, or its official train and test parts;
3. order — the run's own random order (:func:`shuffle`) or the stream's;
4. split — the last ``n_test`` rows held out (:func:`train_test_split`);
5. normalise — scaling fitted on a declared warm-up prefix, or a declared input range
   (:func:`normalise`);
6. tile — a series repeated end to end to a set length (:func:`tile`);

and **one** cap step: the stream's ``max_samples`` keeps the first ``N`` rows at the
place the protocol declares (:attr:`Preparation.cap_after`). A protocol states what it
needs as a :class:`Preparation` and adds only its own last step (the target shift of a
series, :func:`shift_target`).

The result, with the record's stream-info block, is cached per process (two entries), so
the learners of one (stream, seed) share one materialisation.
"""

from __future__ import annotations

import dataclasses
import json
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from streamlearn import components
from streamlearn.base import PreparedData, StreamInfo
from streamlearn.errors import UserError

CapAfter = Literal["order", "split", "tile"]

#: the cap step as the record's ``runner_preprocessing`` names it, per position
_CAP_STEP: dict[str, str] = {
    "order": "first {n} samples",
    "split": "first {n} samples of each part",
    "tile": "first {n} values",
}


def cap_applied(steps: list[str], n: int) -> bool:
    """Whether a record's ``runner_preprocessing`` says a ``max_samples`` cap of ``n`` cut
    the stream (a cap longer than the stream leaves no step)."""
    return any(step == form.format(n=n) for step in steps for form in _CAP_STEP.values())


@dataclass(frozen=True)
class Preparation:
    """What a protocol asks of :func:`prepare_stream` besides build → load → order →
    normalise.

    Parameters
    ----------
    cap_after
        Where the stream's ``max_samples`` applies. ``"order"``: the first ``N`` samples
        of the run's order, before normalising (the scale is fitted on them; prequential
        classification). ``"split"``: the first ``N`` samples of each part of a split.
        ``"tile"``: the first ``N`` values of the normalised, tiled series (the scale is
        fitted on the whole series, and a smoke cap also bounds a tiled series).
    split, n_test
        ``"official"``: the dataset's own train and test parts (streams with a ``part``
        parameter); ``"holdout"``: the last ``n_test`` rows (after the order step).
    tile_to
        Repeat the rows end to end (or cut them) to this many (:func:`tile`).
    shuffle
        The order when the config does not set ``shuffle``; ``None`` leaves it to the
        stream (shuffled per seed unless it has a natural order).
    """

    cap_after: CapAfter = "order"
    split: Literal["official", "holdout"] | None = None
    n_test: int | None = None
    tile_to: int | None = None
    shuffle: bool | None = None

    def __post_init__(self) -> None:
        if self.cap_after not in _CAP_STEP:
            raise ValueError(f"cap_after must be one of {sorted(_CAP_STEP)}")
        if self.cap_after == "split" and self.split is None:
            raise ValueError("cap_after='split' needs a split")
        if self.split == "holdout" and self.n_test is None:
            raise ValueError("a holdout split needs n_test")
        if self.split is not None and self.tile_to is not None:
            raise ValueError("a tiled series has no train/test split")


def derive_seeds(seed: int) -> dict[str, int]:
    """Independent child seeds of a run seed (stream generation, order, learner)."""
    children = np.random.SeedSequence(seed).spawn(3)
    names = ("stream", "order", "learner")
    return {n: int(c.generate_state(1, dtype=np.uint32)[0])
            for n, c in zip(names, children, strict=True)}


def _stream_takes_run_seed(cls: Any, scfg: Any) -> bool:
    """Whether :func:`build_stream` gives the stream the run's derived seed."""
    reseed = cls.reseed_per_run if scfg.reseed is None else scfg.reseed
    return bool(reseed) and "seed" in cls._param_names() and "seed" not in scfg.params


def build_stream(scfg: Any, seed: int, data_dir: str | None) -> Any:
    """The stream object of a config entry; generated streams that vary per run get the
    run's derived stream seed, file-backed streams the data directory."""
    cls = components.get_stream(scfg.name)
    params = dict(scfg.params)
    names = cls._param_names()
    if _stream_takes_run_seed(cls, scfg):
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
    (``range``) the map of a declared input range ``[lo, hi]`` onto ``[0, 1]``, or
    (``row_minmax``) each row onto ``[0, 1]`` by its own min and max (a constant row to 0):
    nothing is fitted, so it is as online as no scaling.

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
    if method == "row_minmax":
        lo = X.min(axis=1, keepdims=True)
        span = X.max(axis=1, keepdims=True) - lo
        return np.ascontiguousarray((X - lo) / np.where(span > 0, span, 1.0))
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


def tile(X: np.ndarray, n: int) -> np.ndarray:
    """The rows of ``X`` (the values of a series) repeated end to end and cut to ``n``,
    for timing studies on series longer than the data (the Fast-ONS paper's Fig. 1a runs
    5e7 samples)."""
    if n <= X.shape[0]:
        return X[:n]
    return np.resize(X, (n, *X.shape[1:]))


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


# --------------------------------------------------------------------------- the path

Parts = list[tuple[np.ndarray, np.ndarray]]

_CACHE: OrderedDict[str, PreparedData] = OrderedDict()
_CACHE_SIZE = 2


def _arrays(data: PreparedData) -> list[tuple[str, np.ndarray]]:
    return [("X", data.X), ("y", data.y),
            *((k, v) for k, v in sorted(data.extra.items()) if isinstance(v, np.ndarray))]


def fingerprint(data: PreparedData) -> dict[str, tuple[Any, ...]]:
    """Per array of ``data`` (``X``, ``y``, the protocol's extra arrays): its shape, dtype
    and the CRC-32 of its bytes (4 GB/s here: 0.1 s for MNIST's 60,000 × 784). The
    learners of one (stream, seed) share one materialisation (the cache), so a run compares
    the fingerprints before and after its learner's code: a learner that wrote into its
    inputs (through a pointer, or the writable array behind its read-only view) fails,
    and the next learner gets the data built again (:func:`forget`)."""
    out = {}
    for name, a in _arrays(data):
        c = np.ascontiguousarray(a)
        out[name] = (c.shape, c.dtype.str, zlib.crc32(memoryview(c.reshape(-1)).cast("B")))
    return out


def forget(data: PreparedData) -> None:
    """Drop the cache entries that hold any of ``data``'s arrays (they may have been
    written into): the next run of the stream prepares it again."""
    mine = {id(a) for _, a in _arrays(data)}
    for key in [k for k, v in _CACHE.items() if mine & {id(a) for _, a in _arrays(v)}]:
        del _CACHE[key]


def _official_parts(stream: Any, scfg: Any) -> tuple[Parts, StreamInfo]:
    """The dataset's own train and test parts, and the training part's metadata."""
    cls = type(stream)
    if "part" not in cls._param_names():
        raise UserError(f"Stream {scfg.label!r} ({scfg.name}) has no official train/"
                        "test split; use protocol params split: holdout, n_test: N.")
    params = {k: v for k, v in stream.get_params().items() if k != "part"}
    loaded = []
    for part in ("train", "test"):
        s = cls(**params, part=part)
        s.check_available()
        loaded.append((s, *s.to_arrays()))
    return [(X, y) for _, X, y in loaded], loaded[0][0].info()


def _cap_step(parts: Parts, n: int | None, where: str, steps: list[str]) -> Parts:
    """The single cap step: the first ``n`` rows of every part, noted when it cuts."""
    if n is None or all(X.shape[0] <= n for X, _ in parts):
        return parts
    steps.append(_CAP_STEP[where].format(n=n))
    return [cap(X, y, n) for X, y in parts]


def _stream_info(scfg: Any, info: StreamInfo, parts: Parts, n_classes: int | None,
                 steps: list[str]) -> dict[str, Any]:
    """The record's ``stream_info`` block: what was loaded and what the runner did."""
    X = parts[0][0]
    test = {"n_test": int(parts[1][0].shape[0])} if len(parts) > 1 else {}
    return {
        "name": scfg.name,
        "label": scfg.label,
        "task": info.task,
        "n_samples": int(X.shape[0]),
        **test,
        "n_features": int(X.shape[1]),
        "n_classes": n_classes,
        "source": info.source,
        "loader_preprocessing": list(info.preprocessing),
        "runner_preprocessing": steps,
        "substitute_for": info.substitute_for,
    }


def _normalise_step(parts: Parts, scfg: Any, steps: list[str]) -> Parts:
    """The config's scaling of the rows (not with a split: it would be fitted on both)."""
    if scfg.normalize == "none":
        return parts
    if len(parts) > 1:
        raise UserError(f"Stream {scfg.label!r}: normalize is not available with a "
                        "train/test split; set normalize: none.")
    (X, y), = parts
    try:
        X = normalise(X, scfg.normalize, scfg.normalize_warmup, scfg.normalize_range)
    except UserError as exc:
        raise UserError(f"Stream {scfg.label!r}: {exc}") from None
    if scfg.normalize == "range":
        lo, hi = scfg.normalize_range or (0.0, 1.0)
        steps.append(f"declared range [{lo:g}, {hi:g}] mapped to [0, 1]")
    elif scfg.normalize == "row_minmax":
        steps.append("each sample scaled to [0, 1] by its own min and max")
    else:
        where = "all samples" if scfg.normalize_warmup is None else (
            f"first {scfg.normalize_warmup} samples")
        steps.append(f"{scfg.normalize} scaling fitted on {where}")
    return [(X, y)]


def _tile_step(parts: Parts, n: int | None, steps: list[str]) -> Parts:
    """The series repeated end to end (or cut) to ``n`` values."""
    (X, y), = parts
    rows = X.shape[0]
    if n is None or n == rows:
        return parts
    steps.append(f"series of {rows} values repeated end to end to {n}" if n > rows
                 else f"first {n} values")
    return [(tile(X, n), tile(y, n))]


def prepare_stream(scfg: Any, seed: int, data_dir: str | None,
                   plan: Preparation | None = None) -> PreparedData:
    """Build, load, order, split, normalise and tile a stream as ``plan`` asks (default:
    build → load → order → cap → normalise), with the stream's ``max_samples`` applied
    once, at ``plan.cap_after``; cached per process.

    Returns the (training) rows in ``X``/``y``; with a split, the test part in ``extra``
    (``X_test``, ``y_test``).
    """
    plan = plan or Preparation()
    stream = build_stream(scfg, seed, data_dir)
    if scfg.shuffle is not None:
        shuffled = bool(scfg.shuffle)
    else:
        shuffled = plan.shuffle if plan.shuffle is not None else not stream.natural_order
    # the run seed is part of the key only when the data depend on it, so the seeds of a
    # fixed dataset in its own order share one entry. A file stream's content is part of
    # the key: a file changed since (a worker process that outlives an experiment, a test)
    # is read again, never served from the cache.
    seeded = shuffled or _stream_takes_run_seed(type(stream), scfg)
    content_key = getattr(stream, "content_key", None)
    key = json.dumps([scfg.to_dict(), seed if seeded else None, data_dir,
                      content_key() if content_key else None, dataclasses.asdict(plan)],
                     sort_keys=True, default=str)
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]

    steps: list[str] = []
    if plan.split == "official":
        parts, info = _official_parts(stream, scfg)
        steps.append("official train/test split")
    else:
        stream.check_available()
        parts = [stream.to_arrays()]
        info = stream.info()
    if shuffled:
        parts = [shuffle(X, y, seed) for X, y in parts]
        steps.append("shuffled per seed")
    if plan.cap_after == "order":
        parts = _cap_step(parts, scfg.max_samples, "order", steps)
    if plan.split == "holdout":
        assert plan.n_test is not None  # checked by Preparation
        Xtr, ytr, Xte, yte = train_test_split(*parts[0], plan.n_test)
        parts = [(Xtr, ytr), (Xte, yte)]
        steps.append(f"last {plan.n_test} samples held out")
    if plan.cap_after == "split":
        parts = _cap_step(parts, scfg.max_samples, "split", steps)
    parts = _normalise_step(parts, scfg, steps)
    parts = [(np.ascontiguousarray(X, dtype=np.float64), y) for X, y in parts]
    if not all(np.all(np.isfinite(X)) for X, _ in parts):
        raise UserError(f"Stream {scfg.label!r} contains NaN or infinite feature values.")
    if plan.tile_to is not None:
        parts = _tile_step(parts, plan.tile_to, steps)
    if plan.cap_after == "tile":
        parts = _cap_step(parts, scfg.max_samples, "tile", steps)

    if plan.split is not None:
        # the network's one-hot targets have one column per label of the two parts
        n_classes: int | None = int(max(y.max() for _, y in parts)) + 1
    else:
        n_classes = info.n_classes
    (X, y), extra = parts[0], {}
    if len(parts) > 1:
        extra = {"X_test": parts[1][0], "y_test": parts[1][1]}
    prepared = PreparedData(X=X, y=y, info=_stream_info(scfg, info, parts, n_classes, steps),
                            n_classes=n_classes, extra=extra,
                            feature_names=info.feature_names)
    _CACHE[key] = prepared
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return prepared
