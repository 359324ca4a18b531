"""The data directory, checksums and verification (:mod:`streamlearn.datasets.store`):
where the data directory is, the hash memo, each file's state and the message that says
how to repair it, a dataset's status, the declared hashes against the shared manifest, and
`data list|info|verify`. No real data needed, except the manifest check (skipped without).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from streamlearn.cli.data import data_app
from streamlearn.datasets.catalogue import DATASETS
from streamlearn.datasets.catalogue.spec import FileSpec
from streamlearn.datasets.store import checksums, downloads, locations, verification
from streamlearn.errors import DataError, UserError
from tests.conftest import shared_data_dir
from tests.datasets import tiny_data
from tests.datasets.tiny_data import (
    covtype_rows,
    pin,
    sha,
    table_text,
    write,
    write_covtype,
)

isolated = tiny_data.isolated
ddir = tiny_data.ddir

SHARED = shared_data_dir() or Path("shared-datasets-absent")  # an empty variable = unset


# --------------------------------------------------------------------------------------
# Data directory resolution
# --------------------------------------------------------------------------------------


def test_data_dir_resolution_order(tmp_path, monkeypatch):
    assert locations.resolve_data_dir() == tmp_path / "cache" / "datasets"
    monkeypatch.setenv("STREAMLEARN_DATA", str(tmp_path / "env"))
    assert locations.resolve_data_dir() == tmp_path / "env"
    assert locations.resolve_data_dir(tmp_path / "arg") == tmp_path / "arg"
    assert locations.resolve_data_dir(str(tmp_path / "arg")) == tmp_path / "arg"


def test_an_empty_variable_counts_as_unset(tmp_path, monkeypatch):
    # `make` once exported STREAMLEARN_DATA and STREAMLEARN_TEST_DATA empty where
    # ../shared was absent; Path("") is the current directory, which exists, so the real-
    # data tests ran against it and failed instead of skipping
    monkeypatch.setenv("STREAMLEARN_DATA", "")
    assert locations.resolve_data_dir() == tmp_path / "cache" / "datasets"
    import tests.conftest as test_conftest

    monkeypatch.setenv("STREAMLEARN_TEST_DATA", "")
    monkeypatch.setattr(test_conftest, "_SHARED", tmp_path / "no-shared")
    assert test_conftest.shared_data_dir() is None
    monkeypatch.setenv("STREAMLEARN_TEST_DATA", str(tmp_path))
    assert test_conftest.shared_data_dir() == tmp_path


def test_default_cache_dir_is_platformdirs(monkeypatch):
    import platformdirs

    monkeypatch.delenv("STREAMLEARN_CACHE")
    assert locations.cache_dir() == Path(platformdirs.user_cache_dir("streamlearn"))


# --------------------------------------------------------------------------------------
# Hashing and verification
# --------------------------------------------------------------------------------------


def test_sha256_is_cached_by_path_size_mtime_inode_ctime(tmp_path):
    f = tmp_path / "f.bin"
    f.write_bytes(b"abc")
    digest = checksums.file_sha256(f)
    assert digest == hashlib.sha256(b"abc").hexdigest()
    entries = json.loads((tmp_path / "cache" / "sha256-cache.json").read_text())
    st = f.stat()
    assert entries[str(f.resolve())] == {
        "size": 3,
        "mtime_ns": st.st_mtime_ns,
        "ino": st.st_ino,
        "ctime_ns": st.st_ctime_ns,
        "sha256": digest,
    }
    # A fresh process (empty memo) reuses the on-disk entry without reading the file.
    checksums._hash_memo.clear()
    entries[str(f.resolve())]["sha256"] = "0" * 64
    (tmp_path / "cache" / "sha256-cache.json").write_text(json.dumps(entries))
    assert checksums.file_sha256(f) == "0" * 64
    # ... but not when the file changed (size or mtime), nor with use_cache=False.
    assert checksums.file_sha256(f, use_cache=False) == digest
    f.write_bytes(b"abcd")
    assert checksums.file_sha256(f) == hashlib.sha256(b"abcd").hexdigest()


def test_verify_file_states(ddir):
    f = write(ddir, "x/a.txt", b"hello")
    good = FileSpec("x/a.txt", (sha(f),))
    assert verification.verify_file(good, ddir).state == "ok"
    assert verification.verify_file(FileSpec("x/a.txt", ("0" * 64,)), ddir).state == "mismatch"
    assert verification.verify_file(FileSpec("x/a.txt"), ddir).state == "unverified"
    assert verification.verify_file(FileSpec("x/b.txt", (sha(f),)), ddir).state == "missing"
    # several accepted digests
    assert verification.verify_file(FileSpec("x/a.txt", ("0" * 64, sha(f))), ddir).state == "ok"


def test_missing_file_message_names_file_place_and_url(ddir):
    with pytest.raises(DataError) as err:
        downloads.require_files("covtype", DATASETS["covtype"].files, ddir)
    msg = str(err.value)
    assert "covtype/covtype.data.gz" in msg
    assert str(ddir / "covtype" / "covtype.data.gz") in msg
    assert "https://archive.ics.uci.edu/ml/machine-learning-databases/covtype/" in msg
    assert "streamlearn data fetch covtype" in msg
    assert "given explicitly" in msg


def test_missing_file_without_url_says_where_to_put_it(ddir):
    with pytest.raises(DataError, match=r"uncompress shuttle\.trn\.Z"):
        downloads.require_files("shuttle", DATASETS["shuttle"].files, ddir)


def test_wrong_hash_message_gives_both_hashes(ddir):
    path = write(ddir, "spambase/spambase.data", b"1,2,3\n")
    with pytest.raises(DataError) as err:
        downloads.require_files("spambase", DATASETS["spambase"].files, ddir)
    msg = str(err.value)
    assert sha(path) in msg
    assert DATASETS["spambase"].files[0].sha256[0] in msg
    assert "streamlearn data fetch spambase" in msg


@pytest.mark.skipif(not (SHARED / "manifest.json").exists(), reason="shared datasets absent")
def test_declared_hashes_match_the_shared_manifest():
    manifest = json.loads((SHARED / "manifest.json").read_text())
    declared = {f.path: f for spec in DATASETS.values() for f in spec.files}
    n = 0
    for entry in manifest.values():
        for f in entry["files"]:
            assert f["path"] in declared, f["path"]
            assert declared[f["path"]].sha256[0] == f["sha256"]
            assert declared[f["path"]].size == f["bytes"]
            n += 1
    assert n == 35


# --------------------------------------------------------------------------------------
# Status and the CLI
# --------------------------------------------------------------------------------------


def test_dataset_status_states(monkeypatch, ddir):
    assert verification.dataset_status("covtype", ddir).state == "missing"
    write_covtype(ddir, table_text(covtype_rows(2)))
    assert verification.dataset_status("covtype", ddir).state == "corrupt"  # reference hash differs
    pin(monkeypatch, "covtype", ddir)
    assert verification.dataset_status("covtype", ddir).state == "verified"
    write(ddir, "libsvm/cod-rna", b"-1 1:1\n")
    pin(monkeypatch, "codrna", ddir)
    st = verification.dataset_status("codrna", ddir)
    assert st.state == "partial" and "cod-rna.t missing" in st.label
    write(ddir, "libsvm/svmguide3", b"-1 1:1\n")  # no reference hash, test file missing
    assert verification.dataset_status("svmguide3", ddir).state == "partial"
    write(ddir, "libsvm/svmguide3.t", b"-1 1:1\n")
    assert verification.dataset_status("svmguide3", ddir).state == "present"
    status = verification.dataset_status
    assert "substitute for svmguide3" in status("svmguide3_csv", ddir).label
    assert "partial copy of cmu_arctic" in status("cmu_arctic_sample", ddir).label


def invoke(*args):
    result = CliRunner().invoke(data_app, list(args), env={"COLUMNS": "250"})
    return result


def test_cli_list_info_verify(monkeypatch, ddir):
    write_covtype(ddir, table_text(covtype_rows(2)))
    pin(monkeypatch, "covtype", ddir)
    res = invoke("list", "--data-dir", str(ddir))
    assert res.exit_code == 0, res.output
    for name in DATASETS:
        assert name in res.output
    assert "581,012 x 54" in res.output
    line = next(ln for ln in res.output.splitlines() if "covtype" in ln)
    assert "verified" in line
    line = next(ln for ln in res.output.splitlines() if "temperature_whately" in ln)
    assert "missing" in line and "substitute for temperature" in line
    assert "adversarial" in res.output
    res = invoke("list", "--data-dir", str(ddir), "--paper", "fast_ons")
    assert "mnist" not in res.output and "cmu_arctic" in res.output
    res = invoke("info", "covtype", "--data-dir", str(ddir))
    assert res.exit_code == 0 and "covtype/covtype.data.gz" in res.output
    assert "ok" in res.output
    res = invoke("verify", "--data-dir", str(ddir))
    assert res.exit_code == 0 and "1 file(s) verified" in res.output
    res = invoke("verify", "covtype", "--data-dir", str(ddir))
    assert res.exit_code == 0
    res = invoke("verify", "mnist", "--data-dir", str(ddir))
    assert isinstance(res.exception, DataError) and "missing" in str(res.exception)
    (ddir / "covtype" / "covtype.data.gz").write_bytes(b"corrupted")
    res = invoke("verify", "--data-dir", str(ddir))
    assert isinstance(res.exception, DataError)
    assert "SHA-256" in str(res.exception)
    res = invoke("info", "nosuchdata")
    assert isinstance(res.exception, UserError) and "Unknown dataset" in str(res.exception)
