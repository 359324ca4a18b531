"""The parsed-array cache: in the user cache directory only, never in the data directory
(writable or not), whole entries only, damaged entries rebuilt, and ``data cache-clear``.

No real data needed: CoverType runs on a tiny file whose reference hash is re-pinned.
"""

from __future__ import annotations

import io
import multiprocessing
import os
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from typer.testing import CliRunner

from streamlearn import atomic
from streamlearn.cli.data import data_app
from streamlearn.datasets.real.base import load_dataset
from streamlearn.datasets.store import parsed_cache
from tests.data_dir_guard import forbid_writes, snapshot
from tests.datasets import tiny_data

# Private cache dir (``tmp_path / "cache"``), no data-dir env, no auto download, empty hash
# memo (autouse); a fresh data directory; tiny CoverType files.
isolated = tiny_data.isolated
ddir = tiny_data.ddir

ARRAYS = {
    "X": np.array([[1.0, -3.0], [70000.0, 2.0]]),  # integral: stored as int32
    "Z": np.array([0.5, np.nan]),
    "y": np.array([0, 1], dtype=np.int64),
    "names": np.array(["a", "b"]),
}


def assert_same(got: dict[str, np.ndarray] | None, want: dict[str, np.ndarray]) -> None:
    assert got is not None
    assert set(got) == set(want)
    for k, v in want.items():
        assert_array_equal(got[k], v)
        assert got[k].dtype == v.dtype, k


def tiny_covtype(monkeypatch: pytest.MonkeyPatch, ddir: Path, n: int = 30) -> np.ndarray:
    rows = tiny_data.covtype_rows(n)
    tiny_data.write_covtype(ddir, tiny_data.table_text(rows))
    tiny_data.pin(monkeypatch, "covtype", ddir)
    return rows


# --------------------------------------------------------------------------------------
# Entries
# --------------------------------------------------------------------------------------


def test_round_trip_and_compaction(tmp_path):
    path = tmp_path / "c" / "x-k1.npz"
    assert parsed_cache.save_parsed(path, ARRAYS)
    with np.load(path) as raw:
        assert raw["X"].dtype == np.int32
    assert_same(parsed_cache.load_parsed(path), ARRAYS)
    assert [p.name for p in path.parent.iterdir()] == ["x-k1.npz"]


def test_garbage_absent_foreign_and_renamed_entries_are_not_trusted(tmp_path):
    path = tmp_path / "x-k1.npz"
    path.write_bytes(b"PK\x03\x04garbage")
    assert parsed_cache.load_parsed(path) is None
    assert parsed_cache.load_parsed(tmp_path / "absent-k1.npz") is None
    np.savez(path, X=ARRAYS["X"])  # a valid .npz, but not an entry of ours
    assert parsed_cache.load_parsed(path) is None
    parsed_cache.save_parsed(path, ARRAYS)
    other = tmp_path / "x-k2.npz"
    os.replace(path, other)  # an entry under another key's name
    assert parsed_cache.load_parsed(other) is None


def test_every_flipped_byte_and_every_truncation_is_caught_or_harmless(tmp_path):
    path = tmp_path / "x-k1.npz"
    parsed_cache.save_parsed(path, ARRAYS)
    data = path.read_bytes()

    def read(blob: bytes) -> dict[str, np.ndarray] | None:
        return parsed_cache._read_entry(io.BytesIO(blob), "k1")

    assert_same(read(data), ARRAYS)
    caught = 0
    for i in range(len(data)):
        for bit in (0x01, 0x80):
            damaged = bytearray(data)
            damaged[i] ^= bit
            got = read(bytes(damaged))
            if got is None:
                caught += 1
            else:  # a byte the arrays do not depend on (zip timestamps, local extras)
                assert_same(got, ARRAYS)
    for n in range(len(data)):
        assert read(data[:n]) is None, n
    assert caught > len(data)  # most bytes matter: the check is not vacuous


def test_a_flipped_byte_deep_in_a_large_entry_is_caught(tmp_path):
    path = tmp_path / "x-k1.npz"
    X = np.random.default_rng(0).random((2000, 300))  # 4.8 MB: read in several chunks
    parsed_cache.save_parsed(path, {"X": X})
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))
    assert parsed_cache.load_parsed(path) is None


def test_cache_key_depends_on_params_hashes_and_version(monkeypatch):
    k = parsed_cache.cache_key("a", {"part": "all"}, ["h1"])
    assert k == parsed_cache.cache_key("a", {"part": "all"}, ["h1"])
    assert k != parsed_cache.cache_key("a", {"part": "train"}, ["h1"])
    assert k != parsed_cache.cache_key("a", {"part": "all"}, ["h2"])
    assert k != parsed_cache.cache_key("b", {"part": "all"}, ["h1"])
    monkeypatch.setattr(parsed_cache, "PARSER_VERSION", "999")
    assert k != parsed_cache.cache_key("a", {"part": "all"}, ["h1"])


def test_location_is_the_user_cache(tmp_path, monkeypatch):
    assert parsed_cache.parsed_cache_path("x", "k") == tmp_path / "cache" / "parsed" / "x-k.npz"
    monkeypatch.setenv("STREAMLEARN_CACHE", str(tmp_path / "elsewhere"))
    assert parsed_cache.parsed_cache_dir() == tmp_path / "elsewhere" / "parsed"


# --------------------------------------------------------------------------------------
# Loading never writes into the data directory
# --------------------------------------------------------------------------------------


def test_a_writable_data_directory_is_left_as_it_was(monkeypatch, tmp_path, ddir):
    rows = tiny_covtype(monkeypatch, ddir)
    before = snapshot(ddir)
    X, _, meta = load_dataset("covtype", ddir)
    X2, _, meta2 = load_dataset("covtype", ddir)
    assert not meta["from_cache"] and meta2["from_cache"]
    assert_array_equal(X, rows[:, :54])
    assert_array_equal(X2, X)
    assert snapshot(ddir) == before
    assert [p.parent for p in parsed_cache.entries()] == [tmp_path / "cache" / "parsed"]


def test_a_read_only_data_directory_is_never_written_and_the_cache_works(monkeypatch, ddir):
    rows = tiny_covtype(monkeypatch, ddir)
    attempts = forbid_writes(monkeypatch, ddir)
    _, _, meta = load_dataset("covtype", ddir)
    X2, _, meta2 = load_dataset("covtype", ddir)
    assert attempts == []
    assert not meta["from_cache"] and meta2["from_cache"]
    assert_array_equal(X2, rows[:, :54])


def test_the_write_guard_refuses_and_records(tmp_path, monkeypatch):
    root = tmp_path / "ro"
    (root / "sub").mkdir(parents=True)
    outside = tmp_path / "free.txt"
    attempts = forbid_writes(monkeypatch, root)
    with pytest.raises(atomic.OutputError, match="read-only"):
        atomic.write_bytes(root / "sub" / "f.npz", b"x")
    for write in (
        lambda: (root / "a.txt").write_text("x"),
        lambda: (root / "new").mkdir(),
        lambda: os.open(root / "b", os.O_CREAT | os.O_WRONLY),
        lambda: os.replace(outside, root / "c"),
    ):
        outside.write_text("x")  # writes elsewhere go through
        with pytest.raises(PermissionError):
            write()
    assert len(attempts) == 5
    assert sorted(p.name for p in root.iterdir()) == ["sub"]
    assert list((root / "sub").iterdir()) == []


# --------------------------------------------------------------------------------------
# Damaged entries and concurrent writers
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[: len(b) // 2],  # truncated (a writer killed without the atomic rename)
        lambda b: b"",
        lambda b: b[:-200] + bytes(x ^ 0xFF for x in b[-200:-100]) + b[-100:],
        lambda b: b[:300] + bytes([b[300] ^ 1]) + b[301:],
    ],
)
def test_a_damaged_entry_is_parsed_again_and_rewritten(monkeypatch, ddir, damage):
    rows = tiny_covtype(monkeypatch, ddir)
    load_dataset("covtype", ddir)
    (entry,) = parsed_cache.entries()
    entry.write_bytes(damage(entry.read_bytes()))
    X, y, meta = load_dataset("covtype", ddir)
    assert not meta["from_cache"]
    assert_array_equal(X, rows[:, :54])
    assert_array_equal(y, rows[:, 54] - 1)
    assert parsed_cache.load_parsed(entry) is not None  # rewritten whole
    assert load_dataset("covtype", ddir)[2]["from_cache"]


def _fill(path: str, n: int) -> None:
    for _ in range(n):
        # Same content from every writer, as for one key; the size makes writes overlap.
        parsed_cache.save_parsed(Path(path), {"X": np.arange(300_000.0) / 7})


def test_concurrent_writers_and_readers_never_see_a_partial_entry(tmp_path):
    path = tmp_path / "parsed" / "x-k1.npz"
    want = {"X": np.arange(300_000.0) / 7}
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_fill, args=(str(path), 15)) for _ in range(3)]
    for p in procs:
        p.start()
    seen = 0  # once a whole entry is installed, every read finds a whole entry
    while any(p.is_alive() for p in procs):
        got = parsed_cache.load_parsed(path)
        if seen:
            assert got is not None, f"a partial entry after {seen} whole reads"
        if got is not None:
            assert_same(got, want)
            seen += 1
    for p in procs:
        p.join()
        assert p.exitcode == 0
    assert_same(parsed_cache.load_parsed(path), want)
    assert [p.name for p in path.parent.iterdir()] == ["x-k1.npz"]  # no temporary left
    assert seen > 0


# --------------------------------------------------------------------------------------
# Clearing
# --------------------------------------------------------------------------------------


def test_cache_clear_removes_entries_and_dead_writers_leftovers_only(monkeypatch, tmp_path, ddir):
    tiny_covtype(monkeypatch, ddir)
    load_dataset("covtype", ddir)
    cache = tmp_path / "cache"
    ctx = multiprocessing.get_context("fork")
    dead = ctx.Process(target=os.getpid)
    dead.start()
    dead.join()
    leftover = cache / "parsed" / f".covtype-k.npz.{dead.pid}~abc.tmp"
    in_progress = cache / "parsed" / f".covtype-k.npz.{os.getpid()}~def.tmp"
    leftover.write_bytes(b"half")
    in_progress.write_bytes(b"being written")
    own_data = tiny_data.write(cache, "datasets/covtype/covtype.data.gz", b"default data dir")
    before_data = snapshot(ddir)
    res = CliRunner().invoke(data_app, ["cache-clear"], env={"COLUMNS": "250"})
    assert res.exit_code == 0, res.output
    assert "Removed 2 file(s)" in res.output and str(cache / "parsed") in res.output
    assert [p.name for p in (cache / "parsed").iterdir()] == [in_progress.name]
    assert own_data.read_bytes() == b"default data dir"  # data files are never touched
    assert (cache / "sha256-cache.json").is_file()
    assert snapshot(ddir) == before_data
    assert not load_dataset("covtype", ddir)[2]["from_cache"]
    res = CliRunner().invoke(data_app, ["cache-clear"])
    assert res.exit_code == 0 and "Removed 1 file(s)" in res.output


def test_cache_clear_without_a_cache(tmp_path):
    res = CliRunner().invoke(data_app, ["cache-clear"])
    assert res.exit_code == 0 and "Removed 0 file(s), 0 B" in res.output
    assert not (tmp_path / "cache").exists()


def test_data_list_names_the_cache(tmp_path):
    res = CliRunner().invoke(data_app, ["list", "--data-dir", str(tmp_path)],
                             env={"COLUMNS": "300"})
    assert res.exit_code == 0
    assert f"Parsed arrays are cached in {tmp_path / 'cache' / 'parsed'}" in res.output
