"""How a metric is shown in tables and plots, as its run records say.

Every run record stores ``metric_info`` (:meth:`streamlearn.base.Metric.display_info`:
label, unit, scale, precision, notation) so that a report built later shows the values
the way the run meant them, even if the metric's class has changed or is not installed.
Older records lack it; the registry's metric is used then, and a plain four-significant-
digit display for a metric nobody knows any more.
"""

from __future__ import annotations

import math
from typing import Any

from streamlearn.base import Metric
from streamlearn.errors import UserError

#: the x-axis of learning curves when a record does not say (records before curve_axis)
DEFAULT_CURVE_AXIS = "samples seen"

_INFO_TYPES: dict[str, tuple[type, ...]] = {
    "label": (str,), "unit": (str,), "scale": (int, float), "precision": (int,),
    "notation": (str,), "bigger_is_better": (bool,),
}


def info_problem(info: Any) -> str | None:
    """Why a record's ``metric_info`` entry cannot be used (None when it can)."""
    if not isinstance(info, dict):
        return f"is {type(info).__name__}, not a mapping"
    for key, types in _INFO_TYPES.items():
        if key in info and (not isinstance(info[key], types)
                            or (bool not in types and isinstance(info[key], bool))):
            return f"{key} is {info[key]!r}"
    if "notation" in info and info["notation"] not in ("fixed", "general"):
        return f"notation is {info['notation']!r}, not 'fixed' or 'general'"
    if "precision" in info and not 0 <= info["precision"] <= 17:
        return f"precision is {info['precision']!r}"
    if "scale" in info and not (math.isfinite(info["scale"]) and info["scale"] != 0):
        return f"scale is {info['scale']!r}"
    return None


def _registry_metric(name: str) -> type[Metric] | None:
    from streamlearn.components import get_metric

    try:
        return get_metric(name)
    except UserError:
        return None


def metric_display(name: str, info: dict[str, Any] | None = None) -> type[Metric]:
    """A :class:`Metric` class whose ``label``, ``unit``, ``scale``, ``precision`` and
    ``notation`` are the record's (``info``), else the registry's metric ``name``, else a
    plain display (label = name, scale 1, four significant digits).

    Formatting and axis labels are :class:`Metric`'s own (``format``, ``axis_label``), so a
    report shows a value exactly as the metric would."""
    base = _registry_metric(name)
    attrs: dict[str, Any] = {} if base is None else {
        k: getattr(base, k) for k in ("label", "unit", "scale", "precision", "notation",
                                      "bigger_is_better", "task")}
    attrs.setdefault("label", name)
    if info is not None and info_problem(info) is None:
        attrs.update({k: info[k] for k in (*_INFO_TYPES, "task") if k in info})
    if not attrs["label"]:
        attrs["label"] = name
    return type(f"Shown_{name}", (Metric,), attrs)


class TimingDisplay:
    """Per-sample times in µs: two decimals (a rate such as samples per CPU-second:
    ``decimals=0``)."""

    def __init__(self, label: str, unit: str = "µs", decimals: int = 2) -> None:
        self.label = label
        self.unit = unit
        self.decimals = decimals

    def axis_label(self) -> str:
        return self.label

    def format(self, value: float) -> str:
        if value is None or not math.isfinite(value):
            return "—"
        return f"{value:.{self.decimals}f}"


TIMINGS = {"us_per_sample": TimingDisplay("µs/sample"),
           "us_per_update": TimingDisplay("µs/update"),
           # the process CPU time of the whole timed run, learner and evaluation
           # (``outputs.cpu_time``), per sample
           "cpu_us_per_sample": TimingDisplay("CPU µs/sample"),
           "samples_per_cpu_second": TimingDisplay("samples/CPU-s", unit="1/s",
                                                   decimals=0)}


def fmt_mean_sd(m: Any, mean: float, sd: float, n: int) -> str:
    """``mean ± SD`` in the display's precision; the mean alone for one run; ``—`` for none."""
    if n == 0 or mean is None or math.isnan(mean):
        return "—"
    if n == 1 or sd is None or math.isnan(sd):
        return m.format(mean)
    return f"{m.format(mean)} ± {m.format(sd)}"


def fmt_reference(m: Any, x: float | None) -> str:
    """A paper value as the paper wrote it: its own decimals, at most the metric's (fixed
    notation) or the metric's significant digits (general notation)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    if m.notation == "fixed":
        text = f"{x:.{m.precision}f}"
        if "." in text:
            whole, frac = text.split(".")
            frac = frac.rstrip("0") or "0"
            text = f"{whole}.{frac}"
        return text
    return m.format(x)


def fmt_difference(m: Any, x: float | None) -> str:
    """Ours − paper with a sign: one decimal for percent metrics (points), the metric's own
    decimals for other fixed-point ones (R²: 4; one decimal had printed −0.0 for −0.0403),
    its significant digits otherwise."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    if m.notation == "fixed":
        text = f"{x:.1f}" if getattr(m, "unit", "") == "%" else f"{x:.{m.precision}f}"
    else:
        text = m.format(x)
    return text if text.startswith("-") else f"+{text}"
