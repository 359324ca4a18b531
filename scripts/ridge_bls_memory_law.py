"""Peak memory of the ``incremental-nodes`` protocol against samples and nodes (issue 26,
item 2): an experiment, one ``streamlearn run`` process per case, so each record's
``process_peak_rss_bytes`` (``ru_maxrss``) is that one run's peak.

Cases: Chol-1 (the ridge family: ``k × k`` state) and Orig. (the Greville family: the
``l × k`` inverse) at λ = 2^-10 on MNIST, with the node matrix regenerated in row blocks
(``node_matrix: rows``) for three training sizes ``l`` and two network sizes ``k``, and
held whole (``memory``) at the largest ``l`` for contrast. Writes ``memory_law.json``
(the records' numbers) and ``memory_law.md`` (the table and the fitted law)::

    python scripts/ridge_bls_memory_law.py --out results/ridge_bls     # ~15 min
    python scripts/ridge_bls_memory_law.py --out results/ridge_bls --table-only
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from streamlearn.reporting.papers.ridge_bls import LAW_ALGOS as ALGOS
from streamlearn.reporting.papers.ridge_bls import memory_law_md

NETS = {  # 6 x 10 feature + 1000 enhancement nodes, growing by 10 + 100 + 400 per update
    "k=3,100": {"windows": 6, "window_nodes": 10, "enhancement": 1000, "updates": 4,
                "update_windows": 1, "update_enhancement": 100, "update_additional": 400},
    "k=5,140": {"windows": 6, "window_nodes": 10, "enhancement": 1000, "updates": 8,
                "update_windows": 1, "update_enhancement": 100, "update_additional": 400},
}
SIZES = (15000, 30000, 60000)
LAM = 2.0 ** -10


def cases() -> list[dict[str, Any]]:
    out = []
    for net in NETS:
        for algo in ALGOS:
            for n in SIZES:
                out.append({"net": net, "algorithm": algo, "n": n, "mode": "rows"})
            out.append({"net": net, "algorithm": algo, "n": SIZES[-1], "mode": "memory"})
    return out


def run_case(case: dict[str, Any], work: Path) -> dict[str, Any]:
    name = f"{case['algorithm']}_{case['net'].replace('=', '').replace(',', '')}_" \
           f"{case['n']}_{case['mode']}"
    cfg = {"name": name,
           "protocol": {"name": "incremental-nodes",
                        "params": {**NETS[case["net"]], "node_matrix": case["mode"]}},
           "repeats": 1,
           "streams": [{"name": "mnist", "label": "MNIST", "max_samples": case["n"]}],
           "algorithms": [{"name": case["algorithm"], "label": ALGOS[case["algorithm"]],
                           "params": {"lam": LAM}}],
           "outputs": {"plots": []}}
    path = work / f"{name}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    out = work / name
    subprocess.run([sys.executable, "-m", "streamlearn", "run", str(path), "--out", str(out),
                    "-q", "--force"], check=True)
    (rec,) = [json.loads(p.read_text()) for p in (out / "runs").glob("*.json")]
    return {**case, "k": rec["updates"]["nodes"][-1],
            "n_train": rec["stream_info"]["n_samples"],
            "peak_rss_bytes": rec["memory"]["run_peak_rss_bytes"],
            "node_matrix": rec["node_matrix"],
            "seconds": rec["timing"]["total_seconds"],
            "final_accuracy": rec["updates"]["accuracy"][-1]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="results/ridge_bls")
    ap.add_argument("--table-only", action="store_true")
    args = ap.parse_args(argv)
    out = Path(args.out)
    if not args.table_only:
        with tempfile.TemporaryDirectory() as tmp:
            rows = [run_case(c, Path(tmp)) for c in cases()]
        (out / "memory_law.json").write_text(json.dumps(
            {"lam": LAM, "nets": NETS, "runs": rows}, indent=1) + "\n")
    md = memory_law_md(out)
    (out / "memory_law.md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
