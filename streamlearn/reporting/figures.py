"""Writing a Matplotlib figure: a PNG for the HTML report and the README, and an SVG
beside it with the same stem, to paste into a paper (issue 24, item 5).

The SVG is byte-reproducible: no date in its metadata, a fixed salt for the ids
Matplotlib generates, and text kept as text (``svg.fonttype: none``) so that a label can
be edited and the file stays small.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from streamlearn.reporting.output_files import write_output

#: the SVG settings that make the same figure give the same bytes
SVG_RC = {"svg.hashsalt": "streamlearn", "svg.fonttype": "none"}


def figure_bytes(fig: Any, tight: bool = True) -> tuple[bytes, bytes]:
    """``(png, svg)`` of ``fig``: PNG at 120 dpi, SVG without a date."""
    import matplotlib

    box = {"bbox_inches": "tight"} if tight else {}
    png, svg = io.BytesIO(), io.BytesIO()
    fig.savefig(png, format="png", dpi=120, **box)
    with matplotlib.rc_context(SVG_RC):
        fig.savefig(svg, format="svg", metadata={"Date": None}, **box)
    return png.getvalue(), svg.getvalue()


def save_figure(fig: Any, path: Path, tight: bool = True) -> list[Path]:
    """Write ``fig`` to ``path`` (a ``.png``) and to the ``.svg`` beside it, each
    atomically; returns both paths."""
    path = Path(path)
    png, svg = figure_bytes(fig, tight=tight)
    svg_path = path.with_suffix(".svg")
    write_output(path, png)
    write_output(svg_path, svg)
    return [path, svg_path]
