"""Does ``ndbsim eta``'s window p5–p95 hold the true window? ``python benchmarks/eta_coverage.py``
cuts finished restarts at every phase boundary of every wave and feeds each wave's snapshots to one
session, as ``--watch`` would:

- the shipped rolling restart (tests/data/rolling-8.0.35, the scenario as ``benchmarks/eta_cuts.py``
  makes it);
- restarts of ndbsim's own making: the same scenario simulated on hosts other than it says
  (``PERTURBED``), rounded down to whole seconds as restart_info writes them, predicted with the
  scenario as written.

It prints, per restart and over all cuts: how many cuts hold the true window inside p5–p95
(target ≥ 90%), the worst p50 error once the running node has restored (target within ±10%) and
the median p5–p95 width then, as a share of the true window (target ≤ 25%, issue 49)."""

from __future__ import annotations

import math
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eta_cuts import DATA, START, scenario

from ndbsim.input import scenario as sc
from ndbsim.input.restart_info import COLUMNS, node_phases
from ndbsim.models.load import load
from ndbsim.studies.calibration.restart_rows import node_columns
from ndbsim.studies.eta.replay import read_rows, replay
from ndbsim.studies.eta.session import open_session

PERTURBED = {
    "slower hosts": {"host.core_speed": 0.75, "host.memory_touch_rate": 0.7, "host.disk_read": 0.5},
    "faster hosts": {"host.core_speed": 1.3, "host.memory_touch_rate": 1.3, "host.network": 0.5},
}
"""The true runs of ndbsim's own making: factors on the scenario's host figures."""

RESTORED = ("secs_index_rebuild", "secs_to_synchronize_starting_node", "secs_wait_lcp_for_restart")
"""The phases in progress once the running node has restored (restore and REDO done), and ``done``."""


def own_rows(path: Path, factors: dict[str, float]) -> dict[int, dict[str, Any]]:
    """A finished restart of ``path``'s scenario on hosts scaled by ``factors``, as restart_info rows."""
    raw = load(str(path)).raw
    host = load(sc.copy_raw(raw)).prepared.scenario.host
    sets = [f"{k}={getattr(host, k.split('.')[1]) * f}" for k, f in factors.items()]
    rep = load(sc.copy_raw(raw), overrides=sets).run(None, 1, explained=False).first
    rows = {}
    for r in rep.nodes:
        cols = node_columns(node_phases(r.spans), r.end - r.start)
        phases = {c: float(math.floor(cols[c])) for c in COLUMNS}
        rows[r.node_id] = {"node_id": r.node_id, "total_restart_secs": sum(phases.values()), "phases": phases}
    return rows


def cuts(path: Path, rows: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """Every wave's cuts, each wave fed to one session."""
    waves = open_session(path, None, None, []).waves
    out = []
    for w in range(len(waves)):
        out += replay(open_session(path, None, None, []), rows, w, START)
    return out


def figures(found: list[dict[str, Any]]) -> dict[str, float]:
    inside = sum(1 for r in found if r["window_p5"] - 0.5 <= r["truth"] <= r["window_p95"] + 0.5)
    restored = [r for r in found if r["phase"] in RESTORED or r["phase"] == "done"]
    return {
        "cuts": len(found),
        "inside": inside,
        "worst_p50_restored": max((abs(r["error"]) for r in restored), default=0.0),
        "median_width_restored": statistics.median((r["window_p95"] - r["window_p5"]) / r["truth"] for r in restored)
        if restored
        else 0.0,
        "max_secs": max(r["secs"] for r in found),
    }


def line(name: str, f: dict[str, float]) -> str:
    return (
        f"{name}: true window inside p5-p95 in {f['inside']:.0f} of {f['cuts']:.0f} cuts "
        f"({100 * f['inside'] / f['cuts']:.0f}%); once restored p50 within {100 * f['worst_p50_restored']:.1f}%, "
        f"median width {100 * f['median_width_restored']:.0f}% of the window; slowest cut {f['max_secs']:.1f} s"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        path = scenario(Path(d))
        every = []
        found = cuts(path, read_rows(str(DATA / "restart_info.csv")))
        every += found
        print(line("shipped rolling-8.0.35", figures(found)))
        for name, factors in PERTURBED.items():
            found = cuts(path, own_rows(path, factors))
            every += found
            print(line(f"own restart, {name}", figures(found)))
    f = figures(every)
    print(line("all", f))
    ok = f["inside"] >= 0.9 * f["cuts"] and f["worst_p50_restored"] <= 0.10 and f["median_width_restored"] <= 0.25
    print(f"targets (>= 90% inside, p50 within 10% and median width <= 25% once restored): {'ok' if ok else 'MISSED'}")


if __name__ == "__main__":
    main()
