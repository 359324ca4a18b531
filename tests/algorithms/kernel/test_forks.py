"""FORKS (streamlearn/algorithms/kernel/forks.py): the round procedure of Algorithm 1 (reset
at update rounds, the update order, the projection bound) and TISVD against an exact SVD
at every update round."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from streamlearn.algorithms.kernel.forks import FORKS
from streamlearn.errors import UserError
from tests.algorithms.kernel.kernel_helpers import SKETCH_SMALL, quadratic_stream


def _loop(model: FORKS, X: np.ndarray, y: np.ndarray, hook=None) -> np.ndarray:
    out = []
    for i in range(len(y)):
        out.append(model.predict_one(X[i]))
        if hook is not None:
            hook(model, i, out[-1])
        model.learn_one(X[i], y[i])
    return np.array(out)


@pytest.mark.parametrize("seed", range(3))
def test_update_rounds_predict_plus_one_and_reset(seed: int) -> None:
    """reset_first: every update round t0 + j rho predicts sgn(0) = +1 and starts from
    v = 0, A^{-1} = I / alpha (spec test 5); the sketch gains one point per update round."""
    X, y = quadratic_stream(seed)
    m = FORKS(**SKETCH_SMALL, seed=seed)
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
    X, y = quadratic_stream(1)
    a = FORKS(**SKETCH_SMALL, seed=0)
    b = FORKS(**SKETCH_SMALL, seed=0, update_order="predict_first")
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
    X, y = quadratic_stream(2)
    clipped = FORKS(**SKETCH_SMALL, seed=0, proj_bound=1.0)
    free = FORKS(**SKETCH_SMALL, seed=0, proj_bound=None)
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
    X, y = quadratic_stream(3)
    params = {"sigma": 1.5, "budget": 10, "buffer_factor": 2, "gamma_ratio": 1.0,
              "k_ratio": 1.0, "rho": 40, "seed": 0}
    a, b = FORKS(**params), FORKS(**params, decomposition="svd")
    for m in (a, b):
        m.reset(X.shape[1], 2)
    pa, pb = a.predict_learn_many(X, y), b.predict_learn_many(X, y)
    assert a.n_sketch_updates_ > 3
    assert_allclose(np.sort(a.S_), np.sort(b.S_), rtol=1e-8, atol=1e-10)
    assert np.mean(pa == pb) > 0.99


def test_update_order_is_checked() -> None:
    with pytest.raises(UserError, match="update_order"):
        FORKS(update_order="later")
