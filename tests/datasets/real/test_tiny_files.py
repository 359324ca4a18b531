"""The real-data streams on tiny files (:mod:`streamlearn.datasets.real`): each loader of a
dataset, including those not stored in the shared folder (CoverType, KuaiRec, small NORB,
svmguide3 in LIBSVM form, cod-rna.t, the full CMU ARCTIC tarball, the UMass temperature
trace), runs on a tiny file written here in the official format, with the dataset's
reference hashes re-pinned to it so that the verified code path is the one exercised;
registration, metadata without files, bad parameters, the parsed cache, the NaN policy and
the adversarial block stream. No real data needed.
"""

from __future__ import annotations

import bz2
import gzip
import io
import struct
import tarfile
import zipfile

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from streamlearn.datasets.catalogue import DATASETS
from streamlearn.datasets.real.base import REAL_STREAMS, apply_nan_policy, load_dataset, load_split
from streamlearn.datasets.real.forks import AdversarialStream
from streamlearn.datasets.store import parsed_cache
from streamlearn.errors import DataError, UserError
from tests.datasets import tiny_data
from tests.datasets.tiny_data import (
    KUAI_HEADER,
    covtype_rows,
    pin,
    table_text,
    write,
    write_covtype,
    write_kuairec,
)

isolated = tiny_data.isolated
ddir = tiny_data.ddir


def test_stream_check_available_and_load_fail_on_wrong_hash(ddir):
    write(ddir, "letter/letter-recognition.data", b"A,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0\n")
    stream = REAL_STREAMS["letter"](data_dir=ddir)
    with pytest.raises(DataError, match="Checksum mismatch"):
        stream.check_available()
    with pytest.raises(DataError, match="Checksum mismatch"):
        stream.to_arrays()


def test_info_without_files(ddir):
    info = REAL_STREAMS["covtype"](data_dir=ddir).info()
    assert (info.n_samples, info.n_features, info.n_classes) == (581012, 54, 7)
    info = REAL_STREAMS["mnist"](data_dir=ddir, part="train").info()
    assert (info.n_samples, info.n_features) == (60000, 784)
    assert REAL_STREAMS["codrna"](data_dir=ddir).info().n_samples == 59535
    assert REAL_STREAMS["ijcnn1"](data_dir=ddir).info().n_samples == 141691
    assert REAL_STREAMS["smallnorb"](data_dir=ddir).info().n_features == 2048
    assert REAL_STREAMS["smallnorb"](data_dir=ddir, image_size=96).info().n_features == 18432
    with pytest.raises(DataError):  # unknown size: needs the file
        REAL_STREAMS["kuairec"](data_dir=ddir).info()


def test_every_stream_is_registered_with_a_spec_and_docstring():
    from streamlearn.registry import STREAMS

    for name, cls in REAL_STREAMS.items():
        assert STREAMS[name] is cls
        assert (cls.__doc__ or "").strip()
        if name != "adversarial":
            assert cls.dataset in DATASETS
            assert cls.natural_order == DATASETS[cls.dataset].natural_order
            assert cls.task == DATASETS[cls.dataset].task
    for name in (
        "electricity",
        "covtype",
        "kuairec",
        "adversarial",
        "cmu_arctic",
        "cmu_arctic_sample",
        "temperature",
        "temperature_whately",
    ):
        assert REAL_STREAMS[name].natural_order, name
    for name in (
        "segment",
        "usps",
        "letter",
        "adult",
        "shuttle",
        "mnist",
        "german",
        "spambase",
        "codrna",
        "w7a",
        "ijcnn1",
        "smallnorb",
        "svmguide3",
        "svmguide3_csv",
    ):
        assert not REAL_STREAMS[name].natural_order, name


def test_invalid_parameters_are_user_errors():
    with pytest.raises(UserError, match="nan_policy"):
        REAL_STREAMS["letter"](nan_policy="ignore")
    with pytest.raises(UserError, match="part"):
        REAL_STREAMS["mnist"](part="validation")
    with pytest.raises(UserError, match="base"):
        AdversarialStream(base="mnist")
    with pytest.raises(UserError, match="no parameter 'parts'"):
        load_dataset("mnist", parts="train")
    with pytest.raises(UserError, match="no official train/test split"):
        load_split("letter")


# --------------------------------------------------------------------------------------
# CoverType on a tiny file: parsing, the cache, bad data
# --------------------------------------------------------------------------------------


def test_covtype_tiny_file_and_cache(monkeypatch, ddir):
    rows = covtype_rows(50)
    write_covtype(ddir, table_text(rows))
    pin(monkeypatch, "covtype", ddir)
    X, y, meta = load_dataset("covtype", ddir)
    assert_array_equal(X, rows[:, :54])
    assert_array_equal(y, rows[:, 54] - 1)
    assert X.dtype == np.float64 and y.dtype == np.int64
    assert not meta["from_cache"] and meta["natural_order"]
    assert meta["class_counts"] == np.bincount(rows[:, 54] - 1, minlength=7).tolist()
    X2, y2, meta2 = load_dataset("covtype", ddir)
    assert meta2["from_cache"]
    assert_array_equal(X2, X)
    assert_array_equal(y2, y)
    assert len(list(parsed_cache.parsed_cache_dir().glob("covtype-*.npz"))) == 1


def test_covtype_cache_invalidated_when_file_changes(monkeypatch, ddir):
    write_covtype(ddir, table_text(covtype_rows(5, seed=1)))
    pin(monkeypatch, "covtype", ddir)
    load_dataset("covtype", ddir)
    rows = covtype_rows(7, seed=2)
    write_covtype(ddir, table_text(rows))
    pin(monkeypatch, "covtype", ddir)
    X, _, meta = load_dataset("covtype", ddir)
    assert not meta["from_cache"]
    assert_array_equal(X, rows[:, :54])


@pytest.mark.parametrize("how", ["rewrite", "rename"])
def test_a_file_replaced_while_it_is_parsed_is_never_cached(monkeypatch, ddir, how):
    """The bytes parsed must be the bytes hashed: a file rewritten (or swapped in by a
    rename) between the checksum and the parse, then put back, had left the other file's
    arrays in the parsed cache under the verified hash, served as verified until a
    cache-clear (18 of 40 loads under a real rename race, hunt of 7 Dec)."""
    import os
    import shutil

    good = covtype_rows(6, seed=3)
    write_covtype(ddir, table_text(good))
    pin(monkeypatch, "covtype", ddir)
    path = next(p for p in ddir.rglob("covtype*") if p.is_file())
    keep = path.with_name("good.bak")
    shutil.copyfile(path, keep)
    bad_text = table_text(covtype_rows(6, seed=4))
    cls = REAL_STREAMS["covtype"]
    parse = cls._parse

    def racing_parse(self, paths):
        if how == "rewrite":
            write_covtype(ddir, bad_text)
        else:
            other = path.with_name("bad.tmp")
            shutil.copyfile(path, other)
            os.replace(other, path)
        try:
            return parse(self, paths)
        finally:
            shutil.copyfile(keep, path)  # the good bytes are back before the check

    monkeypatch.setattr(cls, "_parse", racing_parse)
    with pytest.raises(DataError, match="changed while it was read"):
        load_dataset("covtype", ddir)
    assert parsed_cache.entries() == []
    monkeypatch.setattr(cls, "_parse", parse)
    X, _, meta = load_dataset("covtype", ddir)
    assert not meta["from_cache"]
    assert_array_equal(X, good[:, :54])


def test_cache_can_be_disabled(monkeypatch, ddir):
    write_covtype(ddir, table_text(covtype_rows(3)))
    pin(monkeypatch, "covtype", ddir)
    monkeypatch.setenv("STREAMLEARN_PARSED_CACHE", "0")
    load_dataset("covtype", ddir)
    _, _, meta = load_dataset("covtype", ddir)
    assert not meta["from_cache"]
    assert not parsed_cache.parsed_cache_dir().exists()


@pytest.mark.parametrize(
    "mutate,match",
    [
        (lambda t: t.replace(",", ";", 3), "Malformed data"),  # wrong delimiter -> one column
        (
            lambda t: t.split("\n", 1)[0].rsplit(",", 1)[0] + "\n" + t.split("\n", 1)[1],
            "number of columns changed",
        ),
        (lambda t: t.replace("\n", ",1\n"), "expected 55, found 56"),
        (lambda t: "x" + t, "could not convert"),
        (lambda t: "", "empty"),
        (lambda t: t.replace(",7\n", ",9\n").replace(",1\n", ",9\n"), "Invalid class label"),
    ],
)
def test_covtype_bad_data(monkeypatch, ddir, mutate, match):
    rows = covtype_rows(20, seed=3)
    rows[0, 54] = 7
    write_covtype(ddir, mutate(table_text(rows)))
    pin(monkeypatch, "covtype", ddir)
    with pytest.raises(DataError, match=match):
        load_dataset("covtype", ddir)
    assert parsed_cache.entries() == []


def test_covtype_truncated_gzip(monkeypatch, ddir):
    path = write_covtype(ddir, table_text(covtype_rows(200)))
    path.write_bytes(path.read_bytes()[:-30])
    pin(monkeypatch, "covtype", ddir)
    with pytest.raises(DataError, match="truncated or corrupt"):
        load_dataset("covtype", ddir)


def test_nan_policy(monkeypatch, ddir):
    rows = covtype_rows(4).astype(object)
    rows[1, 2] = "nan"
    rows[3, 2] = "inf"
    rows[0, 5] = "NaN"
    write_covtype(ddir, table_text(rows))
    pin(monkeypatch, "covtype", ddir)
    with pytest.raises(DataError, match=r"3 non-finite feature value\(s\).*row 0, column 5"):
        load_dataset("covtype", ddir)
    X, _, meta = load_dataset("covtype", ddir, nan_policy="impute")
    assert meta["nan_imputed"] == 3
    assert X[1, 2] == X[3, 2] == np.mean([float(rows[0, 2]), float(rows[2, 2])])
    assert X[0, 5] == np.mean([float(v) for v in rows[1:, 5]])
    assert np.isfinite(X).all()


def test_apply_nan_policy_column_without_finite_values():
    X = np.array([[np.nan, 1.0], [np.inf, 2.0]])
    with pytest.raises(DataError, match="column 0 has no finite value"):
        apply_nan_policy(X, "impute", "toy")
    same, n = apply_nan_policy(np.ones((2, 2)), "raise", "toy")
    assert n == 0 and same.shape == (2, 2)


# --------------------------------------------------------------------------------------
# Other loaders on tiny files in the official formats
# --------------------------------------------------------------------------------------


def idx_gz(arr: np.ndarray) -> bytes:
    head = struct.pack(">HBB", 0, 0x08, arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape)
    return gzip.compress(head + arr.tobytes())


def test_mnist_tiny_idx_files_and_split(monkeypatch, ddir):
    rng = np.random.default_rng(0)
    tr = rng.integers(0, 256, (5, 28, 28), dtype=np.uint8)
    te = rng.integers(0, 256, (3, 28, 28), dtype=np.uint8)
    ytr, yte = np.array([0, 1, 2, 3, 9], np.uint8), np.array([5, 5, 7], np.uint8)
    write(ddir, "mnist/train-images-idx3-ubyte.gz", idx_gz(tr))
    write(ddir, "mnist/train-labels-idx1-ubyte.gz", idx_gz(ytr))
    write(ddir, "mnist/t10k-images-idx3-ubyte.gz", idx_gz(te))
    write(ddir, "mnist/t10k-labels-idx1-ubyte.gz", idx_gz(yte))
    pin(monkeypatch, "mnist", ddir)
    X, y, _ = load_dataset("mnist", ddir)
    assert X.shape == (8, 784)
    assert_array_equal(X, np.concatenate([tr, te]).reshape(8, 784) / 255.0)
    assert_array_equal(y, [0, 1, 2, 3, 9, 5, 5, 7])
    (Xtr, ytr2), (Xte, yte2), meta = load_split("mnist", ddir)
    assert_array_equal(ytr2, [0, 1, 2, 3, 9])
    assert_array_equal(Xtr, X[:5])
    assert_array_equal(Xte, X[5:])
    assert_array_equal(yte2, [5, 5, 7])
    assert (meta["n_train"], meta["n_test"]) == (5, 3)
    # labels that disagree with the images
    write(ddir, "mnist/t10k-labels-idx1-ubyte.gz", idx_gz(yte[:2]))
    pin(monkeypatch, "mnist", ddir)
    with pytest.raises(DataError, match="2 labels for 3 images"):
        load_dataset("mnist", ddir, part="test")


def norb_gz(arr: np.ndarray, magic: int) -> bytes:
    dims = list(arr.shape) + [1] * max(0, 3 - arr.ndim)
    head = struct.pack("<iI", magic, arr.ndim) + struct.pack(f"<{len(dims)}i", *dims)
    return gzip.compress(head + arr.astype(arr.dtype.newbyteorder("<")).tobytes())


def test_smallnorb_tiny_mat_files(monkeypatch, ddir):
    rng = np.random.default_rng(0)
    for spec in DATASETS["smallnorb"].files:
        n = 3 if spec.group == "train" else 2
        if spec.path.endswith("-dat.mat.gz"):
            arr, magic = rng.integers(0, 256, (n, 2, 96, 96), dtype=np.uint8), 0x1E3D4C55
        elif spec.path.endswith("-cat.mat.gz"):
            arr, magic = np.arange(n, dtype=np.int32) % 5, 0x1E3D4C54
        else:
            arr, magic = np.zeros((n, 4), dtype=np.int32), 0x1E3D4C54
        write(ddir, spec.path, norb_gz(arr, magic))
    pin(monkeypatch, "smallnorb", ddir)
    X, y, meta = load_dataset("smallnorb", ddir)
    assert X.shape == (5, 2048)
    assert_array_equal(y, [0, 1, 2, 0, 1])
    assert meta["class_counts"] == [2, 2, 1, 0, 0]
    train_dat = next(
        f for f in DATASETS["smallnorb"].files if f.path.endswith("training-dat.mat.gz")
    )
    raw = np.frombuffer(gzip.decompress((ddir / train_dat.path).read_bytes())[24:], np.uint8)
    raw = raw.reshape(3, 2, 96, 96).astype(np.float64)
    expected = raw[0, 1, 3:6, 6:9].mean() / 255.0  # image 0, camera 1, block (1, 2)
    assert X[0, 1024 + 1 * 32 + 2] == pytest.approx(expected, rel=1e-12)
    Xfull, _, _ = load_dataset("smallnorb", ddir, part="train", image_size=96)
    assert_allclose(Xfull, raw.reshape(3, -1) / 255.0)


def test_libsvm_svmguide3_and_codrna_parts(monkeypatch, ddir):
    write(ddir, "libsvm/svmguide3", b"-1 1:0.5 21:1\n+1 2:-1\n-1 3:7.168048E-05\n")
    write(ddir, "libsvm/svmguide3.t", b"+1 22:2\n")
    pin(monkeypatch, "svmguide3", ddir)
    X, y, _ = load_dataset("svmguide3", ddir)
    assert X.shape == (3, 22)
    assert_array_equal(y, [0, 1, 0])
    assert X[2, 2] == 7.168048e-05
    X, y, _ = load_dataset("svmguide3", ddir, part="all")
    assert X.shape == (4, 22) and X[3, 21] == 2 and y[3] == 1

    write(ddir, "libsvm/cod-rna", b"-1 1:-766 2:128 3:0.14\n1 1:-726 8:0.2\n")
    pin(monkeypatch, "codrna", ddir)
    X, y, _ = load_dataset("codrna", ddir)
    assert X.shape == (2, 8) and y.tolist() == [0, 1]
    with pytest.raises(DataError, match=r"cod-rna\.t"):
        load_dataset("codrna", ddir, part="all")
    write(ddir, "libsvm/cod-rna.t", b"1 1:1\n")
    pin(monkeypatch, "codrna", ddir)
    X, y, _ = load_dataset("codrna", ddir, part="all")
    assert X.shape == (3, 8) and y.tolist() == [0, 1, 1]
    write(ddir, "libsvm/cod-rna.t", b"2 1:1\n")
    pin(monkeypatch, "codrna", ddir)
    with pytest.raises(DataError, match="expected -1 or \\+1"):
        load_dataset("codrna", ddir, part="test")


def test_ijcnn1_bz2_concatenation(monkeypatch, ddir):
    write(ddir, "libsvm/ijcnn1.bz2", bz2.compress(b"-1.0 1:0.5 22:1\n1.0 2:-1\n"))
    write(ddir, "libsvm/ijcnn1.t.bz2", bz2.compress(b"-1 3:0.25\n"))
    pin(monkeypatch, "ijcnn1", ddir)
    X, y, _ = load_dataset("ijcnn1", ddir)
    assert X.shape == (3, 22) and y.tolist() == [0, 1, 0] and X[2, 2] == 0.25


def test_kuairec_tiny_zip(monkeypatch, ddir):
    small = KUAI_HEADER + (
        "14,148,4381,6067,2020-07-05 05:27:48.378,20200705.0,1593898068.378,0.722\n"
        "21,183,11635,6100,2020-07-05 05:28:00.057,20200705.0,1593898000.0,1.907\n"
        "14,183,0,6100,,,,0.0\n"
        "21,148,5000,6067,2020-07-06 01:00:00.000,20200706.0,1593990000.0,0.76\n"
        "14,999,5000,6067,2020-07-06 02:00:00.000,20200706.0,1593999999.0,0.75\n"
    )
    write_kuairec(ddir, small)
    pin(monkeypatch, "kuairec", ddir)
    X, y, meta = load_dataset("kuairec", ddir)
    # sorted by timestamp; the row without a timestamp dropped
    assert meta["rows_dropped_without_timestamp"] == 1
    assert y.tolist() == [1, 0, 1, 0]  # 1.907, 0.722, 0.76, 0.75 (not > 0.75)
    assert meta["feature_names"] == [
        "is_lowactive_period",
        "follow_user_num",
        "register_days",
        "onehot_feat0",
        "video_duration",
        "show_cnt",
        "play_cnt",
    ]
    assert_array_equal(X[0], [1, 120, 30, 0, 6100, 50, 20])  # user 21, video 183, 0705
    assert_array_equal(X[2], [1, 120, 30, 0, 6067, 110, 90])  # user 21, video 148, 0706
    assert_array_equal(X[3], [0, 5, 107, 1, 0, 0, 0])  # video 999: no item features -> 0
    assert load_dataset("kuairec", ddir, threshold=0.7)[1].tolist() == [1, 1, 1, 1]
    assert REAL_STREAMS["kuairec"](data_dir=ddir).info().n_features == 7


def test_kuairec_bad_archives(monkeypatch, ddir):
    path = write_kuairec(ddir, KUAI_HEADER + "14,148,1,2,t,20200705,1.0,0.5\n")
    path.write_bytes(path.read_bytes()[:100])
    pin(monkeypatch, "kuairec", ddir)
    with pytest.raises(DataError, match="not a valid zip"):
        load_dataset("kuairec", ddir)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("KuaiRec 2.0/data/small_matrix.csv", KUAI_HEADER)
    write(ddir, "kuairec/KuaiRec.zip", buf.getvalue())
    pin(monkeypatch, "kuairec", ddir)
    with pytest.raises(DataError, match=r"lacks user_features\.csv"):
        load_dataset("kuairec", ddir)


def wav(samples: np.ndarray, rate: int = 16000) -> bytes:
    from scipy.io import wavfile

    buf = io.BytesIO()
    wavfile.write(buf, rate, samples)
    return buf.getvalue()


def test_cmu_arctic_tarball(monkeypatch, ddir):
    utts = {
        "arctic_b0001": np.array([5, 6], np.int16),
        "arctic_a0002": np.array([-100, 3], np.int16),
        "arctic_a0001": np.array([0, 100, 50], np.int16),
    }
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:bz2") as tar:
        for name, samples in utts.items():
            data = wav(samples)
            info = tarfile.TarInfo(f"cmu_us_bdl_arctic/wav/{name}.wav")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        note = b'( arctic_a0001 "Author of the danger trail." )\n'
        info = tarfile.TarInfo("cmu_us_bdl_arctic/etc/txt.done.data")
        info.size = len(note)
        tar.addfile(info, io.BytesIO(note))
    write(ddir, "cmu_arctic/cmu_us_bdl_arctic.tar.bz2", buf.getvalue())
    pin(monkeypatch, "cmu_arctic", ddir)
    X, y, meta = load_dataset("cmu_arctic", ddir)
    raw = np.array([0, 100, 50, -100, 3, 5, 6], dtype=np.float64)  # a0001, a0002, b0001
    assert_allclose(y, 2 * (raw + 100) / 200 - 1)
    assert_array_equal(X[:, 0], y)
    assert meta["n_utterances"] == 3 and meta["raw_min"] == -100 and meta["raw_max"] == 100
    _, y2, _ = load_dataset("cmu_arctic", ddir, scaling="maxabs")
    assert_allclose(y2, raw / 100)
    with pytest.raises(DataError, match="cmu_us_rms_arctic"):
        load_dataset("cmu_arctic", ddir, speaker="rms")


def test_cmu_arctic_sample_rejects_wrong_rate_and_truncation(monkeypatch, ddir):
    files = DATASETS["cmu_arctic_sample"].files
    for k, f in enumerate(files):
        write(ddir, f.path, wav(np.array([k, -k, 2 * k], np.int16)))
    pin(monkeypatch, "cmu_arctic_sample", ddir)
    X, y, meta = load_dataset("cmu_arctic_sample", ddir)
    assert X.shape == (27, 1) and y.min() == -1 and y.max() == 1
    assert meta["n_utterances"] == 9
    write(ddir, files[3].path, wav(np.array([1, 2], np.int16), rate=8000))
    pin(monkeypatch, "cmu_arctic_sample", ddir)
    with pytest.raises(DataError, match="8000 Hz"):
        load_dataset("cmu_arctic_sample", ddir)
    write(ddir, files[3].path, wav(np.arange(100, dtype=np.int16))[:-40])
    pin(monkeypatch, "cmu_arctic_sample", ddir)
    with pytest.raises(DataError, match="truncated"):
        load_dataset("cmu_arctic_sample", ddir)


def test_umass_temperature_csv(monkeypatch, ddir):
    text = "time,TempOut,humidity\n1,10.0,3\n2,---,3\n3,20.0,3\n4,,3\n5,15,3\n"
    write(ddir, "temperature/umass_davis_temperature.csv", text.encode())
    pin(monkeypatch, "temperature", ddir)
    X, y, meta = load_dataset("temperature", ddir)
    assert_allclose(y, [-1, 1, 0])
    assert_array_equal(X[:, 0], y)
    assert meta["n_dropped_non_numeric"] == 2
    with pytest.raises(DataError, match="constant"):
        load_dataset("temperature", ddir, column="humidity")
    with pytest.raises(DataError, match="no column 'temp'"):
        load_dataset("temperature", ddir, column="temp")


def test_whately_csv_rejects_non_numeric(monkeypatch, ddir):
    text = "timestamp,temp_c\n2012-01-03 05:30:00,-2.954\n2012-01-03 05:40:00,oops\n"
    write(
        ddir,
        "temperature/macleish_whately_temp_10min_2012-2016.csv.gz",
        gzip.compress(text.encode()),
    )
    pin(monkeypatch, "temperature_whately", ddir)
    with pytest.raises(DataError, match=r"'oops'.*row 2"):
        load_dataset("temperature_whately", ddir)
    text = (
        "timestamp,temp_c\n2012-01-03 05:30:00,-2.954\n2012-01-03 05:40:00,\n"
        "2012-01-03 05:50:00,1.0\n"
    )
    write(
        ddir,
        "temperature/macleish_whately_temp_10min_2012-2016.csv.gz",
        gzip.compress(text.encode()),
    )
    pin(monkeypatch, "temperature_whately", ddir)
    with pytest.raises(DataError, match="non-finite"):
        load_dataset("temperature_whately", ddir)
    _, y, _ = load_dataset("temperature_whately", ddir, nan_policy="impute")
    raw = np.array([-2.954, (-2.954 + 1.0) / 2, 1.0])
    assert_allclose(y, 2 * (raw - raw.min()) / (raw.max() - raw.min()) - 1)


def test_adult_tiny_files(monkeypatch, ddir):
    row = (
        "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, "
        "White, Male, 2174, 0, 40, United-States, "
    )
    write(
        ddir,
        "adult/adult.data",
        (
            row
            + "<=50K\n"
            + row.replace("State-gov", "Private")
            + ">50K\n"
            + row.replace("State-gov", "?")
            + ">50K\n\n"
        ).encode(),
    )
    write(
        ddir,
        "adult/adult.test",
        ("|1x3 Cross validator\n" + row.replace("Male", "Female") + ">50K.\n").encode(),
    )
    pin(monkeypatch, "adult", ddir)
    X, y, _ = load_dataset("adult", ddir)
    assert X.shape == (3, 14)
    assert y.tolist() == [0, 1, 1]
    assert X[:, 1].tolist() == [1, 0, 1]  # Private < State-gov (sorted)
    assert X[:, 9].tolist() == [1, 1, 0]  # Female < Male
    assert X[0, 2] == 77516
    Xte, yte, _ = load_dataset("adult", ddir, part="test")
    assert_array_equal(Xte, X[2:]) and yte.tolist() == [1]


def test_segment_and_electricity_tiny_files(monkeypatch, ddir):
    header = ";;; -*- Mode:Common-Lisp -*-\n;;; x\n\nREGION-CENTROID-COL,REST\n\n"
    vals = ",".join(str(k) for k in range(19))
    write(ddir, "segmentation/segmentation.data", (header + f"SKY,{vals}\n").encode())
    write(
        ddir,
        "segmentation/segmentation.test",
        (header + f"BRICKFACE,{vals}\nWINDOW,{vals}\n").encode(),
    )
    pin(monkeypatch, "segment", ddir)
    X, y, _ = load_dataset("segment", ddir)
    assert X.shape == (3, 19) and y.tolist() == [5, 0, 6]
    arff = (
        "@relation elec\n@attribute date numeric\n@attribute day {1,2,3,4,5,6,7}\n"
        "@attribute period numeric\n@attribute nswprice numeric\n@attribute nswdemand numeric\n"
        "@attribute vicprice numeric\n@attribute vicdemand numeric\n@attribute transfer numeric\n"
        "@attribute class {UP,DOWN}\n@data\n0,2,0,0.056443,0.439155,0.003467,0.422915,0.414912,UP\n"
        "0,2,0.021277,0.051699,0.415055,0.003467,0.422915,0.414912,DOWN\n"
    )
    write(ddir, "elec2/elecNormNew.arff", arff.encode())
    pin(monkeypatch, "electricity", ddir)
    X, y, _ = load_dataset("electricity", ddir)
    assert_array_equal(X[1], [0.021277, 0.051699, 0.415055, 0.003467, 0.422915, 0.414912])
    assert y.tolist() == [1, 0]


# --------------------------------------------------------------------------------------
# The adversarial block stream (FORKS paper, Sec. 5.2)
# --------------------------------------------------------------------------------------


@pytest.fixture
def tiny_german(monkeypatch, ddir):
    rng = np.random.default_rng(0)
    lines = []
    for i in range(40):
        lab = "+1" if i % 3 == 0 else "-1"
        lines.append(f"{lab} 1:{i} " + " ".join(f"{j}:{rng.integers(1, 9)}" for j in range(2, 25)))
    write(ddir, "libsvm/german.numer", ("\n".join(lines)).encode())
    pin(monkeypatch, "german", ddir)
    return ddir


@pytest.mark.parametrize("seed", range(3))
def test_adversarial_blocks(tiny_german, seed):
    X0, y0, _ = load_dataset("german", tiny_german)
    stream = AdversarialStream(
        base="german", n_blocks=7, repeats=4, seed=seed, data_dir=tiny_german
    )
    X, y = stream.to_arrays()
    assert X.shape == (28, 24) and y.dtype == np.int64
    ids = X[:, 0].astype(int)  # feature 1 is the instance id here
    assert len(set(ids[::4])) == 7  # drawn without replacement
    for b in range(7):
        block = slice(4 * b, 4 * b + 4)
        assert (ids[block] == ids[4 * b]).all()
        assert_array_equal(X[block], np.repeat(X0[ids[4 * b]][None], 4, axis=0))
        expected = y0[ids[4 * b]] if b % 2 == 0 else 1 - y0[ids[4 * b]]  # blocks 2, 4, ... flip
        assert (y[block] == expected).all()
    X2, y2 = stream.to_arrays()
    assert_array_equal(X2, X)
    assert_array_equal(y2, y)
    Xo, _ = AdversarialStream(
        n_blocks=7, repeats=4, seed=seed + 100, data_dir=tiny_german
    ).to_arrays()
    assert not np.array_equal(Xo, X)
    info = stream.info()
    assert (info.n_samples, info.n_features, info.n_classes) == (28, 24, 2)
    _, _, meta = stream.load()
    assert meta["natural_order"] and meta["n_samples"] == 28


def test_adversarial_too_many_blocks(tiny_german):
    with pytest.raises(UserError, match="exceeds the 40 instances"):
        AdversarialStream(n_blocks=41, repeats=2, data_dir=tiny_german).to_arrays()
    with pytest.raises(DataError, match="codrna"):
        AdversarialStream(base="codrna", data_dir=tiny_german).check_available()




def test_kuairec_column_in_both_side_tables(monkeypatch, ddir):
    """KuaiRec 2.0 has follow_user_num in the user and the daily item table: both kept."""
    path = write_kuairec(ddir, KUAI_HEADER + (
        "21,183,11635,6100,2020-07-05 05:28:00.057,20200705.0,1593898000.0,1.907\n"))
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    members["KuaiRec 2.0/data/item_daily_features.csv"] = (
        b"video_id,date,video_duration,follow_user_num\n183,20200705,6100,7\n")
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    pin(monkeypatch, "kuairec", ddir)
    X, _, meta = load_dataset("kuairec", ddir)
    assert meta["feature_names"][-2:] == ["video_duration", "item_follow_user_num"]
    assert_array_equal(X[0], [1, 120, 30, 0, 6100, 7])
