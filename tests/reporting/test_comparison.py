"""The statistics of ``streamlearn compare`` on tables made by hand: Nemenyi's critical
values against Demšar's table, ranks and their direction, ties, Friedman and the
Iman–Davenport correction against SciPy and the formulas, Wilcoxon–Holm against SciPy and
Holm's procedure done by hand, the Bayesian test's decisions, and the CD diagram files."""

from __future__ import annotations

import io
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from scipy import stats

from streamlearn.reporting import cd_diagram
from streamlearn.reporting.comparison import (
    Result,
    Table,
    compare_table,
    critical_difference,
    nemenyi_q,
)
from streamlearn.reporting.comparison_files import rich_renderables


def _table(means, bigger_is_better: bool = True, metric: str = "oca",
           unit: str = "%") -> Table:
    means = np.asarray(means, dtype=float)
    n, k = means.shape
    return Table(metric, f"{metric.upper()} ({unit})", bigger_is_better,
                 [f"S{i}" for i in range(n)], [f"L{j}" for j in range(k)], means,
                 np.full((n, k), 3), unit=unit)


# Demšar (2006), Table 5(a): critical values of the two-tailed Nemenyi test
DEMSAR_Q05 = {2: 1.960, 3: 2.343, 4: 2.569, 5: 2.728, 6: 2.850, 7: 2.949, 8: 3.031,
              9: 3.102, 10: 3.164}
DEMSAR_Q10 = {2: 1.645, 3: 2.052, 4: 2.291, 5: 2.459, 6: 2.589, 7: 2.693, 8: 2.780,
              9: 2.855, 10: 2.920}


@pytest.mark.parametrize("k", sorted(DEMSAR_Q05))
def test_nemenyi_q_alpha_is_demsars_table(k):
    # Demšar's values are truncated to three decimals: within 1e-3
    assert nemenyi_q(k, 0.05) == pytest.approx(DEMSAR_Q05[k], abs=1e-3)
    assert nemenyi_q(k, 0.10) == pytest.approx(DEMSAR_Q10[k], abs=1e-3)


def test_critical_difference_of_demsars_example():
    # Demšar §3.2.2: four algorithms on 14 data sets, CD = 2.569 √(4·5 / (6·14)) = 1.25
    assert critical_difference(4, 14, 0.05) == pytest.approx(1.25, abs=0.005)
    assert critical_difference(3, 6, 0.05) == pytest.approx(
        2.343 * math.sqrt(3 * 4 / 36), abs=1e-3)


def test_ranks_follow_the_metrics_direction():
    means = [[90.0, 80.0, 70.0], [60.0, 65.0, 50.0], [10.0, 30.0, 20.0]]
    up = compare_table(_table(means, True))
    down = compare_table(_table(means, False, metric="oce"))
    np.testing.assert_array_equal(up.ranks, [[1, 2, 3], [2, 1, 3], [3, 1, 2]])
    np.testing.assert_array_equal(down.ranks, 4 - up.ranks)
    assert up.order == [1, 0, 2] and down.order == [2, 0, 1]
    # the same data, once as errors: the order flips, the statistic does not
    assert up.friedman == pytest.approx(down.friedman)


def test_ties_are_averaged_and_float_noise_is_a_tie():
    a = (0.1 + 0.2 + 0.3) / 3  # 0.20000000000000004
    c = compare_table(_table([[a, 0.2, 0.1], [0.5, 0.5, 0.5], [1.0, 2.0, 3.0]]))
    np.testing.assert_array_equal(c.ranks, [[1.5, 1.5, 3], [2, 2, 2], [3, 2, 1]])


def test_friedman_and_iman_davenport_against_scipy_and_the_formulas():
    rng = np.random.default_rng(3)
    means = rng.normal(size=(12, 5)) + np.arange(5) * 0.4
    c = compare_table(_table(means))
    n, k = means.shape
    chi2, p = stats.friedmanchisquare(*means.T)
    assert c.friedman == pytest.approx((chi2, p), rel=1e-12)
    # without ties: Demšar's formula from the average ranks
    R = stats.rankdata(-means, axis=1).mean(axis=0)
    assert chi2 == pytest.approx(12 * n / (k * (k + 1)) * (np.sum(R**2) - k * (k + 1) ** 2 / 4))
    ff = (n - 1) * chi2 / (n * (k - 1) - chi2)
    assert c.iman_davenport == pytest.approx((ff, stats.f.sf(ff, k - 1, (k - 1) * (n - 1))))
    np.testing.assert_allclose(c.avg_ranks, R)
    assert not c.warnings  # 12 streams: no low-power warning


def test_two_learners_and_all_ties_and_perfect_agreement():
    two = compare_table(_table([[1, 2], [3, 4], [5, 7]]))
    assert two.friedman is None and two.iman_davenport is None
    assert any("Two learners" in w for w in two.warnings)
    tied = compare_table(_table(np.ones((4, 3))))
    assert tied.friedman == (0.0, 1.0)
    np.testing.assert_array_equal(tied.avg_ranks, [2, 2, 2])
    same = compare_table(_table([[3, 2, 1]] * 5))
    assert same.iman_davenport is not None and same.iman_davenport == (math.inf, 0.0)
    from streamlearn.reporting.comparison_files import friedman_line

    line = friedman_line(same)  # no "F = ∞, p = 0": the F form is undefined here
    assert "∞" not in line and "unbounded" in line and "p = 0.00674" in line
    assert "rejects" in line and "does not reject" not in line


def test_few_streams_warn_about_power():
    c = compare_table(_table(np.arange(18.0).reshape(6, 3)))
    assert any("Only 6 streams" in w and "N ≥ ~10" in w for w in c.warnings)


def _holm(p: list[float]) -> list[float]:
    order = np.argsort(p)
    m, out, running = len(p), [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def test_wilcoxon_holm_against_scipy_and_holm_by_hand():
    rng = np.random.default_rng(7)
    means = rng.normal(size=(15, 4)) + np.array([0.0, 0.3, 0.9, 1.5])
    c = compare_table(_table(means), test="wilcoxon-holm")
    names = [f"L{j}" for j in range(4)]
    raw, keys = [], []
    for i in range(4):
        for j in range(i + 1, 4):
            raw.append(stats.wilcoxon(means[:, i], means[:, j], zero_method="zsplit").pvalue)
            keys.append(frozenset((names[i], names[j])))
    expected = dict(zip(keys, _holm(raw), strict=True))
    for pair in c.pairs:
        assert pair.p_value == pytest.approx(expected[frozenset((pair.a, pair.b))])
        assert pair.significant == (pair.p_value < 0.05)
    assert len(c.pairs) == 6


def test_nemenyi_pairs_agree_with_the_critical_difference():
    rng = np.random.default_rng(11)
    means = rng.normal(size=(20, 5)) + np.arange(5) * 0.5
    c = compare_table(_table(means))
    for pair in c.pairs:
        assert pair.significant == (pair.rank_diff > c.cd)
        assert pair.rank_diff >= 0


def test_bayesian_signed_rank_decides_a_clear_winner_and_is_reproducible():
    rng = np.random.default_rng(5)
    base = rng.uniform(60, 90, size=(12, 1))
    means = np.hstack([base + 5 + rng.uniform(0, 1, (12, 1)), base, base + 0.1])
    c1 = compare_table(_table(means), test="bayesian", rope=1.0)
    c2 = compare_table(_table(means), test="bayesian", rope=1.0)
    assert [(p.p_a, p.p_rope, p.p_b) for p in c1.pairs] == \
        [(p.p_a, p.p_rope, p.p_b) for p in c2.pairs]
    by = {frozenset((p.a, p.b)): p for p in c1.pairs}
    win = by[frozenset(("L0", "L1"))]
    assert win.a == "L0" and win.p_a > 0.95 and win.verdict == "L0 better"
    # L1 and L2 differ by 0.1 percentage point, inside the rope of 1; without a rope the
    # constant 0.1 makes L2 better
    assert by[frozenset(("L1", "L2"))].verdict == "practically equal"
    no_rope = compare_table(_table(means), test="bayesian")
    assert [p.verdict for p in no_rope.pairs if {p.a, p.b} == {"L1", "L2"}] == ["L2 better"]


def test_cd_diagram_is_valid_svg_and_png():
    rng = np.random.default_rng(2)
    for test in ("nemenyi", "wilcoxon-holm", "bayesian"):
        c = compare_table(_table(rng.normal(size=(10, 4)) + np.arange(4)), test=test)
        svg, png = cd_diagram.draw(c)
        root = ET.fromstring(svg)
        assert root.tag.endswith("svg")
        assert b"Date" not in svg  # the same comparison gives the same file
        import matplotlib.pyplot as plt

        img = plt.imread(io.BytesIO(png), format="png")
        assert img.ndim == 3 and img.shape[0] > 50 and img.shape[1] > 200
        assert "CD = " in cd_diagram.caption(c) or test == "wilcoxon-holm"


def test_cd_diagram_is_the_same_file_under_every_string_hash_seed():
    """The crossbars' point order must not follow Python's per-process string hash
    (scikit-posthocs iterates sets of names): the same comparison, drawn in processes with
    different PYTHONHASHSEED, gives the same SVG bytes."""
    import os
    import subprocess
    import sys

    code = ("import hashlib, numpy as np\n"
            "from tests.reporting.test_comparison import _table\n"
            "from streamlearn.reporting.comparison import compare_table\n"
            "from streamlearn.reporting import cd_diagram\n"
            "m = np.array([[5, 4.9, 4.8, 1, 0.9, 0.8]] * 6) + np.arange(6)[:, None] * "
            "np.array([0, 0.2, -0.2, 0, 0.2, -0.2])\n"
            "svg, _ = cd_diagram.draw(compare_table(_table(m)))\n"
            "print(hashlib.sha256(svg).hexdigest())\n")
    digests = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "MPLBACKEND": "Agg"}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True)
        digests.add(out.stdout.strip())
    assert len(digests) == 1


def test_unknown_test_and_bad_alpha_are_user_errors():
    from streamlearn.errors import UserError

    with pytest.raises(UserError, match="choose one of nemenyi"):
        compare_table(_table(np.ones((3, 3))), test="tukey")
    with pytest.raises(UserError, match="between 0 and 1"):
        compare_table(_table(np.ones((3, 3))), alpha=5)


def test_the_terminal_table_fits_80_columns_with_long_labels():
    from rich.cells import cell_len
    from rich.console import Console

    t = _table(np.arange(40.0).reshape(10, 4))
    t.learners = ["Online-BLS with a very long label (n3=1000, mu=0.99)", "River HT",
                  "A" * 60, "MOA Adaptive Random Forest, 10 trees"]
    for test in ("nemenyi", "bayesian"):
        result = Result([], [compare_table(t, test=test)],
                        [("AMD EPYC, 2 logical cores, Linux x86_64; BLAS: openblas", 40)])
        console = Console(width=80, record=True, file=io.StringIO())
        for item in rich_renderables(result):
            console.print(item)
        text = console.export_text()
        assert max(cell_len(line) for line in text.splitlines()) <= 80
        assert "River HT" in text


def test_best_on_names_the_ties_it_counts_for_each_learner():
    """A tie for first counts for each learner tied: the "Best on" column can then add up
    to more than the streams (7 of 6 in the hunt of 7 Dec), so the table says so."""
    from rich.console import Console

    means = np.array([[90, 90, 80], [70, 75, 60], [88, 91, 85],
                      [60, 61, 59], [50, 52, 40], [77, 70, 71]], dtype=float)
    for tied, rows in ((1, means), (0, means + np.array([0, 0.5, 0]))):
        result = Result([], [compare_table(_table(rows))], [])
        console = Console(width=80, record=True, file=io.StringIO())
        for item in rich_renderables(result):
            console.print(item)
        text = " ".join(console.export_text().split())
        assert ("1 stream(s) with a tie for first count for each learner tied" in text) \
            == bool(tied)
