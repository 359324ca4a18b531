"""The config check of a learner's parameters (``Base.check_params``, no object built)
says exactly what building the learner says: same acceptance, same message."""

from __future__ import annotations

from typing import Any

import pytest

from streamlearn import components, registry
from streamlearn.errors import UserError
from streamlearn.params import Base

components.load_all()

ALGORITHMS = sorted(registry.ALGORITHMS)
#: one value of each kind a YAML config can give
VALUES: list[Any] = [None, True, False, -1, 0, 1, 2, 0.5, -0.5, 1e300, float("nan"),
                     10**6, "x", "", [], {}, [1, 2]]
#: rules over several parameters (``_check_param_values`` overrides)
CROSS: dict[str, list[dict[str, Any]]] = {
    "online_bls": [{"enh_scale": 1.0, "enh_shrink": 0.5}, {"input_low": 1.0, "input_high": 0.0},
                   {"input_low": 0.0, "input_high": 0.0}, {"enh_scale": 1.0}],
    "ibls": [{"pinv_mode": "explicit", "lam": 0.0}, {"pinv_mode": "explicit", "lam": 1e-3},
             {"pinv_mode": "closed_form", "lam": 0.0}],
    "forks": [{"horizon": None, "rho": None}, {"horizon": 10, "theta": 0.01},
              {"horizon": None, "rho": 5}, {"horizon": 100, "theta": 0.01}],
    "skegd": [{"horizon": None}, {"horizon": 3, "theta": 0.3}, {"horizon": 4, "theta": 0.3}],
}


def _outcome(action: Any) -> str:
    try:
        action()
    except UserError as exc:
        return f"UserError: {exc}"
    except Exception as exc:  # what the config check would report as "rejected"
        return f"{type(exc).__name__}"
    return "ok"


def _cases(name: str) -> list[dict[str, Any]]:
    cls = registry.ALGORITHMS[name]
    bases = [{}, *cls._test_params()]
    cases = [dict(b) for b in bases]
    for base in bases[:2]:
        for param in cls._param_names():
            cases += [{**base, param: v} for v in VALUES]
    cases += CROSS.get(name, [])
    cases.append({"no_such_parameter": 1})
    return cases


@pytest.mark.parametrize("name", ALGORITHMS)
def test_checking_the_parameters_says_what_building_says(name):
    cls = registry.ALGORITHMS[name]
    disagreements = []
    for params in _cases(name):
        built = _outcome(lambda p=params: (cls.check_param_names(p), cls(**p)))
        checked = _outcome(lambda p=params: cls.check_params(p))
        if built != checked:
            disagreements.append((params, built, checked))
    assert not disagreements, disagreements[:5]


@pytest.mark.parametrize("name", sorted(CROSS))
def test_the_cross_parameter_cases_are_refused(name):
    """The rules over several parameters are exercised (at least one case refused)."""
    cls = registry.ALGORITHMS[name]
    assert any(_outcome(lambda p=p: cls.check_params(p)) != "ok" for p in CROSS[name])


@pytest.mark.parametrize("name", ALGORITHMS)
def test_learners_put_their_rules_where_the_config_check_sees_them(name):
    """A rule in a ``_validate_params`` override would hold when the learner is built but
    not when a config is checked: rules over several parameters go in
    ``_check_param_values``."""
    cls = registry.ALGORITHMS[name]
    assert cls._validate_params is Base._validate_params


def test_a_missing_required_parameter_is_named():
    class Needs(Base):
        def __init__(self, *, rate: float) -> None:
            self.rate = rate

    with pytest.raises(UserError, match="Needs needs the parameter 'rate'"):
        Needs.check_params({})
    Needs.check_params({"rate": 0.1})


def test_a_user_class_rejecting_a_value_is_a_config_error(tmp_path, monkeypatch):
    """A class given by dotted path keeps its rules in its own __init__: the config check
    builds that class (not the learner wrapping it) and reports what it raises."""
    (tmp_path / "picky_learners.py").write_text(
        "class Picky:\n"
        "    def __init__(self, rate: float = 0.1):\n"
        "        if rate <= 0:\n"
        "            raise ValueError('rate must be positive')\n"
        "    def predict_one(self, x):\n"
        "        return 0\n"
        "    def learn_one(self, x, y):\n"
        "        pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from streamlearn.config import ConfigError, parse_config

    cfg = {"name": "t", "streams": [{"name": "sea", "params": {"n_samples": 300}}],
           "algorithms": [{"name": "picky_learners:Picky", "label": "P",
                           "params": {"rate": -1.0}}]}
    with pytest.raises(ConfigError, match=r"'algorithms\[0\]\.params': Picky rejected these "
                                          "parameters: ValueError: rate must be positive"):
        parse_config(cfg)
    cfg["algorithms"][0]["params"] = {"rate": 0.5}
    parse_config(cfg)
