"""Data files that lie: same-size edits behind a restored mtime, directories and broken
links where a file belongs, data directories without any dataset file, caches that
cannot be written.

Everything runs on tiny files in ``tmp_path``; no real data needed. The CLI is run as a
subprocess where only the exit code and the printed message matter, and in-process
(``streamlearn.cli.app.main``) where a dataset's reference hash must be re-pinned to a tiny
file first.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from streamlearn.cli import app as cli
from streamlearn.datasets.catalogue import DATASETS
from streamlearn.datasets.real.base import load_dataset
from streamlearn.datasets.store import checksums, downloads, verification
from streamlearn.errors import DataError
from tests.datasets import tiny_data

# From tests/datasets/tiny_data.py: private cache dir, no data-dir env, no auto download, empty
# hash memo (autouse); a fresh data directory; files and re-pinned reference hashes.
isolated = tiny_data.isolated
ddir = tiny_data.ddir
pin = tiny_data.pin
write = tiny_data.write

COVTYPE = "covtype/covtype.data.gz"


def covtype_bytes(first_elevation: int) -> bytes:
    """One gzip-ed CoverType row (54 features + label), stored uncompressed so that the
    size is the same for any 4-digit value."""
    row = [first_elevation] + [0] * 53 + [3]
    return gzip.compress((",".join(map(str, row)) + "\n").encode(), compresslevel=0, mtime=0)


def rewrite_keeping_size_and_mtime(path: Path, data: bytes) -> None:
    """Overwrite ``path`` in place with ``data`` (same size) and set its times back."""
    before = path.stat()
    assert len(data) == before.st_size
    path.write_bytes(data)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        before.st_size,
        before.st_mtime_ns,
        before.st_ino,
    )


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """``streamlearn ARGS`` as a subprocess (the environment set by ``isolated`` applies)."""
    env = {**os.environ, "COLUMNS": "250"}
    return subprocess.run(
        [sys.executable, "-m", "streamlearn", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def main_cli(monkeypatch, capsys, *args: str) -> tuple[int, str]:
    """``streamlearn ARGS`` in this process (monkeypatched specs apply): (exit code, output)."""
    monkeypatch.setenv("COLUMNS", "250")
    monkeypatch.setattr(sys, "argv", ["streamlearn", *args])
    with pytest.raises(SystemExit) as exc:
        cli.main()
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out + out.err


# --------------------------------------------------------------------------------------
# The hash cache is keyed by inode and ctime too
# --------------------------------------------------------------------------------------


def test_same_size_edit_with_restored_mtime_is_hashed_again(tmp_path):
    f = tmp_path / "f.bin"
    f.write_bytes(b"aaaa")
    assert checksums.file_sha256(f) == hashlib.sha256(b"aaaa").hexdigest()
    assert str(f.resolve()) in checksums._read_hash_cache()  # the first hash was cached
    rewrite_keeping_size_and_mtime(f, b"bbbb")
    assert checksums.file_sha256(f) == hashlib.sha256(b"bbbb").hexdigest()
    checksums._hash_memo.clear()  # a new process: only the on-disk cache is left
    assert checksums.file_sha256(f) == hashlib.sha256(b"bbbb").hexdigest()


def test_verify_reports_an_edit_hidden_by_a_restored_mtime(monkeypatch, capsys, ddir):
    path = write(ddir, COVTYPE, covtype_bytes(2596))
    pin(monkeypatch, "covtype", ddir)
    code, out = main_cli(monkeypatch, capsys, "data", "verify", "--data-dir", str(ddir))
    assert code == 0, out
    assert "1 file(s) verified" in out
    rewrite_keeping_size_and_mtime(path, covtype_bytes(3596))
    code, out = main_cli(monkeypatch, capsys, "data", "verify", "--data-dir", str(ddir))
    assert code == DataError.exit_code, out
    assert "Verification failed" in out and "SHA-256" in out
    assert str(path) in out.replace("\n", "")
    assert verification.dataset_status("covtype", ddir).state == "corrupt"  # the memo is not fooled


def test_verify_reads_the_files_even_when_the_cache_says_otherwise(
    monkeypatch, capsys, tmp_path, ddir
):
    path = write(ddir, COVTYPE, covtype_bytes(2596))
    pin(monkeypatch, "covtype", ddir)
    checksums.file_sha256(path)
    entries = checksums._read_hash_cache()
    entries[str(path.resolve())]["sha256"] = "0" * 64  # a stale entry with the right stamp
    (tmp_path / "cache" / "sha256-cache.json").write_text(json.dumps(entries))
    checksums._hash_memo.clear()
    # the memoised path trusts it
    assert verification.dataset_status("covtype", ddir).state == "corrupt"
    code, out = main_cli(monkeypatch, capsys, "data", "verify", "--data-dir", str(ddir))
    assert code == 0, out
    assert "1 file(s) verified" in out
    # ... and verify refreshed the entry.
    assert checksums._read_hash_cache()[str(path.resolve())]["sha256"] != "0" * 64


def test_loading_reparses_after_an_edit_hidden_by_a_restored_mtime(ddir):
    # 'temperature' has no reference hash: a stale file hash would reuse stale arrays.
    path = write(ddir, "temperature/umass_davis_temperature.csv", b"temp\n1.0\n5.0\n3.0\n")
    _, y, meta = load_dataset("temperature", ddir)
    assert meta["raw_max"] == 5.0 and not meta["from_cache"]
    assert load_dataset("temperature", ddir)[2]["from_cache"]
    rewrite_keeping_size_and_mtime(path, b"temp\n1.0\n9.0\n3.0\n")
    _, y2, meta2 = load_dataset("temperature", ddir)
    assert not meta2["from_cache"]
    assert meta2["raw_max"] == 9.0
    assert not np.array_equal(y, y2)


# --------------------------------------------------------------------------------------
# Directories and broken links where a file belongs
# --------------------------------------------------------------------------------------


def make_directory(ddir: Path) -> tuple[Path, str]:
    path = ddir / COVTYPE
    path.mkdir(parents=True)
    (path / "inside.txt").write_text("not data")
    return path, "is a directory, not a file"


def make_broken_link(ddir: Path) -> tuple[Path, str]:
    path = ddir / COVTYPE
    path.parent.mkdir(parents=True)
    target = ddir / "elsewhere" / "covtype.data.gz"
    path.symlink_to(target)
    return path, f"is a broken symbolic link: its target {target} does not exist"


@pytest.mark.parametrize("make", [make_directory, make_broken_link])
def test_verify_names_a_bad_path_and_fails(ddir, make):
    path, problem = make(ddir)
    res = run_cli("data", "verify", "--data-dir", str(ddir))
    assert res.returncode == DataError.exit_code, res.stdout + res.stderr
    assert "Traceback" not in res.stderr
    err = " ".join(res.stderr.split())
    assert f"{path} {problem}" in err
    assert "invalid" in res.stdout and "no mismatch" not in res.stdout
    res = run_cli("data", "verify", "covtype", "--data-dir", str(ddir))
    assert res.returncode == DataError.exit_code
    assert problem in " ".join(res.stderr.split())


@pytest.mark.parametrize("make", [make_directory, make_broken_link])
def test_loading_a_bad_path_raises_a_clear_data_error(ddir, make):
    path, problem = make(ddir)
    with pytest.raises(DataError) as err:
        load_dataset("covtype", ddir)
    msg = str(err.value)
    assert f"{path} {problem}" in msg
    assert "needs the file covtype/covtype.data.gz" in msg
    status = verification.dataset_status("covtype", ddir)
    assert status.state == "corrupt"
    assert problem in status.label
    with pytest.raises(DataError, match="Replace it with the file"):
        downloads.fetch("covtype", ddir)  # never silently replaced
    assert path.is_symlink() or path.is_dir()


def test_a_fifo_is_not_read(ddir):
    path = ddir / COVTYPE
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    st = verification.verify_file(DATASETS["covtype"].files[0], ddir)
    assert st.state == "invalid" and "not a regular file" in (st.problem or "")


# --------------------------------------------------------------------------------------
# A data directory without any dataset file
# --------------------------------------------------------------------------------------


def test_verify_of_a_directory_without_dataset_files_fails(ddir):
    (ddir / "notes.txt").write_text("the data are elsewhere")
    res = run_cli("data", "verify", "--data-dir", str(ddir))
    assert res.returncode == DataError.exit_code
    err = " ".join(res.stderr.split())
    assert f"No dataset file was found in {ddir} (given explicitly)" in err
    assert "nothing was verified" in err and "--data-dir" in err
    assert "verified;" not in res.stdout


def test_verify_of_a_missing_directory_fails(tmp_path):
    res = run_cli("data", "verify")  # the default, <cache>/datasets, was never made
    assert res.returncode == DataError.exit_code
    err = " ".join(res.stderr.split())
    assert f"{tmp_path / 'cache' / 'datasets'} (the default;" in err and "does not exist" in err
    res = run_cli("data", "verify", "--data-dir", str(tmp_path / "nope"))
    assert res.returncode == DataError.exit_code
    assert f"{tmp_path / 'nope'} (given explicitly) does not exist" in " ".join(res.stderr.split())


def test_verify_counts_files_without_a_reference_hash(monkeypatch, capsys, ddir):
    write(ddir, "temperature/umass_davis_temperature.csv", b"temp\n1\n2\n")
    code, out = main_cli(monkeypatch, capsys, "data", "verify", "--data-dir", str(ddir))
    assert code == 0, out
    assert "0 file(s) verified, 1 present without a reference hash; no mismatch." in out
    code, out = main_cli(
        monkeypatch, capsys, "data", "verify", "--rehash", "--data-dir", str(ddir)
    )  # the old option is still accepted
    assert code == 0, out


# --------------------------------------------------------------------------------------
# Caches are best-effort
# --------------------------------------------------------------------------------------


def test_unwritable_caches_do_not_stop_loading(monkeypatch, tmp_path, ddir):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the cache directory should be")
    monkeypatch.setenv("STREAMLEARN_CACHE", str(blocker / "cache"))
    write(ddir, "temperature/umass_davis_temperature.csv", b"temp\n1\n2\n4\n")
    for _ in range(2):  # the parsed arrays cannot be kept: parsed again, loaded all the same
        _, y, meta = load_dataset("temperature", ddir)
        assert not meta["from_cache"]
        np.testing.assert_allclose(y, [-1.0, -1 / 3, 1.0])
    assert not blocker.is_dir()
    assert sorted(p.name for p in ddir.iterdir()) == ["temperature"]


# --------------------------------------------------------------------------------------
# Missing files fail `data verify`; list, info and fetch end cleanly
# --------------------------------------------------------------------------------------


def test_verify_of_all_datasets_fails_on_a_missing_file_of_a_present_dataset(
    monkeypatch, capsys, ddir
):
    write(ddir, "adult/adult.data", b"39, State-gov, 77516\n")
    write(ddir, "adult/adult.test", b"|1x3 Cross validator\n")
    write(ddir, "libsvm/cod-rna", b"-1 1:10 2:0.5\n")  # its test file, cod-rna.t, is absent
    pin(monkeypatch, "adult", ddir)
    pin(monkeypatch, "codrna", ddir)
    code, out = main_cli(monkeypatch, capsys, "data", "verify", "--data-dir", str(ddir))
    assert code == 0, out
    assert "3 file(s) verified; no mismatch." in out
    flat = " ".join(out.split())
    assert "cod-rna.t: missing (the 'test' part of codrna cannot be loaded" in flat
    assert "Not in the data directory (not checked): " in flat and "covtype" in flat
    (ddir / "adult" / "adult.test").unlink()
    code, out = main_cli(monkeypatch, capsys, "data", "verify", "--data-dir", str(ddir))
    assert code == DataError.exit_code, out
    flat = " ".join(out.split())
    assert "Verification failed:" in flat and "no mismatch" not in flat
    # rich folds a long path anywhere (a long temporary directory, e.g. under pytest-xdist)
    assert "".join(f"{ddir / 'adult' / 'adult.test'}: missing (adult cannot be loaded)".split()) \
        in "".join(out.split())
    assert "cod-rna.t: missing" in flat  # listed with the failure as well
    assert "Traceback" not in out


def test_list_and_info_say_when_the_data_directory_is_not_there(monkeypatch, capsys, tmp_path):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("not a directory")
    for path, what in ((tmp_path / "nope", "does not exist"), (not_a_dir, "is not a directory")):
        for args in (("data", "list"), ("data", "info", "mnist")):
            code, out = main_cli(monkeypatch, capsys, *args, "--data-dir", str(path))
            assert code == 0, out
            assert f"The data directory {path} (given explicitly) {what}" in " ".join(out.split())


@pytest.mark.parametrize("timeout", ["0", "-1", "nan", "inf"])
def test_fetch_refuses_a_bad_timeout(monkeypatch, capsys, tmp_path, timeout):
    code, out = main_cli(
        monkeypatch, capsys, "data", "fetch", "covtype", "--data-dir", str(tmp_path / "d"),
        "--timeout", timeout,
    )
    assert code == 2, out
    assert "--timeout must be a positive number of seconds" in " ".join(out.split())
    assert not (tmp_path / "d").exists()


def test_fetch_without_network_fails_cleanly_and_writes_nothing(monkeypatch, capsys, tmp_path):
    import dataclasses

    spec = DATASETS["covtype"]
    unreachable = "http://127.0.0.1:9/covtype.data.gz"  # the discard port: nothing listens
    files = (dataclasses.replace(spec.files[0], url=unreachable),)
    monkeypatch.setitem(DATASETS, "covtype", dataclasses.replace(spec, files=files))
    code, out = main_cli(
        monkeypatch, capsys, "data", "fetch", "covtype", "--data-dir", str(tmp_path / "d"),
        "--timeout", "5",
    )
    assert code == DataError.exit_code, out
    flat = " ".join(out.split())
    assert f"Download of {unreachable} failed" in flat and "Traceback" not in out
    assert not (tmp_path / "d").exists()
