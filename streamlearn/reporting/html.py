"""One self-contained HTML page per experiment (``streamlearn report DIR --html``).

The page holds everything a reader needs and nothing it must fetch: the tables (ours, the
paper's value and Δ, as in ``summary.md``; a section of its own for each windowed, faded or
held-out evaluation the runs made, with its table and curves), the plots inlined as PNG
data URIs, the failed runs with their errors, records that could not be used, the resolved
config and the versions the runs recorded. No script, no external style sheet, font or image.
When ``streamlearn compare`` has written ``comparison.json`` into the directory, the page
has a "Comparison" section rendered from it (ranks, tests, critical-difference diagrams),
with a warning when the records changed since.
"""

from __future__ import annotations

import base64
import html
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

from streamlearn.reporting import comparison_files
from streamlearn.reporting.kinds import kind_description, kind_title
from streamlearn.reporting.machine import timing_lines
from streamlearn.reporting.output_files import write_output
from streamlearn.reporting.plots import curve_kind
from streamlearn.reporting.summary import Summary
from streamlearn.reporting.tables import caption, wide_rows

__all__ = ["render_html", "write_html"]

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto;
       max-width: 70rem; padding: 0 1rem; color: #1b1b1b; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { margin-top: 2.2rem; font-size: 1.25rem;
  border-bottom: 1px solid #ddd; padding-bottom: .2rem; } h3 { font-size: 1.05rem; }
p.caption { color: #444; }
table { border-collapse: collapse; margin: .6rem 0 1.2rem; font-size: .92rem; }
th, td { border: 1px solid #ccc; padding: .25rem .6rem; }
th { background: #f2f4f7; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.neg { color: #a00; } td.pos { color: #065; }
figure { margin: 1rem 0 1.6rem; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { color: #555; font-size: .88rem; }
pre { background: #f6f8fa; padding: .8rem; overflow-x: auto; font-size: .85rem; }
.failed { color: #a00; } .ok { color: #065; }
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _table(header: list[str], rows: list[list[str]], cls: str = "") -> str:
    out = [f'<table class="{_e(cls)}">' if cls else "<table>", "<thead><tr>"]
    out += [f"<th>{_e(h)}</th>" for h in header]
    out.append("</tr></thead><tbody>")
    for row in rows:
        out.append("<tr>")
        for j, cell in enumerate(row):
            classes = []
            if j > 0:
                classes.append("num")
                if header[j] == "Δ" and cell.startswith(("-", "−")):
                    classes.append("neg")
                elif header[j] == "Δ" and cell.startswith("+"):
                    classes.append("pos")
            attr = f' class="{" ".join(classes)}"' if classes else ""
            out.append(f"<td{attr}>{_e(cell)}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _image(path: Path, caption: str | None = None) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (f'<figure><img src="data:image/png;base64,{data}" alt="{_e(path.stem)}">'
            f"<figcaption>{_e(caption or path.name)}</figcaption></figure>")


def _comparison_section(summary: Summary) -> list[str]:
    """The "Comparison" section, from ``comparison.json`` (empty when there is none)."""
    if summary.out_dir is None:
        return []
    saved = comparison_files.read_saved(summary.out_dir)
    if saved is None:
        return []
    parts = ['<h2 id="comparison">Comparison</h2>']
    try:
        parts += _comparisons(summary.out_dir, saved, summary.runs)
    except (KeyError, TypeError, IndexError, AttributeError):  # edited or damaged
        parts.append("<p>comparison.json cannot be read: run `streamlearn compare` again."
                     "</p>")
    return parts


def _comparisons(out_dir: Path, saved: dict[str, Any], runs: list[dict[str, Any]],
                 ) -> list[str]:
    parts = [f"<p>{_e(saved['sources_line'])}</p>"]
    if comparison_files.is_stale(saved, runs):
        parts.append('<p class="failed">The run records changed since `streamlearn '
                     'compare` made this comparison: run it again.</p>')
    for c in saved["comparisons"]:
        parts += [f"<h3>{_e(c['label'])} ({_e(c['direction'])})</h3>", f"<p>{_e(c['runs'])}</p>",
                  _table(c["means"]["header"], c["means"]["rows"], "comparison-means"),
                  f"<p>{_e(c['friedman'])}</p>", f"<p>{_e(c['posthoc'])}</p>",
                  _table(c["pairs"]["header"], c["pairs"]["rows"], "comparison-pairs")]
        png = out_dir / Path(c["diagram"]["png"]).name
        parts.append(_image(png, f"{c['diagram']['caption']} ({c['diagram']['svg']})")
                     if png.is_file() else f"<p>{_e(png.name)} is missing.</p>")
        parts += [f"<p>{_e(line)}</p>" for line in [*c["machine"], *c["notes"]]]
    return parts


def _versions(summary: Summary) -> str:
    seen: dict[str, set[str]] = defaultdict(set)
    commits: set[str] = set()
    for r in [*summary.runs, *summary.failed]:
        for pkg, ver in (r.get("versions") or {}).items():
            seen[str(pkg)].add(str(ver))
        if r.get("git_commit"):
            commits.add(str(r["git_commit"]))
    if not seen and not commits:
        return "<p>No run recorded its versions.</p>"
    rows = [[pkg, ", ".join(sorted(v))] for pkg, v in sorted(seen.items())]
    if commits:
        rows.append(["git commit", ", ".join(sorted(commits))])
    note = ("<p>More than one value in a row: the runs were made with different "
            "versions.</p>" if any(len(v) > 1 for v in seen.values()) or len(commits) > 1
            else "")
    return _table(["package", "version (as recorded by the runs)"], rows) + note


def _kind_section(summary: Summary, kind: str, params: dict[str, list[Any]],
                  pngs: list[Path]) -> list[str]:
    """The section of a windowed, faded or held-out evaluation: what its values are, a
    table per stream and its learning curves."""
    parts = [f'<h2 id="kind-{_e(kind)}">{_e(kind_title(kind, params))}</h2>',
             f"<p>{_e(kind_description(kind, params))}</p>"]
    for s in summary.config["streams"]:
        header, rows = wide_rows(summary, s["label"], kind)
        if len(header) > 2 and rows:  # some metric has a value of this kind
            parts.append(f"<h3>{_e(s['label'])}</h3>")
            parts.append(_table(header, rows, f"results-{kind}"))
    if len(parts) == 2:
        parts.append("<p>No metric of this experiment has a value of this kind.</p>")
    parts += [_image(p) for p in pngs]
    return parts


def render_html(summary: Summary, images: list[Path]) -> str:
    """The page as text (see the module docstring)."""
    cfg = summary.config
    name = str(cfg.get("name", "experiment"))
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(name)} — streamlearn report</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(name)}</h1>",
    ]
    if cfg.get("description"):
        parts.append(f"<p>{_e(cfg['description'])}</p>")
    parts.append(f'<p class="caption">{_e(caption(summary))}</p>')
    n_ok, n_failed = len(summary.runs), len(summary.failed)
    parts.append(f'<p><span class="ok">{n_ok} run(s) complete</span>, '
                 f'<span class="{"failed" if n_failed else "ok"}">{n_failed} failed</span>, '
                 f"{len(summary.missing)} planned without a record, "
                 f"{len(summary.problems)} record(s) unusable.</p>")

    parts.append("<h2>Results</h2>")
    for s in cfg["streams"]:
        header, rows = wide_rows(summary, s["label"], "cumulative")
        parts.append(f"<h3>{_e(s['label'])}</h3>")
        parts.append(_table(header, rows, "results"))
    if summary.runs:  # the machine and its load beside the times of these tables
        parts += [f'<p class="caption">{_e(line)}</p>' for line in timing_lines(summary.runs)]

    parts.append("<h2>Plots</h2>")
    pngs = [p for p in images if p.suffix.lower() == ".png" and p.is_file()]
    parts += ([_image(p) for p in pngs if curve_kind(p) in (None, "cumulative")
               and not p.name.startswith("cd_")]
              or ["<p>No plots (see outputs.plots).</p>"])
    for kind, params in summary.kinds.items():
        parts += _kind_section(summary, kind, params,
                               [p for p in pngs if curve_kind(p) == kind])
    parts += _comparison_section(summary)

    parts.append("<h2>Failed runs</h2>")
    if summary.failed:
        rows = [[str(r.get("run_id", "")), str(r.get("error", ""))] for r in summary.failed]
        parts.append(_table(["run", "error"], rows, "failed-runs"))
        for r in summary.failed:
            if r.get("traceback"):
                parts.append(f"<details><summary>{_e(r.get('run_id', ''))}: traceback"
                             f"</summary><pre>{_e(r['traceback'])}</pre></details>")
    else:
        parts.append("<p>None.</p>")
    if summary.problems:
        parts.append("<h2>Records that could not be used</h2>")
        rows = [[p.run_id, p.kind, p.reason] for p in summary.problems]
        parts.append(_table(["record", "problem", "detail"], rows, "problems"))

    parts.append("<h2>Config</h2>")
    parts.append(f"<pre>{_e(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True))}</pre>")
    parts.append("<h2>Versions</h2>")
    parts.append(_versions(summary))
    parts.append("</body></html>")
    return "\n".join(parts)


def write_html(summary: Summary, out_dir: Path, images: list[Path]) -> Path:
    """Write ``out_dir/report.html`` (atomically) and return its path."""
    path = Path(out_dir) / "report.html"
    write_output(path, render_html(summary, images).encode("utf-8"))
    return path
