"""Every number in a paper README's tables traced to a committed output.

A results README (``results/<paper>/README.md``) quotes numbers from the paper's committed
outputs (summaries, paper tables, cost tables, benchmark JSON) by hand, so a slip survives
every regeneration of those outputs. :func:`untraced_numbers` takes each decimal number of
each table row and looks for it among the numbers of the outputs the row's section names
(a folder or file of ``results/<paper>/``: ``table3_baselines_usps/``,
``exg_e_variants/summary.txt``, ``configs/<paper>/x.yaml`` for the folder ``x``), or the
enclosing section's, or else of every output of the paper; ``benchmarks/out/NAME`` files
count where the section names them. Each committed number also stands for its roundings
(half-even, half-up, and as Python formats the binary float), so ``26.7`` is traced by
``26.71``. A number it cannot find is reported, unless ``readme_derived.json`` beside the
README lists it under the row's first cell with the reason (a difference of two cells, a
paper's SD the configs do not hold, a per-seed value read from the records).

A net, not a proof: a number found anywhere in the named outputs passes, so a slip onto
another value of the same outputs is not caught. Measured by changing the last digit of
random table numbers of the committed READMEs by ±1–3 (400 per paper): 34–72 % of the
two-decimal slips and 11–55 % of the one-decimal slips are caught, the fewest where a
section names large tables (ridge BLS's paper-size tables).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from pathlib import Path

#: the allow-list beside each README: {row's first cell: {"numbers": [...], "why": ...}}
DERIVED = "readme_derived.json"
#: committed outputs read as the corpus (the README itself excluded)
SUFFIXES = (".md", ".csv", ".txt", ".json")

_NUMBER = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.·×])")  # not a mantissa (5.5·10⁻⁶)
_ANY_NUMBER = re.compile(r"\d+\.\d+")
_BENCH_FILE = re.compile(r"benchmarks/out/([\w.-]+\.(?:json|md))")
_PATH_WORD = re.compile(r"[\w][\w./-]*")


@dataclass(frozen=True)
class Untraced:
    """A README table number found in no committed output, or a stale allow-list entry."""

    line: int  # 1-based line of the README (0: the allow-list)
    row: str  # the row's first cell
    number: str
    why: str = "in no committed output of the paper"

    def describe(self) -> str:
        where = f"line {self.line}, row {self.row!r}" if self.line else f"row {self.row!r}"
        return f"{where}: {self.number} {self.why}"


def roundings(number: str) -> set[str]:
    """``number`` and its values rounded to each shorter number of decimals (half-even,
    half-up, and as Python formats the nearest binary float: 40.55 gives 40.5 and 40.6)."""
    out = {number}
    value, decimals = Decimal(number), len(number.split(".")[1])
    for k in range(decimals):
        step = Decimal(1).scaleb(-k)
        for mode in (ROUND_HALF_EVEN, ROUND_HALF_UP):
            out.add(str(value.quantize(step, rounding=mode)))
        out.add(f"{float(number):.{k}f}")  # as Python formats the binary float
    return out


def corpus_numbers(files: Iterable[Path]) -> set[str]:
    """Every decimal number of ``files`` with its roundings (signs dropped)."""
    found: set[str] = set()
    for f in files:
        for n in set(_ANY_NUMBER.findall(f.read_text(errors="ignore"))):
            found |= roundings(n)
    return found


def committed_outputs(paper_dir: Path) -> list[Path]:
    """The files whose numbers a README may quote: the paper folder's outputs (not the
    README, not the allow-list)."""
    return sorted(f for f in paper_dir.rglob("*")
                  if f.is_file() and f.suffix in SUFFIXES
                  and f.name not in ("README.md", DERIVED))


def _heading_level(line: str) -> int:
    return len(line) - len(line.lstrip("#")) if line.startswith("#") else 0


def section_of(lines: list[str], i: int, up: int = 0) -> str:
    """The text of the section holding line ``i`` (0-based): from its heading to the next
    heading; with ``up`` > 0, the enclosing section ``up`` levels higher, subsections
    included."""
    a = next((j for j in range(i, -1, -1) if lines[j].startswith("#")), 0)
    level = _heading_level(lines[a])
    for _ in range(up):
        if level <= 1:
            break
        a = next((j for j in range(a - 1, -1, -1)
                  if lines[j].startswith("#") and _heading_level(lines[j]) < level), 0)
        level = _heading_level(lines[a])
    stop = level if up else 6
    b = next((j for j in range(i + 1, len(lines))
              if lines[j].startswith("#") and _heading_level(lines[j]) <= stop), len(lines))
    return "\n".join(lines[a:b])


def named_outputs(paper_dir: Path, text: str) -> list[Path]:
    """The outputs of ``paper_dir`` that ``text`` names: each word that is the path of a
    folder or file under it (``table3_baselines_usps``, ``exg_e_variants/summary.txt``,
    ``results/<paper>/x``, ``configs/<paper>/x.yaml`` for the folder ``x``)."""
    found: set[Path] = set()
    prefix = f"results/{paper_dir.name}/"
    for word in set(_PATH_WORD.findall(text)):
        word = word.strip("./")
        if word.startswith(prefix):
            word = word[len(prefix):]
        elif word.startswith("configs/") and word.endswith(".yaml"):
            word = Path(word).stem
        if not word or word.startswith(".."):
            continue
        p = paper_dir / word
        if p.is_dir():
            found.add(p)
        elif p.is_file() and p.suffix in SUFFIXES and p.name not in ("README.md", DERIVED):
            found.add(p.parent if p.parent != paper_dir and p.name.startswith("summary")
                      else p)
    files: list[Path] = []
    for p in sorted(found):
        files += [p] if p.is_file() else committed_outputs(p)
    return files


def table_numbers(readme: str) -> list[tuple[int, str, str]]:
    """(line, first cell, number) for each decimal number of each Markdown table row."""
    out = []
    for i, line in enumerate(readme.splitlines(), 1):
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        cells = line.strip().strip("|").split("|")
        first = cells[0].strip()
        for cell in cells:
            out += [(i, first, n) for n in _NUMBER.findall(cell.replace("−", "-"))]
    return out


def read_derived(path: Path) -> dict[str, list[str]]:
    """The allow-list: row's first cell -> the numbers it may hold untraced."""
    if not path.is_file():
        return {}
    data = json.loads(path.read_text())
    if not isinstance(data, dict) or not all(
            isinstance(e, dict) and isinstance(e.get("numbers"), list) and e.get("why")
            for e in data.values()):
        raise ValueError(f"{path}: expected {{row: {{\"numbers\": [...], \"why\": ...}}}}")
    return {row: [str(n) for n in e["numbers"]] for row, e in data.items()}


def untraced_numbers(paper_dir: Path, benchmarks_out: Path | None = None) -> list[Untraced]:
    """The README's table numbers that the outputs its section names do not hold and the
    allow-list does not name, then the allow-list entries that name no such number
    (stale). A row's outputs are those its section names (:func:`named_outputs`), or its
    enclosing section's, or else every output of the paper; plus the files of
    ``benchmarks_out`` its section names (``benchmarks/out/NAME``)."""
    lines = (paper_dir / "README.md").read_text().splitlines()
    everything = committed_outputs(paper_dir)
    named: dict[str, list[Path]] = {}
    per_file: dict[Path, set[str]] = {}
    cache: dict[tuple[Path, ...], set[str]] = {}

    def numbers(files: list[Path]) -> set[str]:
        key = tuple(files)
        if key not in cache:
            for f in files:
                if f not in per_file:
                    per_file[f] = corpus_numbers([f])
            cache[key] = set().union(*(per_file[f] for f in files))
        return cache[key]

    def sources(line: int) -> list[Path]:
        """The outputs the table row on ``line`` may quote (one lookup per row)."""
        files: list[Path] = []
        for up in range(3):
            text = section_of(lines, line - 1, up)
            if text not in named:
                named[text] = named_outputs(paper_dir, text)
            files = named[text]
            if files:
                break
        files = files or everything
        if benchmarks_out is not None:
            files = files + [f for n in sorted(set(_BENCH_FILE.findall(text)))
                             if (f := benchmarks_out / n).is_file()]
        return files

    derived = read_derived(paper_dir / DERIVED)
    used: set[tuple[str, str]] = set()
    out = []
    row_files: dict[int, list[Path]] = {}
    for line, row, number in table_numbers("\n".join(lines)):
        if line not in row_files:
            row_files[line] = sources(line)
        files = row_files[line]
        if number in numbers(files):
            continue
        if number in derived.get(row, []):
            used.add((row, number))
            continue
        out.append(Untraced(line, row, number))
    for row, allowed in derived.items():
        for number in allowed:
            if (row, number) not in used:
                out.append(Untraced(0, row, number, f"is listed in {DERIVED} but no table "
                                    "row of the README needs it"))
    return out
