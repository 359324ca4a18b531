"""``curves.csv``: every learning curve of an experiment, one row per checkpoint.

Columns ``stream, algorithm, seed, fold, metric, kind, t, value``: ``kind`` is
``cumulative``, ``windowed``, ``fading`` or ``holdout`` (:mod:`streamlearn.reporting.kinds`),
``fold`` is empty for an ordinary run, ``t`` is the curve's x position (samples seen, or
the record's ``curve_axis``; for ``holdout``, the samples seen before each held-out test)
and ``value`` is in display units, as ``summary.csv`` (OCA in %, an MSE as it is), written
with every digit of the record's value times the display scale. A value the record holds
as null (no prediction yet) is an empty cell.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from streamlearn.reporting.kinds import CURVE_KINDS, curve_metrics, finite, record_curve
from streamlearn.reporting.output_files import write_output
from streamlearn.reporting.summary import Summary

CURVE_COLUMNS = ["stream", "algorithm", "seed", "fold", "metric", "kind", "t", "value"]


def _positions(t: list[Any]) -> np.ndarray:
    """x positions as integers when they are whole numbers (samples), else floats."""
    arr = np.asarray([finite(x) for x in t], dtype=np.float64)
    if np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
        return arr.astype(np.int64)
    return arr


def curve_table(summary: Summary) -> pd.DataFrame:
    """The rows of ``curves.csv`` (see the module docstring), record by record in the
    manifest's order, then kind, metric and checkpoint."""
    parts: dict[str, list[np.ndarray]] = {c: [] for c in CURVE_COLUMNS}
    for r in summary.runs:
        fold = r["fold"]["index"] if isinstance(r.get("fold"), dict) else None
        for kind in CURVE_KINDS:
            for metric in curve_metrics(r, kind):
                t, ys = record_curve(r, metric, kind)  # type: ignore[misc]
                scale = summary.display(metric).scale
                n = len(t)
                values = np.asarray([finite(y) for y in ys], dtype=np.float64) * scale
                for col, val in (("stream", r["stream"]), ("algorithm", r["algorithm"]),
                                 ("seed", r.get("seed")), ("fold", fold),
                                 ("metric", metric), ("kind", kind)):
                    parts[col].append(np.full(n, val, dtype=object))
                parts["t"].append(_positions(t))
                parts["value"].append(values)
    if not parts["t"]:
        return pd.DataFrame(columns=CURVE_COLUMNS)
    data = {c: np.concatenate(v) for c, v in parts.items()}
    frame = pd.DataFrame(data, columns=CURVE_COLUMNS)
    for col in ("seed", "fold"):  # whole numbers, empty where absent
        frame[col] = pd.array(frame[col].tolist(), dtype="Int64")
    return frame


def write_curves_csv(summary: Summary, out_dir: Path) -> Path:
    """Write ``out_dir/curves.csv`` atomically and return its path."""
    path = Path(out_dir) / "curves.csv"
    write_output(path, curve_table(summary).to_csv(index=False).encode("utf-8"))
    return path
