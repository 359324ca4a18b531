"""A run that cannot start writes nothing, and one that fails before its first record
leaves the output directory as it found it (issue 21): bad data files are found before
anything is written, the lock file never outlives its run, and output paths that cannot
be directories (symbolic-link loops, dangling links) are refused with a message."""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.cli_helpers import run_cli

#: exit codes the README documents for a run that stops on bad input
DOCUMENTED = {2, 3, 4}

def _npz(**arrays: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


# name → (file name, content, stream params besides path, exit code, message fragments)
BAD_FILES: dict[str, tuple[str, bytes, dict, int, tuple[str, ...]]] = {
    "missing_column": ("d.csv", b"a,b,label\n1,2,x\n3,4,y\n", {"target": "nope"}, 2,
                       ("has no column 'nope'", "Columns: a, b, label")),
    "nan_cell": ("d.csv", b"a,b,label\n1,2,x\n3,nan,y\n", {"target": "label"}, 3,
                 ("line 3, column b", "non-finite")),
    "inf_cell": ("d.csv", b"a,b,label\n1,inf,x\n3,4,y\n", {"target": "label"}, 3,
                 ("line 2, column b", "non-finite")),
    "overflow_cell": ("d.csv", b"a,b,label\n1,2,x\n1e999,4,y\n", {"target": "label"}, 3,
                      ("line 3, column a", "'1e999', read as inf")),
    "empty_target": ("d.csv", b"a,b,label\n1,2,x\n3,4,\n", {"target": "label"}, 3,
                     ("line 3, column label", "the target is empty")),
    "ragged_row": ("d.csv", b"a,b,label\n1,2,x\n3,4\n5,6,y\n", {"target": "label"}, 3,
                   ("line 3", "2 field(s), expected 3")),
    "zero_bytes": ("d.csv", b"", {"target": -1}, 3, ("is empty",)),
    "header_only": ("d.csv", b"a,b,label\n", {"target": "label"}, 3,
                    ("has a header row but no data rows",)),
    "arff_string_attribute": (
        "d.arff", b"@relation r\n@attribute a numeric\n@attribute s string\n"
        b"@attribute c {x,y}\n@data\n1,t,x\n", {}, 3,
        ("at line 3", "Unsupported ARFF attribute type 'string'")),
    "arff_without_data_line": (
        "d.arff", b"@relation r\n@attribute a numeric\n@attribute c {x,y}\n1,x\n", {}, 3,
        ("at line 4", "'1,x'", "@data")),
    "arff_unclosed_nominal": (
        "d.arff", b"@relation r\n@attribute a numeric\n@attribute c {x,y\n@data\n1,x\n", {},
        3, ("at line 3", "Malformed nominal attribute")),
    "libsvm_index_too_large_to_hold": (
        "d.svm", b"1 1:0.5 1000000000000:1\n0 2:1\n", {}, 3,
        ("2 rows x 1000000000000 features", "14,901.2 GiB", "is one index wrong?")),
    "libsvm_negative_index": ("d.svm", b"1 1:0.5 2:1\n-1 -3:2\n", {}, 3,
                              ("Feature index -3 < 1", "at line 2, field 2")),
    "npz_object_array": ("d.npz", _npz(X=np.array([[None, 1.0]] * 20, dtype=object),
                                       y=np.arange(20) % 2), {}, 3,
                         ("its arrays cannot be read", "Object arrays")),
    "npz_no_samples": ("d.npz", _npz(X=np.empty((0, 2)), y=np.empty(0, dtype=np.int64)),
                       {}, 3, ("holds no samples",)),
    "npz_truncated": ("d.npz", _npz(X=np.ones((200, 2)), y=np.arange(200) % 2)[:900], {}, 3,
                      ("is not a readable NumPy file",)),
}
_FORMAT = {".csv": "csv", ".arff": "arff", ".svm": "libsvm", ".npz": "numpy"}


def _config(tmp_path: Path, stream_params: dict, out: Path, **stream_extra: object) -> Path:
    cfg = {"name": "t", "seeds": [0, 1],
           "streams": [{"name": _FORMAT[Path(stream_params["path"]).suffix], "label": "Mine",
                        "params": stream_params, **stream_extra}],
           "algorithms": [{"name": "perceptron", "label": "P"}],
           "metrics": ["oca"], "outputs": {"dir": str(out), "plots": []}}
    p = tmp_path / f"cfg{len(list(tmp_path.glob('cfg*.yaml')))}.yaml"
    p.write_text(yaml.safe_dump(cfg))
    return p


def _good_csv(tmp_path: Path) -> Path:
    p = tmp_path / "good.csv"
    p.write_text("a,b,label\n" + "".join(f"{i % 7},{i % 3},{'xy'[i % 2]}\n"
                                         for i in range(60)))
    return p


def _tree(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize("preexisting", [False, True], ids=["new_dir", "earlier_results"])
@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_data_file_stops_the_run_before_anything_is_written(tmp_path, capsys, case,
                                                                preexisting):
    name, content, params, code, fragments = BAD_FILES[case]
    data = tmp_path / name
    data.write_bytes(content)
    out = tmp_path / "out"
    before: dict[str, bytes] = {}
    if preexisting:  # an earlier experiment's results in the same directory stay as they are
        good = _config(tmp_path, {"path": str(_good_csv(tmp_path)), "target": "label"}, out)
        rc, text = run_cli(["run", str(good), "-q"], capsys)
        assert rc == 0, text
        before = _tree(out)
    cfg = _config(tmp_path, {"path": str(data), **params}, out)
    for args in (["run", str(cfg), "-q"], ["run", str(cfg), "-q", "--skip-missing-data"],
                 ["validate", str(cfg)]):
        rc, text = run_cli(args, capsys)
        flat = " ".join(text.split())
        assert rc == code and rc in DOCUMENTED, (args, flat)
        assert "Traceback" not in text
        assert str(data) in flat or name in flat, flat
        for fragment in fragments:
            assert fragment in flat, flat
        if preexisting:
            assert _tree(out) == before, "the earlier results changed"
        else:
            assert not out.exists(), sorted(out.rglob("*"))


def test_a_missing_file_can_still_be_skipped(tmp_path, capsys):
    """--skip-missing-data leaves out a file that is absent (not one that is bad)."""
    absent = _config(tmp_path, {"path": str(tmp_path / "absent.csv"), "target": "label"},
                     tmp_path / "out")
    rc, text = run_cli(["run", str(absent), "-q", "--skip-missing-data"], capsys)
    assert rc == 0, text
    assert "not run here" in " ".join(text.split()).lower()


def test_failure_after_the_start_leaves_nothing_of_its_own(tmp_path, capsys):
    """normalize_warmup longer than the file is known only once the run prepares the
    stream, after experiment.json was written: the run undoes what it wrote."""
    data = _good_csv(tmp_path)
    out = tmp_path / "deep" / "out"
    cfg = _config(tmp_path, {"path": str(data), "target": "label"}, out,
                  normalize="minmax", normalize_warmup=1000)
    rc, text = run_cli(["run", str(cfg), "-q"], capsys)
    assert rc == 2 and "Traceback" not in text, text
    assert "normalize_warmup" in text
    assert not (tmp_path / "deep").exists()  # the directories it created are gone too
    # with earlier results in the directory, they and their manifest stay as they were
    good = _config(tmp_path, {"path": str(data), "target": "label"}, out)
    assert run_cli(["run", str(good), "-q"], capsys)[0] == 0
    before = _tree(out)
    rc, text = run_cli(["run", str(cfg), "-q"], capsys)
    assert rc == 2, text
    assert _tree(out) == before


def test_a_run_that_recorded_results_keeps_them_when_it_fails(tmp_path, capsys, monkeypatch):
    """The undo is only for a run that wrote no record: finished runs are results."""
    from streamlearn.evaluation import runner

    calls = []
    real = runner.execute_run

    def second_one_interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "execute_run", second_one_interrupted)
    out = tmp_path / "out"
    cfg = _config(tmp_path, {"path": str(_good_csv(tmp_path)), "target": "label"}, out)
    rc, text = run_cli(["run", str(cfg), "-q"], capsys)
    assert rc == 130, text
    assert len(list((out / "runs").glob("*.json"))) == 1
    assert (out / "experiment.json").is_file()
    assert not (out / ".streamlearn.lock").exists()


def test_an_interrupt_before_any_record_leaves_no_directory(tmp_path, capsys, monkeypatch):
    from streamlearn.evaluation import runner

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "execute_run", interrupted)
    out = tmp_path / "out"
    cfg = _config(tmp_path, {"path": str(_good_csv(tmp_path)), "target": "label"}, out)
    rc, text = run_cli(["run", str(cfg), "-q"], capsys)
    assert rc == 130 and "Traceback" not in text, text
    assert not out.exists()


# --------------------------------------------------------------------------------------
# The lock file
# --------------------------------------------------------------------------------------


def test_the_lock_file_does_not_outlive_its_run(tmp_path, capsys):
    out = tmp_path / "out"
    good = _config(tmp_path, {"path": str(_good_csv(tmp_path)), "target": "label"}, out)
    assert run_cli(["run", str(good), "-q"], capsys)[0] == 0
    assert not (out / ".streamlearn.lock").exists()
    # a learner failing: the run ends with exit 1, its records stay, the lock goes
    bad = tmp_path / "bad.yaml"
    cfg = yaml.safe_load(good.read_text())
    cfg["algorithms"] = [{"name": "online_bls", "label": "B", "params": {"lam": 1e-300}}]
    bad.write_text(yaml.safe_dump(cfg))
    rc, text = run_cli(["run", str(bad), "-q"], capsys)
    assert rc == 1, text
    assert list((out / "runs").glob("Mine__B__*.json"))
    assert not (out / ".streamlearn.lock").exists()


def test_a_killed_runs_lock_file_is_stale_and_taken_over(tmp_path, capsys):
    """kill -9 leaves the file but no flock: the next run goes ahead (and removes it)."""
    out = tmp_path / "out"
    out.mkdir()
    (out / ".streamlearn.lock").write_text("999999999")
    good = _config(tmp_path, {"path": str(_good_csv(tmp_path)), "target": "label"}, out)
    rc, text = run_cli(["run", str(good), "-q"], capsys)
    assert rc == 0, text
    assert not (out / ".streamlearn.lock").exists()


def test_a_lock_file_removed_before_it_is_locked_is_not_trusted(tmp_path, monkeypatch):
    """The holder removes the file between our open and our flock: the lock taken is on
    a file nobody else sees, so the lock is taken again on the path's new file."""
    import fcntl

    from streamlearn.evaluation.output_dir import LOCK_NAME, OutputDirLock

    real_flock = fcntl.flock
    removed = []

    def flock_after_removal(fd: int, op: int) -> None:
        if not removed:
            removed.append(1)
            (tmp_path / LOCK_NAME).unlink()
        real_flock(fd, op)

    monkeypatch.setattr(fcntl, "flock", flock_after_removal)
    with OutputDirLock(tmp_path) as lock:
        held = os.fstat(lock._fd)
        on_disk = (tmp_path / LOCK_NAME).stat()
        assert (held.st_dev, held.st_ino) == (on_disk.st_dev, on_disk.st_ino)
    assert not (tmp_path / LOCK_NAME).exists()


# --------------------------------------------------------------------------------------
# Output paths that cannot be directories
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["loop", "inside_a_loop", "dangling"])
def test_output_path_through_a_bad_symbolic_link(tmp_path, capsys, where):
    (tmp_path / "l1").symlink_to(tmp_path / "l2")
    (tmp_path / "l2").symlink_to(tmp_path / "l1")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    out = {"loop": tmp_path / "l1", "inside_a_loop": tmp_path / "l1" / "sub",
           "dangling": tmp_path / "dangling"}[where]
    cfg = _config(tmp_path, {"path": str(_good_csv(tmp_path)), "target": "label"}, out)
    for args in (["run", str(cfg), "-q"], ["validate", str(cfg)]):
        rc, text = run_cli(args, capsys)
        flat = " ".join(text.split())
        assert rc == 4, flat
        assert "Traceback" not in text and "Errno" not in flat
        assert "symbolic link" in flat and ("loops" in flat or "does not exist" in flat)
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("entry", ["runs_file", "runs_dangling_link", "manifest_dir"])
def test_an_entry_of_the_wrong_kind_stops_the_run_before_anything_is_computed(
        tmp_path, capsys, monkeypatch, entry):
    """``runs`` a file or a link to nothing, ``experiment.json`` a directory: a message
    naming it, exit 4, before any run (the code before computed the first run, then
    stopped with a NotADirectoryError / IsADirectoryError traceback, exit 1)."""
    from streamlearn.evaluation import runner

    out = tmp_path / "out"
    out.mkdir()
    name, kind = {"runs_file": ("runs", "is a file"),
                  "runs_dangling_link": ("runs", "is a symbolic link to"),
                  "manifest_dir": ("experiment.json", "is a directory")}[entry]
    if entry == "runs_file":
        (out / "runs").write_text("x")
    elif entry == "runs_dangling_link":
        (out / "runs").symlink_to(tmp_path / "nowhere")
    else:
        (out / "experiment.json").mkdir()
    computed = []
    monkeypatch.setattr(runner, "execute_run",
                        lambda *a, **k: computed.append(1) or pytest.fail("computed"))
    cfg = _config(tmp_path, {"path": str(_good_csv(tmp_path)), "target": "label"}, out)
    before = sorted(p.name for p in out.iterdir())
    for args in (["run", str(cfg), "-q"], ["validate", str(cfg)]):
        rc, text = run_cli(args, capsys)
        flat = " ".join(text.split())
        assert rc == 4, flat
        assert "Traceback" not in text and "Errno" not in flat
        assert "".join(f"{out / name} {kind}".split()) in "".join(flat.split()), flat
    assert not computed
    assert sorted(p.name for p in out.iterdir()) == before


def test_the_data_directory_is_not_an_output_directory(tmp_path, capsys, monkeypatch):
    """Was: `run --out DATA --data-dir DATA` wrote runs/, the tables and the plots among
    the datasets, exit 0. Now refused before anything is written (also through
    $STREAMLEARN_DATA, and by validate); a folder inside it is still accepted."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "keep.csv").write_text("a\n")
    cfg = _config(tmp_path, {"path": str(_good_csv(tmp_path)), "target": "label"}, data)
    for args in (["run", str(cfg), "-q", "--data-dir", str(data)],
                 ["run", str(cfg), "-q", "--data-dir", str(data), "--out", str(data)]):
        rc, text = run_cli(args, capsys)
        flat = " ".join(text.split())
        assert rc == 4 and "Traceback" not in text, flat
        assert "is the data directory" in flat, flat
    monkeypatch.setenv("STREAMLEARN_DATA", str(data))
    for args in (["run", str(cfg), "-q"], ["validate", str(cfg)]):
        rc, text = run_cli(args, capsys)
        assert rc == 4 and "is the data directory" in " ".join(text.split()), text
    assert sorted(p.name for p in data.iterdir()) == ["keep.csv"]
    rc, text = run_cli(["run", str(cfg), "-q", "--out", str(data / "results")], capsys)
    assert rc == 0, text


def test_output_name_longer_than_the_file_system_allows(tmp_path, capsys):
    out = tmp_path / ("o" * 300) / "sub"
    cfg = _config(tmp_path, {"path": str(_good_csv(tmp_path)), "target": "label"}, out)
    rc, text = run_cli(["run", str(cfg), "-q"], capsys)
    flat = " ".join(text.split())
    assert rc == 4 and "Traceback" not in text, flat
    assert "has a name of 300 bytes; file systems allow 255 per name" in flat


def test_output_directory_under_a_parent_that_is_not_writable(tmp_path, capsys,
                                                              monkeypatch):
    from streamlearn.evaluation import output_dir

    real = os.access
    # as root, permissions do not stop a write: pretend tmp_path is read-only
    monkeypatch.setattr(output_dir.os, "access", lambda path, mode, **kw: (
        Path(path) != tmp_path and real(path, mode, **kw)))
    out = tmp_path / "ro" / "out"
    cfg = _config(tmp_path, {"path": str(_good_csv(tmp_path)), "target": "label"}, out)
    rc, text = run_cli(["run", str(cfg), "-q"], capsys)
    assert rc == 4 and "is not writable" in " ".join(text.split()), text
    assert not (tmp_path / "ro").exists()


# --------------------------------------------------------------------------------------
# One parse per file
# --------------------------------------------------------------------------------------


def test_the_check_before_writing_does_not_parse_the_file_again(tmp_path, monkeypatch):
    """The pre-run check parses the file once and its runs reuse it (2 seeds × 2
    learners: the code before parsed it 4 times, twice per seed)."""
    from streamlearn.config import load_config
    from streamlearn.datasets import files as file_streams
    from streamlearn.evaluation.runner import run_experiment

    calls = []
    real = file_streams.parse_string_table

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(file_streams, "parse_string_table", counted)
    out = tmp_path / "out"
    cfg_path = _config(tmp_path, {"path": str(_good_csv(tmp_path)), "target": "label"}, out)
    cfg = yaml.safe_load(cfg_path.read_text())
    cfg["algorithms"].append({"name": "hoeffding_tree", "label": "HT"})
    cfg_path.write_text(yaml.safe_dump(cfg))
    result = run_experiment(load_config(cfg_path), out)
    assert [o.status for o in result.outcomes] == ["ok"] * 4
    assert len(calls) == 1


# --------------------------------------------------------------------------------------
# Generated files
# --------------------------------------------------------------------------------------

_GOOD = ["0", "1", "2.5", "-3", "1e-3"]
_BAD = ["nan", "inf", "1e999", "?", "", " ", "'q'", "1:2", "-1:3", "0:1", "#", "%", "@data",
        "@attribute c {x,y}", "é", "\t", "x,y"]


@st.composite
def _data_files(draw: st.DrawFn) -> tuple[str, str]:
    """A CSV, ARFF or LIBSVM file that is mostly well formed, with bad cells, dropped or
    extra cells and bad header lines sprinkled in."""
    suffix = draw(st.sampled_from([".csv", ".arff", ".svm"]))
    bad = draw(st.floats(0.0, 0.3))  # the share of bad cells
    cell = st.floats(0, 1).flatmap(lambda u: st.sampled_from(_BAD if u < bad else _GOOD))
    n_cols = draw(st.integers(1, 3))
    rows = draw(st.lists(st.lists(cell, min_size=n_cols, max_size=n_cols), max_size=6))
    if rows and draw(st.floats(0, 1)) < bad:  # a row with a cell too few or too many
        rows[-1] = rows[-1][1:] if draw(st.booleans()) else [*rows[-1], "1"]
    labels = draw(st.lists(st.sampled_from(["x", "y"]) if bad < 0.15 else cell,
                           min_size=len(rows), max_size=len(rows)))
    if suffix == ".svm":
        lines = [" ".join([lab, *(f"{k + 1}:{v}" for k, v in enumerate(r))])
                 for lab, r in zip(labels, rows, strict=True)]
        return suffix, "\n".join(lines) + "\n"
    lines = [",".join([*r, lab]) for lab, r in zip(labels, rows, strict=True)]
    if suffix == ".csv":
        names = [*(f"a{k}" for k in range(n_cols)), "label"]
        if draw(st.floats(0, 1)) < bad:  # a duplicate name
            names[0] = "label"
        header = ",".join(names) if draw(st.booleans()) else ""
        return suffix, "\n".join(([header] if header else []) + lines) + "\n"
    head = ["@relation r", *(f"@attribute a{k} numeric" for k in range(n_cols)),
            "@attribute label {x,y}", "@data"]
    if draw(st.floats(0, 1)) < bad:  # a bad header line somewhere
        head.insert(draw(st.integers(0, len(head))), draw(st.sampled_from(
            ["@attribute s string", "@attribute b {x,y", "oops", "@attribute a0 numeric"])))
    return suffix, "\n".join(head + lines) + "\n"


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(file=_data_files())
def test_generated_files_give_a_documented_outcome(tmp_path_factory, capsys, file):
    """Whatever the file holds: a documented exit code, no traceback, and nothing written
    unless the run started (exit 0 or 1: its records are there)."""
    suffix, text = file
    tmp = tmp_path_factory.mktemp("gen")
    data = tmp / f"d{suffix}"
    data.write_text(text)
    out = tmp / "out"
    cfg = _config(tmp, {"path": str(data)}, out)
    for command in ("validate", "run"):
        rc, output = run_cli([command, str(cfg)] + (["-q"] if command == "run" else []),
                             capsys)
        event(f"{command} exit {rc}")
        assert rc in {0, 1} | DOCUMENTED and "Traceback" not in output, output
        if rc in DOCUMENTED:
            assert not out.exists(), output
        elif command == "run":
            assert list((out / "runs").glob("*.json")), output
