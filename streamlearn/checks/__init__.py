"""Conformance checks of learners."""
