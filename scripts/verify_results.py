"""Regenerate every committed table of results/ from the committed run records; fail on any
difference (``make verify-results``, run by CI).

For each committed experiment folder with its records archive (``runs.tar.xz``) the
summaries (summary.md, summary.csv) are rebuilt in a scratch folder from the archive
alone; then the paper tables (``streamlearn tables forks|fast_ons|ridge_bls``) whose
records are all archived. Each is compared byte for byte with the committed file, and a
difference is named by file and cell. Folders without records must be listed, with their
CPU cost, in results/records_not_committed.json; they are reported as unverified. The
tables are rebuilt with an empty data directory, so nothing but committed files (records,
manifests, the builders' committed inputs) can enter them.

    python scripts/verify_results.py [--results results] [--work DIR] [--keep]

Exit code 0: every covered file regenerated unchanged; 1: a difference or an error.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from streamlearn.reporting.verify import report_lines, verify_results


def committed_folders(root: Path) -> list[str] | None:
    """The experiment folders of ``root`` that git tracks (None outside a git checkout):
    results written locally but not committed (quickstart, smoke runs) are not verified."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--", "."], cwd=root,
                             capture_output=True, check=True).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        return None
    return sorted(str(Path(f).parent) for f in out.split("\0")
                  if f == "experiment.json" or f.endswith("/experiment.json"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=Path(__file__).resolve().parents[1]
                    / "results", help="the results tree (default: results/ of this checkout)")
    ap.add_argument("--work", type=Path, default=None,
                    help="scratch folder (default: a temporary one, removed afterwards)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    args = ap.parse_args()
    start = time.perf_counter()
    root = args.results.resolve()
    with tempfile.TemporaryDirectory(prefix="verify-results-") as tmp:
        (Path(tmp) / "no-data").mkdir()
        os.environ["STREAMLEARN_DATA"] = str(Path(tmp) / "no-data")  # records only
        os.environ.pop("STREAMLEARN_AUTO_DOWNLOAD", None)
        work = args.work.resolve() if args.work else Path(tmp) / "results"
        report = verify_results(root, work, committed_folders(root),
                                progress=lambda s: print(f"  {s}", flush=True))
        if args.keep and not args.work:
            kept = Path(tempfile.mkdtemp(prefix="verify-results-kept-"))
            subprocess.run(["cp", "-r", str(work), str(kept)], check=True)
            print(f"scratch tree kept in {kept}")
    for line in report_lines(report):
        print(line)
    print(f"verify-results: {'OK' if report.ok else 'FAILED'} "
          f"in {time.perf_counter() - start:.1f} s")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
