"""Config validation: every user mistake → one clear message, exit code 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from streamlearn.config import ConfigError, load_config, parse_config
from tests.cli_helpers import run_cli_split

GOOD = {
    "name": "t",
    "repeats": 2,
    "streams": [{"name": "sea", "label": "SEA", "max_samples": 300}],
    "algorithms": [{"name": "rls", "label": "RLS"}, {"name": "perceptron"}],
    "outputs": {"dir": "OUT"},
}


run_cli = run_cli_split


def _with(**changes):
    cfg = yaml.safe_load(yaml.safe_dump(GOOD))
    for path, value in changes.items():
        keys = path.split("__")
        d = cfg
        for k in keys[:-1]:
            d = d[int(k)] if isinstance(d, list) else d[k]
        last = keys[-1]
        if value is _DELETE:
            del d[last]
        elif isinstance(d, list):
            d[int(last)] = value
        else:
            d[last] = value
    return cfg


_DELETE = object()

# (description, config or raw text, words the message must contain)
MISTAKES = [
    ("unknown top-level key", _with(repeat=3), ["repeat", "repeats"]),
    ("missing streams", _with(streams=_DELETE), ["streams", "missing"]),
    ("unknown stream", _with(streams__0__name="sae"), ["sae", "sea"]),
    ("unknown algorithm", _with(algorithms__0__name="rsl"), ["rsl", "rls"]),
    ("unknown algorithm parameter", _with(algorithms__0__params={"lamda": 1.0}),
     ["lamda", "lam"]),
    ("out-of-range algorithm parameter", _with(algorithms__0__params={"lam": -1.0}),
     ["lam", "-1"]),
    ("wrong type of repeats", _with(repeats="three"), ["repeats", "three"]),
    ("repeats zero", _with(repeats=0), ["repeats", "0"]),
    ("negative max_samples", _with(streams__0__max_samples=-5), ["max_samples", "-5"]),
    ("bad normalize option", _with(streams__0__normalize="minmaxx"), ["minmaxx", "minmax"]),
    ("unknown metric", _with(metrics=["oca", "acc"]), ["acc"]),
    ("duplicate labels", _with(algorithms=[{"name": "rls"}, {"name": "rls"}]),
     ["duplicate", "rls"]),
    ("both seeds and repeats", _with(seeds=[1, 2]), ["seeds", "repeats"]),
    ("bad name characters", _with(name="my exp/1"), ["name"]),
    ("streams not a list", _with(streams="sea"), ["streams", "list"]),
    ("unknown stream key", _with(streams__0__shufle=True), ["shufle", "shuffle"]),
    ("bad plot kind", _with(outputs={"dir": "OUT", "plots": ["curves"]}), ["curves"]),
    ("reference to unknown stream", _with(reference={"values": {"SAE": {"RLS": {"oca": 1}}}}),
     ["SAE", "SEA"]),
    ("reference value not a number",
     _with(reference={"values": {"SEA": {"RLS": {"oca": "high"}}}}), ["oca", "high"]),
    ("warmup without normalize", _with(streams__0__normalize_warmup=100), ["normalize"]),
    ("range without its bounds", _with(streams__0__normalize="range"), ["normalize_range"]),
    ("range bounds reversed",
     _with(streams__0__normalize="range", streams__0__normalize_range=[1, -1]),
     ["normalize_range", "lo < hi"]),
    ("range bounds without range",
     _with(streams__0__normalize_range=[-1, 1]), ["normalize_range", "normalize: range"]),
    ("warmup with a declared range",
     _with(streams__0__normalize="range", streams__0__normalize_range=[-1, 1],
           streams__0__normalize_warmup=100), ["normalize_warmup", "range"]),
    ("unknown stream parameter", _with(streams__0__params={"n_sample": 10}), ["n_sample"]),
    # labels are plain printable text on one line (issue 21)
    ("line break in a label", _with(algorithms__0__label="RLS\nfast"),
     ["'algorithms[0].label'", "unprintable", "'\\n'"]),
    ("escape sequence in a stream label", _with(streams__0__label="SEA\x1b[2J"),
     ["'streams[0].label'", "'\\x1b'"]),
    ("line break in a swept label", _with(algorithms__0__sweep={"lam": ["1\n2", 3.0]}),
     ["'algorithms[0].label'", "swept values"]),
    # hunt 5 (7 Dec): [1, 1.0] passed validation, the runs were made, and the sweep plot
    # then ended in a KeyError traceback, exit 1
    ("equal sweep values", _with(algorithms__0__sweep={"lam": [1, 1.0, 0.5]},
                                  algorithms__0__label="R {lam}"),
     ["'algorithms[0].sweep.lam'", "the values 1 and 1.0"]),
    ("a true and a 1 in a sweep", _with(algorithms__0__sweep={"lam": [True, 1]}),
     ["'algorithms[0].sweep.lam'", "the values True and 1"]),
    # hunt 5: two swept entries labelled M were drawn as one sweep curve over both
    ("two swept entries with one label",
     _with(algorithms=[{"name": "rls", "label": "M", "sweep": {"lam": [0.1, 0.5]}},
                       {"name": "rls", "label": "M", "sweep": {"lam": [1.0, 2.0]}}]),
     ["'algorithms[1].label'", "same label 'M'"]),
    ("zero-width space in a cited label", _with(reference={"cited": ["HBP\u200b"]}),
     ["'reference.cited[0]'", "ZERO WIDTH SPACE"]),
    ("line separator in a label", _with(algorithms__1__label="P\u2028Q"),
     ["'algorithms[1].label'", "LINE SEPARATOR"]),
    ("label with a leading space", _with(algorithms__0__label=" RLS"),
     ["'algorithms[0].label'", "space"]),
    ("invalid YAML", "name: t\nstreams: [sea\n", ["YAML"]),
    ("empty file", "", ["empty"]),
    ("not a mapping", "- a\n- b\n", ["mapping"]),
]


@pytest.mark.parametrize("desc,cfg,words", MISTAKES, ids=[m[0] for m in MISTAKES])
def test_mistake_is_a_clear_error(desc, cfg, words, tmp_path, monkeypatch, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text(cfg if isinstance(cfg, str) else yaml.safe_dump(cfg, sort_keys=False))
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(["run", str(path)], monkeypatch, capsys)
    assert code == 2, (desc, out, err)
    assert "Traceback" not in err + out
    assert err.startswith("Error:")
    for w in words:
        assert w in err, (desc, w, err)
    # nothing written: only the config file is in the directory
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml"]
    # validate reports the same error
    code, _, err2 = run_cli(["validate", str(path)], monkeypatch, capsys)
    assert code == 2 and err2 == err


def test_missing_config_file(tmp_path, monkeypatch, capsys):
    code, _, err = run_cli(["run", str(tmp_path / "nope.yaml")], monkeypatch, capsys)
    assert code == 2 and "not found" in err


def test_good_config_parses_with_defaults():
    cfg = parse_config(GOOD)
    assert cfg.seeds == (0, 1)
    assert cfg.metrics == ("oca", "bacc", "avrbacc", "f1", "mcc")
    assert [a.label for a in cfg.algorithms] == ["RLS", "perceptron"]
    assert cfg.streams[0].shuffle is None
    assert cfg.to_dict()["outputs"]["dir"] == "OUT"


def test_smoke_version_caps_samples_and_repeats():
    cfg = parse_config(_with(repeats=5, streams__0__max_samples=None,
                             algorithms__0__smoke_params={"lam": 2.0}))
    smoke = cfg.smoke_version()
    assert smoke.seeds == (0,)
    assert smoke.streams[0].max_samples == cfg.smoke.max_samples
    assert smoke.algorithms[0].params == {"lam": 2.0}


def test_validate_command_reports_plan(tmp_path, monkeypatch, capsys):
    path = tmp_path / "good.yaml"
    path.write_text(yaml.safe_dump(GOOD))
    code, out, _ = run_cli(["validate", str(path)], monkeypatch, capsys)
    assert code == 0
    assert "valid" in out and "4 runs" in out


def test_all_shipped_configs_validate():
    for path in sorted(Path(__file__).resolve().parents[2].glob("configs/**/*.yaml")):
        try:
            load_config(path)
        except ConfigError as exc:  # pragma: no cover - shows which config rotted
            pytest.fail(f"{path}: {exc}")
