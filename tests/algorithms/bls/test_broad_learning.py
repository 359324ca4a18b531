"""The shared layer of the BLS learners (``streamlearn/algorithms/bls/broad_learning.py``):
the broad feature map's draw order and shapes (Online-BLS paper eqs. 1, 28, 3), its
enhancement-scaling options, and the contract :class:`BLSClassifier` offers subclasses."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl
from numpy.testing import assert_allclose, assert_array_equal

from streamlearn.algorithms.bls.broad_learning import BLSClassifier, BroadFeatureMap


def test_feature_map_draw_order_and_shapes():
    d, n1, n2, n3, n4 = 4, 3, 2, 5, 2
    f = BroadFeatureMap(d, n1, n2, n3, n4, np.random.default_rng(42))
    rng = np.random.default_rng(42)
    Wf = rng.uniform(-1, 1, size=(n2, d, n1))
    bf = rng.uniform(-1, 1, size=(n2, n1))
    We = rng.uniform(-1, 1, size=(n4, n1 * n2, n3))
    be = rng.uniform(-1, 1, size=(n4, n3))
    for got, want in ((f.Wf, Wf), (f.bf, bf), (f.We, We), (f.be, be)):
        assert_array_equal(got, want)
    assert f.m == n1 * n2 + n3 * n4
    # eq. 3: a = [z_1..z_n2, h_1..h_n4], z_i = x Wf_i + bf_i, h_j = tanh(z We_j + be_j)
    x = np.random.default_rng(0).random(d)
    z = np.concatenate([x @ Wf[i] + bf[i] for i in range(n2)])
    h = np.concatenate([np.tanh(z @ We[j] + be[j]) for j in range(n4)])
    assert_allclose(f.transform_one(x), np.concatenate([z, h]), rtol=1e-13, atol=1e-13)


@pytest.mark.floatpath
def test_transform_rows_equal_transform_one():
    f = BroadFeatureMap(6, 10, 10, 200, 2, np.random.default_rng(1), row_zscore=True)
    X = np.random.default_rng(2).standard_normal((25, 6)) * 5
    A = f.transform(X)
    assert A.shape == (25, f.m)
    for i in range(25):
        assert_array_equal(A[i], f.transform_one(X[i]))


def test_deferred_scale_raises_until_set():
    f = BroadFeatureMap(3, 2, 2, 4, 1, np.random.default_rng(0), defer_scale=True)
    with pytest.raises(RuntimeError, match="warm-up"):
        f.transform_one(np.zeros(3))
    f.set_scale(0.5)
    assert f.transform_one(np.zeros(3)).shape == (f.m,)


@pytest.mark.parametrize("row_zscore", [False, True])
def test_preactivation_bound_is_the_exact_maximum(row_zscore):
    d = 3
    f = BroadFeatureMap(d, 2, 2, 6, 1, np.random.default_rng(5), row_zscore=row_zscore)
    bound = f.preactivation_bound(0.0, 1.0)
    rng = np.random.default_rng(0)
    if row_zscore:
        # the constraint set {Σx = 0, ‖x‖ = √d} is a circle for d = 3: sample it densely
        basis = sl.null_space(np.ones((1, d)))
        t = np.linspace(0, 2 * np.pi, 20001)
        pts = np.sqrt(d) * (np.cos(t)[:, None] * basis[:, 0] + np.sin(t)[:, None] * basis[:, 1])
        corners = pts
    else:
        corners = np.array(np.meshgrid(*[[0.0, 1.0]] * d)).reshape(d, -1).T
    assert f.preactivation_absmax(corners) == pytest.approx(bound, rel=1e-6)
    assert f.preactivation_absmax(rng.random((200, d))) <= bound * (1 + 1e-12)


def test_orth_enhancement_rows_are_orthonormal():
    f = BroadFeatureMap(4, 3, 2, 20, 2, np.random.default_rng(0), orth_enhancement=True)
    for j in range(2):
        M = np.vstack([f.We[j], f.be[j][None, :]])  # (7, 20): rows orthonormalised
        assert_allclose(M @ M.T, np.eye(7), atol=1e-12)
    g = BroadFeatureMap(4, 3, 3, 5, 1, np.random.default_rng(0), orth_enhancement=True)
    M = np.vstack([g.We[0], g.be[0][None, :]])  # (10, 5): columns orthonormalised
    assert_allclose(M.T @ M, np.eye(5), atol=1e-12)


def test_bls_classifier_contract_for_subclasses():
    """The hooks part B's learners rely on: reset builds features_, W_ and calls
    _reset_state(m, c); learn_one calls _learn_a(a, y) with the broad feature."""
    seen = {}

    class Probe(BLSClassifier):
        def _reset_state(self, m, c):
            seen["reset"] = (m, c, self.W_.shape)

        def _learn_a(self, a, y):
            seen["learn"] = (a.copy(), y)

    p = Probe(n1=4, n2=3, n3=30, n4=1, seed=0)  # m = 42
    p.reset(5, 4)
    assert seen["reset"] == (42, 4, (42, 4))
    x = np.linspace(0, 1, 5)
    p.learn_one(x, 2)
    assert_array_equal(seen["learn"][0], p.features_.transform_one(x))
    assert seen["learn"][1] == 2
    assert p.predict_one(x) == 0
