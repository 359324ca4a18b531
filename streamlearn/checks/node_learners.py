"""The conformance suite of node-incremental learners (the ``grows_on_split`` learners of
the ``incremental-nodes`` protocol, interface
:class:`streamlearn.algorithms.bls_nodes.node_incremental.NodeIncrementalLearner`; Ridge-BLS
paper, Zhu, arXiv 1911.04872).

``yield_node_checks(cls)`` yields ``(name, check)`` pairs; each check takes the learner
class and a parameter dict and raises ``AssertionError`` on failure. The protocol names
this suite where it declares the tag, so :func:`streamlearn.checks.yield_checks` (and
``streamlearn check``) runs it, after the checks every learner passes, on every learner
tagged ``grows_on_split``; ``tests/checks/test_conformance.py`` runs it over every
registered node-incremental learner, so a new output-weight algorithm is checked without
writing a new test.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from typing import Any

import numpy as np

from streamlearn.checks.common import Check, assert_same, described_as


def node_problem(n: int = 400, d: int = 12, k0: int = 40, q: int = 20, updates: int = 3,
                 c: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """A small random node matrix (tanh of random projections, Fortran order), one-hot
    targets of a learnable labelling, and its labels. Returns ``(A, Y, y, k0)``; column
    blocks ``k0 + j q`` are the updates."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.argmax(X[:, :c], axis=1)
    A = np.asfortranarray(np.tanh(X @ rng.normal(size=(d, k0 + updates * q)) / np.sqrt(d)))
    Y = np.eye(c)[y]
    return A, Y, y, k0


def grow(learner: Any, A: np.ndarray, Y: np.ndarray, k0: int, q: int) -> list[np.ndarray]:
    """INIT on ``A[:, :k0]`` then updates of ``q`` columns; the weights after each step."""
    learner.reset(A.shape[1], Y.shape[1])
    learner.initialize(A[:, :k0], Y)
    out = [np.array(learner.W_)]
    k = k0
    while k < A.shape[1]:
        learner.update(A[:, :k], A[:, k:k + q])
        k += q
        out.append(np.array(learner.W_))
    return out


def direct_ridge(A: np.ndarray, Y: np.ndarray, lam: float) -> np.ndarray:
    """``(Aᵀ A + λ I)⁻¹ Aᵀ Y`` (eqs. 6-7)."""
    return np.linalg.solve(A.T @ A + lam * np.eye(A.shape[1]), A.T @ Y)


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-300))


@described_as("the class names its column in the paper's tables (paper_name)")
def check_paper_name(cls: type, params: dict[str, Any]) -> None:
    assert cls.paper_name, f"{cls.__name__} does not name its column in the paper's tables"


@described_as("after INIT and after each update of q nodes, W_ has one row per node and one "
              "column per class, all finite")
def check_shapes_and_finite(cls: type, params: dict[str, Any]) -> None:
    A, Y, _, k0 = node_problem()
    for j, W in enumerate(grow(cls(**params), A, Y, k0, 20)):
        want = (k0 + 20 * j, Y.shape[1])
        assert W.shape == want, f"W_ has shape {W.shape} after step {j}, not {want}"
        assert np.all(np.isfinite(W)), f"non-finite weights after step {j}"


@described_as("ridge family: W_ is the direct ridge solution (eqs. 6-7) after every step; "
              "generalized-inverse family: after INIT (relative error below 1e-9)")
def check_solution_class(cls: type, params: dict[str, Any]) -> None:
    """Ridge family: the direct ridge solution on the prefix after every step. Generalized
    inverse family: the ridge solution after INIT only (eq. 8 = eq. 7), then Greville."""
    lam = 1e-2
    A, Y, _, k0 = node_problem()
    Ws = grow(cls(**{**params, "lam": lam}), A, Y, k0, 20)
    for j, W in enumerate(Ws):
        err = _rel(W, direct_ridge(A[:, :k0 + 20 * j], Y, lam))
        if cls.solution == "ridge" or j == 0:
            assert err < 1e-9, f"step {j}: relative error {err:.2e} against the direct solve"


@described_as("grown on a learnable labelling, its training accuracy beats 1.5 / classes")
def check_learns(cls: type, params: dict[str, Any]) -> None:
    A, Y, y, k0 = node_problem()
    learner = cls(**params)
    grow(learner, A, Y, k0, 20)
    acc = float(np.mean(learner.predict_many(A) == y))
    assert acc > 1.5 / Y.shape[1], f"training accuracy {acc:.2f} on a learnable labelling"


@described_as("two learners built with the same parameters have the same weights after "
              "every step")
def check_reproducible(cls: type, params: dict[str, Any]) -> None:
    A, Y, _, k0 = node_problem()
    a = grow(cls(**params), A, Y, k0, 20)
    b = grow(cls(**params), A, Y, k0, 20)
    for j, (x, z) in enumerate(zip(a, b, strict=True)):
        assert_same(x, z, f"two learners built with the same parameters differ in W_ after "
                          f"step {j}")


@described_as("initialize/update leave the node matrices and the targets unchanged")
def check_inputs_not_mutated(cls: type, params: dict[str, Any]) -> None:
    A, Y, _, k0 = node_problem()
    A0, Y0 = A.copy(), Y.copy()
    grow(cls(**params), A, Y, k0, 20)
    assert_same(A, A0, "the learner changed the node matrix in place")
    assert_same(Y, Y0, "the learner changed the targets Y in place")


@described_as("a learner pickled after an update and unpickled grows to exactly the weights "
              "of the original (runs in worker processes need this)")
def check_pickle_midway(cls: type, params: dict[str, Any]) -> None:
    A, Y, _, k0 = node_problem(updates=2)
    learner = cls(**params)
    learner.reset(A.shape[1], Y.shape[1])
    learner.initialize(A[:, :k0], Y)
    learner.update(A[:, :k0], A[:, k0:k0 + 20])
    copy = pickle.loads(pickle.dumps(learner))
    for lrn in (learner, copy):
        lrn.update(A[:, :k0 + 20], A[:, k0 + 20:])
    assert_same(learner.W_, copy.W_, "a pickled and unpickled copy and the original differ "
                                     "in W_ after the next update")


@described_as("after a failed factorisation: no prediction, and later updates are no-ops "
              "that still count (the paper's NA)")
def check_failure_is_na(cls: type, params: dict[str, Any]) -> None:
    """After a failed factorisation: no weights, no prediction, later updates are no-ops
    that still count (the NA of every later update)."""
    A, Y, _, k0 = node_problem()
    learner = cls(**params)
    learner.reset(A.shape[1], Y.shape[1])
    learner.initialize(A[:, :k0], Y)
    learner.update(A[:, :k0], A[:, k0:k0 + 20])
    learner._fail()
    assert learner.failed_at_ == 1 and learner.predict_many(A) is None, (
        f"after a failure in update 1: failed_at_ = {learner.failed_at_}, and "
        f"predict_many returned {type(learner.predict_many(A)).__name__}, not None")
    learner.update(A[:, :k0 + 20], A[:, k0 + 20:k0 + 40])
    assert learner.n_updates_ == 2 and learner.failed_at_ == 1, (
        f"an update after the failure left n_updates_ = {learner.n_updates_} (expected 2) "
        f"and failed_at_ = {learner.failed_at_} (expected 1)")


@described_as("an update past the capacity given to reset() is refused (a ValueError that "
              "names the capacity)")
def check_capacity(cls: type, params: dict[str, Any]) -> None:
    A, Y, _, k0 = node_problem()
    learner = cls(**params)
    learner.reset(k0 + 10, Y.shape[1])
    learner.initialize(A[:, :k0], Y)
    try:
        learner.update(A[:, :k0], A[:, k0:k0 + 20])
    except ValueError as exc:
        assert "capacity" in str(exc), f"the ValueError does not name the capacity: {exc}"
    else:
        raise AssertionError("an update past the capacity given to reset() was accepted")


def yield_node_checks(cls: type) -> Iterator[tuple[str, Check]]:
    """The checks every node-incremental learner must pass (after the checks every learner
    passes: :func:`streamlearn.checks.yield_checks`)."""
    yield "paper_name", check_paper_name
    yield "shapes_and_finite", check_shapes_and_finite
    yield "solution_class", check_solution_class
    yield "learns", check_learns
    yield "reproducible", check_reproducible
    yield "inputs_not_mutated", check_inputs_not_mutated
    yield "pickle_midway", check_pickle_midway
    yield "failure_is_na", check_failure_is_na
    yield "capacity", check_capacity
