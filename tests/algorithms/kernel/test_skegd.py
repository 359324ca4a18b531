"""SkeGD (streamlearn/algorithms/kernel/skegd.py): what sets it apart from FORKS on the shared
two-stage machinery. At an update round the model ``w`` is kept (FORKS resets it) and the
decomposition is the exact top-``k`` eigendecomposition of the maintained ``Phi_pp``
(FORKS: TISVD). The fused path and the update cycle: test_sketched_learner.py."""

from __future__ import annotations

import numpy as np
from numpy.testing import assert_array_equal

from streamlearn.algorithms.kernel.forks_sketch import top_k_eigh
from streamlearn.algorithms.kernel.skegd import SkeGD
from tests.algorithms.kernel.kernel_helpers import SKETCH_SMALL, quadratic_stream


def test_update_rounds_keep_w_and_take_the_exact_decomposition() -> None:
    X, y = quadratic_stream(0)
    m = SkeGD(**SKETCH_SMALL, seed=0)
    m.reset(X.shape[1], 2)
    n_update_rounds = 0
    for i in range(len(y)):
        before = m.v_.copy() if m.phase_ == 2 else None
        m.predict_one(X[i])
        if before is not None and m._updated_at == m.t_:  # the sketch was updated now
            n_update_rounds += 1
            assert np.any(before)
            assert_array_equal(m.v_, before)  # no reset
            S, V = top_k_eigh(m.sketch_.Phi_pp, m.U_.shape[1])
            assert_array_equal(m.S_, S)
            assert_array_equal(m.V_, V)
        m.learn_one(X[i], y[i])
    assert n_update_rounds == m.n_sketch_updates_ > 3
