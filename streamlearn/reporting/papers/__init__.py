"""Tables and figures of the reproduced papers, rebuilt from saved run records.

One module per paper (``forks``, ``fast_ons``, ``ridge_bls``, the names of ``configs/``
and ``results/``), each with ``outputs(results_dir)``: the files it writes into the
paper's results folder and the run records each one needs. ``streamlearn tables PAPER``
(:mod:`streamlearn.cli.tables`) writes them with :func:`~.outputs.write_outputs`.
Nothing here runs a learner.
"""
