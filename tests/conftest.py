from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

_SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def shared_data_dir() -> Path | None:
    """The real datasets: $STREAMLEARN_TEST_DATA, else ../shared/datasets beside the repo."""
    env = os.environ.get("STREAMLEARN_TEST_DATA")
    p = Path(env) if env else _SHARED
    return p if p.is_dir() else None


def _needs_real_data(item: pytest.Item) -> bool:
    return "data_dir" in getattr(item, "fixturenames", ()) or \
        item.get_closest_marker("datasets") is not None


def _skip_when_data_absent(item: pytest.Item) -> Iterator[None]:
    from streamlearn.errors import DataMissingError

    try:
        return (yield)
    except DataMissingError as exc:
        if _needs_real_data(item):  # a data folder without this dataset's files
            pytest.skip(f"the dataset's files are not in the data folder: {exc}")
        raise


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """A test of real data whose dataset is absent from a data folder that holds others
    is skipped, not failed (only a missing folder had skipped)."""
    return (yield from _skip_when_data_absent(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    return (yield from _skip_when_data_absent(item))


@pytest.fixture(scope="session", autouse=True)
def private_user_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The whole suite's per-user cache (hash memo, parsed arrays) is a temporary
    directory: tests never read a stale entry from, or write into, the real user cache.
    Tests and modules that need their own cache set ``STREAMLEARN_CACHE`` again."""
    path = tmp_path_factory.mktemp("user-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("STREAMLEARN_CACHE", str(path))
        mp.delenv("STREAMLEARN_PARSED_CACHE", raising=False)
        yield path


@pytest.fixture(autouse=True)
def fresh_outside_state_memory() -> Iterator[None]:
    """Each test starts with no learner class marked as having changed its outside state
    (``user_learner_checks._STATE_CHANGED_BY`` lives as long as the process, as a run's
    worker does); test learner classes reuse names across tests."""
    from streamlearn.protocols import user_learner_checks

    user_learner_checks._STATE_CHANGED_BY.clear()
    yield
    user_learner_checks._STATE_CHANGED_BY.clear()


@pytest.fixture
def data_dir() -> Path:
    """Directory with the real dataset files; the test is skipped when it is absent."""
    p = shared_data_dir()
    if p is None:
        pytest.skip("real datasets not available (set STREAMLEARN_TEST_DATA or ../shared)")
    return p


@pytest.fixture(params=[0, 1, 2])
def seed(request: pytest.FixtureRequest) -> int:
    return request.param
