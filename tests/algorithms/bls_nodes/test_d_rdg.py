"""D-Rdg (streamlearn/algorithms/bls_nodes/d_rdg.py; Ridge-BLS eqs. 6-7): its solve
factorises one Fortran-ordered copy of the regularised Gram matrix in place. With a
C-ordered copy SciPy copied the k × k matrix twice more, which at the paper's size
(k = 25,170) took D-Rdg's peak to 23 GiB. Its values: test_node_incremental.py."""

from __future__ import annotations

import numpy as np
import scipy.linalg

from streamlearn.algorithms.bls_nodes import d_rdg
from streamlearn.checks.node_learners import direct_ridge
from tests.algorithms.bls_nodes.node_helpers import grow_named, problem, rel


def test_solve_gets_a_fortran_copy_it_may_overwrite(monkeypatch) -> None:
    seen: list[tuple[bool, bool, int]] = []
    solve = scipy.linalg.solve

    def spy(a, b, **kwargs):
        seen.append((a.flags.f_contiguous, bool(kwargs.get("overwrite_a")), a.shape[0]))
        return solve(a, b, **kwargs)

    monkeypatch.setattr(d_rdg.scipy.linalg, "solve", spy)
    k0, q, lam = 60, 30, 1e-3
    A, Y = problem(400, k0, q, 3, seed=0)
    Ws = grow_named("d_rdg", lam, A, Y, k0, q)
    assert [k for _, _, k in seen] == [k0 + j * q for j in range(4)]
    assert all(f and o for f, o, _ in seen)
    for j, W in enumerate(Ws):  # and the in-place factorisation leaves the Gram intact
        assert rel(W, direct_ridge(A[:, :k0 + j * q], Y, lam)) < 1e-10


def test_in_place_solve_adds_no_k_by_k_copy() -> None:
    """The property the Fortran copy buys, on SciPy itself: ``solve(..., overwrite_a=True)``
    on a Fortran-ordered symmetric matrix factorises it in place (the matrix changes);
    on a C-ordered one it works on copies (the matrix is left as it was)."""
    rng = np.random.default_rng(0)
    G = rng.normal(size=(200, 20))
    K = G @ G.T + 1e-3 * np.eye(200)
    Y = np.ones((200, 3))
    for order, in_place in (("F", True), ("C", False)):
        M = K.copy(order=order)
        scipy.linalg.solve(M, Y, assume_a="sym", check_finite=False, overwrite_a=True)
        assert (not np.array_equal(M, K)) is in_place, order
