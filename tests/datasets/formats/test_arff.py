"""Dense ARFF (:mod:`streamlearn.datasets.formats.arff`): a well-formed file and the
header and data errors, each naming its line."""

from __future__ import annotations

import pytest
from numpy.testing import assert_array_equal

from streamlearn.datasets.formats.arff import parse_arff
from streamlearn.datasets.formats.tables import to_float_columns
from streamlearn.errors import DataError

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
    arff = parse_arff(ARFF)
    assert arff.relation == "electricity"
    assert arff.names == ["date", "day", "period", "class"]
    assert arff.types[1] == [str(k) for k in range(1, 8)]
    assert arff.types[3] == ["UP", "DOWN"]
    assert arff.types[2] == "numeric"
    assert_array_equal(to_float_columns(arff.table, [arff.column("period")]), [[0], [0.021277]])
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
        parse_arff(text, source="x.arff")


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
        parse_arff(text, source="x.arff")
