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

from streamlearn.interrupts import ProcessExitCalled, SigintWatch, user_code_guarded

__all__ = ["ProcessExitCalled", "SigintWatch", "describe_failure", "user_code_guarded"]


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
