"""River regressors behind the streamlearn learner interface (multivariate regression
streams: River's and MOA's usual regression baselines).

Each adapter converts the float64 vector ``x`` to River's dict ``{i: float(x[i])}`` (the
key list is built once in ``reset``), passes the target as a Python float and returns a
Python float. While River has learned nothing its regressors predict 0.0 (the adapters
keep that; ``None`` would also read as 0.0).

Each puts River's online ``preprocessing.StandardScaler`` in front of the model by default
(``standardize``), as River's own examples of these models do: SGD on raw features of
very different scales diverges, in the linear model and in the trees' linear leaf models
alike (measured on TrumpApproval, whose ordinal date is ~7e5: without the scaler the
Hoeffding tree regressor's RMSE is 1.5e10). The scaler's running mean and variance are
updated when the pipeline learns, after the prediction.

River itself is imported lazily in ``reset`` so that ``streamlearn list`` stays fast.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np

from streamlearn.base import Regressor
from streamlearn.params import AnyOf, Interval, OfType, Options
from streamlearn.registry import register_algorithm

__all__ = ["ARFRegressor", "HoeffdingTreeRegressor", "LinearRegression", "RiverRegressor"]

_REG_LEAF_PREDICTION = Options(("mean", "model", "adaptive"))
_SEED = Interval(None, None, integer=True, allow_none=True)
_TREE_CONSTRAINTS: dict[str, Any] = {
    "grace_period": Interval(1, None, integer=True),
    "max_depth": Interval(1, None, integer=True, allow_none=True),
    "delta": Interval(0.0, 1.0, closed="neither"),
    "tau": Interval(0.0, None),
    "leaf_prediction": _REG_LEAF_PREDICTION,
    "model_selector_decay": Interval(0.0, 1.0, closed="neither"),
    "min_samples_split": Interval(2, None, integer=True),
    "binary_split": OfType((bool,)),
    "max_size": Interval(0.0, None, closed="neither"),
    "standardize": OfType((bool,)),
}


class RiverRegressor(Regressor):
    """Shared adapter: wraps a River regressor built by ``_make_model`` in ``reset``,
    behind River's online standard scaler when ``standardize`` is true."""

    standardize: bool

    def _make_model(self, n_features: int) -> Any:
        raise NotImplementedError

    def _river_params(self) -> dict[str, Any]:
        """The parameters River's model takes (all but ``standardize``)."""
        return {k: v for k, v in self.get_params().items() if k != "standardize"}

    def reset(self, n_features: int, n_classes: int | None) -> None:
        """Build a fresh River model for ``n_features`` features."""
        from river import preprocessing

        self.n_features_ = int(n_features)
        self.keys_ = list(range(self.n_features_))
        model = self._make_model(self.n_features_)
        self.model_ = preprocessing.StandardScaler() | model if self.standardize else model

    def _to_dict(self, x: np.ndarray) -> dict[int, float]:
        return dict(zip(self.keys_, x.tolist(), strict=True))

    def predict_one(self, x: np.ndarray) -> float:
        """River's prediction as a float (0.0 while River has nothing to predict)."""
        y_pred = self.model_.predict_one(self._to_dict(x))
        return 0.0 if y_pred is None else float(y_pred)

    def learn_one(self, x: np.ndarray, y: Any) -> None:
        self.model_.learn_one(self._to_dict(x), float(y))

    def model_bytes(self) -> int:
        """River's own estimate of the model's memory (bytes); 0 before ``reset``."""
        model = getattr(self, "model_", None)
        return 0 if model is None else int(model._raw_memory_usage)


@register_algorithm("linear_regression")
class LinearRegression(RiverRegressor):
    """Online linear least squares from River (river.linear_model.LinearRegression): SGD on
    the squared loss, by default behind River's online standard scaler.

    Deterministic (zero initial weights), so it has no ``seed``.

    Parameters
    ----------
    lr
        Learning rate of River's ``optim.SGD`` on the weights (River's default 0.01).
    l2
        Amount of L2 regularisation.
    l1
        Amount of L1 regularisation.
    intercept_lr
        Learning rate of the intercept.
    clip_gradient
        Clips the absolute value of each gradient value.
    standardize
        Put River's ``preprocessing.StandardScaler`` (running mean and variance) in front.

    References
    ----------
    [^1]: River, ``linear_model.LinearRegression``; stochastic gradient descent on the
          squared loss (L. Bottou, Online learning and stochastic approximations, 1998).
    """

    _constraints: ClassVar[dict[str, Any]] = {
        "lr": Interval(0.0, None, closed="neither"),
        "l2": Interval(0.0, None),
        "l1": Interval(0.0, None),
        "intercept_lr": Interval(0.0, None),
        "clip_gradient": Interval(0.0, None, closed="neither"),
        "standardize": OfType((bool,)),
    }

    def __init__(self, *, lr: float = 0.01, l2: float = 0.0, l1: float = 0.0,
                 intercept_lr: float = 0.01, clip_gradient: float = 1e12,
                 standardize: bool = True) -> None:
        self.lr = lr
        self.l2 = l2
        self.l1 = l1
        self.intercept_lr = intercept_lr
        self.clip_gradient = clip_gradient
        self.standardize = standardize
        self._validate_params()

    @property  # type: ignore[misc]
    def fits_intercept(self) -> bool:  # type: ignore[override]
        """River's intercept (``intercept_lr > 0``), or the scaler's running mean in front
        (an affine map of the raw inputs)."""
        return self.intercept_lr > 0 or bool(self.standardize)

    def _make_model(self, n_features: int) -> Any:
        from river import linear_model, optim

        return linear_model.LinearRegression(
            optimizer=optim.SGD(self.lr), l2=self.l2, l1=self.l1,
            intercept_lr=self.intercept_lr, clip_gradient=self.clip_gradient)

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield {}
        yield {"lr": 0.05, "l2": 0.001, "standardize": False}


@register_algorithm("hoeffding_tree_regressor")
class HoeffdingTreeRegressor(RiverRegressor):
    """Hoeffding Tree regressor (FIMT-DD without drift adaptation) from River
    (river.tree.HoeffdingTreeRegressor), River defaults: variance-reduction splits, leaves
    predicting the mean, a linear model, or whichever has erred less (``adaptive``).

    Deterministic, so it has no ``seed``.

    Parameters
    ----------
    grace_period
        Samples a leaf observes between split attempts.
    max_depth
        Maximum tree depth (``None``: unlimited).
    delta
        Significance level of the Hoeffding bound.
    tau
        Tie-breaking threshold.
    leaf_prediction
        ``"mean"``, ``"model"`` (River's linear regression) or ``"adaptive"``.
    model_selector_decay
        Fading factor of the errors ``adaptive`` leaves compare.
    min_samples_split
        Samples a split must leave in each branch.
    binary_split
        Only binary splits of nominal features.
    max_size
        Maximum size of the tree in MiB.
    standardize
        Put River's ``preprocessing.StandardScaler`` (running mean and variance) in front.

    References
    ----------
    [^1]: E. Ikonomovska, J. Gama and S. Džeroski. Learning model trees from evolving data
          streams. Data Mining and Knowledge Discovery 23(1), 2011.
    """

    _constraints: ClassVar[dict[str, Any]] = dict(_TREE_CONSTRAINTS)

    def __init__(self, *, grace_period: int = 200, max_depth: int | None = None,
                 delta: float = 1e-7, tau: float = 0.05, leaf_prediction: str = "adaptive",
                 model_selector_decay: float = 0.95, min_samples_split: int = 5,
                 binary_split: bool = False, max_size: float = 500.0,
                 standardize: bool = True) -> None:
        self.grace_period = grace_period
        self.max_depth = max_depth
        self.delta = delta
        self.tau = tau
        self.leaf_prediction = leaf_prediction
        self.model_selector_decay = model_selector_decay
        self.min_samples_split = min_samples_split
        self.binary_split = binary_split
        self.max_size = max_size
        self.standardize = standardize
        self._validate_params()

    def _make_model(self, n_features: int) -> Any:
        from river import tree

        return tree.HoeffdingTreeRegressor(**self._river_params())  # River's own names

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield {}
        yield {"grace_period": 50, "leaf_prediction": "mean", "standardize": False}


@register_algorithm("arf_regressor")
class ARFRegressor(RiverRegressor):
    """Adaptive Random Forest regressor from River (river.forest.ARFRegressor), River
    defaults: online bagging (Poisson(``lambda_value``)) of Hoeffding tree regressors on
    random feature subsets, each with ADWIN drift (0.001) and warning (0.01) detectors.

    Parameters
    ----------
    n_models
        Number of trees.
    max_features
        Features considered per split: ``"sqrt"``, ``"log2"``, an int, a fraction in (0, 1]
        or ``None`` (all).
    aggregation_method
        ``"median"`` or ``"mean"`` of the trees' predictions.
    lambda_value
        Poisson parameter of online bagging.
    disable_weighted_vote
        Unweighted aggregation (River's default True).
    grace_period, max_depth, delta, tau, leaf_prediction, model_selector_decay,
    min_samples_split, binary_split, max_size
        The trees' parameters, as :class:`HoeffdingTreeRegressor`'s.
    standardize
        Put River's ``preprocessing.StandardScaler`` (running mean and variance) in front.
    seed
        Random seed (``None``: not reproducible).

    References
    ----------
    [^1]: H. M. Gomes, J. P. Barddal, L. E. B. Ferreira and A. Bifet. Adaptive random
          forests for data stream regression. ESANN 2018.
    """

    _constraints: ClassVar[dict[str, Any]] = {
        **_TREE_CONSTRAINTS,
        "n_models": Interval(1, None, integer=True),
        "max_features": AnyOf((Options(("sqrt", "log2", None)),
                                Interval(1, None, integer=True),
                                Interval(0.0, 1.0, closed="right"))),
        "aggregation_method": Options(("median", "mean")),
        "lambda_value": Interval(0, None, closed="neither"),
        "disable_weighted_vote": OfType((bool,)),
        "seed": _SEED,
    }

    def __init__(self, *, n_models: int = 10, max_features: str | int | float | None = "sqrt",
                 aggregation_method: str = "median", lambda_value: int = 6,
                 disable_weighted_vote: bool = True, grace_period: int = 50,
                 max_depth: int | None = None, delta: float = 0.01, tau: float = 0.05,
                 leaf_prediction: str = "adaptive", model_selector_decay: float = 0.95,
                 min_samples_split: int = 5, binary_split: bool = False,
                 max_size: float = 500.0, standardize: bool = True,
                 seed: int | None = None) -> None:
        self.n_models = n_models
        self.max_features = max_features
        self.aggregation_method = aggregation_method
        self.lambda_value = lambda_value
        self.disable_weighted_vote = disable_weighted_vote
        self.grace_period = grace_period
        self.max_depth = max_depth
        self.delta = delta
        self.tau = tau
        self.leaf_prediction = leaf_prediction
        self.model_selector_decay = model_selector_decay
        self.min_samples_split = min_samples_split
        self.binary_split = binary_split
        self.max_size = max_size
        self.standardize = standardize
        self.seed = seed
        self._validate_params()

    def _make_model(self, n_features: int) -> Any:
        from river import forest

        return forest.ARFRegressor(**self._river_params())  # River's own names

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield {"n_models": 3, "seed": 1}
