"""River baselines behind the streamlearn learner interface.

The Online-BLS paper compares against River's Hoeffding Tree and Adaptive Random Forest
(Online-BLS §5.4, Tables 4-7); leveraging bagging, passive-aggressive and the perceptron are
common extra references. Each adapter converts the float64 vector ``x`` to River's dict
``{i: float(x[i])}`` (the key list is built once in ``reset``), passes labels as Python ints
(or bools for River's binary linear models) and returns a Python ``int``.

While River has learned nothing it returns ``None`` from ``predict_one``; the adapters then
predict class 0 (a fixed, documented choice, so the first prequential predictions are
deterministic).

River itself is imported lazily in ``reset`` so that ``streamlearn list`` stays fast.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np

from streamlearn.base import Classifier
from streamlearn.errors import UserError
from streamlearn.params import AnyOf, Interval, OfType, Options
from streamlearn.registry import register_algorithm

__all__ = [
    "ARF",
    "HoeffdingTree",
    "LeveragingBagging",
    "PassiveAggressive",
    "Perceptron",
    "RiverClassifier",
]

_LEAF_PREDICTION = Options(("mc", "nb", "nba"))
_SPLIT_CRITERION = Options(("info_gain", "gini", "hellinger"))
_SEED = Interval(None, None, integer=True, allow_none=True)


class RiverClassifier(Classifier):
    """Shared adapter: wraps a River classifier built by ``_make_model`` in ``reset``.

    Subclasses implement ``_make_model(n_features, n_classes)``. ``binary_only`` marks River
    models that are binary (bool targets): for ``n_classes == 2`` labels are passed as
    ``bool(y)``; for ``n_classes > 2`` the model is wrapped in
    ``river.multiclass.OneVsRestClassifier`` and labels are passed as ints.
    """

    binary_only: ClassVar[bool] = False

    def _make_model(self, n_features: int, n_classes: int) -> Any:
        raise NotImplementedError

    def reset(self, n_features: int, n_classes: int | None) -> None:
        """Build a fresh River model for ``n_features`` features and ``n_classes`` classes."""
        if n_classes is None or n_classes < 2:
            raise UserError(
                f"{type(self).__name__} is a classifier and needs n_classes >= 2; "
                f"got {n_classes!r}."
            )
        self.n_features_ = int(n_features)
        self.n_classes_ = int(n_classes)
        self.keys_ = list(range(self.n_features_))
        model = self._make_model(self.n_features_, self.n_classes_)
        self.bool_labels_ = self.binary_only and self.n_classes_ == 2
        if self.binary_only and self.n_classes_ > 2:
            from river import multiclass

            model = multiclass.OneVsRestClassifier(model)
        self.model_ = model

    def _to_dict(self, x: np.ndarray) -> dict[int, float]:
        return dict(zip(self.keys_, x.tolist(), strict=True))

    def predict_one(self, x: np.ndarray) -> int:
        """River's prediction as an int; class 0 while River has nothing to predict."""
        y_pred = self.model_.predict_one(self._to_dict(x))
        if y_pred is None:
            return 0
        return int(y_pred)

    def learn_one(self, x: np.ndarray, y: Any) -> None:
        label: int | bool = bool(y) if self.bool_labels_ else int(y)
        self.model_.learn_one(self._to_dict(x), label)

    def model_bytes(self) -> int:
        """River's own estimate of the model's memory (bytes); 0 before ``reset``."""
        model = getattr(self, "model_", None)
        return 0 if model is None else int(model._raw_memory_usage)


@register_algorithm("hoeffding_tree")
class HoeffdingTree(RiverClassifier):
    """Hoeffding Tree (VFDT) from River (river.tree.HoeffdingTreeClassifier), River defaults.

    Deterministic, so it has no ``seed``. Parameters are River's, with River's defaults.

    Parameters
    ----------
    grace_period
        Samples a leaf observes between split attempts.
    max_depth
        Maximum tree depth (``None``: unlimited).
    split_criterion
        ``"info_gain"``, ``"gini"`` or ``"hellinger"``.
    delta
        Significance level of the Hoeffding bound.
    tau
        Tie-breaking threshold.
    leaf_prediction
        ``"mc"`` (majority class), ``"nb"`` (naive Bayes) or ``"nba"`` (adaptive naive Bayes).
    nb_threshold
        Samples a leaf needs before naive Bayes is used.

    References
    ----------
    [^1]: G. Hulten, L. Spencer and P. Domingos. Mining time-changing data streams. KDD 2001.
    """

    _constraints: ClassVar[dict[str, Any]] = {
        "grace_period": Interval(1, None, integer=True),
        "max_depth": Interval(1, None, integer=True, allow_none=True),
        "split_criterion": _SPLIT_CRITERION,
        "delta": Interval(0.0, 1.0, closed="neither"),
        "tau": Interval(0.0, None),
        "leaf_prediction": _LEAF_PREDICTION,
        "nb_threshold": Interval(0, None, integer=True),
    }

    def __init__(
        self,
        *,
        grace_period: int = 200,
        max_depth: int | None = None,
        split_criterion: str = "info_gain",
        delta: float = 1e-7,
        tau: float = 0.05,
        leaf_prediction: str = "nba",
        nb_threshold: int = 0,
    ) -> None:
        self.grace_period = grace_period
        self.max_depth = max_depth
        self.split_criterion = split_criterion
        self.delta = delta
        self.tau = tau
        self.leaf_prediction = leaf_prediction
        self.nb_threshold = nb_threshold
        self._validate_params()

    def _make_model(self, n_features: int, n_classes: int) -> Any:
        from river import tree

        return tree.HoeffdingTreeClassifier(**self.get_params())  # River's own names

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield {}
        yield {"grace_period": 50, "leaf_prediction": "mc"}


@register_algorithm("arf")
class ARF(RiverClassifier):
    """Adaptive Random Forest from River (river.forest.ARFClassifier), River defaults.

    Drift and warning detectors are River's defaults (ADWIN). ``seed`` is River's seed.

    Parameters
    ----------
    n_models
        Number of trees.
    max_features
        Features considered per split: ``"sqrt"``, ``"log2"``, an int, a fraction in (0, 1]
        or ``None`` (all).
    lambda_value
        Poisson parameter of online bagging.
    grace_period
        Samples a leaf observes between split attempts.
    max_depth
        Maximum tree depth (``None``: unlimited).
    split_criterion
        ``"info_gain"``, ``"gini"`` or ``"hellinger"``.
    delta
        Significance level of the Hoeffding bound.
    tau
        Tie-breaking threshold.
    leaf_prediction
        ``"mc"``, ``"nb"`` or ``"nba"``.
    disable_weighted_vote
        Use unweighted voting.
    seed
        Random seed (``None``: not reproducible).

    References
    ----------
    [^1]: H. M. Gomes et al. Adaptive random forests for evolving data stream
          classification. Machine Learning 106, 2017.
    """

    _constraints: ClassVar[dict[str, Any]] = {
        "n_models": Interval(1, None, integer=True),
        "max_features": AnyOf(
            (
                Options(("sqrt", "log2", None)),
                Interval(1, None, integer=True),
                Interval(0.0, 1.0, closed="right"),
            )
        ),
        "lambda_value": Interval(0, None, closed="neither"),
        "grace_period": Interval(1, None, integer=True),
        "max_depth": Interval(1, None, integer=True, allow_none=True),
        "split_criterion": _SPLIT_CRITERION,
        "delta": Interval(0.0, 1.0, closed="neither"),
        "tau": Interval(0.0, None),
        "leaf_prediction": _LEAF_PREDICTION,
        "disable_weighted_vote": OfType((bool,)),
        "seed": _SEED,
    }

    def __init__(
        self,
        *,
        n_models: int = 10,
        max_features: str | int | float | None = "sqrt",
        lambda_value: int = 6,
        grace_period: int = 50,
        max_depth: int | None = None,
        split_criterion: str = "info_gain",
        delta: float = 0.01,
        tau: float = 0.05,
        leaf_prediction: str = "nba",
        disable_weighted_vote: bool = False,
        seed: int | None = None,
    ) -> None:
        self.n_models = n_models
        self.max_features = max_features
        self.lambda_value = lambda_value
        self.grace_period = grace_period
        self.max_depth = max_depth
        self.split_criterion = split_criterion
        self.delta = delta
        self.tau = tau
        self.leaf_prediction = leaf_prediction
        self.disable_weighted_vote = disable_weighted_vote
        self.seed = seed
        self._validate_params()

    def _make_model(self, n_features: int, n_classes: int) -> Any:
        from river import forest

        return forest.ARFClassifier(**self.get_params())  # River's own names

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield {"n_models": 3, "seed": 1}


@register_algorithm("leveraging_bagging")
class LeveragingBagging(RiverClassifier):
    """Leveraging Bagging of Hoeffding Trees from River (river.ensemble), River defaults.

    The base model is ``river.tree.HoeffdingTreeClassifier`` with the ``grace_period``,
    ``delta`` and ``leaf_prediction`` given here (River's defaults otherwise).

    Parameters
    ----------
    n_models
        Number of trees.
    w
        Poisson parameter of the resampling weights.
    adwin_delta
        Confidence of each member's ADWIN drift detector.
    bagging_method
        ``"bag"``, ``"me"``, ``"half"``, ``"wt"`` or ``"subag"`` (River's options).
    grace_period
        Base tree: samples a leaf observes between split attempts.
    delta
        Base tree: significance level of the Hoeffding bound.
    leaf_prediction
        Base tree: ``"mc"``, ``"nb"`` or ``"nba"``.
    seed
        Random seed (``None``: not reproducible).

    References
    ----------
    [^1]: A. Bifet, G. Holmes and B. Pfahringer. Leveraging bagging for evolving data
          streams. ECML PKDD 2010.
    """

    _constraints: ClassVar[dict[str, Any]] = {
        "n_models": Interval(1, None, integer=True),
        "w": Interval(0, None, closed="neither"),
        "adwin_delta": Interval(0.0, 1.0, closed="neither"),
        "bagging_method": Options(("bag", "me", "half", "wt", "subag")),
        "grace_period": Interval(1, None, integer=True),
        "delta": Interval(0.0, 1.0, closed="neither"),
        "leaf_prediction": _LEAF_PREDICTION,
        "seed": _SEED,
    }

    def __init__(
        self,
        *,
        n_models: int = 10,
        w: float = 6,
        adwin_delta: float = 0.002,
        bagging_method: str = "bag",
        grace_period: int = 200,
        delta: float = 1e-7,
        leaf_prediction: str = "nba",
        seed: int | None = None,
    ) -> None:
        self.n_models = n_models
        self.w = w
        self.adwin_delta = adwin_delta
        self.bagging_method = bagging_method
        self.grace_period = grace_period
        self.delta = delta
        self.leaf_prediction = leaf_prediction
        self.seed = seed
        self._validate_params()

    def _make_model(self, n_features: int, n_classes: int) -> Any:
        from river import ensemble, tree

        base = tree.HoeffdingTreeClassifier(
            grace_period=self.grace_period,
            delta=self.delta,
            leaf_prediction=self.leaf_prediction,
        )
        return ensemble.LeveragingBaggingClassifier(
            model=base,
            n_models=self.n_models,
            w=self.w,
            adwin_delta=self.adwin_delta,
            bagging_method=self.bagging_method,
            seed=self.seed,
        )

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield {"n_models": 3, "seed": 1}


@register_algorithm("passive_aggressive")
class PassiveAggressive(RiverClassifier):
    """Passive-Aggressive from River (linear_model.PAClassifier); one-vs-rest if > 2 classes.

    River's ``PAClassifier`` is a binary linear model (hinge loss on targets mapped to
    -1/+1). For 2 classes labels 0/1 are passed as ``False``/``True``; for more classes the
    model is wrapped in ``river.multiclass.OneVsRestClassifier`` (one PA per class, argmax of
    the per-class sigmoid scores). Deterministic, so it has no ``seed``.

    Parameters
    ----------
    C
        Aggressiveness parameter (used by PA-I and PA-II).
    mode
        0 (PA), 1 (PA-I) or 2 (PA-II); River's default is 1.
    learn_intercept
        Learn a bias term.

    References
    ----------
    [^1]: K. Crammer, O. Dekel, J. Keshet, S. Shalev-Shwartz and Y. Singer. Online
          passive-aggressive algorithms. JMLR 7, 2006, eqs. (6)-(8).
    """

    binary_only: ClassVar[bool] = True

    _constraints: ClassVar[dict[str, Any]] = {
        "C": Interval(0.0, None, closed="neither"),
        "mode": Options((0, 1, 2)),
        "learn_intercept": OfType((bool,)),
    }

    def __init__(self, *, C: float = 1.0, mode: int = 1, learn_intercept: bool = True) -> None:
        self.C = C
        self.mode = mode
        self.learn_intercept = learn_intercept
        self._validate_params()

    def _make_model(self, n_features: int, n_classes: int) -> Any:
        from river import linear_model

        return linear_model.PAClassifier(**self.get_params())  # River's own names

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield {}
        yield {"C": 0.1, "mode": 2}


@register_algorithm("perceptron")
class Perceptron(RiverClassifier):
    """Perceptron from River (river.linear_model.Perceptron); one-vs-rest if > 2 classes.

    River's ``Perceptron`` is a binary linear model (SGD with learning rate 1 on the hinge
    loss with threshold 0). For 2 classes labels 0/1 are passed as ``False``/``True``; for
    more classes the model is wrapped in ``river.multiclass.OneVsRestClassifier``.
    Deterministic, so it has no ``seed``.

    Parameters
    ----------
    l2
        Amount of L2 regularisation.
    clip_gradient
        Clips the absolute value of each gradient value.

    References
    ----------
    [^1]: F. Rosenblatt. The perceptron: a probabilistic model for information storage and
          organization in the brain. Psychological Review 65(6), 1958.
    """

    binary_only: ClassVar[bool] = True

    _constraints: ClassVar[dict[str, Any]] = {
        "l2": Interval(0.0, None),
        "clip_gradient": Interval(0.0, None, closed="neither"),
    }

    def __init__(self, *, l2: float = 0.0, clip_gradient: float = 1e12) -> None:
        self.l2 = l2
        self.clip_gradient = clip_gradient
        self._validate_params()

    def _make_model(self, n_features: int, n_classes: int) -> Any:
        from river import linear_model

        return linear_model.Perceptron(**self.get_params())  # River's own names

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield {}
        yield {"l2": 0.01}
