"""Reading a config file: the bounded YAML reader, then validation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from streamlearn.config.model import ExperimentConfig
from streamlearn.config.validation import parse_config
from streamlearn.errors import ConfigError

__all__ = ["added_learner_entries", "load_config", "param_values"]


def load_config(path: str | Path,
                add_learners: list[dict[str, Any]] | None = None) -> ExperimentConfig:
    """Read and validate a YAML config file (strict: duplicate keys, alias bombs and deep
    nesting are refused, see :mod:`streamlearn.config.yaml_loader`).

    ``add_learners``: algorithm entries appended to the config's ``algorithms`` before
    validation (``streamlearn run --add-learner``), validated like the config's own."""
    import yaml

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
    if add_learners:
        if not isinstance(raw, dict) or not isinstance(raw.get("algorithms", []), list):
            raise ConfigError(f"{p}: --add-learner needs a config whose 'algorithms' is a "
                              "list.")
        raw = {**raw, "algorithms": [*raw.get("algorithms", []), *add_learners]}
    return parse_config(raw, source_path=str(p))


def param_values(items: list[str], keep_text: bool = False) -> dict[str, Any]:
    """``--param KEY=VALUE`` items as parameters, each ``VALUE`` read as a config reads it
    (``1e-3`` a number, ``[1, 2]`` a list); a key given twice is refused, as a repeated
    config key is. A value that is not YAML is refused, or kept as text with
    ``keep_text``."""
    import yaml

    from streamlearn.config.yaml_loader import load_yaml

    parsed: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--param {item!r}: write KEY=VALUE, e.g. --param lr=0.1.")
        if key in parsed:
            raise ConfigError(f"--param {key} is given twice; give each parameter once.")
        try:
            parsed[key] = load_yaml(value) if value.strip() else None
        except (yaml.YAMLError, ValueError):
            if not keep_text:
                raise ConfigError(f"--param {item!r}: the value {value!r} is not a YAML "
                                  "scalar or list.") from None
            parsed[key] = value
    return parsed


def added_learner_entries(specs: list[str], params: list[str],
                          labels: list[str]) -> list[dict[str, Any]]:
    """The algorithm entries of ``--add-learner SPEC [--param KEY=VALUE …] [--label L]``.

    ``SPEC`` is a registered learner name, a dotted path ``module:Class`` or
    ``river:family.Estimator``; each ``VALUE`` is read as a YAML scalar (``0.5``, ``true``,
    ``[1, 2]``). Parameters and a label need exactly one added learner (for several, with
    parameters, write them into a config)."""
    if (params or labels) and len(specs) != 1:
        what = "--param" if params else "--label"
        raise ConfigError(f"{what} applies to the one learner of --add-learner; "
                          f"{len(specs)} were given. Add several learners with parameters "
                          "by listing them in a config.")
    if len(labels) > 1:
        raise ConfigError("--label is given more than once; the added learner has one label.")
    parsed = param_values(params)
    entries: list[dict[str, Any]] = []
    for spec in specs:
        spec = spec.strip()
        if spec.startswith("river:"):
            entry: dict[str, Any] = {"river": spec.removeprefix("river:")}
            default_label = spec.removeprefix("river:").rpartition(".")[2]
        else:
            entry = {"name": spec}
            default_label = spec.rpartition(":")[2] if ":" in spec else spec
        entry["label"] = labels[0] if labels else default_label
        if parsed:
            entry["params"] = parsed
        entries.append(entry)
    return entries
