"""LIBSVM / svmlight text (:mod:`streamlearn.datasets.formats.libsvm`) on tiny files,
checked against scikit-learn's ``load_svmlight_file`` (a test-only dependency) on random
files."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

from streamlearn.datasets.formats.libsvm import parse_libsvm
from streamlearn.errors import DataError


def test_libsvm_basic_file():
    data = b"+1 1:0.5 3:-2\n-1\n-1 2:1e-3 4:7 # comment 5:9\n1.0 4:1\n"
    X, y = parse_libsvm(data)
    assert_array_equal(y, [1, -1, -1, 1])
    assert_array_equal(X, [[0.5, 0, -2, 0], [0, 0, 0, 0], [0, 1e-3, 0, 7], [0, 0, 0, 1]])


def test_libsvm_declared_width_pads_and_crlf_is_accepted():
    X, y = parse_libsvm(b"-1 2:3\r\n+1 1:1 \r\n", n_features=5)
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
        parse_libsvm(data, source="f.svm")


def test_libsvm_error_gives_the_line_number():
    with pytest.raises(DataError, match="at line 3"):
        parse_libsvm(b"+1 1:1\n-1 2:1\n+1 2:x\n")


def test_libsvm_index_above_declared_width():
    with pytest.raises(DataError, match="exceeds the declared 3"):
        parse_libsvm(b"+1 4:1\n", n_features=3)


def test_libsvm_nan_value_passes_through():
    X, _ = parse_libsvm(b"+1 1:nan 2:inf\n")
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
    ours_X, ours_y = parse_libsvm(data, n_features=6)
    ref_X, ref_y = load_svmlight_file(io.BytesIO(data), n_features=6)
    assert_array_equal(ours_X, ref_X.toarray())
    assert_array_equal(ours_y, ref_y)
    assert_array_equal(ours_X, X)


def test_libsvm_bad_index_names_the_first_one_in_the_file_and_its_field():
    # the first bad index in the file, not the smallest: line 2 before line 3
    with pytest.raises(DataError, match=r"index -1 < 1 in f at line 2, field 3 \('-1:2'"):
        parse_libsvm(b"+1 1:1\n-1 2:1 -1:2\n+1 -5:1\n", source="f")
