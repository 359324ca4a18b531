"""Telling a real interrupt from user code that raises ``KeyboardInterrupt``.

User code (a learner's ``__init__``, ``predict_one``, ...) may raise ``KeyboardInterrupt``
or ``SystemExit`` itself; that is its failure. Only a signal delivered to this process
(Ctrl-C, or SIGTERM where the command handles it like Ctrl-C) interrupts streamlearn.
Nor may user code end the process (``os._exit(0)`` from a learner had ended a ``--jobs 1``
experiment with nothing written and exit code 0: :func:`user_code_guarded`; C's ``exit(0)``
from compiled code ends it with status 70 and a message: :func:`c_exit_refused`), nor keep
it alive for ever with a thread it leaves running (:func:`user_code_guarded`).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType
from typing import Any, NoReturn

from streamlearn import float_env

# os's C module (``posix``, or ``nt`` on Windows): its ``_exit`` is the same function as
# ``os._exit`` and is refused with it.
_OS_C_MODULE = sys.modules[os.name]

__all__ = [
    "C_EXIT_STATUS",
    "LINGERING_THREADS",
    "WORK_IN_PROGRESS",
    "ProcessExitCalled",
    "SigintWatch",
    "c_exit_refused",
    "float_env_note",
    "leave_lingering_threads",
    "set_back_interrupt_handlers",
    "signal_handlers_note",
    "std_streams_note",
    "user_code_guarded",
    "working_on",
]


class ProcessExitCalled(BaseException):
    """User code called ``os._exit(code)``; raised instead of ending the process."""


#: non-daemon threads that user code started and left running (see :func:`user_code_guarded`)
LINGERING_THREADS: weakref.WeakSet[threading.Thread] = weakref.WeakSet()

#: seconds the command waits, once its work is done, for threads user code left running
LINGER_SECONDS = 10.0


@contextmanager
def user_code_guarded() -> Iterator[None]:
    """The guard around user code (a learner's module, its construction, its run):

    * ``os._exit(code)`` called from this thread of this process raises
      :class:`ProcessExitCalled` instead of ending the process (``os._exit(0)`` in a
      learner had ended a ``--jobs 1`` experiment with nothing written and exit 0). Other
      threads (a process pool's watchdog) and processes forked meanwhile
      (``multiprocessing``'s fork start method ends each child with ``os._exit``) still
      exit (``posix._exit``, the same function, likewise). Compiled code calling C's
      ``exit()`` cannot be refused: the ``streamlearn`` command then ends with a message
      and status 70 (:func:`c_exit_refused`); in a worker process (``--jobs 2`` and more)
      the worker's death fails the run.
    * Non-daemon threads the block starts and leaves running are noted in
      :data:`LINGERING_THREADS`: the command does not wait for them for ever when it ends
      (:func:`leave_lingering_threads`; a learner's endless background thread had left
      ``streamlearn run`` hanging after writing its results).
    * The block starts in IEEE 754's default floating-point environment, and the
      environment is set back when it ends (:mod:`~streamlearn.float_env`: a library
      built with ``-ffast-math`` that one learner's module loaded had flushed the
      subnormal numbers of every learner run after it in the same process).
    * The process's file-creation mask is set back when the block ends: a learner's
      ``os.umask(0o777)`` had made the next folder streamlearn created (``runs/``)
      unreadable, so its records could not be written (a traceback, the runs lost).
    * In the main thread, the SIGINT and SIGTERM handlers are set back when the block
      ends: a learner that ignored SIGINT (``signal.signal(SIGINT, SIG_IGN)`` in its
      ``__init__``) had made Ctrl-C do nothing for the rest of the experiment.
    * ``sys.stdout`` and ``sys.stderr``, if the block leaves them closed, are set back
      (:func:`_reopen_closed_std_streams`): a learner's ``sys.stdout.close()`` had ended a
      run that wrote all its results with a traceback and exit code 1.
    """
    _note_float_env(float_env.reset())
    umask = os.umask(0o022)  # read it (setting is the only way), then put it back
    os.umask(umask)
    real = os._exit
    owner = (os.getpid(), threading.get_ident())
    before = set(threading.enumerate())

    def refuse(code: int) -> NoReturn:
        if (os.getpid(), threading.get_ident()) != owner:
            real(code)
        raise ProcessExitCalled(code)

    std_streams = (sys.stdout, sys.stderr)
    handlers = _interrupt_handlers()
    _GUARDED_HANDLERS.append(handlers)
    os._exit = _OS_C_MODULE._exit = refuse  # type: ignore[assignment]
    try:
        yield
    finally:
        os._exit = _OS_C_MODULE._exit = real
        os.umask(umask)
        _reopen_closed_std_streams(std_streams)
        _GUARDED_HANDLERS.pop()
        _set_back_interrupt_handlers(handlers)
        _note_float_env(float_env.reset())
        for thread in threading.enumerate():
            if thread not in before and not thread.daemon and thread.is_alive():
                LINGERING_THREADS.add(thread)


#: the signals whose handler user code changed, which streamlearn set back (said once, at the end)
HANDLERS_SET_BACK: dict[str, None] = {}


def _interrupt_handlers() -> dict[int, Any]:
    """SIGINT's and SIGTERM's handlers, in the main thread (only it can set them)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {signum: signal.getsignal(signum) for signum in SigintWatch.SIGNALS}


def _set_back_interrupt_handlers(before: dict[int, Any]) -> None:
    for signum, handler in before.items():
        if handler is None:  # installed from C: Python cannot set it back
            continue
        if signal.getsignal(signum) != handler:
            signal.signal(signum, handler)
            HANDLERS_SET_BACK[signal.Signals(signum).name] = None


#: the handlers each active :func:`user_code_guarded` block started with, innermost last
_GUARDED_HANDLERS: list[dict[int, Any]] = []


def set_back_interrupt_handlers() -> None:
    """Inside a guarded block, between two pieces of user code (a learner built, then
    run): SIGINT's and SIGTERM's handlers back to those the block started with, so a
    learner that ignores SIGINT in its ``__init__`` cannot make its own run
    uninterruptible."""
    if _GUARDED_HANDLERS:
        _set_back_interrupt_handlers(_GUARDED_HANDLERS[-1])


def signal_handlers_note() -> str | None:
    """What the command tells the user when user code changed its interrupt handling."""
    if not HANDLERS_SET_BACK:
        return None
    return (f"Note: a learner's code changed how this process handles "
            f"{' and '.join(HANDLERS_SET_BACK)}; streamlearn set it back after that code, so "
            "Ctrl-C stops the experiment (a Ctrl-C while that code ran could be lost).")


#: the standard streams user code left closed, which streamlearn set back (said once, at the end)
STD_STREAMS_REOPENED: dict[str, None] = {}


def _closed(stream: object) -> bool:
    try:
        return stream is None or bool(stream.closed)  # type: ignore[attr-defined]
    except Exception:
        return False


def _reopen_closed_std_streams(before: tuple[Any, Any]) -> None:
    """Set ``sys.stdout`` / ``sys.stderr`` back if user code left them closed: to the
    stream they were before the block if that one is still open, else to a new text
    stream on file descriptor 1 / 2 (Python's standard streams do not close their
    descriptor). A stream user code replaced and left open is its business."""
    for name, fd, old in (("stdout", 1, before[0]), ("stderr", 2, before[1])):
        if not _closed(getattr(sys, name)):
            continue
        stream = old
        if _closed(old):
            try:
                os.fstat(fd)
                stream = open(fd, "w", encoding=getattr(old, "encoding", None) or "utf-8",
                              errors=getattr(old, "errors", None) or "strict",
                              closefd=False, buffering=1)
            except (OSError, ValueError, LookupError):
                continue
        setattr(sys, name, stream)
        STD_STREAMS_REOPENED[f"sys.{name}"] = None


def std_streams_note() -> str | None:
    """What the command tells the user when user code closed its standard streams."""
    if not STD_STREAMS_REOPENED:
        return None
    return (f"Note: a learner's code closed {' and '.join(STD_STREAMS_REOPENED)}; "
            "streamlearn opened it again after that code, so the output above is complete.")


def _note_float_env(changed: list[str]) -> None:
    for change in changed:
        float_env.CHANGES_SEEN[change] = None


def float_env_note() -> str | None:
    """What the command tells the user when user code changed the floating-point
    environment (``None`` when it did not)."""
    if not float_env.CHANGES_SEEN:
        return None
    what = ", ".join(float_env.CHANGES_SEEN)
    done = ("streamlearn set IEEE 754's default again before and after each learner's "
            "code, so no result depends on which process ran which run"
            if float_env.can_reset() else
            "streamlearn could not set it back on this platform: results computed in "
            "one process after that code ran may differ from those of another --jobs")
    return (f"Note: a learner's code changed the floating-point environment ({what}; a "
            f"library built with -ffast-math does this when it is loaded); {done}.")


#: the status the command ends with when compiled code called C's ``exit(0)`` (EX_SOFTWARE)
C_EXIT_STATUS = 70

#: what this process is running for the user, innermost last (:func:`working_on`): the
#: message of :func:`c_exit_refused` names it
WORK_IN_PROGRESS: list[str] = []


@contextmanager
def working_on(what: str) -> Iterator[None]:
    """Name the work in progress (a run's id) for :func:`c_exit_refused`'s message."""
    WORK_IN_PROGRESS.append(what)
    try:
        yield
    finally:
        WORK_IN_PROGRESS.pop()


_REAL_EXIT = os._exit
_C_EXIT_HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int)


@contextmanager
def c_exit_refused() -> Iterator[None]:
    """While the block runs, C's ``exit(status)`` called by compiled code in this process
    (a learner's extension module, ``ctypes``) ends it with a message and status
    :data:`C_EXIT_STATUS` (or its own status when that is not 0), not silently: a
    learner's ``exit(0)`` under ``--jobs 1`` had ended ``streamlearn run`` with status 0
    and the run's record missing. The runs written before are kept (rerunning resumes).

    glibc runs the handlers registered with ``__cxa_atexit`` first thing in ``exit()``,
    passing the status; when the block ends ``__cxa_finalize`` takes the handler back, so
    Python's own exit after the block (and a child this process forks, from the fork on)
    runs as before. Elsewhere (musl, macOS) the block does nothing."""
    libc = _glibc()
    if libc is None:
        yield
        return
    armed = [True]
    handle = ctypes.c_char()  # the registration's own handle: __cxa_finalize takes it back

    def on_exit(_arg: int | None, status: int) -> None:
        if not armed[0] or os.getpid() != owner:
            return
        armed[0] = False
        code = status if status else C_EXIT_STATUS
        run = f"the run {WORK_IN_PROGRESS[-1]}" if WORK_IN_PROGRESS else "the run in progress"
        try:
            sys.stdout.flush()
            sys.stderr.write(
                f"\nstreamlearn: compiled code called C's exit({status}) in this process (a "
                f"learner's or stream's extension module, or ctypes): {run} has no "
                "record. The runs finished before it are written; running the "
                "command again resumes after them (--jobs 2 runs each learner in a worker "
                f"process, where such an exit fails its run only). Exit status {code}.\n")
            sys.stderr.flush()
        finally:
            _REAL_EXIT(code)

    def take_back() -> None:
        armed[0] = False
        finalize(ctypes.addressof(handle))

    owner = os.getpid()
    handler = _C_EXIT_HANDLER(on_exit)
    register, finalize = getattr(libc, "__cxa_atexit"), getattr(libc, "__cxa_finalize")
    register.argtypes = [_C_EXIT_HANDLER, ctypes.c_void_p, ctypes.c_void_p]
    register.restype = ctypes.c_int
    finalize.argtypes = [ctypes.c_void_p]
    finalize.restype = None
    if register(handler, None, ctypes.addressof(handle)) != 0:
        yield
        return
    os.register_at_fork(after_in_child=lambda: take_back() if armed[0] else None)
    try:
        yield
    finally:
        take_back()


def _glibc() -> ctypes.CDLL | None:
    """This process's C library when it is glibc (``__cxa_atexit`` passes the status)."""
    try:
        if not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"):
            return None
        libc = ctypes.CDLL(None)
        getattr(libc, "__cxa_atexit")
        getattr(libc, "__cxa_finalize")
    except (OSError, AttributeError, ValueError):
        return None
    return libc


def leave_lingering_threads(code: int) -> None:
    """Once the command's work is done: if threads user code left running are alive, start
    a watchdog, and let Python exit as usual (its exit hooks stop, e.g., an idle
    ``ThreadPoolExecutor``'s threads, then it waits for the others). If threads user code
    left are still running :data:`LINGER_SECONDS` later, the watchdog says so and ends the
    process with ``code`` (Python would wait for them for ever)."""
    if not any(thread.is_alive() for thread in list(LINGERING_THREADS)):
        return

    def watchdog() -> None:
        time.sleep(LINGER_SECONDS)
        left = sorted(t.name for t in list(LINGERING_THREADS) if t.is_alive())
        if not left:
            return
        sys.stdout.flush()
        sys.stderr.write(
            f"streamlearn: the learners' code left {len(left)} thread(s) running "
            f"({', '.join(left)}); exiting without waiting for them. Everything above was "
            "written before; a learner should stop its threads (or make them daemon "
            "threads).\n")
        sys.stderr.flush()
        os._exit(code)

    threading.Thread(target=watchdog, name="streamlearn-linger-watchdog", daemon=True).start()


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
