"""Markdown tables as the table builders write them: a row's cells, the rule under a
header, and for each line the section heading above it and its table's header (read by
:mod:`~streamlearn.reporting.verify` and :mod:`~streamlearn.reporting.papers.accounts`)."""

from __future__ import annotations

import re


def row_cells(line: str) -> list[str] | None:
    """The cells of a Markdown table row, or None when ``line`` is not one."""
    s = line.strip()
    if not (s.startswith("|") and s.endswith("|") and len(s) > 1):
        return None
    return [c.strip() for c in s[1:-1].split("|")]


def is_rule(cells: list[str] | None) -> bool:
    """True for the rule row under a table's header (``|---|---|``)."""
    return bool(cells) and all(re.fullmatch(r":?-{3,}:?", c) for c in cells or [])


def md_context(lines: list[str]) -> list[tuple[str | None, list[str] | None]]:
    """For each line: the section heading above it and the header of its table."""
    out: list[tuple[str | None, list[str] | None]] = []
    section: str | None = None
    header: list[str] | None = None
    for i, line in enumerate(lines):
        if line.startswith("#"):
            section, header = line.lstrip("#").strip(), None
        cells = row_cells(line)
        if cells is None:
            header = None
        elif header is None and i + 1 < len(lines) and is_rule(row_cells(lines[i + 1])):
            header = cells
        out.append((section, header))
    return out
