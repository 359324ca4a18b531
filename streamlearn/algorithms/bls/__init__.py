"""Broad learning systems learned sample by sample: Online-BLS and its baselines I-BLS,
RI-BLS and BLS-CIL (Online-BLS paper), over the broad feature map and base class of
:mod:`~streamlearn.algorithms.bls.broad_learning`."""
