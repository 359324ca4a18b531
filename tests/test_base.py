"""Parameter introspection of ``streamlearn.params.Base``: ``**kwargs`` forwarding up the MRO."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from streamlearn import components, registry
from streamlearn.algorithms.bls.broad_learning import BLSClassifier
from streamlearn.base import Stream
from streamlearn.errors import UserError
from streamlearn.params import Base

components.load_all()


class _Parent(Base):
    def __init__(self, *, a: int = 1, b: int = 2) -> None:
        self.a = a
        self.b = b


class _Child(_Parent):
    def __init__(self, *, c: int = 3, **kw: Any) -> None:
        self.c = c
        super().__init__(**kw)


class _Grandchild(_Child):
    def __init__(self, *, b: int = 5, **kw: Any) -> None:  # changes a parent's default
        super().__init__(b=b, **kw)


class _Closed(_Parent):
    def __init__(self, *, x: int = 0) -> None:  # no **kwargs: the walk stops here
        self.x = x
        super().__init__()


def test_forwarded_parameters_are_collected_up_the_mro():
    assert _Child._param_names() == ["c", "a", "b"]
    assert _Child.default_params() == {"c": 3, "a": 1, "b": 2}
    assert _Grandchild._param_names() == ["b", "c", "a"]
    assert _Grandchild.default_params() == {"b": 5, "c": 3, "a": 1}
    assert _Closed._param_names() == ["x"]


def test_get_params_and_clone_round_trip_through_forwarding():
    g = _Grandchild(a=7, c=9)
    assert g.get_params() == {"b": 5, "c": 9, "a": 7}
    h = g.clone(b=11)
    assert h.get_params() == {"b": 11, "c": 9, "a": 7}
    assert repr(h) == "_Grandchild(b=11, c=9, a=7)"
    with pytest.raises(UserError, match="no parameter 'd'"):
        _Grandchild.check_param_names({"d": 1})


BLS_NAMES = sorted(n for n, c in registry.ALGORITHMS.items() if issubclass(c, BLSClassifier))


@pytest.mark.parametrize("name", BLS_NAMES)
def test_every_bls_learner_exposes_the_shared_parameters(name):
    cls = registry.ALGORITHMS[name]
    shared = BLSClassifier.default_params()
    defaults = cls.default_params()
    assert set(shared) <= set(defaults)
    for key, value in shared.items():
        if (name, key) != ("bls_cil", "lam"):
            assert defaults[key] == value, (name, key)


def test_own_parameters_and_changed_defaults_of_the_bls_subclasses():
    algos = registry.ALGORITHMS
    assert algos["bls_cil"].default_params()["lam"] == 1.0  # BLS-CIL's own default
    assert {"lam1", "lam2", "inverse"} <= set(algos["bls_cil"]._param_names())
    assert {"qtol", "pinv_mode", "inverse"} <= set(algos["ibls"]._param_names())
    ada_fast = algos["online_bls_ada_fast"]
    assert {"mu", "regulariser", "refresh_every"} <= set(ada_fast._param_names())
    assert "mu" in algos["online_bls_ada"]._param_names()
    # the ablation is Alg. 2 with mu = 1 but must not accept a forgetting factor
    assert "mu" not in algos["online_bls_no_eous"]._param_names()
    with pytest.raises(UserError, match="no parameter 'mu'"):
        algos["online_bls_no_eous"].check_param_names({"mu": 0.9})
    learner = algos["online_bls_ada_fast"](mu=0.95, n3=7, lam=0.5, seed=3)
    assert learner.clone().get_params() == learner.get_params()
    assert learner.get_params()["n3"] == 7 and learner.get_params()["mu"] == 0.95


# ------------------------------------------------ Stream.to_arrays checks what _load gives


class _Given(Stream):
    """A stream returning the arrays it is given."""

    def __init__(self, X=None, y=None, task: str = "classification"):
        self.X, self.y, self.task = X, y, task

    def _load(self):
        return self.X, self.y


def test_to_arrays_keeps_integer_valued_labels_of_any_dtype():
    X = np.zeros((4, 2))
    for y in ([0, 1, 1, 0], np.array([0.0, 2.0, 1.0, 0.0]), np.array([True, False] * 2)):
        _, got = _Given(X, np.asarray(y)).to_arrays()
        assert got.dtype == np.int64
        assert got.tolist() == np.asarray(y).astype(int).tolist()
    _, got = _Given(X, np.array([0.5, 1.5, 2.0, 0.0]), task="regression").to_arrays()
    assert got.tolist() == [0.5, 1.5, 2.0, 0.0]  # regression targets stay as they are


@pytest.mark.parametrize(("y", "message"), [
    (np.array([0.0, 0.5, 1.0, 1.0]), "label 1 is 0.5"),  # had become class 0
    (np.array([0.0, 1.0, np.nan, 1.0]), "label 2 is nan"),
    (np.array([0, 1, -1, 1]), "label 2 is -1"),
    (np.array(["a", "b", "a", "b"]), "they are of type <U1"),
])
def test_to_arrays_refuses_labels_a_cast_would_change(y, message):
    with pytest.raises(UserError, match=r"class indices 0\.\.C-1") as info:
        _Given(np.zeros((4, 2)), y).to_arrays()
    assert message in str(info.value)


@pytest.mark.parametrize(("X", "y"), [
    (np.zeros(4), np.zeros(4)),  # X of one dimension
    (np.zeros((4, 2)), np.zeros(3)),  # lengths differ
    (np.zeros((4, 2)), np.zeros((4, 1))),  # y of two dimensions
])
def test_to_arrays_refuses_arrays_of_the_wrong_shape(X, y):
    with pytest.raises(UserError, match=r"_Given._load\(\) must return X of shape"):
        _Given(X, y).to_arrays()
