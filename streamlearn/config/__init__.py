"""Experiment configs."""
