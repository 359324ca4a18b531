"""Every dataset present in the shared data folder: shape, classes, class counts, caching.

Expected class counts were computed once from the real files and agree with the figures
documented with the shared copy of the data (and, for Letter and USPS, with the UCI/ESL
documentation) and, where the papers give them, with the papers. Skipped when the data
folder is absent. Parsed arrays go to a private cache directory, so the first load of
each dataset is cold and the second is cached.
"""

from __future__ import annotations

import bz2
import io
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from streamlearn.datasets import catalogue
from streamlearn.datasets.real.base import REAL_STREAMS, load_dataset, load_split
from streamlearn.datasets.real.forks import AdversarialStream
from streamlearn.datasets.store import verification
from streamlearn.errors import DataMissingError
from tests.conftest import shared_data_dir
from tests.data_dir_guard import forbid_writes, link_copy, snapshot

# $STREAMLEARN_TEST_DATA, else ../shared/datasets; an empty variable counts as unset (the
# Makefile once exported it empty where ../shared was absent, and Path("") is the cwd)
_FOUND = shared_data_dir()
DATA = _FOUND if _FOUND is not None else Path("shared-datasets-absent")

pytestmark = [
    pytest.mark.datasets,
    pytest.mark.skipif(_FOUND is None, reason="real data directory absent (set "
                       "STREAMLEARN_TEST_DATA or put ../shared/datasets beside the repo)"),
]

# UCI letter-recognition.names, A..Z
LETTER_COUNTS = """789 766 736 805 768 775 773 734 755 747 739 761 792
                   783 753 803 783 758 748 796 813 764 752 787 786 734"""

# name: (shape, class counts or None for regression)
EXPECTED = {
    "segment": ((2310, 19), [330] * 7),
    "usps": ((9298, 256), [1553, 1269, 929, 824, 852, 716, 834, 792, 708, 821]),
    "letter": ((20000, 16), [int(v) for v in LETTER_COUNTS.split()]),
    "adult": ((45222, 14), [34014, 11208]),
    "shuttle": ((58000, 8), [45586, 50, 171, 8903, 3267, 10, 13]),
    "mnist": ((70000, 784), [6903, 7877, 6990, 7141, 6824, 6313, 6876, 7293, 6825, 6958]),
    "electricity": ((45312, 6), [26075, 19237]),
    "german": ((1000, 24), [700, 300]),
    "svmguide3_csv": ((1243, 21), [947, 296]),
    "spambase": ((4601, 57), [2788, 1813]),
    "codrna": ((59535, 8), [39690, 19845]),
    "w7a": ((24692, 300), [23952, 740]),
    "ijcnn1": ((141691, 22), [128126, 13565]),
    "cmu_arctic_sample": ((476804, 1), None),
    "temperature_whately": ((217069, 1), None),
}

NOT_STORED = ("covtype", "svmguide3", "kuairec", "smallnorb", "cmu_arctic", "temperature")


@pytest.fixture(scope="module", autouse=True)
def private_cache(tmp_path_factory):
    """A fresh cache directory (hashes, parsed arrays) for this module; data from DATA."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("STREAMLEARN_CACHE", str(tmp_path_factory.mktemp("cache")))
        mp.setenv("STREAMLEARN_DATA", str(DATA))
        mp.delenv("STREAMLEARN_PARSED_CACHE", raising=False)
        mp.delenv("STREAMLEARN_AUTO_DOWNLOAD", raising=False)
        yield


@pytest.fixture(scope="module")
def data_before(private_cache):
    """The data folder's entries before this module loads anything."""
    return snapshot(DATA)


class _Loaded(dict):
    """name → (cold, cached) results of loading the dataset twice, loaded on first use; a
    dataset whose files are not in the data folder skips the test that asks for it (one
    absent file had errored every test of the module)."""

    def __missing__(self, name: str):
        try:
            self[name] = (load_dataset(name), load_dataset(name))
        except DataMissingError as exc:
            self[name] = exc
        return self[name]

    def __getitem__(self, name: str):
        got = super().__getitem__(name)
        if isinstance(got, DataMissingError):
            pytest.skip(f"{name}: its files are not in the data folder ({got})")
        return got


@pytest.fixture(scope="module")
def loaded(private_cache, data_before):
    """Every dataset loaded twice on first use: (cold, cached) results."""
    return _Loaded()


@pytest.mark.parametrize("name", list(EXPECTED))
def test_shape_classes_and_counts(loaded, name):
    (X, y, meta), _ = loaded[name]
    shape, counts = EXPECTED[name]
    assert X.shape == shape
    assert X.dtype == np.float64 and X.flags.c_contiguous
    assert np.isfinite(X).all()
    assert meta["n_samples"] == shape[0] and meta["n_features"] == shape[1]
    if counts is None:
        assert y.dtype == np.float64
        assert meta["n_classes"] is None
    else:
        assert y.dtype == np.int64
        assert meta["n_classes"] == len(counts)
        assert np.bincount(y, minlength=len(counts)).tolist() == counts
        assert meta["class_counts"] == counts


@pytest.mark.parametrize("name", list(EXPECTED))
def test_second_load_is_cached_and_identical(loaded, name):
    (X, y, meta), (X2, y2, meta2) = loaded[name]
    assert not meta["from_cache"]
    assert meta2["from_cache"]
    assert_array_equal(X, X2)
    assert_array_equal(y, y2)
    assert X2.dtype == X.dtype and y2.dtype == y.dtype


@pytest.mark.parametrize("name", list(EXPECTED))
def test_info_without_loading_matches(name):
    info = REAL_STREAMS[name](data_dir=DATA).info()
    shape, counts = EXPECTED[name]
    assert (info.n_samples, info.n_features) == shape
    assert info.n_classes == (None if counts is None else len(counts))
    assert info.name == name


def test_shared_files_all_verify():
    absent = []
    for name in catalogue.DATASETS:
        status = verification.dataset_status(name, DATA)
        assert all(f.state != "mismatch" for f in status.files), name
        if name in EXPECTED:
            if status.state == "missing":  # a data folder that lacks it (not the shared one)
                absent.append(name)
                continue
            assert status.state in ("verified", "partial"), (name, status.label)
        if name in NOT_STORED:
            assert status.state == "missing", name
    if "codrna" not in absent:
        assert verification.dataset_status("codrna", DATA).state == "partial"  # no .t


def test_shared_folder_is_not_written(loaded, data_before):
    assert snapshot(DATA) == data_before


@pytest.mark.parametrize("writable", [True, False], ids=["writable-copy", "read-only"])
def test_loads_are_cached_outside_the_data_folder(writable, tmp_path, monkeypatch):
    """Whether the data folder is writable or not, the parsed arrays go to the user cache
    and the folder is left exactly as it was."""
    monkeypatch.setenv("STREAMLEARN_CACHE", str(tmp_path / "cache"))
    names = ("german", "spambase", "letter")
    attempts: list[str] = []
    files = [f.path for n in names for f in catalogue.DATASETS[n].files_for()]
    if not all((DATA / f).is_file() for f in files):
        pytest.skip(f"{', '.join(names)}: not all in the data folder")
    if writable:  # a user's own folder: links to the real files in a writable directory
        ddir = link_copy(DATA, tmp_path / "data", files)
    else:  # as root, chmod does not stop a write: refuse every write under DATA instead
        ddir = DATA
        attempts = forbid_writes(monkeypatch, DATA)
    before = snapshot(ddir)
    for name in names:
        X, y, meta = load_dataset(name, ddir)
        X2, y2, meta2 = load_dataset(name, ddir)
        assert not meta["from_cache"] and meta2["from_cache"], name
        assert_array_equal(X2, X)
        assert_array_equal(y2, y)
    assert snapshot(ddir) == before
    assert attempts == []
    parsed = sorted(p.name.split("-")[0] for p in (tmp_path / "cache" / "parsed").iterdir())
    assert parsed == sorted(names)


def test_paper_facts(loaded):
    # Online-BLS paper, Table 2 / Appendix B data: majority rates and the electricity
    # no-change baseline (our sanity figures, computed from the files).
    _, y, _ = loaded["adult"][0]
    assert round(100 * np.mean(y == 0), 1) == 75.2
    _, y, _ = loaded["shuttle"][0]
    assert round(100 * np.mean(y == 0), 1) == 78.6
    _, y, _ = loaded["electricity"][0]
    assert round(100 * np.mean(y[1:] == y[:-1]), 1) == 85.3
    # MNIST pixels are k / 255.
    X, _, _ = loaded["mnist"][0]
    assert X.min() == 0.0 and X.max() == 1.0
    assert_array_equal(np.round(X[:1000] * 255), X[:1000] * 255)
    # Shuttle: the repaired first record '50 21 77 0 28 0 27 48 22 2', time dropped.
    X, y, _ = loaded["shuttle"][0]
    assert_array_equal(X[0], [21, 77, 0, 28, 0, 27, 48, 22])
    assert y[0] == 1
    # FORKS minority rates (the level of the near-constant predictors in its Table 1).
    for name, rate in (("w7a", 2.997), ("ijcnn1", 9.574), ("codrna", 33.333)):
        _, y, _ = loaded[name][0]
        assert round(100 * y.mean(), 3) == rate, name
    # Fast-ONS paper, Sec. 4: both series in [-1, 1]; speech min-max equals x / 21298.
    _, y, meta = loaded["cmu_arctic_sample"][0]
    assert (meta["raw_min"], meta["raw_max"]) == (-21298.0, 21298.0)
    assert y.min() == -1.0 and y.max() == 1.0
    _, y, meta = loaded["temperature_whately"][0]
    assert (meta["raw_min"], meta["raw_max"]) == (-26.63, 34.63)
    # whole-file min-max: the first 500 samples lie in [-0.64, -0.02] (2 decimals)
    assert round(y[:500].min(), 2) == -0.64 and y[:500].max() <= -0.02


@pytest.mark.parametrize(
    "name,files,d",
    [
        ("german", ["german.numer"], 24),
        ("codrna", ["cod-rna"], 8),
        ("w7a", ["w7a"], 300),
        ("ijcnn1", ["ijcnn1.bz2", "ijcnn1.t.bz2"], 22),
    ],
)
def test_libsvm_parser_matches_sklearn_on_real_files(loaded, name, files, d):
    from sklearn.datasets import load_svmlight_file

    X, y, _ = loaded[name][0]  # skips when the dataset is not in the data folder
    Xs, ys = [], []
    for f in files:
        raw = (DATA / "libsvm" / f).read_bytes()
        if f.endswith(".bz2"):
            raw = bz2.decompress(raw)
        Xf, yf = load_svmlight_file(io.BytesIO(raw), n_features=d, zero_based=False)
        Xs.append(Xf.toarray())
        ys.append(yf)
    assert_array_equal(X, np.vstack(Xs))
    assert_array_equal(y, (np.concatenate(ys) > 0).astype(np.int64))


def test_parts_and_variants():
    (Xtr, ytr), (Xte, yte), meta = load_split("mnist", DATA)
    assert Xtr.shape == (60000, 784) and Xte.shape == (10000, 784)
    assert np.bincount(ytr).tolist() == [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949]
    assert np.bincount(yte).tolist() == [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]
    assert (meta["n_train"], meta["n_test"]) == (60000, 10000)
    for name, n_tr, n_te in (
        ("usps", 7291, 2007),
        ("segment", 210, 2100),
        ("adult", 30162, 15060),
        ("shuttle", 43500, 14500),
        ("w7a", 24692, 25057),
        ("ijcnn1", 49990, 91701),
        ("svmguide3_csv", 1243, 41),
    ):
        (Xtr, _), (Xte, _), _ = load_split(name, DATA)
        assert (Xtr.shape[0], Xte.shape[0]) == (n_tr, n_te), name
    Xs, ys, _ = load_dataset("german", DATA, variant="numer_scale")
    X, y, _ = load_dataset("german", DATA)
    assert_array_equal(ys, y)
    assert Xs.min() >= -1 and Xs.max() <= 1
    lo, hi = X.min(axis=0), X.max(axis=0)
    scaled = 2 * (X - lo) / np.where(hi > lo, hi - lo, 1) - 1
    assert np.abs(scaled - Xs).max() < 1e-6  # german.numer_scale = min-max of numer


@pytest.mark.parametrize("base,r,d", [("german", 10, 24), ("codrna", 20, 8)])
def test_adversarial_on_real_bases(base, r, d):
    stream = AdversarialStream(base=base, n_blocks=500, repeats=r, seed=1, data_dir=DATA)
    X, y = stream.to_arrays()
    assert X.shape == (500 * r, d)
    blocks = y.reshape(500, r)
    assert (blocks == blocks[:, :1]).all()
    X0, y0, _ = load_dataset(base, DATA)
    first = X[::r]
    rows = [int(np.flatnonzero((X0 == row).all(axis=1))[0]) for row in first[:20]]
    flipped = np.array([y0[i] for i in rows]) != blocks[:20, 0]
    assert_array_equal(flipped, np.arange(20) % 2 == 1)


def test_streams_iterate_like_arrays():
    stream = REAL_STREAMS["german"](data_dir=DATA)
    X, y = stream.to_arrays()
    items = list(stream.take(3))
    assert len(items) == 3
    for i, (x, label) in enumerate(items):
        assert_array_equal(x, X[i])
        assert label == y[i]
    stream.check_available()
