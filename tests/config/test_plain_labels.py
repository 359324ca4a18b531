"""Labels in reports are plain text (issue 21): ``summary.md`` keeps one table row per
algorithm whatever a label holds (``|``, ``\\``, a line break in records written before
labels were validated), and plots draw ``$`` as a dollar sign."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from tests.cli_helpers import run_cli

_UNESCAPED_PIPE = re.compile(r"(?<!\\)(?:\\\\)*\|")


def _config(tmp_path: Path, labels: list[str], plots: list[str] | None = None) -> Path:
    cfg = {"name": "t", "streams": [{"name": "sea", "label": "SEA",
                                     "params": {"n_samples": 200}}],
           "algorithms": [{"name": "perceptron", "label": lab} for lab in labels],
           "metrics": ["oca"],
           "outputs": {"dir": str(tmp_path / "out"), "plots": plots or []}}
    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump(cfg))
    return p


def _table_rows(markdown: str) -> list[list[str]]:
    """The rows of the (only) table, split at unescaped pipes; every line from the header
    to the blank line after the table must be a row."""
    lines = markdown.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("| Algorithm"))
    end = lines.index("", start)
    rows = lines[start:end]
    assert all(r.startswith("|") and r.endswith("|") for r in rows), rows
    return [_UNESCAPED_PIPE.split(r)[1:-1] for r in rows]


def test_pipes_and_backslashes_in_labels_keep_the_table_intact(tmp_path, capsys):
    labels = ["A|B", "C\\|D", "E\\"]
    rc, text = run_cli(["run", str(_config(tmp_path, labels)), "-q"], capsys)
    assert rc == 0, text
    rows = _table_rows((tmp_path / "out" / "summary.md").read_text())
    header, body = rows[0], rows[2:]
    assert len(body) == 3 and all(len(r) == len(header) for r in body), rows
    # unescaped, each first cell is the label as written
    shown = [re.sub(r"\\(.)", r"\1", r[0].strip()) for r in body]
    assert shown == labels


def test_a_label_with_a_line_break_in_old_records_stays_on_one_row(tmp_path, capsys):
    """Records written before labels were validated may hold any text: `report` writes
    it on one line."""
    out = tmp_path / "out"
    rc, text = run_cli(["run", str(_config(tmp_path, ["AB"])), "-q"], capsys)
    assert rc == 0, text
    manifest = json.loads((out / "experiment.json").read_text())
    manifest["config"]["algorithms"][0]["label"] = "A\nB\x1b[31m"
    for r in manifest["runs"]:
        r["algorithm"] = "A\nB\x1b[31m"
    (out / "experiment.json").write_text(json.dumps(manifest))
    for p in (out / "runs").glob("*.json"):
        rec = json.loads(p.read_text())
        rec["algorithm"] = "A\nB\x1b[31m"
        p.write_text(json.dumps(rec))
    rc, text = run_cli(["report", str(out)], capsys)
    md = (out / "summary.md").read_text()
    assert "\x1b" not in md
    rows = _table_rows(md)
    assert [r[0].strip() for r in rows[2:]] == ["A B [31m"]


def test_a_dollar_sign_in_a_label_is_not_mathtext(tmp_path, capsys):
    cfg = _config(tmp_path, ["x $\\frac$ y", "cost $5"], plots=["learning_curve", "time"])
    rc, text = run_cli(["run", str(cfg), "-q"], capsys)
    assert rc == 0 and "Traceback" not in text, text
    assert (tmp_path / "out" / "curve_oce_SEA.png").stat().st_size > 0
