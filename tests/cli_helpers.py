"""Running the ``streamlearn`` CLI in-process from a test."""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from streamlearn import components
from streamlearn.cli.app import main


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``streamlearn ARGS`` through :func:`streamlearn.cli.app.main`: its exit code and what it
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


def cli_exit_code(args: list[str]) -> int:
    """``streamlearn ARGS`` in-process: its exit code only (what it printed stays for
    ``capsys`` to read); ``sys.argv`` is restored."""
    old = sys.argv
    sys.argv = ["streamlearn", *args]
    try:
        main()
    except SystemExit as exc:
        return int(exc.code or 0)
    finally:
        sys.argv = old
    return 0


def run_cli_split(args: list[str], monkeypatch: pytest.MonkeyPatch,
                  capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Like :func:`run_cli`, with stdout and stderr apart (a non-int exit code counts
    as 1)."""
    monkeypatch.setattr(sys, "argv", ["streamlearn", *args])
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def run_cli_captured(args: list[str]) -> tuple[int, str]:
    """``streamlearn ARGS`` in-process without pytest fixtures (usable inside a
    hypothesis example): its exit code and everything it printed. An exception escaping
    :func:`~streamlearn.cli.app.main` is returned as exit code -1 with its traceback, as the
    console script would print it."""
    import contextlib
    import io
    import traceback

    buf = io.StringIO()
    old = sys.argv
    sys.argv = ["streamlearn", *args]
    code = 0
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            try:
                main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except Exception:
                traceback.print_exc(file=buf)
                code = -1
    finally:
        sys.argv = old
    return code, buf.getvalue()


def forget_module(name: str) -> None:
    """Drop a user's module ``name`` from this process (imports and resolved classes), so
    that the next resolution reads its file again."""
    sys.modules.pop(name, None)
    for key in [k for k in components._resolved if name in k[1]]:
        del components._resolved[key]
    importlib.invalidate_caches()


@contextlib.contextmanager
def user_module(directory: Path, monkeypatch: pytest.MonkeyPatch, name: str,
                source: str) -> Iterator[Path]:
    """``directory`` holding a user's module ``name.py`` with ``source``, made the working
    directory, importable from there (as ``streamlearn`` resolves ``name:Class``) and from
    worker processes (``PYTHONPATH``); the module is forgotten afterwards."""
    (directory / f"{name}.py").write_text(source)
    monkeypatch.chdir(directory)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(directory))])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(directory), *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]]))
    try:
        yield directory
    finally:
        forget_module(name)


def default_sigint() -> None:
    """In a child process, before exec: SIGINT back to its default. A test session started
    in the background of a non-interactive shell inherits SIGINT ignored, and Python then
    installs no KeyboardInterrupt handler, so a signal a test sends would be lost."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def env_with_user_code(directory: Path) -> dict[str, str]:
    """This process's environment with ``directory`` (a user's modules) first on
    ``PYTHONPATH``, for a ``streamlearn`` child process."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(directory), *filter(None, [env.get("PYTHONPATH")])])
    return env


def run_cli_subprocess(args: list[str], cwd: Path,
                       timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``python -m streamlearn ARGS`` in a child process run in ``cwd``, with the user's
    modules in ``cwd`` importable: its exit code, stdout and stderr. A child, so that a
    user's ``sys.exit``, ``os._exit`` or closed std stream ends it, not the test session."""
    return subprocess.run([sys.executable, "-m", "streamlearn", *args], cwd=cwd,
                          env=env_with_user_code(cwd), capture_output=True, text=True,
                          timeout=timeout, preexec_fn=default_sigint)


def start_cli_subprocess(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    """Like :func:`run_cli_subprocess`, started and not waited for (to send it a
    signal); SIGINT is at its default in the child."""
    return subprocess.Popen([sys.executable, "-m", "streamlearn", *args], cwd=cwd,
                            env=env_with_user_code(cwd), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
