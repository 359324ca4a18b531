"""A catalogue file without a reference SHA-256 (``sha256=()``: an official file we could
not obtain, used unverified) is part of each run's identity through its own SHA-256: an
edited file is computed again, never resumed from the old file's records (hunt 8, A1:
svmguide3's labels flipped, "0 run(s) computed, 1 already complete", the old file's
99.92 % reported for the new file's 99.68 %, exit 0). A dataset whose files all have
reference hashes keeps the digests it had (no ``data_sha256``)."""

from __future__ import annotations

import json

import yaml

from streamlearn.components import get_stream
from tests.cli_helpers import run_cli
from tests.datasets import tiny_data

isolated = tiny_data.isolated
ddir = tiny_data.ddir

_TRAIN = b"".join(b"%+d 1:%.3f 2:%.3f\n" % ((1 if i % 3 else -1), i / 40, (i % 7) / 7)
                  for i in range(40))


def _relabelled(data: bytes) -> bytes:
    """Every label +1: the same size, another stream."""
    lines = data.decode().splitlines(keepends=True)
    return "".join("+1" + ln[2:] for ln in lines).encode()


def _config(tmp_path, part: str | None = None) -> str:
    stream = {"name": "svmguide3", "label": "G3", "shuffle": False}
    if part is not None:
        stream["params"] = {"part": part}
    cfg = {"name": "g3", "repeats": 1, "streams": [stream],
           "algorithms": [{"name": "perceptron", "label": "P"}], "metrics": ["oca"],
           "evaluation": {"checkpoints": 5}, "outputs": {"dir": str(tmp_path / "out"),
                                                        "plots": []}}
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return str(path)


def _record(tmp_path) -> dict:
    return json.loads((tmp_path / "out" / "runs" / "G3__P__seed0.json").read_text())


def test_an_edited_unhashed_catalogue_file_is_computed_again(tmp_path, ddir, capsys):
    train = tiny_data.write(ddir, "libsvm/svmguide3", _TRAIN)
    cfg = _config(tmp_path)
    args = ["run", cfg, "--data-dir", str(ddir), "--quiet"]
    code, _ = run_cli(args, capsys)
    assert code == 0
    first = _record(tmp_path)
    assert first["spec"]["data_sha256"] == tiny_data.sha(train)
    code, out = run_cli(args, capsys)
    assert code == 0 and "1 already complete, 0 to run" in " ".join(out.split())

    # same path, same size, other labels; in this process, whose cache of prepared
    # streams holds the old file's arrays (a worker that outlives an experiment)
    train.write_bytes(_relabelled(_TRAIN))
    code, out = run_cli(args, capsys)
    assert code == 0 and "0 already complete, 1 to run" in " ".join(out.split())
    second = _record(tmp_path)
    assert second["spec"]["data_sha256"] == tiny_data.sha(train)
    assert second["metrics"]["oca"] != first["metrics"]["oca"]
    assert sorted(p.name for p in ddir.rglob("*")) == ["libsvm", "svmguide3"]  # nothing added


def test_digest_of_unhashed_files_and_of_pinned_ones(monkeypatch, ddir):
    tiny_data.write(ddir, "libsvm/svmguide3", _TRAIN)
    test = tiny_data.write(ddir, "libsvm/svmguide3.t", b"+1 1:0.5\n")
    cls = get_stream("svmguide3")
    assert cls(data_dir=ddir).content_sha256() == tiny_data.sha(ddir / "libsvm/svmguide3")
    assert cls(data_dir=ddir, part="test").content_sha256() == tiny_data.sha(test)
    both = cls(data_dir=ddir, part="all").content_sha256()
    adversarial = get_stream("adversarial")(base="svmguide3", n_blocks=2, data_dir=ddir)
    assert adversarial.content_sha256() == tiny_data.sha(ddir / "libsvm/svmguide3")
    assert both not in (None, tiny_data.sha(test), tiny_data.sha(ddir / "libsvm/svmguide3"))
    # files pinned by a reference hash: the catalogue's hash stands for them, the digest
    # of the records made before stays as it was
    tiny_data.pin(monkeypatch, "svmguide3", ddir)
    assert cls(data_dir=ddir, part="all").content_sha256() is None
    assert adversarial.content_sha256() is None


def test_a_pinned_dataset_keeps_its_digest(tmp_path, monkeypatch, ddir, capsys):
    tiny_data.write(ddir, "libsvm/svmguide3", _TRAIN)
    tiny_data.pin(monkeypatch, "svmguide3", ddir)
    code, _ = run_cli(["run", _config(tmp_path), "--data-dir", str(ddir), "--quiet"], capsys)
    assert code == 0
    assert "data_sha256" not in _record(tmp_path)["spec"]
