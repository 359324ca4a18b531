"""Experiment configs: YAML → validated, typed objects.

Validation is strict: unknown keys, wrong types, out-of-range values and unknown
algorithm/stream/metric names raise :class:`~streamlearn.base.UserError` naming the key
path, the bad value and the valid choices. Nothing is written before a config validates.

A config, in full::

    name: quickstart                       # [A-Za-z0-9_.-]+, names the output folder
    description: "..."                     # optional
    protocol: prequential-classification   # `streamlearn list protocols`; or, with
                                           #   parameters: {name: ..., params: {...}}
    repeats: 3                             # seeds 0..repeats-1; or `seeds: [0, 7, 42]`
    streams:
      - name: sea                          # registry name (`streamlearn list streams`)
        label: SEA                         # display label (default: name); unique
        params: {n_samples: 20000}         # constructor parameters
        shuffle: null                      # null: shuffle unless the stream has a natural order
        reseed: null                       # generated streams: new stream per seed? null:
                                           #   the stream's default (paper streams: fixed seed)
        normalize: none                    # none | minmax | zscore | range
        normalize_warmup: null             # fit the scale on the first N samples (null: all)
        normalize_range: null              # range: the declared input range [lo, hi] -> [0, 1]
        max_samples: null                  # cap after shuffling
        sweep: {}                          # e.g. {noise: [0.0, 0.1]}: one variant each
    algorithms:
      - name: hoeffding_tree               # or a dotted path `mypkg.module:MyLearner`, or
                                           #   `river: linear_model.LogisticRegression`
        label: HT                          # with a sweep: a template, e.g. "HT d={delta:g}"
                                           #   (no {field}: " delta=..." is appended)
        params: {}
        smoke_params: {}                   # overrides used by --smoke
        sweep: {}                          # e.g. {grace_period: [50, 200]}: the cartesian
                                           #   product of the lists, one labelled variant
                                           #   each, and a metric-vs-parameter plot
    metrics: [oca, bacc, avrbacc, f1, mcc] # default depends on the protocol
    evaluation: {chunk_size: 1000, checkpoints: 200, save_predictions: false,
                 memory_profile: false,       # true: extra untimed pass under tracemalloc
                 fused: true}                 # false: per-sample loop, so predict and
                                              #   update are timed separately
    outputs: {dir: results/quickstart,     # relative: to the working directory; ~ = home
              tables: [markdown, csv],
              plots: [learning_curve, time, sweep], curve_metric: oce}
    reference:                             # the paper's numbers, for side-by-side tables
      source: "Online-BLS, Table 4"
      values: {SEA: {HT: {oca: 86.4}}}     # stream label → algorithm label → metric →
                                           #   value in the metric's display unit (% here)
      cited: [HBP]                         # algorithm labels shown only as cited values
    smoke: {max_samples: 2000, repeats: 1,
            protocol_params: {}}            # overrides of protocol.params for --smoke
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from streamlearn.base import ConfigError, UserError, _close_matches, physical_memory_bytes
from streamlearn.file_names import (
    MAX_NAME_BYTES,
    RUN_FILE_SUFFIX,
    run_id,
    slug_collisions,
    unprintable_at,
)

_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]+$")




# --------------------------------------------------------------------------------------
# Typed config objects
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepPoint:
    """One variant of a swept config entry: the entry it came from (``group``, its label
    template) and the swept parameters' values for this variant."""

    group: str
    values: tuple[tuple[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"group": self.group, "values": dict(self.values)}


@dataclass(frozen=True)
class StreamConfig:
    name: str
    label: str
    params: dict[str, Any] = field(default_factory=dict)
    shuffle: bool | None = None
    reseed: bool | None = None
    normalize: str = "none"
    normalize_warmup: int | None = None
    normalize_range: tuple[float, float] | None = None
    max_samples: int | None = None
    sweep: SweepPoint | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "name": self.name,
            "label": self.label,
            "params": dict(self.params),
            "shuffle": self.shuffle,
            "reseed": self.reseed,
            "normalize": self.normalize,
            "normalize_warmup": self.normalize_warmup,
            "max_samples": self.max_samples,
        }
        if self.normalize_range is not None:  # only when set: keeps older run digests
            d["normalize_range"] = list(self.normalize_range)
        if self.sweep is not None:
            d["sweep"] = self.sweep.to_dict()
        return d


@dataclass(frozen=True)
class AlgorithmConfig:
    name: str
    label: str
    params: dict[str, Any] = field(default_factory=dict)
    smoke_params: dict[str, Any] = field(default_factory=dict)
    sweep: SweepPoint | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {
            "name": self.name,
            "label": self.label,
            "params": dict(self.params),
            "smoke_params": dict(self.smoke_params),
        }
        if self.sweep is not None:
            d["sweep"] = self.sweep.to_dict()
        return d


@dataclass(frozen=True)
class EvaluationConfig:
    chunk_size: int = 1000
    checkpoints: int = 200
    save_predictions: bool = False
    memory_profile: bool = False
    fused: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "fused": self.fused,
            "chunk_size": self.chunk_size,
            "checkpoints": self.checkpoints,
            "save_predictions": self.save_predictions,
            "memory_profile": self.memory_profile,
        }


@dataclass(frozen=True)
class OutputsConfig:
    dir: str
    tables: tuple[str, ...] = ("markdown", "csv")
    plots: tuple[str, ...] = ("learning_curve", "time")
    curve_metric: str = "oce"

    def to_dict(self) -> dict[str, Any]:
        return {
            "dir": self.dir,
            "tables": list(self.tables),
            "plots": list(self.plots),
            "curve_metric": self.curve_metric,
        }


@dataclass(frozen=True)
class ReferenceConfig:
    source: str = ""
    values: dict[str, dict[str, dict[str, float | None]]] = field(default_factory=dict)
    cited: tuple[str, ...] = ()
    notes: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "values": self.values,
            "cited": list(self.cited),
            "notes": self.notes,
        }


@dataclass(frozen=True)
class SmokeConfig:
    max_samples: int = 2000
    repeats: int = 1
    protocol_params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"max_samples": self.max_samples, "repeats": self.repeats}
        if self.protocol_params:  # only when set (e.g. a smaller grown network)
            d["protocol_params"] = dict(self.protocol_params)
        return d


@dataclass(frozen=True)
class ExperimentConfig:
    name: str
    protocol: str
    seeds: tuple[int, ...]
    streams: tuple[StreamConfig, ...]
    algorithms: tuple[AlgorithmConfig, ...]
    metrics: tuple[str, ...]
    evaluation: EvaluationConfig
    outputs: OutputsConfig
    reference: ReferenceConfig
    smoke: SmokeConfig
    description: str = ""
    source_path: str | None = None
    protocol_params: dict[str, Any] = field(default_factory=dict)
    #: notes for the user from validation (optional entries left out); in no digest
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "protocol": self.protocol,
            "protocol_params": dict(self.protocol_params),
            "seeds": list(self.seeds),
            "streams": [s.to_dict() for s in self.streams],
            "algorithms": [a.to_dict() for a in self.algorithms],
            "metrics": list(self.metrics),
            "evaluation": self.evaluation.to_dict(),
            "outputs": self.outputs.to_dict(),
            "reference": self.reference.to_dict(),
            "smoke": self.smoke.to_dict(),
        }

    def smoke_version(self) -> ExperimentConfig:
        """The config as ``--smoke`` runs it: few samples, one repetition, tiny budgets."""
        streams = tuple(
            StreamConfig(
                **{
                    **s.to_dict(),
                    "normalize_range": s.normalize_range,
                    "sweep": s.sweep,
                    "max_samples": min(s.max_samples or self.smoke.max_samples,
                                       self.smoke.max_samples),
                    "normalize_warmup": (
                        None if s.normalize_warmup is None
                        else min(s.normalize_warmup, self.smoke.max_samples)
                    ),
                }
            )
            for s in self.streams
        )
        algorithms = tuple(
            AlgorithmConfig(
                name=a.name,
                label=a.label,
                params={**a.params, **a.smoke_params},
                smoke_params={},
                sweep=a.sweep,
            )
            for a in self.algorithms
        )
        return ExperimentConfig(
            name=self.name,
            protocol=self.protocol,
            seeds=self.seeds[: self.smoke.repeats],
            streams=streams,
            algorithms=algorithms,
            metrics=self.metrics,
            evaluation=self.evaluation,
            outputs=self.outputs,
            reference=self.reference,
            smoke=self.smoke,
            description=self.description,
            source_path=self.source_path,
            notes=self.notes,
            protocol_params={**self.protocol_params, **self.smoke.protocol_params},
        )


# --------------------------------------------------------------------------------------
# Validation helpers
# --------------------------------------------------------------------------------------


def _fail(path: str, message: str) -> ConfigError:
    return ConfigError.at(path, message)


def _type_name(value: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean",
            int: "an integer", float: "a number", type(None): "null"}.get(type(value),
                                                                          type(value).__name__)


def _check_keys(d: dict[str, Any], path: str, allowed: set[str], required: set[str]) -> None:
    for key in d:
        if not isinstance(key, str):
            raise _fail(path, f"keys must be strings, got {key!r}.")
        if key not in allowed:
            raise _fail(
                f"{path}.{key}" if path else key,
                f"unknown key {key!r}.{_close_matches(key, sorted(allowed))} "
                f"Valid keys here: {', '.join(sorted(allowed))}.",
            )
    for key in sorted(required):
        if key not in d:
            raise _fail(path or "<top level>", f"the required key {key!r} is missing.")


def _mapping(value: Any, path: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _fail(path, f"expected a mapping (key: value), got {_type_name(value)} {value!r}.")
    return value


def _opt_int(value: Any, path: str, low: int | None = None,
             allow_none: bool = False) -> int | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(path, f"expected an integer, got {_type_name(value)} {value!r}.")
    if low is not None and value < low:
        raise _fail(path, f"must be ≥ {low}, got {value}.")
    return value


def _int(value: Any, path: str, low: int | None = None) -> int:
    out = _opt_int(value, path, low)
    assert out is not None
    return out


def _str(value: Any, path: str) -> str:
    if not isinstance(value, str) or not value:
        raise _fail(path, f"expected a non-empty string, got {_type_name(value)} {value!r}.")
    return value


def _label(value: Any, path: str, how: str = "") -> str:
    """A label: a non-empty string of plain printable text (it becomes a table row or
    heading, a plot legend and part of file names). ``how`` says where the text came from
    when it was derived (e.g. a filled sweep template)."""
    import unicodedata

    label = _str(value, path)
    k = unprintable_at(label)
    if k is not None:
        ch = label[k]
        name = unicodedata.name(ch, f"U+{ord(ch):04X}")
        raise _fail(path, f"the label {label!r}{how} contains the unprintable character "
                    f"{ch!r} ({name}) at position {k + 1}; a label is plain printable "
                    "text on one line (it becomes a table row, a heading and part of "
                    "file names).")
    if label != label.strip():
        raise _fail(path, f"the label {label!r}{how} starts or ends with a space; remove it.")
    return label


def _opt_bool(value: Any, path: str, allow_none: bool = False) -> bool | None:
    if value is None and allow_none:
        return None
    if not isinstance(value, bool):
        raise _fail(path, f"expected true or false, got {_type_name(value)} {value!r}.")
    return value


def _bool(value: Any, path: str) -> bool:
    out = _opt_bool(value, path)
    assert out is not None
    return out


def _choice(value: Any, path: str, choices: list[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        hint = _close_matches(str(value), choices)
        raise _fail(path, f"invalid value {value!r}.{hint} Valid values: {', '.join(choices)}.")
    return value


def _str_list(value: Any, path: str, choices: list[str] | None = None) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise _fail(path, f"expected a list, got {_type_name(value)} {value!r}.")
    out = []
    for i, item in enumerate(value):
        if choices is not None:
            out.append(_choice(item, f"{path}[{i}]", choices))
        else:
            out.append(_str(item, f"{path}[{i}]"))
    if len(set(out)) != len(out):
        raise _fail(path, f"duplicate entries in {out}.")
    return tuple(out)


# --------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------

_TOP_KEYS = {"name", "description", "protocol", "repeats", "seeds", "streams", "algorithms",
             "metrics", "evaluation", "outputs", "reference", "smoke"}
_STREAM_KEYS = {"name", "label", "params", "shuffle", "reseed", "normalize",
                "normalize_warmup", "normalize_range", "max_samples", "sweep"}
_ALGO_KEYS = {"name", "river", "label", "params", "smoke_params", "sweep", "optional"}
NORMALIZERS = ["none", "minmax", "zscore", "range"]
TABLE_FORMATS = ["markdown", "csv"]
PLOT_KINDS = ["learning_curve", "time", "sweep"]


def _range(value: Any, path: str) -> tuple[float, float] | None:
    """A declared ``[lo, hi]`` input range (finite numbers, ``lo < hi``) or None."""
    if value is None:
        return None
    ok = (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    )
    if ok:
        lo, hi = float(value[0]), float(value[1])
        ok = math.isfinite(lo) and math.isfinite(hi) and lo < hi
    if not ok:
        raise _fail(path, f"must be a list [lo, hi] of two finite numbers with lo < hi, got "
                    f"{value!r}.")
    return lo, hi


def _sweep_label_value(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _parse_sweep(raw: Any, path: str, fixed: dict[str, Any]) -> list[tuple[tuple[str, Any], ...]]:
    """``{param: [v1, v2, ...], ...}`` → the cartesian product, in the order written."""
    import itertools

    d = _mapping(raw, path)
    if not d:
        raise _fail(path, "is empty: give at least one parameter with a list of values.")
    axes = []
    for key, values in d.items():
        if not isinstance(key, str):
            raise _fail(path, f"keys must be parameter names, got {key!r}.")
        if key in fixed:
            raise _fail(f"{path}.{key}", f"{key!r} is both swept and fixed in params; "
                        "remove it from one of them.")
        if not isinstance(values, list) or not values:
            raise _fail(f"{path}.{key}", f"expected a non-empty list of values, got "
                        f"{_type_name(values)} {values!r}.")
        reprs = [repr(v) for v in values]
        if len(set(reprs)) != len(reprs):
            raise _fail(f"{path}.{key}", f"duplicate values in {values!r}.")
        axes.append([(key, v) for v in values])
    return [tuple(combo) for combo in itertools.product(*axes)]


def _sweep_label(template: str, values: tuple[tuple[str, Any], ...], path: str) -> str:
    """``template.format(**values)`` when it has ``{param}`` fields, else
    ``"template p1=v1 p2=v2"``."""
    if "{" in template:
        try:
            label = template.format(**dict(values))
        except (KeyError, IndexError, ValueError) as exc:
            raise _fail(path, f"cannot fill the label template {template!r} with the swept "
                        f"values {dict(values)}: {exc!r}. Use {{param}} or {{param:g}} "
                        "fields named after swept parameters.") from None
    else:
        label = " ".join([template, *(f"{k}={_sweep_label_value(v)}" for k, v in values)])
    return _label(label, path, f" (the template {template!r} filled with the swept values "
                  f"{dict(values)})")


def _parse_stream(raw: Any, path: str) -> list[StreamConfig]:
    if isinstance(raw, str):
        raw = {"name": raw}
    d = _mapping(raw, path)
    _check_keys(d, path, _STREAM_KEYS, {"name"})
    name = _str(d["name"], f"{path}.name")
    label = _label(d.get("label", name), f"{path}.label" if "label" in d else f"{path}.name",
                   "" if "label" in d else " (derived from the name)")
    params = dict(_mapping(d.get("params"), f"{path}.params"))
    common: dict[str, Any] = dict(
        name=name,
        shuffle=_opt_bool(d.get("shuffle"), f"{path}.shuffle", allow_none=True),
        reseed=_opt_bool(d.get("reseed"), f"{path}.reseed", allow_none=True),
        normalize=_choice(d.get("normalize", "none"), f"{path}.normalize", NORMALIZERS),
        normalize_warmup=_opt_int(d.get("normalize_warmup"), f"{path}.normalize_warmup", 2,
                                  True),
        normalize_range=_range(d.get("normalize_range"), f"{path}.normalize_range"),
        max_samples=_opt_int(d.get("max_samples"), f"{path}.max_samples", 1, True),
    )
    if "sweep" not in d:
        return [StreamConfig(label=label, params=params, **common)]
    return [
        StreamConfig(label=_sweep_label(label, combo, f"{path}.label"),
                     params={**params, **dict(combo)},
                     sweep=SweepPoint(group=label, values=combo), **common)
        for combo in _parse_sweep(d["sweep"], f"{path}.sweep", params)
    ]


def _parse_algorithm(raw: Any, path: str) -> list[AlgorithmConfig]:
    if isinstance(raw, str):
        raw = {"name": raw}
    d = _mapping(raw, path)
    if "river" in d:  # `river: linear_model.LogisticRegression`: a River estimator by path
        from streamlearn.components import river_entry

        d = river_entry(d, path)
    _check_keys(d, path, _ALGO_KEYS, {"name"})
    name = _str(d["name"], f"{path}.name")
    label = _label(d.get("label", name), f"{path}.label" if "label" in d else f"{path}.name",
                   "" if "label" in d else " (derived from the name)")
    params = dict(_mapping(d.get("params"), f"{path}.params"))
    smoke_params = dict(_mapping(d.get("smoke_params"), f"{path}.smoke_params"))
    if "sweep" not in d:
        return [AlgorithmConfig(name=name, label=label, params=params,
                                smoke_params=smoke_params)]
    return [
        AlgorithmConfig(name=name, label=_sweep_label(label, combo, f"{path}.label"),
                        params={**params, **dict(combo)}, smoke_params=smoke_params,
                        sweep=SweepPoint(group=label, values=combo))
        for combo in _parse_sweep(d["sweep"], f"{path}.sweep", params)
    ]


def _parse_reference(raw: Any, path: str) -> ReferenceConfig:
    d = _mapping(raw, path)
    _check_keys(d, path, {"source", "values", "cited", "notes"}, set())
    values: dict[str, dict[str, dict[str, float | None]]] = {}
    for s_label, per_algo in _mapping(d.get("values"), f"{path}.values").items():
        values[s_label] = {}
        for a_label, per_metric in _mapping(per_algo, f"{path}.values.{s_label}").items():
            p = f"{path}.values.{s_label}.{a_label}"
            values[s_label][a_label] = {}
            for metric, v in _mapping(per_metric, p).items():
                if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)):
                    raise _fail(f"{p}.{metric}", f"expected a number (percent), got {v!r}.")
                values[s_label][a_label][metric] = None if v is None else float(v)
    cited = _str_list(d.get("cited", []), f"{path}.cited")
    for i, label in enumerate(cited):  # shown as table rows beside the algorithms
        _label(label, f"{path}.cited[{i}]")
    return ReferenceConfig(
        source=str(d.get("source", "")),
        values=values,
        cited=cited,
        notes=str(d.get("notes", "")),
    )


def _parse_protocol(raw: Any) -> tuple[str, dict[str, Any], Any]:
    """``protocol: NAME`` or ``protocol: {name: NAME, params: {...}}`` → name, params and
    the validated protocol object."""
    from streamlearn import registry

    if isinstance(raw, dict):
        _check_keys(raw, "protocol", {"name", "params"}, {"name"})
        name = _str(raw["name"], "protocol.name")
        params = dict(_mapping(raw.get("params"), "protocol.params"))
        path = "protocol.name"
    else:
        name, params, path = raw, {}, "protocol"
    name = _choice(name, path, sorted(registry.PROTOCOLS))
    cls = registry.PROTOCOLS[name]
    return name, params, _build(cls, params, "protocol.params")


def _labels_distinct(kind: str, labels: list[str]) -> None:
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise _fail(kind, f"duplicate labels {dup}; give each entry a distinct 'label'.")
    for first, second, slugged in slug_collisions(labels):
        raise _fail(kind, f"the labels {first!r} and {second!r} give the same file name "
                    f"{slugged!r} (labels are reduced to letters, digits, '_', '.' and '-', "
                    "case ignored), so one run's results would overwrite the other's. "
                    "Make them differ in letters or digits.")


def parse_config(raw: Any, source_path: str | None = None) -> ExperimentConfig:
    """Validate a loaded YAML document and return the typed config."""
    from streamlearn import components, registry

    components.load_all()
    d = _mapping(raw, "<top level>")
    if not d:
        raise ConfigError("The config is empty: it needs at least name, streams and algorithms.")
    _check_keys(d, "", _TOP_KEYS, {"name", "streams", "algorithms"})

    name = _str(d["name"], "name")
    if not _NAME_RE.match(name) or set(name) == {"."}:
        raise _fail("name", f"{name!r} may only contain letters, digits, '_', '.' and '-', "
                    "and may not be '.' or '..'.")
    protocol, protocol_params, proto = _parse_protocol(
        d.get("protocol", "prequential-classification"))
    task = proto.task

    if "seeds" in d and "repeats" in d:
        raise _fail("seeds", "give either 'seeds' or 'repeats', not both.")
    if "seeds" in d:
        raw_seeds = d["seeds"]
        if not isinstance(raw_seeds, list) or not raw_seeds:
            raise _fail("seeds", f"expected a non-empty list of integers, got {raw_seeds!r}.")
        seeds = tuple(_int(s, f"seeds[{i}]", 0) for i, s in enumerate(raw_seeds))
        if len(set(seeds)) != len(seeds):
            raise _fail("seeds", f"duplicate seeds in {list(seeds)}.")
    else:
        repeats = _int(d.get("repeats", 1), "repeats", 1)
        if repeats > MAX_REPEATS:
            raise _fail("repeats", f"{repeats:,} repetitions is more than {MAX_REPEATS:,}; "
                        "a config this large is almost certainly a typo.")
        seeds = tuple(range(repeats))

    raw_streams = d["streams"]
    if not isinstance(raw_streams, list) or not raw_streams:
        raise _fail("streams", f"expected a non-empty list, got {_type_name(raw_streams)}.")
    streams = tuple(s for i, r in enumerate(raw_streams)
                    for s in _parse_stream(r, f"streams[{i}]"))
    raw_algos = d["algorithms"]
    if not isinstance(raw_algos, list) or not raw_algos:
        raise _fail("algorithms", f"expected a non-empty list, got {_type_name(raw_algos)}.")
    from streamlearn.components import drop_unavailable

    raw_algos, notes = drop_unavailable(raw_algos)  # `optional: true` entries that cannot run
    algorithms = tuple(a for i, r in enumerate(raw_algos)
                       for a in _parse_algorithm(r, f"algorithms[{i}]"))
    _labels_distinct("streams", [s.label for s in streams])
    _labels_distinct("algorithms", [a.label for a in algorithms])
    n_runs = len(streams) * len(algorithms) * len(seeds)
    if n_runs > MAX_RUNS:
        raise _fail("<top level>", f"{len(streams)} stream(s) × {len(algorithms)} "
                    f"algorithm(s) × {len(seeds)} seed(s) = {n_runs:,} runs, more than "
                    f"{MAX_RUNS:,}; split the experiment into several configs.")
    longest = max(len(run_id(s.label, a.label, max(seeds)).encode())
                  for s in streams for a in algorithms) + len(RUN_FILE_SUFFIX)
    if longest > MAX_NAME_BYTES:
        raise _fail("algorithms", f"a stream label, an algorithm label and a seed give a "
                    f"record file name of {longest} bytes; file systems allow "
                    f"{MAX_NAME_BYTES}. Shorten the labels.")

    metric_names = sorted(n for n, m in registry.METRICS.items() if m.task == task)
    metrics = _str_list(d.get("metrics", list(proto.default_metrics)), "metrics", metric_names)
    if not metrics:
        raise _fail("metrics", "is empty; name at least one metric (or remove the key for "
                    f"the protocol's defaults: {', '.join(proto.default_metrics)}).")
    for i, m in enumerate(metrics):
        missing = sorted(set(registry.METRICS[m].requires) - set(proto.provides))
        if missing:
            raise _fail(f"metrics[{i}]", f"metric {m!r} needs {', '.join(missing)}, which "
                        f"protocol {protocol!r} does not provide.")

    ev = _mapping(d.get("evaluation"), "evaluation")
    _check_keys(ev, "evaluation",
                {"chunk_size", "checkpoints", "save_predictions", "memory_profile", "fused"},
                set())
    evaluation = EvaluationConfig(
        chunk_size=_int(ev.get("chunk_size", 1000), "evaluation.chunk_size", 1),
        checkpoints=_int(ev.get("checkpoints", 200), "evaluation.checkpoints", 2),
        save_predictions=_bool(ev.get("save_predictions", False), "evaluation.save_predictions"),
        memory_profile=_bool(ev.get("memory_profile", False), "evaluation.memory_profile"),
        fused=_bool(ev.get("fused", True), "evaluation.fused"),
    )
    if evaluation.checkpoints > MAX_CHECKPOINTS:
        raise _fail("evaluation.checkpoints", f"{evaluation.checkpoints:,} is more than "
                    f"{MAX_CHECKPOINTS:,} points per curve.")

    out = _mapping(d.get("outputs"), "outputs")
    _check_keys(out, "outputs", {"dir", "tables", "plots", "curve_metric"}, set())
    curve_metric = _choice(out.get("curve_metric", proto.default_curve_metric),
                           "outputs.curve_metric", metric_names)
    has_sweep = (any(x.sweep is not None for x in streams)
                 or any(x.sweep is not None for x in algorithms))
    default_plots = list(PLOT_KINDS) if has_sweep else ["learning_curve", "time"]
    outputs = OutputsConfig(
        # '~' means the home directory, as in a shell; a relative path is resolved against
        # the working directory of `streamlearn run`.
        dir=str(Path(_str(out.get("dir", f"results/{name}"), "outputs.dir")).expanduser()),
        tables=_str_list(out.get("tables", list(TABLE_FORMATS)), "outputs.tables", TABLE_FORMATS),
        plots=_str_list(out.get("plots", default_plots), "outputs.plots", PLOT_KINDS),
        curve_metric=curve_metric,
    )
    reference = _parse_reference(d.get("reference"), "reference")
    sm = _mapping(d.get("smoke"), "smoke")
    _check_keys(sm, "smoke", {"max_samples", "repeats", "protocol_params"}, set())
    smoke = SmokeConfig(
        max_samples=_int(sm.get("max_samples", 2000), "smoke.max_samples", 10),
        repeats=_int(sm.get("repeats", 1), "smoke.repeats", 1),
        protocol_params=dict(_mapping(sm.get("protocol_params"), "smoke.protocol_params")),
    )
    if smoke.protocol_params:  # the protocol as --smoke builds it must validate too
        _build(type(proto), {**protocol_params, **smoke.protocol_params},
               "smoke.protocol_params")
    cfg = ExperimentConfig(
        name=name,
        description=str(d.get("description", "")),
        protocol=protocol,
        protocol_params=protocol_params,
        seeds=seeds,
        streams=streams,
        algorithms=algorithms,
        metrics=metrics,
        evaluation=evaluation,
        outputs=outputs,
        reference=reference,
        smoke=smoke,
        source_path=source_path,
        notes=notes,
    )
    _check_components(cfg, proto)
    return cfg


MAX_REPEATS = 10_000
MAX_RUNS = 100_000
MAX_CHECKPOINTS = 100_000


def _check_components(cfg: ExperimentConfig, proto: Any) -> None:
    """Resolve every name and build every object once, so parameter errors surface now."""
    from streamlearn import components, registry

    task = proto.task
    stream_objects: list[Any] = []
    for i, s in enumerate(cfg.streams):
        path = f"streams[{i}]" if s.sweep is None else f"streams (label {s.label!r})"
        cls = _lookup(components.get_stream, s.name, f"{path}.name")
        if cls.task != task:
            raise _fail(f"{path}.name", f"stream {s.name!r} is a {cls.task} stream, but protocol "
                        f"{cfg.protocol!r} needs {task} streams.")
        stream_objects.append(_build(cls, s.params, f"{path}.params"))
        if s.reseed and "seed" not in cls._param_names():
            raise _fail(f"{path}.reseed", f"stream {s.name!r} has no seed to vary.")
        if s.reseed and "seed" in s.params:
            raise _fail(f"{path}.reseed", "is true but params.seed fixes the seed; "
                        "remove one of them.")
        if s.normalize_warmup is not None and s.normalize in ("none", "range"):
            raise _fail(f"{path}.normalize_warmup", f"is set but 'normalize' is "
                        f"{s.normalize!r} (nothing is fitted).")
        if (s.normalize == "range") != (s.normalize_range is not None):
            raise _fail(f"{path}.normalize_range", "is required with 'normalize: range' (the "
                        "declared input range [lo, hi]) and allowed only with it.")
        if (s.normalize_warmup is not None and s.max_samples is not None
                and s.normalize_warmup > s.max_samples):
            raise _fail(f"{path}.normalize_warmup", f"{s.normalize_warmup} is larger than "
                        f"max_samples ({s.max_samples}): the scale would be fitted on "
                        "samples the run never sees.")
    sizes: list[tuple[int, int] | None] = []
    ram = physical_memory_bytes()
    for i, s in enumerate(cfg.streams):
        size = stream_objects[i].estimate_size()
        if size is not None and s.max_samples is not None:
            size = (min(size[0], s.max_samples), size[1])
        if size is not None and ram and 8 * size[0] * (size[1] + 1) > ram:
            raise _fail(f"streams[{i}].params", f"stream {s.label!r} has {size[0]:,} samples "
                        f"× {size[1]} feature(s): at least {_bytes(8 * size[0] * (size[1] + 1))}"
                        f" in memory, more than this machine has ({_bytes(ram)}). Lower "
                        "n_samples or set max_samples.")
        if (size is not None and s.normalize_warmup is not None
                and s.normalize_warmup > size[0]):
            raise _fail(f"streams[{i}].normalize_warmup", f"{s.normalize_warmup} is larger "
                        f"than the stream ({size[0]} samples): the scale cannot be fitted on "
                        "a prefix that long.")
        sizes.append(size)
    widths = [sz[1] for sz in sizes if sz is not None] or [1]
    for i, a in enumerate(cfg.algorithms):
        path = f"algorithms[{i}]" if a.sweep is None else f"algorithms (label {a.label!r})"
        cls = _lookup(components.get_algorithm, a.name, f"{path}.name")
        unavailable = getattr(cls, "unavailable_reason", None)
        reason = unavailable() if callable(unavailable) else None
        if reason:
            raise _fail(f"{path}.name", f"algorithm {a.name!r} cannot run here: {reason}. "
                        "Mark the entry `optional: true` to leave it out instead.")
        why = proto.incompatibility(cls)
        if why is not None:
            raise _fail(f"{path}.name", f"protocol {cfg.protocol!r} cannot run algorithm "
                        f"{a.name!r}: {why}.")
        provides_for = getattr(proto, "provides_for", None)
        given = provides_for(cls) if callable(provides_for) else proto.provides
        for m in cfg.metrics:
            lacking = sorted(set(registry.METRICS[m].requires) - set(given))
            if lacking:
                raise _fail(f"{path}.name", f"metric {m!r} needs {', '.join(lacking)}, which "
                            f"protocol {cfg.protocol!r} does not provide for algorithm "
                            f"{a.name!r} (it does not expose them).")
        _build(cls, a.params, f"{path}.params")
        _build(cls, {**a.params, **a.smoke_params}, f"{path}.smoke_params")
        need = cls.estimate_bytes(a.params, max(widths), None)
        if need is not None and ram and need > ram:
            raise _fail(f"{path}.params", f"algorithm {a.label!r} needs at least "
                        f"{_bytes(need)} of memory for its state with these parameters, "
                        f"more than this machine has ({_bytes(ram)}).")
    stream_labels = {s.label for s in cfg.streams}
    algo_labels = {a.label for a in cfg.algorithms} | set(cfg.reference.cited)
    for s_label, per_algo in cfg.reference.values.items():
        if s_label not in stream_labels:
            raise _fail(f"reference.values.{s_label}", f"no stream has label {s_label!r}."
                        f"{_close_matches(s_label, sorted(stream_labels))} "
                        f"Stream labels: {', '.join(sorted(stream_labels))}.")
        for a_label in per_algo:
            if a_label not in algo_labels:
                raise _fail(f"reference.values.{s_label}.{a_label}",
                            f"no algorithm (or cited entry) has label {a_label!r}."
                            f"{_close_matches(a_label, sorted(algo_labels))} "
                            f"Labels: {', '.join(sorted(algo_labels))}.")


def _bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    return f"{n:.1f} PiB"  # pragma: no cover


def _lookup(getter: Any, name: str, path: str) -> Any:
    try:
        return getter(name)
    except UserError as exc:
        raise _fail(path, str(exc)) from None


def _build(cls: Any, params: dict[str, Any], path: str) -> Any:
    from streamlearn.interrupts import SigintWatch

    with SigintWatch() as interrupt:
        try:
            cls.check_param_names(params)
            return cls(**params)
        except UserError as exc:
            raise _fail(path, str(exc)) from None
        except (TypeError, ValueError) as exc:
            raise _fail(path, f"{cls.__name__} rejected these parameters: {exc}") from None
        except BaseException as exc:  # its own code raised (SystemExit, RuntimeError, ...)
            if interrupt.seen:  # a real Ctrl-C, not the class's own KeyboardInterrupt
                raise
            raise _fail(path, f"building {cls.__name__} failed: {type(exc).__name__}: "
                        f"{exc}") from None


def load_config(path: str | Path) -> ExperimentConfig:
    """Read and validate a YAML config file (strict: duplicate keys, alias bombs and deep
    nesting are refused, see :mod:`streamlearn.config.yaml_loader`)."""
    from streamlearn.config.yaml_loader import MAX_BYTES, YAMLConfigError, load_yaml

    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"Config file not found: {p}")
    try:
        if p.stat().st_size > MAX_BYTES:
            raise ConfigError(f"{p} is larger than {MAX_BYTES // 1024} KiB; a config is far "
                              "smaller.")
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"Cannot read config file {p}: {exc}") from None
    try:
        raw = load_yaml(text)
    except YAMLConfigError as exc:
        raise ConfigError(f"{p}: {exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{p} is not valid YAML: {exc}") from None
    return parse_config(raw, source_path=str(p))
