#!/usr/bin/env python
"""Probe streamlearn's CLI with hostile inputs and classify what each one does.

Every case (scripts/probe_hostile_cases.py: malformed configs, broken CSV/ARFF/LIBSVM/NumPy
files, misbehaving learners, bad output and data directories, odd options, a scheduler
that is not Dask) runs the real ``streamlearn`` executable as a subprocess in its own
temporary directory, with a timeout, and is classified as:

  ok            a legitimate input (a control) that ran and gave the right numbers
  clean         a hostile input handled as documented: refused with a documented exit
                code, no traceback, nothing written; or a failing learner recorded as a
                failed run (exit 1) while the other runs are complete and right
  traceback     "Traceback" in the output
  wrong_exit0   exit 0 although the input should have been refused or a run failed
  half_written  refused, but files were left behind (experiment.json, lock, records)
  silent_loss   exit 0, but runs missing or wrong, or summary.csv/summary.md corrupt
  result_lost   exit 1, but an honest run missing or wrong, or the failure not recorded
  stray_write   succeeded, but wrote outside its output directory (e.g. the data dir)
  wrong_code    an exit code not documented for the command, or not the expected one
  unclear_message  refused or failed as expected, but the message does not name the
                cause the case requires (e.g. the bad prediction's value)
  control_failed  a legitimate input refused or failed
  hang          no answer within the case's timeout
  skipped       not run here (e.g. the scheduler cases without dask)

  python scripts/probe_hostile_inputs.py [--json report.json] [-k PATTERN] [--parallel 2]
                                         [--streamlearn PATH]

Exit code: 0 when every case is ok or clean, 1 otherwise.

Which code is probed: the executable's. A venv's console script of an editable install
may import another checkout's modules whatever PYTHONPATH says; to probe a given
checkout, pass --streamlearn a two-line wrapper that puts it first on sys.path and calls
``streamlearn.cli.app.main``.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import hashlib
import http.server
import json
import math
import os
import re
import shutil
import signal
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from probe_hostile_cases import Case, dump, learner_files
from probe_hostile_cases_run import GOLDEN, all_cases, dask_available

OUTCOMES = ("ok", "clean", "traceback", "wrong_exit0", "half_written", "silent_loss",
            "result_lost", "stray_write", "wrong_code", "unclear_message", "control_failed",
            "hang", "skipped")
GOOD = ("ok", "clean", "skipped")
#: exit codes the README documents per command
DOCUMENTED = {"run": {0, 1, 2, 3, 4, 5, 130}, "validate": {0, 2, 3, 4},
              "report": {0, 1, 2, 4}, "check": {0, 1, 2}, "data": {0, 2, 3},
              "list": {0, 2}}
_CONTROL_CHARS = re.compile("[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]")
_CONTROL_CHARS_MD = re.compile("[\x00-\x09\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]")


@dataclass
class Result:
    """A case's run and its classification."""

    name: str
    category: str
    command: str
    outcome: str = "skipped"
    why: list[str] = field(default_factory=list)
    code: int | None = None
    seconds: float = 0.0
    output: str = ""
    notes: list[str] = field(default_factory=list)


class Context:
    """What case set-ups need from the engine: the shared datasets and completed
    experiments to copy (run once, on first use)."""

    def __init__(self, root: Path, exe: str, env: dict[str, str]) -> None:
        self.root, self.exe, self.env = root, exe, env
        self.shared_data = Path(os.environ.get("STREAMLEARN_DATA", "/work/shared/datasets"))
        self._lock = threading.Lock()
        self._golden: dict[str, Path] = {}

    def golden(self, kind: str) -> Path:
        with self._lock:
            if kind not in self._golden:
                d = self.root / f"golden-{kind}"
                d.mkdir()
                for name, content in {**learner_files(), "cfg.yaml": dump(GOLDEN[kind])}.items():
                    _write(d / name, content)
                proc = subprocess.run([self.exe, "run", "cfg.yaml", "-q"], cwd=d,
                                      capture_output=True, text=True, env=self.env,
                                      timeout=300)
                if proc.returncode != 0:
                    raise RuntimeError(f"the golden run {kind!r} failed:\n{proc.stderr}")
                self._golden[kind] = d / "out"
            return self._golden[kind]


def _write(path: Path, content: bytes | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode("utf-8", "surrogateescape")
    path.write_bytes(content)


# --------------------------------------------------------------------------------------
# What a directory holds (to see what a command wrote)
# --------------------------------------------------------------------------------------


def snapshot(root: Path) -> dict[str, tuple]:
    """Every entry under ``root`` (links not followed, __pycache__ left out):
    relative path -> (kind, size, content hash or link target)."""
    out: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        base = Path(dirpath)
        for name in dirnames + filenames:
            p = base / name
            rel = str(p.relative_to(root))
            try:
                st = p.lstat()
            except OSError:
                continue
            if p.is_symlink():
                out[rel] = ("link", os.readlink(p))
            elif p.is_dir():
                out[rel] = ("dir",)
            elif p.is_file():
                h = hashlib.sha256(p.read_bytes()).hexdigest() if st.st_size < 1 << 24 else ""
                out[rel] = ("file", st.st_size, st.st_mtime_ns if not h else h)
            else:
                out[rel] = ("other",)
    return out


def changes(before: dict[str, tuple], after: dict[str, tuple]) -> list[str]:
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


# --------------------------------------------------------------------------------------
# Checking a finished run's records and tables
# --------------------------------------------------------------------------------------


def _records(out: Path) -> list[dict[str, Any]]:
    recs = []
    for p in sorted((out / "runs").glob("*.json")) if (out / "runs").is_dir() else []:
        try:
            rec = json.loads(p.read_text())
        except (OSError, ValueError, UnicodeDecodeError):
            continue
        if isinstance(rec, dict):
            recs.append(rec)
    return recs


def _match(expected: dict[tuple, Any], found: list[tuple[tuple, Any]],
           same: Any) -> tuple[dict[tuple, Any], list[tuple]]:
    """Pair expected keys with found items: by exact key, then (labels may be escaped by
    the writer) with an unpaired item of the same seed/shape that ``same`` accepts."""
    pairs: dict[tuple, Any] = {}
    pool = list(found)
    for key in expected:
        for i, (k, item) in enumerate(pool):
            if k == key:
                pairs[key] = item
                del pool[i]
                break
    for key, want in expected.items():
        if key in pairs:
            continue
        for i, (k, item) in enumerate(pool):
            if k[-1] == key[-1] and same(item, want):
                pairs[key] = item
                del pool[i]
                break
    return pairs, [k for k, _ in pool]


def _oca(rec: dict[str, Any]) -> float | None:
    try:
        v = float(rec["metrics"]["oca"])
    except (KeyError, TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def check_runs(out: Path, runs: dict[tuple, float | None], bad: tuple[str, ...],
               failing: bool) -> list[str]:
    """Problems with the records and tables of a finished run: ``runs`` must be complete
    with the given OCA; with ``failing``, those of the ``bad`` algorithms recorded as
    failed instead."""
    try:
        return _check_runs(out, runs, bad, failing)
    except OSError as exc:  # e.g. an output path the file system cannot even look up
        return [f"cannot read the output directory ({exc})"]


def _check_runs(out: Path, runs: dict[tuple, float | None], bad: tuple[str, ...],
                failing: bool) -> list[str]:
    problems: list[str] = []
    recs = _records(out)
    want_failed = {k: v for k, v in runs.items() if failing and k[1] in bad}
    want_ok = {k: v for k, v in runs.items() if k not in want_failed}

    def ok_rec(rec: dict, want: float | None) -> bool:
        v = _oca(rec)
        return (rec.get("status") == "ok" and rec.get("complete") is True and v is not None
                and 0.0 <= v <= 1.0 and (want is None or abs(v - want) < 1e-9))

    found = [((r.get("stream"), r.get("algorithm"), r.get("seed")), r) for r in recs]
    pairs, _ = _match(want_ok, [f for f in found if f[1].get("status") == "ok"], ok_rec)
    for key, want in want_ok.items():
        rec = pairs.get(key)
        if rec is None:
            same = [r for k, r in found if k == key]
            what = (f"status {same[0].get('status')!r} ({str(same[0].get('error'))[:80]})"
                    if same else "no record")
            problems.append(f"run {key}: {what}")
        elif not ok_rec(rec, want):
            problems.append(f"run {key}: OCA {_oca(rec)} (expected {want})")
    failed = [(k, r) for k, r in found if r.get("status") == "failed"]
    fpairs, _ = _match(want_failed, failed, lambda r, w: True)
    for key in want_failed:
        rec = fpairs.get(key)
        if rec is None:
            problems.append(f"run {key}: not recorded as failed")
        elif not str(rec.get("error") or "").strip():
            problems.append(f"run {key}: failed without a message")
    if want_ok:
        problems += _check_summary(out, want_ok)
    problems += [f"temporary file left: {p.name}" for p in out.rglob("*.tmp")] \
        if out.is_dir() else []
    return problems


def _check_summary(out: Path, want: dict[tuple, float | None]) -> list[str]:
    problems = []
    path = out / "summary.csv"
    try:
        text = path.read_text()
        rows = list(csv.DictReader(text.splitlines(keepends=True)))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        return [f"summary.csv unreadable ({exc})"]
    if _CONTROL_CHARS.search(text):
        problems.append("summary.csv holds control characters")
    groups: dict[tuple, list[float | None]] = {}
    for (s, a, _seed), v in want.items():
        groups.setdefault((s, a), []).append(v)
    expected = {(s, a, "g"): vs for (s, a), vs in groups.items()}
    found = []
    for r in rows:
        try:
            if r.get("metric") == "oca" and int(r.get("n") or 0) > 0:
                found.append(((r["stream"], r["algorithm"], "g"), r))
        except ValueError:
            problems.append(f"summary.csv row {r}: bad n")

    def same(row: dict, vs: list) -> bool:
        if int(row["n"]) != len(vs):
            return False
        if any(v is None for v in vs):
            return True
        try:
            return abs(float(row["mean"]) - 100 * sum(vs) / len(vs)) < 5e-3
        except (TypeError, ValueError):
            return False

    pairs, extra = _match(expected, found, same)
    for key, vs in expected.items():
        row = pairs.get(key)
        if row is None:
            problems.append(f"summary.csv: no OCA row for {key[:2]}")
        elif not same(row, vs):
            problems.append(f"summary.csv: {key[:2]} mean {row['mean']} n {row['n']}, "
                            f"expected n {len(vs)} mean {_pct(vs)}")
    problems += [f"summary.csv: unexpected row {k[:2]}" for k in extra]
    md = out / "summary.md"
    if md.is_file():
        problems += _check_markdown(md.read_text(errors="replace"))
    return problems


def _pct(vs: list[float | None]) -> str:
    return "?" if any(v is None for v in vs) else f"{100 * sum(vs) / len(vs):.4f}"  # type: ignore[arg-type]


def _check_markdown(text: str) -> list[str]:
    problems = []
    if _CONTROL_CHARS_MD.search(text.replace("\n", "")):
        problems.append("summary.md holds control characters")
    block: list[int] = []
    for line in [*text.split("\n"), ""]:
        if line.startswith("|"):
            block.append(len(re.findall(r"(?<!\\)\|", line)))
        elif block:
            if len(set(block)) > 1:
                problems.append(f"summary.md: a table's rows have {sorted(set(block))} cells "
                                "separators (a label broke the table)")
            block = []
    return problems


# --------------------------------------------------------------------------------------
# Running a case
# --------------------------------------------------------------------------------------


def _command_name(args: list[str]) -> str:
    return args[0] if args and not args[0].startswith("-") else ""


def _run(exe: str, args: list[str], cwd: Path, env: dict[str, str],
         timeout: float) -> tuple[int | None, str, float]:
    t0 = time.perf_counter()
    proc = subprocess.Popen([exe, *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, _ = proc.communicate()
        code = None
    return code, out.decode("utf-8", "replace"), time.perf_counter() - t0


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


class _Servers:
    """Things at a TCP port that are not a Dask scheduler."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.server: socketserver.TCPServer | None = None

    def __enter__(self) -> int:
        if self.kind == "closed-port":
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                return int(s.getsockname()[1])
        if self.kind == "http-server":
            handler = http.server.SimpleHTTPRequestHandler
        else:
            garbage = self.kind == "garbage-server"

            class handler(socketserver.BaseRequestHandler):  # type: ignore[no-redef]
                def handle(self) -> None:
                    try:
                        if garbage:
                            self.request.sendall(os.urandom(4096) * 64)
                        time.sleep(200)
                    except OSError:
                        pass
        socketserver.ThreadingTCPServer.daemon_threads = True
        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return int(self.server.server_address[1])

    def __exit__(self, *exc: object) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


def run_case(case: Case, index: int, ctx: Context, have_dask: bool) -> Result:
    res = Result(case.name, case.category, " ".join(["streamlearn", *case.args]))
    if case.needs == "dask" and not have_dask:
        res.why = ["skipped: dask (distributed) is not importable by the CLI's Python"]
        return res
    d = ctx.root / f"{index:03d}-{re.sub(r'[^A-Za-z0-9_.-]', '_', case.name)}"
    d.mkdir()
    for name, content in case.files.items():
        _write(d / name, content)
    if case.setup is not None:
        case.setup(d, ctx)
    env = {**ctx.env, "PROBE_TMP": str(d), "XDG_CACHE_HOME": str(ctx.root / "cache" / d.name),
           **case.env}
    before = snapshot(d)
    if case.runner == "concurrent":
        return _concurrent(case, d, ctx, env, before, res)
    args = list(case.args)
    with _Servers(case.runner) if case.runner else _nullcontext(0) as port:
        args = [a.replace("{port}", str(port)) for a in args]
        res.command = " ".join(["streamlearn", *args])
        res.code, res.output, res.seconds = _run(ctx.exe, args, d, env, case.timeout)
    res.outcome, res.why = classify(case, res.code, res.output, d, before, snapshot(d))
    _lock_note(case, res, d)
    return res


class _nullcontext:
    def __init__(self, value: int) -> None:
        self.value = value

    def __enter__(self) -> int:
        return self.value

    def __exit__(self, *exc: object) -> None:
        return None


def _lock_note(case: Case, res: Result, d: Path) -> None:
    with contextlib.suppress(OSError):
        if _command_name(case.args) == "run" and res.code in (0, 1) and \
                (d / case.out / ".streamlearn.lock").exists():
            res.notes.append("lock file left after the run")


def _concurrent(case: Case, d: Path, ctx: Context, env: dict[str, str],
                before: dict[str, tuple], res: Result) -> Result:
    """Two identical runs started together on one output directory: one refused (exit 5)
    and one complete, or both complete one after the other."""
    results: list[tuple[int | None, str, float]] = [(None, "", 0.0)] * 2

    def go(i: int) -> None:
        results[i] = _run(ctx.exe, case.args, d, env, case.timeout)

    threads = [threading.Thread(target=go, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    codes = [r[0] for r in results]
    res.code = codes[0] if codes[0] != 0 else codes[1]
    res.output = "\n--- second run ---\n".join(r[1] for r in results)
    res.seconds = max(r[2] for r in results)
    res.command += "   (twice, at the same time)"
    if None in codes:
        res.outcome, res.why = "hang", [f"exit codes {codes}"]
    elif "Traceback (most recent call last)" in res.output:
        res.outcome, res.why = "traceback", [f"exit codes {codes}"]
    elif sorted(codes) not in ([0, 0], [0, 5]):
        res.outcome, res.why = "wrong_code", [f"exit codes {codes}, expected 0 and 5"]
    else:
        problems = check_runs(d / case.out, case.expect.runs, (), False)
        res.outcome, res.why = ("silent_loss", problems) if problems else ("clean", [])
    return res


def classify(case: Case, code: int | None, output: str, d: Path, before: dict[str, tuple],
             after: dict[str, tuple]) -> tuple[str, list[str]]:
    e = case.expect
    cmd = _command_name(case.args)
    if code is None:
        return "hang", [f"no exit within {case.timeout:.0f} s"]
    if "Traceback (most recent call last)" in output:
        return "traceback", [_last_line(output)]
    changed = changes(before, after)
    out = os.path.normpath(case.out)
    # the output directory, what is in it, and the parents a run creates for it
    in_out = [p for p in changed if p == out or p.startswith(out + "/")
              or (out.startswith(p + "/") and after.get(p) == ("dir",))]
    elsewhere = [p for p in changed if p not in in_out]
    writes_ok = in_out if cmd in ("run", "report") else []
    stray = [p for p in changed if p not in writes_ok]
    if code == 0:
        if not e.ok:
            return "wrong_exit0", [f"exit 0; expected {_expected(e)}"]
        problems = check_runs(d / case.out, e.runs, e.bad, False) \
            if cmd == "run" and e.runs else []
        extra = e.check(d, output) if e.check else None
        problems += [extra] if extra else []
        if problems:
            return "silent_loss", problems
        if stray:
            return "stray_write", [f"wrote {', '.join(stray[:5])}"]
        return ("ok" if e.control else "clean"), []
    if code == 1 and e.fail_run and cmd == "run":
        problems = check_runs(d / case.out, e.runs, e.bad, True)
        if problems:
            return "result_lost", problems
        if elsewhere:
            return "stray_write", [f"wrote {', '.join(elsewhere[:5])}"]
        return _message(e, output)
    left = [p for p in changed if cmd != "report" or p not in in_out]
    if code in e.reject or (code not in (0, 1) and left):
        if left:
            return "half_written", [f"exit {code}; left {', '.join(left[:6])}"]
        return _message(e, output)
    if e.control:
        return "control_failed", [f"exit {code}"]
    documented = DOCUMENTED.get(cmd, {0, 2})
    what = "not documented for this command" if code not in documented else "unexpected"
    return "wrong_code", [f"exit {code} ({what}); expected {_expected(e)}"]


def _message(e: Any, output: str) -> tuple[str, list[str]]:
    """A clean refusal, unless its message misses what the case says it must name."""
    flat = " ".join(output.split())
    if e.says and not re.search(e.says, flat):
        return "unclear_message", [f"the message does not match {e.says!r}"]
    if e.not_says and re.search(e.not_says, flat):
        return "unclear_message", [f"the message matches {e.not_says!r}"]
    return "clean", []


def _expected(e: Any) -> str:
    parts = []
    if e.reject:
        parts.append("refusal with exit " + "/".join(map(str, sorted(e.reject))))
    if e.fail_run:
        parts.append(f"exit 1 with {', '.join(e.bad)} failed")
    if e.ok:
        parts.append("success")
    return " or ".join(parts) or "?"


def _last_line(output: str) -> str:
    lines = [ln for ln in output.strip().split("\n") if ln.strip()]
    return lines[-1][:200] if lines else ""


# --------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------


def table(results: list[Result]) -> str:
    cats = list(dict.fromkeys(r.category for r in results))
    cols = [o for o in OUTCOMES if any(r.outcome == o for r in results)
            or o in ("ok", "clean", "traceback", "wrong_exit0", "half_written", "silent_loss")]
    short = {"wrong_exit0": "exit0!", "half_written": "halfwr", "silent_loss": "silent",
             "result_lost": "lost", "stray_write": "stray", "wrong_code": "code",
             "control_failed": "ctlfail", "traceback": "trace", "unclear_message": "unclear"}
    head = f"{'category':<10} {'cases':>5} " + " ".join(f"{short.get(c, c):>7}" for c in cols)
    lines = [head, "-" * len(head)]
    for cat in [*cats, "TOTAL"]:
        rs = [r for r in results if cat in ("TOTAL", r.category)]
        n = Counter(r.outcome for r in rs)
        lines.append(f"{cat:<10} {len(rs):>5} " + " ".join(f"{n.get(c, 0):>7}" for c in cols))
    return "\n".join(lines)


def headline(results: list[Result]) -> str:
    n = Counter(r.outcome for r in results)
    ran = len(results) - n["skipped"]
    locks = sum("lock file left after the run" in r.notes for r in results)
    return (f"{ran} cases run ({n['skipped']} skipped): {n['ok']} controls ok, {n['clean']} "
            f"hostile inputs handled cleanly, {n['traceback']} tracebacks, {n['wrong_exit0']} "
            f"wrong exit 0, {n['half_written']} half-written, {n['silent_loss']} silent loss, "
            f"{n['result_lost']} result lost, {n['stray_write']} stray writes, "
            f"{n['wrong_code']} wrong exit code, {n['unclear_message']} unclear messages, "
            f"{n['control_failed']} controls failed, "
            f"{n['hang']} hangs; lock file left after {locks} finished run(s).")


def details(results: list[Result], lines_per_case: int = 4) -> str:
    out = []
    for outcome in OUTCOMES:
        bad = [r for r in results if r.outcome == outcome and outcome not in GOOD]
        if not bad:
            continue
        out.append(f"\n== {outcome} ({len(bad)}) ==")
        for r in bad:
            out.append(f"- [{r.category}] {r.name}: exit {r.code}, {r.seconds:.1f} s; "
                       f"{'; '.join(r.why)[:300]}")
            out.append(f"    $ {r.command!r}")
            text = [ln.strip() for ln in r.output.split("\n") if ln.strip()]
            shown = text[:lines_per_case]
            if len(text) > lines_per_case:
                shown += ["...", *text[-2:]]
            out += [f"    | {ln[:150]}" for ln in shown]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--streamlearn", default=str(Path(sys.executable).parent / "streamlearn"),
                    help="the streamlearn executable (default: next to this Python)")
    ap.add_argument("-k", dest="pattern", action="append",
                    help="run only cases whose 'category/name' matches this regex "
                         "(repeatable: any of them)")
    ap.add_argument("--json", type=Path, help="write the full report as JSON here")
    ap.add_argument("--parallel", type=int, default=2, help="cases run at once (default 2)")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--keep", action="store_true", help="keep the cases' directories")
    args = ap.parse_args(argv)

    cases = all_cases()
    if args.pattern:
        cases = [c for c in cases
                 if any(re.search(p, f"{c.category}/{c.name}") for p in args.pattern)]
    if args.list:
        for c in cases:
            print(f"{c.category}/{c.name}: streamlearn {' '.join(c.args)}")
        return 0
    exe = str(Path(args.streamlearn).resolve())
    python = _interpreter(exe)
    have_dask = dask_available(python)
    root = Path(tempfile.mkdtemp(prefix="streamlearn-probe-"))
    env = {**os.environ, "MPLBACKEND": "Agg", "COLUMNS": "200", "PROBE_PID": str(os.getpid()),
           "PYTHONDONTWRITEBYTECODE": "1"}
    ctx = Context(root, exe, env)
    t0 = time.perf_counter()
    print(f"{len(cases)} cases, {args.parallel} at a time, streamlearn = {exe}"
          f"{'' if have_dask else ' (no dask: scheduler cases skipped)'}", file=sys.stderr)
    done = 0
    lock = threading.Lock()

    def one(item: tuple[int, Case]) -> Result:
        nonlocal done
        i, case = item
        try:
            r = run_case(case, i, ctx, have_dask)
        except Exception as exc:  # the probe's own failure: show it, do not hide the case
            r = Result(case.name, case.category, " ".join(case.args), "wrong_code",
                       [f"probe error: {type(exc).__name__}: {exc}"])
        with lock:
            done += 1
            print(f"[{done}/{len(cases)}] {r.outcome:<14} {r.category}/{r.name} "
                  f"({r.seconds:.1f} s)", file=sys.stderr)
        return r

    with ThreadPoolExecutor(max_workers=max(1, args.parallel)) as pool:
        results = list(pool.map(one, enumerate(cases)))
    wall = time.perf_counter() - t0
    report = "\n".join([table(results), "", headline(results),
                        f"wall time {wall:.0f} s ({args.parallel} at a time)",
                        details(results)])
    print(report)
    if args.json:
        args.json.write_text(json.dumps({
            "streamlearn": exe, "wall_seconds": round(wall, 1), "dask": have_dask,
            "counts": dict(Counter(r.outcome for r in results)),
            "per_category": {c: dict(Counter(r.outcome for r in results if r.category == c))
                             for c in dict.fromkeys(r.category for r in results)},
            "cases": [r.__dict__ for r in results]}, indent=1))
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    else:
        print(f"case directories kept in {root}", file=sys.stderr)
    return 0 if all(r.outcome in GOOD for r in results) else 1


def _interpreter(exe: str) -> str:
    """The Python that runs the ``streamlearn`` script (its #! line)."""
    try:
        first = Path(exe).read_bytes()[:300].split(b"\n")[0].decode()
    except OSError:
        return sys.executable
    return first[2:].strip().split()[0] if first.startswith("#!") else sys.executable


if __name__ == "__main__":
    sys.exit(main())
