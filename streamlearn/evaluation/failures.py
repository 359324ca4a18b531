"""A learner's failure is its run's result, never the experiment's end.

A run executes user code everywhere (the learner's ``__init__``, ``repr``, ``warm_up``,
``reset``, ``predict_one``/``learn_one``/``predict_learn_many``, ``model_bytes``, its
counters). Whatever that code raises — any ``BaseException``: ``SystemExit`` from
``sys.exit()``, a ``KeyboardInterrupt`` it raises itself, ``GeneratorExit`` — fails that
run, recorded with its message, and the experiment goes on. Only a real Ctrl-C (SIGINT
delivered to this process) interrupts: :class:`SigintWatch` tells the two apart.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType, TracebackType
from typing import Any

__all__ = ["SigintWatch", "describe_failure"]


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


def describe_failure(exc: BaseException, who: str) -> str:
    """The error message of a failed run: the exception, and for the ones a learner does
    not usually mean to raise, what happened in words (``who``: the learner's name)."""
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    hint = ""
    if isinstance(exc, SystemExit):
        hint = f"{who} called sys.exit() or raised SystemExit; that ends its run only"
    elif isinstance(exc, KeyboardInterrupt):
        hint = f"{who} raised KeyboardInterrupt itself; no Ctrl-C reached streamlearn"
    elif isinstance(exc, GeneratorExit):
        hint = f"{who} raised GeneratorExit"
    elif isinstance(exc, ValueError) and "read-only" in str(exc):
        hint = (f"{who} tried to change its input in place; learners receive read-only "
                "views of X and y (shared with every other learner on the stream): copy "
                "an input before changing it")
    return f"{text} ({hint})" if hint else text
