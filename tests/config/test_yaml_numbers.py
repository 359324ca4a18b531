"""Numbers in exponent form read as numbers (YAML 1.2), in a config, ``--param`` and
``streamlearn check --param``; a parameter given twice on the command line is refused, as
a repeated key in a config is (hunt 5, 7 Dec: ``--param lr=1e-3`` was the string
``'1e-3'``, and ``--param lr=0.1 --param lr=2.0`` silently ran with 2.0)."""

from __future__ import annotations

import pytest

from streamlearn.config.loading import added_learner_entries
from streamlearn.config.yaml_loader import load_yaml
from streamlearn.errors import ConfigError
from tests.cli_helpers import run_cli


def test_exponent_floats_are_numbers_and_the_rest_is_unchanged():
    got = load_yaml("a: 1e-3\nb: -2E5\nc: 1.0e-8\nd: 10\ne: '1e-3'\nf: abc1e3\ng: 0x1F")
    assert got == {"a": 0.001, "b": -200000.0, "c": 1e-8, "d": 10, "e": "1e-3",
                   "f": "abc1e3", "g": 31}
    assert isinstance(got["d"], int)


def test_param_values_are_read_as_a_config_reads_them_and_given_once():
    entry = added_learner_entries(["rls"], ["lam=1e-3"], [])[0]
    assert entry["params"] == {"lam": 0.001}
    with pytest.raises(ConfigError, match="--param lam is given twice"):
        added_learner_entries(["rls"], ["lam=0.1", "lam=2.0"], [])


def test_check_takes_river_names_and_exponent_params(capsys):
    rc, text = run_cli(["check", "river:linear_model.LogisticRegression",
                        "--param", "l2=1e-3"], capsys)
    assert rc == 0, text
    assert "checks passed" in text
    rc, text = run_cli(["check", "rls", "--param", "lam=1", "--param", "lam=2"], capsys)
    assert rc == 2 and "given twice" in text
