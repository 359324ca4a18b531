"""The running-sum kernel of the regression metrics against its NumPy reference
(bit-identical: both sum sequentially), at checkpoints that include 1, repeats and n."""

from __future__ import annotations

import numpy as np
import pytest

from streamlearn.kernels.running_sums import Loss, loss_sums_at
from streamlearn.metrics.regression import cumulative_loss_at
from tests.reference.running_sums import loss_sums_at as reference


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("loss", [Loss.SQUARED, Loss.ABSOLUTE])
@pytest.mark.parametrize("n", [1, 2, 97, 5000])
def test_kernel_equals_reference(seed, loss, n):
    rng = np.random.default_rng(seed)
    y, p = rng.normal(size=n) * 1e3, rng.normal(size=n)
    at = np.unique(np.concatenate([[1, n], rng.integers(1, n + 1, size=9)]))
    got = loss_sums_at(y, p, at, int(loss))
    np.testing.assert_array_equal(got, reference(y, p, at, int(loss)))
    # the NumPy block path of the metrics gives the same numbers too
    fn = (lambda t, q: (t - q) ** 2) if loss == Loss.SQUARED else (lambda t, q: np.abs(t - q))
    np.testing.assert_array_equal(cumulative_loss_at(fn, y, p, at), got)
    np.testing.assert_array_equal(cumulative_loss_at(loss, y, p, at), got)


def test_prefix_checkpoints_only_read_the_prefix():
    y, p = np.arange(10.0), np.zeros(10)
    np.testing.assert_array_equal(loss_sums_at(y, p, np.array([3]), int(Loss.ABSOLUTE)),
                                  [3.0])


@pytest.mark.parametrize("chunk", [1, 7, 64, 5000])
@pytest.mark.parametrize("loss", [Loss.SQUARED, Loss.ABSOLUTE])
def test_chunked_sums_equal_the_whole_pass(chunk, loss):
    """Fed the chunks in order, the streaming kernel writes exactly the values of one pass
    over the whole arrays (and of the NumPy reference)."""
    from streamlearn.kernels.running_sums import loss_sums_chunk

    rng = np.random.default_rng(chunk)
    n = 1000
    y, p = rng.normal(size=n), rng.normal(size=n)
    at = np.unique(np.concatenate([[1, n], rng.integers(1, n + 1, size=11)]))
    out = np.full(at.shape, np.nan)
    k, carry = 0, 0.0
    for s in range(0, n, chunk):
        k, carry = loss_sums_chunk(y[s:s + chunk], p[s:s + chunk], s, at, k, carry,
                                   int(loss), out)
    assert k == at.size
    np.testing.assert_array_equal(out, reference(y, p, at, int(loss)))
