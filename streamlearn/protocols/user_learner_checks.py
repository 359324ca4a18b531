"""Run-time checks of a user's learner, made before the timed run on the run's own rows.

The library's own learners are held to these promises by the conformance suite
(:mod:`streamlearn.checks.learners`, every learner, every CI run); a user's class is held
to them only if the user runs ``streamlearn check``. A learner that breaks one of them gives
numbers that are not the protocol's while the run exits 0, so each run checks them itself:

1. **Reproducible**: two fresh copies built with the same parameters (and seed) predict
   the same on the run's first rows, with Python's and NumPy's global generators seeded
   alike before each pass (:func:`global_generators_seeded`). A learner whose predictions
   depend on state outside the instance (a class attribute or module global it appends to,
   an unseeded ``default_rng()``, the clock) would give each run numbers that depend on
   which runs came before it in the process (so on ``--jobs``) or on nothing at all.
2. **The fused path is the loop**: the protocol is the per-sample loop (predict ``x_k``,
   then learn ``(x_k, y_k)``); ``predict_learn_many`` is allowed only as a faster way to
   compute the same predictions. A fused path that predicts after learning, skips a chunk's
   last update or keeps state across chunks wrongly is caught by running it in chunks of
   :data:`CHECK_CHUNK` (so chunk boundaries are crossed), and once more as one chunk of
   all the checked rows (a fault that shows only in long chunks), against the loop; for
   classification, once more in chunks on the same rows with labels drawn at random
   (on an easy stream every prediction is right whether or not the path is off by one,
   so only labels that keep the predictions changing show it).

3. **Predicting is not learning** (only when the run predicts samples the learner does
   not learn then: a held-out test, prequential validation, delayed labels): the loop with
   a ``predict_one`` of another row before each round predicts as the plain loop. A
   learner whose ``predict_one`` changes its model (FORKS had inserted a predicted point
   into its sketch) would give such a run numbers that are not the protocol's.

A failure is a :class:`~streamlearn.protocols.prequential_loop.PredictionError` naming the
first sample that differs (and, for the first check, the class or module attributes the
learner changed): that run fails, the others are kept, the command exits 1.

After the timed run, one more fresh copy must predict the first rows as the first pass
did: state leaked outside the instance while the whole run learnt (e.g. a class-level
counter that changes predictions only past some size) fails the run then. And the data the
learner can reach outside its instance (:func:`outside_state`: its classes' attributes and
its modules' globals) must be what it was before the first check: a learner that changed
it (a cache filled on its first ``learn_one``, a counter of the copies built) fails, and so
does every later run of its class in the same process, which would start from what the
earlier runs left (:data:`_STATE_CHANGED_BY`), whatever its predictions show.

What they cannot see: a fused path's fault that shows only after the checked rows (e.g.
once a budget fills) or only in chunks longer than them, state kept where
:func:`outside_state` does not look (another module, a C extension), and leaked
state whose effect on the first rows repeats with a period
that divides both the :data:`CHECK_ROWS` learnt between the two passes (a prime, so no
period below it does) and everything learnt before the check after the run.
"""

from __future__ import annotations

import contextlib
import hashlib
import pickle
import random
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from streamlearn.base import Learner, has_predict_learn_many
from streamlearn.protocols.prequential_loop import PredictionError, run_prequential

__all__ = ["CHECK_CHUNK", "CHECK_ROWS", "CHECK_SEED", "REGRESSION_RTOL", "check_user_learner",
           "check_user_node_learner", "disagreements", "global_generators_seeded",
           "is_library_learner", "outside_state", "state_changes"]

#: chunk size of the fused pass: small and odd, so a short prefix crosses many boundaries
CHECK_CHUNK = 37

#: rows of each checking pass: the run's first rows. A prime, so state leaked from the first
#: pass into the second (a counter, a growing list) is shifted by a number no short period
#: divides
CHECK_ROWS = 251

#: the seed of the global generators in each checking pass (any fixed value: the passes
#: are compared with each other, not with the run)
CHECK_SEED = 20_261_129

#: regression predictions agree when ``|a - b| <= REGRESSION_RTOL * max(1, |a|, |b|)``: a
#: fused path may sum in another order (a BLAS matrix-vector product against per-sample
#: dot products), which moves no printed digit; a class label must agree exactly
REGRESSION_RTOL = 1e-9


#: learner classes (``module.qualname``) whose outside state a run of this process changed,
#: with the names changed: every later run of such a class here fails
_STATE_CHANGED_BY: dict[str, str] = {}


#: the fingerprint of a value that does not pickle: a resource, whose changes are not
#: compared (a pool made on first use is not state that predictions depend on)
_RESOURCE = b"resource"


def is_library_learner(learner: Learner) -> bool:
    """True for the library's own learners (defined in a ``streamlearn`` module), which the
    conformance suite tests; False for a user's class, River's and CapyMOA's."""
    return type(learner).__module__.split(".")[0] == "streamlearn"


@contextlib.contextmanager
def global_generators_seeded(seed: int) -> Iterator[None]:
    """Seed Python's ``random`` and NumPy's legacy global generator (``np.random.rand``
    and friends) with ``seed`` for the block, and restore their states after it, so a
    learner that draws from them (instead of a generator of its own) draws the same
    numbers whenever its run is repeated, in any process and after any other run."""
    # the legacy global generator is the one such a learner draws from
    py_state, np_state = random.getstate(), np.random.get_state()  # noqa: NPY002
    random.seed(seed)
    np.random.seed(seed % 2**32)  # noqa: NPY002
    try:
        yield
    finally:
        random.setstate(py_state)
        np.random.set_state(np_state)  # noqa: NPY002


def disagreements(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Indices where two prediction arrays of the same shape disagree."""
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        a, b = a.astype(np.float64), b.astype(np.float64)
        scale = np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
        return np.flatnonzero(np.abs(a - b) > REGRESSION_RTOL * scale)
    return np.flatnonzero(a != b)


def outside_state(learner: Learner) -> dict[str, bytes]:
    """A fingerprint (a digest per name) of the data a learner can reach outside its
    instance: the attributes of its classes (and of the user's class a wrapper holds as
    ``target``; not those of the library, NumPy or builtins) and the globals of their
    modules; functions, classes, modules and what does not pickle (a lock, a thread pool
    made on first use: resources, not data) left out."""
    classes = list(type(learner).__mro__)
    target = getattr(learner, "target", None)  # a plain user class, wrapped by components
    if isinstance(target, type):
        classes += target.__mro__
    owners: list[tuple[str, dict[str, Any]]] = []
    for cls in dict.fromkeys(classes):
        top = cls.__module__.split(".")[0]
        if top in {"builtins", "streamlearn", "numpy", "abc", "typing"}:
            continue
        owners.append((cls.__qualname__, vars(cls)))
        module = sys.modules.get(cls.__module__)
        if module is not None:
            owners.append((cls.__module__, vars(module)))
    prints: dict[str, bytes] = {}
    for owner, names in owners:
        for name, value in list(names.items()):
            if name.startswith("__") or callable(value) or isinstance(
                    value, (type, type(sys), property, staticmethod, classmethod)):
                continue
            try:
                data = pickle.dumps(value)
            except Exception:  # a resource (a lock, a thread pool, a file), not data
                prints[f"{owner}.{name}"] = _RESOURCE
                continue
            prints[f"{owner}.{name}"] = hashlib.blake2b(data, digest_size=16).digest()
    return prints


def _class_key(learner: Learner) -> str:
    """The learner's class (and a wrapped user class's) as ``module.qualname``."""
    classes = [type(learner)]
    target = getattr(learner, "target", None)
    if isinstance(target, type):
        classes.append(target)
    return "+".join(f"{c.__module__}.{c.__qualname__}" for c in classes)


def _refuse_earlier_change(learner: Learner, who: str) -> None:
    """Fail a run of a class whose outside state an earlier run of this process changed."""
    names = _STATE_CHANGED_BY.get(_class_key(learner))
    if names is not None:
        raise PredictionError(
            f"{who} keeps state outside the instance: an earlier run of {who} in this "
            f"process changed {names}, so this run would start from what that run left and "
            f"its numbers are not recorded. Keep all state on the instance (set it in "
            f"`reset`).")


def state_changes(before: dict[str, bytes], after: dict[str, bytes]) -> list[str]:
    """The names whose data differ between two :func:`outside_state` fingerprints (one
    added or removed included; a resource, on either side, not)."""
    out = []
    for k in sorted(set(before) | set(after)):
        a, b = before.get(k), after.get(k)
        if a != b and _RESOURCE not in (a, b):
            out.append(k)
    return out


def _state_changed(learner: Learner, before: dict[str, bytes]) -> str:
    """The names of the learner's outside state that differ from ``before`` ("" when none);
    a change is remembered for the class's later runs in this process."""
    names = ", ".join(state_changes(before, outside_state(learner)))
    if names:
        _STATE_CHANGED_BY[_class_key(learner)] = names
    return names


def _check_outside_state(learner: Learner, who: str, names: str) -> None:
    """Fail when the learner changed its outside state (``names``, from
    :func:`_state_changed`)."""
    if names:
        raise PredictionError(
            f"{who} keeps state outside the instance: while it was checked and run it "
            f"changed {names} (state shared by every instance), so each run would start "
            f"from what the runs before it left; this run's numbers are not recorded. Keep "
            f"all state on the instance (set it in `reset`); `streamlearn check` runs the "
            f"same test.")


def _loop(learner: Learner, X: np.ndarray, y: np.ndarray, n_classes: int | None,
          ) -> np.ndarray:
    with global_generators_seeded(CHECK_SEED):
        return run_prequential(learner, X, y, chunk_size=X.shape[0], use_many=False,
                               n_classes=n_classes).y_pred


def _probed_loop(learner: Learner, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The test-then-train loop with a ``predict_one`` of another row (``7i + 3`` mod n)
    before each round, its prediction dropped."""
    n = X.shape[0]
    labels = y.tolist()
    out = []
    with global_generators_seeded(CHECK_SEED):
        for i in range(n):
            learner.predict_one(X[(7 * i + 3) % n])
            out.append(learner.predict_one(X[i]))
            learner.learn_one(X[i], labels[i])
    return np.asarray(out)


def check_user_learner(learner: Learner, X: np.ndarray, y: np.ndarray, *,
                       n_classes: int | None = None, fused: bool = False,
                       state: dict[str, bytes] | None = None,
                       predicts_unlearnt: bool = False) -> Callable[[], None]:
    """Raise :class:`PredictionError` when ``learner`` (each pass on a fresh reset copy,
    ``learner.clone()``) is not reproducible over ``(X, y)``, the run's first rows as it
    will see them (the first :data:`CHECK_ROWS` are used), or, with ``fused`` (the run will
    call ``predict_learn_many``), when its ``predict_learn_many`` over chunks of
    :data:`CHECK_CHUNK` predicts them differently from its ``predict_one``/``learn_one``
    loop; with ``predicts_unlearnt`` (the run predicts samples the learner does not learn
    then), when a ``predict_one`` of another row before each round changes its predictions.

    Returns the check to make after the timed run: one more fresh copy must predict those
    rows as the first pass did, and the learner's outside state must be ``state``
    (:func:`outside_state`, taken before the protocol's warm-up touched the learner; by
    default now). State left outside the instance by the warm-up, the checks and the run (a
    cache filled once, a class-level counter that changes predictions only past some size)
    fails it."""
    X, y = X[:CHECK_ROWS], y[:CHECK_ROWS]
    n = X.shape[0]
    if n == 0:
        return lambda: None

    def fresh() -> Learner:
        copy = learner.clone()
        copy.reset(X.shape[1], n_classes)  # type: ignore[attr-defined]
        return copy

    who = type(learner).__name__
    _refuse_earlier_change(learner, who)
    state = outside_state(learner) if state is None else state
    first = _loop(fresh(), X, y, n_classes)
    second = _loop(fresh(), X, y, n_classes)
    differ = disagreements(first, second)
    if differ.size:  # what does a third pass change? (only now: a module may hold a lot)
        before = outside_state(learner)
        _loop(fresh(), X, y, n_classes)
        after = outside_state(learner)
        changed = state_changes(before, after)
        cause = (f"Between the two it changed {', '.join(changed)}: state shared by every "
                 f"instance, so each run would start from what the runs before it left. "
                 if changed else
                 "It draws random numbers from a generator no parameter seeds (e.g. "
                 "`np.random.default_rng()`), reads the clock, or keeps state outside "
                 "the instance. ")
        i = int(differ[0])
        raise PredictionError(
            f"{who} is not reproducible: two fresh copies with the same parameters (and "
            f"seed) predict differently on {differ.size} of the run's first {n} samples; "
            f"first at sample {i}: {first[i].item()!r} then {second[i].item()!r}. {cause}"
            f"This run's numbers would depend on what ran before it in the process, so "
            f"they are not recorded. Keep all state on the instance (set it in `reset`) "
            f"and draw random numbers from a generator seeded by a `seed` parameter "
            f"(the run passes its own); `streamlearn check` runs the same test.")

    if predicts_unlearnt:
        probed = disagreements(first, _probed_loop(fresh(), X, y))
        if probed.size:
            i = int(probed[0])
            raise PredictionError(
                f"{who}.predict_one changes the learner: with a predict_one of another "
                f"sample before each round, it predicts {probed.size} of the run's first {n} "
                f"samples differently from the plain loop (first at sample {i}). This run "
                f"predicts samples the learner does not learn then (a held-out test, "
                f"prequential validation or delayed labels), so its numbers would not be "
                f"the protocol's and are not recorded. Keep predict_one free of updates "
                f"(`streamlearn check` runs the same test).")

    def after_run() -> None:
        again = _loop(fresh(), X, y, n_classes)
        changed = _state_changed(learner, state)
        late = disagreements(first, again)
        if late.size:
            i = int(late[0])
            raise PredictionError(
                f"{who} is not reproducible: after the run, a fresh copy with the same "
                f"parameters (and seed) predicts {late.size} of the run's first {n} "
                f"samples differently from a fresh copy before it; first at sample {i}: "
                f"{first[i].item()!r} before, {again[i].item()!r} after. It keeps state "
                f"outside the instance (a class attribute or module global it changes "
                f"while it learns), so this run's numbers depend on what ran before it in "
                f"the process and are not recorded. Keep all state on the instance (set "
                f"it in `reset`).")
        _check_outside_state(learner, who, changed)

    if not fused or not has_predict_learn_many(learner):
        return after_run
    for chunk in dict.fromkeys((CHECK_CHUNK, n)):  # short chunks, then one long chunk
        _fused_is_the_loop(fresh(), X, y, n_classes, chunk, first, who)
    if n_classes is not None and n_classes > 1:
        # the same inputs with labels drawn at random: on an easy stream a fused path off
        # by one sample (predicting after learning, a chunk's last row not learnt) predicts
        # what the loop does, as every prediction is right; on random labels it keeps
        # changing, so such a fault shows
        noisy = np.random.default_rng(CHECK_SEED).integers(0, n_classes, n)
        _fused_is_the_loop(fresh(), X, noisy, n_classes, CHECK_CHUNK,
                           _loop(fresh(), X, noisy, n_classes), who,
                           labels=" with labels drawn at random")
    return after_run


def _fused_is_the_loop(learner: Learner, X: np.ndarray, y: np.ndarray,
                       n_classes: int | None, chunk: int, first: np.ndarray, who: str,
                       labels: str = "") -> None:
    """Raise :class:`PredictionError` when ``predict_learn_many`` over chunks of ``chunk``
    rows predicts otherwise than the loop did (``first``); ``labels`` says which labels
    ``y`` are when they are not the run's."""
    n = X.shape[0]
    with global_generators_seeded(CHECK_SEED):
        many = run_prequential(learner, X, y, chunk_size=chunk, use_many=True,
                               n_classes=n_classes).y_pred
    differ = disagreements(first, many)
    if differ.size:
        i = int(differ[0])
        raise PredictionError(
            f"{who}.predict_learn_many predicts differently from {who}'s "
            f"predict_one/learn_one loop on {differ.size} of the run's first {n} samples"
            f"{labels} (chunks of {chunk}); first at sample {i}: the loop predicts "
            f"{first[i].item()!r}, predict_learn_many {many[i].item()!r}. The protocol is "
            f"the per-sample loop, so this run's numbers would not be the protocol's. Make "
            f"predict_learn_many give the loop's predictions (`streamlearn check` runs the "
            f"same test), or set `evaluation: {{fused: false}}` to run the loop.")


def check_user_node_learner(learner: Learner, grow: Callable[[Learner], list[np.ndarray]],
                            ) -> Callable[[], None]:
    """The reproducibility check for a user's node learner (``incremental-nodes``
    protocol): ``grow(copy)`` grows a small network with a fresh copy and returns its test
    predictions after INIT and after each update. Two fresh copies must agree before the
    run (else :class:`PredictionError`, naming the step and the attributes a third copy
    changed); returns the check after the run, where one more copy must agree."""
    who = type(learner).__name__

    def predictions() -> np.ndarray:
        with global_generators_seeded(CHECK_SEED):
            steps = grow(learner.clone())
        return np.stack(steps)

    def differ(a: np.ndarray, b: np.ndarray, when: str, cause: str) -> None:
        rows = np.flatnonzero((a != b).any(axis=1))
        if rows.size:
            u, i = int(rows[0]), int(np.flatnonzero(a[rows[0]] != b[rows[0]])[0])
            step = "the initial network" if u == 0 else f"update {u}"
            raise PredictionError(
                f"{who} is not reproducible: {when}, fresh copies with the same parameters "
                f"(and seed) grown on the same small network predict test sample {i} "
                f"differently after {step}: {a[u, i].item()!r} then {b[u, i].item()!r}. "
                f"{cause}This run's numbers would depend on what ran before it in the "
                f"process, so they are not recorded. Keep all state on the instance (set "
                f"it in `reset`) and draw random numbers from a generator seeded by a "
                f"`seed` parameter.")

    _refuse_earlier_change(learner, who)
    state = outside_state(learner)
    first = predictions()
    second = predictions()
    if (first != second).any():
        before = outside_state(learner)
        predictions()
        after = outside_state(learner)
        changed = state_changes(before, after)
        differ(first, second, "before the run",
               f"Between the two it changed {', '.join(changed)}. " if changed else "")

    def after_run() -> None:
        again = predictions()
        changed = _state_changed(learner, state)
        differ(first, again, "after the run (against before it)",
               "It keeps state outside the instance that the run changed. ")
        _check_outside_state(learner, who, changed)

    return after_run
