"""Regenerate docs/report-example.html, the report README links: ``ndbsim report`` on the shipped
rolling-restart scenario, with a fixed seed and replications, so the same ndbsim (and the same
matplotlib) writes the same bytes.

    python docs/report_example.py           # rewrite docs/report-example.html
    python docs/report_example.py --check   # exit 1 when the committed file is out of date
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "docs" / "report-example.html"
ARGS = ["scenarios/rolling-4-nodes-8.0.yaml", "-n", "20", "--seed", "1", "--advise-replications", "3", "--workers", "1"]
"""The shipped scenario and the run's settings; one advise worker, so that the file does not
depend on the machine's cores (the figures do not either: every candidate has its own seed)."""


def write(path: Path) -> None:
    """Run ``ndbsim report`` from the repository root (the scenario path as README shows it)."""
    import os

    from ndbsim.cli.app import main

    here = Path.cwd()
    os.chdir(ROOT)
    try:
        main(["report", *ARGS, "-o", str(path)])
    except SystemExit as e:
        if e.code:
            raise
    finally:
        os.chdir(here)


def main() -> int:
    if "--check" not in sys.argv[1:]:
        write(TARGET)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / TARGET.name
        write(fresh)
        same = fresh.read_bytes() == TARGET.read_bytes()
    print(f"{TARGET.relative_to(ROOT)} is {'up to date' if same else 'out of date: run python docs/report_example.py'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
