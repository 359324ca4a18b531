"""Experiment configs: the schema declared once (:mod:`~streamlearn.config.schema`), the
typed config (:mod:`~streamlearn.config.model`), validation against the registries
(:mod:`~streamlearn.config.validation`) and reading a file
(:mod:`~streamlearn.config.loading`)."""

from __future__ import annotations

from streamlearn.config.loading import load_config
from streamlearn.config.model import (
    AlgorithmConfig,
    EvaluationConfig,
    ExperimentConfig,
    OutputsConfig,
    ReferenceConfig,
    SmokeConfig,
    StreamConfig,
    SweepPoint,
)
from streamlearn.config.validation import parse_config
from streamlearn.errors import ConfigError

__all__ = [
    "AlgorithmConfig",
    "ConfigError",
    "EvaluationConfig",
    "ExperimentConfig",
    "OutputsConfig",
    "ReferenceConfig",
    "SmokeConfig",
    "StreamConfig",
    "SweepPoint",
    "load_config",
    "parse_config",
]
