"""failures.user_code_failures: the one guard a learner's run, a user's stream's
preparation and its checks share."""

from __future__ import annotations

import os
import signal

import pytest

from streamlearn.evaluation.failures import user_code_failures


def test_what_user_code_raises_is_kept_not_raised() -> None:
    with user_code_failures() as failure:
        raise SystemExit(0)
    assert isinstance(failure.exc, SystemExit)
    assert "SystemExit" in failure.traceback
    with user_code_failures() as failure:
        pass
    assert failure.exc is None and failure.traceback == ""


def test_its_own_keyboard_interrupt_is_its_failure() -> None:
    with user_code_failures() as failure:
        raise KeyboardInterrupt
    assert isinstance(failure.exc, KeyboardInterrupt)


def test_a_real_ctrl_c_is_raised_even_when_the_code_swallows_it() -> None:
    with pytest.raises(KeyboardInterrupt), user_code_failures():
        try:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # let the handler run
                pass
        except KeyboardInterrupt:
            pass  # the user code swallows it
