"""``add_class()`` (a new class mid-stream) and ``predict_scores_one`` of the ridge-type
learners: a learner reset with one class that grows as labels appear is, after every
step, in the state of one reset with every class from the start (its weights, bit for
bit, with the unseen classes' columns zero) and predicts the same once every class has
appeared; the learners whose update does not keep the zero column exactly refuse."""

from __future__ import annotations

import numpy as np
import pytest

from streamlearn import components

GROWS = ["online_bls", "online_bls_gain", "online_bls_fast", "online_bls_ada",
         "online_bls_no_eous", "online_bls_ada_fast", "online_bls_blocked",
         "online_bls_ada_blocked", "rls"]
#: their updates multiply by W through BLAS (a @ W, Kinv @ V), whose rounding of a
#: column depends on the number of columns: a grown learner would not be bit-identical
#: to one given every class, so they refuse (give them the classes up front)
REFUSES = ["ibls", "ribls", "bls_cil"]
#: grow exactly in exact arithmetic, but W = U⁻¹Z is formed by a row solve and, at each
#: refresh (ada) or block (blocked: LAPACK dtpmqrt on [Z; Y]), by BLAS calls whose rounding
#: of a column depends on the number of columns: the grown learner is within a stated
#: bound of the full one (same predictions here)
WITHIN_ROUNDING = {"online_bls_ada_fast": 1e-12, "online_bls_blocked": 1e-12,
                   "online_bls_ada_blocked": 1e-12}


def _stream(n: int = 240, d: int = 5) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(4)
    X = rng.uniform(size=(n, d))
    y = rng.integers(0, 4, n)
    y[:30] = 0  # the classes appear one after the other
    y[30:60] = rng.integers(0, 2, 30)
    y[60:90] = rng.integers(0, 3, 30)
    y[90] = 3
    return X, y


def _params(name: str) -> list[dict]:
    return list(components.get_algorithm(name)._test_params())


@pytest.mark.floatpath
@pytest.mark.parametrize("name", GROWS)
def test_grown_learner_equals_one_reset_with_every_class(name: str) -> None:
    cls = components.get_algorithm(name)
    X, y = _stream()
    for params in _params(name):
        full, grown = cls(**params), cls(**params)
        full.reset(X.shape[1], 4)
        grown.reset(X.shape[1], 1)
        for i in range(X.shape[0]):
            while y[i] >= grown.n_classes_:
                grown.add_class()
            p_full, p_grown = full.predict_one(X[i]), grown.predict_one(X[i])
            s_full, s_grown = full.predict_scores_one(X[i]), grown.predict_scores_one(X[i])
            c = grown.n_classes_
            rtol = WITHIN_ROUNDING.get(name, 0.0)
            np.testing.assert_allclose(s_grown, s_full[:c], rtol=rtol, atol=rtol,
                                       err_msg=f"{name} {params} {i}")
            assert not s_full[c:].any()  # the unseen classes score exactly 0
            if i > 90:  # every class has appeared
                assert p_full == p_grown, (name, params, i)
            full.learn_one(X[i], int(y[i]))
            grown.learn_one(X[i], int(y[i]))
            np.testing.assert_allclose(grown.W_, full.W_[:, :c], rtol=rtol, atol=rtol)
            assert not full.W_[:, c:].any()


@pytest.mark.parametrize("name", ["online_bls_fast", "online_bls_ada_fast", "online_bls_blocked",
                                  "online_bls_ada_blocked", "rls"])
def test_scores_argmax_is_the_prediction(name: str) -> None:
    cls = components.get_algorithm(name)
    X, y = _stream()
    learner = cls(**_params(name)[0])
    learner.reset(X.shape[1], 4)
    for i in range(X.shape[0]):
        s = learner.predict_scores_one(X[i])
        assert s.shape == (4,)
        assert int(np.argmax(s)) == learner.predict_one(X[i])
        learner.learn_one(X[i], int(y[i]))


@pytest.mark.parametrize("name", REFUSES)
def test_learners_that_cannot_grow_exactly_refuse(name: str) -> None:
    learner = components.get_algorithm(name)(**_params(name)[0])
    learner.reset(3, 2)
    with pytest.raises(NotImplementedError, match="cannot take a new class"):
        learner.add_class()
    assert learner.n_classes_ == 2 and learner.W_.shape[1] == 2


def test_fast_weights_of_one_class_leave_the_state_alone() -> None:
    """``OnlineBLSFast.W_`` with one class: ``Z_.T`` is then C-contiguous itself, and
    reading ``W_`` once solved it in place (the state changed on every read)."""
    cls = components.get_algorithm("online_bls_fast")
    X, _ = _stream()
    learner = cls(**_params("online_bls_fast")[0])
    learner.reset(X.shape[1], 1)
    for i in range(5):
        learner.learn_one(X[i], 0)
    Z = learner.Z_.copy()
    first = learner.W_
    np.testing.assert_array_equal(learner.Z_, Z)
    np.testing.assert_array_equal(learner.W_, first)
