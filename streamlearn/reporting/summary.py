"""Aggregate saved run records into mean ± SD per (stream, algorithm).

Everything here reads only ``experiment.json`` and the run records (``runs/*.json``, or
the archive ``runs.tar.xz`` of a committed results folder); nothing is re-run.
SD is the sample standard deviation (``ddof=1``) over seeds, 0 for a single run.

Each planned run's record is sorted into one of:

* good (``runs``): parses, complete, made from the planned run specification;
* failed (``failed``): the learner raised; the record names the error;
* missing (``missing``): no record yet, or a record of another specification (``stale``:
  the config changed since; ``streamlearn run`` recomputes it);
* a problem (``problems``): the file exists but cannot be used, because it does not parse
  (``corrupt``) or lacks or garbles something a report needs (``incomplete``). The report
  is built without it and names the file and the reason.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from streamlearn.base import Metric
from streamlearn.components import load_all
from streamlearn.errors import UserError
from streamlearn.evaluation import record_archive, records
from streamlearn.reporting.display import (
    DEFAULT_CURVE_AXIS,
    TIMINGS,
    info_problem,
    metric_display,
)
from streamlearn.reporting.kinds import (
    KINDS,
    block_problem,
    is_number,
    kind_key,
    kind_suffix,
    present_folds,
    present_kinds,
)

#: columns of the long table (``summary.csv``); ``mean``, ``sd``, ``paper`` and ``diff``
#: are in display units (``unit``: "%" for accuracies, "µs" for times)
COLUMNS = ["stream", "algorithm", "metric", "mean", "sd", "n", "paper", "diff", "kind",
           "unit"]


@dataclass(frozen=True)
class RecordProblem:
    """A planned run's record that exists but cannot be used."""

    run_id: str
    path: Path
    kind: str  # "corrupt" (does not parse) or "incomplete" (lacks or garbles a field)
    reason: str

    def describe(self) -> str:
        return f"{self.path}: {self.kind}: {self.reason}"


@dataclass
class Summary:
    """Aggregated results of an experiment directory."""

    manifest: dict[str, Any]
    runs: list[dict[str, Any]]  # complete records of the planned runs
    missing: list[str]  # planned run ids without a usable record of this specification
    table: pd.DataFrame  # long form: COLUMNS
    failed: list[dict[str, Any]] = field(default_factory=list)
    problems: list[RecordProblem] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)  # the part of ``missing`` with an old record
    displays: dict[str, type[Metric]] = field(default_factory=dict)
    out_dir: Path | None = None
    #: the rows of the records' other kinds: ``"oca.windowed"`` → ("oca", "windowed")
    kind_keys: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: the kinds present, each with its parameters' values (:func:`kinds.present_kinds`)
    kinds: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    #: the validation methods and fold counts when records are folds, else None
    folds: dict[str, list[Any]] | None = None
    #: the archive the records were read from (``runs.tar.xz``); None: ``runs/``
    archive: Path | None = None
    #: run ids of records present that this config does not plan (e.g. a learner an
    #: earlier ``--add-learner`` added): left out of the tables, named by the CLI
    unplanned: list[str] = field(default_factory=list)
    #: outputs of an earlier build that the last build removed (``report.build_report``)
    removed: list[Path] = field(default_factory=list)
    #: planned runs whose record the archive holds and ``runs/`` (read instead) lacks:
    #: an interrupted ``records unpack`` (``record_archive.archived_not_in_runs``)
    behind_archive: list[str] = field(default_factory=list)
    #: the build before the last one had been interrupted (its tables partly older)
    rewrote_interrupted: bool = False

    @property
    def config(self) -> dict[str, Any]:
        return self.manifest["config"]

    @property
    def metrics(self) -> list[str]:
        return list(self.config["metrics"])

    def display(self, metric: str) -> Any:
        """How ``metric`` is shown: the records' ``metric_info``, else the registry's (a
        kind's row, e.g. ``oca.windowed``, as its metric)."""
        if metric in self.kind_keys:
            metric = self.kind_keys[metric][0]
        if metric in TIMINGS:
            return TIMINGS[metric]
        if metric not in self.displays:
            self.displays[metric] = metric_display(metric)
        return self.displays[metric]

    def kind_keys_of(self, kind: str) -> list[str]:
        """The summary rows of ``kind`` (``oca.windowed``, ...), in config order."""
        return [k for k, (_, kd) in self.kind_keys.items() if kd == kind]

    def suffix(self, kind: str) -> str:
        """The header suffix of ``kind`` (``w=500``, ``α=0.999``, ``held-out``)."""
        return kind_suffix(kind, self.kinds[kind])

    def curve_axis(self, runs: list[dict[str, Any]] | None = None) -> str:
        """The x label of the learning curves of ``runs`` (default: all good runs)."""
        for r in self.runs if runs is None else runs:
            if isinstance(r.get("curve_axis"), str) and r["curve_axis"]:
                return r["curve_axis"]
        return DEFAULT_CURVE_AXIS


def _sd(values: np.ndarray) -> float:
    return float(np.std(values, ddof=1)) if values.size > 1 else 0.0


def _read(path: Path) -> tuple[Any, str | None]:
    """(parsed JSON, None), (None, None) when the file does not exist, or (None, why it
    cannot be read)."""
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    return _parse(text)


def _parse(text: bytes) -> tuple[Any, str | None]:
    """(parsed JSON, None) or (None, why ``text`` is not a JSON document)."""
    if not text.strip():
        return None, "is empty"
    try:
        return json.loads(text.decode("utf-8")), None
    except UnicodeDecodeError as exc:
        return None, f"is not UTF-8 text ({exc.reason} at byte {exc.start})"
    except json.JSONDecodeError as exc:
        return None, (f"is not valid JSON ({exc.msg} at line {exc.lineno} column "
                      f"{exc.colno}; a write was probably cut short)")
    except RecursionError:
        return None, "is not valid JSON (nested too deeply)"


def _read_record(source: record_archive.RecordStore, run_id: str) -> tuple[Any, str | None]:
    """:func:`_read` of a run's record, from ``runs/`` or the archive."""
    try:
        text = source.read_bytes(run_id)
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    return (None, None) if text is None else _parse(text)


def record_problem(rec: dict[str, Any], planned: dict[str, Any],
                   metrics: list[str]) -> str | None:
    """Why a record of status ``ok`` cannot be reported (None when it can)."""
    for key in ("stream", "algorithm"):
        if key in planned and rec.get(key) != planned[key]:
            return f"'{key}' is {rec.get(key)!r}, but the planned run has {planned[key]!r}"
    absent = [k for k in ("metrics", "timing", "curves") if k not in rec]
    if absent:
        return "the required key(s) " + ", ".join(repr(k) for k in absent) + " are missing"
    for key in ("metrics", "timing", "curves"):
        if not isinstance(rec[key], dict):
            return f"'{key}' is {type(rec[key]).__name__}, not a mapping"
    lacking = [m for m in metrics if m not in rec["metrics"]]
    if lacking:
        return "'metrics' lacks " + ", ".join(repr(m) for m in lacking)
    for name, value in rec["metrics"].items():
        if not is_number(value):
            return f"metrics.{name} is {value!r}, not a number"
    for key in ("per_sample_seconds", "per_sample_learn_seconds"):
        value = rec["timing"].get(key)
        if value is not None and not is_number(value):
            return f"timing.{key} is {value!r}, not a number"
    curves = rec["curves"]
    t = curves.get("t")
    if not isinstance(t, list):
        return "curves.t (the curves' x positions) is missing or not a list"
    for name, ys in curves.items():
        if not isinstance(ys, list) or len(ys) != len(t):
            return f"curves.{name} is not a list of {len(t)} values (one per curves.t)"
        if not all(y is None or is_number(y) for y in ys):
            return f"curves.{name} holds a value that is not a number"
    info = rec.get("metric_info")
    if info is not None:
        if not isinstance(info, dict):
            return f"'metric_info' is {type(info).__name__}, not a mapping"
        for name, entry in info.items():
            why = info_problem(entry)
            if why is not None:
                return f"metric_info.{name} {why}"
    axis = rec.get("curve_axis")
    if axis is not None and not isinstance(axis, str):
        return f"'curve_axis' is {axis!r}, not text"
    return block_problem(rec, metrics)


def _check_manifest(manifest: Any, path: Path) -> None:
    def bad(why: str) -> UserError:
        return UserError(f"{path} is not a valid experiment manifest: {why}. It is written "
                         "by `streamlearn run`; run the experiment again to rewrite it.")

    if not isinstance(manifest, dict):
        raise bad("it is not a JSON object")
    cfg, runs = manifest.get("config"), manifest.get("runs")
    if not isinstance(cfg, dict):
        raise bad("'config' is missing")
    lacking = [k for k in ("name", "protocol", "seeds", "streams", "algorithms", "metrics",
                           "outputs", "reference") if k not in cfg]
    if lacking:
        raise bad("'config' lacks " + ", ".join(repr(k) for k in lacking))
    if not isinstance(runs, list) or not all(
            isinstance(r, dict) and isinstance(r.get("run_id"), str) and "digest" in r
            for r in runs):
        raise bad("'runs' is missing or not a list of planned runs")


def load_runs(out_dir: Path) -> tuple[dict[str, Any], list[dict], list[str], list[dict]]:
    """The manifest, good records, missing run ids and failed records of ``out_dir``
    (see :func:`sort_records` for the problems and stale records too)."""
    manifest, ok, missing, failed, _, _ = sort_records(out_dir)
    return manifest, ok, missing, failed


def read_manifest(out_dir: Path) -> dict[str, Any]:
    path = out_dir / "experiment.json"
    manifest, why = _read(path)
    if manifest is None:
        raise UserError(
            f"{out_dir} is not a streamlearn results directory (no readable experiment.json"
            + (f": it {why}" if why else "")
            + "). Give the directory that `streamlearn run` wrote (outputs.dir of the config).")
    _check_manifest(manifest, path)
    return manifest


def sort_records(out_dir: Path) -> tuple[dict[str, Any], list[dict], list[str], list[dict],
                                         list[RecordProblem], list[str]]:
    """Read every planned run's record (from ``runs/``, or from the archive ``runs.tar.xz``
    when ``runs/`` holds none); sort them as the module docstring says."""
    manifest = read_manifest(out_dir)
    metrics = list(manifest["config"]["metrics"])
    source = record_archive.store(out_dir)
    ok, missing, failed, problems, stale = [], [], [], [], []
    for run in manifest["runs"]:
        rid = run["run_id"]
        path = source.path(rid)
        rec, why = _read_record(source, rid)
        if why is not None:
            problems.append(RecordProblem(rid, path, "corrupt", why))
            continue
        if rec is None:
            missing.append(rid)
            continue
        if not isinstance(rec, dict):
            problems.append(RecordProblem(rid, path, "corrupt",
                                          f"is a JSON {type(rec).__name__}, not an object"))
            continue
        if rec.get("complete") is not True:
            problems.append(RecordProblem(rid, path, "incomplete",
                                          "it is not marked complete (\"complete\": true)"))
            continue
        if (rec.get("digest") != run["digest"]
                or rec.get("schema_version") != records.SCHEMA_VERSION):
            missing.append(rid)
            stale.append(rid)
            continue
        status = rec.get("status")
        if status == "failed":
            rec.setdefault("error", "(the record does not say why)")
            failed.append(rec)
        elif status != "ok":
            problems.append(RecordProblem(rid, path, "incomplete",
                                          f"'status' is {status!r}, not 'ok' or 'failed'"))
        else:
            why = record_problem(rec, run, metrics)
            if why is None:
                ok.append(rec)
            else:
                problems.append(RecordProblem(rid, path, "incomplete", why))
    return manifest, ok, missing, failed, problems, stale


def _displays(cfg: dict[str, Any], runs: list[dict[str, Any]]) -> dict[str, type[Metric]]:
    """Display of each metric: the first record's ``metric_info`` that has it, else the
    registry's."""
    names = dict.fromkeys([*cfg["metrics"], cfg["outputs"].get("curve_metric", "")])
    names.pop("", None)
    out = {}
    for name in names:
        info = next((r["metric_info"][name] for r in runs
                     if isinstance(r.get("metric_info"), dict) and name in r["metric_info"]),
                    None)
        out[name] = metric_display(name, info)
    return out


def _row(stream: str, algo: str, metric: str, unit: str, **values: Any) -> dict[str, Any]:
    row = {"stream": stream, "algorithm": algo, "metric": metric, "mean": np.nan,
           "sd": np.nan, "n": 0, "paper": np.nan, "diff": np.nan, "kind": "run",
           "unit": unit}
    row.update(values)
    return row


def _float(x: Any) -> float:
    return float(x) if is_number(x) else math.nan


def _kind_keys(metrics: list[str], runs: list[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """The rows of the other kinds: each (kind, metric) with a value in some record, kind
    by kind in :data:`KINDS` order, metrics in config order."""
    out = {}
    for kind in KINDS:
        for metric in metrics:
            if any(isinstance(r.get(kind), dict) and metric in r[kind]["metrics"]
                   for r in runs):
                out[kind_key(metric, kind)] = (metric, kind)
    return out


def _kind_rows(stream: str, algo: str, mine: list[dict[str, Any]],
               kind_keys: dict[str, tuple[str, str]],
               displays: dict[str, type[Metric]]) -> list[dict[str, Any]]:
    """Mean, SD and n over the records of (stream, algo) (seeds × folds) of each kind row;
    in display units, with no paper value."""
    rows = []
    for key, (metric, kind) in kind_keys.items():
        m = displays[metric]
        vals = np.array([r[kind]["metrics"][metric] for r in mine
                         if isinstance(r.get(kind), dict) and metric in r[kind]["metrics"]],
                        dtype=float) * m.scale
        rows.append(_row(stream, algo, key, m.unit,
                         mean=float(vals.mean()) if vals.size else np.nan,
                         sd=_sd(vals) if vals.size else np.nan, n=int(vals.size)))
    return rows


def _cpu_rates(runs: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """Per run, from the process CPU time of its timed part (``timing.process_cpu_seconds``)
    and its sample count: CPU µs per sample and samples per CPU-second (runs without
    either are left out)."""
    cpu = np.array([_float(r["timing"].get("process_cpu_seconds")) for r in runs])
    n = np.array([_float(r["timing"].get("n_samples")) for r in runs])
    ok = np.isfinite(cpu) & np.isfinite(n) & (cpu > 0) & (n > 0)
    return {"cpu_us_per_sample": cpu[ok] / n[ok] * 1e6,
            "samples_per_cpu_second": n[ok] / cpu[ok]}


def summarize(out_dir: Path) -> Summary:
    """Read the records of ``out_dir`` and aggregate them."""
    load_all()
    out_dir = Path(out_dir)
    manifest, runs, missing, failed, problems, stale = sort_records(out_dir)
    cfg = manifest["config"]
    displays = _displays(cfg, runs)
    ref_values = cfg["reference"].get("values") or {}
    kind_keys = _kind_keys(cfg["metrics"], runs)
    rows = []
    for s in cfg["streams"]:
        s_label = s["label"]
        for a in cfg["algorithms"]:
            a_label = a["label"]
            mine = [r for r in runs if r["stream"] == s_label and r["algorithm"] == a_label]
            paper = ref_values.get(s_label, {}).get(a_label, {})
            for metric in cfg["metrics"]:
                m = displays[metric]
                vals = np.array([r["metrics"][metric] for r in mine], dtype=float) * m.scale
                ref = paper.get(metric)
                mean = float(vals.mean()) if vals.size else np.nan
                rows.append(_row(
                    s_label, a_label, metric, m.unit, mean=mean,
                    sd=_sd(vals) if vals.size else np.nan, n=int(vals.size),
                    paper=np.nan if ref is None else ref,
                    diff=np.nan if ref is None or not vals.size else mean - ref))
            rows += _kind_rows(s_label, a_label, mine, kind_keys, displays)
            for key, name in (("per_sample_seconds", "us_per_sample"),
                              ("per_sample_learn_seconds", "us_per_update")):
                vals = np.array([_float(r["timing"].get(key)) for r in mine]) * 1e6
                vals = vals[np.isfinite(vals)]
                rows.append(_row(s_label, a_label, name, TIMINGS[name].unit,
                                 mean=float(vals.mean()) if vals.size else np.nan,
                                 sd=_sd(vals) if vals.size else np.nan, n=int(vals.size)))
            if cfg["outputs"].get("cpu_time"):
                for name, vals in _cpu_rates(mine).items():
                    rows.append(_row(s_label, a_label, name, TIMINGS[name].unit,
                                     mean=float(vals.mean()) if vals.size else np.nan,
                                     sd=_sd(vals) if vals.size else np.nan,
                                     n=int(vals.size)))
        for a_label in cfg["reference"].get("cited", []):
            paper = ref_values.get(s_label, {}).get(a_label)
            if not paper:
                continue
            for metric in cfg["metrics"]:
                ref = paper.get(metric)
                rows.append(_row(s_label, a_label, metric, displays[metric].unit,
                                 paper=np.nan if ref is None else ref, kind="cited"))
    table = pd.DataFrame(rows, columns=COLUMNS)
    store = record_archive.store(out_dir)
    planned = {run["run_id"] for run in manifest["runs"]}
    return Summary(manifest=manifest, runs=runs, missing=missing, table=table, failed=failed,
                   problems=problems, stale=stale, displays=displays, out_dir=out_dir,
                   kind_keys=kind_keys, kinds=present_kinds(runs), folds=present_folds(runs),
                   archive=store.archive,
                   unplanned=[rid for rid in store.run_ids() if rid not in planned],
                   behind_archive=record_archive.archived_not_in_runs(out_dir, {
                       run["run_id"]: run.get("digest") for run in manifest["runs"]}))
