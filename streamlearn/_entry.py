"""The ``streamlearn`` console script: interrupts handled from the first instant.

Importing the CLI loads NumPy, Numba and the learners (a second or more); a Ctrl-C in that
time used to end in a traceback. SIGTERM (``kill``, a batch scheduler's time limit) is
handled like Ctrl-C, so a run stopped that way releases its lock and undoes what it had
half-written, as an interrupted run does. Only in this process: a process it forks (a
learner's ``multiprocessing`` pool with the fork start method) gets the default SIGTERM
back, so a pool's ``terminate()`` ends its workers instead of raising KeyboardInterrupt
in them (which had left ``--jobs 1`` runs of such a learner hanging). Compiled code that
calls C's ``exit(0)`` while the command runs ends it with a message and status 70, not 0
(:func:`~streamlearn.interrupts.c_exit_refused`).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from types import FrameType
from typing import Any


def _terminate_as_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


#: the signal mask of each forking thread before :func:`_block_sigterm_for_fork`
_MASK_BEFORE_FORK: dict[int, set[signal.Signals]] = {}


def _block_sigterm_for_fork() -> None:
    # A SIGTERM that reaches the child before its handler is reset went to this process's
    # Python handler, which only flags it, and the reset then dropped the flag: the child
    # lived on (a learner's pool's terminate() then waited for ever on a worker that
    # started late on a loaded machine). Blocked across the fork, it stays pending.
    _MASK_BEFORE_FORK[threading.get_ident()] = signal.pthread_sigmask(
        signal.SIG_BLOCK, {signal.SIGTERM})


def _restore_mask_after_fork() -> None:
    mask = _MASK_BEFORE_FORK.pop(threading.get_ident(), None)
    if mask is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _default_sigterm_in_child() -> None:
    # whatever wraps the handler at the moment of the fork (SigintWatch during a run);
    # then a SIGTERM sent since the fork (pending, blocked) ends the child at once
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _restore_mask_after_fork()


def install_sigterm_handling() -> None:
    """SIGTERM as Ctrl-C in this process, the default SIGTERM in a process it forks."""
    signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    os.register_at_fork(before=_block_sigterm_for_fork,
                        after_in_parent=_restore_mask_after_fork,
                        after_in_child=_default_sigterm_in_child)


def main() -> None:
    """Entry point: ``streamlearn.cli.app.main`` behind the interrupt handling above."""
    install_sigterm_handling()
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
        from streamlearn.interrupts import c_exit_refused
    except KeyboardInterrupt:
        swallowed.append(KeyboardInterrupt())
    finally:
        sys.unraisablehook = sys.__unraisablehook__
    if swallowed:
        _interrupted()
    try:
        with c_exit_refused():
            try:
                cli_main()
            except SystemExit as exc:
                _finish(_exit_status(exc.code))
                raise
            _finish(0)
    except KeyboardInterrupt:
        # a Ctrl-C outside the command (between the imports and the command, or while
        # the finished command's workers stop) had ended in a traceback and status -2
        _interrupted()


def _interrupted() -> None:
    sys.stderr.write("Interrupted.\n")
    sys.exit(130)


def _finish(code: int) -> None:
    """The command's work is done: end its worker processes and do not wait for ever for
    threads a learner left running (:func:`~streamlearn.interrupts.leave_lingering_threads`)."""
    from streamlearn.interrupts import (
        float_env_note,
        leave_lingering_threads,
        signal_handlers_note,
        std_streams_note,
    )

    pools = sys.modules.get("streamlearn.evaluation.process_pool")
    if pools is not None:  # only a command that ran worker processes imported it
        pools.stop_workers()
    for note in (float_env_note(), std_streams_note(), signal_handlers_note()):
        if note is not None:
            sys.stderr.write(note + "\n")
    leave_lingering_threads(code)


def _exit_status(code: object) -> int:
    """The process exit status ``sys.exit(code)`` gives."""
    if code is None:
        return 0
    return code if isinstance(code, int) else 1
