"""River's regression data as streams: the arrays are River's samples (compared with River's
own iteration), deterministic from the seed, with Mv's nominal features encoded as
documented."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from river import datasets
from river.datasets import synth

from streamlearn.components import get_stream
from streamlearn.datasets.river_regression import MV_NOMINAL, MvStream


def _river(dataset: object, n: int) -> tuple[list[dict], np.ndarray]:
    pairs = list(itertools.islice(dataset, n))  # type: ignore[call-overload]
    return [x for x, _ in pairs], np.array([float(y) for _, y in pairs])


@pytest.mark.parametrize("name,river_cls", [("friedman", synth.Friedman),
                                            ("planes2d", synth.Planes2D)])
def test_generators_are_rivers_samples_and_seeded(name, river_cls):
    stream = get_stream(name)(n_samples=300, seed=5)
    X, y = stream.to_arrays()
    xs, ys = _river(river_cls(seed=5), 300)
    np.testing.assert_array_equal(X, np.array([list(x.values()) for x in xs], dtype=float))
    np.testing.assert_array_equal(y, ys)
    assert X.shape == (300, 10) and y.dtype == np.float64
    X2, y2 = get_stream(name)(n_samples=300, seed=5).to_arrays()
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    assert not np.array_equal(y, get_stream(name)(n_samples=300, seed=6).to_arrays()[1])
    info = stream.info()
    assert (info.task, info.n_samples, info.n_features) == ("regression", 300, 10)
    assert stream.estimate_size() == (300, 10)


def test_mv_encodes_its_nominal_features_in_place():
    X, y = MvStream(n_samples=400, seed=1).to_arrays()
    xs, ys = _river(synth.Mv(seed=1), 400)
    assert X.shape == (400, 12) and len(MvStream.columns) == 12
    assert MvStream.columns[2:5] == ("x3=green", "x3=red", "x3=brown")
    np.testing.assert_array_equal(y, ys)
    for row, x in zip(X, xs, strict=True):
        expected: list[float] = []
        for key in range(1, 11):
            if key in MV_NOMINAL:
                expected += [1.0 if x[key] == v else 0.0 for v in MV_NOMINAL[key]]
            else:
                expected.append(float(x[key]))
        np.testing.assert_array_equal(row, expected)
    assert np.all(X[:, 2:5].sum(axis=1) == 1.0)  # one-hot: exactly one colour
    assert set(np.unique(X[:, 8])) <= {0.0, 1.0} and set(np.unique(X[:, 9])) <= {0.0, 1.0}


@pytest.mark.parametrize("name,river_cls,shape", [
    ("trump_approval", datasets.TrumpApproval, (1001, 6)),
    ("chick_weights", datasets.ChickWeights, (578, 3)),
])
def test_shipped_sets_are_read_offline_in_file_order(name, river_cls, shape):
    cls = get_stream(name)
    X, y = cls().to_arrays()
    xs, ys = _river(river_cls(), shape[0] + 10)
    assert X.shape == shape and len(xs) == shape[0]
    np.testing.assert_array_equal(y, ys)
    np.testing.assert_array_equal(X, np.array([[float(x[c]) for c in cls.columns]
                                               for x in xs]))
    assert cls.natural_order and cls.task == "regression" and not cls.series
    assert not cls.reseed_per_run
    assert cls().info().n_features == shape[1]


def test_generators_refuse_bad_parameters():
    from streamlearn.errors import UserError

    with pytest.raises(UserError, match="n_samples"):
        get_stream("friedman")(n_samples=0)
    with pytest.raises(UserError, match="seed"):
        get_stream("mv")(seed=1.5)
