"""benchmarks/bls_kernel_layouts.py: the replaced layouts it times against the landed
ones still build and give the landed bits."""

from __future__ import annotations

import numpy as np
import pytest

import streamlearn.kernels.blocked_qr_rls as qr_kernels
import streamlearn.kernels.broad_features as features
from tests.benchmarks import load_benchmark


@pytest.mark.floatpath
def test_replaced_layouts_give_the_landed_bits():
    mod = load_benchmark("bls_kernel_layouts")
    rng = np.random.default_rng(0)
    m, b = 150, 9
    A0 = rng.standard_normal((400, m))
    U = np.asfortranarray(np.linalg.cholesky(A0.T @ A0 / 400 + np.eye(m)).T)
    A = rng.standard_normal((b, m))
    q_old, q_new = np.zeros((m, b)), np.zeros((m, b))
    mod._solve_at_tile(mod.OLD_TILE)(U, A, 0, b, q_old, 0)
    qr_kernels.solve_ut_cols(U, A, 0, b, q_new, 0)
    assert np.array_equal(q_old, q_new)
    n, d, p, q = 11, 13, 10, 21
    X = rng.random((n, d))
    Wf, bf = rng.uniform(-1, 1, (d, p)), rng.uniform(-1, 1, p)
    We, be = rng.uniform(-1, 1, (p, q)), rng.uniform(-1, 1, q)
    f_old, f_new = np.empty((n, p + q)), np.empty((n, p + q))
    old = mod._row_at_a_time_features
    assert old is not features.broad_features
    old(X, Wf, bf, We, be, 0.7, 1, f_old)
    features.broad_features(X, Wf, bf, We, be, 0.7, 1, f_new)
    assert np.array_equal(f_old, f_new)
