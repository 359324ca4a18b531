"""Reading a config file: the bounded YAML reader, then validation."""

from __future__ import annotations

from pathlib import Path

from streamlearn.config.model import ExperimentConfig
from streamlearn.config.validation import parse_config
from streamlearn.errors import ConfigError

__all__ = ["load_config"]


def load_config(path: str | Path) -> ExperimentConfig:
    """Read and validate a YAML config file (strict: duplicate keys, alias bombs and deep
    nesting are refused, see :mod:`streamlearn.config.yaml_loader`)."""
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
    return parse_config(raw, source_path=str(p))
