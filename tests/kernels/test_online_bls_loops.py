"""Numba kernels of ``streamlearn.kernels.online_bls_loops`` (the fused test-then-train
loops) against their NumPy references (``tests/reference/online_bls_loops.py``). Also run
without the JIT by tests/kernels/test_nojit.py."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import streamlearn.kernels.online_bls_loops as kern
from streamlearn.kernels.cholesky_update import CholeskyStatus
from tests.reference import broad_features as ref_bf
from tests.reference import online_bls_loops as ref

SEEDS = range(2) if numba.config.DISABLE_JIT else range(5)


def _stream(seed, n=40, m=15, c=3, lam=1e-2):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, m))
    y = rng.integers(0, c, n).astype(np.int64)
    return A, y, np.sqrt(lam) * np.eye(m), np.zeros((m, c))


def _sqrt_scratch(m, c, block=kern.SWEEP_BLOCK):
    return kern.sqrt_scratch(m, c, block)


def _sqrt_scratch_four(m, c):
    # the layout before blocked sweeps: (4, m) scratch, c + 20 entries of t (one row of
    # parameters): four samples per sweep, row by row
    return [np.empty((4, m)) for _ in range(5)] + [np.empty(c), np.empty(c + 20)]


@pytest.mark.parametrize("seed", SEEDS)
def test_obls_run_matches_reference(seed):
    A, y, U0, W0 = _stream(seed)
    m, c = W0.shape
    U, W, pred = U0.copy(), W0.copy(), np.empty(len(y), dtype=np.int64)
    status = kern.obls_run(
        U, W, A, y, pred, np.empty(m), np.empty(m), np.empty(c), np.empty((c, m))
    )
    assert status == CholeskyStatus.OK
    U_ref, W_ref, pred_ref = ref.obls_run(U0, W0, A, y)
    assert_array_equal(pred, pred_ref)
    assert_allclose(np.triu(U), U_ref, rtol=1e-10, atol=1e-12)
    assert_allclose(W, W_ref, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("mu", [1.0, 0.95])
def test_ada_gain_run_matches_reference(seed, mu):
    A, y, U0, W0 = _stream(seed)
    m, c = W0.shape
    P0 = np.random.default_rng(seed).standard_normal((m, m))
    U, P, W = U0.copy(), P0.copy(), W0.copy()
    pred = np.empty(len(y), dtype=np.int64)
    status = kern.ada_gain_run(U, P, W, A, y, pred, mu, np.empty(m), np.empty(m), np.empty(c))
    assert status == CholeskyStatus.OK
    U_ref, P_ref, W_ref, pred_ref = ref.ada_gain_run(U0, P0, W0, A, y, mu)
    assert_array_equal(pred, pred_ref)
    assert_allclose(P, P_ref, rtol=1e-12, atol=1e-12)
    assert_allclose(np.triu(U), U_ref, rtol=1e-10, atol=1e-12)
    assert_allclose(W, W_ref, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("beta", "alpha"), [(1.0, 0.0), (0.95, 0.05)])
def test_gain_run_matches_reference(seed, beta, alpha):
    A, y, U0, W0 = _stream(seed)
    m, c = W0.shape
    U, W, pred = U0.copy(), W0.copy(), np.empty(len(y), dtype=np.int64)
    pos = np.array([3], dtype=np.int64)
    status = kern.gain_run(
        U, W, A, y, pred, beta, alpha, pos, np.empty(m), np.empty(m), np.empty(c)
    )
    assert status == CholeskyStatus.OK
    U_ref, W_ref, pred_ref, pos_ref = ref.gain_run(U0, W0, A, y, beta, alpha, 3)
    assert_array_equal(pred, pred_ref)
    assert pos[0] == pos_ref
    assert_allclose(np.triu(U), U_ref, rtol=1e-10, atol=1e-12)
    assert_allclose(W, W_ref, rtol=1e-8, atol=1e-10)


@pytest.mark.floatpath
def test_run_kernels_split_into_chunks_give_identical_results():
    """One call over n rows ≡ several calls over pieces (the chunk boundary is invisible)."""
    A, y, U0, W0 = _stream(11, n=30)
    m, c = W0.shape
    outs = []
    for cuts in ([30], [1, 12, 17]):
        U, W = U0.copy(), W0.copy()
        pred = np.empty(30, dtype=np.int64)
        s = 0
        for n in cuts:
            kern.obls_run(
                U,
                W,
                A[s : s + n],
                y[s : s + n],
                pred[s : s + n],
                np.empty(m),
                np.empty(m),
                np.empty(c),
                np.empty((c, m)),
            )
            s += n
        outs.append((U, W, pred))
    assert_array_equal(outs[0][0], outs[1][0])
    assert_array_equal(outs[0][1], outs[1][1])
    assert_array_equal(outs[0][2], outs[1][2])


@pytest.mark.parametrize("seed", SEEDS)
def test_sqrt_run_matches_reference_and_ridge(seed):
    A, y, U0, W0 = _stream(seed)
    m, c = W0.shape
    U, Z, pred = U0.copy(), W0.copy(), np.empty(len(y), dtype=np.int64)
    assert kern.sqrt_run(U, Z, A, y, pred, *_sqrt_scratch(m, c)) == CholeskyStatus.OK
    U_ref, Z_ref, pred_ref = ref.sqrt_run(U0, W0, A, y)
    assert_array_equal(pred, pred_ref)
    assert_allclose(np.triu(U), U_ref, rtol=1e-10, atol=1e-12)
    assert_allclose(Z, Z_ref, rtol=1e-10, atol=1e-12)
    # invariants: UᵀU = λI + AᵀA and UᵀZ = AᵀY, so U⁻¹Z is the ridge solution
    Y = np.eye(c)[y]
    K = 1e-2 * np.eye(m) + A.T @ A
    assert_allclose(np.triu(U).T @ np.triu(U), K, rtol=1e-12, atol=1e-12 * np.abs(K).max())
    assert_allclose(np.triu(U).T @ Z, A.T @ Y, rtol=1e-10, atol=1e-12)
    # the predictions are those of the ridge weights of the prefix
    _, _, pred_obls = ref.obls_run(U0, W0, A, y)
    assert_array_equal(pred, pred_obls)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("mu", [0.99, 0.8])
def test_sqrt_forget_run_matches_reference_and_weighted_ridge(seed, mu):
    """Forgetting folded into the sweep: UᵀU = μⁿK₀ + Σ μ^(n-1-i) aᵢaᵢᵀ and
    UᵀZ = Σ μ^(n-1-i) aᵢyᵢᵀ (Alg. 2 line 6 on K and S), predictions with the prefix's
    weights U⁻¹Z."""
    A, y, U0, W0 = _stream(seed, n=23)
    m, c = W0.shape
    U, Z, pred = U0.copy(), W0.copy(), np.empty(len(y), dtype=np.int64)
    beta = np.sqrt(mu)
    assert kern.sqrt_forget_run(U, Z, A, y, pred, beta, *_sqrt_scratch(m, c)) == 0
    U_ref, Z_ref, pred_ref = ref.sqrt_run(U0, W0, A, y, mu)
    assert_array_equal(pred, pred_ref)
    assert_allclose(np.triu(U), U_ref, rtol=1e-10, atol=1e-12)
    assert_allclose(Z, Z_ref, rtol=1e-10, atol=1e-12)
    n = len(y)
    w = mu ** np.arange(n - 1, -1, -1)
    K = mu**n * 1e-2 * np.eye(m) + (A * w[:, None]).T @ A
    S = (A * w[:, None]).T @ np.eye(c)[y]
    Ut = np.triu(U)
    assert_allclose(Ut.T @ Ut, K, rtol=1e-12, atol=1e-12 * np.abs(K).max())
    assert_allclose(Ut.T @ Z, S, rtol=1e-10, atol=1e-12 * np.abs(S).max())
    # each prediction is argmax of the exponentially weighted ridge weights of the prefix
    for k in range(1, n):
        wk = mu ** np.arange(k - 1, -1, -1)
        Kk = mu**k * 1e-2 * np.eye(m) + (A[:k] * wk[:, None]).T @ A[:k]
        Wk = np.linalg.solve(Kk, (A[:k] * wk[:, None]).T @ np.eye(c)[y[:k]])
        scores = A[k] @ Wk
        top2 = np.sort(scores)[-2:]
        if top2[1] - top2[0] > 1e-9 * np.abs(scores).max():  # not a near-tie
            assert pred[k] == np.argmax(scores), k


@pytest.mark.parametrize("seed", SEEDS)
def test_sqrt_run_is_sqrt_forget_run_without_forgetting(seed):
    A, y, U0, W0 = _stream(seed, n=11)
    m, c = W0.shape
    out = []
    for call in ("plain", "beta1"):
        U, Z, pred = U0.copy(), W0.copy(), np.empty(len(y), dtype=np.int64)
        if call == "plain":
            kern.sqrt_run(U, Z, A, y, pred, *_sqrt_scratch(m, c))
        else:
            kern.sqrt_forget_run(U, Z, A, y, pred, 1.0, *_sqrt_scratch(m, c))
        out.append((U, Z, pred))
    for got, want in zip(out[0], out[1], strict=True):
        assert_array_equal(got, want)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("scale", [1.0, 100.0], ids=["unit", "ill-conditioned"])
def test_sqrt_forget_run_normal_equation_residual_at_tiny_lambda(seed, scale):
    """λ = 1e-8, μ = 0.9, inputs of rank 5 in m = 15: K = μⁿλI + Σ μ^(n-1-i)aᵢaᵢᵀ keeps
    10 eigenvalues at μⁿλ (κ ~2e12, and ~4e16 with inputs ×100). Forward errors ≈ u·κ are
    not asserted; the normal-equation residual ‖K W - S‖ / (‖K‖‖W‖ + ‖S‖) is, at every
    prefix, against K and S accumulated in extended precision."""
    n, m, c, lam, mu = 40, 15, 3, 1e-8, 0.9
    rng = np.random.default_rng(seed)
    A = scale * rng.random((n, 5)) @ rng.random((5, m))
    y = rng.integers(0, c, n).astype(np.int64)
    U, Z = np.sqrt(lam) * np.eye(m), np.zeros((m, c))
    K = np.longdouble(lam) * np.eye(m, dtype=np.longdouble)
    S = np.zeros((m, c), dtype=np.longdouble)
    scratch = _sqrt_scratch(m, c)
    pred = np.empty(1, dtype=np.int64)
    worst = 0.0
    for k in range(n):
        assert kern.sqrt_forget_run(U, Z, A[k : k + 1], y[k : k + 1], pred, np.sqrt(mu),
                                    *scratch) == CholeskyStatus.OK
        a = A[k].astype(np.longdouble)
        K = np.longdouble(mu) * K + np.outer(a, a)
        S = np.longdouble(mu) * S
        S[:, y[k]] += a
        W = np.linalg.solve(np.triu(U), Z).astype(np.longdouble)
        num = np.linalg.norm((K @ W - S).astype(np.float64))
        den = np.linalg.norm(K.astype(np.float64)) * np.linalg.norm(W.astype(np.float64))
        worst = max(worst, num / (den + np.linalg.norm(S.astype(np.float64))))
    kappa = np.linalg.cond(K.astype(np.float64))
    print(f"\nscale={scale:g} seed={seed}: max rho = {worst:.2e}, cond(K_n) = {kappa:.1e}")
    if scale > 1:
        assert kappa > 1e12
    assert worst <= 100 * m * np.finfo(np.float64).eps / 2


@pytest.mark.floatpath
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("beta", [1.0, np.sqrt(0.95)])
def test_sqrt_run_passes_of_up_to_four_are_bit_identical_to_single_samples(seed, beta):
    """Passes of 4, 3, 2 samples do exactly the operations of single-sample sweeps (the
    same compiled expressions, in the same order), with and without forgetting."""
    A, y, U0, W0 = _stream(seed, n=23, m=37)  # m: a partial row block and column tile
    m, c = W0.shape
    outs = []
    for step in (23, 1, 2, 3):  # one call (4 × 5 + 3) vs 1-, 2-, 3-sample calls
        U, Z, pred = U0.copy(), W0.copy(), np.empty(23, dtype=np.int64)
        scratch = _sqrt_scratch_four(m, c)
        for s in range(0, 23, step):
            e = min(s + step, 23)
            status = kern.sqrt_forget_run(U, Z, A[s:e], y[s:e], pred[s:e], beta, *scratch)
            assert status == CholeskyStatus.OK
        outs.append((U, Z, pred))
    for other in outs[1:]:
        for got, want in zip(outs[0], other, strict=True):
            assert_array_equal(got, want)


# blocked sweeps (SWEEP_BLOCK samples per pass over U, SWEEP_ROWS-row blocks, SWEEP_TILE
# column tiles): bit-identical to one-sample sweeps for every block, row-block and tile
# shape. m = 5, 37 are below a tile and not multiples of 4 or of the row block; m = 600 is
# above SWEEP_TILE (one full and one partial tile; compiled only: too slow without the JIT)
BLOCK_MS = [5, 37] if numba.config.DISABLE_JIT else [5, 37, 600]


def _ill_stream(seed, n, m, c, scale=100.0):
    # inputs of rank min(5, m - 3) ×100, λ = 1e-8: cond(K) > 1e12
    rng = np.random.default_rng(seed)
    r = min(5, m - 3)
    A = scale * rng.random((n, r)) @ rng.random((r, m))
    y = rng.integers(0, c, n).astype(np.int64)
    return A, y, np.sqrt(1e-8) * np.eye(m), np.zeros((m, c))


def _run_in_calls(U0, Z0, A, y, beta, scratch, cuts):
    U, Z, pred = U0.copy(), Z0.copy(), np.empty(len(y), dtype=np.int64)
    s = 0
    for e in [*cuts, len(y)]:
        if e > s:
            status = kern.sqrt_forget_run(U, Z, A[s:e], y[s:e], pred[s:e], beta, *scratch)
            assert status == CholeskyStatus.OK
        s = e
    return U, Z, pred


@pytest.mark.floatpath
@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("m", BLOCK_MS)
@pytest.mark.parametrize("beta", [1.0, np.sqrt(0.9)])
@pytest.mark.parametrize("case", ["random", "ill-conditioned"])
def test_sqrt_forget_run_blocked_is_bit_identical_to_one_sample_calls(seed, m, beta, case):
    """The learners' scratch (SWEEP_BLOCK samples per sweep) in one call and in uneven
    calls, the four-sample layout, and blocks of 7 give exactly U, Z and the predictions of
    one-sample calls; n = 75 is no multiple of the block, of 4 or of 7."""
    n, c = 75, 3
    if case == "random":
        A, y, U0, Z0 = _stream(seed, n=n, m=m, c=c)
    else:
        A, y, U0, Z0 = _ill_stream(seed, n, m, c)
    want = _run_in_calls(U0, Z0, A, y, beta, _sqrt_scratch(m, c, 1), range(1, n))
    runs = {
        "one call": (_sqrt_scratch(m, c), []),
        "uneven calls": (_sqrt_scratch(m, c), [1, 3, 36, 37, 70]),
        "four-sample layout": (_sqrt_scratch_four(m, c), []),
        "blocks of 7": (_sqrt_scratch(m, c, 7), [9]),
    }
    for name, (scratch, cuts) in runs.items():
        got = _run_in_calls(U0, Z0, A, y, beta, scratch, cuts)
        for g, w, what in zip(got, want, ("U", "Z", "pred"), strict=True):
            assert_array_equal(g, w, err_msg=f"{name}: {what}")
    if case == "ill-conditioned":
        Ut = np.triu(want[0])
        assert np.linalg.cond(Ut.T @ Ut) > 1e12


@pytest.mark.floatpath
@pytest.mark.parametrize("seed", SEEDS[:2])
@pytest.mark.parametrize("m", [5, 37])
@pytest.mark.parametrize("beta", [1.0, np.sqrt(0.95)])
def test_sqrt_sweep_row_blocks_and_tiles_are_bit_identical(seed, m, beta):
    """The sweep itself for blocks of p = 1 … 9 samples, row blocks of 1, 2, 3, 8 rows and
    tiles of 1, 5, 8 columns (partial row blocks and tiles, groups of four plus a rest):
    U, q = U_(s)⁻ᵀa_s and the rotations (c, s) equal those of one-sample sweeps."""
    rng = np.random.default_rng(seed)
    n = 23
    A = rng.standard_normal((n, m))
    U0 = np.triu(rng.standard_normal((m, m)), 1) + np.diag(1.0 + rng.random(m))

    def sweep(block, rows, tile):
        U = U0.copy()
        work, f, q, cs, ss = (np.empty((block, m)) for _ in range(5))
        prm = np.empty(20 * ((block + 3) // 4) * rows)
        out = []
        for k0 in range(0, n, block):
            p = min(block, n - k0)
            status = kern._sqrt_sweep(U, A, k0, p, beta, work, f, q, cs, ss, prm, rows, tile)
            assert status == CholeskyStatus.OK
            out += [(q[s].copy(), cs[s].copy(), ss[s].copy()) for s in range(p)]
        return U, out

    U_want, want = sweep(1, 1, m)
    for block, rows, tile in [(4, 1, m), (9, 2, 5), (6, 3, 1), (8, 8, 8), (5, 3, 8)]:
        U_got, got = sweep(block, rows, tile)
        assert_array_equal(U_got, U_want, err_msg=f"{block=} {rows=} {tile=}")
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            for a, b, what in zip(g, w, ("q", "c", "s"), strict=True):
                assert_array_equal(a, b, err_msg=f"{block=} {rows=} {tile=} sample {k}: {what}")


def test_sqrt_scratch_sizes():
    work, f, q, cs, ss, yh, t = kern.sqrt_scratch(11, 3)
    for a in (work, f, q, cs, ss):
        assert a.shape == (kern.SWEEP_BLOCK, 11)
    assert yh.shape == (3,)
    assert t.shape == (3 + 20 * ((kern.SWEEP_BLOCK + 3) // 4) * kern.SWEEP_ROWS,)


@pytest.mark.parametrize("seed", SEEDS)
def test_predict_residual_matches_reference(seed):
    rng = np.random.default_rng(seed)
    a, W = rng.standard_normal(13), rng.standard_normal((13, 4))
    label = int(rng.integers(0, 4))
    r = np.empty(4)
    pred = kern.predict_residual(a, W, label, r)
    yh = ref_bf.scores(a, W)
    assert pred == ref_bf.argmax_first(yh)
    assert_allclose(r, np.eye(4)[label] - yh, rtol=1e-13, atol=1e-13)
