"""``streamlearn compare``: ranks, Friedman's test, a post-hoc test and critical-difference
diagrams over the streams of one or several output directories."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from streamlearn.cli._common import console, err_console


def compare(
    directories: Annotated[list[Path], typer.Argument(
        help="Output directories of `streamlearn run` with the same learners and protocol "
             "(several are merged: e.g. one per group of streams). The files are written "
             "into the first.", show_default=False, metavar="DIR")],
    metric: Annotated[list[str] | None, typer.Option(
        "--metric", help="The metric to rank by (default: the config's first); "
                         "repeat it for several (--metric oca --metric kappa), each with "
                         "its section and diagram; us_per_sample ranks by time.",
        show_default=False)] = None,
    test: Annotated[str, typer.Option(
        "--test", help="The post-hoc test: nemenyi (critical difference), wilcoxon-holm "
                       "(Wilcoxon signed-rank per pair, Holm-corrected; Benavoli et al. "
                       "2016) or bayesian (Bayesian signed-rank, baycomp).")] = "nemenyi",
    alpha: Annotated[float, typer.Option("--alpha", help="Significance level.")] = 0.05,
    rope: Annotated[float | None, typer.Option(
        "--rope", help="Bayesian test: region of practical equivalence, in the metric's "
                       "display units (default: 1 for a metric in %, else 0).",
        show_default=False)] = None,
    time: Annotated[bool, typer.Option(
        "--time/--no-time", help="Also rank by time (µs/sample, lower is better).")] = True,
) -> None:
    """Rank learners over the streams of output directories, test the differences and
    draw critical-difference diagrams: does a learner beat the others, and how fast?

    Tests: Friedman's with the Iman–Davenport correction, then the post-hoc --test.

    Per-stream means come from the run records (mean over seeds and folds); ranks take
    the metric's direction (an error such as oce ranks lower-is-better). Writes
    comparison.md, comparison.csv, comparison.json and cd_<metric>.svg/.png into the first
    directory (`streamlearn report DIR --html` then shows them); by default the time is
    compared too. Refuses, writing nothing (exit code 2): fewer than two learners or
    streams, learners missing on some streams, runs not complete or failed, directories
    of different protocols, a metric that was not recorded or is infinite (a learner
    that diverged).
    """
    from streamlearn.reporting.comparison import compare_dirs
    from streamlearn.reporting.comparison_files import rich_renderables, write_comparison

    result = compare_dirs(directories, metric=metric, test=test, alpha=alpha, rope=rope,
                          with_time=time)
    written = write_comparison(result)
    for item in rich_renderables(result):
        console.print(item, soft_wrap=False)
    for p in written:
        console.print(f"  wrote {p}", markup=False, highlight=False, soft_wrap=True)
    if (written[0].parent / "report.html").is_file():
        err_console.print(f"`streamlearn report {written[0].parent} --html` adds the "
                          "comparison to report.html.", markup=False, highlight=False)
