from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def one_blas_thread() -> Iterator[None]:
    """One BLAS thread, as ``streamlearn run`` gives each run: the doors are compared under
    the same conditions, and two BLAS threads on a busy 2-core machine are many times
    slower for these small matrices."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield
