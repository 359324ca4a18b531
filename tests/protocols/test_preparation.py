"""The shared data preparation and its single cap step: where each protocol applies the
stream's ``max_samples`` (after the order, after the split, after tiling), checked on
streams whose rows say which sample they are, against an order computed here."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest

from streamlearn import components, registry
from streamlearn.base import Stream, StreamInfo
from streamlearn.config import StreamConfig
from streamlearn.protocols.incremental_nodes import IncrementalNodesProtocol
from streamlearn.protocols.preparation import (
    Preparation,
    build_stream,
    derive_seeds,
    prepare_stream,
    tile,
)
from streamlearn.protocols.prequential_classification import PrequentialClassification
from streamlearn.protocols.prequential_regression import PrequentialRegression

components.load_all()

TEST_OFFSET = 10_000  # row ids of the official test part start here


class IndexedRows(Stream):
    """Row ``i`` is ``(id, id mod 7)`` with label ``id mod 3``; an official ``train`` part
    (ids ``0..n-1``) and ``test`` part (ids ``10000..``), both in id order."""

    reseed_per_run: ClassVar[bool] = False

    def __init__(self, *, n_samples: int = 200, n_test: int = 80, part: str = "train") -> None:
        self.n_samples = n_samples
        self.n_test = n_test
        self.part = part

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        ids = (np.arange(self.n_samples) if self.part == "train"
               else TEST_OFFSET + np.arange(self.n_test))
        return np.column_stack([ids, ids % 7]).astype(float), ids % 3

    def info(self) -> StreamInfo:
        return StreamInfo("IndexedRows", "classification", self.n_samples, 2, 3)


@pytest.fixture(scope="module", autouse=True)
def _registered():
    registry.register_stream("indexed_rows")(IndexedRows)
    yield
    registry.STREAMS.pop("indexed_rows", None)


def _order(seed: int, n: int) -> np.ndarray:
    """The run's own order of ``n`` rows (the derived "order" seed)."""
    return np.random.default_rng(derive_seeds(seed)["order"]).permutation(n)


def _ids(X: np.ndarray) -> np.ndarray:
    return X[:, 0].astype(np.int64)


# ------------------------------------------------------------ prequential classification


def test_classification_sees_the_first_n_samples_of_its_shuffled_order():
    scfg = StreamConfig(name="indexed_rows", label="I", max_samples=50)
    for seed in (0, 3):
        data = PrequentialClassification().prepare(scfg, seed, None)
        np.testing.assert_array_equal(_ids(data.X), _order(seed, 200)[:50])
        np.testing.assert_array_equal(data.y, _order(seed, 200)[:50] % 3)
        assert data.info["n_samples"] == 50
        assert data.info["runner_preprocessing"] == ["shuffled per seed", "first 50 samples"]


def test_classification_fits_the_scale_on_the_capped_samples():
    scfg = StreamConfig(name="indexed_rows", label="I", max_samples=50, normalize="zscore")
    data = PrequentialClassification().prepare(scfg, 1, None)
    kept = _order(1, 200)[:50].astype(float)
    np.testing.assert_allclose(data.X[:, 0], (kept - kept.mean()) / kept.std(), rtol=1e-12)


def test_classification_in_natural_order_keeps_the_first_rows():
    scfg = StreamConfig(name="indexed_rows", label="I", max_samples=30, shuffle=False)
    data = PrequentialClassification().prepare(scfg, 0, None)
    np.testing.assert_array_equal(_ids(data.X), np.arange(30))
    assert data.info["runner_preprocessing"] == ["first 30 samples"]


# ------------------------------------------------------------ prequential regression


def _series(scfg: StreamConfig, seed: int) -> np.ndarray:
    """The stream's own series, z-scored on all its values."""
    x = build_stream(scfg, seed, None).to_arrays()[0][:, 0]
    return (x - x.mean()) / x.std()


@pytest.mark.parametrize("cap", [1000, 300])
def test_regression_caps_the_tiled_series_to_n_values(cap):
    scfg = StreamConfig(name="ar2", label="AR2", params={"n_samples": 600},
                        normalize="zscore", max_samples=cap)
    data = PrequentialRegression(tile_to=1500).prepare(scfg, 2, None)
    series = data.extra["series"]
    assert series.size == cap and data.X.shape == (cap - 1, 1)
    # the scale is fitted on the whole 600-value series, then tiled, then capped
    np.testing.assert_allclose(series, tile(_series(scfg, 2), cap), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(data.y, series[1:])
    steps = data.info["runner_preprocessing"]
    assert steps[-1] == f"first {cap} values"
    assert data.info["n_samples"] == data.info["n_predictions"] == cap - 1


def test_regression_without_tiling_caps_after_the_scale_of_the_whole_series():
    scfg = StreamConfig(name="ar2", label="AR2", params={"n_samples": 600},
                        normalize="zscore", max_samples=200)
    series = PrequentialRegression().prepare(scfg, 0, None).extra["series"]
    np.testing.assert_allclose(series, _series(scfg, 0)[:200], rtol=0, atol=1e-12)


# ------------------------------------------------------------ incremental nodes (a split)


def _nodes(**params) -> IncrementalNodesProtocol:
    return IncrementalNodesProtocol(windows=1, window_nodes=2, enhancement=3, updates=1,
                                    update_windows=0, update_enhancement=0, update_additional=2,
                                    **params)


def test_holdout_split_caps_the_training_part_after_the_split():
    scfg = StreamConfig(name="indexed_rows", label="I", max_samples=40)
    data = _nodes(split="holdout", n_test=60).prepare(scfg, 5, None)
    order = _order(5, 200)
    # train: the first 40 of the 140 kept rows; test: the first 40 of the last 60 rows
    np.testing.assert_array_equal(_ids(data.X), order[:40])
    np.testing.assert_array_equal(_ids(data.extra["X_test"]), order[140:180])
    np.testing.assert_array_equal(data.extra["y_test"], order[140:180] % 3)
    assert data.info["n_samples"] == 40 and data.info["n_test"] == 40
    assert data.info["runner_preprocessing"] == [
        "shuffled per seed", "last 60 samples held out", "first 40 samples of each part"]


def test_holdout_cap_longer_than_the_test_part_cuts_only_the_training_part():
    scfg = StreamConfig(name="indexed_rows", label="I", max_samples=100)
    data = _nodes(split="holdout", n_test=60).prepare(scfg, 5, None)
    order = _order(5, 200)
    np.testing.assert_array_equal(_ids(data.X), order[:100])
    np.testing.assert_array_equal(_ids(data.extra["X_test"]), order[140:])


def test_official_split_caps_each_part_in_the_dataset_order():
    scfg = StreamConfig(name="indexed_rows", label="I", max_samples=25)
    data = _nodes(split="official").prepare(scfg, 0, None)
    np.testing.assert_array_equal(_ids(data.X), np.arange(25))
    np.testing.assert_array_equal(_ids(data.extra["X_test"]), TEST_OFFSET + np.arange(25))
    assert data.info["runner_preprocessing"] == ["official train/test split",
                                                 "first 25 samples of each part"]
    # the official parts do not depend on the run seed: one materialisation for all seeds
    assert _nodes(split="official").prepare(scfg, 7, None).X is data.X


def test_split_protocol_refuses_normalisation():
    from streamlearn.errors import UserError

    scfg = StreamConfig(name="indexed_rows", label="I", normalize="zscore")
    with pytest.raises(UserError, match="set normalize: none"):
        _nodes(split="official").prepare(scfg, 0, None)


# ------------------------------------------------------------ the shared path


def test_one_materialisation_per_stream_and_seed():
    scfg = StreamConfig(name="indexed_rows", label="I", max_samples=50)
    a = prepare_stream(scfg, 0, None)
    assert prepare_stream(scfg, 0, None) is a
    assert prepare_stream(scfg, 1, None) is not a  # another order


@pytest.mark.parametrize("plan", [
    {"cap_after": "split"},
    {"cap_after": "sometime"},
    {"split": "holdout", "cap_after": "split"},
    {"split": "official", "cap_after": "split", "tile_to": 10},
])
def test_inconsistent_plans_are_refused(plan):
    with pytest.raises(ValueError):
        Preparation(**plan)
