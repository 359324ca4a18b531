"""Same numbers through every door (issue 27), River's: Electricity's first 10,000 samples
in their natural order, ``streamlearn run`` against ``river.evaluate`` progressive
validation of the wrapped learner with the same parameters and seed, prediction by
prediction. Skipped without the data (``STREAMLEARN_TEST_DATA`` or ../shared)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from streamlearn.interop.river import StreamlearnClassifier
from tests.conftest import shared_data_dir
from tests.interop.doors import n_differ, river_dataset, river_predictions
from tests.interop.electricity import LEARNERS, N, electricity_arrays, streamlearn_run

pytestmark = pytest.mark.datasets


@pytest.fixture(scope="module")
def data() -> Path:
    path = shared_data_dir()
    if path is None or not (path / "elec2").is_dir():
        pytest.skip("Electricity is not available (set STREAMLEARN_TEST_DATA or ../shared)")
    return path


@pytest.fixture(scope="module")
def run(data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return streamlearn_run(tmp_path_factory.mktemp("elec") / "out", data)


@pytest.mark.parametrize("name", list(LEARNERS))
def test_river_door_gives_streamlearn_runs_predictions(
        name: str, data: Path, run: dict[str, dict[str, Any]]) -> None:
    X, y = electricity_arrays(data)
    ours = run[name]
    np.testing.assert_array_equal(ours["y_true"], y)  # the same stream, label for label
    assert X.shape == (N, 6) and X.dtype == np.float64
    model = StreamlearnClassifier(name, classes=(0, 1), **LEARNERS[name])
    preds, acc = river_predictions(model, river_dataset(X, y))
    differ = n_differ(preds, ours["y_pred"])
    print(f"\n{name}: streamlearn run OCA {ours['oca']:.6f}, River {acc:.6f}, "
          f"{differ} of {N} predictions differ")
    assert differ == 0
    assert acc == ours["oca"]
    assert 0.6 < acc < 1.0  # it learned something: the comparison is not of constants


def test_discovered_classes_differ_only_before_both_have_appeared(
        data: Path, run: dict[str, dict[str, Any]]) -> None:
    """Without ``classes``: the first prediction is ``None`` (not scored by River) and
    the labels come in first-seen order; once both labels have appeared the predictions
    are streamlearn's."""
    X, y = electricity_arrays(data)
    name = "online_bls_fast"
    model = StreamlearnClassifier(name, **LEARNERS[name])
    preds, acc = river_predictions(model, river_dataset(X, y))
    both = int(np.argmax(y != y[0]))  # where the second label first appears
    ours = run[name]["y_pred"]
    print(f"\ndiscovered classes: {n_differ(preds, ours)} of {N} differ, all before sample "
          f"{both + 1}; River accuracy {acc:.6f} (over {N - 1} scored predictions)")
    assert preds[0] is None
    assert n_differ(preds[both + 1:], ours[both + 1:]) == 0
