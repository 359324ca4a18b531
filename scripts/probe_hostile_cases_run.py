"""The hostile cases of scripts/probe_hostile_inputs.py that run learners and touch
directories: misbehaving learners, `streamlearn check`, output directories, `report`,
data directories and `data verify`, CLI options, a scheduler that is not Dask. The case
types, the data and the config and file cases are in probe_hostile_cases.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from probe_hostile_cases import (
    MAJ,
    SEGMENT,
    THR,
    X0,
    Y0,
    Case,
    Expect,
    arff_cases,
    config,
    config_cases,
    const_oca,
    csv_cases,
    csv_text,
    dump,
    learner_files,
    libsvm_cases,
    make_data,
    numpy_cases,
    reject,
    run_args,
    run_case,
    runs_of,
    thr_oca,
)

# --------------------------------------------------------------------------------------
# Category: learner (misbehaving user learners beside an honest one)
# --------------------------------------------------------------------------------------


def _bad(cls: str, label: str = "Bad", **params: Any) -> dict[str, Any]:
    return {"name": f"probe_learners:{cls}", "label": label, "params": params}


def learner_case(name: str, bad: dict[str, Any], *, may_succeed_with: float | None = None,
                 may_refuse: bool = False, jobs: int = 1, repeats: int = 1,
                 first: bool = True, says: str | None = None) -> Case:
    """``bad`` beside Threshold ("Thr"). Its runs must be recorded as failed (exit 1) while
    Thr's are complete and right; with ``may_succeed_with`` the command may also succeed,
    bad's OCA then being that value; ``may_refuse``: a config error (exit 2) is clean too."""
    algos = [bad, THR] if first else [THR, bad]
    cfg = config(algorithms=algos, repeats=repeats)
    runs = runs_of(cfg)
    for key in runs:
        if key[1] == bad["label"]:
            runs[key] = may_succeed_with
    expect = Expect(fail_run=True, ok=may_succeed_with is not None, runs=runs,
                    bad=(bad["label"],), says=says,
                    reject=frozenset({2}) if may_refuse else frozenset())
    return run_case(name, "learner", cfg, expect, args=run_args() if jobs == 1 else
                    ["run", "cfg.yaml", "-q", "--jobs", str(jobs)])


def learner_cases() -> list[Case]:
    cases = []
    every = ("ValueError", "SystemExit0", "SystemExit1", "SystemExitMsg", "KeyboardInterrupt",
             "GeneratorExit")
    for where, whats in (("predict_one", every), ("learn_one", ("SystemExit0", "GeneratorExit")),
                         ("__init__", ("ValueError", "SystemExit0", "KeyboardInterrupt")),
                         ("reset", ("SystemExit0", "KeyboardInterrupt")),
                         ("warm_up", ("ValueError", "SystemExit0"))):
        for what in whats:
            cases.append(learner_case(f"raises-{what}-in-{where}",
                                      _bad("Raises", where=where, what=what,
                                           after=5 if where.endswith("_one") else 1),
                                      may_refuse=where == "__init__"))
    for what in ("MemoryError", "BaseException"):
        cases.append(learner_case(f"raises-{what}-in-predict_one",
                                  _bad("Raises", where="predict_one", what=what)))
    for what in ("SystemExit0", "KeyboardInterrupt"):
        cases.append(learner_case(f"raises-{what}-in-predict_one-jobs2",
                                  _bad("Raises", where="predict_one", what=what),
                                  jobs=2, repeats=2))
    for how in ("os_exit0", "sigkill"):
        cases.append(learner_case(f"worker-{how}-jobs2", _bad("ExitsInWorker", how=how),
                                  jobs=2, repeats=2))
    one = const_oca(Y0, 1)
    # the failure names the bad prediction (not NumPy's broadcasting internals)
    shown = {"none": "None", "nan": "(?i:nan)", "1.5": "1\\.5", "99": "99", "-1": "-1",
             "str": "'a'"}
    for value in ("none", "nan", "1.5", "99", "-1", "str"):
        cases.append(learner_case(f"predicts-{value}", _bad("Predicts", value=value),
                                  says=rf"(?<![\w.]){shown[value]}(?![\w.])"))
    for value in ("int64_1", "float_1", "array_1"):
        cases.append(learner_case(f"predicts-{value}", _bad("Predicts", value=value),
                                  may_succeed_with=one))
    for kind in ("short", "half", "99", "none"):
        cases.append(learner_case(f"fused-returns-{kind}", _bad("Fused", kind=kind)))
    for kind in ("2d_col", "scalar"):
        cases.append(learner_case(f"fused-returns-{kind}", _bad("Fused", kind=kind),
                                  may_succeed_with=one))
    zero = const_oca(Y0, 0)
    for where in ("predict_one", "learn_one", "warm_up"):
        cases.append(learner_case(f"mutates-x-in-{where}", _bad("Mutates", where=where),
                                  may_succeed_with=zero))
    for where in ("X", "y"):
        cases.append(learner_case(f"fused-mutates-{where}", _bad("MutatesFused", where=where),
                                  may_succeed_with=zero))
    cases.append(learner_case("unpicklable-jobs2", _bad("Unpicklable"), jobs=2, repeats=2,
                              may_succeed_with=thr_oca(X0, Y0)))
    cases.append(learner_case("changes-working-directory", _bad("ChangesDirectory"),
                              may_succeed_with=thr_oca(X0, Y0)))
    cfg = config(algorithms=[_bad("Slow", label="Slow", delay=0.005), THR])
    cases.append(run_case("control-slow-learner", "learner", cfg,
                          Expect(ok=True, runs=runs_of(cfg), control=True)))
    cfg = config(algorithms=[_bad("Fused", label="Fused", kind="ones"), THR])
    runs = runs_of(cfg)
    runs[("Data", "Fused", 0)] = one
    cases.append(run_case("control-fused-learner", "learner", cfg,
                          Expect(ok=True, runs=runs, control=True)))
    cfg = config(algorithms=[_bad("Centroid", label="Cen"), THR, MAJ], repeats=2)
    cases.append(run_case("control-three-learners-jobs2", "learner", cfg,
                          Expect(ok=True, runs=runs_of(cfg), control=True),
                          args=["run", "cfg.yaml", "-q", "--jobs", "2"]))
    return cases


def check_cases() -> list[Case]:
    def check(name: str, target: str, expect: Expect, *params: str,
              files: dict[str, bytes | str] | None = None) -> Case:
        args = ["check", target]
        for p in params:
            args += ["--param", p]
        return Case(name, "check", args, expect, learner_files(files))

    return [
        check("control-check-centroid", "probe_learners:Centroid",
              Expect(ok=True, control=True)),
        *[check(f"check-raises-{w}", "probe_learners:Raises", reject(1), f"what={w}")
          for w in ("ValueError", "SystemExit0", "KeyboardInterrupt", "GeneratorExit")],
        *[check(f"check-predicts-{v}", "probe_learners:Predicts", reject(1), f'value="{v}"')
          for v in ("none", "99", "1.5")],
        check("check-mutates-x", "probe_learners:Mutates", reject(1)),
        check("check-fused-short", "probe_learners:Fused", reject(1), "kind=short"),
        check("check-unpicklable", "probe_learners:Unpicklable", reject(1)),
        check("check-raises-in-init", "probe_learners:Raises", reject(1, 2), "where=__init__"),
        check("check-missing-module", "no_such_module:X", reject(2)),
        check("check-module-syntax-error", "broken_mod:X", reject(2),
              files={"broken_mod.py": "def f(:\n"}),
        check("check-module-raises-on-import", "raising_mod:X", reject(2),
              files={"raising_mod.py": "raise RuntimeError('probe: import fails')\n"}),
        check("check-module-exits-on-import", "exiting_mod:X", reject(2),
              files={"exiting_mod.py": "raise SystemExit(0)\n"}),
        check("check-param-unknown", "probe_learners:Centroid", reject(2), "bogus=1"),
        check("check-param-wrong-type", "probe_learners:Slow", reject(2), "delay=abc"),
        check("check-not-a-learner", "probe_learners:boom", reject(2)),
    ]


# --------------------------------------------------------------------------------------
# Category: outdir (the output directory) and report
# --------------------------------------------------------------------------------------


def _control(out: str = "out", **kw: Any) -> tuple[dict[str, Any], Expect]:
    cfg = config(outputs={"dir": out, "plots": []}, **kw)
    return cfg, Expect(ok=True, runs=runs_of(cfg), control=True)


def _copy_golden(kind: str, dest: str = "out") -> Callable[[Path, Any], None]:
    def setup(d: Path, ctx: Any) -> None:
        shutil.copytree(ctx.golden(kind), d / dest, symlinks=True)
    return setup


def _then(*steps: Callable[[Path, Any], None]) -> Callable[[Path, Any], None]:
    def setup(d: Path, ctx: Any) -> None:
        for s in steps:
            s(d, ctx)
    return setup


def _edit_record(fn: Callable[[Path], None]) -> Callable[[Path, Any], None]:
    def setup(d: Path, ctx: Any) -> None:
        fn(sorted((d / "out" / "runs").glob("*.json"))[0])
    return setup


def _set_json(key: str, value: Any) -> Callable[[Path], None]:
    import json

    def edit(p: Path) -> None:
        rec = json.loads(p.read_text())
        if value is _DELETE:
            rec.pop(key, None)
        else:
            rec[key] = value
        p.write_text(json.dumps(rec))
    return edit


_DELETE = object()


def _unchanged(rel: str, content: str) -> Callable[[Path, str], str | None]:
    def check(d: Path, output: str) -> str | None:
        p = d / rel
        return None if p.is_file() and p.read_text() == content else f"{rel} was changed"
    return check


def outdir_cases() -> list[Case]:
    def out_case(name: str, out: str, expect: Expect, setup: Any = None,
                 args: list[str] | None = None, case_out: str | None = None,
                 files: dict[str, bytes | str] | None = None, **kw: Any) -> Case:
        cfg = config(outputs={"dir": out, "plots": []}, **kw)
        return run_case(name, "outdir", cfg, expect, setup=setup, args=args,
                        out=case_out if case_out is not None else out, files=files)

    cfg, ok = _control()
    X1, Y1 = make_data(seed=1)
    new_runs = runs_of(cfg, X1, Y1)
    write = lambda rel, text: lambda d, ctx: (d / rel).write_text(text)  # noqa: E731
    return [
        out_case("control-out-fresh", "out", ok),
        out_case("out-is-a-file", "out", reject(4), setup=write("out", "mine")),
        out_case("out-symlink-loop", "out",
                 Expect(reject=frozenset({4}), not_says="File exists", says="(?i)link|loop"),
                 setup=lambda d, ctx: os.symlink("out", d / "out")),
        out_case("out-symlink-loop-pair", "out", reject(4),
                 setup=lambda d, ctx: (os.symlink("b", d / "out"), os.symlink("out", d / "b"))),
        out_case("out-dangling-symlink", "out", Expect(reject=frozenset({4}), ok=True,
                                                        runs=runs_of(cfg)),
                 setup=lambda d, ctx: os.symlink("gone/target", d / "out")),
        out_case("out-symlink-to-file", "out", reject(4),
                 setup=_then(write("afile", "mine"),
                             lambda d, ctx: os.symlink("afile", d / "out"))),
        out_case("out-under-proc", "/proc/streamlearn-probe-out", reject(4)),
        out_case("out-under-sys", "/sys/streamlearn-probe-out", reject(4)),
        out_case("out-dev-null", "/dev/null", reject(4)),
        out_case("out-under-a-file", "afile/sub", reject(4), setup=write("afile", "mine")),
        out_case("out-name-over-255-bytes", "o" * 300, reject(2, 4)),
        out_case("out-is-the-config", "out", reject(4), args=run_args("--out", "cfg.yaml"),
                 case_out="cfg.yaml"),
        out_case("out-name-with-newline", "out\nx", Expect(reject=frozenset({2, 4}), ok=True,
                                                           runs=runs_of(cfg))),
        out_case("out-other-experiment-there", "out",
                 Expect(reject=frozenset({2, 4}), ok=True, runs=runs_of(cfg)),
                 setup=_copy_golden("other")),
        out_case("out-resume-after-data-changed", "out",
                 Expect(reject=frozenset({2, 3, 4}), ok=True, runs=new_runs),
                 setup=_copy_golden("control"), files={"data.csv": csv_text(X1, Y1)}),
        out_case("out-resume-truncated-record", "out", ok,
                 setup=_then(_copy_golden("control"), _edit_record(
                     lambda p: p.write_bytes(p.read_bytes()[:100])))),
        out_case("out-resume-failed-record", "out", ok,
                 setup=_then(_copy_golden("control"),
                             _edit_record(_set_json("status", "failed")))),
        out_case("out-resume-record-without-metrics", "out", ok,
                 setup=_then(_copy_golden("control"),
                             _edit_record(_set_json("metrics", _DELETE)))),
        out_case("out-resume-record-is-a-list", "out", ok,
                 setup=_then(_copy_golden("control"),
                             _edit_record(lambda p: p.write_text("[1, 2]")))),
        out_case("out-resume-record-is-a-directory", "out",
                 Expect(reject=frozenset({4}), ok=True, runs=runs_of(cfg)),
                 setup=_then(_copy_golden("control"), _edit_record(
                     lambda p: (p.unlink(), p.mkdir())))),
        out_case("out-stale-lock", "out", ok,
                 setup=lambda d, ctx: ((d / "out").mkdir(),
                                       (d / "out" / ".streamlearn.lock").write_text("999999"))),
        out_case("out-unrelated-user-file", "out",
                 Expect(ok=True, runs=runs_of(cfg), check=_unchanged("out/notes.txt", "keep")),
                 setup=lambda d, ctx: ((d / "out").mkdir(),
                                       (d / "out" / "notes.txt").write_text("keep"))),
        Case("out-concurrent-runs", "outdir", run_args(),
             Expect(reject=frozenset({5}), ok=True, runs=runs_of(
                 config(algorithms=[_bad("Slow", label="Slow", delay=0.02), THR]))),
             {**learner_files(), "cfg.yaml": dump(config(
                 algorithms=[_bad("Slow", label="Slow", delay=0.02), THR]))},
             runner="concurrent"),
    ]


def report_cases() -> list[Case]:
    def rep(name: str, expect: Expect, setup: Any, args: list[str] | None = None) -> Case:
        return Case(name, "report", args or ["report", "out"], expect, learner_files(),
                    setup=setup)

    gold = _copy_golden("control")
    html_check = lambda d, out: None if (d / "out" / "report.html").is_file() \
        else "report.html missing"  # noqa: E731
    return [
        rep("control-report", Expect(ok=True, control=True), gold),
        rep("control-report-html", Expect(ok=True, control=True, check=html_check), gold,
            ["report", "out", "--html"]),
        rep("report-missing-dir", reject(1, 2), None),
        rep("report-on-a-file", reject(1, 2, 4), lambda d, ctx: (d / "out").write_text("x")),
        rep("report-empty-dir", reject(1, 2), lambda d, ctx: (d / "out").mkdir()),
        rep("report-truncated-record", reject(1),
            _then(gold, _edit_record(lambda p: p.write_bytes(p.read_bytes()[:100])))),
        rep("report-record-without-metrics", reject(1),
            _then(gold, _edit_record(_set_json("metrics", _DELETE)))),
        rep("report-record-nan-metric", reject(1),
            _then(gold, _edit_record(_set_json("metrics", {"oca": float("nan"),
                                                           "oce": float("nan")})))),
        rep("report-experiment-json-missing", reject(1, 2),
            _then(gold, lambda d, ctx: (d / "out" / "experiment.json").unlink())),
        rep("report-experiment-json-garbage", reject(1, 2),
            _then(gold, lambda d, ctx: (d / "out" / "experiment.json").write_text("{nope"))),
    ]


# --------------------------------------------------------------------------------------
# Category: datadir (--data-dir, $STREAMLEARN_DATA, `data verify`)
# --------------------------------------------------------------------------------------


def _segment_copy(*, drop: str | None = None, flip: str | None = None,
                  as_dir: str | None = None,
                  dangling: str | None = None) -> Callable[[Path, Any], None]:
    def setup(d: Path, ctx: Any) -> None:
        dest = d / "data" / SEGMENT
        dest.mkdir(parents=True)
        for f in sorted((ctx.shared_data / SEGMENT).iterdir()):
            target = dest / f.name
            if f.name == drop:
                continue
            if f.name == as_dir:
                target.mkdir()
                continue
            if f.name == dangling:
                os.symlink("/nonexistent/probe", target)
                continue
            data = f.read_bytes()
            if f.name == flip:
                data = data[:1000] + bytes([data[1000] ^ 1]) + data[1001:]
            target.write_bytes(data)
    return setup


def datadir_cases() -> list[Case]:
    seg_cfg = config(streams=[{"name": "segment", "label": "Seg", "max_samples": 150}],
                     algorithms=[MAJ])
    seg_runs = dict.fromkeys(runs_of(seg_cfg))
    files = {"cfg.yaml": dump(seg_cfg)}

    def dd(name: str, args: list[str], expect: Expect, setup: Any = None,
           env: dict[str, str] | None = None) -> Case:
        return Case(name, "datadir", args, expect, {**learner_files(), **files}, setup=setup,
                    env=env or {})

    test, train = "segmentation.test", "segmentation.data"
    good = _segment_copy()
    return [
        dd("run-data-dir-missing", run_args("--data-dir", "nope"), reject(2)),
        dd("run-data-dir-is-a-file", run_args("--data-dir", "cfg.yaml"), reject(2)),
        dd("run-data-dir-empty", run_args("--data-dir", "data"), reject(3),
           lambda d, ctx: (d / "data").mkdir()),
        dd("run-data-dir-empty-skip-missing", run_args("--data-dir", "data",
                                                       "--skip-missing-data"),
           Expect(ok=True, control=True), lambda d, ctx: (d / "data").mkdir()),
        dd("run-env-data-dir-missing", run_args(), reject(3),
           env={"STREAMLEARN_DATA": "/nonexistent/probe-data"}),
        dd("control-run-data-dir-copy", run_args("--data-dir", "data"),
           Expect(ok=True, runs=seg_runs, control=True), good),
        dd("run-data-dir-file-flipped", run_args("--data-dir", "data"), reject(3),
           _segment_copy(flip=test)),
        dd("run-data-dir-file-missing", run_args("--data-dir", "data"), reject(3),
           _segment_copy(drop=test)),
        dd("validate-data-dir-file-flipped", ["validate", "cfg.yaml", "--data-dir", "data"],
           reject(3), _segment_copy(flip=test)),
        dd("control-data-verify-segment", ["data", "verify", "segment", "--data-dir", "data"],
           Expect(ok=True, control=True), good),
        dd("control-data-info-segment", ["data", "info", "segment", "--data-dir", "data"],
           Expect(ok=True, control=True), good),
        dd("data-verify-all-file-missing", ["data", "verify", "--data-dir", "data"],
           reject(3), _segment_copy(drop=test)),
        dd("data-verify-segment-file-missing", ["data", "verify", "segment", "--data-dir",
                                                "data"], reject(3), _segment_copy(drop=test)),
        dd("data-verify-all-train-missing", ["data", "verify", "--data-dir", "data"],
           reject(3), _segment_copy(drop=train)),
        dd("data-verify-byte-flipped", ["data", "verify", "segment", "--data-dir", "data"],
           reject(3), _segment_copy(flip=test)),
        dd("data-verify-file-is-a-directory", ["data", "verify", "--data-dir", "data"],
           reject(3), _segment_copy(as_dir=test)),
        dd("data-verify-dangling-link", ["data", "verify", "--data-dir", "data"],
           reject(3), _segment_copy(dangling=test)),
        dd("data-verify-empty-dir", ["data", "verify", "--data-dir", "data"], reject(3),
           lambda d, ctx: (d / "data").mkdir()),
        dd("data-verify-dir-is-a-file", ["data", "verify", "--data-dir", "cfg.yaml"],
           reject(2, 3)),
        dd("data-verify-unknown-name", ["data", "verify", "nosuchdata", "--data-dir", "data"],
           reject(2), good),
    ]


# --------------------------------------------------------------------------------------
# Category: cli (options) and scheduler (--backend dask --scheduler)
# --------------------------------------------------------------------------------------


def _has_version(d: Path, output: str) -> str | None:
    import re

    return None if re.search(r"\d+\.\d+", output) else "no version number printed"


def cli_cases() -> list[Case]:
    cfg, _ = _control()

    def cli(name: str, args: list[str], expect: Expect, **kw: Any) -> Case:
        return run_case(name, "cli", cfg, expect, args=args, **kw)

    return [
        cli("version", ["--version"], Expect(ok=True, check=_has_version)),
        cli("no-arguments", [], Expect(reject=frozenset({2}), ok=True)),
        cli("unknown-command", ["frobnicate"], reject(2)),
        cli("run-jobs-zero", run_args("--jobs", "0"), reject(2)),
        cli("run-jobs-negative", ["run", "cfg.yaml", "-q", "--jobs", "-1"], reject(2)),
        cli("run-retries-negative", run_args("--retries", "-1"), reject(2)),
        cli("run-backend-unknown", run_args("--backend", "threads"), reject(2)),
        cli("run-scheduler-without-dask-backend", run_args("--scheduler", "tcp://127.0.0.1:1"),
            reject(2)),
        cli("run-backend-dask", run_args("--backend", "dask"),
            Expect(reject=frozenset({2}), ok=True, runs=runs_of(cfg))),
        cli("control-run-smoke", run_args("--smoke"), Expect(ok=True, control=True),
            out="smoke/out"),
    ]


def scheduler_cases() -> list[Case]:
    cfg, _ = _control()
    args = run_args("--backend", "dask", "--scheduler", "tcp://127.0.0.1:{port}")
    return [run_case(f"scheduler-{kind}", "scheduler", cfg, reject(2), args=list(args),
                     runner=kind, needs="dask", timeout=60)
            for kind in ("closed-port", "http-server", "garbage-server", "silent-server")]


#: completed experiments that cases copy into their directory (run once per probe)
GOLDEN: dict[str, dict[str, Any]] = {
    "control": config(),
    "other": config(name="other", algorithms=[{"name": "probe_learners:Majority",
                                                 "label": "Other"}]),
}


def all_cases() -> list[Case]:
    return [*config_cases(), *csv_cases(), *arff_cases(), *libsvm_cases(), *numpy_cases(),
            *learner_cases(), *check_cases(), *outdir_cases(), *report_cases(),
            *datadir_cases(), *cli_cases(), *scheduler_cases()]


def dask_available(python: str) -> bool:
    return subprocess.run([python, "-c", "import distributed"], capture_output=True,
                          timeout=60).returncode == 0
