"""The JSON Schema of a config (``streamlearn schema``), generated from the declaration the
validator reads: it accepts every shipped config and refuses what the validator refuses
for keys, kinds, ranges and choices."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from streamlearn.config import ConfigError, parse_config
from streamlearn.config.fields import Section
from streamlearn.config.schema import (
    ALGORITHM,
    CONFIG,
    EVALUATION,
    OUTPUTS,
    REFERENCE,
    SMOKE,
    STREAM,
    json_schema,
    registry_names,
)
from tests.cli_helpers import run_cli_split

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json_schema(registry_names())
VALIDATOR = Draft202012Validator(SCHEMA)

GOOD: dict[str, Any] = {
    "name": "t",
    "repeats": 2,
    "streams": [{"name": "sea", "label": "SEA", "max_samples": 300}],
    "algorithms": [{"name": "rls", "label": "RLS"}, {"name": "perceptron"}],
    "outputs": {"dir": "OUT"},
}


def _shipped_configs() -> list[Path]:
    return sorted(p for base in ("configs", "examples") for p in (ROOT / base).rglob("*")
                  if p.suffix in (".yaml", ".yml"))


def _with(path: str, value: Any) -> dict[str, Any]:
    """GOOD with the value at ``path`` (keys and list indices joined by '.') replaced."""
    cfg = copy.deepcopy(GOOD)
    *parents, last = path.split(".")
    node: Any = cfg
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node.setdefault(key, {})
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return cfg


def _renamed(path: str, new: str) -> dict[str, Any]:
    """GOOD with the key at ``path`` renamed to ``new``."""
    cfg = copy.deepcopy(GOOD)
    *parents, last = path.split(".")
    node: Any = cfg
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    node[new] = node.pop(last)
    return cfg


def test_the_schema_is_a_valid_draft_2020_12_schema():
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(SCHEMA)


def test_every_shipped_config_is_valid_under_the_schema():
    paths = _shipped_configs()
    assert len(paths) > 50  # configs/ and the example were found
    problems = [f"{p.relative_to(ROOT)}: {list(e.absolute_path)}: {e.message}"
                for p in paths for e in VALIDATOR.iter_errors(yaml.safe_load(p.read_text()))]
    assert not problems, "\n".join(problems[:10])


GOOD_VARIANTS = [
    ("a stream by its name alone", _with("streams", ["sea"])),
    ("a learner by dotted path", _with("algorithms.1", {"name": "mypkg.learners:MyLearner"})),
    ("a stream by dotted path", _with("streams.0.name", "mypkg.streams:MyStream")),
    ("a River estimator", _with("algorithms.1", {"river": "linear_model.LogisticRegression"})),
    ("one metric, not a list", _with("metrics", "oca")),
    ("a protocol with parameters",
     _with("protocol", {"name": "prequential-classification", "params": {}})),
    ("an empty section", _with("evaluation", None)),
    ("explicit seeds", {**{k: v for k, v in GOOD.items() if k != "repeats"}, "seeds": [0, 7]}),
    ("a sweep", _with("algorithms.0.sweep", {"lam": [0.1, 1.0]})),
    ("reference values", _with("reference", {"values": {"SEA": {"RLS": {"oca": 90.5,
                                                                        "bacc": None}}}})),
]


@pytest.mark.parametrize("desc,cfg", GOOD_VARIANTS, ids=[v[0] for v in GOOD_VARIANTS])
def test_the_schema_accepts_what_a_config_may_say(desc, cfg):
    errors = [e.message for e in VALIDATOR.iter_errors(cfg)]
    assert not errors, (desc, errors)


MISTAKES = [
    # misspelt keys, at every level
    ("repeat for repeats", _renamed("repeats", "repeat")),
    ("paramz in an algorithm", _with("algorithms.0.paramz", {"lam": 1.0})),
    ("shufle in a stream", _with("streams.0.shufle", True)),
    ("chunksize in evaluation", _with("evaluation.chunksize", 10)),
    ("plot in outputs", _with("outputs.plot", ["time"])),
    ("max_sample in smoke", _with("smoke.max_sample", 100)),
    ("value in reference", _with("reference.value", {})),
    ("param in a protocol", _with("protocol", {"name": "prequential-classification",
                                               "param": {}})),
    # wrong kinds and ranges
    ("repeats as a word", _with("repeats", "three")),
    ("repeats zero", _with("repeats", 0)),
    ("repeats a boolean", _with("repeats", True)),
    ("chunk_size a word", _with("evaluation.chunk_size", "big")),
    ("checkpoints too many", _with("evaluation.checkpoints", 10**9)),
    ("negative max_samples", _with("streams.0.max_samples", -5)),
    ("fused a word", _with("evaluation.fused", "yes please")),
    ("unknown normalisation", _with("streams.0.normalize", "minmaxx")),
    ("unknown plot kind", _with("outputs.plots", ["curves"])),
    ("unknown metric", _with("metrics", ["oca", "acc"])),
    ("no metrics", _with("metrics", [])),
    ("duplicate seeds", {**GOOD, "repeats": None, "seeds": [1, 1]}),
    ("seeds and repeats", {**GOOD, "seeds": [1, 2]}),
    ("unknown protocol", _with("protocol", "prequential")),
    ("unknown algorithm", _with("algorithms.0.name", "rsl")),
    ("no algorithms", _with("algorithms", [])),
    ("streams not a list", _with("streams", "sea")),
    ("params not a mapping", _with("algorithms.0.params", [1.0])),
    ("a line break in a label", _with("algorithms.0.label", "RLS\nfast")),
    ("a reference value in words", _with("reference", {"values": {"SEA": {"RLS": {
        "oca": "high"}}}})),
    ("bad name characters", _with("name", "my exp/1")),
    ("name ..", _with("name", "..")),
    ("name and river", _with("algorithms.1", {"name": "perceptron",
                                              "river": "linear_model.Perceptron"})),
    ("neither name nor river", _with("algorithms.1", {"label": "P"})),
    ("a range of three numbers", _with("streams.0.normalize_range", [0, 1, 2])),
    ("an empty sweep", _with("algorithms.0.sweep", {})),
    ("missing name", {k: v for k, v in GOOD.items() if k != "name"}),
]


@pytest.mark.parametrize("desc,cfg", MISTAKES, ids=[m[0] for m in MISTAKES])
def test_the_schema_and_the_validator_refuse_a_mistake(desc, cfg):
    assert not VALIDATOR.is_valid(cfg), desc
    with pytest.raises(ConfigError):
        parse_config(cfg)


def test_the_config_is_good_without_the_mistakes():
    assert VALIDATOR.is_valid(GOOD)
    parse_config(GOOD)


SECTIONS: list[tuple[str, Section]] = [
    ("", CONFIG), ("streams.0", STREAM), ("algorithms.0", ALGORITHM),
    ("evaluation", EVALUATION), ("outputs", OUTPUTS), ("reference", REFERENCE),
    ("smoke", SMOKE),
]


def _without(path: str) -> dict[str, Any]:
    """GOOD without the key at ``path`` (if it has it)."""
    cfg = copy.deepcopy(GOOD)
    *parents, last = path.split(".")
    node: Any = cfg
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node.setdefault(key, {})
    node.pop(last, None)
    return cfg


@pytest.mark.parametrize("where,section", SECTIONS, ids=[s[0] or "top" for s in SECTIONS])
def test_declared_defaults_are_values_both_accept(where, section):
    """Writing a key with its declared default changes nothing: the schema and the
    validator accept it, and the config parses as without the key."""
    checked = 0
    for key in section.keys:
        if not key.has_default:
            continue
        path = f"{where}.{key.name}" if where else key.name
        cfg = _with(path, key.default)
        assert VALIDATOR.is_valid(cfg), path
        assert parse_config(cfg).to_dict() == parse_config(_without(path)).to_dict(), path
        assert SCHEMA_DEFAULTS[path] == key.default
        checked += 1
    assert checked


def _defaults(schema: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``path → default`` of every property of the JSON Schema."""
    out: dict[str, Any] = {}
    for option in [schema, *schema.get("anyOf", [])]:
        for name, prop in option.get("properties", {}).items():
            path = f"{prefix}.{name}" if prefix else name
            if "default" in prop:
                out[path] = prop["default"]
            out.update(_defaults(prop, path))
            if prop.get("type") == "array":
                out.update(_defaults(prop["items"], f"{path}.0"))
    return out


SCHEMA_DEFAULTS = _defaults(SCHEMA)


def test_schema_command_prints_the_schema(monkeypatch, capsys):
    code, out, err = run_cli_split(["schema"], monkeypatch, capsys)
    assert code == 0, err
    assert json.loads(out) == json.loads(json.dumps(SCHEMA))


def test_schema_command_writes_a_file_editors_read(tmp_path, monkeypatch, capsys):
    target = tmp_path / "streamlearn.schema.json"
    code, out, err = run_cli_split(["schema", "--out", str(target)], monkeypatch, capsys)
    assert code == 0, err
    assert str(target) in out
    written = json.loads(target.read_text(encoding="utf-8"))
    assert written == json.loads(json.dumps(SCHEMA))
    Draft202012Validator.check_schema(written)
    assert not Draft202012Validator(written).is_valid(_renamed("repeats", "repeat"))


def test_schema_command_to_a_path_it_cannot_write_is_a_clear_error(tmp_path, monkeypatch,
                                                                   capsys):
    (tmp_path / "a_file").write_text("")
    code, out, err = run_cli_split(["schema", "--out", str(tmp_path / "a_file" / "s.json")],
                                   monkeypatch, capsys)
    assert code == 4, (out, err)
    assert err.startswith("Error:") and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]
