"""The runner: plans an experiment's runs, executes them (here, in worker processes, or on
a Dask cluster), writes one record per run, resumes and rolls back; how one run is scored
belongs to its protocol (:mod:`streamlearn.protocols`)."""

from __future__ import annotations
