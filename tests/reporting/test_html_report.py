"""`streamlearn report DIR --html`: one self-contained page per experiment, opened in
headless Chromium to check that every table and image renders."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from streamlearn import components
from tests.cli_helpers import cli_exit_code as _cli

FAILING = '''
import numpy as np


class Flaky:
    """Fails after 100 samples (a learner bug, recorded as a failed run)."""

    def __init__(self, seed: int = 0):
        self.seed = seed

    def reset(self, n_features, n_classes):
        self.n = 0

    def predict_one(self, x):
        return 0

    def learn_one(self, x, y):
        self.n += 1
        if self.n > 100:
            raise FloatingPointError("weights overflowed at sample 101")
'''


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small experiment with a reference value, plots and one failing learner."""
    tmp = tmp_path_factory.mktemp("html")
    (tmp / "flaky_mod.py").write_text(FAILING)
    cfg = {
        "name": "html_demo", "description": "A <small> experiment & its report.",
        "repeats": 2,
        "streams": [{"name": "sea", "label": "SEA", "max_samples": 400}],
        "algorithms": [{"name": "perceptron", "label": "Perceptron"},
                       {"name": "hoeffding_tree", "label": "HT"},
                       {"name": "flaky_mod:Flaky", "label": "Flaky"}],
        "metrics": ["oca", "mcc"],
        "outputs": {"dir": str(tmp / "out"), "plots": ["learning_curve", "time"]},
        "reference": {"source": "A made-up paper, Table 1",
                      "values": {"SEA": {"HT": {"oca": 86.4}}}},
    }
    (tmp / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    import os

    cwd = os.getcwd()
    os.chdir(tmp)
    try:
        assert _cli(["run", "cfg.yaml", "--quiet"]) == 1  # the failing learner → exit 1
        assert _cli(["report", str(tmp / "out"), "--html"]) == 0
    finally:
        os.chdir(cwd)
        sys.modules.pop("flaky_mod", None)
        for key in [k for k in components._resolved if "flaky_mod" in k[1]]:
            del components._resolved[key]
    return tmp / "out" / "report.html"


def test_page_is_self_contained_and_complete(report):
    text = report.read_text()
    page = _Page()
    page.feed(text)
    tags = [t for t, _ in page.tags]
    # nothing fetched: no script, no stylesheet link, images only as data URIs
    assert "script" not in tags and "link" not in tags
    imgs = [a for t, a in page.tags if t == "img"]
    assert len(imgs) == 2  # the learning curve and the time plot
    for a in imgs:
        src = a["src"] or ""
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    body = " ".join(page.text)
    assert "A <small> experiment & its report." in body  # escaped, shown as written
    # the results table: ours, the paper's value and Δ for HT
    assert "paper" in body and "Δ" in body and "86.4" in body
    assert '<td class="num neg">' in text or '<td class="num pos">' in text  # Δ cell
    # the failed runs with their error, and the traceback
    assert body.count("FloatingPointError: weights overflowed at sample 101") >= 2
    assert "Traceback" in body
    # config and versions
    assert "flaky_mod:Flaky" in body and "numpy" in body and "river" in body
    rec = json.loads(next((report.parent / "runs").glob("SEA__HT__seed0.json")).read_text())
    assert rec["versions"]["numpy"] in body


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


# Appended to a copy of the page: after load, records what rendered in the DOM.
_PROBE = """<script>
window.addEventListener("load", () => {
  const imgs = [...document.images].map(i => i.complete && i.naturalWidth > 0
                                        && i.getBoundingClientRect().height > 0);
  const tables = [...document.querySelectorAll("table")].map(t =>
      t.getBoundingClientRect().height > 0 && t.rows.length > 1);
  const out = document.createElement("pre");
  out.id = "probe";
  out.textContent = JSON.stringify({imgs, tables});
  document.body.appendChild(out);
});
</script>"""


@pytest.mark.skipif(_chromium() is None, reason="no chromium binary on PATH (Debian: "
                    "apt-get install chromium); the page was checked without a browser")
def test_every_table_and_image_renders_in_headless_chromium(report, tmp_path):
    probe = tmp_path / "probe.html"
    probe.write_text(report.read_text().replace("</body>", _PROBE + "</body>"))
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}",
           "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout
    marker = '<pre id="probe">'
    assert marker in out, "Chromium did not run the page"
    result = json.loads(out.split(marker, 1)[1].split("</pre>", 1)[0].replace("&quot;", '"'))
    n_tables = report.read_text().count("<table")
    assert len(result["tables"]) == n_tables >= 3  # results, failed runs, versions
    assert all(result["tables"]), result
    assert len(result["imgs"]) == 2 and all(result["imgs"]), result


@pytest.mark.skipif(_chromium() is None, reason="no chromium binary on PATH (Debian: "
                    "apt-get install chromium); the page was checked without a browser")
def test_the_sections_of_windowed_faded_and_held_out_values_render(tmp_path):
    """A report with windowed, faded and held-out blocks and folds: every table (the
    kinds' own included) and every curve renders."""
    from streamlearn.reporting.html import write_html
    from streamlearn.reporting.report import build_report
    from tests.reporting.kinds_records import STREAMS, write_kinds_dir

    out = write_kinds_dir(tmp_path / "out", folds=3)
    summary, written = build_report(out)
    page = write_html(summary, out, written)
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text().replace("</body>", _PROBE + "</body>"))
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}",
           "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()]
    out_text = subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout
    marker = '<pre id="probe">'
    assert marker in out_text, "Chromium did not run the page"
    result = json.loads(out_text.split(marker, 1)[1].split("</pre>", 1)[0]
                        .replace("&quot;", '"'))
    # per stream: the results table and one table per kind (the records name no versions)
    assert len(result["tables"]) == len(STREAMS) * 4 and all(result["tables"]), result
    # per stream: the cumulative curve and the windowed, faded and held-out ones
    assert len(result["imgs"]) == len(STREAMS) * 4 and all(result["imgs"]), result
