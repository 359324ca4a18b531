"""Online-BLS learners (``streamlearn/algorithms/bls/online_bls.py``): weights against direct
solves on every prefix, Algorithm 2 and its O(m²) variant against the recursions they
implement, chunked ≡ per-sample paths, seeding, and the enhancement-scaling options through
the learners (the feature map itself: test_broad_learning.py)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl
from numpy.testing import assert_allclose, assert_array_equal

import streamlearn.algorithms.bls.online_bls as obls
import streamlearn.algorithms.bls.online_bls_ada as obls_ada
from streamlearn.algorithms.bls.broad_learning import BroadFeatureMap
from streamlearn.errors import UserError
from streamlearn.kernels.cholesky_update import chol_update, chol_update_unit
from streamlearn.registry import ALGORITHMS
from tests.reference import online_bls_loops as ref

EXACT_RIDGE = ("online_bls", "online_bls_no_eous", "online_bls_fast", "online_bls_gain")
ADA_REFRESH = ("online_bls_ada_gain", "online_bls_ada_fast")  # gain and square-root forms
ALL = (*EXACT_RIDGE, "online_bls_ada", *ADA_REFRESH)
SMALL = {"n1": 4, "n2": 3, "n3": 30, "n4": 1}  # m = 42
U_ROUND = np.finfo(np.float64).eps / 2


def _stream(seed: int, n: int = 70, d: int = 5, c: int = 3, scale: float = 1.0):
    rng = np.random.default_rng(seed)
    return scale * rng.random((n, d)), rng.integers(0, c, n).astype(np.int64)


def _make(name: str, d: int, c: int, **params):
    learner = ALGORITHMS[name](**{**SMALL, "seed": 0, **params})
    learner.reset(d, c)
    return learner


def _run_steps(learner, X, y):
    """Per-sample test-then-train; yields (k, prediction) after each update."""
    for k in range(len(y)):
        p = learner.predict_one(X[k])
        learner.learn_one(X[k], y[k])
        yield k, p


def _normal_eq_residual(K, S, W):
    """Relative residual ρ_k = ‖K W - S‖ / (‖K‖‖W‖ + ‖S‖) of the normal equations (eqs. 5–6;
    K, S accumulated in extended precision)."""
    Wl = W.astype(np.longdouble)
    num = np.linalg.norm((K @ Wl - S).astype(np.float64))
    den = np.linalg.norm(K.astype(np.float64)) * np.linalg.norm(W) + np.linalg.norm(
        S.astype(np.float64)
    )
    return num / den


# --------------------------------------------------------------------------------------
# Exact ridge learners vs scipy.linalg.solve on every prefix
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("lam", [1.0, 1e-2])
@pytest.mark.parametrize("name", EXACT_RIDGE)
def test_weights_match_direct_ridge_solve_after_every_step(name, lam, seed):
    X, y = _stream(seed)
    c = 3
    learner = _make(name, X.shape[1], c, lam=lam, seed=seed)
    A = learner.features_.transform(X)
    Y = np.eye(c)[y]
    m = A.shape[1]
    worst = 0.0
    for k, _ in _run_steps(learner, X, y):
        Ak, Yk = A[: k + 1], Y[: k + 1]
        W_direct = sl.solve(Ak.T @ Ak + lam * np.eye(m), Ak.T @ Yk, assume_a="pos")
        err = np.linalg.norm(learner.W_ - W_direct) / np.linalg.norm(W_direct)
        worst = max(worst, err)
        assert err <= 1e-8, (k, err)
    assert worst > 0.0  # the comparison is not vacuous (rounding differs somewhere)


def _residuals_at_tiny_lambda(name: str, seed: int, scale: float):
    X, y = _stream(seed, n=90, scale=scale)
    c, lam = 3, 1e-8
    learner = _make(name, X.shape[1], c, lam=lam, seed=seed)
    A = learner.features_.transform(X).astype(np.longdouble)
    m = A.shape[1]
    K = np.longdouble(lam) * np.eye(m, dtype=np.longdouble)
    S = np.zeros((m, c), dtype=np.longdouble)
    rho = []
    for k, _ in _run_steps(learner, X, y):
        K += np.outer(A[k], A[k])
        S[:, y[k]] += A[k]
        rho.append(_normal_eq_residual(K, S, learner.W_))
    return np.array(rho), np.linalg.cond(K.astype(np.float64)), m


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("scale", [1.0, 100.0], ids=["unit", "ill-conditioned"])
@pytest.mark.parametrize("name", EXACT_RIDGE)
def test_normal_equation_residual_at_paper_lambda(name, scale, seed):
    """λ = 1e-8 (paper §5.1): forward errors are ≈ u·κ(K) and not asserted; the
    normal-equation residual ρ_k is, at a few times m·u. With inputs ×100, κ(K) reaches
    ~1e14 (for k < m, K keeps m - k eigenvalues equal to λ)."""
    rho, kappa, m = _residuals_at_tiny_lambda(name, seed, scale)
    print(
        f"\n{name} scale={scale:g} seed={seed}: max rho_k = {rho.max():.2e}, "
        f"final rho = {rho[-1]:.2e}, cond(K_n) = {kappa:.1e}, m*u = {m * U_ROUND:.1e}"
    )
    if scale > 1:
        assert kappa > 1e12  # genuinely ill-conditioned
    assert np.all(np.isfinite(rho))
    assert rho.max() <= 100 * m * U_ROUND


@pytest.mark.parametrize("seed", range(3))
def test_eous_and_fresh_cholesky_predict_the_same(seed):
    """Ours, Ours w/o EOUS (Table 3), the square-root and the gain forms: same labels."""
    X, y = _stream(seed, n=80)
    preds = {}
    for name in EXACT_RIDGE:
        learner = _make(name, X.shape[1], 3, lam=1e-2, seed=seed)
        preds[name] = [p for _, p in _run_steps(learner, X, y)]
    assert len({tuple(p) for p in preds.values()}) == 1


def test_gain_form_is_eq9_solution():
    """The gain step W += K⁻¹a rᵀ equals Alg. 1's ΔW = K⁻¹B, B = a rᵀ (eq. 9)."""
    rng = np.random.default_rng(4)
    m, c, lam = 12, 3, 1e-1
    A = rng.standard_normal((15, m))
    y = rng.integers(0, c, 15)
    U0, W0 = np.sqrt(lam) * np.eye(m), np.zeros((m, c))
    _, W_paper, p_paper = ref.obls_run(U0, W0, A, y)
    _, W_gain, p_gain, _ = ref.gain_run(U0, W0, A, y)
    assert_array_equal(p_paper, p_gain)
    assert_allclose(W_gain, W_paper, rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------------------------------
# Algorithm 2 and the O(m²) forgetting variant
# --------------------------------------------------------------------------------------


def _ada_direct(A, y, c, lam, mu):
    """Alg. 2 by direct solves of (P_k + λI) W_k = a yᵀ + (μ P_(k-1) + λI) W_(k-1)
    (Alg. 2 line 6 with eqs. 9–10), plus the exponentially weighted ridge solution
    (P_k + λI)⁻¹ S_k."""
    m = A.shape[1]
    P = np.zeros((m, m))
    S = np.zeros((m, c))
    W = np.zeros((m, c))
    Ws, Wridge = [], []
    for a, label in zip(A, y, strict=True):
        rhs = np.outer(a, np.eye(c)[label]) + (mu * P + lam * np.eye(m)) @ W
        P = mu * P + np.outer(a, a)
        S = mu * S + np.outer(a, np.eye(c)[label])
        W = sl.solve(P + lam * np.eye(m), rhs, assume_a="pos")
        Ws.append(W)
        Wridge.append(sl.solve(P + lam * np.eye(m), S, assume_a="pos"))
    return Ws, Wridge


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("mu", [0.99, 0.9])
def test_ada_matches_algorithm2_recursion(seed, mu):
    X, y = _stream(seed, n=60)
    c, lam = 3, 1e-2
    learner = _make("online_bls_ada", X.shape[1], c, lam=lam, mu=mu, seed=seed)
    A = learner.features_.transform(X)
    Ws, Wridge = _ada_direct(A, y, c, lam, mu)
    gap = 0.0
    for k, _ in _run_steps(learner, X, y):
        err = np.linalg.norm(learner.W_ - Ws[k]) / np.linalg.norm(Ws[k])
        assert err <= 1e-8, (k, err)
        gap = max(gap, np.linalg.norm(Ws[k] - Wridge[k]) / np.linalg.norm(Wridge[k]))
    # the residual form with an undecayed λ is not the exponentially weighted ridge
    # solution (an extra (1-μ)λW^(k-1) each step): the gap is real
    print(f"\nAlg. 2 vs exponentially weighted ridge, mu={mu}, lam={lam}: max rel gap {gap:.2e}")
    assert gap > 1e-6


def test_no_eous_is_ada_with_mu_one():
    X, y = _stream(2, n=40)
    a = _make("online_bls_no_eous", 5, 3, lam=1e-2, seed=2)
    b = _make("online_bls_ada", 5, 3, lam=1e-2, seed=2, mu=1.0)
    pa = [p for _, p in _run_steps(a, X, y)]
    pb = [p for _, p in _run_steps(b, X, y)]
    assert pa == pb
    assert_array_equal(a.W_, b.W_)


def _ada_fast_direct(A, y, c, lam, mu):
    """The recursion online_bls_ada_fast documents: K ← μK + ρ² e_j e_jᵀ + a aᵀ with
    ρ² = (1-μ)λm, j cycling from 0; W_k = K_k⁻¹ ((K_k - a aᵀ) W_(k-1) + a yᵀ)."""
    m = A.shape[1]
    K = lam * np.eye(m)
    W = np.zeros((m, c))
    rho2 = (1 - mu) * lam * m
    Ws = []
    for k, (a, label) in enumerate(zip(A, y, strict=True)):
        K = mu * K
        K[k % m, k % m] += rho2
        rhs = K @ W + np.outer(a, np.eye(c)[label])
        K = K + np.outer(a, a)
        W = sl.solve(K, rhs, assume_a="pos")
        Ws.append(W)
    return Ws, K


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("mu", [0.99, 0.9])
def test_ada_fast_cyclic_matches_its_documented_recursion(seed, mu):
    X, y = _stream(seed, n=100)  # n > m: the reload cycles through all coordinates
    c, lam = 3, 1e-2
    learner = _make(
        "online_bls_ada_fast", X.shape[1], c, lam=lam, mu=mu, seed=seed, regulariser="cyclic"
    )
    A = learner.features_.transform(X)
    Ws, K = _ada_fast_direct(A, y, c, lam, mu)
    for k, _ in _run_steps(learner, X, y):
        err = np.linalg.norm(learner.W_ - Ws[k]) / np.linalg.norm(Ws[k])
        assert err <= 1e-8, (k, err)
    U = np.triu(learner.U_)
    assert_allclose(U.T @ U, K, rtol=1e-10, atol=1e-12 * np.abs(K).max())
    # the regulariser does not vanish: D = K - P stays diagonal with trace ≈ λm
    m = A.shape[1]
    P = sum(mu ** (len(y) - 1 - i) * np.outer(A[i], A[i]) for i in range(len(y)))
    D = K - P
    assert_allclose(D - np.diag(np.diag(D)), 0, atol=1e-9 * np.abs(K).max())
    assert np.all(np.diag(D) > 0)
    assert np.trace(D) == pytest.approx(lam * m, rel=0.05)


def _ada_refresh_direct(A, y, c, lam, mu, T):
    """The recursion online_bls_ada_fast (refresh) documents: P ← μP + aaᵀ; K = P + λI at
    every T-th step, K ← μK + aaᵀ otherwise; W_k = W_(k-1) + K_k⁻¹ a (y - Wᵀa)ᵀ."""
    m = A.shape[1]
    K, P, W = lam * np.eye(m), np.zeros((m, m)), np.zeros((m, c))
    out = []
    for k, (a, label) in enumerate(zip(A, y, strict=True), start=1):
        r = np.eye(c)[label] - W.T @ a
        P = mu * P + np.outer(a, a)
        K = P + lam * np.eye(m) if k % T == 0 else mu * K + np.outer(a, a)
        W = W + np.outer(sl.solve(K, a, assume_a="pos"), r)
        out.append((W, K, P, k % T))
    return out


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("mu", "T"), [(0.99, 7), (0.9, 10), (0.9, 1)])
@pytest.mark.parametrize("name", ADA_REFRESH)
def test_ada_fast_refresh_matches_its_documented_recursion(name, seed, mu, T):
    X, y = _stream(seed, n=60)
    c, lam = 3, 1e-2
    learner = _make(name, X.shape[1], c, lam=lam, mu=mu, seed=seed, refresh_every=T)
    A = learner.features_.transform(X)
    direct = _ada_refresh_direct(A, y, c, lam, mu, T)
    m = A.shape[1]
    for k, _ in _run_steps(learner, X, y):
        W, K, P, t = direct[k]
        assert np.linalg.norm(learner.W_ - W) <= 1e-8 * np.linalg.norm(W), k
        U = np.triu(learner.U_)
        scale = np.abs(K).max()
        assert_allclose(U.T @ U, K, rtol=1e-10, atol=1e-12 * scale)
        # the regulariser is λ at a refresh and μᵗλ t steps after it
        assert_allclose(U.T @ U - P, mu**t * lam * np.eye(m), atol=1e-10 * scale)
        assert_allclose(np.triu(learner.P_), np.triu(P), rtol=1e-12, atol=1e-14 * scale)
    assert learner.n_refreshes_ == len(y) // T


@pytest.mark.parametrize("name", ADA_REFRESH)
def test_ada_fast_refresh_every_sample_is_algorithm2(name):
    X, y = _stream(5, n=50)
    a = _make("online_bls_ada", 5, 3, lam=1e-2, mu=0.95, seed=5)
    b = _make(name, 5, 3, lam=1e-2, mu=0.95, seed=5, refresh_every=1)
    for (_, pa), (_, pb) in zip(_run_steps(a, X, y), _run_steps(b, X, y), strict=True):
        assert pa == pb
        assert_allclose(b.W_, a.W_, rtol=1e-9, atol=1e-12 * np.abs(a.W_).max())


@pytest.mark.parametrize("name", ADA_REFRESH)
def test_ada_fast_refresh_regulariser_stays_in_its_band_on_long_streams(name):
    """μ = 0.9 over 3,000 steps: without a reload 0.9^3000 λ underflows to 0; with a
    refresh every 10 steps the regulariser stays in [0.9⁹λ, λ]."""
    rng = np.random.default_rng(0)
    X, y = rng.random((3000, 4)), rng.integers(0, 2, 3000)
    learner = _make(name, 4, 2, lam=1e-2, mu=0.9, seed=0, refresh_every=10)
    learner.predict_learn_many(X, y)
    U = np.triu(learner.U_)
    P = np.triu(learner.P_) + np.triu(learner.P_, 1).T
    D = U.T @ U - P
    t = learner.since_refresh_
    assert_allclose(D, 0.9**t * 1e-2 * np.eye(P.shape[0]), atol=1e-9)
    assert 0.9**9 * 1e-2 <= np.diag(D).min() <= 1e-2
    assert learner.n_refreshes_ == 300


def test_ada_fast_regulariser_survives_long_streams():
    """Without the reload, 0.9^8000 λ underflows to 0; with it the diagonal floor stays
    at its steady-state profile (min ≈ ρ² μ^(m-1)/(1-μ^m))."""
    m, mu, lam = 12, 0.9, 1e-8
    U = np.sqrt(lam) * np.eye(m)
    work, v = np.empty(m), np.empty(m)
    rho2 = (1 - mu) * lam * m
    for k in range(8000):
        chol_update_unit(U, k % m, np.sqrt(rho2 / mu), work)
        chol_update(U, np.zeros(m), np.sqrt(mu), work, v)
    D = np.diag(np.triu(U).T @ np.triu(U))
    floor = rho2 * mu ** (m - 1) / (1 - mu**m)
    assert D.min() == pytest.approx(floor, rel=1e-6)
    assert D.mean() == pytest.approx(lam, rel=1e-6)


@pytest.mark.parametrize("mu", [0.99, 0.9])
@pytest.mark.parametrize("regulariser", ["refresh", "cyclic"])
def test_ada_fast_vs_exact_algorithm2_on_a_prefix(mu, regulariser):
    """The O(m²) variant is not bit-identical to Alg. 2 (different regulariser); measure
    how close its predictions are on a drifting toy stream (values printed)."""
    rng = np.random.default_rng(0)
    n, d = 300, 5
    X = rng.random((n, d))
    w = rng.standard_normal(d)
    y = (((X @ w) > np.median(X @ w)).astype(np.int64) + (np.arange(n) > n // 2)) % 2
    out = {}
    for name in ("online_bls_ada", "online_bls_ada_fast"):
        extra = {"regulariser": regulariser} if name.endswith("fast") else {}
        learner = _make(name, d, 2, lam=1e-8, mu=mu, seed=3, **extra)
        out[name] = np.array([p for _, p in _run_steps(learner, X, y)])
    agree = np.mean(out["online_bls_ada"] == out["online_bls_ada_fast"])
    acc = {k: np.mean(v == y) for k, v in out.items()}
    print(f"\nmu={mu} {regulariser}: prediction agreement {agree:.3f}, accuracy {acc}")
    assert agree >= 0.95


# --------------------------------------------------------------------------------------
# online_bls_ada_fast (square-root form) against the gain form and an exact recursion
# --------------------------------------------------------------------------------------


def _refined_solve(K: np.ndarray, S: np.ndarray) -> np.ndarray:
    """``K⁻¹S`` for extended-precision ``K, S``: a float64 Cholesky solve and four steps of
    iterative refinement with residuals in extended precision (error ≈ u·κ·u_ext·κ ≪ u·κ
    for κ ≤ 1e12)."""
    cf = sl.cho_factor(K.astype(np.float64))
    W = sl.cho_solve(cf, S.astype(np.float64)).astype(np.longdouble)
    for _ in range(4):
        W = W + sl.cho_solve(cf, (S - K @ W).astype(np.float64))
    return W


def _ada_refresh_exact(A, y, c, lam, mu, T):
    """The recursion of the refresh forms in extended precision, solved at every prefix:
    between refreshes ``S ← μS + ayᵀ``, ``K = P + μᵗλI``; at every T-th sample
    ``S ← (μP + λI)W^(k-1) + ayᵀ``, ``K = P + λI``; ``P ← μP + aaᵀ``; ``W = K⁻¹S``
    (``K W^(k) = K W^(k-1) + a(y - W^(k-1)ᵀa)ᵀ``, Alg. 2 eqs. 9–10). Returns per prefix
    ``(W, κ(K), scores of the next sample with W)``."""
    ld = np.longdouble
    m = A.shape[1]
    eye = np.eye(m, dtype=ld)
    P = np.zeros((m, m), dtype=ld)
    S = np.zeros((m, c), dtype=ld)
    W = np.zeros((m, c), dtype=ld)
    t, out = 0, []
    for k, (a64, label) in enumerate(zip(A, y, strict=True), start=1):
        a = a64.astype(ld)
        e = np.zeros(c, dtype=ld)
        e[label] = 1
        if k % T == 0:
            S = (ld(mu) * P + ld(lam) * eye) @ W + np.outer(a, e)
            t = 0
        else:
            S = ld(mu) * S + np.outer(a, e)
            t += 1
        P = ld(mu) * P + np.outer(a, a)
        K = P + ld(mu) ** t * ld(lam) * eye
        W = _refined_solve(K, S)
        out.append((W.astype(np.float64), np.linalg.cond(K.astype(np.float64))))
    return out


@pytest.mark.floatpath
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    ("lam", "scale"), [(1e-2, 1.0), (1e-8, 1.0), (1e-8, 3.0)],
    ids=["lam1e-2", "lam1e-8", "lam1e-8-ill-conditioned"],
)
def test_ada_refresh_forms_against_the_exact_recursion_on_every_prefix(lam, scale, seed):
    """Both refresh forms against the extended-precision recursion after every sample.
    Bound (stated): forward error ≤ 50·u·κ(K_k) for each (measured ≤ 4.4 for the gain form
    and ≤ 1.4 for the square-root form, κ up to 1.5e11 at λ = 1e-8 with inputs ×3);
    predictions equal the exact recursion's argmax wherever its top two scores differ by
    more than 1e-6 of the largest (so a near-tie may go either way, on any CPU)."""
    X, y = _stream(seed, n=90, scale=scale)
    c, mu, T = 3, 0.9, 7
    learners = {n: _make(n, 5, c, lam=lam, mu=mu, refresh_every=T, seed=seed)
                for n in ADA_REFRESH}
    A = learners["online_bls_ada_fast"].features_.transform(X)
    exact = _ada_refresh_exact(A, y, c, lam, mu, T)
    W_prev = np.zeros((A.shape[1], c))
    worst = dict.fromkeys(learners, 0.0)
    for k in range(len(y)):
        sc = A[k] @ W_prev
        top2 = np.sort(sc)[-2:]
        decided = top2[1] - top2[0] > 1e-6 * max(np.abs(sc).max(), 1e-300)
        for name, learner in learners.items():
            p = learner.predict_one(X[k])
            if decided:
                assert p == np.argmax(sc), (name, k)
            learner.learn_one(X[k], y[k])
        W_prev, kappa = exact[k]
        for name, learner in learners.items():
            err = np.linalg.norm(learner.W_ - W_prev) / np.linalg.norm(W_prev)
            worst[name] = max(worst[name], err / (U_ROUND * kappa))
    print(f"\nlam={lam:g} x{scale:g} seed={seed}: max err/(u kappa) "
          + ", ".join(f"{n} {v:.2f}" for n, v in worst.items()))
    assert max(worst.values()) <= 50


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("mu", "T"), [(0.99, 7), (0.9, 100), (0.95, 1)])
@pytest.mark.parametrize("rows", [None, 3], ids=["one-dsyrk-per-refresh", "dsyrk-every-3"])
def test_ada_fast_equals_the_gain_form(seed, mu, T, rows, monkeypatch):
    """The square-root form and the gain form (online_bls_ada_gain, the previous
    implementation): same predictions, weights and factor within 1e-9 at λ = 1e-2
    (κ ~1e4, so u·κ ~1e-12); also when the kept rows are accumulated every 3 samples
    instead of once per refresh."""
    if rows is not None:
        monkeypatch.setattr(obls_ada.OnlineBLSAdaFast, "ROWS", rows)
    X, y = _stream(seed, n=150)
    a = _make("online_bls_ada_gain", 5, 3, lam=1e-2, mu=mu, refresh_every=T, seed=seed)
    b = _make("online_bls_ada_fast", 5, 3, lam=1e-2, mu=mu, refresh_every=T, seed=seed)
    pa = a.predict_learn_many(X, y)
    pb = b.predict_learn_many(X, y)
    assert_array_equal(pa, pb)
    assert np.linalg.norm(b.W_ - a.W_) <= 1e-9 * np.linalg.norm(a.W_)
    assert_allclose(np.triu(b.U_), np.triu(a.U_), rtol=1e-9, atol=1e-12)
    assert_allclose(np.triu(b.P_), np.triu(a.P_), rtol=1e-12, atol=1e-13)
    assert (b.n_refreshes_, b.since_refresh_) == (a.n_refreshes_, a.since_refresh_)


def test_ada_fast_lazy_p_is_the_eager_recursion():
    """P_ accumulates the kept rows on access without changing the learner: reading it
    mid-period gives Σ μ^(k-i) aᵢaᵢᵀ, and the run afterwards is bit-identical."""
    X, y = _stream(3, n=40)
    mu = 0.9
    a = _make("online_bls_ada_fast", 5, 3, lam=1e-2, mu=mu, refresh_every=15, seed=3)
    b = _make("online_bls_ada_fast", 5, 3, lam=1e-2, mu=mu, refresh_every=15, seed=3)
    A = a.features_.transform(X)
    a.predict_learn_many(X[:22], y[:22])
    P = sum(mu ** (21 - i) * np.outer(A[i], A[i]) for i in range(22))
    assert a._n_rows == 7  # rows since the refresh at sample 15, not yet in _P
    assert_allclose(np.triu(a.P_), np.triu(P), rtol=1e-12, atol=1e-14)
    a.predict_learn_many(X[22:], y[22:])
    b.predict_learn_many(X, y)
    assert_array_equal(a.U_, b.U_)
    assert_array_equal(a.Z_, b.Z_)


def test_ada_fast_cyclic_keeps_the_gain_form():
    X, y = _stream(1, n=40)
    a = _make("online_bls_ada_gain", 5, 3, lam=1e-2, mu=0.9, regulariser="cyclic", seed=1)
    b = _make("online_bls_ada_fast", 5, 3, lam=1e-2, mu=0.9, regulariser="cyclic", seed=1)
    assert_array_equal(a.predict_learn_many(X, y), b.predict_learn_many(X, y))
    assert_array_equal(a.W_, b.W_)
    assert not hasattr(b, "Z_")
    with pytest.raises(AttributeError):
        b.P_  # noqa: B018


def test_ada_cholesky_retry_is_counted():
    learner = _make("online_bls_ada", 5, 3, lam=1e-2, mu=0.9)
    m = learner.features_.m
    learner.P_ = -0.05 * np.eye(m)  # P + λI indefinite; P + 10λI is not
    learner._factor()
    assert learner.n_chol_retries_ == 1
    assert_allclose(np.triu(learner.U_), np.sqrt(0.05) * np.eye(m), rtol=1e-12)


# --------------------------------------------------------------------------------------
# Chunked ≡ per-sample, seeding
# --------------------------------------------------------------------------------------


@pytest.mark.floatpath
@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("shrink", [None, 0.8])
def test_predict_learn_many_equals_per_sample_loop(name, shrink, monkeypatch):
    monkeypatch.setattr(obls, "CHUNK", 7)  # cross several chunk boundaries
    X, y = _stream(5, n=45)
    params = {"lam": 1e-2, "enh_shrink": shrink, "shrink_warmup": 10}
    a = _make(name, 5, 3, **params)
    per_sample = np.array([p for _, p in _run_steps(a, X, y)])
    b = _make(name, 5, 3, **params)
    chunked = np.concatenate(
        [b.predict_learn_many(X[:13], y[:13]), b.predict_learn_many(X[13:], y[13:])]
    )
    assert chunked.dtype == np.int64
    assert_array_equal(chunked, per_sample)
    assert_allclose(b.W_, a.W_, rtol=1e-12, atol=0)
    assert_allclose(np.triu(b.U_), np.triu(a.U_), rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", ALL)
def test_same_seed_same_predictions(name):
    X, y = _stream(6, n=30)
    runs = []
    for seed in (7, 7, 8):
        learner = _make(name, 5, 3, lam=1e-2, seed=seed)
        runs.append(learner.predict_learn_many(X, y))
        runs.append(learner.W_.copy())
    assert_array_equal(runs[0], runs[2])
    assert_array_equal(runs[1], runs[3])
    assert not np.array_equal(runs[1], runs[5])  # another seed, other random features


def test_first_prediction_is_class_zero():
    X, _ = _stream(0, n=3)
    learner = _make("online_bls", 5, 3)
    assert learner.predict_one(X[0]) == 0  # W(0) = 0, ties to the smallest index


def test_all_bls_learners_share_the_feature_map():
    maps = [_make(name, 5, 3, seed=11).features_ for name in ALL]
    for f in maps[1:]:
        assert_array_equal(f.Wf, maps[0].Wf)
        assert_array_equal(f.We, maps[0].We)


def test_invalid_parameters_and_labels():
    with pytest.raises(UserError, match="at most one"):
        ALGORITHMS["online_bls"](enh_scale=1.0, enh_shrink=0.8)
    with pytest.raises(UserError, match="mu"):
        ALGORITHMS["online_bls_ada"](mu=0.0)
    with pytest.raises(UserError, match="shrink_source"):
        ALGORITHMS["online_bls"](shrink_source="data")
    learner = _make("online_bls", 5, 3)
    with pytest.raises(UserError, match="label"):
        learner.learn_one(np.zeros(5), 3)
    with pytest.raises(UserError, match="classes"):
        ALGORITHMS["online_bls"]().reset(5, None)


def test_non_finite_input_raises():
    learner = _make("online_bls", 5, 3)
    with pytest.raises(UserError, match=r"[Nn]on-finite"):
        learner.learn_one(np.array([1.0, np.nan, 0, 0, 0]), 1)


# --------------------------------------------------------------------------------------
# The enhancement scaling options through the learners
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["online_bls", "online_bls_fast", "online_bls_gain"])
def test_shrink_warmup_is_a_fixed_scale_after_the_prefix(name):
    """Warm-up: predict the prefix with W = 0, fix t = s/max|z We + be| on it, learn it;
    afterwards the learner equals one built with enh_scale = t from the start."""
    X, y = _stream(9, n=40, scale=3.0)
    warm = _make(name, 5, 3, lam=1e-2, enh_shrink=0.8, shrink_warmup=6)
    preds = [p for _, p in _run_steps(warm, X, y)]
    assert preds[:6] == [0] * 6
    probe = BroadFeatureMap(5, 4, 3, 30, 1, np.random.default_rng(0))
    t = 0.8 / probe.preactivation_absmax(X[:6])
    assert warm.features_.scale == t
    fixed = _make(name, 5, 3, lam=1e-2, enh_scale=t)
    fixed_preds = [p for _, p in _run_steps(fixed, X, y)]
    assert preds[6:] == fixed_preds[6:]
    assert_array_equal(warm.W_, fixed.W_)
    # the enhancement pre-activations of the warm-up prefix now peak at exactly s
    A = warm.features_.transform(X[:6])
    assert np.abs(np.arctanh(A[:, 12:])).max() == pytest.approx(0.8, rel=1e-9)


def test_shrink_box_scale_is_known_before_the_stream():
    learner = _make(
        "online_bls", 5, 3, enh_shrink=0.8, shrink_source="box", input_low=0.0, input_high=1.0
    )
    bound = learner.features_.preactivation_bound(0.0, 1.0)
    assert learner.features_.scale == pytest.approx(0.8 / bound)
    X, _ = _stream(0, n=50)
    assert np.abs(np.arctanh(learner.features_.transform(X)[:, 12:])).max() <= 0.8 + 1e-9
