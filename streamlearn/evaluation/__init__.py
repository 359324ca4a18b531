"""Protocols (prequential classification, ...) and the engine that runs them."""

from __future__ import annotations
