"""The machine beside every timing (issue 24, item 5): which CPU, cores, OS and BLAS
(kernel, threads) the runs' times were measured on, and how loaded the machine was — the
1-minute load average at the end of each timed run, which runs record in
``record["machine"]["load_average"]`` (``os.getloadavg()``: 1, 5 and 15 minutes)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

NOT_RECORDED = "not recorded (records written before streamlearn recorded the machine)"


def describe_machine(info: dict[str, Any]) -> str:
    """One line: CPU model (with its vector extension and Numba's target CPU where the
    record has them), cores, OS and the BLAS libraries (kernel, threads)."""
    cores = info.get("logical_cores")
    usable = info.get("usable_cores")
    text = f"{info.get('cpu', 'unknown CPU')}"
    if info.get("vector_isa"):  # recorded since 27 Nov (records.machine_info)
        text += f" ({info['vector_isa']}, Numba target {info.get('jit_cpu', 'unknown')}"
        if info.get("jit_features"):  # recorded since 7 Dec (records._jit_target)
            text += f" {info['jit_features']}"
        if info.get("jit_svml"):  # only when the user turned Intel's SVML on
            text += " SVML"
        text += ")"
    text += f", {cores} logical cores"
    if usable and usable != cores:
        text += f" ({usable} usable)"
    text += f", {info.get('system', '')}".rstrip(", ")
    blas = [f"{b.get('library')} {b.get('version')} ({b.get('kernel')} kernel, "
            f"{b.get('threads')} thread{'s' if b.get('threads') != 1 else ''})"
            for b in info.get("blas") or []]
    if blas:
        text += "; BLAS: " + ", ".join(sorted(set(blas)))
    return text


def machine_counts(runs: Iterable[dict[str, Any]]) -> list[tuple[str, int]]:
    """The machines the runs' times were measured on, most runs first, with how many
    runs each (records without the machine count as one "not recorded")."""
    counts: dict[str, int] = {}
    for r in runs:
        info = r.get("machine")
        key = describe_machine(info) if isinstance(info, dict) else NOT_RECORDED
        counts[key] = counts.get(key, 0) + 1
    return sorted(counts.items(), key=lambda kv: -kv[1])


def load_range(runs: Iterable[dict[str, Any]]) -> tuple[float, float, int] | None:
    """``(lowest, highest, runs)`` of the 1-minute load average recorded at the end of
    each timed run; None when no record has it (records older than the field)."""
    loads = []
    for r in runs:
        info = r.get("machine")
        load = info.get("load_average") if isinstance(info, dict) else None
        if isinstance(load, list | tuple) and load and isinstance(load[0], int | float) \
                and math.isfinite(load[0]):
            loads.append(float(load[0]))
    return (min(loads), max(loads), len(loads)) if loads else None


def load_line(runs: list[dict[str, Any]], cores: int | None = None) -> str:
    """``"Load average (1 min, at the end of each timed run): 0.9-2.3 on 2 logical
    cores (850 of 850 runs)."``; a timing is trustworthy when the load stays below the
    cores the runs used."""
    found = load_range(runs)
    if found is None:
        return "Load average: not recorded (records written before streamlearn recorded it)."
    low, high, n = found
    on = f" on {cores} logical cores" if cores else ""
    span = f"{low:.1f}" if f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f}-{high:.1f}"
    return (f"Load average (1 min, at the end of each timed run): {span}{on} "
            f"({n} of {len(runs)} runs).")


def timing_lines(runs: list[dict[str, Any]]) -> list[str]:
    """The machine(s) and the load, as lines to print beside a table or chart of times."""
    counts = machine_counts(runs)
    if len(counts) == 1:
        lines = [f"Machine of the timings: {counts[0][0]}."]
    else:
        lines = (["The timings were measured on more than one machine, so they compare "
                  "machines too:"] + [f"- {n} run(s): {m}" for m, n in counts])
    cores = {r["machine"].get("logical_cores") for r in runs
             if isinstance(r.get("machine"), dict)}
    return [*lines, load_line(runs, cores.pop() if len(cores) == 1 else None)]
