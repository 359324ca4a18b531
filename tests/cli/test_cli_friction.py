"""A newcomer's first commands (issue 21): ``--version``, ``streamlearn list`` and the
command list in whole sentences without markup, an installation without warnings."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import streamlearn
from streamlearn import components, registry
from streamlearn.cli.listing import describe
from tests.cli_helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str) -> str:
    env = {**os.environ, "COLUMNS": "80", "TERM": "dumb"}
    proc = subprocess.run([sys.executable, "-m", "streamlearn", *args], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_version(capsys):
    rc, text = run_cli(["--version"], capsys)
    assert rc == 0
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert text.strip() == f"streamlearn {streamlearn.__version__}"
    assert streamlearn.__version__ == project["version"]


def test_license_is_an_spdx_expression_and_the_build_backend_reads_it():
    """A ``license = {text = ...}`` table makes setuptools >= 77 warn on every install;
    the SPDX string (PEP 639) needs setuptools >= 77."""
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["project"]["license"] == "BSD-3-Clause"
    (req,) = [r for r in meta["build-system"]["requires"] if r.startswith("setuptools")]
    assert req.replace(" ", "") == "setuptools>=77"


@pytest.mark.parametrize("name,kind,expected", [
    # the first sentence goes on past the docstring's first line
    ("bogd", "algorithms", "toolbox BOGD.m variant (spec Sec. 8.5): on y f <= 1 shrink"),
    # an abbreviation does not end the sentence
    ("bls_orig", "algorithms", "Orig. [Ridge-BLS, Alg. 2-3]: Greville update"),
    # reST literals lose their backticks
    ("bls_rinv", "algorithms", "recursive update of the ridge inverse A‡."),
])
def test_descriptions_are_whole_first_sentences_without_markup(name, kind, expected):
    components.load_all()
    assert expected in describe(getattr(registry, kind.upper())[name])


def test_no_description_shows_rest_markup():
    components.load_all()
    for table in (registry.ALGORITHMS, registry.STREAMS, registry.METRICS,
                  registry.PROTOCOLS):
        for name, obj in table.items():
            text = describe(obj)
            assert "``" not in text and ":class:`" not in text and "\n" not in text, name


def test_list_fits_80_columns_and_the_command_list_is_not_cut():
    listing = _cli("list", "algorithms")
    assert max(len(line) for line in listing.splitlines()) <= 80
    assert "``" not in listing
    commands = _cli("--help").split("Commands:")[1]
    assert "..." not in commands
    assert "test-then-" in commands and "without running" in commands


def test_ctrl_c_inside_a_command_says_interrupted(monkeypatch, capsys):
    """Typer 0.29 turns a KeyboardInterrupt inside a command into a silent exit 130: the
    start-up Ctrl-C test failed on a loaded machine (exit 130, nothing printed) whenever
    the signal landed in the command rather than in the imports."""
    from streamlearn.cli import app as app_module

    def interrupted_command() -> None:
        raise KeyboardInterrupt

    app_module.app.command(name="interrupted-command")(interrupted_command)
    try:
        monkeypatch.setattr(sys, "argv", ["streamlearn", "interrupted-command"])
        with pytest.raises(SystemExit) as exc:
            app_module.main()
    finally:
        app_module.app.registered_commands.pop()
    assert exc.value.code == 130
    assert capsys.readouterr().err.strip() == "Interrupted."


def test_ctrl_c_between_the_imports_and_the_command_says_interrupted(monkeypatch, capsys):
    """A Ctrl-C after the CLI's import but before the command (CI, loaded machine) had
    ended in a traceback and status -2: it is exit 130 with "Interrupted."."""
    import contextlib
    import signal

    from streamlearn import _entry, interrupts

    @contextlib.contextmanager
    def interrupted_on_entry():
        raise KeyboardInterrupt
        yield  # pragma: no cover

    previous = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(interrupts, "c_exit_refused", interrupted_on_entry)
    monkeypatch.setattr(sys, "argv", ["streamlearn", "list"])
    try:
        with pytest.raises(SystemExit) as exc:
            _entry.main()
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert exc.value.code == 130
    assert capsys.readouterr().err.strip() == "Interrupted."
