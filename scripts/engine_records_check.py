"""Run records of two checkouts must agree exactly (issue 25 item 3: the engine loop's
overhead was cut without changing any number).

Runs one small config through the per-sample engine loop (``fused: false``: RLS, River's
perceptron, Hoeffding tree and PA, and a small Online-BLS; SEA and Electricity, 3,000
samples, 2 seeds, eight metrics, 20 checkpoints) with each checkout's code
(``PYTHONPATH=<checkout> python -m streamlearn run``), then compares every run record
field by field — metrics, curves, metric info, learner counters, stream info — except the
timing, memory, versions, git commit and digest fields (``streamlearn records diff
--exact``). Exit 1 on any difference.

    python scripts/engine_records_check.py --before /work/main --after . [--work DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CONFIG = """\
name: engine_check
protocol: prequential-classification
repeats: 2
streams:
  - {name: sea, label: SEA, max_samples: 3000, reseed: true, normalize: minmax,
     normalize_warmup: 100}
  - {name: electricity, label: Electricity, max_samples: 3000}
algorithms:
  - {name: rls, label: RLS}
  - {name: perceptron, label: Perc}
  - {name: hoeffding_tree, label: HT}
  - {name: passive_aggressive, label: PA}
  - {name: online_bls_fast, label: OBLS,
     params: {n3: 50, lam: 1.0e-8, enh_shrink: 0.8, shrink_source: box}}
metrics: [oca, bacc, avrbacc, f1, mcc, kappa, kappa_m, kappa_t]
evaluation: {chunk_size: 700, checkpoints: 20, fused: false}
outputs: {dir: out, plots: []}
"""


def run(checkout: Path, config: Path, out: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(checkout.resolve())}
    subprocess.run([sys.executable, "-m", "streamlearn", "run", str(config), "-q",
                    "--out", str(out)], env=env, check=True, cwd=config.parent)


def compare(a: Path, b: Path) -> int:
    """``streamlearn records diff a b --exact``'s comparison (reporting/record_diff.py)."""
    from streamlearn.reporting.record_diff import diff_folders

    res = diff_folders(a, b)
    for r in res.runs:
        if r.verdict != "same":
            print(f"DIFF {r.run_id}: {r.verdict}: {', '.join(r.fields)}")
    for rid in res.only_a + res.only_b:
        print(f"DIFF {rid}: in one folder only")
    print(f"{len(res.runs)} run records (final metrics, curves, metric info, counters) "
          f"compared exactly: {len(res.runs) - res.count('same')} difference(s)")
    return 0 if res.reproduced(exact=True) else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True, help="checkout of the base code")
    ap.add_argument("--after", type=Path, default=Path("."), help="checkout of the new code")
    ap.add_argument("--work", type=Path, help="directory for the config and the records")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="engine-check-"))
    work.mkdir(parents=True, exist_ok=True)
    config = work / "engine_check.yaml"
    config.write_text(CONFIG)
    run(args.before, config, work / "before")
    run(args.after, config, work / "after")
    return compare(work / "before", work / "after")


if __name__ == "__main__":
    raise SystemExit(main())
