"""Online-BLS in a River pipeline, under River's own progressive validation.

River's ``StandardScaler`` feeds streamlearn's Online-BLS (``online_bls_fast``) through
the River wrapper; ``evaluate.progressive_val_score`` runs it test-then-train on River's
Phishing dataset (shipped in River's wheel: no download), beside River's logistic
regression on the same pipeline. Run with ``make example-river`` (CI does)::

    .venv/bin/python examples/river_pipeline.py
"""

from __future__ import annotations

from river import datasets, evaluate, linear_model, metrics, preprocessing

from streamlearn.interop.river import OnlineBLS

models = {
    # a small network with a stronger ridge and the reference BLS shrinkage of the
    # enhancement nodes (a few settings tried on this stream; the paper's n3 = 1000 and
    # lam = 1e-8 are for larger ones). Labels are discovered as they come; the columns
    # are the sorted feature names.
    "Online-BLS": preprocessing.StandardScaler()
    | OnlineBLS(n3=200, lam=1.0, enh_shrink=0.8, seed=0),
    "LogisticRegression": preprocessing.StandardScaler() | linear_model.LogisticRegression(),
}

for name, model in models.items():
    score = evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    print(f"{name:20s} {score}")
