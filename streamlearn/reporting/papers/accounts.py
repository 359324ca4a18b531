"""Each paper's one-line account of its cells against the paper (issue 26, item 5).

From the committed table files of ``results/<paper>/`` alone (nothing is rerun), every
*compared cell* — a paper value beside a measured one — is listed with ours, the paper's,
Δ = ours − paper and the tolerance of its metric; a cell with a paper value but no
measured value is *not run*, with the reason the results give. ``results/<paper>/misses.json``
says, for each cell outside tolerance, whether the README *measures* its cause (points to
a run that isolates it: a sweep, an ablation, a rerun with the switch flipped) or only
*asserts* it, and under which README heading; a cell outside tolerance that it does not
list has no stated cause (a cause counts as measured when the run the README points to
moves the cell at least half-way to the paper's value; one named without such a run, or
with one that moves the cell less, is asserted). :func:`account_line` renders the counts
as the first paragraph of the README, and ``make verify-results``
(:mod:`streamlearn.reporting.verify`) checks that line, the keys of misses.json and their
headings against the committed tables.

Which tables count (:data:`SPECS`, the one place this is decided): the tables in which
each README puts the paper's headline numbers beside ours, not the sensitivity and side
experiments that explain a miss (those are the *evidence* misses.json points to).

* online_bls: Table 3 (``table3/``: Ours on six datasets; the paper's I-BLS, BLS-CIL and
  RI-BLS rows there are its own baselines, measured whole-stream only on IS
  (``table3_baselines/``), USPS (``table3_baselines_usps/``, 2 runs; RI-BLS's 10 runs in
  ``ribls_usps_10runs/``, listed first), Letter
  (``table3_baselines_letter/``), Adult (``table3_baselines_adult/``) and Shuttle
  (``table3_baselines_shuttle/``) and MNIST (``table3_baselines_mnist/``); CoverType's
  are *not run*),
  Tables 4–6 (``drift/``, Ours (Ada.)) and Table 7 (``covtype/``). Only the paper's own
  methods count: HT, ARF and the other drift baselines are numbers the paper cites from
  elsewhere. ``table3_baselines_prefix/`` is
  left out (1,500-sample prefixes: the README says not comparable with the paper), as are
  the sensitivity folders. A cell in several files (Ours on IS and USPS beside the
  baselines) counts once, from the first file listed.
* forks: ``table1.md`` (Table 1) and ``tables2_3.md`` (Tables 2–3, both σ versions: the
  README compares both with the paper); not sensitivity.md, extra_checks.md, pnk_ridge.md.
* ridge_bls: ``mnist_full/tables.md`` (Tables II–III at the paper's size, for the λ and
  algorithms run there), ``mnist_full_mid/tables.md`` (the paper's size at the middle λ,
  u0…u6), ``mnist_full_u6/tables.md`` (the paper's size, u0…u6, for the algorithms and λ
  the other two leave out), then ``mnist_tables/tables.md`` (the scaled network, the
  paper's row under each of ours) for the other cells; mnist_na/ has no paper rows,
  calibration.md is an input. A failed factorisation (``NA``) is a result: NA on both
  sides agrees, NA on one side only is outside any tolerance.
* fast_ons: the paper reports figures, not numbers: no cell to compare.

Tolerances (issue 26): OCA and the other accuracy-type scores of the Online-BLS tables
(BACC, AVRBACC, F1, MCC, all in %) ±1.5 points, mistake rate ±2 points, test accuracy
±0.5 points.

Rewrite the README lines after a table or misses.json changed::

    python -m streamlearn.reporting.papers.accounts [results]     # write_accounts(results)
"""

from __future__ import annotations

import csv
import json
import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from streamlearn.reporting.markdown_table import is_rule, md_context, row_cells
from streamlearn.reporting.summary import COLUMNS

#: the account line's opening (the README's first paragraph after its title)
PREFIX = "**Account (make verify-results checks this line):**"
#: each paper's misses file, in its results folder
MISSES = "misses.json"
CAUSES = ("measured", "asserted")
#: the cost table's columns (scripts/online_bls_cost.py writes them, :func:`read_cost` reads
#: them): one home for the names, so a rename on one side cannot break the other
COST_COLUMNS = ("method", "dataset", "N", "measured CPU ms/sample (prefix: value)",
                "CPU-h per run", "CPU-h, 10 runs")


@dataclass(frozen=True)
class Tables:
    """Committed table files of a paper that hold compared cells.

    ``reader``: "summary" (a runner's summary.csv), "columns" (Markdown rows with ``ours``
    and ``paper`` columns) or "paper_rows" (Markdown rows ``X`` each followed by a row
    ``*paper X*``); ``metric``: what a Markdown table's numbers are; ``algorithms``: the
    rows that count (None: all); ``why``: why a paper value of these files has no measured
    value, when the results themselves do not say; a ``{cost}`` in it is filled from
    ``cost``, a cost table (:func:`read_cost`) in the paper's folder, with what the cells
    not run would take: the sum of their (method, dataset) rows."""

    glob: str
    label: str
    reader: str = "summary"
    metric: str = ""
    algorithms: tuple[str, ...] | None = None
    why: str = "no measured value"
    cost: str = ""


@dataclass(frozen=True)
class PaperSpec:
    """Which tables of a paper count, and the tolerance (points) of each metric."""

    tables: tuple[Tables, ...]
    tolerance: dict[str, float]
    no_cells: str = ""  # the account when the paper gives no numbers to compare
    elsewhere: str = ""  # the paper's numbers that no committed table holds, and why


_BLS_BASE = ("I-BLS", "BLS-CIL", "RI-BLS")
_PCT = 1.5
SPECS: dict[str, PaperSpec] = {
    "online_bls": PaperSpec(
        tables=(
            Tables("table3/summary.csv", "Table 3", algorithms=("Ours", *_BLS_BASE),
                   why="the baselines' whole streams ({cost}) were run on 1,500-sample "
                       "prefixes only",
                   cost="table3_baselines_cost/cost.md"),
            Tables("table3_baselines/summary.csv", "Table 3"),
            Tables("ribls_usps_10runs/summary.csv", "Table 3"),  # before the 2-run file
            Tables("table3_baselines_usps/summary.csv", "Table 3"),
            Tables("table3_baselines_letter/summary.csv", "Table 3"),
            Tables("table3_baselines_adult/summary.csv", "Table 3"),
            Tables("table3_baselines_shuttle/summary.csv", "Table 3"),
            Tables("table3_baselines_mnist/summary.csv", "Table 3"),
            Tables("drift/summary.csv", "Tables 4–6", algorithms=("Ours (Ada.)",)),
            Tables("covtype/summary.csv", "Table 7", algorithms=("Ours (Ada.)",)),
        ),
        tolerance={"oca": _PCT, "bacc": _PCT, "avrbacc": _PCT, "f1": _PCT, "mcc": _PCT}),
    "forks": PaperSpec(
        tables=(Tables("table1.md", "Table 1", "columns", "mistake_rate"),
                Tables("tables2_3.md", "Tables 2–3", "columns", "mistake_rate")),
        tolerance={"mistake_rate": 2.0},
        elsewhere="Figs. 3 and 5 (KuaiRec: data file not on this machine)"),
    "ridge_bls": PaperSpec(
        tables=(Tables("mnist_full/tables.md", "Tables II–III", "paper_rows",
                       "test_accuracy"),
                Tables("mnist_full_mid/tables.md", "Tables II–III", "paper_rows",
                       "test_accuracy"),
                Tables("mnist_full_u6/tables.md", "Tables II–III", "paper_rows",
                       "test_accuracy"),
                Tables("mnist_tables/tables.md", "Tables II–III", "paper_rows",
                       "test_accuracy")),
        tolerance={"test_accuracy": 0.5},
        elsewhere="Tables IV–V (NORB: data file not on this machine)"),
    "fast_ons": PaperSpec(
        tables=(), tolerance={},
        no_cells="the paper gives figures, not numbers: no cell to compare (the figures' "
                 "patterns are discussed below)"),
}
_NAMES = {"oca": "OCA", "bacc": "BACC", "avrbacc": "AVRBACC", "f1": "F1", "mcc": "MCC",
          "mistake_rate": "mistake rate", "test_accuracy": "test accuracy"}


@dataclass(frozen=True)
class Cell:
    """One paper value of a compared table; ``ours`` is None when it was not run."""

    file: str  # relative to the paper's folder
    label: str  # the paper's table (Tables.label)
    table: str  # stream (summary.csv) or section heading (Markdown)
    algorithm: str
    metric: str
    column: str
    ours: float | None
    paper: float
    delta: float | None
    tolerance: float
    why: str = ""  # not run: why

    @property
    def key(self) -> str:
        """How misses.json names the cell."""
        what = self.metric if self.column in ("", self.metric) else f"{self.metric} {self.column}"
        return " | ".join((self.file, self.table, self.algorithm, what))

    @property
    def within(self) -> bool:
        return self.delta is not None and abs(self.delta) <= self.tolerance + 1e-9


@dataclass
class Account:
    """A paper's compared and not-run cells, and its misses file."""

    paper: str
    cells: list[Cell] = field(default_factory=list)  # ours and paper present
    not_run: list[Cell] = field(default_factory=list)
    misses: dict[str, dict[str, str]] = field(default_factory=dict)
    spec: PaperSpec | None = None

    @property
    def outside(self) -> list[Cell]:
        return [c for c in self.cells if not c.within]

    def count(self, cause: str) -> int:
        """Cells outside tolerance whose misses.json cause is ``cause``."""
        return sum(1 for c in self.outside if self.misses.get(c.key, {}).get("cause") == cause)

    def stale_keys(self) -> list[str]:
        """Keys of misses.json that name no cell outside tolerance."""
        keys = {c.key for c in self.outside}
        return [k for k in self.misses if k not in keys]


# ------------------------------------------------------------------------ readers


def _number(text: str) -> float | None:
    """The number a table cell opens with ("31.12 ± 0.58", "*98.30*", "−2.5"), else None."""
    m = re.match(r"\*?\s*([-+−]?\d+(?:\.\d+)?)", text.strip())
    return float(m.group(1).replace("−", "-")) if m else None


def _summary_cells(path: Path, rel: str, spec: Tables,
                   tolerance: dict[str, float]) -> list[Cell]:
    """summary.csv (columns :data:`~streamlearn.reporting.summary.COLUMNS`): the rows with
    a paper value; a row without a mean is not run (why: experiment.json's ``not_run``)."""
    not_run: dict[str, str] = {}
    manifest = path.parent / "experiment.json"
    if manifest.is_file():
        not_run = json.loads(manifest.read_text(encoding="utf-8")).get("not_run") or {}
    out = []
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        lacking = set(COLUMNS[:9]) - set(reader.fieldnames or [])
        if lacking:
            raise ValueError(f"{path}: not a summary.csv (no column {sorted(lacking)})")
        for row in reader:
            metric, paper = row["metric"], _number(row["paper"] or "")
            if metric not in tolerance or paper is None:
                continue
            if spec.algorithms is not None and row["algorithm"] not in spec.algorithms:
                continue
            ours = _number(row["mean"] or "")
            delta = _number(row["diff"] or "") if ours is not None else None
            if ours is not None and delta is None:
                delta = ours - paper
            why = "data file not on this machine" if row["stream"] in not_run else spec.why
            out.append(Cell(rel, spec.label, row["stream"], row["algorithm"], metric, metric,
                            ours, paper, delta, tolerance[metric], why))
    return out


def _markdown_cells(path: Path, rel: str, spec: Tables, tol: float) -> list[Cell]:
    """A Markdown table file: rows with ``ours``/``paper`` columns (and Δ when given), or
    our rows each followed by the paper's (``*paper X*``), one cell per column."""
    lines = path.read_text(encoding="utf-8").split("\n")
    out: list[Cell] = []
    ours_rows: dict[str, list[str]] = {}
    for line, (section, header) in zip(lines, md_context(lines), strict=True):
        cells = row_cells(line)
        if cells is None or header is None or cells == header or is_rule(cells):
            ours_rows = {} if cells is None else ours_rows
            continue
        table, alg = section or "", cells[0]
        if spec.algorithms is not None and alg.strip("*").removeprefix("paper ") \
                not in spec.algorithms:
            continue
        if spec.reader == "columns" and "ours" in header and "paper" in header:
            row = dict(zip(header, cells, strict=False))
            ours, paper = _number(row["ours"]), _number(row["paper"])
            if paper is None:
                continue
            delta = _number(row.get("Δ", "")) if ours is not None else None
            if ours is not None and delta is None:
                delta = ours - paper
            out.append(Cell(rel, spec.label, table, alg, spec.metric, "", ours, paper,
                            delta, tol, spec.why))
        elif spec.reader == "paper_rows":
            m = re.fullmatch(r"\*paper (.+)\*", alg)
            if not m:
                ours_rows[alg] = cells
                continue
            mine = ours_rows.get(m.group(1), [])
            for j, col in enumerate(header[1:], start=1):
                paper_text = cells[j] if j < len(cells) else ""
                ours_text = mine[j] if j < len(mine) else ""
                paper, ours = _number(paper_text), _number(ours_text)
                paper_na, ours_na = _is_na(paper_text), _is_na(ours_text)
                if paper is None and not paper_na:
                    continue
                if paper_na or ours_na:  # a failed factorisation ("NA") is a result:
                    # NA on both sides agrees; NA on one side is outside any tolerance
                    if ours is None and not ours_na:
                        ours_v, delta = None, None  # not run
                    else:
                        ours_v = math.nan if ours_na else ours
                        delta = 0.0 if paper_na and ours_na else None
                    out.append(Cell(rel, spec.label, table, m.group(1), spec.metric, col,
                                    ours_v, math.nan if paper_na else paper, delta, tol,
                                    spec.why))
                    continue
                out.append(Cell(rel, spec.label, table, m.group(1), spec.metric, col, ours,
                                paper, None if ours is None else ours - paper, tol,
                                spec.why))
    return out


def _is_na(text: str) -> bool:
    """A table cell that reports a failed factorisation: ``NA``, ``*NA*``, ``NA (1/1)``."""
    return text.strip().strip("*").startswith("NA")


def read_cost(path: Path) -> dict[tuple[str, str], tuple[float, float]]:
    """A cost table (``scripts/online_bls_cost.py`` writes one): (method, dataset) →
    (CPU-hours for one run, for the paper's 10), from its columns :data:`COST_COLUMNS`
    (method, dataset, ..., CPU-h per run, CPU-h for 10 runs)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    out: dict[tuple[str, str], tuple[float, float]] = {}
    method, dataset, *_, one, ten = COST_COLUMNS
    for line, (_, header) in zip(lines, md_context(lines), strict=True):
        cells = row_cells(line)
        if cells is None or header is None or cells == header or is_rule(cells):
            continue
        row = dict(zip(header, cells, strict=False))
        try:
            out[(row[method], row[dataset])] = (float(row[one]), float(row[ten]))
        except (KeyError, ValueError) as e:
            raise ValueError(f"{path}: not a cost table ({line!r})") from e
    return out


def _with_cost(folder: Path, cells: list[Cell], specs: tuple[Tables, ...]) -> list[Cell]:
    """Not-run cells whose reason holds ``{cost}``: filled with the CPU-hours their
    (algorithm, stream) rows of the cost table add up to (each pair once, whatever the
    metrics); a pair the table lacks is an error, not a guess."""
    costs = {t.why: t.cost for t in specs if "{cost}" in t.why}
    out = list(cells)
    for why, cost_file in costs.items():
        todo = [i for i, c in enumerate(out) if c.ours is None and c.why == why]
        if not todo:
            continue
        table = read_cost(folder / cost_file)
        pairs = dict.fromkeys((out[i].algorithm, out[i].table) for i in todo)
        missing = [p for p in pairs if p not in table]
        if missing:
            raise ValueError(f"{folder / cost_file}: no row for {missing}")
        one = sum(table[p][0] for p in pairs)
        ten = sum(table[p][1] for p in pairs)
        text = why.replace("{cost}", f"≈ {one:.1f} CPU-hours for one run each, "
                                     f"{ten:.0f} for the paper's 10, {cost_file}")
        for i in todo:
            out[i] = replace(out[i], why=text)
    return out


def paper_cells(folder: Path, spec: PaperSpec) -> list[Cell]:
    """Every paper value of the paper's compared tables (see :data:`SPECS`), once: a cell
    (table, algorithm, metric) measured in an earlier file is not taken again, and a cell
    not run in one file but measured in another counts as measured."""
    found: list[Cell] = []
    for tables in spec.tables:
        for path in sorted(folder.glob(tables.glob)):
            rel = path.relative_to(folder).as_posix()
            if tables.reader == "summary":
                found += _summary_cells(path, rel, tables, spec.tolerance)
            else:
                found += _markdown_cells(path, rel, tables, spec.tolerance[tables.metric])
    seen: dict[tuple[str, str, str, str], Cell] = {}
    for c in found:
        ident = (c.table, c.algorithm, c.metric, c.column)
        if ident not in seen or (seen[ident].ours is None and c.ours is not None):
            seen[ident] = c
    return _with_cost(folder, list(seen.values()), spec.tables)


def read_misses(folder: Path) -> dict[str, dict[str, str]]:
    """``misses.json`` of a paper's folder: cell key → {"cause", "where"} (empty if none)."""
    path = folder / MISSES
    if not path.is_file():
        return {}
    return dict(json.loads(path.read_text(encoding="utf-8")))


def compute_account(folder: Path, paper: str | None = None) -> Account:
    """The account of the paper whose results folder is ``folder`` (its name by default)."""
    folder = Path(folder)
    name = paper or folder.name
    spec = SPECS[name]
    cells = paper_cells(folder, spec)
    return Account(name, [c for c in cells if c.ours is not None],
                   [c for c in cells if c.ours is None], read_misses(folder), spec)


# ------------------------------------------------------------------------ the line


def _tolerances(spec: PaperSpec) -> str:
    by_tol: dict[float, list[str]] = {}
    for metric, tol in spec.tolerance.items():
        by_tol.setdefault(tol, []).append(_NAMES.get(metric, metric))
    return "; ".join(f"{', '.join(names)} ±{tol:g} points" for tol, names in by_tol.items())


def account_line(account: Account) -> str:
    """The README's account paragraph (one line)."""
    spec = account.spec or SPECS[account.paper]
    if not account.cells and not account.not_run:
        return f"{PREFIX} {spec.no_cells or 'no cell to compare'}."
    labels = list(dict.fromkeys(c.label for c in account.cells))
    parts = [_tolerances(spec)]
    if len(labels) > 1:
        parts += [f"{lab}: {sum(c.within for c in account.cells if c.label == lab)} of "
                  f"{sum(c.label == lab for c in account.cells)}" for lab in labels]
    within = sum(c.within for c in account.cells)
    outside = len(account.outside)
    measured, asserted = account.count("measured"), account.count("asserted")
    text = (f"{PREFIX} {within} of {len(account.cells)} cells within tolerance "
            f"({'; '.join(parts)}) · {measured} outside with a measured cause · "
            f"{asserted} outside with the cause only asserted · "
            f"{outside - measured - asserted} outside without a stated cause · "
            f"{len(account.not_run)} not run")
    reasons: dict[str, list[Cell]] = {}
    for c in account.not_run:
        reasons.setdefault(c.why, []).append(c)
    if reasons:
        text += " (" + "; ".join(
            f"{len(cs)} on {', '.join(dict.fromkeys(c.table for c in cs))}: {why}"
            for why, cs in reasons.items()) + ")"
    if spec.elsewhere:
        text += f" · not in these counts: {spec.elsewhere}"
    return text + "."


def readme_account(readme: Path) -> str | None:
    """The account line of a README (the first paragraph after its title), or None."""
    lines = readme.read_text(encoding="utf-8").split("\n")
    return lines[2] if len(lines) > 2 and lines[2].startswith(PREFIX) else None


def set_readme_account(readme: Path, line: str) -> bool:
    """Put ``line`` as the first paragraph after the README's title (replacing an earlier
    account line, nothing else); True when the file changed."""
    text = readme.read_text(encoding="utf-8")
    lines = text.split("\n")
    if not lines or not lines[0].startswith("# "):
        raise ValueError(f"{readme}: the first line is not a title")
    if readme_account(readme) is not None:
        lines[2] = line
    else:
        lines[1:1] = ["", line]
    new = "\n".join(lines)
    if new != text:
        readme.write_text(new, encoding="utf-8")
    return new != text


def readme_headings(readme: Path) -> set[str]:
    """The section headings of a README (without the #'s)."""
    return {ln.lstrip("#").strip() for ln in readme.read_text(encoding="utf-8").split("\n")
            if ln.startswith("#")}


def write_accounts(results: Path | str) -> list[Path]:
    """Rewrite the account line of each paper's README under ``results``; the READMEs
    changed."""
    changed = []
    for paper in SPECS:
        folder = Path(results) / paper
        if (folder / "README.md").is_file() and set_readme_account(
                folder / "README.md", account_line(compute_account(folder, paper))):
            changed.append(folder / "README.md")
    return changed


if __name__ == "__main__":
    import sys

    for changed in write_accounts(sys.argv[1] if len(sys.argv) > 1 else "results"):
        print(f"wrote the account line of {changed}")
