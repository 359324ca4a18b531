"""``online_bls_blocked`` (``streamlearn/algorithms/bls/online_bls_blocked.py``): weights and
predictions against direct ridge solves on every prefix (also ill-conditioned), the fold
against the normal equations, chunked ≡ per-sample paths bit for bit, and the same
predictions as ``online_bls_fast`` (today's square-root sweep) on three streams."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl
from numpy.testing import assert_allclose, assert_array_equal

import streamlearn.algorithms.bls.online_bls as obls
from streamlearn import components
from streamlearn.algorithms.bls.online_bls_blocked import OnlineBLSBlocked, fold_rows
from streamlearn.registry import ALGORITHMS
from tests.algorithms.bls.test_online_bls import _refined_solve
from tests.conftest import shared_data_dir

SMALL = {"n1": 4, "n2": 3, "n3": 30, "n4": 1}  # m = 42
U_ROUND = np.finfo(np.float64).eps / 2


def _stream(seed: int, n: int = 70, d: int = 5, c: int = 3, scale: float = 1.0):
    rng = np.random.default_rng(seed)
    return scale * rng.random((n, d)), rng.integers(0, c, n).astype(np.int64)


def _make(d: int, c: int, **params) -> OnlineBLSBlocked:
    learner = OnlineBLSBlocked(**{**SMALL, "seed": 0, **params})
    learner.reset(d, c)
    return learner


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("lam", [1.0, 1e-2])
@pytest.mark.parametrize("block", [1, 5, 16])
def test_weights_and_predictions_match_direct_ridge_solves_on_every_prefix(block, lam, seed):
    X, y = _stream(seed)
    c = 3
    learner = _make(X.shape[1], c, lam=lam, seed=seed, block=block)
    A = learner.features_.transform(X)
    Y = np.eye(c)[y]
    m = A.shape[1]
    W_prev = np.zeros((m, c))
    worst = 0.0
    for k in range(len(y)):
        s = learner.predict_scores_one(X[k])
        assert_allclose(s, A[k] @ W_prev, rtol=1e-8, atol=1e-8 * np.abs(A[k] @ W_prev).max())
        learner.learn_one(X[k], y[k])
        Ak, Yk = A[: k + 1], Y[: k + 1]
        W_prev = sl.solve(Ak.T @ Ak + lam * np.eye(m), Ak.T @ Yk, assume_a="pos")
        err = np.linalg.norm(learner.W_ - W_prev) / np.linalg.norm(W_prev)
        worst = max(worst, err)
        assert err <= 1e-8, (k, err)
        assert learner.n_pending_ == (k + 1) % block
    assert worst > 0.0  # the comparison is not vacuous


@pytest.mark.floatpath
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    ("lam", "scale"), [(1e-2, 1.0), (1e-8, 1.0), (1e-8, 3.0)],
    ids=["lam1e-2", "lam1e-8", "lam1e-8-ill-conditioned"],
)
def test_ill_conditioned_prefixes_within_the_stated_bound(lam, scale, seed):
    """Against extended-precision solves after every sample. Bound (stated): forward error
    of ``W`` ≤ 50·u·κ(K_k); predictions equal the exact argmax wherever its top two scores
    differ by more than 1e-6 of the largest (a near-tie may go either way, on any CPU)."""
    X, y = _stream(seed, n=90, scale=scale)
    c = 3
    learner = _make(5, c, lam=lam, seed=seed, block=8)
    A = learner.features_.transform(X).astype(np.longdouble)
    m = A.shape[1]
    K = np.longdouble(lam) * np.eye(m, dtype=np.longdouble)
    S = np.zeros((m, c), dtype=np.longdouble)
    W_prev = np.zeros((m, c))
    worst = 0.0
    for k in range(len(y)):
        sc = A[k].astype(np.float64) @ W_prev
        top2 = np.sort(sc)[-2:]
        p = learner.predict_one(X[k])
        if top2[1] - top2[0] > 1e-6 * max(np.abs(sc).max(), 1e-300):
            assert p == np.argmax(sc), k
        learner.learn_one(X[k], y[k])
        K += np.outer(A[k], A[k])
        S[:, y[k]] += A[k]
        W_prev = _refined_solve(K, S).astype(np.float64)
        kappa = np.linalg.cond(K.astype(np.float64))
        err = np.linalg.norm(learner.W_ - W_prev) / np.linalg.norm(W_prev)
        worst = max(worst, err / (U_ROUND * kappa))
    assert worst <= 50, worst


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_rows", [1, 6, 40])
def test_fold_rows_is_the_qr_of_the_stacked_rows(seed, n_rows):
    rng = np.random.default_rng(seed)
    m, c = 23, 4
    U = np.asfortranarray(np.triu(rng.random((m, m))) + 2 * np.eye(m))
    Z = np.asfortranarray(rng.standard_normal((m, c)))
    B = np.asfortranarray(rng.standard_normal((n_rows, m)))
    Y = np.asfortranarray(rng.standard_normal((n_rows, c)))
    K, S = U.T @ U + B.T @ B, U.T @ Z + B.T @ Y
    U2, Z2 = fold_rows(U.copy(order="F"), Z.copy(order="F"), B.copy(order="F"), Y.copy(order="F"))
    assert_array_equal(U2, np.triu(U2))
    assert (np.diagonal(U2) > 0).all()
    assert_allclose(U2.T @ U2, K, rtol=1e-12, atol=1e-12 * np.abs(K).max())
    assert_allclose(U2.T @ Z2, S, rtol=1e-12, atol=1e-12 * np.abs(S).max())
    assert_allclose(U2, np.linalg.cholesky(K).T, rtol=1e-10, atol=1e-12)


@pytest.mark.floatpath
@pytest.mark.parametrize("shrink", [None, 0.8])
@pytest.mark.parametrize("block", [1, 5, 64])
def test_predict_learn_many_equals_per_sample_loop_bit_for_bit(block, shrink, monkeypatch):
    monkeypatch.setattr(obls, "CHUNK", 7)  # cross several chunk boundaries
    X, y = _stream(5, n=83)
    params = {"lam": 1e-2, "enh_shrink": shrink, "shrink_warmup": 10, "block": block}
    a = _make(5, 3, **params)
    per_sample = []
    for k in range(len(y)):
        per_sample.append(a.predict_one(X[k]))
        a.learn_one(X[k], y[k])
    b = _make(5, 3, **params)
    chunked = np.concatenate([b.predict_learn_many(X[:13], y[:13]),
                              b.predict_learn_many(X[13:], y[13:])])
    assert chunked.dtype == np.int64
    assert_array_equal(chunked, per_sample)
    assert a.n_pending_ == b.n_pending_
    assert_array_equal(b.U_, a.U_)
    assert_array_equal(b.Z_, a.Z_)
    assert_array_equal(b.W_, a.W_)


def test_reading_the_weights_leaves_the_state_alone():
    X, y = _stream(1, n=30)
    a = _make(5, 3, lam=1e-2, block=8)
    b = _make(5, 3, lam=1e-2, block=8)
    pa, pb = [], []
    for k in range(len(y)):
        pa.append(a.predict_one(X[k]))
        a.learn_one(X[k], y[k])
        a.W_  # noqa: B018 (folds the pending rows into copies only)
        pb.append(b.predict_one(X[k]))
        b.learn_one(X[k], y[k])
    assert_array_equal(pa, pb)
    assert_array_equal(a.U_, b.U_)
    with pytest.raises(AttributeError, match="derived"):
        a.W_ = np.ones_like(a.W_)


# --------------------------------------------------------------------------------------
# Same predictions as online_bls_fast (and, for online_bls_ada_blocked, as
# online_bls_ada_fast) on SEA, Hyperplane and Electricity (issue 25)
# --------------------------------------------------------------------------------------

N = 10_000
#: the drift tables' settings (configs/online_bls/drift.yaml) on a smaller network
DRIFT = {"lam": 1e-8, "enh_shrink": 0.8, "shrink_source": "box"}


def _arrays(name: str) -> tuple[np.ndarray, np.ndarray]:
    if name == "electricity":
        data = shared_data_dir()
        if data is None or not (data / "elec2").is_dir():
            pytest.skip("Electricity is not available (set STREAMLEARN_TEST_DATA or ../shared)")
        X, y = components.get_stream(name)(data_dir=str(data)).to_arrays(N)
    else:  # min-max scaled by the first 100 samples, as the drift config's SEA
        X, y = components.get_stream(name)().to_arrays(N)
        lo, hi = X[:100].min(0), X[:100].max(0)
        X = (X - lo) / np.where(hi > lo, hi - lo, 1.0)
    return X, y.astype(np.int64)


def against(reference: str, name: str, stream: str, seed: int, n3: int,
            **params) -> tuple[int, float]:
    """Run both learners over the stream's first N samples: the number of predictions that
    differ, and ``‖W − W_ref‖ / ‖W_ref‖`` at the end."""
    X, y = _arrays(stream)
    c = int(y.max()) + 1
    out = []
    for learner_name in (reference, name):
        learner = ALGORITHMS[learner_name](seed=seed, n3=n3, **DRIFT, **params)
        learner.reset(X.shape[1], c)
        out.append((learner.predict_learn_many(X, y), learner.W_))
    (pf, Wf), (pb, Wb) = out
    return int((pf != pb).sum()), float(np.linalg.norm(Wb - Wf) / np.linalg.norm(Wf))


STREAMS = ["sea", "hyperplane", pytest.param("electricity", marks=pytest.mark.datasets)]
#: (today's learner, the blocked form, their parameters beside DRIFT): the drift config's
#: forgetting for the Alg. 2 pair (configs/online_bls/drift.yaml)
PAIRS = {
    "stationary": ("online_bls_fast", "online_bls_blocked", {}),
    "drift": ("online_bls_ada_fast", "online_bls_ada_blocked",
              {"mu": 0.99, "refresh_every": 100}),
}


@pytest.mark.floatpath
@pytest.mark.parametrize("n3", [100, pytest.param(1000, marks=pytest.mark.slow)],
                         ids=["m200", "m1100"])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize("pair", list(PAIRS))
def test_same_predictions_as_the_square_root_sweep(pair, stream, seed, n3):
    """10,000 samples, λ = 1e-8, m = 200 (and m = 1100, the drift config's size, marked
    slow): at most 1 prediction in 10⁴ differs (a near-tie rounded the other way) and the
    final weights agree within 1e-5 relative. The issue asked for 1e-9; at this λ κ(K)
    reaches 6e13 … 2.5e14 (stationary) and 5e11 … 2.4e12 (drift), so two backward-stable
    methods may differ by up to u·κ in W, and 1e-9 holds on SEA only. Measured (28 Nov): 0
    flips in 90,000 samples for each pair at each size; W within 1.9e-9 … 3.0e-6 (m =
    200) and 4e-9 … 7.6e-8 (m = 1100) for the stationary pair, 1.0e-8 … 1.5e-6 and
    9e-11 … 5.1e-6 for the drift pair."""
    reference, name, params = PAIRS[pair]
    flips, dw = against(reference, name, stream, seed, n3, **params)
    assert flips <= N // 10_000, flips
    assert dw <= 1e-5, dw


def test_the_blocked_learners_use_the_vectorised_tanh_and_the_others_libm_s():
    # online_bls_blocked's features by kernels.vector_math.tanh (README, "Timing"); the drift
    # form keeps the C library's (with the other, its W left the bound of the test above),
    # and so does every learner with committed records, and their bits
    from streamlearn.kernels.broad_features import Squash

    for name, squash in (("online_bls_blocked", Squash.VECTOR_TANH),
                         ("online_bls_ada_blocked", Squash.LIBM_TANH),
                         ("online_bls_fast", Squash.LIBM_TANH), ("online_bls", Squash.LIBM_TANH),
                         ("ribls", Squash.LIBM_TANH)):
        learner = ALGORITHMS[name](**SMALL, seed=0)
        learner.reset(5, 3)
        assert learner.features_.squash == squash, name


def test_an_overflow_on_badly_scaled_inputs_names_the_learner_that_copes():
    """One attribute 10⁶ times the others at lam = 1e-8: the blocked learner's in-block
    solve overflows where ``online_bls_fast`` learns the stream; the message (a user
    error, no traceback) says so (hunt of 7 Dec)."""
    from streamlearn.components import get_algorithm
    from streamlearn.errors import UserError

    r = np.random.default_rng(0)
    centers = r.normal(size=(3, 6))
    y = r.integers(0, 3, 500)
    X = centers[y] + 0.8 * r.normal(size=(500, 6))
    X = (X - X.min(0)) / (X.max(0) - X.min(0))
    X[:, 0] *= 1e6
    params = dict(n1=4, n2=3, n3=30, n4=1, lam=1e-8, seed=7)
    fast = get_algorithm("online_bls_fast")(**params)
    fast.reset(6, 3)
    assert np.isfinite(fast.predict_learn_many(X, y)).all()
    blocked = get_algorithm("online_bls_blocked")(**params)
    blocked.reset(6, 3)
    with np.errstate(all="ignore"), pytest.raises(UserError) as err:
        blocked.predict_learn_many(X, y)
    assert "check the input scaling" in str(err.value)
    assert "online_bls_fast" in str(err.value)
