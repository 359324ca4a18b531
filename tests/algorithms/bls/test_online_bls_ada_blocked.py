"""``online_bls_ada_blocked`` (``streamlearn/algorithms/bls/online_bls_ada_blocked.py``): the
recursion of ``online_bls_ada_fast`` (Alg. 2, exact refreshes) against direct and
extended-precision solves on every prefix, the same predictions as ``online_bls_ada_fast``
on three streams (in test_online_bls_blocked.py, beside the stationary pair), chunked ≡
per-sample paths bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import streamlearn.algorithms.bls.online_bls as obls
from streamlearn.errors import UserError
from streamlearn.registry import ALGORITHMS
from tests.algorithms.bls.test_online_bls import (
    SMALL,
    U_ROUND,
    _ada_refresh_direct,
    _ada_refresh_exact,
    _run_steps,
    _stream,
)

NAME = "online_bls_ada_blocked"


def _make(d: int, c: int, **params):
    learner = ALGORITHMS[NAME](**{**SMALL, "seed": 0, **params})
    learner.reset(d, c)
    return learner


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("mu", "T"), [(0.99, 7), (0.9, 10), (0.9, 1)])
def test_matches_the_documented_recursion_on_every_prefix(seed, mu, T):
    X, y = _stream(seed, n=60)
    c, lam = 3, 1e-2
    learner = _make(X.shape[1], c, lam=lam, mu=mu, seed=seed, refresh_every=T)
    A = learner.features_.transform(X)
    direct = _ada_refresh_direct(A, y, c, lam, mu, T)
    W_prev = np.zeros((A.shape[1], c))
    for k in range(len(y)):
        s = learner.predict_scores_one(X[k])
        assert_allclose(s, A[k] @ W_prev, rtol=1e-8, atol=1e-9 * np.abs(A[k] @ W_prev).max())
        learner.learn_one(X[k], y[k])
        W, K, P, t = direct[k]
        assert np.linalg.norm(learner.W_ - W) <= 1e-8 * np.linalg.norm(W), k
        scale = np.abs(K).max()
        assert_allclose(np.triu(learner.P_), np.triu(P), rtol=1e-12, atol=1e-14 * scale)
        assert learner.since_refresh_ == t  # samples since the last refresh
        W_prev = W
    assert learner.n_refreshes_ == len(y) // T


@pytest.mark.floatpath
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    ("lam", "scale"), [(1e-2, 1.0), (1e-8, 1.0), (1e-8, 3.0)],
    ids=["lam1e-2", "lam1e-8", "lam1e-8-ill-conditioned"],
)
def test_against_the_exact_recursion_within_the_stated_bound(lam, scale, seed):
    """As the other refresh forms (test_online_bls.py): forward error of ``W`` ≤ 50·u·κ(K_k)
    after every sample against the extended-precision recursion; predictions equal its
    argmax wherever its top two scores differ by more than 1e-6 of the largest."""
    X, y = _stream(seed, n=90, scale=scale)
    c, mu, T = 3, 0.9, 7
    learner = _make(5, c, lam=lam, mu=mu, refresh_every=T, seed=seed)
    A = learner.features_.transform(X)
    exact = _ada_refresh_exact(A, y, c, lam, mu, T)
    W_prev = np.zeros((A.shape[1], c))
    worst = 0.0
    for k in range(len(y)):
        sc = A[k] @ W_prev
        top2 = np.sort(sc)[-2:]
        p = learner.predict_one(X[k])
        if top2[1] - top2[0] > 1e-6 * max(np.abs(sc).max(), 1e-300):
            assert p == np.argmax(sc), k
        learner.learn_one(X[k], y[k])
        W_prev, kappa = exact[k]
        err = np.linalg.norm(learner.W_ - W_prev) / np.linalg.norm(W_prev)
        worst = max(worst, err / (U_ROUND * kappa))
    assert worst <= 50, worst


def test_refresh_every_sample_is_algorithm2():
    X, y = _stream(5, n=50)
    a = ALGORITHMS["online_bls_ada"](**{**SMALL, "lam": 1e-2, "mu": 0.95, "seed": 5})
    a.reset(5, 3)
    b = _make(5, 3, lam=1e-2, mu=0.95, seed=5, refresh_every=1)
    for (_, pa), (_, pb) in zip(_run_steps(a, X, y), _run_steps(b, X, y), strict=True):
        assert pa == pb
        assert_allclose(b.W_, a.W_, rtol=1e-9, atol=1e-12 * np.abs(a.W_).max())


@pytest.mark.floatpath
@pytest.mark.parametrize("shrink", [None, 0.8])
@pytest.mark.parametrize("T", [1, 7, 100])
def test_predict_learn_many_equals_per_sample_loop_bit_for_bit(T, shrink, monkeypatch):
    monkeypatch.setattr(obls, "CHUNK", 7)  # cross several chunk boundaries
    X, y = _stream(5, n=83)
    params = {"lam": 1e-2, "mu": 0.9, "refresh_every": T, "enh_shrink": shrink,
              "shrink_warmup": 10}
    a = _make(5, 3, **params)
    per_sample = [p for _, p in _run_steps(a, X, y)]
    b = _make(5, 3, **params)
    chunked = np.concatenate([b.predict_learn_many(X[:13], y[:13]),
                              b.predict_learn_many(X[13:], y[13:])])
    assert_array_equal(chunked, per_sample)
    assert (a.since_refresh_, a.n_refreshes_) == (b.since_refresh_, b.n_refreshes_)
    assert_array_equal(b.U_, a.U_)
    assert_array_equal(b.Z_, a.Z_)
    assert_array_equal(b.W_, a.W_)


@pytest.mark.floatpath
def test_learning_without_predicting_first_gives_the_same_state():
    X, y = _stream(2, n=40)
    a = _make(5, 3, lam=1e-2, mu=0.9, refresh_every=6)
    b = _make(5, 3, lam=1e-2, mu=0.9, refresh_every=6)
    for k in range(len(y)):
        a.predict_one(X[k])
        a.learn_one(X[k], y[k])
        b.predict_one(X[(k + 1) % len(y)])  # another x: its q must not be reused
        b.learn_one(X[k], y[k])
    assert_array_equal(a.U_, b.U_)
    assert_array_equal(a.Z_, b.Z_)
    assert_array_equal(a.W_, b.W_)


def test_weights_too_large_for_one_block_are_refused():
    with pytest.raises(UserError, match="refresh_every"):
        ALGORITHMS[NAME](mu=0.5, refresh_every=100)
    ALGORITHMS[NAME](mu=0.99, refresh_every=1000)  # 0.99^-999 = 2.3e4: allowed
