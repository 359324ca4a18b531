"""streamlearn: a prequential experiment runner for online machine learning research."""

from __future__ import annotations

__version__ = "0.1.0"
