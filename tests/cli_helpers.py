"""Running the ``streamlearn`` CLI in-process from a test."""

from __future__ import annotations

import sys

import pytest

from streamlearn.cli import main


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``streamlearn ARGS`` through :func:`streamlearn.cli.main`: its exit code and what it
    printed (stdout + stderr)."""
    old = sys.argv
    sys.argv = ["streamlearn", *args]
    try:
        with pytest.raises(SystemExit) as exc_info:
            main()
    finally:
        sys.argv = old
    out = capsys.readouterr()
    return int(exc_info.value.code or 0), out.out + out.err
