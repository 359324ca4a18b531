"""NOGD (streamlearn/algorithms/kernel/nogd.py): the model transfer at the switch to the
Nyström stage, the budget, and the toolbox variants (spec Sec. 8.7, Sec. 9 pitfall 18):
the zero start of the C++ toolbox, the unsorted / smallest eigenpair orders and the switch
when the budget fills. Each variant does what it claims at the switch, and the defaults
are the code before the variants existed (a frozen copy of its update below), bit for
bit."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from streamlearn.algorithms.kernel.nogd import NOGD
from streamlearn.algorithms.linalg import pinv
from streamlearn.errors import UserError
from streamlearn.kernels.forks_budget import dloss, gauss_matrix
from tests.algorithms.kernel.kernel_helpers import (
    GAMMA,
    SIGMA,
    assert_budget_never_exceeded,
    binary_stream,
)

B = 20


class _OldNOGD(NOGD):
    """NOGD's update as it was before ``start``/``eig_order``/``switch_on`` (verbatim)."""

    def _update(self, x: np.ndarray, y: float, f: float) -> None:
        dl = dloss(f, y, self.loss_code_)
        if dl == 0.0:
            return
        if self.linear_:
            self.w_ -= self.eta * dl * self._z
            return
        if self.n_sv_ < self.budget:
            self._sv_append(x, -self.eta * dl)
            return
        K = gauss_matrix(self.sv_, self.sv_, self.gamma_)
        vals, vecs = np.linalg.eigh(0.5 * (K + K.T))
        order = np.argsort(vals)[::-1][: max(1, round(self.k_ratio * self.budget))]
        vals, vecs = vals[order], vecs[:, order]
        keep = vals > 1e-12 * vals[0]
        vals, vecs = vals[keep], vecs[:, keep]
        self.M_ = np.ascontiguousarray((vecs / np.sqrt(vals)).T)
        self.w_ = pinv(self.M_).T @ self.coef_
        self.linear_ = True
        self._z = self.M_ @ self._krow[: self.n_sv_]
        self.w_ -= self.eta * dl * self._z


def _scores(model: NOGD, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    model.reset(X.shape[1], 2)
    out = np.empty(len(y))
    for i in range(len(y)):
        model.predict_one(X[i])
        out[i] = model.last_score_
        model.learn_one(X[i], y[i])
    return out


def _to_switch(model: NOGD, X: np.ndarray, y: np.ndarray) -> tuple[int, np.ndarray, float]:
    """Run until the round of the switch; that round's index, the coefficients before it
    and its score."""
    model.reset(X.shape[1], 2)
    for i in range(len(y)):
        coef = model.coef_.copy()
        model.predict_one(X[i])
        f = model.last_score_
        model.learn_one(X[i], y[i])
        if model.linear_:
            return i, coef, f
    pytest.fail("NOGD never switched")


def _sv_kernel(model: NOGD) -> np.ndarray:
    K = gauss_matrix(model.sv_, model.sv_, GAMMA)
    return 0.5 * (K + K.T)


def test_nogd_transfer_keeps_the_kernel_model_on_its_span() -> None:
    """At the switch, w = (a^T M^+)^T: with k = B (no truncation) the linear model
    reproduces the kernel expansion's scores exactly (toolbox NysGD.m transfer)."""
    X, y = binary_stream(2, n=400)
    m = NOGD(sigma=SIGMA, budget=8, k_ratio=1.0)
    m.reset(X.shape[1], 2)
    for i in range(len(y)):
        before = m.linear_
        coef = m.coef_.copy()
        m.predict_one(X[i])
        m.learn_one(X[i], y[i])
        if m.linear_ and not before:
            break
    else:
        pytest.fail("NOGD never switched")
    probe = X[-20:]
    kernel_scores = gauss_matrix(probe, m.sv_, GAMMA) @ coef
    assert m.M_.shape[0] == 8
    # the model right after the transfer = w minus the first linear step
    z = m.M_ @ gauss_matrix(X[i][None, :], m.sv_, GAMMA)[0]
    yy = 1.0 if y[i] == 1 else -1.0
    transferred = m.w_ - 0.2 * yy * z
    assert_allclose(gauss_matrix(probe, m.sv_, GAMMA) @ m.M_.T @ transferred, kernel_scores,
                    atol=1e-6)


def test_budget_never_exceeded() -> None:
    assert_budget_never_exceeded(NOGD)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("k_ratio", [0.2, 0.5, 1.0])
def test_defaults_are_the_code_before_the_variants(seed: int, k_ratio: float) -> None:
    X, y = binary_stream(seed, n=400)
    old = _scores(_OldNOGD(sigma=SIGMA, budget=B, k_ratio=k_ratio), X, y)
    new = _scores(NOGD(sigma=SIGMA, budget=B, k_ratio=k_ratio), X, y)
    explicit = _scores(NOGD(sigma=SIGMA, budget=B, k_ratio=k_ratio, start="transfer",
                            eig_order="largest", switch_on="error"), X, y)
    assert_array_equal(new, old)
    assert_array_equal(explicit, old)


@pytest.mark.parametrize("seed", range(3))
def test_zero_start_is_zero_before_the_first_linear_step(seed: int) -> None:
    X, y = binary_stream(seed, n=400)
    zero = NOGD(sigma=SIGMA, budget=B, k_ratio=0.2, start="zero")
    i, _, _ = _to_switch(zero, X, y)
    yy = 1.0 if y[i] == 1 else -1.0
    z = zero.M_ @ gauss_matrix(X[i][None, :], zero.sv_, GAMMA)[0]
    # w after the switch round = 0 + the first linear step
    assert_allclose(zero.w_, 0.2 * yy * z, rtol=1e-12, atol=1e-15)
    # the transfer start differs there (its w before the step is (a^T M^+)^T != 0)
    tr = NOGD(sigma=SIGMA, budget=B, k_ratio=0.2)
    j, coef, _ = _to_switch(tr, X, y)
    assert j == i
    assert_allclose(tr.w_ - 0.2 * yy * z, pinv(tr.M_).T @ coef, rtol=1e-12, atol=1e-15)
    assert np.linalg.norm(pinv(tr.M_).T @ coef) > 1e-3
    # stage A (before the switch) is the same, the linear stage is not
    a = _scores(NOGD(sigma=SIGMA, budget=B, k_ratio=0.2, start="zero"), X, y)
    b = _scores(NOGD(sigma=SIGMA, budget=B, k_ratio=0.2), X, y)
    assert_array_equal(a[: i + 1], b[: i + 1])
    assert not np.allclose(a[i + 1:], b[i + 1:])


@pytest.mark.parametrize("seed", range(3))
def test_unsorted_uses_the_first_k_pairs_of_the_general_eigensolver(seed: int) -> None:
    X, y = binary_stream(seed, n=400)
    k = 8
    m = NOGD(sigma=SIGMA, budget=B, k_ratio=k / B, eig_order="unsorted")
    _to_switch(m, X, y)
    K = _sv_kernel(m)
    vals, vecs = np.linalg.eig(K)
    top = vals.real.max()
    keep = vals.real[:k] > 1e-12 * top
    assert_array_equal(m.eigvals_, vals.real[:k][keep])
    expect = (vecs.real[:, :k][:, keep] / np.sqrt(vals.real[:k][keep])).T
    assert_allclose(m.M_, expect, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize(("order", "expect"), [("unsorted", [1.0, 5.0]),
                                               ("largest", [5.0, 4.0]),
                                               ("smallest", [1.0, 2.0])])
def test_eig_order_on_a_matrix_whose_solver_order_is_known(order: str,
                                                           expect: list[float]) -> None:
    """On a diagonal matrix the general solver returns the diagonal in its order, so
    ``unsorted`` takes the first ``k`` diagonal entries, not the largest ``k``."""
    diag = np.array([1.0, 5.0, 3.0, 2.0, 4.0])
    m = NOGD(budget=5, k_ratio=0.4, eig_order=order)  # k = 2
    vals, vecs = m._eigenpairs(np.diag(diag))
    assert_allclose(vals, expect, rtol=1e-14)
    # each vector is the unit vector of its diagonal entry
    idx = [int(np.flatnonzero(diag == v)[0]) for v in expect]
    assert_allclose(np.abs(vecs), np.eye(5)[:, idx], atol=1e-14)


def test_the_guard_uses_the_largest_eigenvalue_of_k() -> None:
    """A selected pair with lambda <= 1e-12 lambda_max(K) is dropped in every order, even
    when lambda_max is not among the selected pairs."""
    diag = np.array([1e-13, 1.0, 1e-3, 0.5])
    for order, n_kept in [("unsorted", 1), ("smallest", 1), ("largest", 2)]:
        vals, _ = NOGD(budget=4, k_ratio=0.5, eig_order=order)._eigenpairs(np.diag(diag))
        assert len(vals) == n_kept and np.all(vals > 1e-12), order


@pytest.mark.parametrize("seed", range(3))
def test_smallest_uses_the_k_smallest_eigenpairs(seed: int) -> None:
    X, y = binary_stream(seed, n=400)
    k = 4
    m = NOGD(sigma=SIGMA, budget=B, k_ratio=k / B, eig_order="smallest")
    _to_switch(m, X, y)
    K = _sv_kernel(m)
    ev = np.linalg.eigvalsh(K)
    small = ev[:k][ev[:k] > 1e-12 * ev[-1]]
    assert_allclose(m.eigvals_, small, rtol=1e-10)
    assert m.eigvals_.max() < np.sort(ev)[::-1][k - 1]
    # rows of M are Lambda^{-1/2} v^T for those pairs: M K M^T = I on them
    assert_allclose(m.M_ @ K @ m.M_.T, np.eye(len(small)), atol=1e-6)
    largest = NOGD(sigma=SIGMA, budget=B, k_ratio=k / B)
    _to_switch(largest, X, y)
    assert_allclose(largest.eigvals_, np.sort(ev)[::-1][:k], rtol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_switch_on_full_switches_when_the_budget_fills(seed: int) -> None:
    X, y = binary_stream(seed, n=400)
    full = NOGD(sigma=SIGMA, budget=B, k_ratio=0.2, switch_on="full")
    i, coef, _ = _to_switch(full, X, y)
    assert full.n_sv_ == B and coef[B - 1] == 0.0  # the B-th SV came in this round
    # transfer of the full kernel model, no linear step in the switch round
    assert_allclose(full.w_, pinv(full.M_).T @ full.coef_, rtol=1e-12, atol=1e-15)
    # the default has not switched at that round: it waits for a margin error
    err = NOGD(sigma=SIGMA, budget=B, k_ratio=0.2)
    err.reset(X.shape[1], 2)
    for t in range(i + 1):
        err.predict_one(X[t])
        err.learn_one(X[t], y[t])
    assert err.n_sv_ == B and not err.linear_


@pytest.mark.parametrize("bad", [{"start": "random"}, {"eig_order": "sorted"},
                                 {"switch_on": "never"}])
def test_variant_values_are_checked(bad: dict[str, Any]) -> None:
    with pytest.raises(UserError, match=next(iter(bad))):
        NOGD(**bad)
