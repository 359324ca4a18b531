"""Delimited text (:mod:`streamlearn.datasets.formats.tables`): UCI-style numeric and
string tables, the column helpers, CSV with a header; empty, ragged and non-numeric input
is an error naming the place, NaN/inf pass through."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from streamlearn.datasets.formats.tables import (
    encode_labels,
    parse_csv_frame,
    parse_numeric_table,
    parse_string_table,
    to_float_columns,
)
from streamlearn.errors import DataError


def test_numeric_table_reads_uci_style_text():
    text = "1,2.5,3\n4,5,6e-1\n\n"
    arr = parse_numeric_table(text, delimiter=",", n_cols=3)
    assert_array_equal(arr, [[1, 2.5, 3], [4, 5, 0.6]])
    assert arr.dtype == np.float64


def test_numeric_table_whitespace_and_header_skip():
    text = "header line\n  1   2\n3\t4\n"
    assert_array_equal(parse_numeric_table(text, skip_rows=1), [[1, 2], [3, 4]])


@pytest.mark.parametrize("text", ["", "\n\n", "   \n"])
def test_empty_table_is_an_error(text):
    with pytest.raises(DataError, match="empty"):
        parse_numeric_table(text, source="f.csv")


def test_header_only_table_is_an_error():
    with pytest.raises(DataError, match="empty"):
        parse_numeric_table("a,b,c\n", delimiter=",", skip_rows=1)


def test_ragged_row_is_an_error():
    with pytest.raises(DataError, match="number of columns changed"):
        parse_numeric_table("1,2,3\n4,5\n6,7,8\n", delimiter=",", source="f.csv")


def test_extra_column_is_an_error():
    with pytest.raises(DataError, match=r"f\.csv"):
        parse_numeric_table("1,2,3\n4,5,6,7\n", delimiter=",", source="f.csv")


def test_wrong_column_count_is_an_error():
    with pytest.raises(DataError, match="expected 4, found 3"):
        parse_numeric_table("1,2,3\n4,5,6\n", delimiter=",", n_cols=4)


def test_non_numeric_value_is_an_error():
    with pytest.raises(DataError, match="abc"):
        parse_numeric_table("1,2\n3,abc\n", delimiter=",", source="f.csv")


def test_nan_and_inf_pass_through_to_the_caller():
    arr = parse_numeric_table("1,nan\ninf,-inf\n", delimiter=",")
    assert np.isnan(arr[0, 1]) and np.isposinf(arr[1, 0]) and np.isneginf(arr[1, 1])


def test_string_table_strips_and_checks():
    arr = parse_string_table("39, State-gov, <=50K\n50, Private, >50K.\n", delimiter=",")
    assert arr.tolist() == [["39", "State-gov", "<=50K"], ["50", "Private", ">50K."]]
    with pytest.raises(DataError, match="number of columns"):
        parse_string_table("a,b\nc\n", delimiter=",")


def test_to_float_columns_names_the_bad_cell():
    table = np.array([["1", "x"], ["2", "3"], ["4", "oops"]])
    assert_array_equal(to_float_columns(table, [0]), [[1], [2], [4]])
    with pytest.raises(DataError, match=r"'x'.*row 1, column 2"):
        to_float_columns(table, [0, 1], "t.csv")


def test_encode_labels_sorted_and_explicit():
    codes, classes = encode_labels(np.array(["b", "a", "c", "a"]))
    assert classes == ["a", "b", "c"]
    assert_array_equal(codes, [1, 0, 2, 0])
    codes, _ = encode_labels(np.array(["UP", "DOWN", "UP"]), ("DOWN", "UP"))
    assert_array_equal(codes, [1, 0, 1])
    codes, _ = encode_labels(np.array(["UP", "UP"]), ("DOWN", "UP"))
    assert_array_equal(codes, [1, 1])
    with pytest.raises(DataError, match="Unexpected class label 'SIDEWAYS'"):
        encode_labels(np.array(["UP", "SIDEWAYS"]), ("DOWN", "UP"))


# --------------------------------------------------------------------------------------
# CSV with header
# --------------------------------------------------------------------------------------


def test_csv_frame_kuairec_format():
    data = (
        b"user_id,video_id,play_duration,video_duration,time,date,timestamp,watch_ratio\n"
        b"14,148,4381,6067,2020-07-05 05:27:48.378,20200705.0,1593898068.378,0.722\n"
        b"14,183,11635,6100,2020-07-05 05:28:00.057,20200705.0,1593898080.057,1.907\n"
    )
    frame = parse_csv_frame(data, required=("user_id", "watch_ratio"))
    assert frame.shape == (2, 8)
    assert frame["watch_ratio"].tolist() == [0.722, 1.907]


def test_csv_frame_errors():
    with pytest.raises(DataError, match="empty"):
        parse_csv_frame(b"", source="x.csv")
    with pytest.raises(DataError, match="only a header"):
        parse_csv_frame(b"a,b\n")
    with pytest.raises(DataError, match="'c'"):
        parse_csv_frame(b"a,b\n1,2\n", required=("a", "c"))
    with pytest.raises(DataError, match="Malformed CSV"):
        parse_csv_frame(b"a,b\n1,2\n3,4,5\n")
