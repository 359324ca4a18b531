"""Telling a real interrupt from user code that raises ``KeyboardInterrupt``.

User code (a learner's ``__init__``, ``predict_one``, ...) may raise ``KeyboardInterrupt``
or ``SystemExit`` itself; that is its failure. Only a signal delivered to this process
(Ctrl-C, or SIGTERM where the command handles it like Ctrl-C) interrupts streamlearn.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType, TracebackType
from typing import Any

__all__ = ["SigintWatch"]


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
