"""Does a learner beat the others over many streams? The statistics of ``streamlearn
compare`` (Demšar 2006; Benavoli, Corani and Mangili 2016).

From one or several experiment output directories (the same learners on the same
protocol; several directories are merged, e.g. one per group of streams), for one metric:

* the **per-stream mean** of every learner: the mean over its runs (seeds, and folds)
  of the values in the run records (not the rounded table cells), in display units;
* the **ranks** on each stream (1 = best; "best" is the larger value when the metric
  declares ``bigger_is_better``, the smaller one otherwise, e.g. ``oce`` and the times;
  ties get the average rank; means equal to :data:`TIE_DIGITS` significant digits are
  ties, so that the order of a float sum never decides a rank) and their average;
* **Friedman's test** (``scipy.stats.friedmanchisquare``, with its tie correction) and
  the **Iman–Davenport** F form of it, which is less conservative;
* a **post-hoc** comparison of every pair: the Nemenyi test (critical difference
  ``CD = q_α √(k(k+1)/(6N))``, ``q_α`` the studentized range quantile / √2; pairwise
  p-values by scikit-posthocs), the Wilcoxon signed-rank test on the per-stream means with
  Holm's correction (what Benavoli et al. 2016 recommend instead; scikit-posthocs over
  SciPy, zero differences split between the signs as Demšar does), or the Bayesian
  signed-rank test (baycomp; P(A better), P(practically equal, within the rope),
  P(B better)).

Nothing here writes: :mod:`streamlearn.reporting.comparison_files` writes the tables and
the critical-difference diagram. Every refusal is a :class:`~streamlearn.errors.UserError`
raised before anything is written.

References: J. Demšar, Statistical comparisons of classifiers over multiple data sets,
JMLR 7, 2006. A. Benavoli, G. Corani, F. Mangili, Should we really use post-hoc tests
based on mean-ranks?, JMLR 17, 2016. A. Benavoli et al., Time for a change: a tutorial
for comparing multiple classifiers through Bayesian analysis, JMLR 18, 2017.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from streamlearn.components import load_all
from streamlearn.errors import UserError
from streamlearn.reporting.display import TIMINGS, metric_display
from streamlearn.reporting.machine import machine_counts
from streamlearn.reporting.summary import sort_records

TESTS = ("nemenyi", "wilcoxon-holm", "bayesian")
#: the timing rows of ``summary.csv`` and the record field each comes from (seconds)
TIME_FIELDS = {"us_per_sample": "per_sample_seconds", "us_per_update": "per_sample_learn_seconds"}
#: Demšar (2006): Friedman's chi-square approximation wants N > 10 data sets (and k > 5)
ADVISED_STREAMS = 10
#: per-stream means equal to this many significant digits are ties
TIE_DIGITS = 12
#: Bayesian signed-rank: Monte Carlo samples of the posterior, and its fixed seed
BAYES_SAMPLES = 20_000
BAYES_SEED = 0
#: a Bayesian decision needs a posterior probability above this (Benavoli et al. 2017)
BAYES_DECIDE = 0.95
#: how many names a refusal lists before "and N more"
_LIST = 8


def _names(items: Sequence[str]) -> str:
    shown = ", ".join(items[:_LIST])
    return shown + (f" and {len(items) - _LIST} more" if len(items) > _LIST else "")


# --------------------------------------------------------------------------------------
# The data: records of one or several output directories
# --------------------------------------------------------------------------------------


@dataclass
class Source:
    """One output directory: its manifest and its (complete, successful) run records."""

    out_dir: Path
    manifest: dict[str, Any]
    runs: list[dict[str, Any]]

    @property
    def config(self) -> dict[str, Any]:
        return self.manifest["config"]


def load_sources(dirs: Sequence[Path]) -> list[Source]:
    """Read every directory; refuse when a planned run has no usable successful record
    (not run yet, stale, failed, corrupt or incomplete), naming the runs."""
    if not dirs:
        raise UserError("Give at least one output directory of `streamlearn run`.")
    seen: dict[Path, Path] = {}
    sources, lines = [], []
    for d in dirs:
        d = Path(d)
        key = d.resolve()
        if key in seen:
            raise UserError(f"{d} is given twice (as {seen[key]} too): give each output "
                            "directory once.")
        seen[key] = d
        manifest, ok, missing, failed, problems, stale = sort_records(d)
        fresh = [r for r in missing if r not in stale]
        if fresh:
            lines.append(f"{d}: {len(fresh)} planned run(s) have no record yet: "
                         f"{_names(fresh)}")
        if stale:
            lines.append(f"{d}: {len(stale)} record(s) are of an earlier config: "
                         f"{_names(stale)}")
        if failed:
            lines.append(f"{d}: {len(failed)} run(s) failed: "
                         + _names([f"{r['run_id']} ({r['error']})" for r in failed]))
        if problems:
            lines.append(f"{d}: {len(problems)} record(s) cannot be used: "
                         + _names([f"{p.run_id} ({p.kind}: {p.reason})" for p in problems]))
        sources.append(Source(d, manifest, ok))
    if lines:
        raise UserError(
            "A comparison needs every planned run complete and successful, so that each "
            "learner's mean is over the same seeds:\n  " + "\n  ".join(lines)
            + "\nRun `streamlearn run CONFIG` again (it computes exactly these runs).")
    return sources


def _protocol(src: Source) -> dict[str, Any]:
    """What must be equal between directories for their results to be compared."""
    cfg = src.config
    return {"protocol": cfg.get("protocol"), "protocol params": cfg.get("protocol_params") or {},
            "seeds": cfg.get("seeds"), "smoke": bool(src.manifest.get("smoke")),
            "fused": (cfg.get("evaluation") or {}).get("fused", True)}


def check_protocols(sources: list[Source]) -> None:
    """Refuse directories whose protocol (name, parameters, seeds, smoke mode, fused
    timing) or learner definitions differ from the first directory's."""
    first = sources[0]
    ref = _protocol(first)
    lines = []
    for src in sources[1:]:
        mine = _protocol(src)
        diffs = [f"{k} {mine[k]!r} (vs {ref[k]!r})" for k in ref if mine[k] != ref[k]]
        if diffs:
            lines.append(f"{src.out_dir}: " + "; ".join(diffs))
    defs: dict[str, tuple[Path, Any]] = {}
    for src in sources:
        for a in src.config["algorithms"]:
            what = {"name": a.get("name"), "params": a.get("params") or {}}
            if a["label"] in defs and defs[a["label"]][1] != what:
                lines.append(f"learner '{a['label']}' is {what} in {src.out_dir} but "
                             f"{defs[a['label']][1]} in {defs[a['label']][0]}")
            defs.setdefault(a["label"], (src.out_dir, what))
    lines += _code_differences(sources)
    if lines:
        raise UserError(f"The output directories were not made with the same protocol as "
                        f"{first.out_dir}, so their results cannot be ranked together:\n  "
                        + "\n  ".join(lines))


def _code_differences(sources: list[Source]) -> list[str]:
    """A user's learner whose source differs between directories (its records'
    ``spec.code_sha256``): one label, two definitions, so its ranks would mix them."""
    code: dict[str, tuple[Path, str]] = {}
    lines = []
    for src in sources:
        for run in src.runs:
            spec = run.get("spec") or {}
            sha = spec.get("code_sha256") if isinstance(spec, dict) else None
            label = run.get("algorithm")
            if not sha or not isinstance(label, str):
                continue
            seen = code.setdefault(label, (src.out_dir, sha))
            if seen[1] != sha and seen[0] != src.out_dir:
                lines.append(f"learner '{label}' was run with other code in {src.out_dir} "
                             f"(source sha256 {sha[:12]}) than in {seen[0]} ({seen[1][:12]}): "
                             f"rerun one directory with the code of the other")
                code[label] = (src.out_dir, sha)  # one line per pair of directories
    return lines


# --------------------------------------------------------------------------------------
# The per-stream means of one metric
# --------------------------------------------------------------------------------------


@dataclass
class Table:
    """Per-stream means (N streams × k learners, display units) of one metric."""

    metric: str
    label: str  # e.g. "OCA (%)", "µs/sample"
    bigger_is_better: bool
    streams: list[str]
    learners: list[str]
    means: np.ndarray
    n_runs: np.ndarray  # runs behind each mean
    #: where each stream's runs are (output directory)
    stream_dirs: dict[str, Path] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    precision: int = 2
    notation: str = "fixed"
    unit: str = ""

    @property
    def rounded(self) -> np.ndarray:
        """The means to :data:`TIE_DIGITS` significant digits: what every test sees."""
        return np.vectorize(lambda v: float(f"{v:.{TIE_DIGITS}g}"))(self.means)

    @property
    def oriented(self) -> np.ndarray:
        """:attr:`rounded`, negated for a smaller-is-better metric: larger is better."""
        return self.rounded if self.bigger_is_better else -self.rounded

    def format(self, value: float) -> str:
        if not math.isfinite(value):
            return "—"
        if self.notation == "fixed":
            return f"{value:.{self.precision}f}"
        return f"{value:.{self.precision}g}"


def _metric_of(sources: list[Source], metric: str) -> tuple[str, bool, float, int, str, str]:
    """(label, bigger_is_better, scale, precision, notation, unit) of ``metric``; refuses
    a metric some directory did not record."""
    if metric in TIME_FIELDS:
        return TIMINGS[metric].label, False, 1e6, 2, "fixed", "µs"
    lacking = [s for s in sources if metric not in s.config["metrics"]]
    if lacking:
        src = lacking[0]
        have = ", ".join([*src.config["metrics"], *TIME_FIELDS])
        raise UserError(f"The metric '{metric}' is not recorded in {src.out_dir} (its runs "
                        f"recorded: {have}). Choose one of these with --metric.")
    info = next((r["metric_info"][metric] for s in sources for r in s.runs
                 if isinstance(r.get("metric_info"), dict) and metric in r["metric_info"]),
                None)
    m = metric_display(metric, info)
    return (m.axis_label(), bool(m.bigger_is_better), float(m.scale), m.precision,
            m.notation, m.unit)


def _value(rec: dict[str, Any], metric: str) -> float:
    if metric in TIME_FIELDS:
        v = rec["timing"].get(TIME_FIELDS[metric])
    else:
        v = rec["metrics"].get(metric)
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else math.nan


def _has_key(rec: dict[str, Any], metric: str) -> bool:
    """Whether the record has an entry for the metric ``metric`` (a value or NaN/null;
    the timings' gaps are told apart by the unrecorded refusal)."""
    return metric not in TIME_FIELDS and metric in (rec.get("metrics") or {})


def stream_table(sources: list[Source], metric: str) -> Table:
    """The per-stream means of ``metric``, refusing streams shared by two directories,
    learners missing on some streams, fewer than two learners or streams, and values
    that were not recorded."""
    label, bigger, scale, precision, notation, unit = _metric_of(sources, metric)
    streams: list[str] = []
    learners: list[str] = []
    stream_dirs: dict[str, Path] = {}
    cells: dict[tuple[str, str], list[float]] = {}
    undefined: set[str] = set()
    notes = []
    for src in sources:
        planned = src.manifest["runs"]
        mine = list(dict.fromkeys(r["stream"] for r in planned))
        for s in mine:
            if s in stream_dirs:
                raise UserError(f"The stream '{s}' is in both {stream_dirs[s]} and "
                                f"{src.out_dir}: a comparison counts each stream once. "
                                "Give one of the two directories.")
            stream_dirs[s] = src.out_dir
        streams += mine
        learners += [a for a in dict.fromkeys(r["algorithm"] for r in planned)
                     if a not in learners]
        for r in src.runs:
            v = _value(r, metric)
            cells.setdefault((r["stream"], r["algorithm"]), []).append(v)
            if math.isnan(v) and _has_key(r, metric):
                undefined.add(f"{r['algorithm']} on {r['stream']}")
        not_run = src.manifest.get("not_run") or {}
        if not_run:
            notes.append(f"Left out (not run in {src.out_dir}: data files absent): "
                         + ", ".join(not_run) + ".")
    gaps: dict[str, list[str]] = {}
    for a in learners:
        for s in streams:
            if (s, a) not in cells:
                gaps.setdefault(a, []).append(f"{s} ({stream_dirs[s]})")
    if gaps:
        raise UserError(
            "Every learner must have runs on every stream to be ranked, and some have "
            "none:\n  " + "\n  ".join(f"'{a}' on {_names(ss)}" for a, ss in gaps.items())
            + "\nAdd them to those experiments' configs and run them, or compare "
            "directories that share their learners.")
    if len(learners) < 2:
        raise UserError(f"A comparison needs at least two learners; the runs have "
                        f"{len(learners)}: {', '.join(learners) or 'none'}.")
    if len(streams) < 2:
        raise UserError(
            f"A comparison ranks learners over streams and needs at least two streams; the "
            f"runs have {len(streams)}: {', '.join(streams) or 'none'}. Friedman's test "
            f"is meaningful from about {ADVISED_STREAMS} streams on (Demšar 2006); give "
            "more streams, or several output directories (one per group of streams).")
    if undefined:  # recorded, but without a value (R² of a constant target, an overflow)
        raise UserError(f"'{metric}' has no value (NaN in the records) for "
                        f"{_names(sorted(undefined))}: the metric is undefined there (e.g. "
                        f"R² of a constant target) or overflowed. Compare the others without "
                        f"those, or choose another --metric.")
    unrecorded = sorted({a for (s, a), vals in cells.items() if any(map(math.isnan, vals))})
    if unrecorded:
        why = (" (it runs predict and update in one compiled call, so the update is not "
               "timed apart)" if metric == "us_per_update" else "")
        raise UserError(f"'{metric}' is not recorded for {_names(unrecorded)}{why}. "
                        "Choose another --metric.")
    infinite = sorted(f"{a} on {s}" for (s, a), vals in cells.items()
                      if not all(map(math.isfinite, vals)))
    if infinite:  # a learner that diverged: ranks could order it, differences cannot
        raise UserError(f"'{metric}' is infinite for {_names(infinite)}: a learner that "
                        "diverged, where the tests need finite values. Compare the others "
                        "without it, or choose another --metric.")
    means = np.array([[np.mean(cells[(s, a)]) * scale for a in learners] for s in streams])
    n_runs = np.array([[len(cells[(s, a)]) for a in learners] for s in streams])
    return Table(metric, label, bigger, streams, learners, means, n_runs, stream_dirs,
                 notes, precision, notation, unit)


# --------------------------------------------------------------------------------------
# The statistics
# --------------------------------------------------------------------------------------


def nemenyi_q(k: int, alpha: float) -> float:
    """The Nemenyi test's critical value q_α for k learners: the studentized range
    quantile (infinite degrees of freedom) divided by √2 (Demšar 2006, Table 5a)."""
    from scipy.stats import studentized_range

    return float(studentized_range.ppf(1.0 - alpha, k, np.inf) / math.sqrt(2.0))


def critical_difference(k: int, n: int, alpha: float) -> float:
    """Nemenyi's critical difference of average ranks, q_α √(k(k+1)/(6N))."""
    return nemenyi_q(k, alpha) * math.sqrt(k * (k + 1) / (6.0 * n))


def rank_table(oriented: np.ndarray) -> np.ndarray:
    """Rank of each learner on each stream (rows) of larger-is-better values, 1 = best,
    ties averaged (``scipy.stats.rankdata``)."""
    from scipy.stats import rankdata

    return np.asarray(rankdata(-oriented, axis=1))


@dataclass
class Pair:
    """One pairwise comparison: ``a`` against ``b`` (a has the better average rank)."""

    a: str
    b: str
    rank_diff: float  # average rank of b − that of a (≥ 0)
    p_value: float | None = None  # Nemenyi; Wilcoxon after Holm's correction
    significant: bool | None = None
    #: Bayesian: P(a better), P(within the rope), P(b better)
    p_a: float | None = None
    p_rope: float | None = None
    p_b: float | None = None

    @property
    def verdict(self) -> str:
        if self.p_a is not None:
            if self.p_a > BAYES_DECIDE:
                return f"{self.a} better"
            if self.p_b is not None and self.p_b > BAYES_DECIDE:
                return f"{self.b} better"
            if self.p_rope is not None and self.p_rope > BAYES_DECIDE:
                return "practically equal"
            return "undecided"
        return "significant" if self.significant else "not significant"


@dataclass
class Comparison:
    """The result for one metric (see the module docstring)."""

    table: Table
    test: str
    alpha: float
    ranks: np.ndarray  # N × k
    avg_ranks: np.ndarray  # k
    friedman: tuple[float, float] | None  # (chi², p); None for two learners
    iman_davenport: tuple[float, float] | None  # (F, p)
    cd: float  # Nemenyi's critical difference (drawn for the Nemenyi test)
    pairs: list[Pair]
    #: k × k p-values the diagram groups learners by (1 on the diagonal): Wilcoxon–Holm's
    #: for that test, Nemenyi's otherwise (the Bayesian test has no p-values)
    group_p: np.ndarray
    rope: float = 0.0
    warnings: list[str] = field(default_factory=list)

    @property
    def order(self) -> list[int]:
        """Learner indices from the best average rank to the worst (stable)."""
        return sorted(range(len(self.avg_ranks)), key=lambda i: self.avg_ranks[i])


def _friedman(oriented: np.ndarray) -> tuple[tuple[float, float] | None,
                                             tuple[float, float] | None]:
    """Friedman's chi² and p (SciPy, tie-corrected) and the Iman–Davenport F and p."""
    from scipy.stats import f as f_dist
    from scipy.stats import friedmanchisquare

    n, k = oriented.shape
    if k < 3:
        return None, None
    if all(np.ptp(row) == 0 for row in oriented):  # every learner tied on every stream
        return (0.0, 1.0), (0.0, 1.0)
    res = friedmanchisquare(*oriented.T)
    chi2, p = float(res.statistic), float(res.pvalue)
    denom = n * (k - 1) - chi2
    if denom <= 0:  # every stream ranks the learners the same way
        return (chi2, p), (math.inf, 0.0)
    ff = (n - 1) * chi2 / denom
    return (chi2, p), (ff, float(f_dist.sf(ff, k - 1, (k - 1) * (n - 1))))


def nemenyi_p(avg: np.ndarray, n: int) -> np.ndarray:
    """k × k p-values of Nemenyi's test from the average ranks over ``n`` streams: the
    studentized range of the rank differences (SciPy), as scikit-posthocs'
    ``posthoc_nemenyi_friedman`` computes them, but from our ranks (rounded ties)."""
    from scipy.stats import studentized_range

    k = avg.size
    q = np.abs(avg[:, None] - avg[None, :]) / math.sqrt(k * (k + 1) / (6.0 * n))
    p = np.asarray(studentized_range.sf(q * math.sqrt(2.0), k, np.inf), dtype=float)
    np.fill_diagonal(p, 1.0)
    return p


def _pairs(table: Table, avg: np.ndarray, test: str, alpha: float,
           rope: float) -> tuple[list[Pair], np.ndarray]:
    names, k = table.learners, len(table.learners)
    oriented = table.oriented
    p = nemenyi_p(avg, len(table.streams))
    if test == "wilcoxon-holm":
        import scikit_posthocs as sp

        # zero differences split between the signs (Demšar 2006, §3.1.3)
        p = sp.posthoc_wilcoxon([oriented[:, j] for j in range(k)], zero_method="zsplit",
                                p_adjust="holm").to_numpy(dtype=float, copy=True)
        p[~np.isfinite(p)] = 1.0
    pairs = []
    for i, j in itertools.combinations(range(k), 2):
        a, b = (i, j) if avg[i] <= avg[j] else (j, i)
        pv = float(p[a, b])
        if not math.isfinite(pv):
            pv = 1.0
        pair = Pair(names[a], names[b], float(avg[b] - avg[a]), pv, pv < alpha)
        if test == "bayesian":
            pair.p_a, pair.p_rope, pair.p_b = _bayes(oriented[:, a], oriented[:, b], rope)
            pair.p_value, pair.significant = None, None
        pairs.append(pair)
    return pairs, p


def _bayes(x: np.ndarray, y: np.ndarray, rope: float) -> tuple[float, float, float]:
    """baycomp's Bayesian signed-rank test: P(x better), P(within rope), P(y better)."""
    try:
        from baycomp.multiple import SignedRankTest
    except ImportError as exc:  # a dependency; only a broken install lacks it
        raise UserError("--test bayesian needs the package baycomp (`pip install "
                        f"baycomp`): {exc}") from exc
    probs = SignedRankTest.probs(x, y, rope=rope, nsamples=BAYES_SAMPLES,
                                 random_state=BAYES_SEED)
    if len(probs) == 2:  # no rope
        return float(probs[0]), 0.0, float(probs[1])
    return float(probs[0]), float(probs[1]), float(probs[2])


def compare_table(table: Table, test: str = "nemenyi", alpha: float = 0.05,
                  rope: float = 0.0) -> Comparison:
    """Ranks, Friedman / Iman–Davenport and the post-hoc ``test`` over ``table``."""
    if test not in TESTS:
        raise UserError(f"Unknown test {test!r}; choose one of {', '.join(TESTS)}.")
    if not 0.0 < alpha < 1.0:
        raise UserError(f"--alpha must be between 0 and 1 (e.g. 0.05); got {alpha}.")
    n, k = table.means.shape
    ranks = rank_table(table.oriented)
    avg = ranks.mean(axis=0)
    friedman, iman = _friedman(table.oriented)
    warnings = []
    if n < ADVISED_STREAMS:
        warnings.append(
            f"Only {n} streams: Friedman's chi-square approximation wants N ≥ ~"
            f"{ADVISED_STREAMS} (Demšar 2006), and with few streams every test here has "
            "little power: a difference that is not significant may still be real.")
    if k == 2:
        warnings.append("Two learners: Friedman's test is not computed (with k = 2 it is "
                        "the sign test); read the pairwise test (--test wilcoxon-holm).")
    if test == "wilcoxon-holm":
        m = k * (k - 1) // 2
        if m * 2.0 ** (1 - n) > alpha:
            warnings.append(
                f"With {n} streams the exact two-sided Wilcoxon p-value is at least "
                f"{2.0 ** (1 - n):.3g}, and Holm multiplies the smallest by {m}: no pair "
                f"can be significant at α = {alpha}.")
    pairs, group_p = _pairs(table, avg, test, alpha, rope)
    return Comparison(table, test, alpha, ranks, avg, friedman, iman,
                      critical_difference(k, n, alpha), pairs, group_p, rope, warnings)


# --------------------------------------------------------------------------------------
# The machine of the timings, and what a comparison was made from
# --------------------------------------------------------------------------------------


def machines(sources: list[Source]) -> list[tuple[str, int]]:
    """The machines the runs' times were measured on, with how many runs each
    (:func:`streamlearn.reporting.machine.machine_counts`)."""
    return machine_counts(r for src in sources for r in src.runs)


def fingerprint(runs: list[dict[str, Any]]) -> str:
    """A digest of the records a comparison used (run id, digest, metrics, time): the HTML
    report tells from it whether a comparison file is of the records now present."""
    items = sorted((str(r.get("run_id")), str(r.get("digest")),
                    json.dumps(r.get("metrics"), sort_keys=True),
                    repr((r.get("timing") or {}).get("per_sample_seconds")))
                   for r in runs)
    return hashlib.sha256(json.dumps(items).encode()).hexdigest()[:16]


@dataclass
class Result:
    """Everything ``streamlearn compare`` reports: one :class:`Comparison` per metric
    (the chosen one, then the time), the machines, the sources."""

    sources: list[Source]
    comparisons: list[Comparison]
    machines: list[tuple[str, int]]


def compare_dirs(dirs: Sequence[Path], metric: str | Sequence[str] | None = None,
                 test: str = "nemenyi", alpha: float = 0.05, rope: float | None = None,
                 with_time: bool = True) -> Result:
    """Load ``dirs``, refuse what cannot be compared, and compare the learners on
    ``metric`` (one name or several; default: the first metric of the first directory's
    config) and, unless a metric is a time or ``with_time`` is False, on µs/sample too."""
    if test not in TESTS:
        raise UserError(f"Unknown test {test!r}; choose one of {', '.join(TESTS)}.")
    load_all()
    sources = load_sources(dirs)
    check_protocols(sources)
    chosen = ([metric] if isinstance(metric, str) else list(metric or [])
              or [sources[0].config["metrics"][0]])
    chosen = list(dict.fromkeys(chosen))  # a metric named twice is compared once
    metrics = chosen + (["us_per_sample"]
                        if with_time and not any(m in TIME_FIELDS for m in chosen) else [])
    tables = [stream_table(sources, m) for m in metrics]  # every refusal before any test
    comparisons = []
    for m, t in zip(metrics, tables, strict=True):
        # the rope is in display units, of the chosen metrics only: by default one
        # percentage point for a metric in % (Benavoli et al. 2017 use 0.01 on accuracy),
        # none otherwise (and none for the time)
        timed = m in TIME_FIELDS
        r = (0.0 if timed else rope if rope is not None
             else 1.0 if t.unit == "%" else 0.0)
        comparisons.append(compare_table(t, test, alpha, r))
    return Result(sources, comparisons, machines(sources))
