"""The hostile cases of scripts/probe_hostile_inputs.py, part one: the case types, the
data every case uses, malformed configs and broken data files (part two, the cases that
run learners and touch directories: probe_hostile_cases_run.py). A case states what it
expects:

* ``reject``: exit codes that are a clean refusal (nothing written, no traceback);
* ``ok``: the command may succeed, and then every listed run is complete with the OCA the
  probe computes by hand (``None``: any finite OCA) and the summary shows exactly those;
* ``fail_run``: the command may exit 1 with the runs of the ``bad`` algorithms recorded as
  failed and every listed run complete and right.
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import io
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

RunKey = tuple[str, str, int]  # (stream label, algorithm label, seed)
SEGMENT = "segmentation"  # the smallest real dataset (UCI Image Segmentation, 380 kB)


@dataclass
class Expect:
    """What a case accepts as a clean outcome."""

    reject: frozenset[int] = frozenset()
    ok: bool = False
    fail_run: bool = False
    runs: dict[RunKey, float | None] = field(default_factory=dict)
    bad: tuple[str, ...] = ()  # algorithm labels whose runs must be recorded as failed
    check: Callable[[Path, str], str | None] | None = None  # extra check of a success
    control: bool = False  # a legitimate input that must succeed
    says: str | None = None  # a regex the output must match when the input is refused
    not_says: str | None = None  # ... and one it must not match


@dataclass
class Case:
    """One hostile input: the files of its working directory and the command to run."""

    name: str
    category: str
    args: list[str]
    expect: Expect
    files: dict[str, bytes | str] = field(default_factory=dict)
    setup: Callable[[Path, Any], None] | None = None  # (case dir, engine context)
    env: dict[str, str] = field(default_factory=dict)
    out: str = "out"  # the output directory, relative to the case directory
    timeout: float = 90.0
    runner: str | None = None  # a custom runner of the engine ("concurrent")
    needs: str | None = None  # "dask": skipped when the CLI's Python has no dask


def reject(*codes: int) -> Expect:
    return Expect(reject=frozenset(codes))


# --------------------------------------------------------------------------------------
# The data: 120 samples, x0 decides the class (plus noise), written in every format
# --------------------------------------------------------------------------------------


def make_data(n: int = 120, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 2)), 4)
    X[X[:, 0] == 0.0, 0] = 0.5
    y = ((X[:, 0] + 0.6 * rng.normal(size=n)) > 0).astype(np.int64)
    return X, y


X0, Y0 = make_data()
NAMES = ("no", "yes")


def thr_oca(X: np.ndarray, y: np.ndarray) -> float:
    """OCA of probe_learners.Threshold (predicts x0 > 0)."""
    return float(np.mean((X[:, 0] > 0).astype(np.int64) == y))


def maj_oca(y: np.ndarray) -> float:
    """OCA of probe_learners.Majority (most frequent class so far, ties: smallest)."""
    counts: dict[int, int] = {}
    hits = 0
    for v in y.tolist():
        pred = min(counts, key=lambda c: (-counts[c], c)) if counts else 0
        hits += pred == v
        counts[v] = counts.get(v, 0) + 1
    return hits / len(y)


def const_oca(y: np.ndarray, c: int) -> float:
    return float(np.mean(y == c))


def csv_text(X: np.ndarray = X0, y: np.ndarray = Y0, header: str = "f0,f1,label",
             labels: tuple[str, ...] = NAMES, eol: str = "\n") -> str:
    rows = [header] if header else []
    rows += [f"{a:.4f},{b:.4f},{labels[c]}" for (a, b), c in zip(X, y, strict=True)]
    return eol.join(rows) + eol


def arff_text(X: np.ndarray = X0, y: np.ndarray = Y0, data_header: str = "@data",
              class_decl: str = "{no,yes}") -> str:
    head = ["@relation probe", "@attribute f0 numeric", "@attribute f1 numeric",
            f"@attribute label {class_decl}", data_header]
    rows = [f"{a:.4f},{b:.4f},{NAMES[c]}" for (a, b), c in zip(X, y, strict=True)]
    return "\n".join(head + rows) + "\n"


def libsvm_text(X: np.ndarray = X0, y: np.ndarray = Y0,
                labels: tuple[str, ...] = ("0", "1")) -> str:
    return "".join(f"{labels[c]} 1:{a:.4f} 2:{b:.4f}\n" for (a, b), c in zip(X, y, strict=True))


def npz_bytes(**arrays: Any) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def learners_source() -> str:
    return (Path(__file__).with_name("probe_learners.py")).read_text()


# --------------------------------------------------------------------------------------
# Configs
# --------------------------------------------------------------------------------------

CSV = {"name": "csv", "label": "Data", "params": {"path": "data.csv", "target": "label"}}
THR = {"name": "probe_learners:Threshold", "label": "Thr"}
MAJ = {"name": "probe_learners:Majority", "label": "Maj"}


def config(streams: list | None = None, algorithms: list | None = None,
           **top: Any) -> dict[str, Any]:
    cfg: dict[str, Any] = {
        "name": "probe", "repeats": 1,
        "streams": copy.deepcopy(streams if streams is not None else [CSV]),
        "algorithms": copy.deepcopy(algorithms if algorithms is not None else [THR, MAJ]),
        "metrics": ["oca"], "evaluation": {"checkpoints": 5},
        "outputs": {"dir": "out", "plots": []},
    }
    cfg.update(top)
    return cfg


def dump(cfg: dict[str, Any]) -> str:
    return yaml.safe_dump(cfg, sort_keys=False, allow_unicode=False)


def known_oca(algo: dict[str, Any], X: np.ndarray, y: np.ndarray) -> float | None:
    name = algo.get("name", "")
    if name == "probe_learners:Threshold" or name.startswith("probe_learners:Slow") or \
            name in ("probe_learners:Unpicklable", "probe_learners:ChangesDirectory"):
        return thr_oca(X, y)
    if name == "probe_learners:Majority":
        return maj_oca(y)
    return None


def runs_of(cfg: dict[str, Any], X: np.ndarray = X0, y: np.ndarray = Y0,
            skip: tuple[str, ...] = ()) -> dict[RunKey, float | None]:
    """The runs a config plans, with the OCA the probe knows for them (file streams named
    data.* hold (X, y); others: None)."""
    try:
        seeds = list(cfg["seeds"]) if "seeds" in cfg else list(range(int(cfg.get("repeats", 1))))
        out: dict[RunKey, float | None] = {}
        for s in cfg["streams"]:
            file_stream = str(s.get("params", {}).get("path", "")).startswith("data.")
            for a in cfg["algorithms"]:
                label = a.get("label", a.get("name"))
                if label in skip:
                    continue
                v = known_oca(a, X, y) if file_stream else None
                for seed in seeds:
                    out[(s.get("label", s["name"]), label, int(seed))] = v
        return out
    except (KeyError, TypeError, ValueError, AttributeError):
        return {}


def learner_files(extra: dict[str, bytes | str] | None = None) -> dict[str, bytes | str]:
    files: dict[str, bytes | str] = {"probe_learners.py": learners_source(),
                                     "data.csv": csv_text()}
    files.update(extra or {})
    return files


def run_args(*extra: str) -> list[str]:
    return ["run", "cfg.yaml", "-q", "--jobs", "1", *extra]


def run_case(name: str, category: str, cfg: dict[str, Any] | str | bytes, expect: Expect,
             files: dict[str, bytes | str] | None = None, args: list[str] | None = None,
             **kw: Any) -> Case:
    fs = learner_files(files)
    fs["cfg.yaml"] = cfg if isinstance(cfg, str | bytes) else dump(cfg)
    return Case(name, category, args or run_args(), expect, fs, **kw)


def either(cfg: dict[str, Any], **kw: Any) -> Expect:
    """Refused as a config error, or run right."""
    return Expect(reject=frozenset({2}), ok=True, runs=runs_of(cfg), **kw)


# --------------------------------------------------------------------------------------
# Category: config
# --------------------------------------------------------------------------------------


def _mut(path: str, value: Any, delete: bool = False) -> dict[str, Any]:
    cfg = config()
    keys = path.split(".")
    node: Any = cfg
    for k in keys[:-1]:
        node = node[int(k)] if isinstance(node, list) else node[k]
    last = keys[-1]
    if delete:
        del node[last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return cfg


def _sea(**params: Any) -> dict[str, Any]:
    return config(streams=[{"name": "sea", "label": "SEA", "params": params}])


def config_cases() -> list[Case]:
    bad: list[tuple[str, dict[str, Any] | str | bytes]] = [
        ("unknown-top-key", {**config(), "algoritms": []}),
        ("unknown-stream-key", _mut("streams.0.max_sample", 10)),
        ("repeats-string", _mut("repeats", "three")),
        ("repeats-zero", _mut("repeats", 0)),
        ("repeats-huge", _mut("repeats", 10 ** 20)),
        ("seeds-empty", {**_mut("repeats", 1, delete=True), "seeds": []}),
        ("seeds-and-repeats", {**config(), "seeds": [1]}),
        ("missing-streams", _mut("streams", None, delete=True)),
        ("empty-algorithms", _mut("algorithms", [])),
        ("duplicate-algorithm-labels", _mut("algorithms.1.label", "Thr")),
        ("label-empty", _mut("algorithms.0.label", "")),
        ("label-over-255-bytes", _mut("algorithms.0.label", "\u00e9" * 130)),
        ("metric-unknown", _mut("metrics", ["ocaa"])),
        ("checkpoints-zero", _mut("evaluation.checkpoints", 0)),
        ("chunk-size-inf", _mut("evaluation.chunk_size", float("inf"))),
        ("max-samples-nan", _mut("streams.0.max_samples", float("nan"))),
        ("normalize-unknown", _mut("streams.0.normalize", "bogus")),
        ("n-samples-huge", _sea(n_samples=10 ** 12)),
        ("algorithm-unknown", _mut("algorithms.0.name", "rlss")),
        ("algorithm-param-unknown", config(algorithms=[{"name": "rls", "params": {"lamb": 1}}])),
        ("algorithm-param-nan", config(algorithms=[{"name": "rls",
                                                    "params": {"lam": float("nan")}}])),
        ("user-learner-param-unknown", config(algorithms=[
            {"name": "probe_learners:Slow", "params": {"delai": 0.1}}])),
        ("user-learner-missing-module", config(algorithms=[{"name": "no_such_mod:X"}])),
        ("river-bogus-path", config(algorithms=[{"river": "linear_model.Nope"}])),
        ("name-with-slash", _mut("name", "a/b")),
        ("protocol-unknown", {**config(), "protocol": "prequential-nope"}),
        ("plots-unknown", _mut("outputs.plots", ["pie"])),
        ("sweep-empty-list", config(algorithms=[{"name": "rls", "sweep": {"lam": []}}])),
        ("empty-file", ""),
        ("yaml-syntax-error", "name: probe\nstreams: [\n"),
        ("yaml-non-utf8", b"name: pr\xffobe\nstreams: []\n"),
        ("yaml-duplicate-key", dump(config()) + "name: again\n"),
    ]
    ambiguous: list[tuple[str, dict[str, Any]]] = [
        ("metrics-string", _mut("metrics", "oca")),
        ("algorithm-string", _mut("algorithms", ["rls"])),
        ("seeds-negative", {**_mut("repeats", 1, delete=True), "seeds": [-1]}),
        ("seeds-huge", {**_mut("repeats", 1, delete=True), "seeds": [2 ** 64 + 1]}),
        ("repeats-bool", _mut("repeats", True)),
        ("label-newline", _mut("algorithms.0.label", "Thr\nline two")),
        ("label-carriage-return", _mut("algorithms.0.label", "Thr\rX")),
        ("label-escape", _mut("algorithms.0.label", "Thr\x1b[31mred")),
        ("label-pipe", _mut("algorithms.0.label", "Thr|x")),
        ("label-nul", _mut("algorithms.0.label", "Thr\x00x")),
        ("label-bidi-override", _mut("algorithms.0.label", "Thr\u202ex")),
        ("label-html", _mut("algorithms.0.label", "<script>alert(1)</script>")),
        ("label-spaces-only", _mut("algorithms.0.label", "   ")),
        ("stream-label-newline", _mut("streams.0.label", "Data\nmore")),
        ("stream-label-escape", _mut("streams.0.label", "Data\x1b[2J")),
    ]
    # `validate` shares the config checks with `run`: a sample of them through both
    also_validate = {"unknown-top-key", "seeds-empty", "duplicate-algorithm-labels",
                     "yaml-non-utf8", "label-newline", "seeds-huge"}
    cases = []
    for name, cfg in bad:
        text = cfg if isinstance(cfg, str | bytes) else dump(cfg)
        cases.append(run_case(f"run-{name}", "config", text, reject(2)))
        if name in also_validate:
            cases.append(run_case(f"validate-{name}", "config", text, reject(2),
                                  args=["validate", "cfg.yaml"]))
    for name, cfg in ambiguous:
        cases.append(run_case(f"run-{name}", "config", cfg, either(cfg)))
        if name in also_validate:
            cases.append(run_case(f"validate-{name}", "config", cfg,
                                  Expect(reject=frozenset({2}), ok=True),
                                  args=["validate", "cfg.yaml"]))
    cases.append(run_case("run-config-missing", "config", config(), reject(2),
                          args=["run", "nope.yaml", "-q"]))
    cases.append(run_case("run-config-is-a-directory", "config", config(), reject(2),
                          args=["run", ".", "-q"]))
    cfg = config()
    cases.append(run_case("control-run-csv", "config", cfg,
                          Expect(ok=True, runs=runs_of(cfg), control=True)))
    cfg2 = config(repeats=2, outputs={"dir": "out", "plots": ["learning_curve", "time"]})
    cases.append(run_case("control-run-plots-two-seeds", "config", cfg2,
                          Expect(ok=True, runs=runs_of(cfg2), control=True)))
    cases.append(run_case("control-validate", "config", cfg, Expect(ok=True, control=True),
                          args=["validate", "cfg.yaml"]))
    return cases


# --------------------------------------------------------------------------------------
# Category: data (CSV, ARFF, LIBSVM, NumPy files; checksums)
# --------------------------------------------------------------------------------------


def _stream(kind: str, path: str, **params: Any) -> dict[str, Any]:
    return {"name": kind, "label": "Data", "params": {"path": path, **params}}


def data_case(name: str, kind: str, path: str, content: bytes | str, verdict: str,
              params: dict[str, Any] | None = None, X: np.ndarray = X0, y: np.ndarray = Y0,
              algorithms: list | None = None, args: list[str] | None = None,
              setup: Callable[[Path, Any], None] | None = None) -> Case:
    """``verdict``: "reject" (a data error), "ok" (must run right), "either" (refused, or
    run right), "any" (refused, or run with any finite score)."""
    cfg = config(streams=[_stream(kind, path, **(params or {}))], algorithms=algorithms)
    runs = runs_of(cfg, X, y)
    if verdict == "any":
        runs = dict.fromkeys(runs)
    expect = {"reject": reject(2, 3),
              "ok": Expect(ok=True, runs=runs, control=True),
              "either": Expect(reject=frozenset({2, 3}), ok=True, runs=runs),
              "any": Expect(reject=frozenset({2, 3}), ok=True, runs=runs)}[verdict]
    files = {path: content} if path else {}
    return run_case(name, "data", cfg, expect, files=files, args=args, setup=setup)


def _replace_row(text: str, row: int, new: str) -> str:
    lines = text.split("\n")
    lines[row] = new
    return "\n".join(lines)


def _gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def csv_cases() -> list[Case]:
    good = csv_text()
    p = {"target": "label"}
    r10 = csv_text().split("\n")[10]
    a, b, _ = r10.split(",")
    single_y = np.zeros_like(Y0)
    many_y = np.arange(len(Y0))
    cases = [
        data_case("control-csv", "csv", "data.csv", good, "ok", p),
        data_case("control-csv-no-header", "csv", "data.csv", csv_text(header=""), "ok"),
        data_case("control-csv-crlf", "csv", "data.csv", csv_text(eol="\r\n"), "ok", p),
        data_case("control-csv-gz", "csv", "data.csv.gz", _gz(good.encode()), "ok", p),
        data_case("csv-bom", "csv", "data.csv", "\ufeff" + good, "ok", p),
        data_case("csv-bom-no-header", "csv", "data.csv", "\ufeff" + csv_text(header=""), "ok"),
        data_case("csv-gz-truncated", "csv", "data.csv.gz", _gz(good.encode())[:200], "reject",
                  p),
        data_case("csv-missing-target-column", "csv", "data.csv", good, "reject",
                  {"target": "class"}),
        data_case("csv-nan-cell", "csv", "data.csv", _replace_row(good, 10, f"nan,{b},no"),
                  "reject", p),
        data_case("csv-inf-cell", "csv", "data.csv", _replace_row(good, 10, f"inf,{b},no"),
                  "reject", p),
        data_case("csv-1e999-cell", "csv", "data.csv", _replace_row(good, 10, f"1e999,{b},no"),
                  "reject", p),
        data_case("csv-empty-cell", "csv", "data.csv", _replace_row(good, 10, f",{b},no"),
                  "reject", p),
        data_case("csv-empty-target", "csv", "data.csv", _replace_row(good, 10, f"{a},{b},"),
                  "reject", p),
        data_case("csv-ragged-short-row", "csv", "data.csv", _replace_row(good, 10, f"{a},no"),
                  "reject", p),
        data_case("csv-zero-bytes", "csv", "data.csv", "", "reject", p),
        data_case("csv-header-only", "csv", "data.csv", "f0,f1,label\n", "reject", p),
        data_case("csv-duplicate-feature-header", "csv", "data.csv",
                  good.replace("f0,f1,label", "f0,f0,label", 1), "reject", p),
        data_case("csv-duplicate-target-header", "csv", "data.csv",
                  good.replace("f0,f1,label", "label,f1,label", 1), "reject", p),
        data_case("csv-nan-target-string", "csv", "data.csv",
                  _replace_row(good, 10, f"{a},{b},nan"), "reject", p),
        data_case("csv-NaN-target-numeric-labels", "csv", "data.csv",
                  _replace_row(csv_text(labels=("0", "1")), 10, f"{a},{b},NaN"), "reject", p),
        data_case("csv-non-utf8-header", "csv", "data.csv",
                  good.encode().replace(b"f0,", b"f\xe90,", 1), "either", p),
        data_case("csv-non-utf8-label", "csv", "data.csv",
                  _replace_row(good, 10, f"{a},{b},n\udcffo").encode("utf-8", "surrogateescape"),
                  "any", p),
        data_case("csv-nul-byte", "csv", "data.csv", _replace_row(good, 10, f"{a}\x00,{b},no"),
                  "reject", p),
        data_case("csv-binary-garbage", "csv", "data.csv",
                  np.random.default_rng(3).bytes(3000), "reject", p),
        data_case("csv-single-class", "csv", "data.csv", csv_text(labels=("yes", "yes")),
                  "either", p, y=single_y, algorithms=[MAJ]),
        data_case("csv-one-class-per-row", "csv", "data.csv",
                  "f0,f1,label\n" + "".join(f"{x0:.4f},{x1:.4f},c{i:03d}\n"
                                            for i, (x0, x1) in enumerate(X0)),
                  "either", p, y=many_y),
        data_case("csv-quoted-fields", "csv", "data.csv",
                  "\n".join(",".join(f'"{c}"' for c in row.split(",")) if row else row
                            for row in good.split("\n")), "either", p),
        data_case("csv-comment-line", "csv", "data.csv", "# exported by probe\n" + good,
                  "either", p),
        data_case("csv-path-missing", "csv", "absent.csv", "", "reject", p),
        data_case("csv-path-is-directory", "csv", "adir.csv", "", "reject", p,
                  setup=lambda d, ctx: (d / "adir.csv").mkdir()),
        data_case("csv-path-symlink-loop", "csv", "loop.csv", "", "reject", p,
                  setup=lambda d, ctx: os.symlink("loop.csv", d / "loop.csv")),
        data_case("csv-sha256-mismatch", "csv", "data.csv", good, "reject",
                  {**p, "sha256": hashlib.sha256(b"other").hexdigest()}),
        data_case("csv-sha256-mismatch-skip-missing", "csv", "data.csv", good, "reject",
                  {**p, "sha256": hashlib.sha256(b"other").hexdigest()},
                  args=run_args("--skip-missing-data")),
        data_case("validate-csv-sha256-mismatch", "csv", "data.csv", good, "reject",
                  {**p, "sha256": hashlib.sha256(b"other").hexdigest()},
                  args=["validate", "cfg.yaml"]),
        data_case("csv-sha256-malformed", "csv", "data.csv", good, "reject",
                  {**p, "sha256": "xyz"}),
        data_case("control-csv-sha256-right", "csv", "data.csv", good, "ok",
                  {**p, "sha256": hashlib.sha256(good.encode()).hexdigest()}),
    ]
    # data_case writes files named after ``path``; a case without a file to write
    for c in cases:
        for k in ("absent.csv", "adir.csv", "loop.csv", "fifo.csv", "/dev/zero"):
            c.files.pop(k, None)
    return cases


def arff_cases() -> list[Case]:
    good = arff_text()
    r = good.split("\n")
    i10 = r.index("@data") + 11
    a, b, _ = r[i10].split(",")
    num_class = good.replace("@attribute label {no,yes}", "@attribute label numeric").replace(
        ",no\n", ",0\n").replace(",yes\n", ",1\n")
    nominal_feat = good.replace("@attribute f1 numeric", "@attribute f1 {lo,hi}")
    nominal_feat = "\n".join(
        ln if i <= r.index("@data") or not ln else
        ",".join([ln.split(",")[0], "lo" if float(ln.split(",")[1]) < 0 else "hi",
                  ln.split(",")[2]])
        for i, ln in enumerate(nominal_feat.split("\n")))
    return [
        data_case("control-arff", "arff", "data.arff", good, "ok"),
        data_case("control-arff-numeric-class", "arff", "data.arff", num_class, "ok"),
        data_case("arff-missing-data-section", "arff", "data.arff",
                  good.replace("@data\n", ""), "reject"),
        data_case("arff-attribute-without-type", "arff", "data.arff",
                  good.replace("@attribute f1 numeric", "@attribute f1"), "reject"),
        data_case("arff-undeclared-class", "arff", "data.arff",
                  _replace_row(good, i10, f"{a},{b},maybe"), "reject"),
        data_case("arff-undeclared-nominal-feature", "arff", "data.arff",
                  nominal_feat.replace(",lo,", ",mid,", 1), "reject"),
        data_case("arff-missing-value", "arff", "data.arff",
                  _replace_row(good, i10, f"?,{b},no"), "reject"),
        data_case("arff-ragged-row", "arff", "data.arff", _replace_row(good, i10, f"{a},no"),
                  "reject"),
        data_case("arff-no-rows", "arff", "data.arff", good.split("@data")[0] + "@data\n",
                  "reject"),
        data_case("arff-target-missing", "arff", "data.arff", good, "reject",
                  {"target": "klass"}),
        data_case("arff-duplicate-attribute", "arff", "data.arff",
                  good.replace("@attribute f1 numeric", "@attribute f0 numeric"), "reject"),
        data_case("arff-quoted-nominals", "arff", "data.arff",
                  good.replace("{no,yes}", "{'no','yes'}").replace(",no\n", ",'no'\n")
                  .replace(",yes\n", ",'yes'\n"), "either"),
        data_case("arff-string-attribute", "arff", "data.arff",
                  good.replace("@attribute f1 numeric", "@attribute f1 string"), "any"),
        data_case("arff-nominal-feature", "arff", "data.arff", nominal_feat, "ok"),
    ]


def libsvm_cases() -> list[Case]:
    good = libsvm_text()
    rows = good.split("\n")
    c10 = rows[10]
    lab, f1, f2 = c10.split(" ")
    unsorted = "\n".join(" ".join([r.split(" ")[0], r.split(" ")[2], r.split(" ")[1]])
                         if r else r for r in rows)
    minus = libsvm_text(labels=("-1", "+1"))
    return [
        data_case("control-libsvm", "libsvm", "data.svm", good, "ok"),
        data_case("control-libsvm-plus-minus-one", "libsvm", "data.svm", minus, "ok"),
        data_case("libsvm-negative-index", "libsvm", "data.svm",
                  _replace_row(good, 10, f"{lab} -1:{f1[2:]} {f2}"), "reject"),
        data_case("libsvm-zero-index", "libsvm", "data.svm",
                  _replace_row(good, 10, f"{lab} 0:{f1[2:]} {f2}"), "any"),
        data_case("libsvm-non-numeric-value", "libsvm", "data.svm",
                  _replace_row(good, 10, f"{lab} 1:abc {f2}"), "reject"),
        data_case("libsvm-nan-value", "libsvm", "data.svm",
                  _replace_row(good, 10, f"{lab} 1:nan {f2}"), "reject"),
        data_case("libsvm-unsorted-indices", "libsvm", "data.svm", unsorted, "either"),
        data_case("libsvm-duplicate-index", "libsvm", "data.svm",
                  _replace_row(good, 10, f"{lab} {f1} {f1} {f2}"), "any"),
        data_case("libsvm-missing-label", "libsvm", "data.svm",
                  _replace_row(good, 10, f"{f1} {f2}"), "reject"),
        data_case("libsvm-string-labels", "libsvm", "data.svm", libsvm_text(labels=NAMES),
                  "either"),
        data_case("libsvm-huge-index", "libsvm", "data.svm",
                  _replace_row(good, 10, f"{lab} {f1} 2000000000:1"), "reject"),
        data_case("libsvm-empty", "libsvm", "data.svm", "", "reject"),
    ]


def numpy_cases() -> list[Case]:
    n = len(Y0)

    def npz(name: str, verdict: str, **arrays: Any) -> Case:
        return data_case(name, "numpy", "data.npz", npz_bytes(**arrays), verdict)

    good = npz_bytes(X=X0, y=Y0)
    return [
        npz("control-npz", "ok", X=X0, y=Y0),
        data_case("control-npy", "numpy", "data.npy", _npy(np.column_stack([X0, Y0])), "ok"),
        npz("control-npz-string-labels", "ok", X=X0, y=np.array(NAMES)[Y0]),
        npz("npz-wrong-keys", "reject", a=X0, b=Y0),
        npz("npz-X-3d", "reject", X=X0[:, :, None], y=Y0),
        npz("npz-y-2d", "reject", X=X0, y=Y0[:, None]),
        npz("npz-X-object", "reject", X=np.array([[None, 1.0]] * n, dtype=object), y=Y0),
        npz("npz-X-nan", "reject", X=np.where(np.arange(n)[:, None] == 10, np.nan, X0), y=Y0),
        npz("npz-y-nan", "reject", X=X0, y=np.where(np.arange(n) == 10, np.nan, Y0)),
        npz("npz-y-inf", "reject", X=X0, y=np.where(np.arange(n) == 10, np.inf, Y0)),
        npz("npz-empty", "reject", X=np.empty((0, 2)), y=np.empty(0, dtype=np.int64)),
        npz("npz-y-non-integral", "either", X=X0, y=Y0 + 0.5),
        npz("npz-X-bool", "any", X=X0 > 0, y=Y0),
        data_case("npz-truncated", "numpy", "data.npz", good[: len(good) // 2], "reject"),
        data_case("numpy-wrong-suffix", "numpy", "data.txt", good, "reject"),
    ]


def _npy(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a)
    return buf.getvalue()
