"""Prequential validation over ``k`` copies of a learner (Bifet, de Francisci Morales,
Read, Holmes and Pfahringer, "Efficient online evaluation of big data stream
classifiers", KDD 2015, Sec. 4; MOA's ``EvaluatePrequentialCV``).

The ``validation`` parameter of the ``prequential-classification`` protocol::

    validation: {method: cross | split | bootstrap, folds: k}     # k >= 2

Copy ``f`` of ``k`` (each copy is a run of its own, run id ``..._fold<f>``), at sample
``t``:

* ``cross``: copy ``t mod k`` is tested on ``t`` and not trained on it; every other copy
  is trained on ``t`` and not tested (the issue's definition: each instance tests one copy.
  MOA's code tests every copy on every instance and trains all but ``t mod k``; we follow
  the issue, so a copy's metrics are over the ``n / k`` instances it never learnt);
* ``split``: every copy is tested on ``t``; only copy ``t mod k`` is trained on it;
* ``bootstrap``: every copy is tested on ``t``, then trained on it with a Poisson(1)
  weight ``w`` (no learner here takes a weight, so the update is repeated ``w`` times; MOA
  passes the weight to the learner). The draws of copy ``f`` come from the run seed
  (``SeedSequence(seed)``'s fourth child, then its child ``f``), so they are reproducible
  and independent per copy, and do not depend on ``k``.

A copy's metrics and curves are over the instances it was tested on, at the usual
checkpoints of samples seen (:func:`streamlearn.protocols.subset_scoring.score_subset`).
The summary's mean, SD and ``n`` over (stream, learner) are then over folds x seeds: a
deterministic learner on a stream in its file order gets a spread.

Cost: each copy runs the per-sample ``predict_one``/``learn_one`` loop (a fused
``predict_learn_many`` cannot skip a test or an update): ``cross`` does ``(k-1)/k`` of the
updates and ``1/k`` of the predictions of a plain run per copy, ``split`` all the
predictions and ``1/k`` of the updates, ``bootstrap`` all predictions and on average as
many updates, so ``k`` copies cost about ``k`` plain per-sample runs (less for ``split``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from streamlearn.errors import UserError
from streamlearn.protocols.prequential_loop import Schedule

__all__ = ["METHODS", "ValidationSpec", "fold_schedule", "parse_validation",
           "scored_predictions"]

METHODS = ("cross", "split", "bootstrap")

#: which child of ``SeedSequence(run seed)`` drives the bootstrap weights (children 0-2
#: are the stream, order and learner seeds of :func:`~streamlearn.protocols.preparation.
#: derive_seeds`)
_BOOTSTRAP_CHILD = 3


@dataclass(frozen=True)
class ValidationSpec:
    """A parsed ``validation`` parameter."""

    method: str
    folds: int

    def as_json(self) -> dict[str, Any]:
        return {"method": self.method, "folds": self.folds}


def parse_validation(value: Any) -> ValidationSpec | None:
    """The ``validation`` parameter as a :class:`ValidationSpec` (``None``: a plain run);
    a :class:`UserError` names what is wrong."""
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"method", "folds"}:
        raise UserError("The 'validation' parameter must be a mapping {method: cross | split "
                        f"| bootstrap, folds: k}}. Got {value!r} instead.")
    method, folds = value["method"], value["folds"]
    if method not in METHODS:
        raise UserError(f"The 'validation' parameter's method must be one of "
                        f"{', '.join(map(repr, METHODS))}. Got {method!r} instead.")
    if not isinstance(folds, int) or isinstance(folds, bool) or folds < 2:
        raise UserError("The 'validation' parameter's folds must be an integer >= 2 (the "
                        f"number of learner copies). Got {folds!r} instead.")
    return ValidationSpec(method, folds)


def bootstrap_weights(seed: int, fold: int, n: int) -> np.ndarray:
    """The Poisson(1) weights of copy ``fold`` of a run with this seed."""
    child = np.random.SeedSequence(seed).spawn(_BOOTSTRAP_CHILD + 1)[_BOOTSTRAP_CHILD]
    rng = np.random.default_rng(child.spawn(fold + 1)[fold])
    return rng.poisson(1.0, size=n).astype(np.int64)


def fold_schedule(spec: ValidationSpec, fold: int, n: int, seed: int) -> Schedule:
    """The :class:`~streamlearn.protocols.prequential_loop.Schedule` of copy ``fold``."""
    if not 0 <= fold < spec.folds:
        raise ValueError(f"fold {fold} of {spec.folds}")
    mine = (np.arange(n) % spec.folds) == fold
    if spec.method == "cross":
        return Schedule.test_then_train(mine, (~mine).astype(np.int64))
    everything = np.ones(n, dtype=bool)
    if spec.method == "split":
        return Schedule.test_then_train(everything, mine.astype(np.int64))
    return Schedule.test_then_train(everything, bootstrap_weights(seed, fold, n))


def scored_predictions(spec: ValidationSpec, n: int) -> tuple[int, str]:
    """The fewest predictions a copy is tested on over ``n`` samples, and why when fewer
    than ``n``: under ``cross`` copy ``f`` is tested on the samples ``t mod k == f``
    (copy ``k-1`` on ``n // k`` of them); under ``split`` and ``bootstrap`` every copy on
    all ``n``."""
    if spec.method != "cross":
        return n, ""
    k = spec.folds
    return n // k, (f"each copy of the {k}-fold cross validation is tested on one sample "
                    f"in {k}, the fewest on {n // k}")
