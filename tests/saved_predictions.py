"""Reading a run's saved predictions (``runs/<run_id>.pred.npz``) in a test."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def load_predictions(path: Path) -> dict[str, np.ndarray]:
    """Every array of the ``.pred.npz`` at ``path``, read whole, with the file closed before
    returning (an ``NpzFile`` left open is reported as an unraisable ``ResourceWarning`` in
    whichever later test the garbage collector happens to run, and ``-W error`` fails it)."""
    with np.load(path, allow_pickle=False) as z:
        return {name: z[name] for name in z.files}
