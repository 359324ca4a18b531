"""What the dataset tests that need no real data share: a private cache and data directory
(the ``isolated`` and ``ddir`` fixtures), files written in place, reference hashes re-pinned
to them (:func:`pin`), and tiny files in the official formats that several modules write
(CoverType, KuaiRec).

A module uses the fixtures by binding them: ``isolated = tiny_data.isolated`` (autouse:
private cache dir, no data-dir env, no auto download, empty hash memo) and
``ddir = tiny_data.ddir``.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import io
import zipfile
from pathlib import Path

import numpy as np
import pytest

from streamlearn.datasets.catalogue import DATASETS
from streamlearn.datasets.store import checksums


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Private cache dir, no data-dir env, no auto download, empty hash memo."""
    monkeypatch.setenv("STREAMLEARN_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("STREAMLEARN_DATA", raising=False)
    monkeypatch.delenv("STREAMLEARN_AUTO_DOWNLOAD", raising=False)
    monkeypatch.delenv("STREAMLEARN_PARSED_CACHE", raising=False)
    monkeypatch.setattr(checksums, "_hash_memo", {})


@pytest.fixture
def ddir(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    return d


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def pin(monkeypatch, name: str, ddir: Path) -> None:
    """Make dataset ``name``'s reference hashes those of the tiny files in ``ddir``."""
    spec = DATASETS[name]
    files = tuple(
        dataclasses.replace(f, sha256=(sha(ddir / f.path),) if (ddir / f.path).is_file() else ())
        for f in spec.files
    )
    monkeypatch.setitem(DATASETS, name, dataclasses.replace(spec, files=files))


def write(ddir: Path, rel: str, data: bytes) -> Path:
    path = ddir / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def covtype_rows(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = np.column_stack(
        [rng.integers(1800, 3900, n), rng.integers(0, 360, (n, 9)), rng.integers(0, 2, (n, 44))]
    )
    y = rng.integers(1, 8, n)
    return np.column_stack([X, y])


def write_covtype(ddir: Path, text: str) -> Path:
    return write(ddir, "covtype/covtype.data.gz", gzip.compress(text.encode()))


def table_text(rows: np.ndarray) -> str:
    return "".join(",".join(str(v) for v in r) + "\n" for r in rows)


def write_kuairec(ddir: Path, small: str) -> Path:
    users = (
        "user_id,user_active_degree,is_lowactive_period,follow_user_num,"
        "follow_user_num_range,register_days,onehot_feat0\n"
        "14,high_active,0,5,(0;10],107,1\n21,full_active,1,120,(100;150],30,0\n"
    )
    items = (
        "video_id,date,author_id,video_type,video_duration,show_cnt,play_cnt\n"
        "148,20200705,3,NORMAL,6067,100,80\n183,20200705,4,AD,6100,50,20\n"
        "148,20200706,3,NORMAL,6067,110,90\n"
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("KuaiRec 2.0/data/small_matrix.csv", small)
        zf.writestr("KuaiRec 2.0/data/user_features.csv", users)
        zf.writestr("KuaiRec 2.0/data/item_daily_features.csv", items)
        zf.writestr("KuaiRec 2.0/data/item_categories.csv", "video_id,feat\n148,[8]\n")
    return write(ddir, "kuairec/KuaiRec.zip", buf.getvalue())


KUAI_HEADER = "user_id,video_id,play_duration,video_duration,time,date,timestamp,watch_ratio\n"


