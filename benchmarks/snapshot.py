"""Snapshot every output ndbsim makes, and compare two snapshots.

A change that must not move a number (a refactoring, a speed-up) is checked by taking a
snapshot before and after and comparing them::

    python benchmarks/snapshot.py take /tmp/before        # on the old code
    python benchmarks/snapshot.py take /tmp/after         # on the new code
    python benchmarks/snapshot.py compare /tmp/before /tmp/after            # bit-identical
    python benchmarks/snapshot.py compare /tmp/before /tmp/after --rtol 1e-9  # float order may change
    python benchmarks/snapshot.py compare /tmp/before /tmp/after --mask-events  # fewer events, same results

A snapshot holds every shipped scenario's JSON (``ndbsim run -f json``, three replications),
the table output of the default scenario, ``ndbsim check``'s table, the three shipped sweeps as
CSV, and the JSON of 150 random scenarios (versions 5.1 to 8.0, every restart type, seeded).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

RANDOM_SCENARIOS = 150
"""Random scenarios per snapshot."""

RANDOM_SEED = 20261123
"""The seed of the random scenarios: the same 150 in every snapshot."""

NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
EVENTS_JSON = re.compile(r'"events": ?\d+')
"""A JSON event count, as ``ndbsim run -f json`` and the random scenarios' lines write it."""


def _cli(*args: str) -> str:
    """Run the CLI and return what it printed (stdout, then stderr and the exit code)."""
    p = subprocess.run([sys.executable, "-m", "ndbsim", *args], cwd=ROOT, capture_output=True, text=True)
    return f"{p.stdout}\n--- stderr ---\n{p.stderr}\n--- exit {p.returncode} ---\n"


def _random_overrides(rng: np.random.Generator) -> list[str]:
    version = str(rng.choice(["5.1.56", "7.0.9", "7.2.10", "7.4.12", "7.5.10", "7.6.3", "7.6.6", "7.6.20", "8.0.35"]))
    kind = str(rng.choice(["node", "initial", "system", "rolling"]))
    nodes = int(rng.choice([2, 4, 6, 8]))
    size_gb = float(np.round(10 ** rng.uniform(-0.5, 2.3), 2))
    sets = [
        f"version={version}",
        f"restart.type={kind}",
        f"cluster.data_nodes={nodes}",
        f"data.size={size_gb}GB",
        "data.rows=null",
        f"cluster.config.DataMemory={math.ceil(size_gb * 1.4) + 1}G",
        f"workload.updates_per_s={float(np.round(10 ** rng.uniform(0, 5), 1))}",
        f"workload.inserts_per_s={float(np.round(10 ** rng.uniform(0, 3.5), 1))}",
        f"cluster.config.NoOfFragmentLogFiles={int(rng.choice([4, 16, 32, 64, 128]))}",
        f"restart.cause={rng.choice(['planned', 'crash'])}",
        f"restart.downtime={float(np.round(rng.uniform(0, 600), 1))}",
    ]
    if rng.random() < 0.5:
        sets.append(f"workload.during_restart.updates_per_s={float(np.round(10 ** rng.uniform(0, 5), 1))}")
    if rng.random() < 0.5:
        sets.append(f"cluster.config.RecoveryWork={int(rng.choice([25, 50, 60, 80, 100]))}")
    if rng.random() < 0.3:
        sets.append(f"cluster.config.MaxDiskWriteSpeed={int(rng.choice([10, 20, 50, 100]))}M")
    if rng.random() < 0.3:
        sets.append(f"data.ordered_indexes={int(rng.choice([0, 1, 5, 20]))}")
    if rng.random() < 0.3:
        sets.append(f"data.tables={int(rng.choice([1, 9, 50, 400]))}")
    if rng.random() < 0.2:
        sets.append(f"data.disk_data_size={float(np.round(rng.uniform(1, 50), 1))}GB")
    return sets


def take(out: Path) -> None:
    import ndbsim
    from ndbsim.errors import InputError

    out.mkdir(parents=True, exist_ok=True)
    for f in sorted((ROOT / "scenarios").glob("*.yaml")):
        (out / f"scenario-{f.stem}.json").write_text(_cli("run", str(f), "-f", "json", "-n", "3"))
    (out / "default-table.txt").write_text(_cli("run"))
    (out / "check.txt").write_text(_cli("check"))
    for f in sorted((ROOT / "scenarios" / "sweeps").glob("*.yaml")):
        csv = out / f"sweep-{f.stem}.csv"
        log = _cli("sweep", str(f), "--output", str(csv), "--workers", "1")
        log = log.replace(str(out), "<snapshot>")
        (out / f"sweep-{f.stem}.log").write_text(re.sub(r"\d+(\.\d+)? ?s\b", "<time>", log))
    rng = np.random.default_rng(RANDOM_SEED)
    lines = []
    for i in range(RANDOM_SCENARIOS):
        sets = _random_overrides(rng)
        try:
            r = ndbsim.simulate(overrides=sets, seed=1000 + i, replications=2)
            lines.append(json.dumps({"i": i, "sets": sets, "result": json.loads(r.to_json())}, sort_keys=True))
        except InputError as e:
            lines.append(json.dumps({"i": i, "sets": sets, "error": str(e)}, sort_keys=True))
    (out / "random.jsonl").write_text("\n".join(lines) + "\n")
    print(f"snapshot of {len(list(out.iterdir()))} files in {out}")


def mask_events(name: str, text: str) -> str:
    """``text`` with every event count replaced by ``X``: the JSON ``"events"`` values and the
    sweep CSVs' ``events`` column. A change that models the same restart with fewer events
    moves these counts and nothing else."""
    text = EVENTS_JSON.sub('"events": X', text)
    if not name.endswith(".csv"):
        return text
    rows = list(csv.reader(io.StringIO(text)))
    if rows and "events" in rows[0]:
        k = rows[0].index("events")
        for row in rows[1:]:
            if len(row) > k:
                row[k] = "X"
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def _close(a: str, b: str, rtol: float) -> bool:
    """Whether two texts agree but for numbers within ``rtol`` of each other."""
    if a == b:
        return True
    if rtol <= 0 or NUMBER.sub("#", a) != NUMBER.sub("#", b):
        return False
    for x, y in zip(NUMBER.findall(a), NUMBER.findall(b)):
        fx, fy = float(x), float(y)
        if fx != fy and abs(fx - fy) > rtol * max(abs(fx), abs(fy)):
            return False
    return True


def compare(a: Path, b: Path, rtol: float, masked: bool = False) -> int:
    names = sorted({p.name for p in a.iterdir()} | {p.name for p in b.iterdir()})
    bad = 0
    for name in names:
        pa, pb = a / name, b / name
        if not pa.exists() or not pb.exists():
            print(f"{name}: only in {a if pa.exists() else b}")
            bad += 1
            continue
        ta, tb = pa.read_text(), pb.read_text()
        if masked:
            ta, tb = mask_events(name, ta), mask_events(name, tb)
        if ta == tb:
            continue
        la, lb = ta.splitlines(), tb.splitlines()
        diffs = [i for i, (x, y) in enumerate(zip(la, lb)) if not _close(x, y, rtol)]
        if len(la) != len(lb) or diffs:
            bad += 1
            print(f"{name}: differs ({len(diffs)} lines, {len(la)} vs {len(lb)} lines)")
            for i in diffs[:3]:
                print(f"  line {i + 1}:\n    - {la[i][:300]}\n    + {lb[i][:300]}")
        else:
            print(f"{name}: equal within rtol {rtol:g}")
    masks = " with event counts masked" if masked else ""
    print(f"{len(names) - bad} of {len(names)} files {'identical' if rtol <= 0 else 'agree'}{masks}; {bad} differ")
    return 1 if bad else 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("take", help="write a snapshot into DIR")
    t.add_argument("dir", type=Path)
    c = sub.add_parser("compare", help="compare two snapshots; exit 1 if they differ")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    c.add_argument("--rtol", type=float, default=0.0, help="relative tolerance on numbers (default: 0, bit-identical)")
    c.add_argument("--mask-events", action="store_true", help="ignore event counts (the same results in fewer events)")
    args = p.parse_args()
    if args.cmd == "take":
        take(args.dir)
        return 0
    return compare(args.a, args.b, args.rtol, args.mask_events)


if __name__ == "__main__":
    sys.exit(main())
