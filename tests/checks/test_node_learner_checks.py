"""Every registered node-incremental learner × every node conformance check
(streamlearn.checks.node_learners), plus the generic structural checks."""

from __future__ import annotations

import pytest

from streamlearn import components, registry
from streamlearn.algorithms.bls._node_incremental import NodeIncrementalLearner
from streamlearn.checks.node_learners import yield_node_checks

components.load_all()

NODE_LEARNERS = sorted((n, c) for n, c in registry.ALGORITHMS.items()
                       if isinstance(c, type) and issubclass(c, NodeIncrementalLearner))


def _cases():
    for name, cls in NODE_LEARNERS:
        for i, params in enumerate(cls._test_params()):
            for check_name, check in yield_node_checks(cls):
                yield pytest.param(cls, dict(params), check, id=f"{name}[{i}]-{check_name}")


def test_the_six_algorithms_are_registered():
    assert {n for n, _ in NODE_LEARNERS} >= {"d_rdg", "bls_orig", "bls_exg_e", "bls_chol1",
                                             "bls_chol2", "bls_rinv"}


@pytest.mark.parametrize("cls,params,check", list(_cases()))
def test_node_conformance(cls, params, check):
    check(cls, params)


def test_node_learners_refuse_the_prequential_interface():
    import numpy as np

    learner = registry.ALGORITHMS["bls_chol2"]()
    with pytest.raises(TypeError, match="incremental-nodes"):
        learner.predict_one(np.zeros(3))


def test_prequential_protocol_refuses_node_learners():
    from streamlearn.protocols.prequential_classification import PrequentialClassification

    why = PrequentialClassification().incompatibility(registry.ALGORITHMS["d_rdg"])
    assert why is not None and "grows_on_split" in why
