"""A loaded YAML document → a validated :class:`~streamlearn.config.model.ExperimentConfig`.

Validation is strict: unknown keys, wrong types, out-of-range values and unknown
algorithm/stream/metric names raise :class:`~streamlearn.errors.ConfigError` naming the key
path, the bad value and the valid choices. Nothing is written before a config validates.

Keys, kinds, ranges and defaults come from the declaration in
:mod:`streamlearn.config.schema`; this module adds what ties keys together and to the
registries: sweeps, labels, the protocol and the metrics it provides, each learner's
parameters (checked without building the learner: the run builds it, once), each
stream (built, for its size) and the sizes of the experiment.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from streamlearn.base import physical_memory_bytes
from streamlearn.config.fields import Context, fail, label, mapping
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
from streamlearn.config.schema import (
    ALGORITHM,
    CONFIG,
    MAX_RUNS,
    OUTPUTS,
    PLOT_KINDS,
    REFERENCE,
    SMOKE,
    STREAM,
)
from streamlearn.errors import ConfigError, UserError
from streamlearn.file_names import MAX_NAME_BYTES, RUN_FILE_SUFFIX, run_id, slug_collisions
from streamlearn.params import _close_matches

__all__ = ["parse_config"]


def parse_config(raw: Any, source_path: str | None = None) -> ExperimentConfig:
    """Validate a loaded YAML document and return the typed config."""
    from streamlearn import components, registry
    from streamlearn.components import drop_unavailable

    components.load_all()
    d = mapping(raw, "<top level>")
    if not d:
        required = CONFIG.required
        raise ConfigError(f"The config is empty: it needs at least "
                          f"{', '.join(required[:-1])} and {required[-1]}.")
    CONFIG.check_keys(d, "")
    names: dict[str, Any] = {"protocols": sorted(registry.PROTOCOLS)}

    name = CONFIG.value(d, "name", "", names)
    protocol, protocol_params, proto = _parse_protocol(CONFIG.value(d, "protocol", "", names))
    seeds = (CONFIG.value(d, "seeds", "", names) if "seeds" in d
             else tuple(range(CONFIG.value(d, "repeats", "", names))))

    stream_entries = [_parse_stream(r, f"streams[{i}]", names)
                      for i, r in enumerate(CONFIG.value(d, "streams", "", names))]
    # `optional: true` entries whose learner cannot run here are left out, with a note
    raw_algos, notes = drop_unavailable(CONFIG.value(d, "algorithms", "", names))
    algorithm_entries = [_parse_algorithm(r, f"algorithms[{i}]", names)
                         for i, r in enumerate(raw_algos)]
    _sweep_groups_distinct("streams", stream_entries)
    _sweep_groups_distinct("algorithms", algorithm_entries)
    streams = tuple(s for entry in stream_entries for s in entry)
    algorithms = tuple(a for entry in algorithm_entries for a in entry)
    _labels_distinct("streams", [s.label for s in streams])
    _labels_distinct("algorithms", [a.label for a in algorithms])
    _run_names_distinct([s.label for s in streams], [a.label for a in algorithms])
    _check_sizes(streams, algorithms, seeds, proto.fold_count())

    names["metrics"] = sorted(n for n, m in registry.METRICS.items() if m.task == proto.task)
    defaults = list(proto.default_metrics)
    if "metrics" not in d:  # the defaults may depend on the kind of stream
        defaults = list(proto.default_metrics_for([_lookup(components.get_stream, s.name,
                                             f"streams (label {s.label!r}).name")
                                     for s in streams]))
    names["default_metrics"] = defaults
    metrics = CONFIG.value(d, "metrics", "", names, default=defaults)
    for i, m in enumerate(metrics):
        missing = sorted(set(registry.METRICS[m].requires) - set(proto.provides))
        if missing:
            raise fail(f"metrics[{i}]", f"metric {m!r} needs {', '.join(missing)}, which "
                       f"protocol {protocol!r} does not provide.")

    evaluation = EvaluationConfig(**CONFIG.value(d, "evaluation", "", names))
    has_sweep = (any(s.sweep is not None for s in streams)
                 or any(a.sweep is not None for a in algorithms))
    out = OUTPUTS.parse(d.get("outputs"), "outputs", names, defaults={
        "dir": f"results/{name}",
        "plots": list(PLOT_KINDS) if has_sweep else ["learning_curve", "time"],
        "curve_metric": proto.default_curve_metric,
    })
    # '~' means the home directory, as in a shell; a relative path is resolved against
    # the working directory of `streamlearn run`.
    outputs = OutputsConfig(**{**out, "dir": str(Path(out["dir"]).expanduser())})
    reference = ReferenceConfig(**REFERENCE.parse(d.get("reference"), "reference", names))
    smoke = SmokeConfig(**SMOKE.parse(d.get("smoke"), "smoke", names))
    if smoke.protocol_params:  # the protocol as --smoke builds it must validate too
        _build(type(proto), {**protocol_params, **smoke.protocol_params},
               "smoke.protocol_params")
    cfg = ExperimentConfig(
        name=name,
        description=CONFIG.value(d, "description", "", names),
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


# --------------------------------------------------------------------------------------
# Entries
# --------------------------------------------------------------------------------------


def _parse_protocol(value: str | dict[str, Any]) -> tuple[str, dict[str, Any], Any]:
    """``protocol: NAME`` or ``protocol: {name: NAME, params: {...}}`` (already parsed) →
    name, params and the validated protocol object."""
    from streamlearn import registry

    if isinstance(value, dict):
        name, params = value["name"], value["params"]
    else:
        name, params = value, {}
    return name, params, _build(registry.PROTOCOLS[name], params, "protocol.params")


def _sweep_label_value(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _sweep_points(sweep: dict[str, list[Any]], path: str,
                  fixed: dict[str, Any]) -> list[tuple[tuple[str, Any], ...]]:
    """The cartesian product of a parsed ``sweep``, in the order written."""
    for key in sweep:
        if key in fixed:
            raise fail(f"{path}.{key}", f"{key!r} is both swept and fixed in params; "
                       "remove it from one of them.")
    axes = [[(key, v) for v in values] for key, values in sweep.items()]
    return [tuple(combo) for combo in itertools.product(*axes)]


def _sweep_label(template: str, values: tuple[tuple[str, Any], ...], path: str) -> str:
    """``template.format(**values)`` when it has ``{param}`` fields, else
    ``"template p1=v1 p2=v2"``."""
    if "{" in template:
        try:
            text = template.format(**dict(values))
        # TypeError: a format spec the value does not take ({lam:g} with lam: [])
        except (KeyError, IndexError, ValueError, TypeError) as exc:
            raise fail(path, f"cannot fill the label template {template!r} with the swept "
                       f"values {dict(values)}: {exc!r}. Use {{param}} or {{param:g}} "
                       "fields named after swept parameters.") from None
    else:
        text = " ".join([template, *(f"{k}={_sweep_label_value(v)}" for k, v in values)])
    return label(text, path, f" (the template {template!r} filled with the swept values "
                 f"{dict(values)})")


def _entry_label(entry: dict[str, Any], path: str) -> str:
    """The entry's label, or its name when it has none (checked as a label)."""
    if "label" in entry:
        return str(entry["label"])
    return label(entry["name"], f"{path}.name", " (derived from the name)")


def _parse_stream(raw: Any, path: str, names: Context) -> list[StreamConfig]:
    s = STREAM.parse(raw, path, names)
    name, params, template = s["name"], s["params"], _entry_label(s, path)
    common: dict[str, Any] = {k: s[k] for k in (
        "shuffle", "reseed", "normalize", "normalize_warmup", "normalize_range",
        "max_samples")}
    if "sweep" not in s:
        return [StreamConfig(name=name, label=template, params=params, **common)]
    return [
        StreamConfig(name=name, label=_sweep_label(template, combo, f"{path}.label"),
                     params={**params, **dict(combo)},
                     sweep=SweepPoint(group=template, values=combo), **common)
        for combo in _sweep_points(s["sweep"], f"{path}.sweep", params)
    ]


def _parse_algorithm(raw: Any, path: str, names: Context) -> list[AlgorithmConfig]:
    if isinstance(raw, dict) and "river" in raw:
        # `river: linear_model.LogisticRegression`: a River estimator by dotted path
        from streamlearn.components import river_entry

        raw = river_entry(raw, path)
    a = ALGORITHM.parse(raw, path, names)
    name, params, template = a["name"], a["params"], _entry_label(a, path)
    if "sweep" not in a:
        return [AlgorithmConfig(name=name, label=template, params=params,
                                smoke_params=a["smoke_params"])]
    return [
        AlgorithmConfig(name=name, label=_sweep_label(template, combo, f"{path}.label"),
                        params={**params, **dict(combo)}, smoke_params=a["smoke_params"],
                        sweep=SweepPoint(group=template, values=combo))
        for combo in _sweep_points(a["sweep"], f"{path}.sweep", params)
    ]


def _sweep_groups_distinct(kind: str, entries: list[list[Any]]) -> None:
    """Two swept entries with one label template would be drawn as one sweep curve (the
    plots group the points by it): each swept entry needs its own."""
    seen: dict[str, int] = {}
    for i, entry in enumerate(entries):
        point = entry[0].sweep if entry else None
        if point is None:
            continue
        if point.group in seen:
            raise fail(f"{kind}[{i}].label", f"the swept entries {kind}[{seen[point.group]}] "
                       f"and {kind}[{i}] have the same label {point.group!r}, so their "
                       "sweeps would be drawn as one curve; give each its own label.")
        seen[point.group] = i


def _labels_distinct(kind: str, labels: list[str]) -> None:
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise fail(kind, f"duplicate labels {dup}; give each entry a distinct 'label'.")
    for first, second, slugged in slug_collisions(labels):
        raise fail(kind, f"the labels {first!r} and {second!r} give the same file name "
                   f"{slugged!r} (labels are reduced to letters, digits, '_', '.' and '-', "
                   "case ignored), so one run's results would overwrite the other's. "
                   "Make them differ in letters or digits.")


def _run_names_distinct(streams: list[str], algorithms: list[str]) -> None:
    """Two (stream, learner) pairs whose record names coincide: labels that contain the
    separator ``__`` (streams ``S`` and ``S__A`` with learners ``A__B`` and ``B`` both
    gave ``S__A__B__seed0.json``, one run's record overwriting the other's, exit 0)."""
    seen: dict[str, tuple[str, str]] = {}
    for st in streams:
        for algo in algorithms:
            key = run_id(st, algo, 0).casefold()
            other = seen.setdefault(key, (st, algo))
            if other != (st, algo):
                raise fail("streams/algorithms", f"stream {other[0]!r} with learner "
                           f"{other[1]!r} and stream {st!r} with learner {algo!r} give the "
                           f"same record name {run_id(st, algo, 0)!r}, so one run's results "
                           "would overwrite the other's. Avoid '__' in labels.")


def _check_sizes(streams: tuple[StreamConfig, ...], algorithms: tuple[AlgorithmConfig, ...],
                 seeds: tuple[int, ...], folds: int | None = None) -> None:
    """Refuse an experiment with more runs than anyone means, or whose record file names
    would be too long for a file system (``folds``: the runs of a prequential validation
    per stream, learner and seed)."""
    n_runs = len(streams) * len(algorithms) * len(seeds) * (folds or 1)
    if n_runs > MAX_RUNS:
        raise fail("<top level>", f"{len(streams)} stream(s) × {len(algorithms)} "
                   f"algorithm(s) × {len(seeds)} seed(s)"
                   + (f" × {folds} fold(s)" if folds else "")
                   + f" = {n_runs:,} runs, more than "
                   f"{MAX_RUNS:,}; split the experiment into several configs.")
    fold_suffix = len(f"_fold{folds - 1}") if folds else 0
    longest = max(len(run_id(s.label, a.label, max(seeds)).encode())
                  for s in streams for a in algorithms) + len(RUN_FILE_SUFFIX) + fold_suffix
    if longest > MAX_NAME_BYTES:
        raise fail("algorithms", f"a stream label, an algorithm label and a seed give a "
                   f"record file name of {longest} bytes; file systems allow "
                   f"{MAX_NAME_BYTES}. Shorten the labels.")


# --------------------------------------------------------------------------------------
# Against the registries and the machine
# --------------------------------------------------------------------------------------


def _check_components(cfg: ExperimentConfig, proto: Any) -> None:
    """Resolve every name; build each stream (its size is checked) and check each
    learner's parameters without building it, so that mistakes surface now."""
    from streamlearn import components

    task = proto.task
    stream_objects: list[Any] = []
    for i, s in enumerate(cfg.streams):
        path = f"streams[{i}]" if s.sweep is None else f"streams (label {s.label!r})"
        cls = _lookup(components.get_stream, s.name, f"{path}.name")
        if cls.task != task:
            raise fail(f"{path}.name", f"stream {s.name!r} is a {cls.task} stream, but protocol "
                       f"{cfg.protocol!r} needs {task} streams.")
        stream_objects.append(_build(cls, s.params, f"{path}.params"))
        _check_stream_options(s, cls, path)
    ram = physical_memory_bytes()
    sizes = [_check_stream_size(i, s, obj, ram)
             for i, (s, obj) in enumerate(zip(cfg.streams, stream_objects, strict=True))]
    widths = [sz[1] for sz in sizes if sz is not None] or [1]
    for i, a in enumerate(cfg.algorithms):
        path = f"algorithms[{i}]" if a.sweep is None else f"algorithms (label {a.label!r})"
        cls = _lookup(components.get_algorithm, a.name, f"{path}.name")
        _check_runnable(cfg, proto, a, cls, path)
        _check_params(cls, a.params, f"{path}.params")
        _check_params(cls, {**a.params, **a.smoke_params}, f"{path}.smoke_params")
        need = cls.estimate_bytes(a.params, max(widths), None)
        if need is not None and ram and need > ram:
            raise fail(f"{path}.params", f"algorithm {a.label!r} needs at least "
                       f"{_bytes(need)} of memory for its state with these parameters, "
                       f"more than this machine has ({_bytes(ram)}).")
    # what the protocol cannot run on a stream (e.g. what belongs to a series only)
    learners = [components.get_algorithm(a.name) for a in cfg.algorithms]
    for i, (s, obj) in enumerate(zip(cfg.streams, stream_objects, strict=True)):
        why = proto.stream_incompatibility(type(obj), cfg.metrics, learners)
        path = f"streams[{i}]" if s.sweep is None else f"streams (label {s.label!r})"
        if why is not None:
            raise fail(f"{path}.name", f"protocol {cfg.protocol!r} cannot run stream "
                       f"{s.name!r} here: {why}.")
        why = proto.stream_config_refusal(s)
        if why is not None:
            raise fail(path, f"protocol {cfg.protocol!r}: {why}.")
    _check_reference_labels(cfg)


def _check_stream_options(s: StreamConfig, cls: Any, path: str) -> None:
    if s.reseed and "seed" not in cls._param_names():
        raise fail(f"{path}.reseed", f"stream {s.name!r} has no seed to vary.")
    if s.reseed and "seed" in s.params:
        raise fail(f"{path}.reseed", "is true but params.seed fixes the seed; "
                   "remove one of them.")
    if s.normalize_warmup is not None and s.normalize in ("none", "range", "row_minmax"):
        raise fail(f"{path}.normalize_warmup", f"is set but 'normalize' is "
                   f"{s.normalize!r} (nothing is fitted).")
    if (s.normalize == "range") != (s.normalize_range is not None):
        raise fail(f"{path}.normalize_range", "is required with 'normalize: range' (the "
                   "declared input range [lo, hi]) and allowed only with it.")
    if (s.normalize_warmup is not None and s.max_samples is not None
            and s.normalize_warmup > s.max_samples):
        raise fail(f"{path}.normalize_warmup", f"{s.normalize_warmup} is larger than "
                   f"max_samples ({s.max_samples}): the scale would be fitted on "
                   "samples the run never sees.")


def _check_stream_size(i: int, s: StreamConfig, stream: Any,
                       ram: int | None) -> tuple[int, int] | None:
    """The stream's ``(samples, features)`` when its parameters say it; refuses one that
    cannot fit in memory or is shorter than its normalisation warm-up."""
    with _reported(type(stream), f"streams[{i}].name", "estimating the size of"):
        size = stream.estimate_size()  # a user's stream's own code
    if size is not None and s.max_samples is not None:
        size = (min(size[0], s.max_samples), size[1])
    if size is not None and ram and 8 * size[0] * (size[1] + 1) > ram:
        raise fail(f"streams[{i}].params", f"stream {s.label!r} has {size[0]:,} samples "
                   f"× {size[1]} feature(s): at least {_bytes(8 * size[0] * (size[1] + 1))}"
                   f" in memory, more than this machine has ({_bytes(ram)}). Lower "
                   "n_samples or set max_samples.")
    if size is not None and s.normalize_warmup is not None and s.normalize_warmup > size[0]:
        raise fail(f"streams[{i}].normalize_warmup", f"{s.normalize_warmup} is larger "
                   f"than the stream ({size[0]} samples): the scale cannot be fitted on "
                   "a prefix that long.")
    return size


def _check_runnable(cfg: ExperimentConfig, proto: Any, a: AlgorithmConfig, cls: Any,
                    path: str) -> None:
    """The learner can run here, under this protocol, with these metrics."""
    from streamlearn import registry

    unavailable = getattr(cls, "unavailable_reason", None)
    reason = unavailable() if callable(unavailable) else None
    if reason:
        raise fail(f"{path}.name", f"algorithm {a.name!r} cannot run here: {reason}. "
                   "Mark the entry `optional: true` to leave it out instead.")
    why = proto.incompatibility(cls)
    if why is not None:
        raise fail(f"{path}.name", f"protocol {cfg.protocol!r} cannot run algorithm "
                   f"{a.name!r}: {why}.")
    provides_for = getattr(proto, "provides_for", None)
    given = provides_for(cls) if callable(provides_for) else proto.provides
    for m in cfg.metrics:
        lacking = sorted(set(registry.METRICS[m].requires) - set(given))
        if lacking:
            raise fail(f"{path}.name", f"metric {m!r} needs {', '.join(lacking)}, which "
                       f"protocol {cfg.protocol!r} does not provide for algorithm "
                       f"{a.name!r} (it does not expose them).")


def _check_reference_labels(cfg: ExperimentConfig) -> None:
    stream_labels = {s.label for s in cfg.streams}
    algo_labels = {a.label for a in cfg.algorithms} | set(cfg.reference.cited)
    for s_label, per_algo in cfg.reference.values.items():
        if s_label not in stream_labels:
            raise fail(f"reference.values.{s_label}", f"no stream has label {s_label!r}."
                       f"{_close_matches(s_label, sorted(stream_labels))} "
                       f"Stream labels: {', '.join(sorted(stream_labels))}.")
        for a_label, per_metric in per_algo.items():
            if a_label not in algo_labels:
                raise fail(f"reference.values.{s_label}.{a_label}",
                           f"no algorithm (or cited entry) has label {a_label!r}."
                           f"{_close_matches(a_label, sorted(algo_labels))} "
                           f"Labels: {', '.join(sorted(algo_labels))}.")
            for metric in per_metric:  # a misspelt key had been dropped without a word
                if metric not in cfg.metrics:
                    raise fail(f"reference.values.{s_label}.{a_label}.{metric}",
                               f"{metric!r} is not one of the config's metrics, so the "
                               "paper's value would not be shown."
                               f"{_close_matches(metric, list(cfg.metrics))} Metrics: "
                               f"{', '.join(cfg.metrics)}.")


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
        raise fail(path, str(exc)) from None


@contextmanager
def _reported(cls: Any, path: str, doing: str) -> Iterator[None]:
    """Whatever the component's own code raises while ``doing`` is a config error at
    ``path``; only a real Ctrl-C goes through."""
    from streamlearn.interrupts import SigintWatch, user_code_guarded

    with SigintWatch() as interrupt, user_code_guarded():
        try:
            yield
        except UserError as exc:
            raise fail(path, str(exc)) from None
        except (TypeError, ValueError) as exc:
            if doing != "building":
                raise fail(path, f"{doing} {cls.__name__} failed: {type(exc).__name__}: "
                           f"{exc}") from None
            raise fail(path, f"{cls.__name__} rejected these parameters: {exc}") from None
        except BaseException as exc:  # its own code raised (SystemExit, RuntimeError, ...)
            if interrupt.seen:  # a real Ctrl-C, not the class's own KeyboardInterrupt
                raise
            raise fail(path, f"{doing} {cls.__name__} failed: {type(exc).__name__}: "
                       f"{exc}") from None


def _build(cls: Any, params: dict[str, Any], path: str) -> Any:
    """A stream or protocol object (validation needs them: sizes, tasks, tags)."""
    with _reported(cls, path, "building"):
        cls.check_param_names(params)
        return cls(**params)
    raise AssertionError("unreachable")  # pragma: no cover - _reported re-raises


def _check_params(cls: Any, params: dict[str, Any], path: str) -> None:
    """A learner's parameters, checked as building it would, without building it
    (:meth:`streamlearn.params.Base.check_params`)."""
    with _reported(cls, path, "checking the parameters of"):
        cls.check_params(params)
