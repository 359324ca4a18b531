"""What the sub-commands share: the consoles and the ``--data-dir`` option."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from streamlearn.errors import UserError

console = Console()
err_console = Console(stderr=True)

DataDirOption = Annotated[
    str | None,
    typer.Option(
        "--data-dir",
        help="Directory with the real dataset files (default: $STREAMLEARN_DATA, then the "
        "per-user cache directory).",
        show_default=False,
    ),
]


def _resolve_data_dir(value: str | None) -> str | None:
    if value is not None:
        p = Path(value).expanduser()
        if not p.is_dir():
            raise UserError(f"--data-dir {value!r} is not a directory.")
        return str(p.resolve())
    env = os.environ.get("STREAMLEARN_DATA")
    return str(Path(env).expanduser().resolve()) if env else None
