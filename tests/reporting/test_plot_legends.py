"""The report's charts never hide data under their legend, and a log axis prints plain
numbers (reports draw with mathtext off, so Matplotlib's ``$\\mathdefault{10^{2}}$`` tick
labels printed as that text): the time chart, the learning curves, the sweep plots."""

from __future__ import annotations

from pathlib import Path

import pytest

from streamlearn.config import parse_config
from streamlearn.evaluation.runner import run_experiment
from streamlearn.reporting import plots
from streamlearn.reporting.summary import summarize


@pytest.fixture(scope="module")
def summary(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("legends") / "out"
    cfg = parse_config({
        "name": "legends", "seeds": [0, 1],
        "streams": [{"name": "sea", "label": "SEA", "max_samples": 200, "reseed": True},
                    {"name": "hyperplane", "label": "HP", "max_samples": 200, "reseed": True}],
        "algorithms": [{"name": "passive_aggressive", "label": "PA"},
                       {"name": "majority_class", "label": "Majority"},
                       {"name": "no_change", "label": "No change"}],
        "metrics": ["oca"], "evaluation": {"checkpoints": 5},
        "outputs": {"dir": str(out), "plots": []}})
    assert not run_experiment(cfg, out).failed
    return summarize(out)


@pytest.fixture
def figures(monkeypatch: pytest.MonkeyPatch) -> list:
    """The figures the plot functions save, kept open for inspection."""
    kept: list = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: kept.append(fig))
    monkeypatch.setattr(plots._pyplot(), "close", lambda fig=None: None)
    return kept


def _check(fig) -> None:
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        legend = ax.get_legend()
        assert legend is not None
        # the legend's box and the axes' data area do not overlap
        box, area = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
        assert box.x0 >= area.x1 or box.x1 <= area.x0 or box.y0 >= area.y1 \
            or box.y1 <= area.y0, (box, area)
        for label in [*ax.get_xticklabels(), *ax.get_yticklabels()]:
            assert "$" not in label.get_text() and "mathdefault" not in label.get_text()


def test_time_chart_legend_is_outside_and_its_log_ticks_are_plain(summary, figures,
                                                                  tmp_path: Path):
    plots.time_bars(summary, tmp_path)  # _save is replaced: nothing is written
    assert len(figures) == 1
    _check(figures[0])
    texts = [t.get_text() for t in figures[0].axes[0].get_yticklabels()]
    assert any(t in ("0.1", "1", "10", "100") for t in texts), texts


def test_learning_curve_legends_are_outside(summary, figures, tmp_path: Path):
    plots.learning_curves(summary, tmp_path, "oca")
    assert len(figures) == 2
    for fig in figures:
        _check(fig)


def test_every_chart_has_an_svg_beside_its_png_and_the_svg_is_reproducible(
        summary, tmp_path: Path):
    """Issue 24, item 5: figures to paste into a paper. The SVG holds the chart's text as
    text, and drawing the same summary twice gives the same SVG bytes (no date, fixed
    ids)."""
    first = [*plots.time_bars(summary, tmp_path / "a"),
             *plots.learning_curves(summary, tmp_path / "a", "oca")]
    pngs = [p for p in map(Path, first) if p.suffix == ".png"]
    assert len(pngs) == 3  # the time chart and one curve per stream
    for png in pngs:
        svg = png.with_suffix(".svg")
        assert svg.is_file() and png.read_bytes()[:4] == b"\x89PNG"
        text = svg.read_text(encoding="utf-8")
        assert text.lstrip().startswith("<?xml") and "PA" in text
    plots.time_bars(summary, tmp_path / "b")
    plots.learning_curves(summary, tmp_path / "b", "oca")
    for png in pngs:
        rel = png.relative_to(tmp_path / "a")
        assert (tmp_path / "b" / rel).with_suffix(".svg").read_bytes() \
            == png.with_suffix(".svg").read_bytes(), rel
