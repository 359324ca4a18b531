"""streamlearn's classifiers as CapyMOA classifiers, beside MOA's learners in CapyMOA's
evaluation (``prequential_evaluation``, ``prequential_evaluation_multiple_learners``)::

    from capymoa.classifier import AdaptiveRandomForestClassifier
    from capymoa.evaluation import prequential_evaluation_multiple_learners
    from streamlearn.interop.capymoa import OnlineBLS

    schema = stream.get_schema()
    learners = {"Online-BLS": OnlineBLS(schema, n3=100),
                "ARF": AdaptiveRandomForestClassifier(schema)}
    results = prequential_evaluation_multiple_learners(stream, learners)

Needs the ``moa`` extra (``pip install 'streamlearn[moa]'``) and a Java runtime; without
them importing this module raises an ``ImportError`` that says what is missing.

The schema fixes everything up front, as ``streamlearn run`` does: the learner's input is
``instance.x`` (the schema's attributes in order, float64; a missing value, NaN, is 0.0)
and its classes are the schema's class indices ``0..C-1``; an unlabelled instance
(``y_index == -1``) is not learned. ``random_seed`` (CapyMOA's convention, default 1) is the
learner's ``seed``. ``predict`` is the learner's own prediction; ``predict_proba`` the
softmax of its class scores, the logistic of a binary learner's margin, or (learners
without scores) the prediction as a one-hot vector.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from streamlearn.algorithms.external.moa_baselines import moa_unavailable_reason
from streamlearn.interop import _core

_reason = moa_unavailable_reason()
if _reason is not None:
    raise ImportError(f"streamlearn.interop.capymoa needs CapyMOA and Java: {_reason}.")

from capymoa.base import Classifier  # noqa: E402  (after the check, which says what is missing)

__all__ = ["FORKS", "OnlineBLS", "OnlineBLSAda", "StreamlearnClassifier",
           "capymoa_classifier"]


class StreamlearnClassifier(Classifier):
    """A streamlearn classifier as a CapyMOA classifier.

    :param schema: the stream's schema (``stream.get_schema()``), a classification one.
    :param name_or_class: a registered learner name (``streamlearn list algorithms``), a
        dotted path ``"module:Class"``, or a learner class.
    :param random_seed: the learner's ``seed`` (learners with one).
    :param params: the learner's parameters (as in a config's ``params:``), but ``seed``.
    """

    def __init__(self, schema: Any, name_or_class: str | type, random_seed: int = 1,
                 **params: Any) -> None:
        super().__init__(schema=schema, random_seed=random_seed)
        if schema is None or not schema.is_classification():
            raise ValueError("StreamlearnClassifier needs the schema of a classification "
                             "stream (stream.get_schema()).")
        cls = _core.learner_class(name_or_class)
        if "seed" in params:
            raise ValueError("give the learner's seed as random_seed (CapyMOA's name for it)")
        if "seed" in {p.name for p in _core.learner_parameters(cls)}:
            params = {**params, "seed": int(random_seed)}
        _core.check_params(cls, params)
        n_classes = int(schema.get_num_classes())
        if _core.is_binary(cls) and n_classes != 2:
            raise ValueError(f"{cls.__name__} classifies two classes; the schema has "
                             f"{n_classes}.")
        self.name_or_class = name_or_class
        self.learner_params = params
        self.n_classes = n_classes
        self._scores = _core.score_kind(cls)
        self.learner = cls(**params)
        self.learner.reset(int(schema.get_num_attributes()), n_classes)

    def get_params(self) -> dict[str, Any]:
        """``name_or_class`` and the learner's parameters, flat (``from_params`` takes
        them back)."""
        params = super().get_params()
        params.update(params.pop("params", {}))
        return params

    def __str__(self) -> str:
        return type(self.learner).__name__

    def _vector(self, instance: Any) -> np.ndarray:
        x = np.asarray(instance.x, dtype=np.float64)
        total = x.sum()
        if total != total:  # a NaN: CapyMOA's missing value
            x = np.where(np.isnan(x), 0.0, x)
        return x

    def train(self, instance: Any) -> None:
        """Learn a labelled instance (one without a label is skipped)."""
        y = int(instance.y_index)
        if y >= 0:
            self.learner.learn_one(self._vector(instance), y)

    def predict(self, instance: Any) -> int:
        """The learner's prediction: a class index of the schema."""
        return int(self.learner.predict_one(self._vector(instance)))

    def predict_proba(self, instance: Any) -> np.ndarray:
        """Probabilities over the schema's classes (see the module docstring)."""
        x = self._vector(instance)
        if self._scores == "vector":
            return _core.softmax(self.learner.predict_scores_one(x))  # type: ignore[attr-defined]
        if self._scores == "margin":
            self.learner.predict_one(x)
            p = _core.sigmoid(float(self.learner.last_score_))  # type: ignore[attr-defined]
            return np.array([1.0 - p, p])
        out = np.zeros(self.n_classes)
        out[int(self.learner.predict_one(x))] = 1.0
        return out


def capymoa_classifier(name: str, class_name: str | None = None,
                       doc: str | None = None) -> type[StreamlearnClassifier]:
    """A :class:`StreamlearnClassifier` subclass for one learner, with ``schema``,
    ``random_seed`` and the learner's parameters (but ``seed``) in its signature, as
    CapyMOA's own learners have them."""
    cls = _core.learner_class(name)
    params = [p for p in _core.learner_parameters(cls) if p.name != "seed"]
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    signature = inspect.Signature([
        inspect.Parameter("self", positional),
        inspect.Parameter("schema", positional, default=None),
        inspect.Parameter("random_seed", positional, default=1),
        *params,
    ])

    def __init__(self: StreamlearnClassifier, *args: Any, **kwargs: Any) -> None:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        values = {p.name: bound.arguments[p.name] for p in params}
        StreamlearnClassifier.__init__(self, bound.arguments["schema"], name,
                                       random_seed=bound.arguments["random_seed"], **values)

    __init__.__signature__ = signature  # type: ignore[attr-defined]
    title = class_name or cls.__name__
    __init__.__qualname__ = f"{title}.__init__"
    return type(title, (StreamlearnClassifier,), {
        "__init__": __init__,
        "__doc__": doc or f"streamlearn's ``{name}`` as a CapyMOA classifier.",
        "__module__": __name__,
    })


OnlineBLS = capymoa_classifier("online_bls_fast", "OnlineBLS", """Online-BLS as a CapyMOA
classifier: streamlearn's ``online_bls_fast`` (Alg. 1's ridge weights, square-root form).

:param schema: the stream's schema.
:param random_seed: the seed of the random broad feature map.
Other parameters are the learner's (``streamlearn list algorithms``; paper §5.1:
``n1 = n2 = 10``, ``n3 = 1000``, ``lam = 1e-8``).
""")

OnlineBLSAda = capymoa_classifier("online_bls_ada_fast", "OnlineBLSAda", """Online-BLS with
forgetting (drift) as a CapyMOA classifier: streamlearn's ``online_bls_ada_fast``.

:param schema: the stream's schema.
:param random_seed: the seed of the random broad feature map.
Other parameters are the learner's (``mu``: the forgetting factor, paper: 0.99).
""")

FORKS = capymoa_classifier("forks", "FORKS", """FORKS as a CapyMOA classifier (binary
streams): streamlearn's ``forks``. Give the update cycle ``rho`` or the stream length
``horizon``.

:param schema: the stream's schema (two classes).
:param random_seed: the learner's seed.
""")
