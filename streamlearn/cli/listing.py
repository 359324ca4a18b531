"""``streamlearn list``: the registered algorithms, streams, metrics and protocols, each
with the first sentence of its docstring (:func:`describe`, also the command list's help)."""

from __future__ import annotations

import inspect
import re
from typing import Annotated, Any

import typer

from streamlearn.cli._common import console
from streamlearn.errors import UserError

#: words ending in a period that do not end a sentence
_ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "cf.", "vs.", "etc.", "Alg.", "Algs.", "Eq.",
                  "eq.", "eqs.", "Fig.", "Sec.", "Thm.", "No.", "resp.", "approx.")
_RST = (
    (re.compile(r":[\w:.+-]+:`~?([^`<]*?)\s*(?:<[^>]*>)?`"), r"\1"),  # :class:`~a.B` → a.B
    (re.compile(r"``(.+?)``"), r"\1"),                               # ``literal``
    (re.compile(r"`([^`]+?)\s*(?:<[^>]*>)?`_{0,2}"), r"\1"),           # `text <url>`_
    (re.compile(r"\*\*(\S(?:.*?\S)?)\*\*"), r"\1"),                    # **strong**
    (re.compile(r"(?<![\w*])\*(\S(?:[^*]*?\S)?)\*(?![\w*])"), r"\1"),    # *emphasis*
)


def describe(obj: Any) -> str:
    """The first sentence of an object's docstring, on one line, without reST markup
    (what ``streamlearn list`` shows)."""
    doc = inspect.cleandoc(getattr(obj, "__doc__", None) or "")
    text = " ".join(doc.split("\n\n", 1)[0].split())  # the first paragraph
    for pattern, repl in _RST:
        text = pattern.sub(repl, text)
    for m in re.finditer(r"[.!?](?=\s+[A-Z]|$)", text):
        head = text[: m.end()]
        if not head.endswith(_ABBREVIATIONS):
            return head
    return text


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
        table.add_row(name, getattr(obj, "task", ""), describe(obj))
    console.print(table)
