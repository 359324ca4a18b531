"""File names of an experiment's outputs, and the checks that keep them distinct.

A run's record is ``runs/<stream>__<algorithm>__seed<k>.json``, with each label reduced
to a file-name-safe slug. Two labels with the same slug would write one file and lose a
result silently, so :func:`slug_collisions` lets the config refuse them up front (case
is ignored, as on the default file systems of macOS and Windows). Labels are plain
printable text (:func:`unprintable_at`): the config refuses others, and the reports
replace them (a line break in a label would end a Markdown table row).
"""

from __future__ import annotations

import re
import unicodedata

#: the longest file name most file systems accept (bytes)
MAX_NAME_BYTES = 255
#: the longest suffix appended to a run id (``.pred.npz``), plus the atomic writer's
#: temporary prefix/suffix fit in too (it truncates)
RUN_FILE_SUFFIX = ".pred.npz"


#: Unicode categories that are not plain printable text: controls (line breaks, tabs,
#: ESC), format characters (zero-width, bidirectional overrides), line and paragraph
#: separators, surrogates, private-use and unassigned code points
UNPRINTABLE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def unprintable_at(text: str) -> int | None:
    """Index of the first character of ``text`` that is not plain printable text."""
    for k, ch in enumerate(text):
        if unicodedata.category(ch) in UNPRINTABLE_CATEGORIES:
            return k
    return None


def printable(text: str) -> str:
    """``text`` on one line: each unprintable character (line break, tab, ESC, ...)
    becomes a space, runs of white space one space."""
    return " ".join("".join(" " if unicodedata.category(ch) in UNPRINTABLE_CATEGORIES
                            else ch for ch in text).split())


def slug(text: str) -> str:
    """File-name-safe version of a label: letters (any script), digits, ``_ . -``."""
    text = unicodedata.normalize("NFKC", text)
    s = re.sub(r"[^\w.-]+", "-", text).strip("-.")
    return s or "x"


def run_id(stream_label: str, algorithm_label: str, seed: int) -> str:
    """Record name (without suffix) of one run."""
    return f"{slug(stream_label)}__{slug(algorithm_label)}__seed{seed}"


def slug_collisions(labels: list[str]) -> list[tuple[str, str, str]]:
    """Pairs of distinct labels that give the same file name: ``(first, second, slug)``."""
    seen: dict[str, str] = {}
    out = []
    for label in labels:
        key = slug(label).casefold()
        if key in seen and seen[key] != label:
            out.append((seen[key], label, slug(label)))
        seen.setdefault(key, label)
    return out
