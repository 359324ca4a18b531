"""``streamlearn list``: the registered algorithms, streams, metrics and protocols."""

from __future__ import annotations

from typing import Annotated

import typer

from streamlearn.cli._common import console
from streamlearn.errors import UserError


def list_(
    kind: Annotated[str, typer.Argument(help="algorithms, streams, metrics or protocols.")
                    ] = "algorithms",
) -> None:
    """List the registered algorithms, streams, metrics or protocols."""
    from rich.table import Table

    from streamlearn import components, registry
    components.load_all()
    tables_ = {
        "algorithms": registry.ALGORITHMS,
        "streams": registry.STREAMS,
        "metrics": registry.METRICS,
        "protocols": registry.PROTOCOLS,
    }
    if kind not in tables_:
        raise UserError(f"Unknown kind {kind!r}. Choose one of: {', '.join(tables_)}.")
    table = Table(title=kind)
    table.add_column("name")
    table.add_column("task")
    table.add_column("description")
    for name in sorted(tables_[kind]):
        obj = tables_[kind][name]
        table.add_row(name, getattr(obj, "task", ""), components.describe(obj))
    console.print(table)
