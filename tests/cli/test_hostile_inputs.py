"""Property-based hostile inputs: generated configs and generated CSV/ARFF/LIBSVM files,
valid and corrupted, through `streamlearn validate`, `streamlearn run` (in-process, tiny
streams) and the file parsers.

What must hold for every input: the exit code is one the README documents for the
command, nothing prints a traceback, and nothing is written unless the run started (exit
0, or exit 1 with the failed runs recorded); a valid input runs to the end with every
planned run complete, and a file parses to exactly the data it holds. The default run
tries a few dozen examples per property (well under a minute); the ``slow`` marker runs
the same properties with many more (``pytest -m slow tests/cli/test_hostile_inputs.py``).
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamlearn.datasets.files import ARFFStream, CSVStream, LIBSVMStream
from streamlearn.datasets.formats.arff import parse_arff
from streamlearn.datasets.formats.libsvm import parse_libsvm
from streamlearn.errors import UserError
from tests.cli_helpers import run_cli_captured

#: exit codes the README documents ("Errors"): 1 a failed run, 2 config, 3 data,
#: 4 output directory, 5 directory busy
RUN_CODES = {0, 1, 2, 3, 4, 5}
VALIDATE_CODES = {0, 2, 3, 4}

FEW = settings(max_examples=20, deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
MANY = settings(max_examples=400, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@contextlib.contextmanager
def _workdir() -> Iterator[Path]:
    """A fresh directory per example (function-scoped fixtures do not reset between
    hypothesis examples), with the per-user cache directory inside it."""
    with tempfile.TemporaryDirectory(prefix="hostile-") as d:
        old = os.environ.get("XDG_CACHE_HOME")
        os.environ["XDG_CACHE_HOME"] = str(Path(d) / "cache")
        try:
            yield Path(d)
        finally:
            if old is None:
                os.environ.pop("XDG_CACHE_HOME", None)
            else:
                os.environ["XDG_CACHE_HOME"] = old


def _files_under(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*") if not p.is_dir()) \
        if path.is_dir() else ([path.name] if path.exists() else [])


def _check_run(code: int, text: str, out: Path, *, what: str) -> None:
    """The properties of any `streamlearn run`: documented exit code, no traceback,
    nothing written unless it ran, and every planned run recorded when it did."""
    assert "Traceback" not in text, f"{what}: traceback\n{text}"
    assert code in RUN_CODES, f"{what}: exit code {code}\n{text}"
    if code not in (0, 1):
        assert not _files_under(out), (f"{what}: refused with exit {code} but left "
                                       f"{_files_under(out)}\n{text}")
        return
    manifest = json.loads((out / "experiment.json").read_text())
    planned = [r["run_id"] for r in manifest["runs"]]
    statuses = {}
    for run_id in planned:
        p = out / "runs" / f"{run_id}.json"
        assert p.is_file(), f"{what}: exit {code} but run {run_id} has no record\n{text}"
        rec = json.loads(p.read_text())
        statuses[run_id] = rec.get("status")
        if rec.get("status") == "ok":
            assert rec.get("complete") is True, f"{what}: {run_id} incomplete"
            for name, value in rec["metrics"].items():
                assert value is None or math.isfinite(value), f"{what}: {run_id} {name}={value}"
    if code == 0:
        assert set(statuses.values()) <= {"ok"}, f"{what}: exit 0 with {statuses}\n{text}"
        _check_tables(out, manifest, what)
    else:
        assert "failed" in statuses.values(), f"{what}: exit 1 but no failed run {statuses}"


_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]")


def _check_tables(out: Path, manifest: dict[str, Any], what: str) -> None:
    """summary.csv has one row per (stream, algorithm) for each metric, and summary.md
    is intact: no control characters, every table row with as many cells as its header
    (a label may not break the table)."""
    tables = manifest["config"]["outputs"]["tables"]
    pairs = {(r["stream"], r["algorithm"]) for r in manifest["runs"]}
    if "csv" in tables:
        with (out / "summary.csv").open(newline="") as fh:
            rows = list(csv.DictReader(fh))
        metric = manifest["config"]["metrics"][0]
        got = [(r["stream"], r["algorithm"]) for r in rows if r["metric"] == metric]
        # labels with control characters may be written escaped; the others as they are
        plain = {p for p in pairs if not _CONTROL.search("".join(p))}
        assert len(got) == len(pairs) and plain <= set(got), \
            f"{what}: summary.csv rows {got} for runs {sorted(pairs)}"
    if "markdown" not in tables:
        return
    md = (out / "summary.md").read_text()
    assert not _CONTROL.search(md.replace("\n", "")), f"{what}: control characters in " \
        f"summary.md: {md!r}"
    block: list[int] = []
    for line in [*md.split("\n"), ""]:
        if line.startswith("|"):
            block.append(len(re.findall(r"(?<!\\)\|", line)))
        elif block:
            assert len(set(block)) == 1, f"{what}: a broken table in summary.md:\n{md}"
            block = []


# --------------------------------------------------------------------------------------
# Generated configs
# --------------------------------------------------------------------------------------

_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8)
_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 30),
    st.sampled_from([0, -1, 2 ** 31, 2 ** 64 + 1, 10 ** 20]),
    st.floats(allow_nan=True, allow_infinity=True),
    _TEXT,
    st.sampled_from(["sea", "hyperplane", "rls", "perceptron", "hoeffding_tree", "oca",
                     "bacc", "f1", "minmax", "zscore", "range", "none", "learning_curve",
                     "time", "sweep", "markdown", "csv", "oce", "prequential-classification",
                     "prequential-regression", "incremental-nodes", "a\nb", "x|y",
                     "\x1b[31m", "lam", "n_samples"]),
)
_VALUES = st.one_of(_SCALARS, st.lists(_SCALARS, max_size=3),
                    st.dictionaries(st.sampled_from(["lam", "n_samples", "noise", "zz",
                                                     "name", "params"]), _SCALARS,
                                    max_size=2))
#: every place a value can go (outputs.dir is left to the test: it must stay in tmp)
_PATHS = [
    ("name",), ("description",), ("protocol",), ("repeats",), ("seeds",), ("metrics",),
    ("reference",), ("smoke",), ("zzz",), ("streams",), ("algorithms",), ("evaluation",),
    ("streams", 0, "name"), ("streams", 0, "label"), ("streams", 0, "params"),
    ("streams", 0, "params", "n_samples"), ("streams", 0, "params", "noise"),
    ("streams", 0, "shuffle"), ("streams", 0, "reseed"), ("streams", 0, "normalize"),
    ("streams", 0, "normalize_warmup"), ("streams", 0, "normalize_range"),
    ("streams", 0, "max_samples"), ("streams", 0, "sweep"), ("streams", 0, "zzz"),
    ("algorithms", 0, "name"), ("algorithms", 0, "label"), ("algorithms", 0, "params"),
    ("algorithms", 0, "params", "lam"), ("algorithms", 0, "smoke_params"),
    ("algorithms", 0, "sweep"), ("algorithms", 0, "optional"), ("algorithms", 0, "zzz"),
    ("algorithms", 1, "label"), ("evaluation", "chunk_size"), ("evaluation", "checkpoints"),
    ("evaluation", "save_predictions"), ("evaluation", "memory_profile"),
    ("evaluation", "fused"), ("evaluation", "zzz"), ("outputs", "plots"),
    ("outputs", "tables"), ("outputs", "curve_metric"), ("outputs", "zzz"),
]


def _base_config() -> dict[str, Any]:
    return {
        "name": "hostile", "repeats": 1,
        "streams": [{"name": "sea", "label": "SEA", "params": {"n_samples": 150}}],
        "algorithms": [{"name": "rls", "label": "RLS"},
                       {"name": "perceptron", "label": "Perc"}],
        "metrics": ["oca"], "evaluation": {"checkpoints": 5, "chunk_size": 50},
        "outputs": {"plots": []},
    }


def _edit(cfg: dict[str, Any], path: tuple, value: Any, delete: bool) -> None:
    node: Any = cfg
    for k in path[:-1]:
        if isinstance(node, dict) and k in node:
            node = node[k]
        elif isinstance(node, list) and isinstance(k, int) and k < len(node):
            node = node[k]
        else:
            return  # an earlier edit removed the parent
    last = path[-1]
    if isinstance(node, dict):
        if delete:
            node.pop(last, None)
        else:
            node[last] = value
    elif isinstance(node, list) and isinstance(last, int) and last < len(node):
        if delete:
            del node[last]
        else:
            node[last] = value


@st.composite
def configs(draw: st.DrawFn) -> tuple[dict[str, Any], list]:
    """The base config (valid) with zero to three edits: a key set to a generated value,
    or deleted."""
    cfg = _base_config()
    edits = draw(st.lists(st.tuples(st.sampled_from(_PATHS), _VALUES, st.booleans()),
                          max_size=3))
    for path, value, delete in edits:
        _edit(cfg, path, value, delete)
    return cfg, edits


def _config_property(cfg: dict[str, Any]) -> None:
    with _workdir() as d:
        cfg = {**cfg, "outputs": {**(cfg.get("outputs") if isinstance(cfg.get("outputs"),
                                                                       dict) else {}),
                                  "dir": str(d / "cfg_out")}}
        path = d / "cfg.yaml"
        path.write_text(yaml.safe_dump(cfg, allow_unicode=True))
        before = _files_under(d)
        v_code, v_text = run_cli_captured(["validate", str(path)])
        assert "Traceback" not in v_text, v_text
        assert v_code in VALIDATE_CODES, f"validate: exit {v_code}\n{v_text}"
        assert _files_under(d) == before, "validate wrote files"
        out = d / "out"
        r_code, r_text = run_cli_captured(["run", str(path), "--out", str(out), "-q"])
        _check_run(r_code, r_text, out, what="run")
        if v_code == 2:
            assert r_code == 2, f"validate refused the config (exit 2), run gave {r_code}"


@FEW
@given(configs())
def test_generated_configs(case: tuple[dict[str, Any], list]) -> None:
    _config_property(case[0])


@pytest.mark.slow
@MANY
@given(configs())
def test_generated_configs_many(case: tuple[dict[str, Any], list]) -> None:
    _config_property(case[0])


_LABELS = st.one_of(
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=10),
    st.sampled_from(["a\nb", "x|y", "\x1b[31mred", "a\rb", "tab\there", "\u202eevil",
                     "<script>", "*b*", "Perc"]),
)


def _labels_property(algorithm: str, stream: str) -> None:
    cfg = _base_config()
    cfg["algorithms"][0]["label"] = algorithm
    cfg["streams"][0]["label"] = stream
    _config_property(cfg)


@FEW
@given(_LABELS, _LABELS)
def test_generated_labels(algorithm: str, stream: str) -> None:
    """A label is refused (exit 2, nothing written) or written so that the tables stay
    intact (no control character, no broken Markdown row)."""
    _labels_property(algorithm, stream)


@pytest.mark.slow
@MANY
@given(_LABELS, _LABELS)
def test_generated_labels_many(algorithm: str, stream: str) -> None:
    _labels_property(algorithm, stream)


# --------------------------------------------------------------------------------------
# Generated data files: valid tables, then at most one corruption
# --------------------------------------------------------------------------------------

#: what a corruption means: "reject" (a data or config error), "same" (the file still
#: holds exactly the generated data), "either" (refused, or parsed to consistent arrays)
CSV_OPS = {"none": "same", "crlf": "same", "bom": "same", "trailing_blank": "same",
           "nan_cell": "reject", "inf_cell": "reject", "1e999_cell": "reject",
           "empty_cell": "reject", "word_cell": "reject", "empty_target": "reject",
           "nan_target": "reject", "ragged_short": "reject", "ragged_long": "reject",
           "nul": "reject", "duplicate_header": "reject", "zero_bytes": "reject",
           "header_only": "reject", "latin1_label": "either", "quote_cell": "either",
           "spaces": "either"}
ARFF_OPS = {"none": "same", "crlf": "same", "comment": "same", "undeclared_class": "reject",
            "no_data": "reject", "untyped_attribute": "reject", "missing_value": "reject",
            "ragged": "reject", "duplicate_attribute": "reject", "nan_cell": "reject",
            "no_rows": "reject", "spaced_declaration": "either"}
LIBSVM_OPS = {"none": "same", "crlf": "same", "comment": "same", "negative_index": "reject",
              "zero_index": "either", "word_value": "reject", "nan_value": "reject",
              "unsorted": "same_or_reject", "duplicate_index": "either",
              "missing_label": "reject", "empty": "reject", "index_too_large": "reject",
              "missing_value": "reject"}


@dataclass
class DataFile:
    """A generated file, what it should parse to, and how it was corrupted."""

    fmt: str
    content: bytes
    params: dict[str, Any]
    X: np.ndarray
    y: np.ndarray  # expected class codes
    op: str
    verdict: str


_FLOATS = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False, width=32).map(float)


@st.composite
def _table(draw: st.DrawFn) -> tuple[np.ndarray, list[str], bool]:
    n = draw(st.integers(2, 25))
    d = draw(st.integers(1, 3))
    X = np.array(draw(st.lists(st.lists(_FLOATS, min_size=d, max_size=d), min_size=n,
                               max_size=n)), dtype=np.float64)
    numeric = draw(st.booleans())
    alphabet = ["0", "1", "2", "10"] if numeric else ["a", "b", "c", "B"]
    labels = draw(st.lists(st.sampled_from(alphabet), min_size=n, max_size=n))
    labels[:2] = alphabet[:2]  # two classes at least
    return X, labels, numeric


def _codes(labels: list[str], numeric: bool) -> np.ndarray:
    classes = sorted(set(labels), key=float if numeric else None)
    return np.array([classes.index(v) for v in labels], dtype=np.int64)


def _cell(draw: st.DrawFn, n_rows: int, n_cols: int) -> tuple[int, int]:
    return draw(st.integers(0, n_rows - 1)), draw(st.integers(0, n_cols - 1))


@st.composite
def csv_files(draw: st.DrawFn, op: str | None = None) -> DataFile:
    X, labels, numeric = draw(_table())
    n, d = X.shape
    op = op or draw(st.sampled_from(sorted(CSV_OPS)))
    header = op in ("duplicate_header", "header_only") or draw(st.booleans())
    names = [f"f{j}" for j in range(d)] + ["label"]
    rows = [[repr(v) for v in row] + [lab] for row, lab in zip(X.tolist(), labels, strict=True)]
    # without a header row, the header is detected (a non-numeric first row is one) unless
    # the config says header: false; a corrupt first row is then a header by design, and
    # a first row of numbers whose text label no other row has is refused (not guessed)
    declared = draw(st.booleans())
    i, j = _cell(draw, n, d)
    if not header and not declared and op in ("empty_cell", "word_cell", "quote_cell"):
        i = draw(st.integers(1, n - 1))
    if op in ("nan_cell", "inf_cell", "1e999_cell", "empty_cell", "word_cell"):
        rows[i][j] = {"nan_cell": "nan", "inf_cell": "-inf", "1e999_cell": "1e999",
                      "empty_cell": "", "word_cell": "abc"}[op]
    elif op == "empty_target":
        rows[i][-1] = ""
    elif op == "nan_target":
        rows[i][-1] = "nan"
    elif op == "ragged_short":
        rows[i] = rows[i][:-2] + rows[i][-1:] if d > 1 else rows[i][-1:]
    elif op == "ragged_long":
        rows[i] = rows[i] + ["1"]
    elif op == "quote_cell":
        rows[i][j] = f'"{rows[i][j]}"'
    elif op == "spaces":
        rows[i][j] = f" {rows[i][j]} "
    elif op == "duplicate_header":
        names[-2] = names[0] if d > 1 else "label"
    lines = ([",".join(names)] if header else []) + [",".join(r) for r in rows]
    if op == "header_only":
        lines = lines[:1]
    text = "\n".join(lines) + "\n"
    if op == "crlf":
        text = text.replace("\n", "\r\n")
    elif op == "bom":
        text = "\ufeff" + text
    elif op == "trailing_blank":
        text += "\n \n\n"
    elif op == "nul":
        text = text.replace(",", ",\x00", 1)
    elif op == "zero_bytes":
        text = ""
    content = text.encode("utf-8")
    if op == "latin1_label":
        content = content.rstrip(b"\n") + b"\xe9\n"
    params: dict[str, Any] = {"target": "label"} if header else {"target": -1}
    if declared:
        params["header"] = header
    verdict = CSV_OPS[op]
    targets = [r[-1].strip() for r in rows]
    if not (header or declared or numeric) and targets[0] not in targets[1:]:
        verdict = "reject" if verdict == "same" else verdict  # header or data? not guessed
    return DataFile("csv", content, params, X, _codes(labels, numeric), op, verdict)


@st.composite
def arff_files(draw: st.DrawFn, op: str | None = None) -> DataFile:
    X, labels, _ = draw(_table())
    n, d = X.shape
    declared = sorted(set(labels)) + draw(st.sampled_from([[], ["zz"]]))
    names = [f"f{j}" for j in range(d)]
    op = op or draw(st.sampled_from(sorted(ARFF_OPS)))
    attrs = [f"@attribute {nm} numeric" for nm in names]
    rows = [[repr(v) for v in row] + [lab] for row, lab in zip(X.tolist(), labels, strict=True)]
    i, j = _cell(draw, n, d)
    if op == "undeclared_class":
        rows[i][-1] = "undeclared"
    elif op == "untyped_attribute":
        attrs[j] = f"@attribute {names[j]}"
    elif op == "missing_value":
        rows[i][j] = "?"
    elif op == "nan_cell":
        rows[i][j] = "nan"
    elif op == "ragged":
        rows[i] = rows[i][1:]
    elif op == "duplicate_attribute":  # a feature named like another, or like the class
        attrs[-1] = f"@attribute {names[0] if d > 1 else 'class'} numeric"
    sep = ", " if op == "spaced_declaration" else ","
    head = ["@relation generated", *attrs, f"@attribute class {{{sep.join(declared)}}}"]
    body = [] if op == "no_rows" else [",".join(r) for r in rows]
    if op == "comment":
        body.insert(i, "% a comment line")
    lines = head + ([] if op == "no_data" else ["@data"]) + body
    text = "\n".join(lines) + "\n"
    if op == "crlf":
        text = text.replace("\n", "\r\n")
    y = np.array([declared.index(v) for v in labels], dtype=np.int64)
    return DataFile("arff", text.encode(), {}, X, y, op, ARFF_OPS[op])


@st.composite
def libsvm_files(draw: st.DrawFn, op: str | None = None) -> DataFile:
    X, labels, numeric = draw(_table())
    n, d = X.shape
    if not numeric:  # LIBSVM labels are numbers
        labels = [{"a": "-1", "b": "1", "c": "2", "B": "3"}[v] for v in labels]
    op = op or draw(st.sampled_from(sorted(LIBSVM_OPS)))
    rows = [[lab] + [f"{j + 1}:{v!r}" for j, v in enumerate(row) if v != 0.0]
            for row, lab in zip(X.tolist(), labels, strict=True)]
    i = draw(st.integers(0, n - 1))
    tokens = rows[i]
    if op == "negative_index":
        tokens.append("-3:1.5")
    elif op == "zero_index":
        tokens.insert(1, "0:1.5")
    elif op in ("word_value", "nan_value"):
        value = "abc" if op == "word_value" else "nan"
        if len(tokens) > 1:
            tokens[1] = f"{tokens[1].split(':')[0]}:{value}"
        else:
            tokens.append(f"1:{value}")
    elif op == "unsorted" and len(tokens) > 2:
        tokens[1], tokens[2] = tokens[2], tokens[1]
    elif op == "duplicate_index" and len(tokens) > 1:
        tokens.append(tokens[1])
    elif op == "missing_label":
        tokens[0] = "1:0.5"
    elif op == "index_too_large":
        tokens.append(f"{d + 1}:1.0")
    elif op == "missing_value":
        tokens.append(f"{d}:")
    elif op in ("unsorted", "duplicate_index"):
        op = "none"
    body = [" ".join(r) for r in rows]
    if op == "comment":
        body.insert(i, "# a comment line")
    text = "" if op == "empty" else "\n".join(body) + "\n"
    if op == "crlf":
        text = text.replace("\n", "\r\n")
    y = _codes(labels, True)
    return DataFile("libsvm", text.encode(), {"n_features": d}, X, y, op, LIBSVM_OPS[op])


_STREAMS = {"csv": CSVStream, "arff": ARFFStream, "libsvm": LIBSVMStream}


def _parsed(f: DataFile, d: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """The file through the stream class a config names: its arrays, or None when it
    is refused with a user error (anything else propagates and fails the test)."""
    path = d / f"data.{f.fmt}"
    path.write_bytes(f.content)
    try:
        return _STREAMS[f.fmt](path=str(path), **f.params).to_arrays()
    except UserError:
        return None


def _describe(f: DataFile) -> str:
    return f"{f.fmt} file ({f.op}): {f.content[:300]!r}"


def _parse_property(f: DataFile) -> None:
    """A corrupted file is refused; a valid one parses to exactly its data; whatever is
    accepted is finite features and class codes 0..C-1."""
    what = _describe(f)
    with _workdir() as d:
        got = _parsed(f, d)
    if got is not None:
        X, y = got
        assert X.ndim == 2 and X.dtype == np.float64 and np.isfinite(X).all(), what
        assert y.ndim == 1 and len(y) == len(X) and y.dtype == np.int64, what
        assert len(y) == 0 or y.min() >= 0, what
    if f.verdict == "reject":
        assert got is None, f"{what}: accepted as X {got[0].tolist()} y {got[1].tolist()}"
    elif f.verdict == "same" or (f.verdict == "same_or_reject" and got is not None):
        assert got is not None, f"{what}: refused"
        X, y = got
        assert X.shape == f.X.shape and np.array_equal(X, f.X), \
            f"{what}: X {X.tolist()} != {f.X.tolist()}"
        assert np.array_equal(y, f.y), f"{what}: y {y.tolist()} != {f.y.tolist()}"


def _cli_property(f: DataFile) -> None:
    """`validate` and `run` on a config naming the file: documented exit codes, no
    traceback, nothing written by a refused run, and a valid file runs to the end."""
    what = _describe(f)
    with _workdir() as d:
        parsed = _parsed(f, d) is not None
        cfg = {"name": "hostile_data", "repeats": 1,
               "streams": [{"name": f.fmt, "label": "D",
                            "params": {"path": str(d / f"data.{f.fmt}"), **f.params}}],
               "algorithms": [{"name": "perceptron", "label": "Perc"}],
               "metrics": ["oca"], "evaluation": {"checkpoints": 2},
               "outputs": {"dir": str(d / "cfg_out"), "plots": []}}
        cfg_path = d / "cfg.yaml"
        cfg_path.write_text(yaml.safe_dump(cfg))
        v_code, v_text = run_cli_captured(["validate", str(cfg_path)])
        assert "Traceback" not in v_text and v_code in VALIDATE_CODES, v_text
        out = d / "out"
        r_code, r_text = run_cli_captured(["run", str(cfg_path), "--out", str(out), "-q"])
        _check_run(r_code, r_text, out, what=what)
        if not parsed:
            assert r_code in (2, 3), f"{what}: the parser refuses it, run exits {r_code}"
        if f.verdict == "same" and parsed:
            assert r_code == 0, f"{what}: run exit {r_code}\n{r_text}"
            rec = json.loads(next((out / "runs").glob("*.json")).read_text())
            assert rec["stream_info"]["n_samples"] == len(f.y), what


_FORMATS = {"csv": (csv_files, CSV_OPS), "arff": (arff_files, ARFF_OPS),
            "libsvm": (libsvm_files, LIBSVM_OPS)}


@pytest.mark.parametrize("fmt,op", [(fmt, op) for fmt, (_, ops) in _FORMATS.items()
                                    for op in sorted(ops)])
@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_generated_file_parses_to_its_data(fmt: str, op: str, data: st.DataObject) -> None:
    _parse_property(data.draw(_FORMATS[fmt][0](op), label="file"))


@FEW
@given(csv_files())
def test_generated_csv_files_through_the_cli(f: DataFile) -> None:
    _cli_property(f)


@FEW
@given(arff_files())
def test_generated_arff_files_through_the_cli(f: DataFile) -> None:
    _cli_property(f)


@FEW
@given(libsvm_files())
def test_generated_libsvm_files_through_the_cli(f: DataFile) -> None:
    _cli_property(f)


@pytest.mark.slow
@MANY
@given(st.one_of(csv_files(), arff_files(), libsvm_files()))
def test_generated_data_files_many(f: DataFile) -> None:
    _parse_property(f)
    _cli_property(f)


# --------------------------------------------------------------------------------------
# The parsers on arbitrary bytes: a DataError or arrays, nothing else
# --------------------------------------------------------------------------------------

_NOISE = st.one_of(
    st.binary(max_size=200),
    st.lists(st.sampled_from(["1", "-1", "0", ":", " ", "\n", "2:0.5", "1:nan", "#", "x",
                              "3:", "1e999", "\t", "+1", "4:1"]), max_size=40).map("".join)
    .map(str.encode),
)
_ARFF_NOISE = st.lists(st.sampled_from(
    ["@relation r\n", "@attribute a numeric\n", "@attribute c {x,y}\n", "@data\n",
     "1,x\n", "?,y\n", "1,z\n", "{0 1}\n", "% c\n", "@attribute b\n", "1,2,x\n", "'a,b'\n",
     "@attribute s string\n", "@ATTRIBUTE A REAL\n", "nan,x\n", "\n"]), max_size=12).map("".join)


@settings(max_examples=150, deadline=None)
@given(_NOISE)
def test_libsvm_parser_on_noise(data: bytes) -> None:
    try:
        X, y = parse_libsvm(data)
    except UserError:
        return
    assert X.ndim == 2 and y.ndim == 1 and X.shape[0] == y.shape[0]


@settings(max_examples=150, deadline=None)
@given(_ARFF_NOISE)
def test_arff_parser_on_noise(text: str) -> None:
    try:
        arff = parse_arff(text)
    except UserError:
        return
    assert len(arff.names) == len(arff.types) == arff.table.shape[1]


@settings(max_examples=60, deadline=None)
@given(st.one_of(_NOISE, _ARFF_NOISE.map(str.encode)))
def test_file_streams_on_noise(data: bytes) -> None:
    with _workdir() as d:
        for fmt, cls in _STREAMS.items():
            path = d / f"noise.{fmt}"
            path.write_bytes(data)
            try:
                X, y = cls(path=str(path)).to_arrays()
            except UserError:
                continue
            assert np.isfinite(X).all() and len(X) == len(y) and (y >= 0).all(), (fmt, data)
