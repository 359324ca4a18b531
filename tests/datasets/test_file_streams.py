"""Your own data: CSV, ARFF, LIBSVM and NumPy file streams, the SHA-256 check before any
run, and errors that name the file, the line and the column."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from streamlearn.components import get_stream
from streamlearn.datasets.files import (
    ARFFStream,
    ChecksumMismatch,
    CSVStream,
    LIBSVMStream,
    NumpyStream,
)
from streamlearn.errors import DataError, UserError
from tests.cli_helpers import cli_exit_code as _run


def _blobs(n: int = 300, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = rng.normal(size=(n, 2)) + 3.0 * y[:, None]
    return X.round(6), y


def _write_csv(path: Path, X: np.ndarray, y: np.ndarray, header: bool = True,
               names: tuple[str, ...] = ("a", "b"), labels: tuple[str, ...] = ("lo", "mid", "hi"),
               target_first: bool = False) -> None:
    rows = []
    if header:
        rows.append(",".join(["cls", *names] if target_first else [*names, "cls"]))
    for xi, yi in zip(X, y, strict=True):
        cells = [repr(float(v)) for v in xi]
        rows.append(",".join([labels[yi], *cells] if target_first else [*cells, labels[yi]]))
    path.write_text("\n".join(rows) + "\n")


def test_csv_target_by_name_and_index_with_and_without_header(tmp_path):
    X, y = _blobs()
    _write_csv(tmp_path / "h.csv", X, y, target_first=True)
    _write_csv(tmp_path / "n.csv", X, y, header=False)
    by_name = CSVStream(path=str(tmp_path / "h.csv"), target="cls").to_arrays()
    by_index = CSVStream(path=str(tmp_path / "h.csv"), target=0).to_arrays()
    no_header = CSVStream(path=str(tmp_path / "n.csv")).to_arrays()  # header detected absent
    # labels "hi" < "lo" < "mid" sorted: codes follow the sorted label strings
    expected_y = np.array([("lo", "mid", "hi")[k] for k in y])
    order = {v: k for k, v in enumerate(sorted({"lo", "mid", "hi"}))}
    for Xs, ys in (by_name, by_index, no_header):
        np.testing.assert_array_equal(Xs, X)
        np.testing.assert_array_equal(ys, [order[v] for v in expected_y])
    forced = CSVStream(path=str(tmp_path / "h.csv"), target=0, header=False)
    with pytest.raises(DataError, match=r"h\.csv, line 1, column 1: 'a' is not a number"):
        forced.to_arrays()


def test_numeric_labels_are_ordered_as_numbers(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text("x,y\n0.5,10\n0.1,2\n0.3,2\n")
    _, y = CSVStream(path=str(p), target="y").to_arrays()
    np.testing.assert_array_equal(y, [1, 0, 0])  # 2 -> 0, 10 -> 1
    _, yr = get_stream("csv_regression")(path=str(p), target="y").to_arrays()
    np.testing.assert_array_equal(yr, [10.0, 2.0, 2.0])
    assert get_stream("csv_regression").task == "regression"


def test_a_regression_target_is_not_read_as_classes(tmp_path, capsys):
    """Real-valued targets under a classification stream: each value would have been a
    class of its own (2,000 rows, 2,000 classes, OCA 0.00, exit 0). Few non-integer labels
    (0.5 / 1.5) and many integer ones stay classes."""
    rng = np.random.default_rng(0)
    x, noise = rng.normal(size=400).tolist(), rng.normal(size=400).tolist()
    p = tmp_path / "d.csv"
    p.write_text("x,t\n" + "".join(f"{a!r},{2 * a + 0.1 * b!r}\n"
                                     for a, b in zip(x, noise, strict=True)))
    with pytest.raises(DataError, match=r"d\.csv, column t: 400 distinct numeric "
                                         r"labels in 400 rows, non-integer ones among them "
                                         r".*name: csv_regression"):
        CSVStream(path=str(p), target="t").to_arrays()
    np.savez(tmp_path / "d.npz", X=np.array(x)[:, None], y=np.array(x))
    with pytest.raises(DataError, match="a regression target, not classes"):
        NumpyStream(path=str(tmp_path / "d.npz")).to_arrays()
    _, yr = get_stream("csv_regression")(path=str(p), target="t").to_arrays()
    assert yr.size == 400
    p.write_text("x,t\n" + "".join(f"{a!r},{k % 2 + 0.5}\n" for k, a in enumerate(x)))
    assert set(CSVStream(path=str(p), target="t").to_arrays()[1].tolist()) == {0, 1}
    p.write_text("x,t\n" + "".join(f"{a!r},{k % 300}\n" for k, a in enumerate(x)))
    assert CSVStream(path=str(p), target="t").to_arrays()[1].max() == 299
    # from the CLI: exit 3 before anything is written
    p.write_text("x,t\n" + "".join(f"{a!r},{a / 3!r}\n" for a in x))
    cfg = _config(tmp_path, {"path": str(p), "target": "t"})
    assert _run(["run", str(cfg), "--quiet"]) == 3
    assert "a regression target, not classes" in " ".join(capsys.readouterr().err.split())
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("body,message", [
    ("a,b,c\n1,2,x\n3,4\n5,6,y\n", r"d\.csv, line 3: 2 field\(s\), expected 3"),
    ("a,b,c\n1,2,x\n\n3,oops,y\n", r"d\.csv, line 4, column b: 'oops' is not a number"),
    ("a,b,c\n1,2,x\n3,,y\n", r"d\.csv, line 3, column b: an empty value is not a number"),
    ("a,b,c\n1,2,x\n3,nan,y\n", r"d\.csv, line 3, column b: missing or non-finite value"),
    ("a,b,c\n", r"has a header row but no data rows"),
    ("", r"is empty"),
])
def test_bad_csv_rows_name_file_and_line(tmp_path, body, message):
    p = tmp_path / "d.csv"
    p.write_text(body)
    with pytest.raises(DataError, match=message):
        CSVStream(path=str(p), target="c").to_arrays()


def test_csv_target_errors(tmp_path):
    X, y = _blobs(20)
    _write_csv(tmp_path / "n.csv", X, y, header=False)
    _write_csv(tmp_path / "h.csv", X, y)
    with pytest.raises(UserError, match=r"has no column 'clss'\. Did you mean 'cls'"):
        CSVStream(path=str(tmp_path / "h.csv"), target="clss").to_arrays()
    with pytest.raises(UserError, match="out of range"):
        CSVStream(path=str(tmp_path / "h.csv"), target=7).to_arrays()
    with pytest.raises(UserError, match="has no header"):
        CSVStream(path=str(tmp_path / "n.csv"), target="cls", header=False).to_arrays()


@pytest.mark.parametrize("sep,shown", [(";", "';'"), ("\t", "'\\\\t'"), ("|", "'\\|'")])
def test_a_file_separated_by_another_character_is_named_with_the_fix(tmp_path, sep, shown):
    X, y = _blobs(20)
    p = tmp_path / "s.csv"
    _write_csv(tmp_path / "c.csv", X, y)
    p.write_text((tmp_path / "c.csv").read_text().replace(",", sep))
    # read at ',' the header is one field: the message names the separator and the fix
    with pytest.raises(UserError, match=rf"s\.csv, line 1: the row is a single field .* "
                                        rf"add delimiter: {shown} to the stream's params"):
        CSVStream(path=str(p), target="cls").to_arrays()
    with pytest.raises(UserError, match="add delimiter"):
        CSVStream(path=str(p), header=False).to_arrays()
    # with the delimiter given, the same file reads as the comma-separated one
    X1, y1 = CSVStream(path=str(tmp_path / "c.csv"), target="cls").to_arrays()
    X2, y2 = CSVStream(path=str(p), target="cls", delimiter=sep).to_arrays()
    np.testing.assert_array_equal(X2, X1)
    np.testing.assert_array_equal(y2, y1)


def test_gzip_csv(tmp_path):
    X, y = _blobs(50)
    _write_csv(tmp_path / "d.csv", X, y)
    (tmp_path / "d.csv.gz").write_bytes(gzip.compress((tmp_path / "d.csv").read_bytes()))
    a = CSVStream(path=str(tmp_path / "d.csv")).to_arrays()
    b = CSVStream(path=str(tmp_path / "d.csv.gz")).to_arrays()
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


ARFF = """% a comment
@relation test
@attribute colour {red,green,blue}
@attribute size numeric
@attribute class {yes,no}
@data
red,1.5,no
% another comment
blue,2.5,yes

green,0.5,no
"""


def test_arff_nominal_features_and_declared_class_order(tmp_path):
    p = tmp_path / "d.arff"
    p.write_text(ARFF)
    X, y = ARFFStream(path=str(p)).to_arrays()
    np.testing.assert_array_equal(X, [[0, 1.5], [2, 2.5], [1, 0.5]])
    np.testing.assert_array_equal(y, [1, 0, 1])  # declared order: yes=0, no=1
    p.write_text(ARFF.replace("green,0.5,no", "green,0.5,maybe"))
    with pytest.raises(DataError,
                       match=r"d\.arff, line 11, column class: the class 'maybe' is not one"):
        ARFFStream(path=str(p)).to_arrays()
    p.write_text(ARFF.replace("blue,2.5,yes", "purple,2.5,yes"))
    with pytest.raises(DataError, match=r"line 9, column colour: 'purple' is not one of"):
        ARFFStream(path=str(p)).to_arrays()
    p.write_text(ARFF.replace("blue,2.5,yes", "blue,2.5"))
    with pytest.raises(DataError, match=r"d\.arff, line 9: 2 field\(s\), expected 3"):
        ARFFStream(path=str(p)).to_arrays()


def test_arff_missing_nominal_feature_is_refused_like_a_missing_numeric_one(tmp_path,
                                                                            capsys):
    """Fixes A (3): ARFF's missing value (an unquoted ``?``) in a nominal feature whose
    header declares ``?`` among its values became a category of its own (code 3 of
    {red, green, blue, ?}: exit 0), where a ``?`` in a numeric feature, an undeclared one,
    and a CSV's empty cell are refused. Weka and MOA read an unquoted ``?`` as missing
    whatever the header says (a quoted '?' is a value): it is now refused, exit 3,
    naming the line and the column; a declared, quoted '?' stays a value."""
    p = tmp_path / "d.arff"
    nominal = ARFF.replace("{red,green,blue}", "{red,green,blue,?}")
    p.write_text(nominal.replace("blue,2.5,yes", "?,2.5,yes"))
    with pytest.raises(DataError, match=r"d\.arff, line 9, column colour: '\?' \(a missing "
                       r"value\) in a nominal attribute .*fill or drop such rows"):
        ARFFStream(path=str(p)).to_arrays()
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump({
        "name": "a", "streams": [{"name": "arff", "label": "A", "params": {"path": str(p)}}],
        "algorithms": [{"name": "no_change"}], "metrics": ["oca"],
        "outputs": {"dir": str(tmp_path / "out"), "plots": []}}))
    assert _run(["run", str(cfg), "--quiet"]) == 3
    assert not (tmp_path / "out").exists()
    # undeclared: the same refusal; numeric: refused as not a number
    p.write_text(ARFF.replace("blue,2.5,yes", "?,2.5,yes"))
    with pytest.raises(DataError, match=r"line 9, column colour: '\?' \(a missing value\) in "
                       "a nominal attribute; missing feature values are refused"):
        ARFFStream(path=str(p)).to_arrays()
    p.write_text(ARFF.replace("blue,2.5,yes", "blue,?,yes"))
    with pytest.raises(DataError, match=r"line 9, column size: '\?' \(a missing value\) is "
                       "not a number"):
        ARFFStream(path=str(p)).to_arrays()
    # Weka's literal value: quoted in the header and in the data
    p.write_text(ARFF.replace("{red,green,blue}", "{red,green,blue,'?'}")
                 .replace("blue,2.5,yes", "'?',2.5,yes"))
    X, _ = ARFFStream(path=str(p)).to_arrays()
    np.testing.assert_array_equal(X[:, 0], [0, 3, 1])


def test_libsvm_matches_scikit_learn_and_names_bad_lines(tmp_path):
    from sklearn.datasets import dump_svmlight_file

    X, y = _blobs(80)
    X[X < 1.0] = 0.0  # sparse entries
    p = tmp_path / "d.svm"
    dump_svmlight_file(X, y * 2 - 1, str(p), zero_based=False)
    Xs, ys = LIBSVMStream(path=str(p), n_features=2).to_arrays()
    np.testing.assert_allclose(Xs, X)
    np.testing.assert_array_equal(ys, y)  # labels -1, 1, 3 -> 0, 1, 2
    p.write_text("1 1:0.5 2:1\n-1 1:0.2 2\n")
    with pytest.raises(DataError, match=r"d\.svm at line 2: expected 'index:value'"):
        LIBSVMStream(path=str(p)).to_arrays()


def test_numpy_npz_and_npy(tmp_path):
    X, y = _blobs(40)
    np.savez(tmp_path / "d.npz", X=X, y=y)
    np.savez(tmp_path / "o.npz", features=X, labels=y)
    np.save(tmp_path / "d.npy", np.column_stack([y, X]))
    for stream in (NumpyStream(path=str(tmp_path / "d.npz")),
                   NumpyStream(path=str(tmp_path / "o.npz"), x_key="features", y_key="labels"),
                   NumpyStream(path=str(tmp_path / "d.npy"), target=0)):
        Xs, ys = stream.to_arrays()
        np.testing.assert_array_equal(Xs, X)
        np.testing.assert_array_equal(ys, y)
    with pytest.raises(DataError, match="has no array 'X'; it holds features, labels"):
        NumpyStream(path=str(tmp_path / "o.npz")).to_arrays()
    with pytest.raises(UserError, match=r"must name a \.npz or \.npy file"):
        NumpyStream(path=str(tmp_path / "d.csv"))
    X[3, 1] = np.inf
    np.savez(tmp_path / "bad.npz", X=X, y=y)
    with pytest.raises(DataError, match="row 4, column 1: missing or non-finite"):
        NumpyStream(path=str(tmp_path / "bad.npz")).to_arrays()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_sha256_verified(tmp_path):
    X, y = _blobs(30)
    p = tmp_path / "d.csv"
    _write_csv(p, X, y)
    CSVStream(path=str(p), sha256=_sha(p)).check_available()
    CSVStream(path=str(p), sha256=_sha(p).upper()).check_available()
    with pytest.raises(ChecksumMismatch, match="does not have the SHA-256"):
        CSVStream(path=str(p), sha256="0" * 64).to_arrays()
    with pytest.raises(UserError, match="must be 64 hexadecimal digits"):
        CSVStream(path=str(p), sha256="abc")
    with pytest.raises(DataError, match="not found"):
        CSVStream(path=str(tmp_path / "nope.csv")).check_available()


def _config(tmp_path: Path, params: dict, extra: tuple[str, ...] = ()) -> Path:
    cfg = {"name": "mydata", "repeats": 2,
           "streams": [{"name": "csv", "label": "Mine", "params": params}],
           "algorithms": [{"name": "perceptron"}, {"name": "hoeffding_tree", "label": "HT"}],
           "metrics": ["oca"], "outputs": {"dir": str(tmp_path / "out"), "plots": []}}
    p = tmp_path / "cfg.yaml"
    p.write_text(yaml.safe_dump(cfg))
    return p


def test_wrong_sha256_is_refused_before_any_run(tmp_path, capsys):
    X, y = _blobs()
    data = tmp_path / "d.csv"
    _write_csv(data, X, y)
    cfg = _config(tmp_path, {"path": str(data), "target": "cls", "sha256": "ab" * 32})
    for args in (["run", str(cfg), "--quiet"],
                 ["run", str(cfg), "--quiet", "--skip-missing-data"],
                 ["validate", str(cfg)]):
        assert _run(args) == 3
        err = " ".join(capsys.readouterr().err.split())
        assert "does not have the SHA-256 the config declares" in err
        assert _sha(data) in err and "Traceback" not in err
        assert not (tmp_path / "out").exists()  # nothing ran, nothing written


def test_csv_stream_runs_with_its_sha256_and_keeps_file_order(tmp_path):
    X, y = _blobs()
    data = tmp_path / "d.csv"
    _write_csv(data, X, y)
    cfg = _config(tmp_path, {"path": str(data), "target": "cls", "sha256": _sha(data)})
    assert _run(["run", str(cfg), "--quiet"]) == 0
    recs = [json.loads(p.read_text()) for p in sorted((tmp_path / "out" / "runs").glob("*"))]
    assert [r["status"] for r in recs] == ["ok"] * 4
    by_algo: dict[str, list[float]] = {}
    for r in recs:
        by_algo.setdefault(r["algorithm"], []).append(r["metrics"]["oca"])
    # the file's order is the stream (no per-seed shuffle): both seeds see the same stream
    assert by_algo["HT"][0] == by_algo["HT"][1]
    assert recs[0]["stream_info"]["n_samples"] == 300


def test_a_changed_file_is_never_resumed_from_the_old_records(tmp_path, capsys):
    """Same config, same path, new content: every run is computed again on the new data
    (resume used to keep the old file's records and exit 0); the unchanged file resumes."""
    data = tmp_path / "d.csv"
    X, y = _blobs(seed=0)
    _write_csv(data, X, y)
    cfg = _config(tmp_path, {"path": str(data), "target": "cls"})
    runs = tmp_path / "out" / "runs"

    def oca() -> dict[str, float]:
        return {p.stem: json.loads(p.read_text())["metrics"]["oca"] for p in runs.glob("*.json")}

    assert _run(["run", str(cfg), "--quiet"]) == 0
    first = oca()
    capsys.readouterr()
    assert _run(["run", str(cfg), "--quiet"]) == 0
    assert "4 already complete, 0 to run" in " ".join(capsys.readouterr().err.split())
    X2, y2 = _blobs(seed=1)
    _write_csv(data, X2, -y2 + 2)  # other samples, labels reversed
    assert _run(["run", str(cfg), "--quiet"]) == 0
    assert "0 already complete, 4 to run" in " ".join(capsys.readouterr().err.split())
    second = oca()
    assert second.keys() == first.keys() and second != first
    digests = {json.loads(p.read_text())["spec"]["data_sha256"] for p in runs.glob("*.json")}
    assert digests == {_sha(data)}


def test_missing_csv_is_a_data_error_and_can_be_skipped(tmp_path, capsys):
    cfg = _config(tmp_path, {"path": str(tmp_path / "absent.csv")})
    assert _run(["run", str(cfg), "--quiet"]) == 3
    # rich folds a long path anywhere (a long temporary directory, e.g. under pytest-xdist)
    assert "absent.csvnotfound" in "".join(capsys.readouterr().err.split())


# --------------------------------------------------------------------------------------
# Missing targets, duplicate names (issue 21)
@pytest.mark.parametrize("stream", ["csv", "csv_regression"])
@pytest.mark.parametrize("cell", ['"a"', ' "b" ', '"a', 'a"', '"1.5"'])
def test_a_quoted_csv_target_is_refused_naming_its_line(tmp_path, capsys, stream, cell):
    """The reader takes no quoting: ``"a"`` beside ``a`` had been a class of its own (four
    classes from ``"a"``, ``a``, ``"b"``, ``b``, exit 0). Refused, naming file, line and
    column, exit 3, nothing written."""
    p = tmp_path / "d.csv"
    p.write_text(f"x,label\n0.5,a\n0.25,{cell}\n0.75,b\n")
    with pytest.raises(DataError, match=r"d\.csv, line 3, column label: the value .* is "
                                         r"quoted \(a double quote at its start or end\)"):
        get_stream(stream)(path=str(p), target="label").to_arrays()
    cfg = {"name": "q", "protocol": ("prequential-regression" if stream == "csv_regression"
                                     else "prequential-classification"),
           "repeats": 1, "streams": [{"name": stream, "label": "D",
                                      "params": {"path": str(p), "target": "label"}}],
           "algorithms": [{"name": "linear_regression" if stream == "csv_regression"
                           else "majority_class"}],
           "outputs": {"plots": []}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    assert _run(["run", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "out"), "-q"]) == 3
    err = " ".join(capsys.readouterr().err.split())
    assert "line 3, column label" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_labels_are_case_sensitive_and_unquoted_text_with_quotes_inside_is_kept(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text('x,label\n1,True\n2,true\n3,TRUE\n4,a "b" c\n')
    _, y = CSVStream(path=str(p), target="label").to_arrays()
    assert len(set(y.tolist())) == 4


# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "NaN", "?", "", " ", "inf", "-Infinity", "NA",
                                   "na", "N/A", "n/a", "NULL", "Null", "None", "nOnE"])
@pytest.mark.parametrize("others", [("x", "y"), ("1", "2")], ids=["text", "numeric"])
def test_a_missing_csv_target_is_not_a_class(tmp_path, value, others):
    p = tmp_path / "d.csv"
    p.write_text(f"a,b,label\n1,2,{others[0]}\n3,4,{value}\n5,6,{others[1]}\n")
    with pytest.raises(DataError, match=r"d\.csv, line 3, column label: the target is "
                                         r"(empty|.*a missing value)"):
        CSVStream(path=str(p), target="label").to_arrays()


def test_a_missing_target_in_other_formats_is_not_a_class(tmp_path):
    svm = tmp_path / "d.svm"
    svm.write_text("1 1:0.5\nnan 1:2\n-1 1:1\n")
    with pytest.raises(DataError, match=r"d\.svm, line 2, column label: the target is nan"):
        LIBSVMStream(path=str(svm)).to_arrays()
    arff = tmp_path / "d.arff"
    arff.write_text("@relation r\n@attribute a numeric\n@attribute c numeric\n@data\n"
                    "1,0\n2,?\n3,1\n")
    with pytest.raises(DataError, match=r"d\.arff, line 6, column c: the target is '\?'"):
        ARFFStream(path=str(arff)).to_arrays()
    arff.write_text("@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n"
                    "1,x\n2,?\n")
    with pytest.raises(DataError, match=r"line 6, column c: the class '\?' \(a missing "
                                         r"value\) is not one of"):
        ARFFStream(path=str(arff)).to_arrays()
    np.savez(tmp_path / "d.npz", X=np.ones((3, 2)), y=np.array([0.0, np.nan, 1.0]))
    with pytest.raises(DataError, match=r"row 2, the target column: the target is nan"):
        NumpyStream(path=str(tmp_path / "d.npz")).to_arrays()


def test_r_and_pandas_missing_markers_are_not_classes_in_any_format(tmp_path, capsys):
    """``NA`` (R), ``NULL``, ``None``, ``N/A`` in a target had become a class of its own (5
    classes for 4, and string order for numeric labels), exit 0; now refused in each
    format that reads text labels, naming the file, line and column. Labels that merely
    start alike stay classes."""
    p = tmp_path / "d.csv"
    p.write_text("a,b,label\n1,2,10\n3,4,NA\n5,6,2\n")
    with pytest.raises(DataError, match=r"d\.csv, line 3, column label: the target is "
                                         r"'NA', a missing value; .* if 'NA' is a class, give "
                                         r"it another name"):
        CSVStream(path=str(p), target="label").to_arrays()
    p.write_text("1,2,x\n3,4,x\n5,6,NULL\n")  # no header row: the third line
    with pytest.raises(DataError, match=r"d\.csv, line 3, column 2: the target is 'NULL'"):
        CSVStream(path=str(p)).to_arrays()
    p.write_text("a,b,label\n1,2,Nancy\n3,4,NAB\n5,6,nonempty\n")
    assert CSVStream(path=str(p), target="label").to_arrays()[1].tolist() == [1, 0, 2]
    arff = tmp_path / "d.arff"
    arff.write_text("@relation r\n@attribute a numeric\n@attribute c {x,y,NA}\n@data\n"
                    "1,x\n2,NA\n3,y\n")  # Weka's CSVLoader declares R's NA as a value
    with pytest.raises(DataError, match=r"d\.arff, line 6, column c: the target is 'NA', a "
                                         r"missing value"):
        ARFFStream(path=str(arff)).to_arrays()
    arff.write_text("@relation r\n@attribute a numeric\n@attribute c numeric\n@data\n"
                    "1,0\n2,1\n3,n/a\n")
    with pytest.raises(DataError, match=r"d\.arff, line 7, column c: the target is 'n/a'"):
        ARFFStream(path=str(arff)).to_arrays()
    np.savez(tmp_path / "d.npz", X=np.ones((3, 2)), y=np.array(["a", "None", "b"]))
    with pytest.raises(DataError, match=r"row 2, the target column: the target is 'None'"):
        NumpyStream(path=str(tmp_path / "d.npz")).to_arrays()
    # through the CLI: exit code 3, the place named, nothing written
    p.write_text("p,z,cls\n2,0.9,NA\n0,0.1,10\n2,0.5,0\n0,0.2,1\n")
    cfg = _config(tmp_path, {"path": str(p), "target": "cls"})
    assert _run(["run", str(cfg), "--quiet"]) == 3
    err = " ".join(capsys.readouterr().err.split())
    assert "line 2, column cls: the target is 'NA'" in err and "Traceback" not in err
    assert not (tmp_path / "out" / "summary.md").exists()
    assert not (tmp_path / "out").exists()


def test_a_first_row_of_numbers_with_a_lone_text_target_is_not_guessed(tmp_path, capsys):
    """``400,410,label`` (wavelengths as column names) with the header detected had been
    read as a data row: ``label`` a class of one sample, 3 classes for 2, OCA and kappa
    wrong, exit 0. Now refused unless ``header`` says which; a first row whose target
    occurs again is data, as before."""
    body = "0.1,0.2,pos\n0.3,0.4,neg\n0.5,0.6,pos\n"
    p = tmp_path / "spectral.csv"
    for first in ("400,410,label\n", "4e2, 410.5 ,label \n"):
        p.write_text(first + body)
        with pytest.raises(UserError, match=r"spectral\.csv, line 1: is the first row a "
                                             r"header or data\? .* target 'label' .* Add "
                                             r"header: true .* or header: false"):
            CSVStream(path=str(p)).to_arrays()
    p.write_text("400,410,label\n0.1,0.2,1\n0.3,0.4,0\n")  # numeric classes below
    with pytest.raises(UserError, match="header: true"):
        CSVStream(path=str(p)).to_arrays()
    p.write_text("400,410,label\n" + body)
    X, y = CSVStream(path=str(p), header=True).to_arrays()
    assert X.shape == (3, 2) and y.tolist() == [1, 0, 1]
    X, y = CSVStream(path=str(p), target="label").to_arrays()  # a name means a header
    assert X.shape == (3, 2) and y.tolist() == [1, 0, 1]
    X, y = CSVStream(path=str(p), header=False).to_arrays()  # told so: a sample
    assert X.shape == (4, 2) and y.tolist() == [0, 2, 1, 2]
    p.write_text("0.7,0.8,neg\n" + body)  # its target occurs again: data, detected
    X, y = CSVStream(path=str(p)).to_arrays()
    assert X.shape == (4, 2) and y.tolist() == [0, 1, 0, 1]
    p.write_text("0.7,0.8,NA\n" + body)  # a missing marker: refused as such
    with pytest.raises(DataError, match=r"line 1, column 2: the target is 'NA'"):
        CSVStream(path=str(p)).to_arrays()
    p.write_text("400,410,label\n0.1,0.2,1.5\n")  # regression: still refused as before
    with pytest.raises(DataError, match=r"line 1, column 2: the target 'label' is not a "
                                         r"number"):
        get_stream("csv_regression")(path=str(p)).to_arrays()
    # through the CLI: a non-zero exit code, the fix named, nothing written
    p.write_text("400,410,label\n" + body * 20)
    cfg = _config(tmp_path, {"path": str(p), "target": -1})
    assert _run(["run", str(cfg), "--quiet"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "header: true" in err and "header: false" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_a_regression_target_may_still_not_be_missing(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text("a,y\n1,0.5\n2,nan\n")
    with pytest.raises(DataError, match=r"line 3, column y: missing or non-finite"):
        get_stream("csv_regression")(path=str(p), target="y").to_arrays()


def test_duplicate_csv_header_names_are_refused(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text("a,b,a,label,b\n1,2,3,x,4\n")
    with pytest.raises(DataError, match=r"d\.csv, line 1: the header names more than one "
                                         r"column alike: 'a' \(columns 1, 3\); 'b' "
                                         r"\(columns 2, 5\)"):
        CSVStream(path=str(p), target="label").to_arrays()
    # without a header row, there are no names to clash
    p.write_text("1,2,1,x\n3,4,3,y\n")
    X, _ = CSVStream(path=str(p), header=False).to_arrays()
    assert X.shape == (2, 3)


def test_an_overflowing_cell_is_shown_as_written(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text("a,b,label\n1,2,x\n3,-1e999,y\n")
    with pytest.raises(DataError, match=r"line 3, column b: missing or non-finite value "
                                         r"\('-1e999', read as -inf\)"):
        CSVStream(path=str(p), target="label").to_arrays()


def test_a_corrupt_file_is_not_skipped_as_missing(tmp_path, capsys):
    """--skip-missing-data leaves out absent files; a present, bad file is an error."""
    data = tmp_path / "d.csv"
    data.write_text("a,b,cls\n1,2,x\n3,nan,y\n")
    cfg = _config(tmp_path, {"path": str(data), "target": "cls"})
    assert _run(["run", str(cfg), "--quiet", "--skip-missing-data"]) == 3
    err = " ".join(capsys.readouterr().err.split())
    assert "line 3, column b" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()
