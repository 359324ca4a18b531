"""The shared layer of the kernel learners (streamlearn/algorithms/kernel/kernel_budget.py):
the label mapping and ``sgn(0) = +1``, the checks every learner inherits, and
``warm_up``: the runner compiles and touches a learner's code paths on a throwaway copy
before the clock starts (the 2-sample warm-up alone left stage 2 of FORKS/SkeGD and NOGD's
switch to be compiled inside the first timed run: 1.6 s on a 0.002 s run)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from streamlearn import components
from streamlearn.algorithms.kernel.kernel_budget import label_to_pm1, score_to_label
from streamlearn.algorithms.kernel.nogd import NOGD
from streamlearn.algorithms.kernel.rbp import RBP
from streamlearn.errors import UserError


def test_label_mapping_and_sign_of_zero() -> None:
    assert label_to_pm1(1) == 1.0 and label_to_pm1(0) == -1.0
    assert score_to_label(0.0) == 1 and score_to_label(-1e-300) == 0


def test_two_classes_only_and_known_losses() -> None:
    with pytest.raises(UserError, match="two classes"):
        RBP(sigma=1.0).reset(3, 4)
    with pytest.raises(UserError, match="loss"):
        NOGD(loss="logistic")


KERNEL_LEARNERS = {
    "rbp": {}, "bpa_s": {}, "projectron": {}, "bogd": {"horizon": 300}, "fogd": {},
    "nogd": {}, "skegd": {"horizon": 300}, "pros_n_kons": {}, "forks": {"horizon": 300},
}


def _stream(seed: int, n: int = 300, d: int = 5) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(np.int64)
    return X, y


@pytest.mark.parametrize("name", sorted(KERNEL_LEARNERS))
def test_warm_up_leaves_the_learner_untouched(name):
    components.load_all()
    cls = components.get_algorithm(name)
    X, y = _stream(0)
    params = {"sigma": 2.0, "budget": 20, "seed": 3, **KERNEL_LEARNERS[name]}
    cold, warm = cls(**params), cls(**params)
    warm.warm_up(X[:256], y[:256])
    assert warm.get_params() == cold.get_params()
    for m in (cold, warm):
        m.reset(X.shape[1], 2)
    np.testing.assert_array_equal(warm.predict_learn_many(X, y), cold.predict_learn_many(X, y))
    np.testing.assert_array_equal(warm.chunk_scores_, cold.chunk_scores_)


def test_warm_up_compiles_the_paths_a_run_reaches():
    """In a fresh process: before the warm-up the stage-1, sketch and stage-2 kernels of
    FORKS and NOGD's switch have not run; after it they are compiled (or loaded from
    numba's cache), although the budgets (50) exceed the 40 rows given."""
    code = textwrap.dedent("""
        import numpy as np
        from streamlearn.algorithms.kernel.forks import FORKS
        from streamlearn.algorithms.kernel.nogd import NOGD
        from streamlearn.kernels import forks_budget as kb
        kernels = [kb.sketch_stage2_loop, kb.kernel_ogd_fill, kb.gram_from_rows,
                   kb.gauss_matrix, kb.gauss_gram]
        before = [len(k.signatures) for k in kernels]
        rng = np.random.default_rng(0)
        X = rng.normal(size=(40, 6)); y = (X[:, 0] > 0).astype(np.int64)
        FORKS(sigma=2.0, budget=50, horizon=1000).warm_up(X, y)
        NOGD(sigma=2.0, budget=50).warm_up(X, y)  # its switch builds K(SV, SV)
        # a buffer too large to keep stage 1's rows: the set-up recomputes with gauss_gram
        FORKS(sigma=2.0, budget=50, horizon=1000, buffer_factor=100).warm_up(X, y)
        print(before, [len(k.signatures) for k in kernels])
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[0, 0, 0, 0, 0] [1, 1, 1, 1, 1]", out
