"""What ``streamlearn compare`` writes and prints: ``comparison.md``, ``comparison.csv``,
``comparison.json`` (what the HTML report's "Comparison" section is rendered from), the
critical-difference diagrams ``cd_<metric>.svg`` and ``.png``, and the terminal tables.

``comparison.csv`` is a long table, one row per number, columns :data:`CSV_COLUMNS`:

* ``mean`` (stream, learner): the per-stream mean, in display units as ``summary.csv``;
* ``rank`` (stream, learner): the learner's rank on the stream, 1 = best;
* ``average_rank`` (learner);
* ``friedman`` and ``iman_davenport``: the statistic (χ²_F, F_F) and its p-value;
* ``critical_difference``: Nemenyi's CD at α (``other`` holds q_α);
* ``nemenyi`` / ``wilcoxon_holm`` (learner, other): the average-rank difference (other's
  − learner's) and the p-value (Holm-adjusted for Wilcoxon), ``significant`` at α;
* ``bayes_better``, ``bayes_rope``, ``bayes_worse`` (learner, other), for the Bayesian
  test: P(learner better than other), P(within the rope), P(other better).

Every file is rendered in memory first and written only when all could be made (each one
atomically), so a comparison that fails leaves nothing half-written.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from streamlearn.evaluation.records import atomic_write_bytes
from streamlearn.file_names import printable, slug
from streamlearn.reporting import cd_diagram
from streamlearn.reporting.comparison import (
    Comparison,
    Result,
    Source,
    fingerprint,
    nemenyi_q,
)
from streamlearn.reporting.machine import timing_lines

CSV_COLUMNS = ["metric", "kind", "stream", "learner", "other", "value", "p_value",
               "significant"]
TEST_TITLES = {"nemenyi": "Nemenyi", "wilcoxon-holm": "Wilcoxon signed-rank, Holm-corrected",
               "bayesian": "Bayesian signed-rank (baycomp)"}
JSON_VERSION = 1


def _md(text: Any) -> str:
    """A Markdown table cell: one line, ``\\`` and ``|`` escaped."""
    return printable(str(text)).replace("\\", "\\\\").replace("|", "\\|")


def _p(p: float | None) -> str:
    if p is None or not math.isfinite(p):
        return "—"
    if p == 0.0:
        return "0"
    return f"{p:.3g}" if p >= 0.001 else f"{p:.1e}"


def _num(x: float, digits: int = 3) -> str:
    return "∞" if math.isinf(x) else f"{x:.{digits}f}"


def diagram_names(c: Comparison) -> tuple[str, str]:
    """The diagram's file names: ``cd_<metric>.svg`` and ``cd_<metric>.png``."""
    stem = f"cd_{slug(c.table.metric)}"
    return f"{stem}.svg", f"{stem}.png"


# --------------------------------------------------------------------------------------
# Sentences shared by the Markdown, the terminal and the HTML page
# --------------------------------------------------------------------------------------


def direction(c: Comparison) -> str:
    return "higher is better" if c.table.bigger_is_better else "lower is better"


def friedman_line(c: Comparison) -> str:
    n, k = c.table.means.shape
    if c.friedman is None or c.iman_davenport is None:
        return f"Friedman's test: not computed for two learners (N = {n} streams)."
    chi2, p = c.friedman
    ff, pf = c.iman_davenport
    verdict = ("rejects" if pf < c.alpha else "does not reject")
    if math.isinf(ff):  # N(k-1) = χ²: the F form divides by zero
        iman = (f"Iman–Davenport F({k - 1}, {(k - 1) * (n - 1)}) unbounded: every stream "
                "ranks the learners in the same order, so only Friedman's p applies")
        verdict = ("rejects" if p < c.alpha else "does not reject")
    else:
        iman = f"Iman–Davenport F({k - 1}, {(k - 1) * (n - 1)}) = {_num(ff)}, p = {_p(pf)}"
    return (f"Friedman χ²({k - 1}) = {_num(chi2)}, p = {_p(p)}; {iman} (N = {n} streams, "
            f"k = {k} learners): {verdict} \"all learners perform alike\" at "
            f"α = {c.alpha:g}.")


def posthoc_line(c: Comparison) -> str:
    k, n = len(c.table.learners), len(c.table.streams)
    if c.test == "nemenyi":
        return (f"Nemenyi: critical difference CD = {c.cd:.3f} (q_{c.alpha:g} = "
                f"{nemenyi_q(k, c.alpha):.3f}, k = {k}, N = {n}); two learners differ "
                "significantly when their average ranks differ by more than CD.")
    if c.test == "wilcoxon-holm":
        return ("Wilcoxon signed-rank test on the per-stream means of each pair (zero "
                "differences split between the signs), p-values corrected for the "
                f"{k * (k - 1) // 2} pairs by Holm's method (Benavoli et al. 2016).")
    unit = "percentage point" if c.table.unit == "%" else c.table.unit
    return (f"Bayesian signed-rank test (baycomp; Benavoli et al. 2017) on the per-stream "
            f"means of each pair, rope ±{c.rope:g} {unit}".rstrip()
            + f": P(A better), P(practically equal), P(B better); a decision needs "
            f"P > 0.95. The diagram's groups are Nemenyi's (CD = {c.cd:.3f}).")


def pair_rows(c: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the pairwise table (A has the better average rank)."""
    if c.test == "bayesian":
        header = ["A", "B", "Δ rank", "P(A better)", "P(equal)", "P(B better)", "verdict"]
        rows = [[p.a, p.b, f"{p.rank_diff:.2f}", f"{p.p_a:.3f}", f"{p.p_rope:.3f}",
                 f"{p.p_b:.3f}", p.verdict] for p in c.pairs]
    else:
        what = "p (Holm)" if c.test == "wilcoxon-holm" else "p"
        header = ["A", "B", "Δ rank", what, f"at α = {c.alpha:g}"]
        rows = [[p.a, p.b, f"{p.rank_diff:.2f}", _p(p.p_value),
                 "A better" if p.significant else "no difference shown"] for p in c.pairs]
    rows.sort(key=lambda r: -float(r[2]))
    return header, rows


def mean_rows(c: Comparison) -> tuple[list[str], list[list[str]]]:
    """The per-stream means with each rank, and the average rank: stream × learner."""
    t = c.table
    header = ["Stream", *t.learners]
    rows = [[s, *(f"{t.format(t.means[i, j])} ({c.ranks[i, j]:g})"
                  for j in range(len(t.learners)))] for i, s in enumerate(t.streams)]
    rows.append(["Average rank", *(f"{r:.2f}" for r in c.avg_ranks)])
    return header, rows


def runs_line(c: Comparison) -> str:
    n = sorted({int(x) for x in c.table.n_runs.ravel()})
    runs = "/".join(map(str, n))
    return (f"Per-stream mean of each learner over its {runs} run(s) on the stream, from "
            "the run records; its rank on the stream in parentheses (1 = best, ties "
            "averaged).")


def machine_lines(result: Result) -> list[str]:
    """The machine(s) of the timings and the load while they ran."""
    return timing_lines([r for src in result.sources for r in src.runs])


# --------------------------------------------------------------------------------------
# comparison.md, comparison.csv, comparison.json
# --------------------------------------------------------------------------------------


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(map(_md, header)) + " |",
           "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    out += ["| " + " | ".join(map(_md, r)) + " |" for r in rows]
    return out


def sources_line(sources: list[Source]) -> str:
    cfg = sources[0].config
    dirs = "; ".join(f"{s.out_dir} ({len({r['stream'] for r in s.manifest['runs']})} "
                     "streams)" for s in sources)
    return (f"From {dirs}. Protocol {cfg.get('protocol')}, seeds {cfg.get('seeds')}"
            + (" (smoke mode)" if sources[0].manifest.get("smoke") else "") + ".")


def to_markdown(result: Result) -> str:
    c0 = result.comparisons[0]
    lines = [f"# Comparison of {len(c0.table.learners)} learners over "
             f"{len(c0.table.streams)} streams", "", sources_line(result.sources), ""]
    for c in result.comparisons:
        svg, png = diagram_names(c)
        lines += [f"## {_md(c.table.label)} ({direction(c)})", "", runs_line(c), ""]
        lines += _md_table(*mean_rows(c))
        lines += ["", friedman_line(c), "", posthoc_line(c), ""]
        lines += _md_table(*pair_rows(c))
        lines += ["", f"![Critical-difference diagram of {_md(c.table.label)}]({svg})", "",
                  f"{cd_diagram.caption(c)} ({svg}, {png})", ""]
        if c.table.metric.startswith("us_"):
            lines += [*machine_lines(result), ""]
        lines += [f"Note: {w}" for w in [*c.table.notes, *c.warnings]]
        lines += [""] if c.table.notes or c.warnings else []
    return "\n".join(lines).rstrip() + "\n"


def _csv_rows(c: Comparison) -> list[dict[str, Any]]:
    t, m = c.table, c.table.metric
    rows: list[dict[str, Any]] = []

    def add(kind: str, **kw: Any) -> None:
        rows.append({"metric": m, "kind": kind, **kw})

    for i, s in enumerate(t.streams):
        for j, a in enumerate(t.learners):
            add("mean", stream=s, learner=a, value=t.means[i, j])
            add("rank", stream=s, learner=a, value=c.ranks[i, j])
    for j, a in enumerate(t.learners):
        add("average_rank", learner=a, value=c.avg_ranks[j])
    if c.friedman is not None and c.iman_davenport is not None:
        add("friedman", value=c.friedman[0], p_value=c.friedman[1])
        add("iman_davenport", value=c.iman_davenport[0], p_value=c.iman_davenport[1])
    add("critical_difference", value=c.cd,
        other=f"q_alpha={nemenyi_q(len(t.learners), c.alpha):.6g}")
    for p in c.pairs:
        if c.test == "bayesian":
            for kind, v in (("bayes_better", p.p_a), ("bayes_rope", p.p_rope),
                            ("bayes_worse", p.p_b)):
                add(kind, learner=p.a, other=p.b, value=v)
        else:
            add(c.test.replace("-", "_"), learner=p.a, other=p.b, value=p.rank_diff,
                p_value=p.p_value, significant=p.significant)
    return rows


def to_csv(result: Result) -> str:
    rows = [r for c in result.comparisons for r in _csv_rows(c)]
    return pd.DataFrame(rows, columns=CSV_COLUMNS).to_csv(index=False, float_format="%.10g")


def to_json(result: Result, files: list[str]) -> str:
    """What the HTML report renders its "Comparison" section from."""
    def comp(c: Comparison) -> dict[str, Any]:
        header, rows = mean_rows(c)
        p_header, p_rows = pair_rows(c)
        svg, png = diagram_names(c)
        return {"metric": c.table.metric, "label": c.table.label, "direction": direction(c),
                "test": c.test, "alpha": c.alpha, "runs": runs_line(c),
                "friedman": friedman_line(c), "posthoc": posthoc_line(c),
                "means": {"header": header, "rows": rows},
                "pairs": {"header": p_header, "rows": p_rows},
                "diagram": {"svg": svg, "png": png, "caption": cd_diagram.caption(c)},
                "notes": [*c.table.notes, *c.warnings],
                "machine": machine_lines(result) if c.table.metric.startswith("us_") else []}

    data = {"version": JSON_VERSION, "sources_line": sources_line(result.sources),
            "sources": [{"dir": str(s.out_dir), "fingerprint": fingerprint(s.runs)}
                        for s in result.sources],
            "comparisons": [comp(c) for c in result.comparisons], "files": files}
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def write_comparison(result: Result, out_dir: Path | None = None) -> list[Path]:
    """Render every file of ``result`` in memory, then write them (each atomically) into
    ``out_dir`` (default: the first source directory); returns the paths written."""
    out_dir = Path(out_dir) if out_dir is not None else result.sources[0].out_dir
    files: dict[str, bytes] = {}
    for c in result.comparisons:
        svg, png = diagram_names(c)
        files[svg], files[png] = cd_diagram.draw(c)
    files["comparison.md"] = to_markdown(result).encode()
    files["comparison.csv"] = to_csv(result).encode()
    files["comparison.json"] = to_json(result, sorted(files)).encode()
    written = []
    for name in ["comparison.md", "comparison.csv", "comparison.json",
                 *(n for n in files if n.startswith("cd_"))]:
        atomic_write_bytes(out_dir / name, files[name])
        written.append(out_dir / name)
    return written


# --------------------------------------------------------------------------------------
# The terminal
# --------------------------------------------------------------------------------------


def rich_renderables(result: Result) -> list[Any]:
    """Per metric: a table of the learners by average rank (fits 80 columns: the wide
    per-stream table is in comparison.md), the tests in a few lines."""
    from rich.table import Table
    from rich.text import Text

    out: list[Any] = []
    for c in result.comparisons:
        t = c.table
        best = c.order[0]
        if out:
            out.append(Text(""))
        out.append(Text(f"{t.label} ({direction(c)}): average rank over "
                        f"{len(t.streams)} streams", style="bold"))
        table = Table()
        vs = {"nemenyi": "p vs #1", "wilcoxon-holm": "p vs #1 (Holm)",
              "bayesian": "P(#1 better)"}[c.test]
        for name, justify in (("#", "right"), ("Learner", "left"), ("Avg rank", "right"),
                              ("Best on", "right"), (vs, "right")):
            table.add_column(name, justify=justify,  # type: ignore[arg-type]
                             no_wrap=name != "Learner", max_width=28 if name == "Learner"
                             else None)
        wins = (c.ranks == c.ranks.min(axis=1, keepdims=True)).sum(axis=0)
        for place, j in enumerate(c.order, 1):
            cell = "—" if j == best else _vs(c, t.learners[best], t.learners[j])
            table.add_row(str(place), Text(t.learners[j]), f"{c.avg_ranks[j]:.2f}",
                          f"{wins[j]}/{len(t.streams)}", cell)
        out.append(table)
        lines = [friedman_line(c), posthoc_line(c)]
        tied = int(((c.ranks == c.ranks.min(axis=1, keepdims=True)).sum(axis=1) > 1).sum())
        if tied:  # "Best on" counts such a stream for each of the tied learners
            lines.append(f"Best on: {tied} stream(s) with a tie for first count for each "
                         "learner tied.")
        if c.test != "bayesian":
            lines.append(f"* significant at α = {c.alpha:g}.")
        if t.metric.startswith("us_"):
            lines += machine_lines(result)
        out += [Text(line) for line in lines]
        out += [Text(f"Note: {w}", style="yellow") for w in [*t.notes, *c.warnings]]
    return out


def _vs(c: Comparison, best: str, other: str) -> str:
    """The cell "best vs other" of the terminal table."""
    p = next(p for p in c.pairs if {p.a, p.b} == {best, other})
    if c.test == "bayesian":
        prob = p.p_a if p.a == best else p.p_b
        return "—" if prob is None else f"{prob:.3f}"
    return _p(p.p_value) + (" *" if p.significant else "")


# --------------------------------------------------------------------------------------
# The HTML report's section
# --------------------------------------------------------------------------------------


def read_saved(out_dir: Path) -> dict[str, Any] | None:
    """``out_dir/comparison.json`` when there is a usable one (None otherwise)."""
    path = Path(out_dir) / "comparison.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != JSON_VERSION:
        return None
    return data


def is_stale(saved: dict[str, Any], runs: list[dict[str, Any]]) -> bool:
    """Whether the records of the directory ``comparison.json`` is in (the comparison's
    first source: its files are written there) changed since the comparison was made."""
    return bool(saved["sources"][0].get("fingerprint") != fingerprint(runs))
