"""streamlearn's learners in other libraries' loops (the reverse of
:mod:`streamlearn.algorithms.external`, which brings River's and MOA's learners here).

* :mod:`streamlearn.interop.river` — any streamlearn classifier as a River classifier
  (``learn_one``/``predict_one``/``predict_proba_one`` over dicts), for River pipelines and
  ``river.evaluate.progressive_val_score``; short names ``OnlineBLS``, ``OnlineBLSAda``,
  ``FORKS``.
* :mod:`streamlearn.interop.capymoa` — the same learners as CapyMOA classifiers
  (``train``/``predict``/``predict_proba`` over instances), beside MOA's learners in
  ``capymoa.evaluation.prequential_evaluation``; needs the ``moa`` extra and Java.

Both feed the learner exactly what ``streamlearn run`` feeds it (a float64 vector in a
fixed column order, class indices ``0..C-1``), so a learner gives the same predictions
through every door. This package sits above the algorithms and the registry and nothing
in streamlearn imports it (``make lint`` checks both); its modules are imported by name,
so that importing one does not import the other library.
"""
