"""Every committed table regenerated from the committed run records, and compared.

A results tree (``results/``) holds experiment folders (``experiment.json``, the tables
``summary.md``/``summary.csv``, plots) and, per paper, the paper's own tables
(``streamlearn tables PAPER``). Where a folder's run records are committed (its archive
``runs.tar.xz``), :func:`verify_results` copies the folder's ``experiment.json`` and
archive into a scratch tree, rebuilds its summaries there, then the paper tables from
those archives and the committed inputs (σ-selection CSVs, calibration.json), and compares
each rebuilt file byte for byte with the committed one; a difference is reported by file
and cell (Markdown: section, row, column; CSV: row and column).

A folder without an archive must be listed in ``records_not_committed.json`` at the top of
the tree, with the CPU cost of regenerating its records and why they were not: it is then
reported as unverified ("no records committed (cost: …)"), never silently passed, and a
folder neither archived nor listed is an error. A folder that planned no run (its data was
absent) needs no archive: its tables come from experiment.json alone. Plots are not
compared.

Each paper's README opens with its account line (cells within tolerance, outside with a
measured or an asserted cause, not run; :mod:`streamlearn.reporting.papers.accounts`):
:func:`verify_accounts` recomputes it from the committed tables and misses.json and reports
a README line that differs, or a misses.json key that names no cell outside tolerance, as
a difference; :func:`verify_readme_numbers` traces each number of the README's tables to a
committed output (:mod:`streamlearn.reporting.readme_numbers`).
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamlearn.evaluation import record_archive
from streamlearn.reporting.markdown_table import md_context as _md_context
from streamlearn.reporting.markdown_table import row_cells as _cells

#: the list of experiment folders whose records are not committed, at the tree's top
NOT_COMMITTED = "records_not_committed.json"
#: the papers whose tables ``streamlearn tables`` builds (results/<paper>/)
PAPERS = ("forks", "fast_ons", "ridge_bls")
#: differences shown per file
SHOWN = 8


@dataclass(frozen=True)
class Difference:
    """A committed file that its records do not give back: where, and what."""

    file: str  # path relative to the results tree's parent (e.g. results/forks/table1.md)
    where: str  # "line 9, section 'german', row 'FORKS', column 'ours'", or the file's state
    committed: str | None = None
    regenerated: str | None = None

    def describe(self) -> str:
        text = f"{self.file}: {self.where}"
        if self.committed is not None or self.regenerated is not None:
            text += f": committed {self.committed!r}, regenerated {self.regenerated!r}"
        return text


@dataclass
class VerifyReport:
    """What :func:`verify_results` found."""

    identical: list[str] = field(default_factory=list)  # files regenerated unchanged
    differences: list[Difference] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # unusable records, unlisted folders
    unverified: list[str] = field(default_factory=list)  # folders and outputs not covered
    archives: dict[str, int] = field(default_factory=dict)  # folder -> archive size (bytes)

    @property
    def ok(self) -> bool:
        return not self.differences and not self.errors


# ------------------------------------------------------------------------ differences


def _md_line_diffs(file: str, i: int, old: str, new: str,
                   ctx: tuple[str | None, list[str] | None]) -> list[Difference]:
    section, header = ctx
    a, b = _cells(old), _cells(new)
    where = f"line {i + 1}" + (f", section {section!r}" if section else "")
    if a is None or b is None or len(a) != len(b):
        return [Difference(file, where, old, new)]
    out = []
    for j, (x, y) in enumerate(zip(a, b, strict=True)):
        if x != y:
            col = header[j] if header and j < len(header) else f"#{j + 1}"
            out.append(Difference(file, f"{where}, row {a[0]!r}, column {col!r}", x, y))
    return out


def _paired(a: list[Any], b: list[Any]) -> Iterable[tuple[int | None, int | None]]:
    """Index pairs of the lines that differ (None: absent on that side)."""
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        n = max(i2 - i1, j2 - j1)
        for k in range(n):
            yield (i1 + k if i1 + k < i2 else None, j1 + k if j1 + k < j2 else None)


def markdown_differences(file: str, committed: str, regenerated: str) -> list[Difference]:
    """The cells (or lines) where two Markdown texts differ."""
    a, b = committed.split("\n"), regenerated.split("\n")
    ctx = _md_context(a)
    out: list[Difference] = []
    for i, j in _paired(a, b):
        if i is not None and j is not None:
            out += _md_line_diffs(file, i, a[i], b[j], ctx[i])
        elif i is not None:
            out.append(Difference(file, f"line {i + 1} is not regenerated", a[i], None))
        elif j is not None:
            out.append(Difference(file, f"line {j + 1} of the regenerated file is not "
                                  "committed", None, b[j]))
    return out


def csv_differences(file: str, committed: str, regenerated: str) -> list[Difference]:
    """The cells (or rows) where two CSV texts differ; a row is named by its first three
    cells (summary.csv: stream, algorithm, metric)."""
    a = [tuple(r) for r in csv.reader(io.StringIO(committed))]
    b = [tuple(r) for r in csv.reader(io.StringIO(regenerated))]
    header = list(a[0]) if a else []
    if a and b and a[0] != b[0]:  # other columns: every row would differ
        return [Difference(file, "line 1: the columns differ", ",".join(a[0]), ",".join(b[0]))]
    out: list[Difference] = []
    for i, j in _paired(a, b):
        if i is not None and j is not None and len(a[i]) == len(b[j]) and i > 0:
            row = ", ".join(f"{h}={v}" for h, v in zip(header[:3], a[i][:3], strict=False))
            for k, (x, y) in enumerate(zip(a[i], b[j], strict=True)):
                if x != y:
                    col = header[k] if k < len(header) else f"#{k + 1}"
                    out.append(Difference(file, f"line {i + 1}, row ({row}), column {col!r}",
                                          x, y))
        else:
            out.append(Difference(file, f"line {(i if i is not None else j or 0) + 1}",
                                  ",".join(a[i]) if i is not None else None,
                                  ",".join(b[j]) if j is not None else None))
    return out


def differences(file: str, committed: str, regenerated: str) -> list[Difference]:
    """Where ``committed`` and ``regenerated`` differ (empty when they are equal)."""
    if committed == regenerated:
        return []
    found = (csv_differences if file.endswith(".csv") else markdown_differences)(
        file, committed, regenerated)
    return found or [Difference(file, "the texts differ (white space or line ends)")]


# ------------------------------------------------------------------------ the tree


def experiment_folders(root: Path) -> list[str]:
    """Every experiment folder of the results tree ``root`` (relative, sorted); smoke
    outputs and ``runs/`` are skipped."""
    return sorted(str(p.parent.relative_to(root)) for p in root.rglob("experiment.json")
                  if not {"smoke", "runs"} & set(p.relative_to(root).parts))


#: files that make a folder a results folder, which then needs its experiment.json
RESULT_FILES = (record_archive.ARCHIVE_NAME, record_archive.PREDICTIONS_NAME, "summary.md",
                "summary.csv")


def orphan_folders(root: Path) -> list[str]:
    """Folders of ``root`` (relative, sorted; smoke outputs and ``runs/`` skipped) that
    hold run records or summary tables but no ``experiment.json``: a doctored table there
    had passed, since folders are found by their manifest."""
    out = set()
    for name in RESULT_FILES:
        for p in root.rglob(name):
            rel = p.parent.relative_to(root)
            if not {"smoke", "runs"} & set(rel.parts) and \
                    not (p.parent / "experiment.json").is_file():
                out.add(str(rel))
    return sorted(out)


def read_not_committed(root: Path) -> dict[str, dict[str, Any]]:
    """``records_not_committed.json``: folder → {"cpu_hours": …, "why": …}."""
    path = root / NOT_COMMITTED
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return dict(data.get("folders", {}))


def _cost(entry: dict[str, Any]) -> str:
    hours = entry.get("cpu_hours")
    cost = f"cost: {hours:g} CPU-hours" if isinstance(hours, int | float) else "cost unknown"
    why = entry.get("why")
    return cost + (f"; {why}" if why else "")


def _compare(report: VerifyReport, name: str, committed: Path, text: str) -> None:
    if not committed.is_file():
        report.differences.append(Difference(name, "regenerated, but no such file is "
                                             "committed"))
        return
    found = differences(name, committed.read_text(encoding="utf-8"), text)
    if found:
        report.differences += found
    else:
        report.identical.append(name)


def _verify_folder(report: VerifyReport, root: Path, work: Path, rel: str,
                   label: str) -> None:
    """Rebuild the summaries of ``root/rel`` from its archive in ``work/rel``."""
    from streamlearn.reporting import tables
    from streamlearn.reporting.summary import summarize

    src, dst = root / rel, work / rel
    dst.mkdir(parents=True, exist_ok=True)
    for name in ("experiment.json", record_archive.ARCHIVE_NAME):
        if (src / name).is_file():
            shutil.copyfile(src / name, dst / name)
    why = reference_mismatch(root, rel)
    if why:
        report.errors.append(f"{label}/{rel}: {why}")
    summary = summarize(dst)
    for p in summary.problems:
        report.errors.append(f"{label}/{rel}: record {p.run_id}: {p.kind}: {p.reason}")
    if not summary.runs and not summary.failed and summary.manifest["runs"]:
        report.errors.append(f"{label}/{rel}: its archive holds no usable record")
        return
    formats = summary.config["outputs"].get("tables", [])
    for path in tables.write_tables(summary, dst, formats):
        _compare(report, f"{label}/{rel}/{path.name}", src / path.name,
                 path.read_text(encoding="utf-8"))
    for name in ("summary.md", "summary.csv"):
        if (src / name).is_file() and not (dst / name).is_file():
            report.differences.append(Difference(f"{label}/{rel}/{name}", "committed, but "
                                                 "the config writes no such table"))


def reference_mismatch(root: Path, rel: str) -> str | None:
    """Why the paper values a folder's tables print cannot be trusted: its
    ``experiment.json`` holds a ``reference`` other than that of the config it names
    (``config_path``, beside ``root``'s parent), which the tables are rebuilt from; a
    changed paper value and its Δ had passed. ``None`` when they agree or the config file
    is not there to compare with."""
    from streamlearn.config.loading import load_config

    manifest = json.loads((root / rel / "experiment.json").read_text(encoding="utf-8"))
    path = root.parent / str(manifest.get("config_path") or "")
    if not manifest.get("config_path") or not path.is_file():
        return None
    try:
        ours = load_config(path).to_dict().get("reference")
    except Exception:  # a config that no longer loads: its own tests say why
        return None
    theirs = (manifest.get("config") or {}).get("reference")
    if json.dumps(ours, sort_keys=True) == json.dumps(theirs, sort_keys=True):
        return None
    return (f"its experiment.json's paper values (reference) are not those of "
            f"{manifest['config_path']}: rerun or `streamlearn report` it from the config")


def _plans_no_run(folder: Path) -> bool:
    """True for an experiment that planned no run (every stream's data was absent: its
    tables hold the paper's values only, rebuilt from experiment.json alone)."""
    try:
        return json.loads((folder / "experiment.json").read_text(encoding="utf-8"))["runs"] == []
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _paper_outputs(paper: str) -> Callable[[Path], list[Any]]:
    from streamlearn.reporting.papers import fast_ons, forks, ridge_bls

    return {"forks": forks.outputs, "fast_ons": fast_ons.outputs,
            "ridge_bls": ridge_bls.outputs}[paper]


def _copy_inputs(src: Path, dst: Path) -> None:
    """The committed files of a paper's folder that are not run records or figures (the
    builders' inputs: σ-selection CSVs, calibration.json, experiment manifests)."""
    for p in src.rglob("*"):
        rel = p.relative_to(src)
        if (p.is_file() and "runs" not in rel.parts and "smoke" not in rel.parts
                and p.suffix not in (".png", ".svg") and p.name != record_archive.ARCHIVE_NAME
                and not (dst / rel).exists()):
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, dst / rel)


def _verify_paper(report: VerifyReport, root: Path, work: Path, paper: str,
                  label: str) -> None:
    from streamlearn.reporting.papers.outputs import missing_inputs, missing_reason

    src, dst = root / paper, work / paper
    dst.mkdir(parents=True, exist_ok=True)
    _copy_inputs(src, dst)
    for output in _paper_outputs(paper)(dst):
        name = f"{label}/{paper}/{output.name}"
        missing = missing_inputs(dst, output)
        if missing:
            why = missing_reason(Path(label) / paper, missing)
            report.unverified.append(f"{name}: not verifiable: {why}")
            continue
        _compare(report, name, src / output.name, output.build(dst))


def verify_accounts(report: VerifyReport, root: Path, paper: str, label: str) -> None:
    """The account line of ``root/paper/README.md`` against the one the committed tables
    give, and each key of its misses.json against the cells outside tolerance (a stale
    key, an unknown cause or a heading the README lacks is a difference)."""
    from streamlearn.reporting.papers import accounts

    folder = root / paper
    readme, name = folder / "README.md", f"{label}/{paper}/README.md"
    try:
        account = accounts.compute_account(folder, paper)
    except (OSError, ValueError) as e:  # an unreadable table or cost table
        report.errors.append(f"{name}: the account cannot be computed: {e}")
        return
    line, committed = accounts.account_line(account), accounts.readme_account(readme)
    if committed != line:
        report.differences.append(Difference(name, "line 3, the account line (python -m "
                                             "streamlearn.reporting.papers.accounts)",
                                             committed, line))
    else:
        report.identical.append(f"{name} (account line)")
    misses, headings = f"{label}/{paper}/{accounts.MISSES}", accounts.readme_headings(readme)
    for key in account.stale_keys():
        report.differences.append(Difference(misses, f"key {key!r}: no cell outside "
                                             "tolerance has this key"))
    for key, entry in account.misses.items():
        if entry.get("cause") not in accounts.CAUSES:
            report.differences.append(Difference(misses, f"key {key!r}: cause is not one of "
                                                 f"{accounts.CAUSES}", entry.get("cause")))
        if entry.get("where") not in headings:
            report.differences.append(Difference(misses, f"key {key!r}: {name} has no "
                                                 "heading", entry.get("where")))


def verify_readme_numbers(report: VerifyReport, root: Path, paper: str, label: str) -> None:
    """Each number of the tables of ``root/paper/README.md`` traced to a committed output
    (:mod:`streamlearn.reporting.readme_numbers`); an untraced one, or a stale entry of
    its readme_derived.json, is a difference."""
    from streamlearn.reporting import readme_numbers

    name = f"{label}/{paper}/README.md"
    try:
        untraced = readme_numbers.untraced_numbers(root / paper,
                                                   root.parent / "benchmarks" / "out")
    except (OSError, ValueError) as e:  # an unreadable README or allow-list
        report.errors.append(f"{name}: its table numbers cannot be traced: {e}")
        return
    for u in untraced:
        file = name if u.line else f"{label}/{paper}/{readme_numbers.DERIVED}"
        report.differences.append(Difference(file, u.describe()))
    if not untraced:
        report.identical.append(f"{name} (table numbers traced)")


def verify_results(root: Path, work: Path, folders: list[str] | None = None,
                   progress: Callable[[str], None] | None = None) -> VerifyReport:
    """Regenerate, in the scratch folder ``work``, every summary of the experiment
    folders of ``root`` that have an archive and every paper table whose records are all
    archived, and compare each with the committed file (see the module docstring).
    ``folders``: the experiment folders to take (relative to ``root``; default all)."""
    root, work = Path(root), Path(work)
    label = root.name
    report = VerifyReport()
    listed = read_not_committed(root)
    folders = experiment_folders(root) if folders is None else sorted(folders)
    for rel in folders:
        archived = record_archive.has_archive(root / rel)
        if archived or _plans_no_run(root / rel):
            if archived:
                report.archives[rel] = record_archive.archive_path(root / rel).stat().st_size
            if rel in listed:
                report.errors.append(f"{label}/{rel}: its tables are verifiable but it is "
                                     f"still listed in {label}/{NOT_COMMITTED}")
            if progress:
                progress(f"{label}/{rel}")
            _verify_folder(report, root, work, rel, label)
        elif rel in listed:
            report.unverified.append(f"{label}/{rel}: no records committed "
                                     f"({_cost(listed[rel])})")
        else:
            report.errors.append(f"{label}/{rel}: no records committed "
                                 f"({record_archive.ARCHIVE_NAME}) and not listed in "
                                 f"{label}/{NOT_COMMITTED}")
    for rel in sorted(set(listed) - set(folders)):
        report.errors.append(f"{label}/{NOT_COMMITTED} lists {rel}, which is no experiment "
                             "folder")
    for rel in orphan_folders(root):
        report.errors.append(f"{label}/{rel}: has records or tables but no experiment.json, "
                             "so nothing in it can be verified (a folder is found by its "
                             "manifest; its paper tables would be left unverified)")
    for paper in PAPERS:
        if (root / paper).is_dir():
            if progress:
                progress(f"{label}/{paper}: paper tables")
            _verify_paper(report, root, work, paper, label)
    from streamlearn.reporting.papers.accounts import SPECS

    for paper in SPECS:
        if (root / paper / "README.md").is_file():
            verify_accounts(report, root, paper, label)
            verify_readme_numbers(report, root, paper, label)
    return report


def report_lines(report: VerifyReport) -> list[str]:
    """The verdict, file by file, for the console."""
    lines = []
    by_file: dict[str, list[Difference]] = {}
    for d in report.differences:
        by_file.setdefault(d.file, []).append(d)
    for file, diffs in by_file.items():
        lines.append(f"DIFFERS {file} ({len(diffs)} difference(s)):")
        lines += [f"  {d.describe()}" for d in diffs[:SHOWN]]
        if len(diffs) > SHOWN:
            lines.append(f"  … and {len(diffs) - SHOWN} more")
    lines += [f"ERROR {e}" for e in report.errors]
    lines += [f"UNVERIFIED {u}" for u in report.unverified]
    size = sum(report.archives.values())
    lines.append(f"{len(report.identical)} file(s) regenerated unchanged from "
                 f"{len(report.archives)} archive(s) ({size / 1e6:.2f} MB); "
                 f"{len(by_file)} differ; {len(report.errors)} error(s); "
                 f"{len(report.unverified)} folder(s)/table(s) not verifiable.")
    return lines
