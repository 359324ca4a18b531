"""``make smoke``: every config under ``configs/`` once at smoke size, through the CLI.

Each config is run as ``streamlearn run CONFIG --smoke --quiet --skip-missing-data
--force`` by the console script's own entry point, inside ``--jobs`` worker processes that
import streamlearn once and then take configs one by one. One process per config spent
about half of make smoke's 6.3 minutes in CI (117 configs) importing NumPy, SciPy, Numba,
River and Matplotlib again for every config; the runs themselves, their files and their
exit codes are the same. The first config that exits non-zero stops the smoke run
(exit 1, its output printed).

Usage: python scripts/smoke.py [--jobs N] [CONFIG ...]   (default: every configs/**/*.yaml)
"""

from __future__ import annotations

import argparse
import contextlib
import io
import multiprocessing as mp
import signal
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLAGS = ["--smoke", "--quiet", "--skip-missing-data", "--force"]


def _worker_init() -> None:
    import streamlearn.cli.app  # noqa: F401  (the import the configs share)


def run_one(config: str) -> tuple[str, int, float, str]:
    """``streamlearn run CONFIG`` + :data:`FLAGS` in this process: the config, the exit
    code, the seconds it took and what it printed (stdout and stderr)."""
    from streamlearn.cli.app import main

    out = io.StringIO()
    argv = sys.argv
    sys.argv = ["streamlearn", "run", config, *FLAGS]
    t0 = time.perf_counter()
    code: int | str | None = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            main()
    except SystemExit as exc:
        code = exc.code
    except BaseException:  # a traceback is a failed smoke run too, shown as such
        out.write(traceback.format_exc())
        code = 1
    finally:
        sys.argv = argv
        # a run may handle SIGTERM/SIGINT itself; the pool ends its workers with SIGTERM
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
    status = code if isinstance(code, int) else (0 if code is None else 1)
    return config, status, time.perf_counter() - t0, out.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("configs", nargs="*", help="configs (default: configs/**/*.yaml)")
    args = parser.parse_args()
    configs = args.configs or sorted(str(p.relative_to(ROOT))
                                     for p in (ROOT / "configs").rglob("*.yaml"))
    start = time.perf_counter()
    # spawn: a worker starts from a clean interpreter, as the console script does
    with mp.get_context("spawn").Pool(max(1, args.jobs), initializer=_worker_init,
                                      maxtasksperchild=None) as pool:
        for config, status, seconds, text in pool.imap_unordered(run_one, configs):
            print(f"== smoke {config} ({seconds:.1f} s)", flush=True)
            if status != 0:
                print(text, end="")
                print(f"smoke FAILED: {config} (exit {status})", flush=True)
                pool.terminate()
                return 1
    print(f"smoke: all {len(configs)} configs ran in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
