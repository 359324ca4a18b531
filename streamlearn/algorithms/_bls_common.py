"""Old name of :mod:`streamlearn.algorithms.broad_learning`; import from there.

Kept only so that imports not yet updated keep working.
"""

from __future__ import annotations

from streamlearn.algorithms.broad_learning import BLSClassifier, BroadFeatureMap

__all__ = ["BLSClassifier", "BroadFeatureMap"]
