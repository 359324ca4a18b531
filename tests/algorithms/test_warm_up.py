"""Learner.warm_up: the runner compiles and touches a learner's code paths on a throwaway
copy before the clock starts (the 2-sample warm-up alone left stage 2 of FORKS/SkeGD and
NOGD's switch to be compiled inside the first timed run: 1.6 s on a 0.002 s run)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from streamlearn import components

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
        from streamlearn.algorithms.kernel.forks_baselines import NOGD
        from streamlearn.kernels import forks_budget as kb
        kernels = [kb.sketch_stage2_loop, kb.kernel_ogd_fill, kb.gauss_gram, kb.gauss_matrix]
        before = [len(k.signatures) for k in kernels]
        rng = np.random.default_rng(0)
        X = rng.normal(size=(40, 6)); y = (X[:, 0] > 0).astype(np.int64)
        FORKS(sigma=2.0, budget=50, horizon=1000).warm_up(X, y)
        NOGD(sigma=2.0, budget=50).warm_up(X, y)  # its switch builds K(SV, SV)
        print(before, [len(k.signatures) for k in kernels])
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[0, 0, 0, 0] [1, 1, 1, 1]", out


def test_a_user_learner_warm_up_runs_on_a_fresh_instance():
    """A plain user class with ``warm_up`` gets it called on its own fresh instance, not on
    the one the run uses (the wrapper's model stays untouched)."""
    from streamlearn.components import _user_wrapper

    calls: list[tuple[int, int]] = []

    class Mine:
        def __init__(self, seed=None):
            self.seed = seed
            self.seen = 0

        def warm_up(self, X, y):
            calls.append((X.shape[0], id(self)))

        def predict_one(self, x):
            return 0

        def learn_one(self, x, y):
            self.seen += 1

    wrapped = _user_wrapper(Mine, "mine")(seed=1)
    wrapped.reset(3, 2)
    model = wrapped.model_
    X, y = _stream(1, n=50, d=3)
    wrapped.warm_up(X, y)
    assert [n for n, _ in calls] == [50] and calls[0][1] != id(model)
    assert model.seen == 0
