"""Saved predictions are read only beside the record that names them (its
``predictions_sha256``). A run writes its predictions first, then its record; a record
write that failed in between (hunt 8, A4: disk full) left config B's predictions beside
config A's record, and going back to A reused the pair ("0 run(s) computed, 1 already
complete", exit 0; the record's OCA 0.695, its predictions' own accuracy 0.7453), which
`records pack --predictions` then archived."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from streamlearn.atomic import OutputError
from streamlearn.config import parse_config
from streamlearn.errors import UserError
from streamlearn.evaluation import record_archive, records
from streamlearn.evaluation.runner import run_experiment

RID = "SEA__PA__seed0"


def _config(**params) -> dict:
    return parse_config({
        "name": "pred", "seeds": [0],
        "streams": [{"name": "sea", "label": "SEA", "max_samples": 600, "reseed": True}],
        "algorithms": [{"name": "passive_aggressive", "label": "PA", "params": params}],
        "metrics": ["oca"], "evaluation": {"checkpoints": 20, "save_predictions": True}})


def _stale_pair(out: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[bytes, bytes]:
    """A's record beside B's predictions, as a B whose record write failed leaves them
    (experiment.json of A, as a later run of A writes it): (A's record, B's predictions)."""
    run_experiment(_config(), out)
    record_a = records.record_path(out, RID).read_bytes()
    manifest = (out / "experiment.json").read_bytes()
    write_json = records.atomic_write_json

    def disk_full(path: Path, obj: object) -> None:
        if path.parent.name == "runs":
            raise OutputError(f"Cannot write {path}: the disk is full")
        write_json(path, obj)

    monkeypatch.setattr(records, "atomic_write_json", disk_full)
    with pytest.raises(OutputError):
        run_experiment(_config(C=0.01), out)
    monkeypatch.setattr(records, "atomic_write_json", write_json)
    (out / "experiment.json").write_bytes(manifest)
    assert records.record_path(out, RID).read_bytes() == record_a
    return record_a, records.predictions_path(out, RID).read_bytes()


def test_the_record_names_its_predictions(tmp_path):
    run_experiment(_config(), tmp_path)
    rec = json.loads(records.record_path(tmp_path, RID).read_text())
    data = records.predictions_path(tmp_path, RID).read_bytes()
    assert rec["predictions_sha256"] == hashlib.sha256(data).hexdigest()
    assert record_archive.read_predictions(tmp_path, RID) == data


def test_a_resume_computes_again_a_run_beside_another_run_s_predictions(tmp_path,
                                                                        monkeypatch):
    _, stale = _stale_pair(tmp_path, monkeypatch)
    result = run_experiment(_config(), tmp_path)
    assert [o.status for o in result.outcomes] == ["ok"]
    rec = json.loads(records.record_path(tmp_path, RID).read_text())
    data = records.predictions_path(tmp_path, RID).read_bytes()
    assert data != stale and records.predictions_match(rec, data)


def test_readers_and_pack_refuse_the_pair(tmp_path, monkeypatch):
    _stale_pair(tmp_path, monkeypatch)
    with pytest.raises(record_archive.PredictionsMismatch, match="does not hold the "
                       "predictions of the record"):
        record_archive.read_predictions(tmp_path, RID)
    with pytest.raises(UserError, match="Nothing was written"):
        record_archive.pack(tmp_path, predictions=True)
    assert not record_archive.archive_path(tmp_path).exists()
    assert not record_archive.predictions_path(tmp_path).exists()


def test_a_record_made_before_the_field_keeps_its_predictions(tmp_path):
    """Committed records have no predictions_sha256: no check is possible, and their
    predictions are read (and resumed, and packed) as before."""
    run_experiment(_config(), tmp_path)
    path = records.record_path(tmp_path, RID)
    rec = json.loads(path.read_text())
    del rec["predictions_sha256"]
    path.write_text(json.dumps(rec))
    data = records.predictions_path(tmp_path, RID).read_bytes()
    assert record_archive.read_predictions(tmp_path, RID) == data
    assert [o.status for o in run_experiment(_config(), tmp_path).outcomes] == ["skipped"]
    assert record_archive.pack(tmp_path, predictions=True).predictions == 1



def test_a_rerun_s_records_diff_the_same(tmp_path):
    """The .npz of two runs of the same run may differ (their zip members carry the time
    they were written, to 2 s), and so may their records' predictions_sha256: not a
    difference of result."""
    from streamlearn.reporting.record_diff import diff_folders

    run_experiment(_config(), tmp_path / "a")
    run_experiment(_config(), tmp_path / "b")
    path = records.record_path(tmp_path / "b", RID)
    rec = json.loads(path.read_text())
    rec["predictions_sha256"] = "0" * 64  # written in another second
    path.write_text(json.dumps(rec))
    assert [r.verdict for r in diff_folders(tmp_path / "a", tmp_path / "b").runs] == ["same"]
