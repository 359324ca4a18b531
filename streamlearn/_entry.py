"""The ``streamlearn`` console script: interrupts handled from the first instant.

Importing the CLI loads NumPy, Numba and the learners (a second or more); a Ctrl-C in that
time used to end in a traceback. SIGTERM (``kill``, a batch scheduler's time limit) is
handled like Ctrl-C, so a run stopped that way releases its lock and undoes what it had
half-written, as an interrupted run does. Only in this process: a process it forks (a
learner's ``multiprocessing`` pool with the fork start method) gets the default SIGTERM
back, so a pool's ``terminate()`` ends its workers instead of raising KeyboardInterrupt
in them (which had left ``--jobs 1`` runs of such a learner hanging).
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType
from typing import Any


def _terminate_as_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _default_sigterm_in_child() -> None:
    # whatever wraps the handler at the moment of the fork (SigintWatch during a run)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def main() -> None:
    """Entry point: ``streamlearn.cli.app.main`` behind the interrupt handling above."""
    signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    os.register_at_fork(after_in_child=_default_sigterm_in_child)
    swallowed: list[BaseException] = []

    def interrupt_in_a_callback(unraisable: Any) -> None:
        # Ctrl-C landing while Python runs a callback whose exceptions it ignores (an
        # import lock's weakref callback): it printed a traceback and the command went on
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            swallowed.append(unraisable.exc_value)
        else:
            sys.__unraisablehook__(unraisable)

    sys.unraisablehook = interrupt_in_a_callback
    try:
        from streamlearn.cli.app import main as cli_main
    except KeyboardInterrupt:
        swallowed.append(KeyboardInterrupt())
    finally:
        sys.unraisablehook = sys.__unraisablehook__
    if swallowed:
        sys.stderr.write("Interrupted.\n")
        sys.exit(130)
    try:
        cli_main()
    except SystemExit as exc:
        _finish(_exit_status(exc.code))
        raise
    _finish(0)


def _finish(code: int) -> None:
    """The command's work is done: end its worker processes and do not wait for ever for
    threads a learner left running (:func:`~streamlearn.interrupts.leave_lingering_threads`)."""
    from streamlearn.interrupts import float_env_note, leave_lingering_threads

    pools = sys.modules.get("streamlearn.evaluation.process_pool")
    if pools is not None:  # only a command that ran worker processes imported it
        pools.stop_workers()
    note = float_env_note()
    if note is not None:
        sys.stderr.write(note + "\n")
    leave_lingering_threads(code)


def _exit_status(code: object) -> int:
    """The process exit status ``sys.exit(code)`` gives."""
    if code is None:
        return 0
    return code if isinstance(code, int) else 1
