"""FORKS: TISVD (Algorithm 2) against numpy.linalg.svd, the incremental sketch (Eq. 11)
against recomputation from scratch, the feature-map identity (Eq. 5), and the round
procedure of Algorithm 1 (reset, update order, projection bound, the rho rule)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from streamlearn.algorithms.kernel.forks import FORKS, SkeGD
from streamlearn.algorithms.kernel.forks_sketch import (
    IncrementalSketch,
    feature_matrix,
    pinv,
    tisvd,
    top_k_eigh,
)
from streamlearn.algorithms.kernel.kernel_budget import label_to_pm1, score_to_label
from streamlearn.base import UserError
from streamlearn.kernels.forks_budget import gauss_matrix
from tests.fused_helpers import assert_fused_equals_loop


def _lowrank_svd(M: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    U, s, Vt = np.linalg.svd(M)
    return U[:, :k], s[:k], Vt[:k].T


def _projector(U: np.ndarray) -> np.ndarray:
    return U @ U.T


# --------------------------------------------------------------------------------------
# TISVD vs numpy.linalg.svd
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_tisvd_untruncated_reconstructs_the_update(seed: int) -> None:
    """k = n: U S V^T after the update equals M + D1 D2^T exactly (spec test 2)."""
    rng = np.random.default_rng(seed)
    n, c = 12, 3
    M = rng.normal(size=(n, n))
    U, S, V = _lowrank_svd(M, n)
    D1, D2 = rng.normal(size=(n, c)), rng.normal(size=(n, c))
    U2, S2, V2 = tisvd(U, S, V, D1, D2, n)
    assert_allclose((U2 * S2) @ V2.T, M + D1 @ D2.T, atol=1e-11)
    assert_allclose(S2, np.linalg.svd(M + D1 @ D2.T, compute_uv=False), rtol=1e-11)
    assert_allclose(U2.T @ U2, np.eye(n), atol=1e-11)


@pytest.mark.parametrize("seed", range(5))
def test_tisvd_truncated_matches_svd_of_tracked_matrix(seed: int) -> None:
    """k < n, a sequence of symmetric FORKS-type updates (Eq. 12): after each one, the
    singular values and the left/right subspaces equal those of numpy's SVD of (tracked
    rank-k matrix + update)."""
    rng = np.random.default_rng(seed)
    n, k = 15, 5
    G = rng.normal(size=(n, n))
    M = G @ G.T
    U, S, V = _lowrank_svd(M, k)
    for _ in range(8):
        s = np.zeros(n)
        s[rng.integers(n)] = rng.choice([-1.0, 1.0])
        a = rng.normal(size=n)
        D1, D2 = np.column_stack([s, a, s]), np.column_stack([a, s, s])
        target = (U * S) @ V.T + D1 @ D2.T
        U, S, V = tisvd(U, S, V, D1, D2, k)
        Ur, Sr, Vr = _lowrank_svd(target, k)
        assert_allclose(S, Sr, rtol=1e-10)
        assert_allclose(_projector(U), _projector(Ur), atol=1e-8)
        assert_allclose(_projector(V), _projector(Vr), atol=1e-8)


def test_tisvd_ill_conditioned_and_rank_deficient_update() -> None:
    """Singular values spanning 1e-12..1, and Delta_1 with the column s twice (R_1 has a
    zero on its diagonal): still the top-k of numpy's SVD."""
    rng = np.random.default_rng(7)
    n, k = 20, 6
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    M = (Q * np.logspace(0, -12, n)) @ Q.T
    U, S, V = _lowrank_svd(M, k)
    s = np.zeros(n)
    s[3] = 1.0
    a = 1e-6 * rng.normal(size=n)
    D1, D2 = np.column_stack([s, a, s]), np.column_stack([a, s, s])
    target = (U * S) @ V.T + D1 @ D2.T
    U2, S2, _ = tisvd(U, S, V, D1, D2, k)
    Ur, Sr, _ = _lowrank_svd(target, k)
    assert_allclose(S2, Sr, rtol=1e-9, atol=1e-15)
    assert_allclose(_projector(U2[:, :3]), _projector(Ur[:, :3]), atol=1e-7)


def test_tisvd_keeps_orthonormal_bases_when_the_update_lies_in_the_span() -> None:
    """k = n: U spans the whole space, so U_A is pure round-off; with the second
    Gram-Schmidt pass the bases stay orthonormal over many updates (with one pass, FORKS
    with k = s_p lost orthonormality completely within four update rounds). A rank-
    deficient M with k = n is not covered: the singular vector of a zero singular value
    is then arbitrary, which FORKS (k = 0.1 B << s_p) never keeps."""
    rng = np.random.default_rng(3)
    n = 10
    G = rng.normal(size=(n, n))
    M = G.T @ G + np.eye(n)
    U, S, V = _lowrank_svd(M, n)
    for _ in range(30):
        s = np.zeros(n)
        s[rng.integers(n)] = 1.0
        a = rng.normal(size=n)
        D1, D2 = np.column_stack([s, a, s]), np.column_stack([a, s, s])
        target = (U * S) @ V.T + D1 @ D2.T
        U, S, V = tisvd(U, S, V, D1, D2, n)
        assert_allclose((U * S) @ V.T, target, atol=1e-10)
        assert_allclose(U.T @ U, np.eye(n), atol=1e-10)
        assert_allclose(V.T @ V, np.eye(n), atol=1e-10)


# --------------------------------------------------------------------------------------
# incremental sketch vs recomputation
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["random", "duplicates", "wide_kernel"])
@pytest.mark.parametrize("seed", range(4))
def test_incremental_sketch_equals_recomputation(seed: int, case: str) -> None:
    """After every insertion Phi_pm, Phi_pp equal S_p^T K S_m, S_p^T K S_p recomputed from
    the stored points (spec test 1). 'duplicates' repeats points (singular K),
    'wide_kernel' uses a huge sigma (K close to all ones, ill-conditioned)."""
    rng = np.random.default_rng(seed)
    d = 4
    P = rng.normal(size=(20, d))
    gamma = 0.5 if case != "wide_kernel" else 1e-8
    if case == "duplicates":
        P[10:] = P[:10]
    sk = IncrementalSketch(sp=8, sm=3, gamma=gamma, rng=np.random.default_rng(seed))
    sk.init(P)
    pm, pp = sk.recompute()
    assert_allclose(sk.Phi_pm, pm, atol=1e-12)
    assert_allclose(sk.Phi_pp, pp, atol=1e-12)
    for i in range(40):  # more than the initial capacity: the store grows
        x = P[i % 20] if case == "duplicates" else rng.normal(size=d)
        sk.insert(x)
        pm, pp = sk.recompute()
        assert_allclose(sk.Phi_pm, pm, atol=1e-10)
        assert_allclose(sk.Phi_pp, pp, atol=1e-10)
    assert sk.n == 60


def test_feature_map_identity_with_identity_sketches() -> None:
    """S_p = I_n, S_m = I_n, k = n: the features of the points satisfy F F^T = K (spec
    test 3)."""
    rng = np.random.default_rng(0)
    n, gamma = 10, 0.3
    P = rng.normal(size=(n, 3))
    sk = IncrementalSketch(sp=n, sm=n, gamma=gamma, rng=rng)
    sk.init(P)
    sk.h[:n] = np.arange(n)
    sk.g[:n] = 1.0
    sk.J = np.arange(n)
    sk.landmarks = P.copy()
    sk.Phi_pm, sk.Phi_pp = sk.recompute()
    S, V = top_k_eigh(sk.Phi_pp, n)
    Z = feature_matrix(sk.Phi_pm, V, S)
    F = gauss_matrix(P, sk.landmarks, gamma) @ Z
    assert_allclose(F @ F.T, gauss_matrix(P, P, gamma), atol=1e-9)


def test_pinv_cutoff() -> None:
    A = np.diag([1.0, 1e-20, 0.5])
    assert_allclose(pinv(A), np.diag([1.0, 0.0, 2.0]))


# --------------------------------------------------------------------------------------
# Algorithm 1: the round procedure
# --------------------------------------------------------------------------------------


def _stream(seed: int, n: int = 600, d: int = 4) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=n) > 0.5).astype(np.int64)
    return X, y


SMALL = {"sigma": 1.5, "budget": 20, "rho": 50}


def _loop(model: FORKS, X: np.ndarray, y: np.ndarray, hook=None) -> np.ndarray:
    out = []
    for i in range(len(y)):
        out.append(model.predict_one(X[i]))
        if hook is not None:
            hook(model, i, out[-1])
        model.learn_one(X[i], y[i])
    return np.array(out)


def test_label_mapping_and_sign_of_zero() -> None:
    assert label_to_pm1(1) == 1.0 and label_to_pm1(0) == -1.0
    assert score_to_label(0.0) == 1 and score_to_label(-1e-300) == 0


@pytest.mark.parametrize("seed", range(3))
def test_update_rounds_predict_plus_one_and_reset(seed: int) -> None:
    """reset_first: every update round t0 + j rho predicts sgn(0) = +1 and starts from
    v = 0, A^{-1} = I / alpha (spec test 5); the sketch gains one point per update round."""
    X, y = _stream(seed)
    m = FORKS(**SMALL, seed=seed)
    m.reset(X.shape[1], 2)
    seen: list[int] = []

    def hook(model: FORKS, i: int, pred: int) -> None:
        if model.phase_ == 2 and model._updated_at == model.t_:
            seen.append(pred)
            assert not np.any(model.v_)
            assert_allclose(model.Ainv_, np.eye(model.v_.size) / model.alpha)

    _loop(m, X, y, hook)
    assert m.phase_ == 2
    expected = (len(y) - 1 - m.t0_) // m.rho_
    assert m.n_sketch_updates_ == expected == len(seen) > 0
    assert seen == [1] * expected
    assert m.sketch_.n == m.buffer_size_ + expected


def test_predict_first_order_uses_the_old_map_on_update_rounds() -> None:
    X, y = _stream(1)
    a = FORKS(**SMALL, seed=0)
    b = FORKS(**SMALL, seed=0, update_order="predict_first")
    for m in (a, b):
        m.reset(X.shape[1], 2)
    pa, pb = _loop(a, X, y), _loop(b, X, y)
    assert a.n_sketch_updates_ == b.n_sketch_updates_ > 0
    upd = [a.t0_ + j * a.rho_ for j in range(1, a.n_sketch_updates_ + 1)]
    assert np.all(pa[upd] == 1)
    assert not np.all(pb[upd] == 1) or not np.array_equal(pa, pb)
    # identical up to the first update round
    assert np.array_equal(pa[: upd[0]], pb[: upd[0]])


def test_projection_bound_none_disables_the_projection() -> None:
    X, y = _stream(2)
    clipped = FORKS(**SMALL, seed=0, proj_bound=1.0)
    free = FORKS(**SMALL, seed=0, proj_bound=None)
    scores_c, scores_f = [], []
    for m, sc in ((clipped, scores_c), (free, scores_f)):
        m.reset(X.shape[1], 2)
        for i in range(len(y)):
            f = m._round_score(X[i])
            if m.phase_ == 2:
                sc.append(f)
            m.learn_one(X[i], y[i])
    assert max(abs(f) for f in scores_c) <= 1.0
    assert max(abs(f) for f in scores_f) > 1.0


def test_tisvd_and_exact_svd_variants_agree_without_truncation() -> None:
    """With k = s_m = s_p (no truncation) TISVD tracks Phi_pp exactly, so FORKS with TISVD
    and with an exact SVD at every update round predict the same (ONS is invariant to the
    rotation/sign freedom of the eigenvectors)."""
    X, y = _stream(3)
    params = {"sigma": 1.5, "budget": 10, "buffer_factor": 2, "gamma_ratio": 1.0,
              "k_ratio": 1.0, "rho": 40, "seed": 0}
    a, b = FORKS(**params), FORKS(**params, decomposition="svd")
    for m in (a, b):
        m.reset(X.shape[1], 2)
    pa, pb = a.predict_learn_many(X, y), b.predict_learn_many(X, y)
    assert a.n_sketch_updates_ > 3
    assert_allclose(np.sort(a.S_), np.sort(b.S_), rtol=1e-8, atol=1e-10)
    assert np.mean(pa == pb) > 0.99


@pytest.mark.floatpath
@pytest.mark.parametrize("chunk", [17, 900])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("cls", [FORKS, SkeGD])
def test_fused_chunks_equal_the_per_sample_loop(cls: type, seed: int, loss: str,
                                                chunk: int) -> None:
    """The fused chunk (numba stage 1 up to the buffer-filling round, numba stage-2 runs)
    gives the per-sample loop's predictions and scores bit for bit."""
    X, y = _stream(4 + seed, n=900)
    a, b = assert_fused_equals_loop(lambda: cls(**SMALL, seed=seed, loss=loss), X, y, chunk)
    assert a.n_sketch_updates_ > 5 and 34 < a.t0_ < 800  # chunk 17: stage 1 spans 3+
    assert (b.t0_, b.t_, b.n_sv_) == (a.t0_, a.t_, a.n_sv_)
    np.testing.assert_array_equal(a.v_, b.v_)
    np.testing.assert_array_equal(a.sv_, b.sv_)


@pytest.mark.floatpath
@pytest.mark.parametrize("cls", [FORKS, SkeGD])
def test_fused_chunks_equal_the_per_sample_loop_at_paper_sizes(cls: type) -> None:
    """As above at the sizes of the paper's runs: a stage-1 buffer of 200 points and
    ``k = 20`` features, where BLAS ``ddot`` kernels (Haswell and SkylakeX alike) split the
    sums over several accumulators. SkeGD's per-sample score was NumPy's ``ddot`` against
    the fused loop's ordered sum and differed on 57 % of the scores with the default
    Haswell kernel; both now call the same functions."""
    X, y = _stream(11, n=1500, d=6)
    a, b = assert_fused_equals_loop(
        lambda: cls(sigma=2.0, budget=100, k_ratio=0.5, rho=50, seed=0), X, y, 100)
    assert a.Z_.shape[1] == 20 and a.n_sketch_updates_ > 5
    np.testing.assert_array_equal(a.v_, b.v_)


def test_rho_from_theta_and_horizon() -> None:
    m = FORKS(sigma=1.0, budget=50, theta=0.3, horizon=1000)
    m.reset(3, 2)
    assert m.rho_ == 300 and m.buffer_size_ == 100 and (m.sp_, m.sm_, m.k_) == (50, 10, 5)
    adv = FORKS(sigma=1.0, budget=200, sp_ratio=0.75, rho=24)
    adv.reset(3, 2)
    assert (adv.sp_, adv.sm_, adv.k_) == (150, 30, 20)


def test_missing_horizon_is_a_validation_error(tmp_path) -> None:
    """`streamlearn validate` refuses FORKS without 'horizon'/'rho' (exit code 2, no
    traceback), before anything runs."""
    import subprocess
    import sys

    cfg = tmp_path / "c.yaml"
    cfg.write_text("name: t\nprotocol: prequential-classification\nstreams:\n"
                   "  - {name: sea, label: SEA, max_samples: 100}\nalgorithms:\n"
                   "  - {name: forks, label: F, params: {sigma: 4}}\n"
                   "metrics: [mistake_rate]\n")
    proc = subprocess.run([sys.executable, "-m", "streamlearn", "validate", str(cfg)],
                          capture_output=True, text=True, timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out
    assert "horizon" in out and "Traceback" not in out


def test_user_errors() -> None:
    with pytest.raises(UserError, match="horizon"):
        FORKS(sigma=1.0)
    with pytest.raises(UserError, match="rho"):
        FORKS(sigma=1.0, theta=0.001, horizon=10)
    with pytest.raises(UserError, match="two classes"):
        FORKS(sigma=1.0, rho=5).reset(3, 3)
    with pytest.raises(UserError, match="update_order"):
        FORKS(update_order="later")
    with pytest.raises(UserError, match="sigma"):
        SkeGD(sigma=0.0)
