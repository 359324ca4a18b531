"""MOA's reference implementations as baselines, through CapyMOA (optional extra).

MOA's Hoeffding tree and Adaptive Random Forest are the versions the stream-learning
literature cites, and they differ from River's (split evaluation, leaf models, drift
detectors, defaults). These adapters put MOA's learners behind the same array interface as
every other learner: each sample becomes a CapyMOA ``LabeledInstance`` (features
``x0..x{d-1}``, class values ``"0".."C-1"``), ``predict_one`` returns MOA's class index and
class 0 while MOA has nothing to predict (as the River adapters do).

Needs ``pip install streamlearn[moa]`` (CapyMOA, which bundles ``moa.jar``) and a Java
runtime (Java 11 or later; on Debian/Ubuntu ``apt-get install default-jre-headless``).
Without them the names are still listed; a config that uses them fails at validation with
the reason, and an entry marked ``optional: true`` is left out with a note.

Parameters keep MOA's names and defaults (as CapyMOA spells them); ``seed`` is MOA's
random seed (the runner derives one per run). ``MOALearner`` holds the CapyMOA plumbing
that MOA's regressors (moa_regressors.py) share with these classifiers.
"""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np

from streamlearn.base import Classifier, Learner
from streamlearn.errors import UserError
from streamlearn.params import Interval, Options
from streamlearn.registry import register_algorithm

__all__ = ["MOAClassifier", "MOALearner", "moa_unavailable_reason"]

_LEAF = Options(("MajorityClass", "NaiveBayes", "NaiveBayesAdaptive"))
_SPLIT = Options(("InfoGainSplitCriterion", "GiniSplitCriterion"))
_SEED = Interval(0, None, integer=True)

INSTALL_HINT = ("install the extra with `pip install 'streamlearn[moa]'` and a Java runtime "
                "(Debian/Ubuntu: `apt-get install default-jre-headless`)")


def _java_found() -> bool:
    home = os.environ.get("JAVA_HOME")
    if home and os.path.isfile(os.path.join(home, "bin", "java")):
        return True
    return shutil.which("java") is not None


@functools.lru_cache(maxsize=1)
def moa_unavailable_reason() -> str | None:
    """Why MOA's learners cannot run here (``None`` when they can): CapyMOA not installed,
    no Java runtime, or the JVM failing to start."""
    import importlib.util

    if importlib.util.find_spec("capymoa") is None:
        return f"CapyMOA is not installed; {INSTALL_HINT}"
    if not _java_found():
        return f"no Java runtime found (java on PATH or JAVA_HOME); {INSTALL_HINT}"
    try:
        import capymoa.classifier  # noqa: F401  (starts the JVM)
    except Exception as exc:  # JVM start-up or jar problems
        return f"CapyMOA could not start MOA ({type(exc).__name__}: {exc})"
    return None


class MOALearner(Learner):
    """The CapyMOA plumbing every MOA adapter shares: availability, the schema of
    ``n_features`` numeric features ``x0..x{d-1}`` and a target, the CapyMOA learner
    ``capymoa_class`` (of the module ``capymoa_module``) built from the parameters, and
    pickling.

    Subclasses set ``capymoa_class`` and list their parameters in ``__init__``; all of
    them except ``seed`` are passed to CapyMOA under the same name (``_capymoa_params``).
    """

    capymoa_module: ClassVar[str] = "capymoa.classifier"
    capymoa_class: ClassVar[str] = ""
    n_features_: int
    n_classes_: int | None

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return moa_unavailable_reason()

    def _check_available(self) -> None:
        reason = self.unavailable_reason()
        if reason is not None:
            raise UserError(f"{type(self).__name__} needs MOA: {reason}.")

    def _capymoa_params(self) -> dict[str, Any]:
        """The keyword arguments of the CapyMOA class (all parameters but ``seed``)."""
        params = self.get_params()
        params.pop("seed")
        return params

    def _build(self, n_features: int, classes: list[str] | None) -> None:
        """Set ``schema_`` and a fresh CapyMOA learner ``model_``: the target is nominal
        with the values ``classes``, or numeric (regression) when ``classes`` is None."""
        import importlib

        from capymoa.stream import Schema

        self.n_features_ = int(n_features)
        features = [f"x{i}" for i in range(self.n_features_)]
        if classes is None:
            self.schema_ = Schema.from_custom(features=[*features, "y"], target="y",
                                              name="streamlearn")
        else:
            self.schema_ = Schema.from_custom(features=[*features, "class"], target="class",
                                              categories={"class": classes},
                                              name="streamlearn")
        cls = getattr(importlib.import_module(self.capymoa_module), self.capymoa_class)
        seed = int(self.get_params()["seed"])
        # MOA's seed is a Java int; the runner's derived seeds are 32-bit unsigned
        self.model_ = cls(schema=self.schema_, random_seed=seed % 2**31,
                          **self._capymoa_params())

    # MOA's objects live in the JVM; pickling goes through Java serialisation, done by
    # MOA's own SerializeUtils (its class loader is the one that finds MOA's classes).
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        model = state.pop("model_", None)
        state.pop("schema_", None)
        if model is not None:
            import tempfile
            from pathlib import Path

            import jpype.imports  # noqa: F401  (enables `from java... import`)
            from java.io import File
            from moa.core import SerializeUtils

            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "learner.ser"
                SerializeUtils.writeToFile(File(str(path)), model.moa_learner)
                state["moa_bytes_"] = path.read_bytes()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        data = state.pop("moa_bytes_", None)
        self.__dict__.update(state)
        if data is None:
            return
        self.reset(self.n_features_, self.n_classes_)
        import tempfile
        from pathlib import Path

        import jpype.imports  # noqa: F401
        from java.io import File
        from moa.core import SerializeUtils

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "learner.ser"
            path.write_bytes(data)
            self.model_.moa_learner = SerializeUtils.readFromFile(File(str(path)))

    def model_bytes(self) -> int:
        """0: not measured. MOA measures its models with the SizeOf Java agent, which
        CapyMOA does not load (MOA would print a warning instead of a size)."""
        return 0


class MOAClassifier(MOALearner, Classifier):
    """Adapter of MOA's classifiers: class values ``"0".."C-1"``, MOA's class index as
    the prediction (class 0 while MOA has nothing to predict)."""

    def reset(self, n_features: int, n_classes: int | None) -> None:
        """A fresh MOA learner for ``n_features`` numeric features and ``n_classes``."""
        self._check_available()
        if n_classes is None or n_classes < 2:
            raise UserError(f"{type(self).__name__} is a classifier and needs n_classes >= "
                            f"2; got {n_classes!r}.")
        self.n_classes_ = int(n_classes)
        self._build(n_features, [str(k) for k in range(self.n_classes_)])

    def _instance(self, x: np.ndarray, y: int) -> Any:
        from capymoa.core import LabeledInstance

        return LabeledInstance.from_array(self.schema_, x, y)

    def predict_one(self, x: np.ndarray) -> int:
        """MOA's class index; class 0 while MOA has nothing to predict."""
        from capymoa.core import Instance

        pred = self.model_.predict(Instance.from_array(self.schema_, x))
        return 0 if pred is None else int(pred)

    def learn_one(self, x: np.ndarray, y: Any) -> None:
        self.model_.train(self._instance(x, int(y)))

    def predict_learn_many(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The test-then-train loop with one CapyMOA instance per sample (built once for
        both calls); the same predictions as ``predict_one``/``learn_one``."""
        out = np.empty(X.shape[0], dtype=np.int64)
        model = self.model_
        for i in range(X.shape[0]):
            inst = self._instance(X[i], int(y[i]))
            pred = model.predict(inst)
            out[i] = 0 if pred is None else int(pred)
            model.train(inst)
        return out


@register_algorithm("moa_hoeffding_tree")
class MOAHoeffdingTree(MOAClassifier):
    """Hoeffding tree from MOA (moa.classifiers.trees.HoeffdingTree), MOA defaults.

    Parameters
    ----------
    grace_period
        Samples a leaf observes between split attempts.
    confidence
        Allowed error of a split decision (the Hoeffding bound's delta).
    tie_threshold
        Threshold below which a split is forced to break ties.
    leaf_prediction
        ``"MajorityClass"``, ``"NaiveBayes"`` or ``"NaiveBayesAdaptive"``.
    nb_threshold
        Samples a leaf needs before naive Bayes is used.
    split_criterion
        ``"InfoGainSplitCriterion"`` or ``"GiniSplitCriterion"``.
    seed
        MOA's random seed.

    References
    ----------
    [^1]: P. Domingos and G. Hulten. Mining high-speed data streams. KDD 2000.
    [^2]: A. Bifet, G. Holmes, R. Kirkby and B. Pfahringer. MOA: Massive Online Analysis.
        JMLR 11, 2010.
    """

    capymoa_class = "HoeffdingTree"
    _constraints: ClassVar[dict[str, Any]] = {
        "grace_period": Interval(1, None, integer=True),
        "confidence": Interval(0.0, 1.0, closed="neither"),
        "tie_threshold": Interval(0.0, None),
        "leaf_prediction": _LEAF,
        "nb_threshold": Interval(0, None, integer=True),
        "split_criterion": _SPLIT,
        "seed": _SEED,
    }

    def __init__(self, *, grace_period: int = 200, confidence: float = 1e-3,
                 tie_threshold: float = 0.05, leaf_prediction: str = "NaiveBayesAdaptive",
                 nb_threshold: int = 0, split_criterion: str = "InfoGainSplitCriterion",
                 seed: int = 0) -> None:
        self.grace_period = grace_period
        self.confidence = confidence
        self.tie_threshold = tie_threshold
        self.leaf_prediction = leaf_prediction
        self.nb_threshold = nb_threshold
        self.split_criterion = split_criterion
        self.seed = seed
        self._validate_params()

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield {"grace_period": 50}


@register_algorithm("moa_hoeffding_adaptive_tree")
class MOAHoeffdingAdaptiveTree(MOAHoeffdingTree):
    """Hoeffding adaptive tree from MOA (moa.classifiers.trees.HoeffdingAdaptiveTree):
    a Hoeffding tree that replaces subtrees on drift (ADWIN at the nodes); MOA defaults.

    Parameters are those of ``moa_hoeffding_tree``.

    References
    ----------
    [^1]: A. Bifet and R. Gavaldà. Adaptive learning from evolving data streams. IDA 2009.
    """

    capymoa_class = "HoeffdingAdaptiveTree"


@register_algorithm("moa_arf")
class MOAAdaptiveRandomForest(MOAClassifier):
    """Adaptive Random Forest from MOA (moa.classifiers.meta.AdaptiveRandomForest).

    MOA's defaults (100 trees, 60 % of the features per split, lambda 6, ADWIN drift and
    warning detectors), except that the number of trees is a parameter configs usually
    lower (``ensemble_size: 10`` matches River's default forest).

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
    [^1]: H. M. Gomes et al. Adaptive random forests for evolving data stream
        classification. Machine Learning 106, 2017.
    """

    capymoa_class = "AdaptiveRandomForestClassifier"
    _constraints: ClassVar[dict[str, Any]] = {
        "ensemble_size": Interval(1, None, integer=True),
        "max_features": Interval(0.0, 1.0, closed="right"),
        "lambda_param": Interval(0.0, None, closed="neither"),
        "disable_drift_detection": Options((False, True)),
        "disable_background_learner": Options((False, True)),
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

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield {"ensemble_size": 3}


@register_algorithm("moa_leveraging_bagging")
class MOALeveragingBagging(MOAClassifier):
    """Leveraging bagging from MOA (moa.classifiers.meta.LeveragingBag) over Hoeffding
    trees, MOA defaults except the ensemble size.

    Parameters
    ----------
    ensemble_size
        Number of members.
    seed
        MOA's random seed.

    References
    ----------
    [^1]: A. Bifet, G. Holmes and B. Pfahringer. Leveraging bagging for evolving data
        streams. ECML PKDD 2010.
    """

    capymoa_class = "LeveragingBagging"
    _constraints: ClassVar[dict[str, Any]] = {
        "ensemble_size": Interval(1, None, integer=True), "seed": _SEED}

    def __init__(self, *, ensemble_size: int = 10, seed: int = 1) -> None:
        self.ensemble_size = ensemble_size
        self.seed = seed
        self._validate_params()

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield {"ensemble_size": 3}


@register_algorithm("moa_naive_bayes")
class MOANaiveBayes(MOAClassifier):
    """Naive Bayes from MOA (moa.classifiers.bayes.NaiveBayes; Gaussian estimators for
    numeric features).

    Parameters
    ----------
    seed
        MOA's random seed (naive Bayes does not use it).
    """

    capymoa_class = "NaiveBayes"
    _constraints: ClassVar[dict[str, Any]] = {"seed": _SEED}

    def __init__(self, *, seed: int = 0) -> None:
        self.seed = seed
        self._validate_params()
