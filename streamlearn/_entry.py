"""The ``streamlearn`` console script: interrupts handled from the first instant.

Importing the CLI loads NumPy, Numba and the learners (a second or more); a Ctrl-C in that
time used to end in a traceback. SIGTERM (``kill``, a batch scheduler's time limit) is
handled like Ctrl-C, so a run stopped that way releases its lock and undoes what it had
half-written, as an interrupted run does.
"""

from __future__ import annotations

import signal
import sys
from types import FrameType


def _terminate_as_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main() -> None:
    """Entry point: ``streamlearn.cli.app.main`` behind the interrupt handling above."""
    signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    try:
        from streamlearn.cli.app import main as cli_main
    except KeyboardInterrupt:
        sys.stderr.write("Interrupted.\n")
        sys.exit(130)
    cli_main()
