"""Which registered classifiers the interop wrappers are checked on, and why the others
are not (River's rule: every learner is in the checked list or excluded with a reason)."""

from __future__ import annotations

from typing import Any

from streamlearn import components, registry

#: registered classifiers not wrapped in the tests, with the reason
EXCLUDED: dict[str, str] = {
    # River's and MOA's own learners: wrapping them back into River/CapyMOA is a circle
    "arf": "River's own learner (use river.forest.ARFClassifier)",
    "hoeffding_tree": "River's own learner (use river.tree.HoeffdingTreeClassifier)",
    "leveraging_bagging": "River's own learner (use river.ensemble.LeveragingBaggingClassifier)",
    "passive_aggressive": "River's own learner (use river.linear_model.PAClassifier)",
    "perceptron": "River's own learner (use river.linear_model.Perceptron)",
    "moa_arf": "MOA's own learner (use capymoa.classifier.AdaptiveRandomForestClassifier)",
    "moa_hoeffding_tree": "MOA's own learner (use capymoa.classifier.HoeffdingTree)",
    "moa_hoeffding_adaptive_tree": "MOA's own learner (capymoa.classifier.HoeffdingAdaptiveTree)",
    "moa_leveraging_bagging": "MOA's own learner (capymoa.classifier.LeveragingBagging)",
    "moa_naive_bayes": "MOA's own learner (use capymoa.classifier.NaiveBayes)",
    # learners that cannot take a class mid-stream exactly: River's checks feed two label
    # sets (Phishing's bools, ImageSegments' 7 strings) that no classes=(...) covers; they
    # run with their classes given (test_river.py::test_learner_without_growth_*)
    "ibls": "refuses new classes (its a @ W through BLAS is not column-exact); its memory "
            "also grows with every sample by design (River's bounded-memory check)",
    "ribls": "refuses new classes (W = K⁻¹V through BLAS is not column-exact)",
    "bls_cil": "refuses new classes (a @ W through BLAS is not column-exact)",
    "majority_class": "a reference rule of the kappa metrics (River has "
                      "dummy.PriorClassifier); no add_class",
    "no_change": "a reference rule of the kappa metrics (River has "
                 "dummy.NoChangeClassifier); no add_class",
}


def classifiers() -> list[str]:
    """Registered classifiers a plain test-then-train loop can run (node learners and
    regressors are refused by the wrappers themselves)."""
    components.load_all()
    out = []
    for name, cls in sorted(registry.ALGORITHMS.items()):
        if cls.task == "classification" and not (cls.all_tags() - {"binary_only", "scores",
                                                                    "reference"}):
            out.append(name)
    return out


def checked() -> list[str]:
    return [n for n in classifiers() if n not in EXCLUDED]


def small_params(name: str) -> dict[str, Any]:
    """The learner's first conformance-test parameters (small and seeded)."""
    return dict(next(iter(components.get_algorithm(name)._test_params())))
