"""streamlearn's classifiers as River classifiers, for River pipelines and River's
evaluation (``river.evaluate.progressive_val_score``)::

    from river import datasets, evaluate, metrics, preprocessing
    from streamlearn.interop.river import OnlineBLS

    model = preprocessing.StandardScaler() | OnlineBLS(n3=100, seed=0)
    evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())

``StreamlearnClassifier(name_or_class, **params)`` wraps any streamlearn classifier (a
registered name, ``"module:Class"`` or a class); ``OnlineBLS`` (``online_bls_fast``),
``OnlineBLSAda`` (``online_bls_ada_fast``) and ``FORKS`` (``forks``) are the same with
the learner's own parameters in their signature.

How a dict becomes the learner's vector
    The columns are the sorted feature names of the first sample (River's dicts carry no
    reliable order: the same model must not change with the order of a dict's keys), or
    ``features=(...)`` in that order. A name missing from a later sample is 0.0; a name the
    first sample did not have is ignored (the network's input layer is fixed when it is
    built). Values are converted to float64, exactly the numbers ``streamlearn run`` feeds;
    a value that is not a number (a string, a list, ...) or is missing or non-finite
    (``None``, NaN, ±inf) is refused with a ``ValueError`` naming the feature, as
    ``streamlearn run`` refuses it, before the learner sees the sample (impute first, e.g.
    ``river.impute.StatImputer``). ``features=`` must not repeat a name.

How classes are found
    Multi-class learners discover the labels as they come: the first label is class 0, the
    next new one class 1, ... Until a first label is learned they predict ``None`` (River's
    convention). A new label grows the learner's output layer where that is exact (the
    Online-BLS family and RLS: a zero column; ``add_class()``), and is refused with a
    message elsewhere; a learner that cannot start from a single class (River's own
    learners behind streamlearn: perceptron, hoeffding_tree, arf, ...) refuses the first
    label the same way. Either way the message says to give ``classes=(...)``: the labels
    up front, in the learner's class order. It then predicts ``classes[0]`` before it has
    learned, as ``streamlearn run`` does, so with ``classes`` sorted as ``streamlearn run``
    sorts them *and* ``features`` in the file's column order (the sorted names are another
    order for named columns) the predictions are the same (River's Phishing with
    ``online_bls_fast``: 0 of 1,250 differ; with sorted names instead, 4 differ). A missing
    label (``None``, NaN) is refused: a missing target cannot be a class.
    Binary learners (the FORKS paper's kernel learners) follow River's binary convention:
    labels ``False``/``True`` (or ``0``/``1``), ``True`` being the positive class; another
    label is refused (wrap them in ``river.multiclass.OneVsRestClassifier``).

``predict_proba_one`` is the softmax of the per-class scores (ridge-type learners) or the
logistic function of the margin (binary kernel learners): a monotone map whose argmax is
the prediction, not calibrated probabilities. Learners without scores raise
``NotImplementedError`` there, as River's do.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Hashable, Iterator
from operator import itemgetter
from typing import Any, ClassVar

import numpy as np
from river import base

from streamlearn.base import Learner
from streamlearn.errors import UserError
from streamlearn.interop import _core

__all__ = ["FORKS", "OnlineBLS", "OnlineBLSAda", "StreamlearnClassifier", "river_classifier"]


def _feature_order(x: dict[Hashable, Any]) -> tuple[Hashable, ...]:
    """The sorted feature names (by type name, then representation, when they do not
    sort together)."""
    try:
        return tuple(sorted(x))  # type: ignore[type-var]  # names of one kind sort
    except TypeError:
        return tuple(sorted(x, key=lambda k: (type(k).__name__, repr(k))))


class StreamlearnClassifier(base.Classifier):
    """A streamlearn classifier as a River classifier.

    Parameters
    ----------
    name_or_class
        A registered learner name (``streamlearn list algorithms``), a dotted path
        ``"module:Class"``, or a learner class.
    classes
        The labels in the learner's class order (``None``: discovered as they come).
    features
        The feature names in the learner's column order (``None``: the sorted names of the
        first sample).
    params
        The learner's parameters (as in a config's ``params:``).

    Attributes
    ----------
    learner_
        The streamlearn learner (``None`` until the first sample it can be built on).
    classes_
        The labels known so far, in class-index order.
    features_
        The feature names, in column order (``None`` before the first sample).
    """

    _binary_labels: ClassVar[tuple[bool, bool]] = (False, True)

    def __init__(
        self,
        name_or_class: str | type,
        *,
        classes: tuple[Any, ...] | None = None,
        features: tuple[Hashable, ...] | None = None,
        **params: Any,
    ) -> None:
        self.name_or_class = name_or_class
        self.classes = classes
        self.features = features
        self.params = params
        cls = _core.learner_class(name_or_class)
        _core.check_params(cls, params)
        self._binary = _core.is_binary(cls)
        self._scores = _core.score_kind(cls)
        if self._binary and classes is not None and tuple(classes) != self._binary_labels:
            raise ValueError(f"{cls.__name__} classifies two classes, False and True (River's "
                             f"binary convention); classes={classes!r} cannot be given.")
        if classes is not None and len(set(classes)) != len(classes):
            raise ValueError(f"classes={classes!r} repeats a label.")
        if features is not None and len(set(features)) != len(tuple(features)):
            raise ValueError(f"features={features!r} repeats a name.")
        self.learner_: Learner | None = None
        self.classes_: list[Any] = list(self._binary_labels if self._binary else classes or ())
        self._index = {label: k for k, label in enumerate(self.classes_)}
        self.features_: tuple[Hashable, ...] | None = (
            None if features is None else tuple(features))
        self._getter: Callable[[dict[Hashable, Any]], Any] | None = None

    @classmethod
    def _unit_test_params(cls) -> Iterator[dict[str, Any]]:
        yield {"name_or_class": "online_bls_fast", "n1": 3, "n2": 2, "n3": 20, "lam": 1e-2,
               "seed": 0}

    @property
    def _multiclass(self) -> bool:
        return not self._binary

    # ---- dict -> vector ---------------------------------------------------------------
    def _vector(self, x: dict[Hashable, Any]) -> np.ndarray:
        keys = self.features_
        getter = self._getter
        if keys is None:
            keys = _feature_order(x)
        if getter is None:
            if not keys:
                raise ValueError(f"{type(self).__name__}: the first sample has no features.")
            # one C call for all the values (a third faster than a comprehension)
            getter = itemgetter(*keys)
        try:
            values = getter(x)
            if len(keys) == 1:  # itemgetter of one key gives the bare value
                values = (values,)
        except KeyError:
            values = tuple(x.get(k, 0.0) for k in keys)
        try:
            vec = np.array(values, dtype=np.float64)
        except (TypeError, ValueError):
            vec = None
        if vec is None or vec.shape != (len(keys),):
            bad = next((k for k, v in zip(keys, values, strict=True) if not _is_real(v)),
                       keys[0])
            raise ValueError(
                f"{type(self).__name__} takes numeric features; feature {bad!r} is "
                f"{x[bad]!r}. Encode it first (e.g. river.preprocessing.OneHotEncoder).")
        if not np.isfinite(vec).all():
            bad = keys[int(np.flatnonzero(~np.isfinite(vec))[0])]
            raise ValueError(
                f"{type(self).__name__}: feature {bad!r} is {x[bad]!r}, a missing or "
                "non-finite value (streamlearn run refuses it too). Fill it or drop the "
                "sample first (e.g. river.impute.StatImputer).")
        # only a sample that passed fixes the columns
        self.features_, self._getter = keys, getter
        return vec

    # ---- the learner ------------------------------------------------------------------
    def _build(self, vec: np.ndarray, n_classes: int) -> Learner:
        """Build the learner for ``n_classes`` classes; nothing is kept if it fails."""
        learner = _core.learner_class(self.name_or_class)(**self.params)
        try:
            learner.reset(vec.shape[0], n_classes)
        except UserError as exc:
            if n_classes == 1 and self.classes is None:
                raise ValueError(
                    f"{type(learner).__name__} cannot start from a single class "
                    f"({str(exc).rstrip('.')}); "
                    "it cannot discover its classes as they come. Give every class up "
                    "front: classes=(...).") from None
            raise ValueError(str(exc)) from None
        self.learner_ = learner
        return learner

    def _class_index(self, y: Any, vec: np.ndarray) -> int:
        """The class index of label ``y``; a new label is added (the learner built or
        grown) or refused, the wrapper unchanged then."""
        if _is_missing(y):
            raise ValueError(f"{type(self).__name__}: the label is {y!r}, a missing value; "
                             "a missing target cannot be a class. Drop such samples.")
        if self._binary:
            if isinstance(y, bool | np.bool_) or y in (0, 1):
                return int(bool(y))
            raise ValueError(
                f"{type(self).__name__} ({_core.learner_class(self.name_or_class).__name__}) "
                f"classifies two classes, given as False/True or 0/1; got {y!r}. For more "
                "classes wrap it in river.multiclass.OneVsRestClassifier.")
        k = self._index.get(y)
        if k is not None:
            return k
        if self.classes is not None:
            raise ValueError(f"label {y!r} is not one of the declared classes "
                             f"{tuple(self.classes)!r}.")
        if self.learner_ is not None:
            _core.add_class(self.learner_, y, self.classes_)
        else:
            self._build(vec, len(self.classes_) + 1)
        self._index[y] = k = len(self.classes_)
        self.classes_.append(y)
        return k

    def learn_one(self, x: dict[Hashable, Any], y: Any) -> None:
        """Learn one sample (after predicting it, in a test-then-train loop)."""
        vec = self._vector(x)
        k = self._class_index(y, vec)
        learner = (self.learner_ if self.learner_ is not None
                   else self._build(vec, len(self.classes_)))
        learner.learn_one(vec, k)

    def _ready(self, x: dict[Hashable, Any]) -> tuple[Learner, np.ndarray] | None:
        """The learner and ``x`` as its vector; ``None`` while no class is known."""
        if not self.classes_:
            return None
        vec = self._vector(x)
        learner = (self.learner_ if self.learner_ is not None
                   else self._build(vec, len(self.classes_)))
        return learner, vec

    def predict_one(self, x: dict[Hashable, Any], **kwargs: Any) -> Any:
        """The learner's prediction as a label (``None`` before any class is known)."""
        ready = self._ready(x)
        if ready is None:
            return None
        learner, vec = ready
        return self.classes_[int(learner.predict_one(vec))]

    def predict_proba_one(self, x: dict[Hashable, Any], **kwargs: Any) -> dict[Any, float]:
        """Scores as probabilities over the known labels (see the module docstring)."""
        if self._scores is None:
            raise NotImplementedError(
                f"{_core.learner_class(self.name_or_class).__name__} gives no scores")
        ready = self._ready(x)
        if ready is None:
            return {}
        learner, vec = ready
        if self._scores == "margin":
            learner.predict_one(vec)
            p = _core.sigmoid(float(learner.last_score_))  # type: ignore[attr-defined]
            return {False: 1.0 - p, True: p}
        proba = _core.softmax(learner.predict_scores_one(vec))  # type: ignore[attr-defined]
        return dict(zip(self.classes_, proba.tolist(), strict=True))


def _is_real(v: Any) -> bool:
    """True for one real number (not a string, a list, an array of several values)."""
    if isinstance(v, str | bytes) or np.ndim(v) != 0:
        return False
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def _is_missing(y: Any) -> bool:
    """True for a missing label: ``None``, a float NaN, pandas' ``NA``."""
    if y is None or type(y).__name__ == "NAType":
        return True
    return isinstance(y, float | np.floating) and bool(np.isnan(y))


_RESERVED = {"name_or_class", "classes", "features", "params"}


def river_classifier(name: str, class_name: str | None = None,
                     doc: str | None = None) -> type[StreamlearnClassifier]:
    """A :class:`StreamlearnClassifier` subclass for one learner, with the learner's
    parameters in its signature (River's ``repr``, ``clone`` and ``_get_params`` show them),
    e.g. ``river_classifier("skegd")(sigma=2.0)``. For pickling, bind the class to a
    module-level name of the same ``class_name``."""
    cls = _core.learner_class(name)
    params = _core.learner_parameters(cls)
    clash = _RESERVED & {p.name for p in params}
    if clash:  # pragma: no cover - no built-in learner has them
        raise ValueError(f"{cls.__name__} has parameters named {sorted(clash)}, which the "
                         "wrapper uses; wrap it with StreamlearnClassifier instead.")
    keyword = inspect.Parameter.KEYWORD_ONLY
    signature = inspect.Signature([
        inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        *params,
        inspect.Parameter("classes", keyword, default=None),
        inspect.Parameter("features", keyword, default=None),
    ])
    names = [p.name for p in params]

    def __init__(self: StreamlearnClassifier, **kwargs: Any) -> None:
        bound = signature.bind(self, **kwargs)  # a TypeError names an unknown parameter
        bound.apply_defaults()
        values = {n: bound.arguments[n] for n in names}
        for n, v in values.items():
            setattr(self, n, v)
        StreamlearnClassifier.__init__(self, name, classes=bound.arguments["classes"],
                                       features=bound.arguments["features"], **values)

    __init__.__signature__ = signature  # type: ignore[attr-defined]

    def _unit_test_params(kls: type) -> Iterator[dict[str, Any]]:
        yield from (dict(p) for p in cls._test_params())

    title = class_name or cls.__name__
    __init__.__qualname__ = f"{title}.__init__"
    return type(title, (StreamlearnClassifier,), {
        "__init__": __init__,
        "__doc__": doc or (f"streamlearn's ``{name}`` as a River classifier: "
                           f"{inspect.getdoc(cls) or cls.__name__}"),
        "__module__": __name__,
        "_unit_test_params": classmethod(_unit_test_params),
    })


OnlineBLS = river_classifier("online_bls_fast", "OnlineBLS", """Online-BLS as a River
classifier: streamlearn's ``online_bls_fast`` (Alg. 1's ridge weights, square-root form).

Parameters are the learner's (``streamlearn list algorithms``; paper §5.1: ``n1 = n2 =
10``, ``n3 = 1000``, ``lam = 1e-8``), plus ``classes`` and ``features`` of
:class:`StreamlearnClassifier`. New classes grow the network exactly.

References
----------
[^1]: C. Lei, G.-Z. Chen, C. L. P. Chen, T. Zhang. Online-BLS: An Accurate and Efficient
      Online Broad Learning System for Data Stream Classification.
""")

OnlineBLSAda = river_classifier("online_bls_ada_fast", "OnlineBLSAda", """Online-BLS with
forgetting (drift) as a River classifier: streamlearn's ``online_bls_ada_fast`` (Alg. 2's
forgetting factor ``mu``, O(m²) per sample, exact periodic refreshes).

Parameters are the learner's plus ``classes`` and ``features`` of
:class:`StreamlearnClassifier`. New classes grow the network exactly.

References
----------
[^1]: C. Lei, G.-Z. Chen, C. L. P. Chen, T. Zhang. Online-BLS: An Accurate and Efficient
      Online Broad Learning System for Data Stream Classification (§3.5).
""")

FORKS = river_classifier("forks", "FORKS", """FORKS as a River binary classifier:
streamlearn's ``forks`` (second-order online kernel learning with incremental sketching).

Labels are ``False``/``True`` (or ``0``/``1``); ``predict_proba_one`` is the logistic
function of the kernel margin. Parameters are the learner's; a River stream has no known
length, so give the update cycle ``rho`` (or the length ``horizon``, ``rho = theta *
horizon``), e.g. ``FORKS(sigma=2.0, budget=50, rho=500, seed=0)``.

References
----------
[^1]: D. Wen et al. Fast Second-Order Online Kernel Learning Through Incremental Matrix
      Sketching and Decomposition.
""")
