"""The evaluation kinds of a run record besides the cumulative one, as a report reads them.

A record may carry, beside its cumulative ``metrics`` and ``curves``, the blocks::

    "windowed": {"window": 500, "metrics": {m: final}, "curves": {m: [.. at curves.t ..]},
                 "not_supported": [m, ...]}
    "fading":   {"alpha": 0.999, "metrics": {...}, "curves": {...}, "not_supported": [...]}
    "holdout":  {"every": p, "size": h, "metrics": {m: mean over the held-out tests},
                 "curves": {"t": [samples seen before each test], m: [value of each test]}}
    "fold":     {"method": "cross"|"split"|"bootstrap", "index": f, "folds": k}

(windowed metrics: over the last ``window`` predictions; fading: the prequential value
with fading factor α of Gama, Sebastião and Rodrigues, "On evaluating stream learning
algorithms", Machine Learning 90, 2013, Eq. 6; held-out: MOA's periodic held-out test;
folds: the prequential k-fold validation of Bifet et al., KDD 2015). Values are in natural
units, as the cumulative ones. This module checks those blocks (:func:`block_problem`),
names the summary rows they give (``"<metric>.<kind>"``, :func:`kind_key`) and reads a
record's curve of any kind (:func:`record_curve`).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

#: the kinds a record may carry besides the cumulative one, in the order they are shown
KINDS = ("windowed", "fading", "holdout")
#: every kind of curve (``curves.csv``'s ``kind`` column)
CURVE_KINDS = ("cumulative", *KINDS)
#: the block parameters of each kind, in the order they are shown
KIND_PARAMS = {"windowed": ("window",), "fading": ("alpha",), "holdout": ("every", "size")}
FOLD_METHODS = ("cross", "split", "bootstrap")
_FOLD_NAMES = {"cross": "cross-validation", "split": "split validation",
               "bootstrap": "bootstrap validation"}


def kind_key(metric: str, kind: str) -> str:
    """The summary table's metric key of ``metric`` evaluated as ``kind``: ``oca.windowed``."""
    return f"{metric}.{kind}"


def is_number(x: Any) -> bool:
    """A real number of a record (a bool is not one)."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _is_count(x: Any, least: int) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool) and x >= least


def _values_problem(where: str, metrics: Any) -> str | None:
    if not isinstance(metrics, dict):
        return f"{where}.metrics is missing or not a mapping"
    for name, value in metrics.items():
        if not is_number(value):
            return f"{where}.metrics.{name} is {value!r}, not a number"
    return None


def _curves_problem(where: str, curves: Any, n: int) -> str | None:
    if not isinstance(curves, dict):
        return f"{where}.curves is missing or not a mapping"
    for name, ys in curves.items():
        if not isinstance(ys, list) or len(ys) != n:
            return f"{where}.curves.{name} is not a list of {n} values (one per t)"
        if not all(y is None or is_number(y) for y in ys):
            return f"{where}.curves.{name} holds a value that is not a number"
    return None


def _param_problem(kind: str, block: dict[str, Any]) -> str | None:
    if kind == "fading":
        alpha = block.get("alpha")
        if not (is_number(alpha) and 0 < alpha <= 1):
            return f"fading.alpha is {alpha!r}, not a fading factor in (0, 1]"
        return None
    for param in KIND_PARAMS[kind]:
        if not _is_count(block.get(param), 1):
            return f"{kind}.{param} is {block.get(param)!r}, not a positive whole number"
    return None


def block_problem(rec: dict[str, Any], metrics: list[str]) -> str | None:
    """Why a record's ``windowed``/``fading``/``holdout``/``fold`` block cannot be used
    (None when every block present can). ``metrics`` are the config's: a windowed or
    faded block must give each of them a value or list it under ``not_supported``."""
    n = len(rec["curves"]["t"])
    for kind in KINDS:
        if kind not in rec:
            continue
        block = rec[kind]
        if not isinstance(block, dict):
            return f"'{kind}' is {type(block).__name__}, not a mapping"
        why = (_param_problem(kind, block) or _values_problem(kind, block.get("metrics")))
        if why is not None:
            return why
        unsupported = block.get("not_supported", [])
        if not (isinstance(unsupported, list) and all(isinstance(m, str) for m in unsupported)):
            return f"{kind}.not_supported is {unsupported!r}, not a list of metric names"
        curves = block.get("curves")
        if kind == "holdout":
            t = curves.get("t") if isinstance(curves, dict) else None
            if not (isinstance(t, list) and all(is_number(x) for x in t)):
                return "holdout.curves.t (the held-out tests' positions) is missing or not " \
                       "a list of numbers"
            why = _curves_problem(kind, curves, len(t))
        else:
            why = _curves_problem(kind, curves, n)
            lacking = [m for m in metrics
                       if m not in block["metrics"] and m not in unsupported]
            if why is None and lacking:
                why = (f"{kind}.metrics lacks " + ", ".join(repr(m) for m in lacking)
                       + " (neither a value nor listed as not_supported)")
        if why is not None:
            return why
    if "fold" in rec:
        fold = rec["fold"]
        if not isinstance(fold, dict):
            return f"'fold' is {type(fold).__name__}, not a mapping"
        if fold.get("method") not in FOLD_METHODS:
            return (f"fold.method is {fold.get('method')!r}, not one of "
                    + ", ".join(FOLD_METHODS))
        if not _is_count(fold.get("folds"), 2):
            return f"fold.folds is {fold.get('folds')!r}, not a whole number of at least 2"
        if not (_is_count(fold.get("index"), 0) and fold["index"] <= fold["folds"]):
            return (f"fold.index is {fold.get('index')!r}, not a fold number of "
                    f"{fold['folds']} folds")
    return None


def record_curve(rec: dict[str, Any], metric: str,
                 kind: str) -> tuple[list[Any], list[Any]] | None:
    """(x positions, values) of ``metric``'s ``kind`` curve in a (checked) record, in
    natural units; None when the record has no such curve."""
    if kind == "cumulative":
        curves, t = rec["curves"], rec["curves"]["t"]
    else:
        block = rec.get(kind)
        if not isinstance(block, dict):
            return None
        curves = block["curves"]
        t = curves["t"] if kind == "holdout" else rec["curves"]["t"]
    if metric == "t" or metric not in curves:
        return None
    return t, curves[metric]


def curve_metrics(rec: dict[str, Any], kind: str) -> list[str]:
    """The metrics that have a ``kind`` curve in a (checked) record, in its order."""
    if kind == "cumulative":
        curves = rec["curves"]
    else:
        block = rec.get(kind)
        curves = block["curves"] if isinstance(block, dict) else {}
    return [m for m in curves if m != "t"]


def present_kinds(runs: list[dict[str, Any]]) -> dict[str, dict[str, list[Any]]]:
    """The kinds the records carry, each with the values of its parameters found in them
    (one value each when the records come from one config), in :data:`KINDS` order."""
    out: dict[str, dict[str, list[Any]]] = {}
    for kind in KINDS:
        blocks = [r[kind] for r in runs if isinstance(r.get(kind), dict)]
        if blocks:
            out[kind] = {p: sorted({b[p] for b in blocks}) for p in KIND_PARAMS[kind]}
    return out


def present_folds(runs: list[dict[str, Any]]) -> dict[str, list[Any]] | None:
    """The validation methods and fold counts of the records' ``fold`` blocks (None when
    no record is a fold)."""
    folds = [r["fold"] for r in runs if isinstance(r.get("fold"), dict)]
    if not folds:
        return None
    return {"method": sorted({f["method"] for f in folds}),
            "folds": sorted({f["folds"] for f in folds})}


def _values(values: list[Any]) -> str:
    return "/".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)


def kind_suffix(kind: str, params: dict[str, list[Any]]) -> str:
    """What follows the metric's label in a column header: ``w=500``, ``α=0.999``,
    ``held-out``."""
    if kind == "windowed":
        return f"w={_values(params['window'])}"
    if kind == "fading":
        return f"α={_values(params['alpha'])}"
    return "held-out"


def kind_title(kind: str, params: dict[str, list[Any]]) -> str:
    """A heading for the kind: ``Windowed metrics (w = 500)``."""
    if kind == "windowed":
        return f"Windowed metrics (w = {_values(params['window'])})"
    if kind == "fading":
        return f"Faded metrics (α = {_values(params['alpha'])})"
    return (f"Periodic held-out test (every {_values(params['every'])} samples, the next "
            f"{_values(params['size'])})")


def kind_description(kind: str, params: dict[str, list[Any]]) -> str:
    """One sentence on what the kind's values are (table captions, the HTML report)."""
    if kind == "windowed":
        w = _values(params["window"])
        return (f"w={w}: the metric over the last {w} predictions up to each checkpoint "
                "(sliding window); the final value is that of the stream's last window.")
    if kind == "fading":
        a = _values(params["alpha"])
        return (f"α={a}: the prequential metric with fading factor {a}: a prediction made "
                "k samples ago weighs α^k (Gama et al. 2013).")
    return (f"held-out: every {_values(params['every'])} samples the learner is tested on "
            f"the next {_values(params['size'])} samples without training on them; the "
            "value is the mean over these tests.")


def folds_description(folds: dict[str, list[Any]]) -> str:
    """A sentence on the folds of a prequential validation and what ``n`` counts."""
    methods = " / ".join(_FOLD_NAMES.get(m, str(m)) for m in folds["method"])
    return (f"Prequential {methods} with {_values(folds['folds'])} folds (Bifet et al. "
            "2015): each fold is a run of its own, so n = folds × seeds.")


def finite(x: Any) -> float:
    """``x`` as a float; NaN for None or a value that is not a number."""
    return float(x) if is_number(x) else math.nan
