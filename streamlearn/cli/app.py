"""Command-line interface: a thin Typer layer over the library.

Every command only parses options and calls a library function. User mistakes raise
:class:`~streamlearn.errors.UserError`; :func:`main` prints them without a traceback and
exits with the error's code (2 for config errors, 3 for data errors).
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from streamlearn.cli._common import err_console
from streamlearn.cli.check import check
from streamlearn.cli.compare import compare
from streamlearn.cli.data import data_app
from streamlearn.cli.listing import list_
from streamlearn.cli.records import records_app
from streamlearn.cli.report import report
from streamlearn.cli.run import run, validate
from streamlearn.cli.schema import schema
from streamlearn.cli.tables import tables_app
from streamlearn.errors import UserError

app = typer.Typer(
    name="streamlearn",
    help="Prequential experiment runner for online (streaming) machine learning research.\n\n"
    "Run `streamlearn run CONFIG.yaml` to run an experiment; `streamlearn COMMAND --help` "
    "for each command.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _print_version(value: bool) -> None:
    if value:
        from streamlearn import __version__

        print(f"streamlearn {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print the version of streamlearn and exit.")] = False,
) -> None:
    """Options that come before the command."""


# the sub-commands, one module each
app.command()(run)
app.command()(validate)
app.command("list")(list_)
app.command()(report)
app.command()(compare)
app.command()(check)
app.command()(schema)
app.add_typer(data_app, name="data", help="Real datasets: list, info, verify, fetch.")
app.add_typer(tables_app, name="tables", help="A paper's tables and figures, from its records.")
app.add_typer(records_app, name="records",
              help="Run records: pack into the archive, unpack.")


def _whole_short_help() -> None:
    """The command list shows each command's first sentence whole, wrapped (Click would
    cut it at the terminal width with "...")."""
    from streamlearn.cli.listing import describe

    for info in app.registered_commands:
        if info.short_help is None and info.callback is not None:
            info.short_help = describe(info.callback)


_whole_short_help()


def main() -> None:
    """Console-script entry point: user errors → message + exit code, no traceback."""
    try:
        app()
    except UserError as exc:
        from rich.text import Text

        err_console.print(Text.assemble(("Error: ", "bold red"), str(exc)), highlight=False)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err_console.print("Interrupted.")
        sys.exit(130)
    except SystemExit as exc:
        # Typer (0.29) turns a Ctrl-C inside a command into a silent exit 130 (its Exit
        # raised from the KeyboardInterrupt): say it, as everywhere else
        if _silent_interrupt(exc):
            err_console.print("Interrupted.")
        raise


def _silent_interrupt(exc: SystemExit) -> bool:
    """True for Typer's own exit of a KeyboardInterrupt (nothing printed); False for a
    command's ``typer.Exit(130)``, raised ``from None`` after its own message."""
    exit_ = exc.__context__  # Typer's or its vendored Click's Exit, by version
    return (exc.code == 130 and getattr(exit_, "exit_code", None) == 130
            and isinstance(getattr(exit_, "__cause__", None), KeyboardInterrupt))


if __name__ == "__main__":
    main()
