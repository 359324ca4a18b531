"""``streamlearn tables``: a reproduced paper's tables and figures, rebuilt from its saved
run records (nothing is re-run).

One sub-command per paper, named as its ``configs/`` and ``results/`` folders and the
``--paper`` of ``streamlearn data list``. Each writes only the outputs whose run records
are all present (``runs/`` or a folder's committed archive ``runs.tar.xz``) and names the
others, which keep their committed tables.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from streamlearn.cli._common import console, err_console

if TYPE_CHECKING:
    from streamlearn.reporting.papers.outputs import Output

__all__ = ["tables_app"]

tables_app = typer.Typer(
    name="tables",
    help="Rebuild a paper's results tables and figures from its saved run records.",
    no_args_is_help=True,
    add_completion=False,
)

OnlyOption = Annotated[
    str,
    typer.Option("--only", help="Comma-separated output files to write (relative to "
                 "RESULTS_DIR), e.g. table1.md; default: every output whose records are here."),
]


def _results_dir(paper: str) -> typer.models.ArgumentInfo:
    return typer.Argument(help=f"The paper's results folder (default: results/{paper}).",
                          show_default=False, metavar="RESULTS_DIR")


def _write(results_dir: Path, outputs: list[Output], only: str) -> None:
    """Write the selected outputs; exit 1 when an output asked for with --only could not
    be written (its records are missing), 2 for an unknown output name."""
    from streamlearn.errors import UserError
    from streamlearn.reporting.papers.outputs import select, write_outputs

    if not results_dir.is_dir():
        raise UserError(f"{results_dir} is not a directory.")
    chosen = select(outputs, only.split(","))
    result = write_outputs(results_dir, chosen,
                           report=lambda line: console.print(line, markup=False,
                                                             highlight=False, soft_wrap=True))
    if result.not_written and only:
        err_console.print(f"{len(result.not_written)} output(s) asked for with --only not "
                          "written: their run records are not here, or not all usable "
                          "(see above).", highlight=False)
        raise typer.Exit(1)


@tables_app.command("forks", short_help="FORKS: Tables 1-3, Fig. 2, sensitivity, extra "
                    "checks, PROS-N-KONS ridge.")
def forks(
    results_dir: Annotated[Path, _results_dir("forks")] = Path("results/forks"),
    only: OnlyOption = "",
) -> None:
    """FORKS (Wen et al.): Tables 1-3, Fig. 2, sensitivity, extra checks, PNK ridge.

    Writes table1.md, tables2_3.md, fig2.md + fig2.png, sensitivity.md, extra_checks.md
    and pnk_ridge.md. Each needs the records of several configs of configs/forks/ (e.g.
    table1.md: the six table1_<dataset>.yaml).
    """
    from streamlearn.reporting.papers import forks as paper

    _write(results_dir, paper.outputs(results_dir), only)


@tables_app.command("fast_ons", short_help="Fast-ONS: Fig. 1 (timing), Fig. 2 (stability).")
def fast_ons(
    results_dir: Annotated[Path, _results_dir("fast_ons")] = Path("results/fast_ons"),
    only: OnlyOption = "",
) -> None:
    """Fast-ONS (Civek and Kozat): Fig. 1 (timing) and Fig. 2 (stability).

    Writes fig1_timing.md + fig1a_time_vs_M.png, fig1b_gain.png (configs fig1a_n5e5,
    fig1a_n1e6, fig1b) and fig2_stability.md + fig2a_mse.png, fig2b_mse.png (configs
    fig2a, fig2b, from their saved predictions).
    """
    from streamlearn.reporting.papers import fast_ons as paper

    _write(results_dir, paper.outputs(results_dir), only)


@tables_app.command("ridge_bls", short_help="Ridge-BLS: λ calibration, Tables II-III and "
                    "VI, Fig. 1.")
def ridge_bls(
    results_dir: Annotated[Path, _results_dir("ridge_bls")] = Path("results/ridge_bls"),
    only: OnlyOption = "",
    timing_lam: Annotated[float | None, typer.Option(
        "--timing-lam", help="The λ of Table VI (default: the mean over every λ at which "
        "Chol-1 never failed).", show_default=False)] = None,
) -> None:
    """Ridge-BLS (Zhu et al.): the λ calibration, Tables II-III and VI, Fig. 1.

    Writes calibration.md (from calibration.json, which scripts/ridge_bls_calibrate.py
    measures) and, in each experiment folder of RESULTS_DIR (mnist_tables, mnist_na, ...),
    tables.md + fig1_max_accuracy_vs_lambda.png. RESULTS_DIR may also be one experiment
    folder: then its tables.md only.
    """
    from streamlearn.reporting.papers import ridge_bls as paper

    _write(results_dir, paper.outputs(results_dir, timing_lam), only)
