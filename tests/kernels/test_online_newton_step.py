"""Series kernels (regular ONS, fast ONS, OGD) against the plain-NumPy references and a
direct solve of ``A_t`` on the prefix (Fast-ONS paper, eqs. 2-5 and Algorithm 1)."""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest

from streamlearn.kernels.online_newton_step import (
    SeriesStatus,
    fast_ons_chunk,
    fast_ons_predict,
    fast_ons_rebuild,
    ogd_series_chunk,
    ons_series_chunk,
    series_predict,
)
from tests.algorithms.series.series_helpers import dot_rounding_bound
from tests.reference.online_newton_step import (
    ar2_series,
    fast_ons_ref,
    ogd_ref,
    ons_direct_ref,
    ons_ref,
)

N = 600 if numba.config.DISABLE_JIT else 3000


def _fast_state(M: int, alpha: float) -> dict[str, np.ndarray]:
    L0, L1 = np.zeros(M + 1), np.zeros(M + 1)
    L0[0] = L1[M] = 1.0 / math.sqrt(alpha)
    sc = np.array([1.0, 1.0, 0.0, 0.0, 0.0])
    return {"w": np.zeros(M), "xt": np.zeros(M + 1), "L0": L0, "L1": L1,
            "rho": np.zeros(M), "lag": np.zeros(M + 1), "u": np.zeros(M),
            "ssum": np.zeros(M), "sc": sc}


def _run_fast(x, y, M, alpha, inv_mu, eps, offset=0, tau=1e-12, chunk=None, st=None):
    st = st or _fast_state(M, alpha)
    out = np.empty(x.size)
    chunk = chunk or x.size
    for s in range(0, x.size, chunk):
        status, i = fast_ons_chunk(x[s:s + chunk], y[s:s + chunk], st["w"], st["xt"],
                                   st["L0"], st["L1"], st["rho"], st["lag"], st["u"],
                                   st["ssum"], st["sc"], M, offset, alpha, inv_mu, eps, tau,
                                   out[s:s + chunk])
        assert status == SeriesStatus.OK, f"breakdown at {s + i}"
    return out, st


def _run_ons(x, y, M, alpha, inv_mu, eps, offset=0, chunk=None):
    D = M + offset
    w, P, xt, k = np.zeros(D), np.eye(D) / alpha, np.zeros(M + 1), np.zeros(D)
    out = np.empty(x.size)
    chunk = chunk or x.size
    for s in range(0, x.size, chunk):
        ons_series_chunk(x[s:s + chunk], y[s:s + chunk], w, P, xt, k, M, offset, inv_mu, eps,
                         out[s:s + chunk])
    return out, w, P


def _series_chunk(kernel: str, x: np.ndarray, y: np.ndarray, M: int,
                  st: dict[str, np.ndarray]) -> np.ndarray:
    """OGD (lr 0.05) or regular ONS (alpha 1 in ``st["P"]``, 1/mu 0.5) with the offset
    over ``x, y`` from state ``st`` (updated); the predictions."""
    out = np.empty(x.size)
    if kernel == "ogd":
        ogd_series_chunk(x, y, st["w"], st["xt"], M, 1, 0.05, 1e-8, out)
    else:
        ons_series_chunk(x, y, st["w"], st["P"], st["xt"], st["k"], M, 1, 0.5, 1e-8, out)
    return out


def _series(seed: int, n: int = N) -> tuple[np.ndarray, np.ndarray]:
    s = ar2_series(n + 1, seed)
    return s[:-1].copy(), s[1:].copy()


def test_first_step_walkthrough():
    """Spec's t = 0 vector: eta_0 = 1 + x_0^2/alpha, rho_0 = (x_0/alpha) e_1 / sqrt(eta_0),
    w_1 = sgn(x_1) (1/mu) (x_0/alpha) / (1 + x_0^2/alpha) e_1."""
    M, alpha, inv_mu = 5, 0.5, 0.7
    x0, x1 = 0.3, -0.8
    out, st = _run_fast(np.array([x0]), np.array([x1]), M, alpha, inv_mu, 1e-8)
    eta0 = 1 + x0 * x0 / alpha
    assert out[0] == 0.0
    assert st["sc"][0] ** 2 == pytest.approx(eta0, rel=1e-14)
    expect_rho = np.zeros(M)
    expect_rho[0] = (x0 / alpha) / math.sqrt(eta0)
    np.testing.assert_allclose(st["rho"], expect_rho, rtol=1e-14, atol=1e-16)
    expect_w = np.zeros(M)
    expect_w[0] = -inv_mu * (x0 / alpha) / eta0
    np.testing.assert_allclose(st["w"], expect_w, rtol=1e-14, atol=1e-16)
    assert st["sc"][1] == 1.0  # h = 0 at t = 0: the hyperbolic rotation is the identity


@pytest.mark.parametrize("M", [8, 32])
@pytest.mark.parametrize("alpha", [0.1, 1.0])
@pytest.mark.parametrize("inv_mu", [0.5, 1.0])
def test_fast_equals_regular_ons_on_ar2(M, alpha, inv_mu):
    """Spec §2.5: max |x^F - x^R| < 1e-10, |resid| < 1e-12, eta_t >= 1 and
    eta_t = 1 + x_t^T P x_t of the regular recursion."""
    x, y = _series(seed=M)
    ref = ons_ref(x, y, M, alpha, inv_mu, 1e-6)
    fast = fast_ons_ref(x, y, M, alpha, inv_mu, 1e-6)
    out, st = _run_fast(x, y, M, alpha, inv_mu, 1e-6)
    assert np.max(np.abs(out - ref["pred"])) < 1e-10
    assert np.max(np.abs(fast["pred"] - ref["pred"])) < 1e-10
    np.testing.assert_allclose(fast["eta"], ref["eta"], rtol=1e-10)
    assert np.all(fast["eta"] >= 1.0)
    assert np.max(np.abs(fast["resid"])) < 1e-12
    # the kernel follows the canonical rotations: same Lambda as the literal loop
    np.testing.assert_allclose(st["L0"], fast["Lam"][:, 0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(st["L1"], fast["Lam"][:, 1], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(st["rho"], fast["rho"], rtol=1e-9, atol=1e-14)
    assert st["sc"][1] == pytest.approx(fast["omh"].min(), rel=1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("alpha", [1.0, 1e-4])
def test_recursions_match_direct_solve_on_prefix(seed, alpha):
    """Regular and fast ONS against ``A_t`` summed and solved directly at every step, over
    seeds, including the ill-conditioned small-alpha case on a smooth series."""
    n = 400
    if alpha < 1e-3:  # smooth, highly correlated: A_t ill-conditioned
        x_all = np.sin(np.arange(n + 1) / 15.0) + 1e-3 * np.random.default_rng(seed).normal(
            size=n + 1)
    else:
        x_all = ar2_series(n + 1, seed)
    x, y = x_all[:-1].copy(), x_all[1:].copy()
    M = 12
    direct = ons_direct_ref(x, y, M, alpha, 0.5, 1e-8)
    reg, _, P = _run_ons(x, y, M, alpha, 0.5, 1e-8)
    fast, _ = _run_fast(x, y, M, alpha, 0.5, 1e-8)
    tol = 1e-9 if alpha >= 1e-3 else 1e-6
    scale = max(1.0, np.max(np.abs(direct)))
    assert np.max(np.abs(reg - direct)) / scale < tol
    assert np.max(np.abs(fast - direct)) / scale < tol
    # the regular P is the inverse of the directly summed A_n
    from tests.reference.online_newton_step import _windows
    Xw = _windows(x, M)
    A = alpha * np.eye(M) + Xw.T @ Xw
    np.testing.assert_allclose(P @ A, np.eye(M), atol=1e-6 if alpha < 1e-3 else 1e-9)


@pytest.mark.parametrize("offset", [0, 1])
def test_regular_ons_kernel_matches_reference(offset):
    x, y = _series(seed=3)
    ref = ons_ref(x, y, 10, 0.5, 0.8, 1e-8, offset=bool(offset))
    out, w, P = _run_ons(x, y, 10, 0.5, 0.8, 1e-8, offset=offset)
    np.testing.assert_allclose(out, ref["pred"], rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(w, ref["w"], rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(P, ref["P"], rtol=1e-9, atol=1e-13)


@pytest.mark.parametrize("offset", [0, 1])
def test_ogd_kernel_matches_reference(offset):
    x, y = _series(seed=4)
    ref = ogd_ref(x, y, 16, 0.01, 1e-8, offset=bool(offset))
    w, xt, out = np.zeros(16 + offset), np.zeros(17), np.empty(x.size)
    status, done = ogd_series_chunk(x, y, w, xt, 16, offset, 0.01, 1e-8, out)
    assert status == SeriesStatus.OK and done == x.size
    np.testing.assert_allclose(out, ref["pred"], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(w, ref["w"], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("alpha", [1.0, 0.05])
def test_fast_offset_extension_matches_regular_ons_with_offset(alpha):
    """Spec §2.6: the exact O(M) offset equals the (M+1)-dimensional regular ONS."""
    x, y = _series(seed=5)
    x = x + 0.5  # a level the offset has to learn
    y = y + 0.5
    ref = ons_ref(x, y, 8, alpha, 0.5, 1e-8, offset=True)
    out, st = _run_fast(x, y, 8, alpha, 0.5, 1e-8, offset=1)
    assert np.max(np.abs(out - ref["pred"])) < 1e-9
    np.testing.assert_allclose(st["w"], ref["w"][:8], rtol=1e-8, atol=1e-10)
    assert st["sc"][3] == pytest.approx(ref["w"][8], rel=1e-8, abs=1e-10)


@pytest.mark.floatpath
def test_chunked_calls_equal_one_call():
    x, y = _series(seed=6)
    whole, st1 = _run_fast(x, y, 16, 1.0, 0.5, 1e-8, offset=1)
    chunked, st2 = _run_fast(x, y, 16, 1.0, 0.5, 1e-8, offset=1, chunk=37)
    np.testing.assert_array_equal(whole, chunked)
    for key in st1:
        np.testing.assert_array_equal(st1[key], st2[key])
    a, *_ = _run_ons(x, y, 16, 1.0, 0.5, 1e-8)
    b, *_ = _run_ons(x, y, 16, 1.0, 0.5, 1e-8, chunk=37)
    np.testing.assert_array_equal(a, b)


@pytest.mark.floatpath
@pytest.mark.parametrize("M", [1, 9, 11, 64])
def test_predict_helpers_match_the_chunk_kernels_within_rounding(M):
    """The helper each learner's predict_one calls (``fast_ons_predict`` for fast ONS,
    ``series_predict`` for OGD and regular ONS) gives the prediction of the chunk kernel
    the learner learns with, within the rounding bound of a dot product in any order:
    both inline one helper whose sums LLVM may reassociate per CPU and per caller. (This
    test compared ``series_predict`` with the fast-ONS kernel, which sums in another
    helper: bit for bit on AVX-512, AVX2 and SSE2 targets, 3e-17 apart on AVX without FMA,
    ``NUMBA_CPU_NAME=sandybridge``.)"""
    x, y = _series(seed=7)
    _, st = _run_fast(x[:200], y[:200], M, 1.0, 0.5, 1e-8, offset=1)
    w, xt, c = st["w"].copy(), st["xt"].copy(), float(st["sc"][3])
    p = fast_ons_predict(w, xt, x[200], st["L0"], st["L1"], M, c)
    out, _ = _run_fast(x[200:201], y[200:201], M, 1.0, 0.5, 1e-8, offset=1, st=st)
    assert abs(p - out[0]) <= dot_rounding_bound(w, x[200], xt, M, c)

    for kernel in ("ogd", "ons"):
        st = {"w": np.zeros(M + 1), "xt": np.zeros(M + 1), "P": np.eye(M + 1),
              "k": np.zeros(M + 1)}
        _series_chunk(kernel, x[:200], y[:200], M, st)
        w, xt = st["w"], st["xt"]
        bound = dot_rounding_bound(w, x[200], xt, M, float(w[M]))
        p = series_predict(w, xt, x[200], M, float(w[M]))
        out = _series_chunk(kernel, x[200:201], y[200:201], M, st)
        assert abs(p - out[0]) <= bound, kernel


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rebuild_recovers_state_from_lag_products(seed):
    """The exact rebuild gives the recursion's eta_t, rho_t and Delta_t = L Pi L^T."""
    x, y = _series(seed=seed, n=500)
    M, alpha = 10, 0.3
    _, st = _run_fast(x, y, M, alpha, 0.5, 1e-8)
    L0, L1, rho, s = fast_ons_rebuild(st["xt"], st["lag"], alpha, M)
    assert s == pytest.approx(st["sc"][0], rel=1e-10)
    np.testing.assert_allclose(rho, st["rho"], rtol=1e-8, atol=1e-12)
    got = np.outer(L0, L0) - np.outer(L1, L1)
    want = np.outer(st["L0"], st["L0"]) - np.outer(st["L1"], st["L1"])
    np.testing.assert_allclose(got, want, atol=1e-9 * np.abs(want).max())


def test_breakdown_stops_before_touching_the_rotation_state():
    """With a threshold tau no rotation can pass, the kernel reports BREAKDOWN at the first
    sample whose hyperbolic rotation is not the identity; the weights are untouched."""
    x, y = _series(seed=8, n=50)
    st = _fast_state(6, 1.0)
    out = np.empty(x.size)
    status, i = fast_ons_chunk(x, y, st["w"], st["xt"], st["L0"], st["L1"], st["rho"],
                               st["lag"], st["u"], st["ssum"], st["sc"], 6, 0, 1.0, 0.5,
                               1e-8, 1.0 - 1e-300, out)
    assert status == SeriesStatus.BREAKDOWN
    assert i == 0  # 1 - h^2 = 1 <= tau at t = 0 already
    assert np.all(st["w"] == 0) and np.all(np.isfinite(st["L0"]))
    assert st["xt"][0] == x[0]  # the delay line has the sample (the step is half done)
