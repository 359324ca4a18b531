"""Downloads (:mod:`streamlearn.datasets.store.downloads`) through the real download path,
pooch's HTTP downloader into our hashing sink and atomic writer, from a local HTTP server
on 127.0.0.1 (the ``http_server`` fixture): no network needed.

A file is installed only with an accepted SHA-256, with the umask's mode, and nothing is
left behind by a refused, failed or cut-short download; ``data fetch`` and
``STREAMLEARN_AUTO_DOWNLOAD=1`` go through the same path.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import socket

import pytest
from typer.testing import CliRunner

from streamlearn import atomic
from streamlearn.cli.data import data_app
from streamlearn.datasets.catalogue import DATASETS
from streamlearn.datasets.catalogue.spec import DatasetSpec, FileSpec
from streamlearn.datasets.real.base import load_dataset
from streamlearn.datasets.store import downloads, locations, verification
from streamlearn.errors import DataError, UserError
from tests.datasets import tiny_data

# From tests/datasets/tiny_data.py: private cache dir, no data-dir env, no auto download, empty
# hash memo (autouse); a fresh data directory.
isolated = tiny_data.isolated
ddir = tiny_data.ddir


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def files_under(path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


def test_download_from_a_local_server_verifies_and_installs(http_server, tmp_path):
    data = os.urandom(3 * (1 << 20) + 5)  # more than three chunks
    url = http_server.put("big.bin", data)
    dest = tmp_path / "out" / "deep" / "file.bin"
    calls = []
    digest = downloads.download(url, dest, (sha(data),), progress=lambda d, t: calls.append((d, t)))
    assert digest == sha(data) and dest.read_bytes() == data
    assert calls[-1] == (len(data), len(data))  # bytes received, and the Content-Length
    assert [c[0] for c in calls] == sorted(c[0] for c in calls)
    assert files_under(tmp_path / "out") == ["deep", "deep/file.bin"]  # no .part left


def test_download_accepts_any_of_the_declared_digests(http_server, tmp_path):
    url = http_server.put("a.txt", b"payload")
    dest = tmp_path / "a.txt"
    downloads.download(url, dest, ("0" * 64, sha(b"payload")))
    assert dest.read_bytes() == b"payload"


def test_download_with_a_wrong_checksum_installs_nothing(http_server, tmp_path):
    url = http_server.put("a.txt", b"payload")
    dest = tmp_path / "new" / "sub" / "a.txt"
    with pytest.raises(DataError, match="It was not installed") as err:
        downloads.download(url, dest, ("0" * 64,))
    assert sha(b"payload") in str(err.value) and "0" * 64 in str(err.value)
    assert not (tmp_path / "new").exists()  # directories made for it are removed again


def test_a_wrong_checksum_keeps_the_file_already_there(http_server, tmp_path):
    url = http_server.put("a.txt", b"new content")
    dest = tmp_path / "a.txt"
    dest.write_bytes(b"old")
    with pytest.raises(DataError, match="not installed"):
        downloads.download(url, dest, ("0" * 64,))
    assert dest.read_bytes() == b"old"
    assert files_under(tmp_path) == ["a.txt", "srv", "srv/a.txt"]


def test_download_installs_with_the_atomic_writers_permissions(monkeypatch, http_server, tmp_path):
    monkeypatch.setattr(atomic, "_FILE_MODE", 0o640)  # as under umask 027
    url = http_server.put("a.bin", b"payload")
    dest = tmp_path / "out" / "a.bin"
    downloads.download(url, dest, (sha(b"payload"),))
    assert dest.stat().st_mode & 0o777 == 0o640  # pooch.retrieve would give 0o600


def test_http_error_is_a_data_error_and_keeps_the_existing_file(http_server, tmp_path):
    dest = tmp_path / "file.bin"
    dest.write_bytes(b"old")
    with pytest.raises(DataError, match=r"failed \(HTTP Error 404: File not found\)"):
        downloads.download(http_server.url("absent.bin"), dest)
    assert dest.read_bytes() == b"old"
    assert files_under(tmp_path) == ["file.bin", "srv"]


def test_a_refused_connection_names_the_socket_error(tmp_path):
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/a.bin"
    with pytest.raises(DataError) as err:
        downloads.download(url, tmp_path / "d" / "a.bin", timeout=5)
    msg = str(err.value)
    assert f"Download of {url} failed ([Errno 111] Connection refused)" in msg
    assert "obtain the file elsewhere" in msg
    assert not (tmp_path / "d").exists()


def test_a_body_shorter_than_announced_is_cut_short(http_server, tmp_path):
    http_server.put("a.bin", b"x" * 1000)
    dest = tmp_path / "d" / "a.bin"
    with pytest.raises(DataError, match=r"was cut short \(1000 of 1100 bytes\)"):
        downloads.download(http_server.url("short/a.bin"), dest)
    assert not (tmp_path / "d").exists()


def test_only_http_urls_are_downloaded(tmp_path):
    src = tmp_path / "src.bin"
    src.write_bytes(b"x")
    with pytest.raises(DataError, match=r"only http:// and https:// URLs"):
        downloads.download(src.as_uri(), tmp_path / "d" / "f.bin")
    assert not (tmp_path / "d").exists()


def test_download_into_read_only_dir_is_refused(http_server, tmp_path):
    url = http_server.put("a.bin", b"x")
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        with pytest.raises(DataError, match="read-only"):
            downloads.download(url, ro / "sub" / "f.bin")
        assert list(ro.iterdir()) == []
        assert not locations.dir_writable(ro)
    finally:
        ro.chmod(0o755)


def test_download_into_a_path_that_cannot_be_created_is_a_data_error(http_server, tmp_path):
    url = http_server.put("a.bin", b"payload")
    dest = tmp_path / "dir"
    (dest / "sub").mkdir(parents=True)  # a non-empty directory where the file should go
    with pytest.raises(DataError, match=r"Cannot write .*must be writable to download"):
        downloads.download(url, dest)
    assert [p.name for p in dest.iterdir()] == ["sub"]


def test_fetch_downloads_missing_files_and_skips_good_ones(http_server, ddir, monkeypatch):
    a = http_server.put("a.txt", b"1,2\n")
    b = http_server.put("b.txt", b"3,4\n")
    spec = DatasetSpec(
        name="toy",
        title="toy",
        papers=("forks",),
        task="classification",
        files=(
            FileSpec("toy/a.txt", (sha(b"1,2\n"),), url=a),
            FileSpec("toy/b.txt", (sha(b"3,4\n"),), url=b),
        ),
        n_features=1,
        n_classes=2,
        sizes={"all": 2},
    )
    monkeypatch.setitem(DATASETS, "toy", spec)
    seen = []
    out = downloads.fetch("toy", ddir, progress=lambda f, d, t: seen.append(f.path))
    assert [s.state for s in out] == ["ok", "ok"]
    assert set(seen) == {"toy/a.txt", "toy/b.txt"}
    seen.clear()
    downloads.fetch("toy", ddir, progress=lambda f, d, t: seen.append(f.path))
    assert seen == []  # already verified
    (ddir / "toy" / "b.txt").write_bytes(b"corrupt")
    downloads.fetch("toy", ddir)
    assert (ddir / "toy" / "b.txt").read_bytes() == b"3,4\n"
    assert verification.dataset_status("toy", ddir).state == "verified"


SPAMBASE_ROW = b"0," * 57 + b"1\n"


def serve_spambase(monkeypatch, http_server) -> None:
    """Dataset ``spambase`` declared with one tiny file served by ``http_server``."""
    url = http_server.put("spambase.data", SPAMBASE_ROW)
    spec = DATASETS["spambase"]
    fs = dataclasses.replace(spec.files[0], sha256=(sha(SPAMBASE_ROW),), url=url)
    monkeypatch.setitem(DATASETS, "spambase", dataclasses.replace(spec, files=(fs,)))


def test_auto_download_on_load(monkeypatch, http_server, ddir):
    serve_spambase(monkeypatch, http_server)
    with pytest.raises(DataError, match="not in the data directory"):
        load_dataset("spambase", ddir)
    assert files_under(ddir) == []  # loading never downloads unless asked to
    monkeypatch.setenv("STREAMLEARN_AUTO_DOWNLOAD", "1")
    X, y, _ = load_dataset("spambase", ddir)
    assert X.shape == (1, 57) and y.tolist() == [1]


@pytest.mark.parametrize("value", ["false", "no", "OFF", "0", ""])
def test_auto_download_off_values_do_not_download(monkeypatch, http_server, ddir, value):
    """``STREAMLEARN_AUTO_DOWNLOAD=false`` (or no/off) had turned downloads on: only ''
    and '0' were read as off."""
    serve_spambase(monkeypatch, http_server)
    monkeypatch.setenv("STREAMLEARN_AUTO_DOWNLOAD", value)
    with pytest.raises(DataError, match="not in the data directory"):
        load_dataset("spambase", ddir)
    assert files_under(ddir) == []


def test_auto_download_on_values_and_an_unknown_value(monkeypatch, http_server, ddir):
    serve_spambase(monkeypatch, http_server)
    monkeypatch.setenv("STREAMLEARN_AUTO_DOWNLOAD", "maybe")
    with pytest.raises(UserError, match=r"STREAMLEARN_AUTO_DOWNLOAD='maybe' is neither on"):
        load_dataset("spambase", ddir)
    assert files_under(ddir) == []
    monkeypatch.setenv("STREAMLEARN_AUTO_DOWNLOAD", "Yes")
    X, _, _ = load_dataset("spambase", ddir)
    assert X.shape == (1, 57)


def test_cli_fetch(monkeypatch, http_server, ddir):
    serve_spambase(monkeypatch, http_server)
    res = CliRunner().invoke(data_app, ["fetch", "spambase", "--data-dir", str(ddir)],
                             env={"COLUMNS": "250"})
    assert res.exit_code == 0, res.output
    assert (ddir / "spambase" / "spambase.data").read_bytes() == SPAMBASE_ROW
    assert "verified" in res.output
    res = CliRunner().invoke(data_app, ["fetch", "shuttle", "--data-dir", str(ddir)])
    assert isinstance(res.exception, DataError) and "uncompress" in str(res.exception)


def test_cli_fetch_refuses_a_wrong_checksum_and_exits_3(monkeypatch, capsys, http_server, ddir):
    serve_spambase(monkeypatch, http_server)
    http_server.put("spambase.data", SPAMBASE_ROW.replace(b"1\n", b"0\n"))  # not the reference
    from tests.datasets.store.test_integrity import main_cli

    code, out = main_cli(monkeypatch, capsys, "data", "fetch", "spambase", "--data-dir", str(ddir))
    assert code == DataError.exit_code, out
    assert "It was not installed" in " ".join(out.split()) and "Traceback" not in out
    assert files_under(ddir) == []
