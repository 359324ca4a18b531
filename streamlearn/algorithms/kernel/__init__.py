"""Budgeted online kernel learners: FORKS, SkeGD and the FORKS paper's baselines."""
