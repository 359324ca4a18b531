"""Node-incremental learners (tagged ``grows_on_split``) get the node suite
(streamlearn.checks.node_learners) from the one entry, :func:`streamlearn.checks.yield_checks`
(tests/checks/test_conformance.py runs it over the registry), and ``streamlearn check``
runs it on them: the six Ridge-BLS algorithms pass, a user's node learner by dotted path
passes, a broken one fails with exit code 1."""

from __future__ import annotations

import numpy as np
import pytest

from streamlearn import components, registry
from streamlearn.algorithms.bls_nodes.bls_chol2 import Chol2BLS
from streamlearn.algorithms.bls_nodes.d_rdg import DirectRidge
from streamlearn.algorithms.bls_nodes.node_incremental import NodeIncrementalLearner
from streamlearn.checks import run_checks, yield_checks
from streamlearn.checks.node_learners import direct_ridge, yield_node_checks
from tests.cli_helpers import run_cli

components.load_all()

NODE_LEARNERS = sorted(n for n, c in registry.ALGORITHMS.items()
                       if isinstance(c, type) and issubclass(c, NodeIncrementalLearner))
SIX = ["bls_chol1", "bls_chol2", "bls_exg_e", "bls_orig", "bls_rinv", "d_rdg"]


class DirectRidgeNodes(NodeIncrementalLearner):
    """A user's node learner: the direct ridge solve (eqs. 6-7) after every step."""

    paper_name = "Direct"

    def _initialize(self, A: np.ndarray, Y: np.ndarray) -> None:
        self.W_ = direct_ridge(A, Y, self.lam)

    def _update(self, A: np.ndarray, H: np.ndarray) -> None:
        assert self._Y is not None
        self.W_ = direct_ridge(np.hstack([A, H]), self._Y, self.lam)


class WrongShapes(DirectRidge):
    """D-Rdg whose update keeps the weights of the new nodes only (a wrong shape)."""

    def _update(self, A: np.ndarray, H: np.ndarray) -> None:
        super()._update(A, H)
        self.W_ = self.W_[-H.shape[1]:]


class ForgetsWhenPickled(Chol2BLS):
    """Chol-2 that loses its inverse Cholesky factor when pickled."""

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_F"] = np.zeros_like(state["_F"])
        return state


def test_the_six_algorithms_are_registered():
    assert set(NODE_LEARNERS) >= set(SIX)


@pytest.mark.parametrize("name", NODE_LEARNERS)
def test_node_learners_get_the_node_suite(name):
    cls = registry.ALGORITHMS[name]
    names = [n for n, _ in yield_checks(cls)]
    node = [n for n, _ in yield_node_checks(cls)]
    assert names == ["docstring", "params_roundtrip", "tags_known", *node]
    assert "predictions_valid" not in names and "capacity" in names


def test_prequential_learners_do_not_get_the_node_suite():
    names = [n for n, _ in yield_checks(registry.ALGORITHMS["rls"])]
    assert "predictions_valid" in names and "shapes_and_finite" not in names


@pytest.mark.parametrize("name", SIX)
def test_check_command_runs_the_node_suite(name, capsys):
    rc, text = run_cli(["check", name], capsys)
    out = " ".join(text.split())
    assert rc == 0, out
    n = len(list(yield_checks(registry.ALGORITHMS[name])))
    assert f"{name}: {n} of {n} checks passed." in out and "FAIL" not in out
    assert "PASS shapes_and_finite: after INIT and after each update" in out
    assert "PASS solution_class: ridge family: W_ is the direct ridge solution" in out
    assert "PASS pickle_midway" in out and "PASS capacity" in out


def test_check_command_passes_a_users_node_learner_by_dotted_path(capsys):
    path = f"{__name__}:DirectRidgeNodes"
    rc, text = run_cli(["check", path], capsys)
    out = " ".join(text.split())
    assert rc == 0, out
    assert "PASS solution_class" in out and "12 of 12 checks passed" in out


def test_check_command_fails_a_broken_node_learner(capsys):
    rc, text = run_cli(["check", f"{__name__}:WrongShapes"], capsys)
    out = " ".join(text.split())
    assert rc == 1, out
    assert "FAIL shapes_and_finite" in out
    assert "problem: W_ has shape (20, 3) after step 1, not (60, 3)" in out
    assert "FAIL solution_class" in out and "FAIL learns" in out
    assert "PASS docstring" in out and "PASS capacity" in out
    assert "Traceback" not in out


def test_check_command_with_params_on_a_node_learner(capsys):
    rc, text = run_cli(["check", "d_rdg", "--param", "lam=0.5"], capsys)
    assert rc == 0 and "12 of 12 checks passed" in " ".join(text.split())
    rc, text = run_cli(["check", "d_rdg", "--param", "lam=-1"], capsys)
    assert rc == 2 and "lam" in text


def test_failing_node_checks_say_what_differs():
    """The node checks' messages are in words (not NumPy's array report)."""
    by_name = {r.check: r for r in run_checks(ForgetsWhenPickled)}
    r = by_name["pickle_midway"]
    assert not r.ok and "a pickled and unpickled copy and the original differ in W_" in r.message
    assert "entries differ" in r.message and "Arrays are not equal" not in r.message
    assert r.description.startswith("a learner pickled after an update")


def test_node_learners_refuse_the_prequential_interface():
    learner = registry.ALGORITHMS["bls_chol2"]()
    with pytest.raises(TypeError, match="incremental-nodes"):
        learner.predict_one(np.zeros(3))


def test_prequential_protocol_refuses_node_learners():
    from streamlearn.protocols.prequential_classification import PrequentialClassification

    why = PrequentialClassification().incompatibility(registry.ALGORITHMS["d_rdg"])
    assert why == ("it is tagged 'grows_on_split' (grows its structure on a fixed train/test "
                   "split, not prequentially): it grows on a fixed train/test split; use a "
                   "split protocol")
