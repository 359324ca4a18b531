from __future__ import annotations

import os
from pathlib import Path

import pytest

_SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def shared_data_dir() -> Path | None:
    """The real datasets: $STREAMLEARN_TEST_DATA, else ../shared/datasets beside the repo."""
    env = os.environ.get("STREAMLEARN_TEST_DATA")
    p = Path(env) if env else _SHARED
    return p if p.is_dir() else None


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
