"""MOA's regressors as baselines, through CapyMOA (optional extra), for the
``prequential-regression`` protocol on multivariate streams (x_t -> y_t).

FIMT-DD and the Adaptive Random Forest regressor are the MOA regressors the
stream-regression literature compares against. ``predict_one`` gives MOA an instance
without a target (a CapyMOA ``Instance``: features ``x0..x{d-1}``) and returns its
prediction as a float, 0.0 while MOA has nothing to predict (CapyMOA's convention, as
River's regressors); ``learn_one`` trains on a ``RegressionInstance`` (numeric target
``y``). The prediction never sees the target, by construction.

That is why MOA's SOKNL (capymoa.regressor.SOKNL) is not offered: its
``getVotesForInstance`` scores every candidate k against the target of the instance it is
predicting and returns the prediction of the k best *including that sample*, so under
MOA's/CapyMOA's own prequential evaluation it reads the label it predicts; without the
target its error estimators receive NaN and the choice of k is no longer MOA's (measured
on Friedman, 600 samples, 3 trees: RMSE over the second half 3.34 with the label, 3.68
without; with ``disable_self_optimising`` 10.8).

The CapyMOA plumbing (availability and its message, schema, seed, pickling through Java
serialisation) is :class:`~streamlearn.algorithms.external.moa_baselines.MOALearner`'s,
shared with MOA's classifiers. Parameters keep CapyMOA's names and MOA's defaults;
``seed`` is MOA's random seed (the runner derives one per run).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np

from streamlearn.algorithms.external.moa_baselines import MOALearner
from streamlearn.base import Regressor
from streamlearn.params import Interval, Options
from streamlearn.registry import register_algorithm

__all__ = ["MOARegressor"]

_SEED = Interval(0, None, integer=True)
_BOOL = Options((False, True))


class MOARegressor(MOALearner, Regressor):
    """Adapter of MOA's regressors: a numeric target, MOA's prediction as a float."""

    capymoa_module: ClassVar[str] = "capymoa.regressor"

    def reset(self, n_features: int, n_classes: int | None) -> None:
        """A fresh MOA regressor for ``n_features`` numeric features."""
        self._check_available()
        self.n_classes_ = None
        self._build(n_features, None)

    def predict_one(self, x: np.ndarray) -> float:
        """MOA's prediction for an instance without a target (0.0 while MOA has nothing
        to predict)."""
        from capymoa.core import Instance

        pred = self.model_.predict(Instance.from_array(self.schema_, x))
        return 0.0 if pred is None else float(pred)

    def learn_one(self, x: np.ndarray, y: Any) -> None:
        from capymoa.core import RegressionInstance

        self.model_.train(RegressionInstance.from_array(self.schema_, x, float(y)))


@register_algorithm("moa_fimtdd")
class MOAFIMTDD(MOARegressor):
    """FIMT-DD from MOA (moa.classifiers.trees.FIMTDD): a Hoeffding-bound model tree
    (variance reduction splits, perceptrons in the leaves) that grows alternate subtrees
    where a Page-Hinkley test detects drift; MOA defaults.

    Parameters
    ----------
    grace_period
        Samples a leaf observes between split attempts.
    split_confidence
        Allowed error of a split decision (the Hoeffding bound's delta).
    tie_threshold
        Threshold below which a split is forced to break ties.
    page_hinckley_alpha
        Alpha of the Page-Hinkley change tests.
    page_hinckley_threshold
        Threshold of the Page-Hinkley change tests.
    alternate_tree_fading_factor
        Fading factor of the error comparing an alternate subtree with the original.
    alternate_tree_t_min
        Samples before an alternate subtree may replace the original.
    alternate_tree_time
        Samples after which an alternate subtree that has not replaced the original is
        discarded.
    regression_tree
        True: a regression tree (mean in the leaves) instead of a model tree.
    learning_ratio
        Learning rate of the leaves' perceptrons.
    learning_ratio_decay_factor
        Decay of that learning rate (unused when it is constant).
    learning_ratio_const
        True: keep the learning rate constant.
    seed
        MOA's random seed.

    References
    ----------
    [^1]: E. Ikonomovska, J. Gama and S. Džeroski. Learning model trees from evolving
        data streams. Data Mining and Knowledge Discovery 23(1), 2011.
    """

    capymoa_class = "FIMTDD"
    _constraints: ClassVar[dict[str, Any]] = {
        "grace_period": Interval(1, None, integer=True),
        "split_confidence": Interval(0.0, 1.0, closed="neither"),
        "tie_threshold": Interval(0.0, None),
        "page_hinckley_alpha": Interval(0.0, None),
        "page_hinckley_threshold": Interval(0, None, integer=True),
        "alternate_tree_fading_factor": Interval(0.0, 1.0, closed="right"),
        "alternate_tree_t_min": Interval(0, None, integer=True),
        "alternate_tree_time": Interval(0, None, integer=True),
        "regression_tree": _BOOL,
        "learning_ratio": Interval(0.0, None),
        "learning_ratio_decay_factor": Interval(0.0, None),
        "learning_ratio_const": _BOOL,
        "seed": _SEED,
    }

    def __init__(self, *, grace_period: int = 200, split_confidence: float = 1e-7,
                 tie_threshold: float = 0.05, page_hinckley_alpha: float = 0.005,
                 page_hinckley_threshold: int = 50,
                 alternate_tree_fading_factor: float = 0.995,
                 alternate_tree_t_min: int = 150, alternate_tree_time: int = 1500,
                 regression_tree: bool = False, learning_ratio: float = 0.02,
                 learning_ratio_decay_factor: float = 0.001,
                 learning_ratio_const: bool = False, seed: int = 1) -> None:
        self.grace_period = grace_period
        self.split_confidence = split_confidence
        self.tie_threshold = tie_threshold
        self.page_hinckley_alpha = page_hinckley_alpha
        self.page_hinckley_threshold = page_hinckley_threshold
        self.alternate_tree_fading_factor = alternate_tree_fading_factor
        self.alternate_tree_t_min = alternate_tree_t_min
        self.alternate_tree_time = alternate_tree_time
        self.regression_tree = regression_tree
        self.learning_ratio = learning_ratio
        self.learning_ratio_decay_factor = learning_ratio_decay_factor
        self.learning_ratio_const = learning_ratio_const
        self.seed = seed
        self._validate_params()

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield {"grace_period": 50}
        yield {"grace_period": 50, "regression_tree": True}


@register_algorithm("moa_arf_regressor")
class MOAARFRegressor(MOARegressor):
    """Adaptive Random Forest regressor from MOA
    (moa.classifiers.meta.AdaptiveRandomForestRegressor): online bagging of FIMT-DD-style
    trees (CapyMOA's default member: ARFFIMTDD, grace period 50, split confidence 0.01)
    on random feature subsets, each tree replaced on drift (ADWIN).

    MOA's defaults (100 trees, 60 % of the features per split, lambda 6) except that the
    number of trees is a parameter configs usually lower.

    Parameters
    ----------
    ensemble_size
        Number of trees.
    max_features
        Features considered per split: a fraction in (0, 1].
    lambda_param
        Poisson parameter of online bagging.
    disable_drift_detection
        True: no drift detection (no tree is ever replaced).
    disable_background_learner
        True: no background trees grown on a warning.
    seed
        MOA's random seed.

    References
    ----------
    [^1]: H. M. Gomes, J. P. Barddal, L. E. B. Ferreira and A. Bifet. Adaptive random
        forests for data stream regression. ESANN 2018.
    """

    capymoa_class = "AdaptiveRandomForestRegressor"
    _constraints: ClassVar[dict[str, Any]] = {
        "ensemble_size": Interval(1, None, integer=True),
        "max_features": Interval(0.0, 1.0, closed="right"),
        "lambda_param": Interval(0.0, None, closed="neither"),
        "disable_drift_detection": _BOOL,
        "disable_background_learner": _BOOL,
        "seed": _SEED,
    }

    def __init__(self, *, ensemble_size: int = 100, max_features: float = 0.6,
                 lambda_param: float = 6.0, disable_drift_detection: bool = False,
                 disable_background_learner: bool = False, seed: int = 1) -> None:
        self.ensemble_size = ensemble_size
        self.max_features = max_features
        self.lambda_param = lambda_param
        self.disable_drift_detection = disable_drift_detection
        self.disable_background_learner = disable_background_learner
        self.seed = seed
        self._validate_params()

    def _capymoa_params(self) -> dict[str, Any]:
        params = super()._capymoa_params()
        # CapyMOA reads an int max_features as a number of features, a float as a fraction
        params["max_features"] = float(params["max_features"])
        return params

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield {"ensemble_size": 3}
        yield {"ensemble_size": 3, "max_features": 1, "disable_drift_detection": True}
