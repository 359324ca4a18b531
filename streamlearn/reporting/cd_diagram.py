"""The critical-difference diagram of a comparison (Demšar 2006, Fig. 1), as SVG and PNG.

The learners sit on an axis of average ranks (1 = best, on the left); a bar joins learners
the post-hoc test does not tell apart at α (scikit-posthocs'
``critical_difference_diagram`` finds these groups, the maximal cliques of "not
significant" pairs, and draws them); for the Nemenyi test the critical difference is
drawn above the axis. The Bayesian test has no p-values: its diagram groups learners
by Nemenyi's test, and its caption says so.

The figures are drawn in memory and returned as bytes, so that the caller writes every
file of a comparison only once all of them could be made.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from streamlearn.reporting.figures import figure_bytes
from streamlearn.reporting.plots import _plain_text, _pyplot

if TYPE_CHECKING:
    from streamlearn.reporting.comparison import Comparison


def grouping_test(comparison: Comparison) -> str:
    """The test whose groups the diagram draws."""
    return "wilcoxon-holm" if comparison.test == "wilcoxon-holm" else "nemenyi"


def caption(comparison: Comparison) -> str:
    """What the diagram shows, in one sentence."""
    t = comparison.table
    n, k = len(t.streams), len(t.learners)
    better = "larger" if t.bigger_is_better else "smaller"
    how = ("Wilcoxon signed-rank with Holm's correction" if comparison.test == "wilcoxon-holm"
           else f"Nemenyi, CD = {comparison.cd:.3f}")
    text = (f"{t.label}: average rank of {k} learners over {n} streams (1 = best, the "
            f"{better} value); a bar joins learners not significantly different at "
            f"α = {comparison.alpha:g} ({how}).")
    if comparison.test == "bayesian":
        text += " The Bayesian test gives no p-values; the groups are Nemenyi's."
    return text


@_plain_text
class _NameOrderedSet(set):  # type: ignore[type-arg]
    """A set of learner names that iterates in name order."""

    def __iter__(self) -> Iterator[Any]:
        return iter(sorted(set.__iter__(self)))


@contextlib.contextmanager
def _cliques_in_a_fixed_order() -> Iterator[None]:
    """scikit-posthocs (0.11) iterates its crossbar cliques as Python sets of names, whose
    order follows the per-process string hash: the same comparison then gives SVGs that
    differ in path order and, for cliques with equal lowest rank, in bar levels. Its clique
    finder is wrapped here to return name-ordered sets in a sorted list, so the same
    comparison draws the same file in every process (tested across hash seeds)."""
    from scikit_posthocs import _plotting

    find = getattr(_plotting, "_find_maximal_cliques", None)
    if find is None:  # another version: draw as it does
        yield
        return

    def ordered(adj: Any) -> list[set[Any]]:
        return sorted((_NameOrderedSet(c) for c in find(adj)), key=lambda c: list(c))

    _plotting._find_maximal_cliques = ordered
    try:
        yield
    finally:
        _plotting._find_maximal_cliques = find


def draw(comparison: Comparison) -> tuple[bytes, bytes]:
    """The diagram as (SVG, PNG) bytes."""
    import pandas as pd
    import scikit_posthocs as sp

    plt = _pyplot()
    t = comparison.table
    k = len(t.learners)
    ranks = pd.Series(comparison.avg_ranks, index=t.learners)
    sig = pd.DataFrame(comparison.group_p, index=t.learners, columns=t.learners)
    longest = max(len(name) for name in t.learners)
    fig, ax = plt.subplots(figsize=(max(6.4, 4.0 + 0.16 * longest), 1.2 + 0.32 * k))
    unclipped = {"clip_on": False}  # a learner at rank 1 or k sits on the axis' end
    with _cliques_in_a_fixed_order():
        sp.critical_difference_diagram(
            ranks, sig, ax=ax, alpha=comparison.alpha,
            label_fmt_left="{label} ({rank:.2f}) ",
            label_fmt_right=" ({rank:.2f}) {label}",
            label_props={"fontsize": 9}, text_h_margin=0.3, marker_props=unclipped,
            elbow_props=unclipped, crossbar_props=unclipped)
    ax.set_xlim(1.0, float(k))
    ax.set_xticks(range(1, k + 1))
    bottom, _ = ax.get_ylim()
    ax.set_ylim(bottom, 2.2)  # room above the axis for its numbers and the CD bar
    if comparison.test == "nemenyi":  # Demšar's CD bar, from rank 1, above the axis
        cd = comparison.cd
        ax.plot([1.0, 1.0 + cd], [1.5, 1.5], color="k", lw=1.5, clip_on=False)
        ax.plot([1.0, 1.0], [1.35, 1.65], color="k", lw=1.5, clip_on=False)
        ax.plot([1.0 + cd, 1.0 + cd], [1.35, 1.65], color="k", lw=1.5, clip_on=False)
        ax.text(1.0 + cd / 2, 1.75, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=9)
    test = "Wilcoxon–Holm" if grouping_test(comparison) == "wilcoxon-holm" else "Nemenyi"
    ax.set_title(f"{t.label}: average rank over {len(t.streams)} streams ({test}, "
                 f"α = {comparison.alpha:g})", fontsize=10)
    png, svg = figure_bytes(fig)  # no date in the SVG: same comparison, same file
    plt.close(fig)
    return svg, png
