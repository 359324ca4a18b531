"""Broad learning systems: Online-BLS and its baselines (Online-BLS paper), and the
learners on added nodes of the Ridge-BLS paper."""
