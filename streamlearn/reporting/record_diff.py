"""Two results folders compared run by run: does a rerun reproduce committed records?

A reader who reruns a config (``streamlearn run CONFIG --out DIR``) checks the numbers
against the committed folder with ``streamlearn records diff COMMITTED DIR``. Each folder's
records are read as ``streamlearn report`` reads them (``runs/``, else ``runs.tar.xz``) and
paired by run id. Of each pair:

* the run's identity (stream, algorithm, seed, fold, specification, derived seeds) must be
  equal, else the two records are of different runs;
* its numbers (final metrics, curves, learner counters, the windowed/fading/holdout
  sections, ...: every field but those of :data:`NOT_COMPARED`) are compared value by
  value: the same bits, or the largest relative difference;
* each final metric and curve point is printed as the tables print it (the record's
  ``metric_info``): a run with a value printed differently *differs*, one whose values
  differ only below the printed digits (and its other numbers by at most
  :data:`ROUNDING_REL`) is a *rounding* difference: our learners' vectorised sums follow
  the CPU's vector width (README, "Seeds and reproducibility");
* a run whose numbers agree but a text differs (a metric's label, a stream's
  description, written by another version) differs in *other fields*.

Then the tables' cells (mean ± SD of each stream × learner × metric, :mod:`summary`'s
aggregation and format) are compared as printed. Timings, memory, versions, the git
commit, the machine, the record digest and the saved predictions' file hash are not
compared: they describe the run, not its result.

A run whose predictions both folders saved (``evaluation.save_predictions``: ``runs/*.pred.npz``
or ``predictions.tar.xz``) has them compared array by array: labels and indices exactly
(a label changed is a difference even when the metrics come out the same), real-valued
predictions to :data:`ROUNDING_REL` (below it a rounding difference, so ``--exact``
fails). They had not been opened: two predictions swapped between right and wrong, OCA
unchanged, passed as "the same bits" (hunt of 7 Dec).
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import numbers
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from streamlearn.evaluation import record_archive
from streamlearn.reporting.display import TIMINGS, fmt_mean_sd
from streamlearn.reporting.kinds import KINDS, is_number
from streamlearn.reporting.summary import Summary, summarize

__all__ = ["NOT_COMPARED", "VERDICTS", "CellDiff", "RecordsDiff", "RunDiff", "diff_folders"]

#: record fields that describe how a run went, not what it gave (the saved predictions'
#: SHA-256 covers their .npz file, whose zip members carry the time they were written)
NOT_COMPARED = frozenset({"timing", "memory", "versions", "git_commit", "digest", "machine",
                          "complete", "predictions_sha256"})
#: record fields that say which run a record is of
IDENTITY = ("stream", "algorithm", "seed", "fold", "spec", "derived_seeds")

#: verdicts of a pair of records, best first
VERDICTS = ("same", "rounding", "other fields", "differs", "status", "different run")
#: a number with no printed form (a learner's counter, such as its last score) differs
#: beyond rounding when its relative difference exceeds ROUNDING_REL and its absolute
#: difference ROUNDING_ABS (a score near 0 differs by 1e-16 at a large relative difference)
ROUNDING_REL = 1e-6
ROUNDING_ABS = 1e-12
#: a table cell's SD printed differently is rounding when it moves by at most this much
#: of the cell's mean: the SD of equal runs whose values differ in their last bits
#: (2e-18 against 0). It had been ROUNDING_REL, which let a mean of 1e8 hide SDs of
#: 14 against 21 in a general-notation cell ("1e+08 ± 14"; hunt of 7 Dec).
SD_ROUNDING_REL = 1e-9


@dataclass(frozen=True)
class RunDiff:
    """One run's records compared."""

    run_id: str
    verdict: str  # one of VERDICTS
    max_rel: float = 0.0  # the largest relative difference of a number (0: same bits)
    #: each difference beyond rounding ("oca 83.70 → 83.71"), or with "other fields" the
    #: values that differ
    differences: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()  # the record's fields whose values differ


@dataclass(frozen=True)
class CellDiff:
    """A table cell (mean ± SD over seeds and folds) printed differently."""

    stream: str
    algorithm: str
    metric: str
    a: str
    b: str


@dataclass
class RecordsDiff:
    """The result of :func:`diff_folders`."""

    a: Path
    b: Path
    runs: list[RunDiff]
    only_a: list[str]
    only_b: list[str]
    cells: list[CellDiff]
    cells_compared: int
    #: cells left out because the folders hold different numbers of runs for them
    cells_skipped: int = 0
    #: records either folder cannot use (corrupt, incomplete), as ``streamlearn report`` names
    problems: list[str] = field(default_factory=list)
    #: the BLAS kernels each folder's records name (``machine.blas``; empty for records
    #: older than 27 Nov): rounding-sensitive runs follow the kernel
    kernels_a: list[str] = field(default_factory=list)
    kernels_b: list[str] = field(default_factory=list)
    #: the CPUs Numba compiled for, as the records name them (``machine.jit_cpu`` and
    #: ``machine.jit_features``; empty for records older than 27 Nov): the summation order
    #: of the kernels' vectorised reductions follows them
    jit_a: list[str] = field(default_factory=list)
    jit_b: list[str] = field(default_factory=list)
    #: paired runs whose saved predictions were compared / saved in one folder only
    predictions_compared: int = 0
    predictions_one_side: int = 0

    def count(self, verdict: str) -> int:
        return sum(r.verdict == verdict for r in self.runs)

    def reproduced(self, *, exact: bool = False, subset: bool = False) -> bool:
        """Every paired run within tolerance (with ``exact`` the same bits and texts, else
        no number beyond rounding, the same status, the same run) and every table cell
        printed alike; unless ``subset``, the two folders hold the same runs; no unusable
        record."""
        worst_ok = "same" if exact else "other fields"
        limit = VERDICTS.index(worst_ok)
        if any(VERDICTS.index(r.verdict) > limit for r in self.runs) or self.problems:
            return False
        if self.cells:
            return False
        return subset or not (self.only_a or self.only_b)


def _rel(x: float, y: float) -> float:
    if x == y or (math.isnan(x) and math.isnan(y)):
        return 0.0
    if not (math.isfinite(x) and math.isfinite(y)):
        return math.inf
    return abs(x - y) / max(abs(x), abs(y))


Leaf = tuple[tuple[Any, ...], Any, Any]


def _same_bits(x: Any, y: Any) -> bool:
    """The same number in the same JSON type: ``0.0`` and ``-0.0``, ``3`` and ``3.0``,
    ``true`` and ``1`` are not (``==`` had called them the same bits); NaN is NaN."""
    if type(x) is not type(y):
        return False
    if isinstance(x, float):
        return struct.pack("<d", x) == struct.pack("<d", y) or (math.isnan(x)
                                                                and math.isnan(y))
    return bool(x == y)


def _walk(x: Any, y: Any, path: tuple[Any, ...] = ()) -> list[Leaf]:
    """The leaves where ``x`` and ``y`` differ, with their paths (a missing key or list
    entry is a leaf whose value is :data:`MISSING`)."""
    if isinstance(x, dict) and isinstance(y, dict):
        out: list[Leaf] = []
        for k in sorted(set(x) | set(y), key=str):
            out += _walk(x.get(k, MISSING), y.get(k, MISSING), (*path, k))
        return out
    if isinstance(x, list) and isinstance(y, list):
        out = []
        for i in range(max(len(x), len(y))):
            out += _walk(x[i] if i < len(x) else MISSING, y[i] if i < len(y) else MISSING,
                         (*path, i))
        return out
    if is_number(x) and is_number(y):
        return [] if _same_bits(x, y) else [(path, x, y)]
    return [] if x == y else [(path, x, y)]


class _Missing:
    def __repr__(self) -> str:
        return "(none)"


MISSING = _Missing()


def _metric_key(path: tuple[Any, ...]) -> tuple[str, Any] | None:
    """For a final metric or a curve point: its table key (``oca``, ``oca.windowed``) and
    the curve index (None for a final value); else None."""
    kind = ""
    if path and path[0] in KINDS:
        kind, path = "." + str(path[0]), path[1:]
    if len(path) == 2 and path[0] == "metrics":
        return f"{path[1]}{kind}", None
    if len(path) == 3 and path[0] == "curves" and path[1] != "t":
        return f"{path[1]}{kind}", path[2]
    return None


def _unsigned_zero(text: str) -> str:
    """``-0.00`` as ``0.00``: a value that prints as zero has no sign worth a difference
    (a kappa of -1e-17 against +1e-17)."""
    return text[1:] if text.startswith("-") and not any(c in "123456789" for c in text) \
        else text


def _shown(summary: Summary, key: str, value: Any) -> str:
    if not is_number(value):
        return repr(value)
    m = summary.display(key)
    return _unsigned_zero(m.format(float(value) * m.scale))


def _beyond_rounding(leaf: Leaf, sa: Summary, sb: Summary) -> str | None:
    """How ``leaf`` differs when it differs more than rounding: a final metric or curve
    point printed differently, another number by more than :data:`ROUNDING_REL` (relative)
    and :data:`ROUNDING_ABS`, an integer (a count, the curve's sample axis) or a missing
    value; None when it is rounding."""
    path, x, y = leaf
    where = ".".join(map(str, path))
    mk = _metric_key(path)
    if mk is not None and is_number(x) and is_number(y):
        key, i = mk
        px, py = _shown(sa, key, x), _shown(sb, key, y)
        if px == py:
            return None
        return f"{key} {px} → {py}" if i is None else f"{key} curve point {i}: {px} → {py}"
    if is_number(x) and is_number(y) and not (
            isinstance(x, numbers.Integral) and isinstance(y, numbers.Integral)):
        if (_rel(float(x), float(y)) <= ROUNDING_REL
                or abs(float(x) - float(y)) <= ROUNDING_ABS):
            return None
    return f"{where} {x!r} → {y!r}"


def _holds_number(v: Any) -> bool:
    """A number, or a section (dict, list) with a number somewhere in it."""
    if is_number(v):
        return True
    if isinstance(v, dict):
        return any(_holds_number(x) for x in v.values())
    if isinstance(v, list):
        return any(_holds_number(x) for x in v)
    return False


def _numbers_lost(x: Any, y: Any) -> bool:
    """A leaf where numbers stand on one side only, or in another shape: a deleted curve
    or count, a count become null, ``"50"`` or ``true``. These had passed as "other
    fields" (texts only) and the default mode said "reproduced" (hunt of 7 Dec)."""
    return (_holds_number(x) or _holds_number(y)) and not (is_number(x) and is_number(y))


def _diff_run(rid: str, ra: dict[str, Any], rb: dict[str, Any], sa: Summary,
              sb: Summary) -> RunDiff:
    def same(k: str) -> bool:  # JSON types too: a reseed of true is not one of 1
        return json.dumps(ra.get(k), sort_keys=True) == json.dumps(rb.get(k), sort_keys=True)

    if not all(same(k) for k in IDENTITY):
        keys = tuple(k for k in IDENTITY if not same(k))
        return RunDiff(rid, "different run", fields=keys)
    if ra.get("status") != rb.get("status"):
        return RunDiff(rid, "status", fields=("status",),
                       differences=(f"status {ra.get('status')} → {rb.get('status')}",))
    compared = sorted((set(ra) | set(rb)) - NOT_COMPARED - set(IDENTITY))
    leaves = _walk({k: ra.get(k, MISSING) for k in compared},
                   {k: rb.get(k, MISSING) for k in compared})
    fields = tuple(dict.fromkeys(str(p[0]) for p, _, _ in leaves))
    numeric = [(p, x, y) for p, x, y in leaves if is_number(x) and is_number(y)]
    rel = max((_rel(float(x), float(y)) for _, x, y in numeric), default=0.0)
    beyond = [d for leaf in leaves
              if ((is_number(leaf[1]) and is_number(leaf[2])) or _metric_key(leaf[0])
                  or _numbers_lost(leaf[1], leaf[2]))
              and (d := _beyond_rounding(leaf, sa, sb)) is not None]
    # a text that differs (a metric's label, a stream's description): "other fields"
    texts = [f"{'.'.join(map(str, p))} {x!r} → {y!r}" for p, x, y in leaves
             if not ((is_number(x) and is_number(y)) or _metric_key(p)
                     or _numbers_lost(x, y))]
    # numbers that differ only in their bits' type or zero's sign (rel 0): rounding too,
    # so --exact ("the same bits") fails on them
    verdict = ("differs" if beyond else "other fields" if texts
               else "rounding" if numeric else "same")
    shown = tuple(beyond or texts)
    return RunDiff(rid, verdict, rel, shown, fields)


@dataclass(frozen=True)
class _Cell:
    text: str  # mean ± SD as the table prints it
    mean_text: str
    n: int
    mean: float
    sd: float


def _cells(s: Summary) -> dict[tuple[str, str, str], _Cell]:
    """Each table cell's printed mean ± SD and its values (timings left out)."""
    rows = s.table[(s.table["kind"] == "run") & ~s.table["metric"].isin(list(TIMINGS))]
    out = {}
    for row in rows.to_dict("records"):
        m = s.display(str(row["metric"]))
        n, mean, sd = int(row["n"]), float(row["mean"]), float(row["sd"])
        out[(str(row["stream"]), str(row["algorithm"]), str(row["metric"]))] = _Cell(
            fmt_mean_sd(m, mean, sd, n), fmt_mean_sd(m, mean, math.nan, 1), n, mean, sd)
    return out


def _cell_differs(a: _Cell, b: _Cell) -> bool:
    """Printed differently, beyond rounding: the means print differently, or the SDs do
    and differ by more than :data:`SD_ROUNDING_REL` of the mean (an SD printed in general
    notation shows the rounding of identical runs: 2.1e-18 against 0)."""
    if a.text == b.text:
        return False
    if _unsigned_zero(a.mean_text) != _unsigned_zero(b.mean_text):
        return True
    scale = max(abs(a.mean), abs(b.mean))
    return not abs(a.sd - b.sd) <= SD_ROUNDING_REL * scale


def _kernels(runs: list[dict[str, Any]]) -> list[str]:
    """The BLAS libraries and kernels the records name: "openblas 0.3.30: Haswell"."""
    out = set()
    for r in runs:
        blas = (r.get("machine") or {}).get("blas") if isinstance(r.get("machine"), dict) else None
        for b in blas if isinstance(blas, list) else []:
            if isinstance(b, dict) and b.get("kernel"):
                out.add(f"{b.get('library')} {b.get('version')}: {b.get('kernel')}")
    return sorted(out)


def _jit_targets(runs: list[dict[str, Any]]) -> list[str]:
    """The CPUs Numba compiled for, with any features beyond the host's, as the records
    name them: "znver4", "emeraldrapids -prefer-256-bit", "znver4 SVML"."""
    out = set()
    for r in runs:
        info = r.get("machine")
        if isinstance(info, dict) and info.get("jit_cpu"):
            svml = "SVML" if info.get("jit_svml") else ""
            out.add(" ".join(str(x) for x in (info["jit_cpu"], info.get("jit_features"), svml)
                             if x))
    return sorted(out)


def _saved_predictions(folder: Path, rid: str) -> dict[str, np.ndarray] | None:
    """The arrays of ``rid``'s saved predictions in ``folder`` (None: none saved);
    :class:`~streamlearn.evaluation.record_archive.PredictionsMismatch` when the file is
    not the one its record names."""
    data = record_archive.read_predictions(folder, rid)
    if data is None:
        return None
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _float_bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.float64).view(np.int64)


def _diff_predictions(pa: dict[str, np.ndarray], pb: dict[str, np.ndarray],
                      ) -> tuple[float, list[str], bool]:
    """``(largest relative difference, differences beyond rounding, any bit differs)`` of
    two runs' saved prediction arrays."""
    rel, beyond, differ = 0.0, [], False
    for k in sorted(set(pa) | set(pb)):
        x, y = pa.get(k), pb.get(k)
        if x is None or y is None or x.shape != y.shape:
            beyond.append(f"saved predictions: {k} "
                          + ("in one folder only" if x is None or y is None
                             else f"of {x.shape[0]} against {y.shape[0]} entries"))
            differ = True
            continue
        if x.dtype.kind == "f" and y.dtype.kind == "f":
            same = _float_bits(x) == _float_bits(y)
            both_nan = np.isnan(x) & np.isnan(y)
            bad = ~(same | both_nan)
            if not bad.any():
                continue
            differ = True
            xa, ya = x[bad].astype(np.float64), y[bad].astype(np.float64)
            with np.errstate(invalid="ignore", divide="ignore"):
                r = np.abs(xa - ya) / np.maximum(np.abs(xa), np.abs(ya))
            r = np.where(np.isfinite(xa) & np.isfinite(ya), np.nan_to_num(r), np.inf)
            worst = float(r.max())
            rel = max(rel, worst)
            if worst > ROUNDING_REL:
                beyond.append(f"saved predictions: {k}: {int(bad.sum())} of {x.size} differ, "
                              f"up to {worst:.1e} relative")
        else:
            n = int(np.count_nonzero(x != y)) if x.dtype == y.dtype else x.size
            if n:
                differ = True
                beyond.append(f"saved predictions: {k}: {n} of {x.size} differ")
    return rel, beyond, differ


def _with_predictions(run: RunDiff, a: Path, b: Path, problems: list[str]) -> tuple[
        RunDiff, int]:
    """``run`` with its saved predictions compared when both folders have them; the
    second value is 1 when they were compared, -1 when one folder only has them, else 0."""
    if run.verdict in ("status", "different run"):
        return run, 0
    try:
        pa, pb = _saved_predictions(a, run.run_id), _saved_predictions(b, run.run_id)
    except record_archive.PredictionsMismatch as err:
        problems.append(str(err))
        return run, 0
    if pa is None or pb is None:
        return run, (0 if pa is None and pb is None else -1)
    rel, beyond, differ = _diff_predictions(pa, pb)
    if not differ:
        return run, 1
    verdict = run.verdict
    if beyond:
        verdict = "differs"
    elif verdict == "same":
        verdict = "rounding"
    return dataclasses.replace(
        run, verdict=verdict, max_rel=max(run.max_rel, rel),
        differences=(run.differences if run.verdict == "differs" else ())
        + tuple(beyond), fields=(*run.fields, "predictions")), 1


def diff_folders(a: Path, b: Path) -> RecordsDiff:
    """Compare the run records of results folders ``a`` (e.g. committed) and ``b`` (e.g. a
    rerun of the same config): see the module docstring."""
    sa, sb = summarize(Path(a)), summarize(Path(b))
    recs_a = {r["run_id"]: r for r in [*sa.runs, *sa.failed]}
    recs_b = {r["run_id"]: r for r in [*sb.runs, *sb.failed]}
    runs = [_diff_run(rid, recs_a[rid], recs_b[rid], sa, sb)
            for rid in sorted(set(recs_a) & set(recs_b))]
    pred_problems: list[str] = []
    pred_counts = [0, 0]
    if record_archive.has_predictions(Path(a)) or record_archive.has_predictions(Path(b)):
        for i, run in enumerate(runs):
            runs[i], seen = _with_predictions(run, Path(a), Path(b), pred_problems)
            if seen:
                pred_counts[0 if seen > 0 else 1] += 1
    ca, cb = _cells(sa), _cells(sb)
    cells, compared, skipped = [], 0, 0
    for key in sorted(set(ca) & set(cb)):
        a_cell, b_cell = ca[key], cb[key]
        if a_cell.n != b_cell.n:
            skipped += 1
            continue
        compared += 1
        if _cell_differs(a_cell, b_cell):
            cells.append(CellDiff(*key, a_cell.text, b_cell.text))
    problems = [f"{Path(a)}: {p.describe()}" for p in sa.problems]
    problems += [f"{Path(b)}: {p.describe()}" for p in sb.problems]
    problems += pred_problems
    return RecordsDiff(Path(a), Path(b), runs, sorted(set(recs_a) - set(recs_b)),
                       sorted(set(recs_b) - set(recs_a)), cells, compared, skipped, problems,
                       _kernels(list(recs_a.values())), _kernels(list(recs_b.values())),
                       _jit_targets(list(recs_a.values())), _jit_targets(list(recs_b.values())),
                       pred_counts[0], pred_counts[1])
