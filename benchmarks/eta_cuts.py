"""The ETA of the shipped rolling restart (tests/data/rolling-8.0.35), cut at every phase boundary
of its second wave: ``python benchmarks/eta_cuts.py [SCENARIO]`` prints the markdown table of
calibration/README.md ("ndbsim eta against a finished restart"). Without SCENARIO it makes the
scenario as the tests do (``ndbsim init`` from that config.ini, tests/studies/test_user_calibration.py)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from ndbsim.studies.eta.replay import read_rows, replay
from ndbsim.studies.eta.session import open_session

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "rolling-8.0.35"
INIT_SETS = tuple(
    line for line in (DATA / "init-sets.txt").read_text().splitlines() if line and not line.startswith("#")
)
"""What the user knows of the cluster beyond config.ini (tests/data/rolling-8.0.35/init-sets.txt)."""

START = 1_800_000_000.0
"""The replayed restart's start, seconds since the epoch (any moment will do)."""


def scenario(directory: Path) -> Path:
    out = directory / "rolling.yaml"
    sets = [a for s in INIT_SETS for a in ("-s", s)]
    cmd = [sys.executable, "-m", "ndbsim", "init", "--config-ini", str(DATA / "config.ini"), *sets, "-o", str(out)]
    subprocess.run(cmd, check=True, capture_output=True)
    return out


def table(rows: list[dict]) -> str:
    head = (
        f"| cut | at | node {rows[0]['node']} state | phase in progress | fitted on | window p50 (p5-p95) | error "
        "| of what is left | s |"
    )
    lines = [head, "|" + "---|" * 9]
    lines += [
        f"| {r['cut']} | {r['at_secs']:.0f} s | {r['state']} | {r['phase']} | {r['fit_nodes']} nodes + "
        f"{r['fit_phases']} phases | {r['window_p50']:.0f} s ({r['window_p5']:.0f}-{r['window_p95']:.0f}) | "
        f"{100 * r['error']:+.1f}% | {100 * r['error_of_left']:+.1f}% | {r['secs']:.1f} |"
        for r in rows
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(sys.argv[1]) if len(sys.argv) > 1 else scenario(Path(d))
        session = open_session(path, None, None, [])
        rows = read_rows(str(DATA / "restart_info.csv"))
        first = replay(open_session(path, None, None, []), rows, 0, START)
        out = replay(session, rows, 1, START)
    sys.stdout.write("second wave (wave 1 complete), one session as --watch feeds it:\n\n" + table(out))
    sys.stdout.write("\nfirst wave (no complete row yet), one session:\n\n" + table(first))
    sys.stdout.write(f"\ntrue window: {out[0]['truth']:.0f} s (the slowest node of each wave, waves back to back)\n")


if __name__ == "__main__":
    main()
