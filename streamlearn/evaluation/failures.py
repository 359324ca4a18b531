"""A learner's failure is its run's result, never the experiment's end.

A run executes user code everywhere (the learner's ``__init__``, ``repr``, ``warm_up``,
``reset``, ``predict_one``/``learn_one``/``predict_learn_many``, ``model_bytes``, its
counters). Whatever that code raises — any ``BaseException``: ``SystemExit`` from
``sys.exit()``, a ``KeyboardInterrupt`` it raises itself, ``GeneratorExit`` — fails that
run, recorded with its message, and the experiment goes on. Only a real Ctrl-C (SIGINT
delivered to this process) interrupts: :class:`SigintWatch` tells the two apart.
``os._exit()`` from its code is such a failure too (:func:`user_code_guarded`).
"""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from streamlearn.interrupts import ProcessExitCalled, SigintWatch, user_code_guarded

__all__ = ["ProcessExitCalled", "SigintWatch", "UserCodeFailure", "describe_failure",
           "user_code_failures", "user_code_guarded"]


@dataclass
class UserCodeFailure:
    """What user code run under :func:`user_code_failures` raised (``exc`` ``None``: it
    did not), with its traceback."""

    exc: BaseException | None = None
    traceback: str = ""


@contextmanager
def user_code_failures() -> Iterator[UserCodeFailure]:
    """Run user code (a learner's run, a user's stream's preparation, its checks) under
    :func:`user_code_guarded`: whatever it raises is kept in the yielded
    :class:`UserCodeFailure`, not raised. A real Ctrl-C is raised as
    ``KeyboardInterrupt``, also when the code caught and swallowed it."""
    caught = UserCodeFailure()
    with SigintWatch() as sigint, user_code_guarded():
        try:
            yield caught
        except BaseException as exc:
            if sigint.seen:  # a real Ctrl-C, whatever the code made of it
                if isinstance(exc, KeyboardInterrupt):
                    raise
                raise KeyboardInterrupt from exc
            caught.exc = exc
            caught.traceback = traceback.format_exc(limit=8)
        if sigint.seen:  # the code swallowed the Ctrl-C's KeyboardInterrupt
            raise KeyboardInterrupt


def describe_failure(exc: BaseException, who: str) -> str:
    """The error message of a failed run: the exception, and for the ones a learner does
    not usually mean to raise, what happened in words (``who``: the learner's name)."""
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    hint = ""
    if isinstance(exc, SystemExit):
        hint = f"{who} called sys.exit() or raised SystemExit; that ends its run only"
    elif isinstance(exc, ProcessExitCalled):
        hint = (f"{who} called os._exit({exc}); streamlearn refused to end the process, so "
                "that ends its run only")
    elif isinstance(exc, KeyboardInterrupt):
        hint = f"{who} raised KeyboardInterrupt itself; no Ctrl-C reached streamlearn"
    elif isinstance(exc, GeneratorExit):
        hint = f"{who} raised GeneratorExit"
    elif isinstance(exc, ValueError) and "read-only" in str(exc):
        hint = (f"{who} tried to change its input in place; learners receive read-only "
                "views of X and y (shared with every other learner on the stream): copy "
                "an input before changing it")
    return f"{text} ({hint})" if hint else text
