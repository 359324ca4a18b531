"""File names of an experiment's outputs, and the checks that keep them distinct.

A run's record is ``runs/<stream>__<algorithm>__seed<k>.json``, with each label reduced
to a file-name-safe slug. Two labels with the same slug would write one file and lose a
result silently, so :func:`slug_collisions` lets the config refuse them up front (case
is ignored, as on the default file systems of macOS and Windows).
"""

from __future__ import annotations

import re
import unicodedata

#: the longest file name most file systems accept (bytes)
MAX_NAME_BYTES = 255
#: the longest suffix appended to a run id (``.pred.npz``), plus the atomic writer's
#: temporary prefix/suffix fit in too (it truncates)
RUN_FILE_SUFFIX = ".pred.npz"


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


def name_too_long(name: str) -> bool:
    return len(name.encode("utf-8")) > MAX_NAME_BYTES
