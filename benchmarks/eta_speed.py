"""How fast ``ndbsim eta`` re-predicts a 24-node rolling restart (issue 33's target: within 2 s of a
snapshot on 2 cores): ``python benchmarks/eta_speed.py``, or the ETA row of ``bench.py``.

The restart replayed is ndbsim's own, simulated on hosts slower than the scenario says (core
speed and disk read each x0.7), its per-node phases rounded down to whole seconds as restart_info
writes them; the ETA session runs on the scenario as written, fed a snapshot at every phase
boundary of the second wave (the first wave complete), as ``--watch`` would. Per snapshot: the CPU
time of the re-prediction (refit from the last answer, then what is left simulated)."""

from __future__ import annotations

import math
import statistics
import tempfile
import time
from pathlib import Path

import yaml

from ndbsim.input import scenario as sc
from ndbsim.input.restart_info import COLUMNS, node_phases
from ndbsim.input.snapshot.read import parse_snapshot
from ndbsim.models.load import load
from ndbsim.studies.calibration.restart_rows import node_columns
from ndbsim.studies.eta.replay import cut_times, snapshot_text
from ndbsim.studies.eta.session import open_session

NODES = 24
"""The cluster of issue 33's target."""
SLOWER = {"host.core_speed": 0.7, "host.disk_read": 0.7}
"""How much slower the replayed restart's hosts are than the scenario says."""
SETS = [
    "version=8.0.30",
    "data.rows=null",
    "restart.type=rolling",
    "restart.nodes=null",
    f"cluster.data_nodes={NODES}",
    "cluster.config.NoOfFragmentLogFiles=1000",
]
START = 1_800_000_000.0


def _truth(raw: dict) -> dict[int, dict]:
    loaded = load(sc.copy_raw(raw))
    host = loaded.prepared.scenario.host
    slow = [f"{k}={getattr(host, k.split('.')[1]) * f}" for k, f in SLOWER.items()]
    rep = load(sc.copy_raw(raw), overrides=slow).run(None, 1, explained=False).first
    rows = {}
    for r in rep.nodes:
        cols = node_columns(node_phases(r.spans), r.end - r.start)
        rows[r.node_id] = {
            "node_id": r.node_id,
            "total_restart_secs": float(math.floor(r.end - r.start)),
            "phases": {c: float(math.floor(cols[c])) for c in COLUMNS},
        }
    return rows


def measure() -> dict[str, float]:
    raw = load(None, overrides=SETS).raw
    rows = _truth(raw)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "cluster.yaml"
        path.write_text(yaml.safe_dump(raw, sort_keys=False))
        session = open_session(path, None, None, [])
        cpu, wall = [], []
        for at in cut_times(rows, session.waves, 1, START):
            snap = parse_snapshot(snapshot_text(rows, session.waves, START, at, release=session.version), "bench")
            c0, w0 = time.process_time(), time.perf_counter()
            session.update(snap)
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - w0)
    return {
        "cuts": len(cpu),
        "first_cpu": cpu[0],
        "median_cpu": statistics.median(cpu[1:]),
        "max_cpu": max(cpu[1:]),
        "median_wall": statistics.median(wall[1:]),
    }


def line(m: dict[str, float]) -> str:
    target = 2.0
    verdict = "ok" if m["max_cpu"] <= target else "MISSED"
    return (
        f"eta, {NODES}-node rolling restart, {m['cuts']:.0f} snapshots of its second wave: re-prediction CPU "
        f"median {m['median_cpu']:.2f} s, max {m['max_cpu']:.2f} s (wall median {m['median_wall']:.2f} s); "
        f"the first snapshot (cold fit, figures probed) {m['first_cpu']:.2f} s [target <= {target:g} s: {verdict}]"
    )


if __name__ == "__main__":
    print(line(measure()))
