"""Telling a real interrupt from user code that raises ``KeyboardInterrupt``.

User code (a learner's ``__init__``, ``predict_one``, ...) may raise ``KeyboardInterrupt``
or ``SystemExit`` itself; that is its failure. Only a signal delivered to this process
(Ctrl-C, or SIGTERM where the command handles it like Ctrl-C) interrupts streamlearn.
Nor may user code end the process: ``os._exit(0)`` from a learner had ended a ``--jobs 1``
experiment with nothing written and exit code 0 (:func:`process_exit_refused`).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType
from typing import Any, NoReturn

__all__ = ["ProcessExitCalled", "SigintWatch", "process_exit_refused"]


class ProcessExitCalled(BaseException):
    """User code called ``os._exit(code)``; raised instead of ending the process."""


@contextmanager
def process_exit_refused() -> Iterator[None]:
    """Within the block, ``os._exit(code)`` called from this thread raises
    :class:`ProcessExitCalled` instead of ending the process. Other threads (a process
    pool's watchdog) and processes forked meanwhile (``multiprocessing``'s fork start
    method ends each child with ``os._exit``) still exit. Compiled code calling C's
    ``exit()`` is not caught; in a worker process (``--jobs 2`` and more) its death fails
    the run instead."""
    real = os._exit
    owner = (os.getpid(), threading.get_ident())

    def refuse(code: int) -> NoReturn:
        if (os.getpid(), threading.get_ident()) != owner:
            real(code)
        raise ProcessExitCalled(code)

    os._exit = refuse  # type: ignore[assignment]
    try:
        yield
    finally:
        os._exit = real


class SigintWatch:
    """While active, notes whether an interrupt reached this process (``seen``): SIGINT
    (Ctrl-C), or SIGTERM where a Python handler is installed for it (the ``streamlearn``
    command handles SIGTERM like Ctrl-C, see :mod:`streamlearn._entry`).

    In the main thread, with a Python-level handler in place (the default SIGINT one
    raises ``KeyboardInterrupt``), it wraps that handler: the signal is noted, then handled
    as before. Elsewhere (a worker thread, the signal ignored or left to the OS) no
    ``KeyboardInterrupt`` can come from a signal, so one that arrives is the code's own.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.seen = False
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> SigintWatch:
        if threading.current_thread() is not threading.main_thread():
            return self
        for signum in self.SIGNALS:
            previous = signal.getsignal(signum)
            if not callable(previous):  # SIG_IGN / SIG_DFL: no KeyboardInterrupt from it
                continue

            def noted(num: int, frame: FrameType | None, previous: Any = previous) -> None:
                self.seen = True
                previous(num, frame)

            signal.signal(signum, noted)
            self._previous[signum] = previous
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous.clear()
