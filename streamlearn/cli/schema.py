"""``streamlearn schema``: the JSON Schema of an experiment config, for editors."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from streamlearn.cli._common import console


def schema(
    out: Annotated[Path | None, typer.Option(
        "--out", help="Write the schema to this file (default: print it).",
        show_default=False)] = None,
) -> None:
    """Write the JSON Schema (draft 2020-12) of an experiment config.

    Editors complete and check a YAML config with it: with the YAML language server, put
    `# yaml-language-server: $schema=PATH` on the config's first line. The schema lists
    the algorithms, streams, metrics and protocols registered here (installed plugins
    included); algorithms and streams may also be dotted paths 'package.module:Class'.
    """
    import json

    from streamlearn.config.schema import json_schema, registry_names

    text = json.dumps(json_schema(registry_names()), indent=2, ensure_ascii=False) + "\n"
    if out is None:
        typer.echo(text, nl=False)
        return
    from streamlearn.atomic import write_bytes

    write_bytes(out, text.encode("utf-8"))
    console.print(f"wrote {out}", markup=False, highlight=False, soft_wrap=True)
