"""Parsers of the official dataset formats, on tiny files written by the tests.

No real data needed: corrupt and truncated archives, ragged rows, non-numeric values,
NaN/inf, empty files, and one well-formed example per format (UCI text, LIBSVM, ARFF,
IDX, the smallNORB binary matrix, WAV, CSV with header). The LIBSVM parser is checked
against scikit-learn's ``load_svmlight_file`` (a test-only dependency) on random files.
"""

from __future__ import annotations

import bz2
import gzip
import io
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

from streamlearn.base import DataError
from streamlearn.datasets import _parsers as P

# --------------------------------------------------------------------------------------
# Containers
# --------------------------------------------------------------------------------------


def test_read_bytes_decompresses_gzip_and_bz2(tmp_path):
    payload = b"1 2 3\n4 5 6\n"
    (tmp_path / "a.gz").write_bytes(gzip.compress(payload))
    (tmp_path / "a.bz2").write_bytes(bz2.compress(payload))
    (tmp_path / "a.txt").write_bytes(payload)
    for name in ("a.gz", "a.bz2", "a.txt"):
        assert P.read_bytes(tmp_path / name) == payload
    assert P.read_bytes(tmp_path / "a.gz", decompress=False) != payload


@pytest.mark.parametrize("suffix,compress", [(".gz", gzip.compress), (".bz2", bz2.compress)])
def test_truncated_archive_is_an_error(tmp_path, suffix, compress):
    blob = compress(b"0123456789" * 1000)
    path = tmp_path / f"data{suffix}"
    path.write_bytes(blob[: len(blob) // 2])
    with pytest.raises(DataError, match="truncated or corrupt"):
        P.read_bytes(path)


@pytest.mark.parametrize("suffix", [".gz", ".bz2"])
def test_garbage_archive_is_an_error(tmp_path, suffix):
    path = tmp_path / f"data{suffix}"
    path.write_bytes(b"this is not compressed at all")
    with pytest.raises(DataError, match=str(path.name)):
        P.read_bytes(path)


def test_missing_file_is_a_data_error(tmp_path):
    with pytest.raises(DataError, match="Cannot read"):
        P.read_bytes(tmp_path / "nope.csv")


def test_decode_text_normalises_line_ends_and_rejects_binary():
    assert P.decode_text(b"a\r\nb\rc\n") == "a\nb\nc\n"
    with pytest.raises(DataError, match="Binary"):
        P.decode_text(b"\x00\x01\x02")


# --------------------------------------------------------------------------------------
# Delimited text
# --------------------------------------------------------------------------------------


def test_numeric_table_reads_uci_style_text():
    text = "1,2.5,3\n4,5,6e-1\n\n"
    arr = P.parse_numeric_table(text, delimiter=",", n_cols=3)
    assert_array_equal(arr, [[1, 2.5, 3], [4, 5, 0.6]])
    assert arr.dtype == np.float64


def test_numeric_table_whitespace_and_header_skip():
    text = "header line\n  1   2\n3\t4\n"
    assert_array_equal(P.parse_numeric_table(text, skip_rows=1), [[1, 2], [3, 4]])


@pytest.mark.parametrize("text", ["", "\n\n", "   \n"])
def test_empty_table_is_an_error(text):
    with pytest.raises(DataError, match="empty"):
        P.parse_numeric_table(text, source="f.csv")


def test_header_only_table_is_an_error():
    with pytest.raises(DataError, match="empty"):
        P.parse_numeric_table("a,b,c\n", delimiter=",", skip_rows=1)


def test_ragged_row_is_an_error():
    with pytest.raises(DataError, match="number of columns changed"):
        P.parse_numeric_table("1,2,3\n4,5\n6,7,8\n", delimiter=",", source="f.csv")


def test_extra_column_is_an_error():
    with pytest.raises(DataError, match=r"f\.csv"):
        P.parse_numeric_table("1,2,3\n4,5,6,7\n", delimiter=",", source="f.csv")


def test_wrong_column_count_is_an_error():
    with pytest.raises(DataError, match="expected 4, found 3"):
        P.parse_numeric_table("1,2,3\n4,5,6\n", delimiter=",", n_cols=4)


def test_non_numeric_value_is_an_error():
    with pytest.raises(DataError, match="abc"):
        P.parse_numeric_table("1,2\n3,abc\n", delimiter=",", source="f.csv")


def test_nan_and_inf_pass_through_to_the_caller():
    arr = P.parse_numeric_table("1,nan\ninf,-inf\n", delimiter=",")
    assert np.isnan(arr[0, 1]) and np.isposinf(arr[1, 0]) and np.isneginf(arr[1, 1])


def test_string_table_strips_and_checks():
    arr = P.parse_string_table("39, State-gov, <=50K\n50, Private, >50K.\n", delimiter=",")
    assert arr.tolist() == [["39", "State-gov", "<=50K"], ["50", "Private", ">50K."]]
    with pytest.raises(DataError, match="number of columns"):
        P.parse_string_table("a,b\nc\n", delimiter=",")


def test_to_float_columns_names_the_bad_cell():
    table = np.array([["1", "x"], ["2", "3"], ["4", "oops"]])
    assert_array_equal(P.to_float_columns(table, [0]), [[1], [2], [4]])
    with pytest.raises(DataError, match=r"'x'.*row 1, column 2"):
        P.to_float_columns(table, [0, 1], "t.csv")


def test_encode_labels_sorted_and_explicit():
    codes, classes = P.encode_labels(np.array(["b", "a", "c", "a"]))
    assert classes == ["a", "b", "c"]
    assert_array_equal(codes, [1, 0, 2, 0])
    codes, _ = P.encode_labels(np.array(["UP", "DOWN", "UP"]), ("DOWN", "UP"))
    assert_array_equal(codes, [1, 0, 1])
    codes, _ = P.encode_labels(np.array(["UP", "UP"]), ("DOWN", "UP"))
    assert_array_equal(codes, [1, 1])
    with pytest.raises(DataError, match="Unexpected class label 'SIDEWAYS'"):
        P.encode_labels(np.array(["UP", "SIDEWAYS"]), ("DOWN", "UP"))


# --------------------------------------------------------------------------------------
# LIBSVM
# --------------------------------------------------------------------------------------


def test_libsvm_basic_file():
    data = b"+1 1:0.5 3:-2\n-1\n-1 2:1e-3 4:7 # comment 5:9\n1.0 4:1\n"
    X, y = P.parse_libsvm(data)
    assert_array_equal(y, [1, -1, -1, 1])
    assert_array_equal(X, [[0.5, 0, -2, 0], [0, 0, 0, 0], [0, 1e-3, 0, 7], [0, 0, 0, 1]])


def test_libsvm_declared_width_pads_and_crlf_is_accepted():
    X, y = P.parse_libsvm(b"-1 2:3\r\n+1 1:1 \r\n", n_features=5)
    assert_array_equal(y, [-1, 1])
    assert X.shape == (2, 5)
    assert_array_equal(X[0], [0, 3, 0, 0, 0])


@pytest.mark.parametrize(
    "line,match",
    [
        (b"+1 3\n", "Malformed LIBSVM token '3'"),
        (b"+1 1:2:3 2\n", "Malformed LIBSVM token"),
        (b"+1 :5\n", "Malformed LIBSVM token ':5'"),
        (b"+1 4:\n", "Malformed LIBSVM token '4:'"),
        (b"+1 a:1\n", "Invalid feature index 'a'"),
        (b"+1 1.5:1\n", "Invalid feature index '1.5'"),
        (b"+1 1:x\n", "Invalid value 'x'"),
        (b"yes 1:1\n", "Non-numeric label 'yes'"),
        (b"+1 0:1\n", "index 0 < 1"),
        (b"+1 2:1 2:3\n", "index 2 repeated"),
        (b"", "empty"),
        (b"\n  \n", "empty"),
    ],
)
def test_libsvm_errors(line, match):
    data = b"-1 1:1\n" + line if line.strip() else line
    with pytest.raises(DataError, match=match):
        P.parse_libsvm(data, source="f.svm")


def test_libsvm_error_gives_the_line_number():
    with pytest.raises(DataError, match="at line 3"):
        P.parse_libsvm(b"+1 1:1\n-1 2:1\n+1 2:x\n")


def test_libsvm_index_above_declared_width():
    with pytest.raises(DataError, match="exceeds the declared 3"):
        P.parse_libsvm(b"+1 4:1\n", n_features=3)


def test_libsvm_nan_value_passes_through():
    X, _ = P.parse_libsvm(b"+1 1:nan 2:inf\n")
    assert np.isnan(X[0, 0]) and np.isinf(X[0, 1])


@settings(max_examples=40, deadline=None)
@given(
    dense=st.lists(
        st.lists(
            st.one_of(
                st.just(0.0),
                st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=32),
            ),
            min_size=6,
            max_size=6,
        ),
        min_size=1,
        max_size=30,
    ),
    labels=st.data(),
)
def test_libsvm_matches_sklearn(dense, labels):
    from sklearn.datasets import load_svmlight_file

    X = np.array(dense, dtype=np.float64)
    y = np.array(
        labels.draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=len(X), max_size=len(X)))
    )
    lines = []
    for row, lab in zip(X, y, strict=True):
        toks = [f"{lab:+g}"] + [f"{j + 1}:{float(v)!r}" for j, v in enumerate(row) if v != 0.0]
        lines.append(" ".join(toks))
    data = ("\n".join(lines) + "\n").encode()
    ours_X, ours_y = P.parse_libsvm(data, n_features=6)
    ref_X, ref_y = load_svmlight_file(io.BytesIO(data), n_features=6)
    assert_array_equal(ours_X, ref_X.toarray())
    assert_array_equal(ours_y, ref_y)
    assert_array_equal(ours_X, X)


# --------------------------------------------------------------------------------------
# ARFF
# --------------------------------------------------------------------------------------

ARFF = """% comment
@relation electricity

@attribute date numeric
@attribute day {1,2,3,4,5,6,7}
@attribute 'period' real
@attribute class {UP,DOWN}

@data
0,2,0,UP
0,2,0.021277,'DOWN'
% trailing comment
"""


def test_arff_dense_file():
    arff = P.parse_arff(ARFF)
    assert arff.relation == "electricity"
    assert arff.names == ["date", "day", "period", "class"]
    assert arff.types[1] == [str(k) for k in range(1, 8)]
    assert arff.types[3] == ["UP", "DOWN"]
    assert arff.types[2] == "numeric"
    assert_array_equal(P.to_float_columns(arff.table, [arff.column("period")]), [[0], [0.021277]])
    assert arff.table[:, 3].tolist() == ["UP", "DOWN"]
    with pytest.raises(DataError, match="not found"):
        arff.column("nope")


@pytest.mark.parametrize(
    "text,match",
    [
        ("@relation r\n@attribute a string\n@data\nx\n", "Unsupported ARFF attribute type"),
        ("@relation r\n@attribute a numeric\n@data\n{0 1}\n", "Sparse ARFF"),
        ("@relation r\n@attribute a numeric\n", "no @attribute/@data"),
        ("@relation r\n@attribute a numeric\n@data\n\n", "empty"),
        ("@relation r\n@attribute a numeric\n@attribute b numeric\n@data\n1,2\n3\n", "columns"),
        ("@relation r\n@attribute a numeric\n@attribute b numeric\n@data\n1,2,3\n", "columns"),
        ("hello\n", "Unexpected ARFF header line"),
    ],
)
def test_arff_errors(text, match):
    with pytest.raises(DataError, match=match):
        P.parse_arff(text, source="x.arff")


# --------------------------------------------------------------------------------------
# IDX (MNIST) and the smallNORB binary matrix
# --------------------------------------------------------------------------------------


def idx_bytes(arr: np.ndarray, code: int = 0x08) -> bytes:
    head = struct.pack(">HBB", 0, code, arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape)
    return head + arr.astype(arr.dtype.newbyteorder(">")).tobytes()


def test_idx_round_trip():
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(3, 28, 28), dtype=np.uint8)
    assert_array_equal(P.parse_idx(idx_bytes(images)), images)
    labels = np.array([7, 2, 1], dtype=np.uint8)
    assert_array_equal(P.parse_idx(idx_bytes(labels)), labels)
    ints = np.array([[1, -2], [300000, 4]], dtype=np.int32)
    out = P.parse_idx(idx_bytes(ints, 0x0C))
    assert_array_equal(out, ints)
    assert out.dtype == np.int32


def test_idx_errors():
    good = idx_bytes(np.zeros((2, 28, 28), dtype=np.uint8))
    with pytest.raises(DataError, match="bad magic"):
        P.parse_idx(b"\x01\x02" + good[2:])
    with pytest.raises(DataError, match="truncated or corrupt"):
        P.parse_idx(good[:-1])
    with pytest.raises(DataError, match="truncated or corrupt"):
        P.parse_idx(good + b"\x00")
    with pytest.raises(DataError, match="too short"):
        P.parse_idx(b"\x00")


def norb_bytes(arr: np.ndarray, magic: int) -> bytes:
    dims = list(arr.shape) + [1] * max(0, 3 - arr.ndim)
    head = struct.pack("<iI", magic, arr.ndim) + struct.pack(f"<{len(dims)}i", *dims)
    return head + arr.astype(arr.dtype.newbyteorder("<")).tobytes()


def test_norb_mat_header_formats():
    rng = np.random.default_rng(1)
    dat = rng.integers(0, 256, size=(2, 2, 96, 96), dtype=np.uint8)
    assert_array_equal(P.parse_norb_mat(norb_bytes(dat, 0x1E3D4C55)), dat)
    cat = np.array([4, 0], dtype=np.int32)  # 1-D: header still stores 3 dims (2, 1, 1)
    blob = norb_bytes(cat, 0x1E3D4C54)
    assert len(blob) == 8 + 12 + 8
    assert_array_equal(P.parse_norb_mat(blob), cat)
    info = rng.integers(0, 9, size=(2, 4)).astype(np.int32)
    assert_array_equal(P.parse_norb_mat(norb_bytes(info, 0x1E3D4C54)), info)


def test_norb_mat_errors():
    blob = norb_bytes(np.zeros((2, 2, 96, 96), dtype=np.uint8), 0x1E3D4C55)
    with pytest.raises(DataError, match="Not a smallNORB"):
        P.parse_norb_mat(b"\x00\x00\x00\x00" + blob[4:])
    with pytest.raises(DataError, match="truncated or corrupt"):
        P.parse_norb_mat(blob[:-10])
    with pytest.raises(DataError, match="too short"):
        P.parse_norb_mat(blob[:3])


# --------------------------------------------------------------------------------------
# WAV
# --------------------------------------------------------------------------------------


def wav_bytes(samples: np.ndarray, rate: int = 16000) -> bytes:
    from scipy.io import wavfile

    buf = io.BytesIO()
    wavfile.write(buf, rate, samples)
    return buf.getvalue()


def test_wav_round_trip():
    samples = np.array([0, 1, -1, 21298, -21298, 5], dtype=np.int16)
    rate, out = P.parse_wav(wav_bytes(samples))
    assert rate == 16000
    assert_array_equal(out, samples)
    assert out.dtype == np.int16


def test_wav_errors():
    blob = wav_bytes(np.arange(100, dtype=np.int16))
    with pytest.raises(DataError, match="Not a RIFF/WAVE"):
        P.parse_wav(b"ID3" + blob[3:], "x.wav")
    with pytest.raises(DataError, match="truncated"):
        P.parse_wav(blob[:-20], "x.wav")


# --------------------------------------------------------------------------------------
# CSV with header
# --------------------------------------------------------------------------------------


def test_csv_frame_kuairec_format():
    data = (
        b"user_id,video_id,play_duration,video_duration,time,date,timestamp,watch_ratio\n"
        b"14,148,4381,6067,2020-07-05 05:27:48.378,20200705.0,1593898068.378,0.722\n"
        b"14,183,11635,6100,2020-07-05 05:28:00.057,20200705.0,1593898080.057,1.907\n"
    )
    frame = P.parse_csv_frame(data, required=("user_id", "watch_ratio"))
    assert frame.shape == (2, 8)
    assert frame["watch_ratio"].tolist() == [0.722, 1.907]


def test_csv_frame_errors():
    with pytest.raises(DataError, match="empty"):
        P.parse_csv_frame(b"", source="x.csv")
    with pytest.raises(DataError, match="only a header"):
        P.parse_csv_frame(b"a,b\n")
    with pytest.raises(DataError, match="'c'"):
        P.parse_csv_frame(b"a,b\n1,2\n", required=("a", "c"))
    with pytest.raises(DataError, match="Malformed CSV"):
        P.parse_csv_frame(b"a,b\n1,2\n3,4,5\n")


@pytest.mark.parametrize(
    "text,match",
    [
        ("@relation r\n\n@attribute a strin\n@data\n1\n", r"x\.arff at line 3"),
        ("@relation r\n@attribute a numeric\n@attribute b {x,y\n@data\n1,x\n",
         r"x\.arff at line 3: .*closing"),
        ("@relation r\n@attribute a numeric\n@attribute b {x,x}\n@data\n1,x\n",
         r"x\.arff at line 3: .*distinct"),
        ("@relation r\n@attribute a numeric\n@attribute a numeric\n@data\n1,2\n",
         r"Duplicate ARFF attribute name 'a' in x\.arff at line 3"),
        ("@relation r\n@attribute a numeric\n1\n", r"x\.arff at line 3: '1' \(expected "
                                                    r"@relation, @attribute or @data"),
        ("@relation r\n@attribute\n@data\n1\n", r"x\.arff at line 2"),
    ],
)
def test_arff_header_errors_name_the_line(text, match):
    with pytest.raises(DataError, match=match):
        P.parse_arff(text, source="x.arff")


def test_libsvm_bad_index_names_the_first_one_in_the_file_and_its_field():
    # the first bad index in the file, not the smallest: line 2 before line 3
    with pytest.raises(DataError, match=r"index -1 < 1 in f at line 2, field 3 \('-1:2'"):
        P.parse_libsvm(b"+1 1:1\n-1 2:1 -1:2\n+1 -5:1\n", source="f")
