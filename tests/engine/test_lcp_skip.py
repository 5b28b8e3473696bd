"""Identical LCP cycles are skipped by arithmetic: same results as simulating every cycle,
with events that follow the restart's steps rather than its length."""

import math

import pytest

import ndbsim
from ndbsim.engine.lcp.master import LcpMaster

TINY_LOG = [
    "restart.type=node",
    "restart.nodes=[2]",
    "data.rows=4M",
    "data.tables=400",
    "cluster.config.FragmentLogFileSize=4M",
    "cluster.config.NoOfFragmentLogFiles=3",
    "cluster.config.TimeBetweenLocalCheckpoints=23",
    "workload.updates_per_s=5333",
    "workload.inserts_per_s=0",
    "cluster.config.MaxDiskWriteSpeed=1M",
    "cluster.config.MinDiskWriteSpeed=1M",
]

CASES = [
    (
        "scenarios/dbt2-600wh-7.6.6.yaml",
        ["workload.updates_per_s=10000", "workload.during_restart.updates_per_s=10000", "restart.downtime=2h"],
    ),
    ("scenarios/dbt2-600wh-7.5.10.yaml", ["workload.during_restart=null", "restart.downtime=3h"]),
    ("scenarios/rolling-4-nodes-8.0.yaml", []),
    ("scenarios/mysql51-1gb-onr-2000ups.yaml", ["restart.downtime=20m"]),
    ("scenarios/mysql70-6gb-initial.yaml", []),
    # two equal cycles while the REDO fill (EnableRedoControl) is still rising: not yet steady
    (
        "scenarios/rolling-4-nodes-8.0.yaml",
        [
            "restart.type=node",
            "restart.nodes=[2]",
            "cluster.config.EnablePartialLcp=false",
            "cluster.config.MaxDiskWriteSpeed=50M",
            "data.size=1GB",
            "data.rows=4M",
            "cluster.config.FragmentLogFileSize=4M",
            "cluster.config.NoOfFragmentLogFiles=3",
            "workload.updates_per_s=1000",
            "workload.inserts_per_s=0",
            "workload.during_restart.updates_per_s=5333",
            "restart.downtime=10m",
            "simulation.lcp_phase=0.55",
        ],
    ),
    # a crash during a resumed LCP's table descriptions; a burst starting inside the last LCP
    (
        "scenarios/rolling-4-nodes-8.0.yaml",
        [*TINY_LOG, "data.size=800MB", "simulation.lcp_phase=0.345", "host.disk_read=200MB/s"],
    ),
    (
        "scenarios/rolling-4-nodes-8.0.yaml",
        [
            *TINY_LOG,
            "data.size=450MB",
            "simulation.lcp_phase=0.775",
            "workload.before_restart={duration: 66s, updates_per_s: 4000}",
        ],
    ),
    # EnableRedoControl speeding LCPs up mid-write, cycle after cycle (such cycles are simulated)
    (
        "scenarios/rolling-4-nodes-8.0.yaml",
        [
            "restart.type=node",
            "restart.nodes=[2]",
            "data.rows=4M",
            "data.size=800MB",
            "cluster.config.FragmentLogFileSize=16M",
            "cluster.config.NoOfFragmentLogFiles=3",
            "workload.updates_per_s=2000",
            "workload.inserts_per_s=0",
            "cluster.config.EnablePartialLcp=false",
            "workload.during_restart.updates_per_s=2000",
            "restart.downtime=30m",
            "cluster.config.MaxDiskWriteSpeed=5M",
            "cluster.config.MinDiskWriteSpeed=1M",
            "cluster.config.MaxDiskWriteSpeedOtherNodeRestart=5M",
            "cluster.config.MaxDiskWriteSpeedOwnRestart=40M",
        ],
    ),
]


def run(path, sets, skip):
    if not skip:
        mp = pytest.MonkeyPatch()
        mp.setattr(LcpMaster, "_skippable", lambda self, plan: None)
    try:
        return ndbsim.simulate(path, overrides=sets, replications=3, seed=11)
    finally:
        if not skip:
            mp.undo()


def close(a, b, rel=1e-9):
    return a == b or (math.isfinite(a) and abs(a - b) <= rel * max(abs(a), abs(b), 1.0))


@pytest.mark.parametrize("path,sets", CASES, ids=[f"{i}-{c[0].split('/')[-1]}" for i, c in enumerate(CASES)])
def test_skipping_identical_cycles_changes_no_result(root, path, sets):
    fast, slow = run(root / path, sets, True), run(root / path, sets, False)
    assert fast.status == slow.status
    for rf, rs in zip(fast.replications, slow.replications):
        assert close(rf.total_restart_secs, rs.total_restart_secs)
        assert rf.checkpoint["lcps_simulated"] == rs.checkpoint["lcps_simulated"]
        assert close(rf.checkpoint["redo_peak_bytes"], rs.checkpoint["redo_peak_bytes"], 1e-6)
        for nf, ns in zip(rf.nodes, rs.nodes):
            assert all(close(a[1], b[1]) and close(a[2], b[2]) for a, b in zip(nf.spans, ns.spans))
        # a skip whose window a restart's event cuts short can cost one event more than it saves
        assert rf.events <= rs.events + 1


ALERTED = [
    "restart.type=node",
    "cluster.config.MaxDiskWriteSpeed=2M",
    "cluster.config.NoOfFragmentLogFiles=4",
    "cluster.config.FragmentLogFileSize=20M",
    "workload.updates_per_s=100000",
]
"""Every live LCP starts below 40% of the log and crosses it while it writes."""


def test_identical_cycles_sped_up_by_redo_control_are_skipped_with_the_same_results(root):
    path = root / "scenarios/rolling-4-nodes-8.0.yaml"
    fast, slow = run(path, [*ALERTED, "restart.downtime=6h"], True), run(path, [*ALERTED, "restart.downtime=6h"], False)
    assert fast.status == slow.status
    for rf, rs in zip(fast.replications, slow.replications):
        assert close(rf.total_restart_secs, rs.total_restart_secs)
        assert rf.checkpoint["lcps_simulated"] == rs.checkpoint["lcps_simulated"]
        assert close(rf.checkpoint["redo_peak_bytes"], rs.checkpoint["redo_peak_bytes"], 1e-6)
        assert rf.events < rs.events / 10
    day = ndbsim.simulate(path, overrides=[*ALERTED, "restart.downtime=24h"], replications=1)
    assert day.first.checkpoint["lcps_simulated"] > 3 * fast.first.checkpoint["lcps_simulated"]
    assert day.first.events < 1.5 * fast.first.events


def test_a_long_downtime_costs_no_more_events(root):
    path = root / "scenarios/dbt2-600wh-7.6.6.yaml"
    # 1M rows: every row is hit within minutes, so the copy after the downtime is the same
    busy = ["workload.updates_per_s=10000", "workload.during_restart.updates_per_s=10000", "data.rows=1M"]
    short = ndbsim.simulate(path, overrides=[*busy, "restart.downtime=10m"])
    long = ndbsim.simulate(path, overrides=[*busy, "restart.downtime=12h"])
    assert long.first.checkpoint["lcps_simulated"] > 10 * short.first.checkpoint["lcps_simulated"]
    assert long.first.events < 1.5 * short.first.events


def test_cycles_are_skipped_during_a_long_copy_that_leaves_the_live_cores_headroom():
    sets = [
        "version=8.0.30",
        "data.size=20G",
        "cluster.config.DataMemory=24G",
        "data.rows=100M",
        "data.tables=2",
        "data.ordered_indexes=100",
        "restart.downtime=6h",
        "cluster.config.MaxNoOfExecutionThreads=2",
        "workload.updates_per_s=5000",
        "workload.during_restart=null",
        "workload.before_restart=null",
    ]
    fast = ndbsim.simulate(None, overrides=sets)
    mp = pytest.MonkeyPatch()
    mp.setattr(LcpMaster, "_skippable", lambda self, plan: None)
    try:
        slow = ndbsim.simulate(None, overrides=sets)
    finally:
        mp.undo()
    assert close(fast.total_restart_secs, slow.total_restart_secs)
    assert fast.first.checkpoint["lcps_simulated"] == slow.first.checkpoint["lcps_simulated"] > 1000
    assert fast.first.events < slow.first.events / 20


def test_skipping_agrees_on_random_scenarios():
    """20 seeded random points over the factors that shape LCP cycles: versions, restart
    types, loads before and during the restart, downtime, data size and REDO log size."""
    from ndbsim.studies.sweep import make_points

    points = make_points(
        {
            "version": ["5.1.51", "7.0.9", "7.5.10", "7.6.6", "8.0.35"],
            "restart.type": ["node", "initial", "rolling", "system"],
            "workload.updates_per_s": {"low": 100, "high": 50000, "log": True},
            "workload.during_restart.updates_per_s": {"low": 0, "high": 20000},
            "restart.downtime": {"low": 0, "high": 20000},
            "data.size": {"low": "1GB", "high": "60GB", "log": True},
            "cluster.config.NoOfFragmentLogFiles": {"low": 16, "high": 256},
        },
        "random",
        20,
        seed=5,
    )
    for p in points:
        sets = [f"{k}={v}" for k, v in p.items()] + ["data.rows=null", "workload.before_restart=null"]
        fast, slow = run(None, sets, True), run(None, sets, False)
        assert fast.status == slow.status, p
        assert close(fast.total_restart_secs, slow.total_restart_secs), p
        assert [r.checkpoint["lcps_simulated"] for r in fast.replications] == [
            r.checkpoint["lcps_simulated"] for r in slow.replications
        ], p


def test_cycles_squeezed_by_a_steady_copy_are_skipped_with_the_same_results():
    # 500 GB under 1M updates/s on four 8.0.30 nodes: each copy scans on the live node's cores
    # at its pipeline's pace, and the live node's LCPs, capped higher than the cores it leaves,
    # take what the copy leaves. The copy's rate is the same beside the LCP as without it.
    sets = [
        "version=8.0.30",
        "restart.type=rolling",
        "restart.nodes=null",
        "cluster.data_nodes=4",
        "data.size=500GB",
        "data.rows=null",
        "cluster.config.DataMemory=600G",
        "cluster.config.NoOfFragmentLogFiles=1000",
        "workload.updates_per_s=1000000",
        "workload.during_restart=null",
    ]
    fast, slow = run(None, sets, True), run(None, sets, False)
    assert fast.status == slow.status == "ok"
    for rf, rs in zip(fast.replications, slow.replications):
        assert close(rf.total_restart_secs, rs.total_restart_secs)
        assert rf.checkpoint["lcps_simulated"] == rs.checkpoint["lcps_simulated"] > 500
        assert close(rf.checkpoint["redo_peak_bytes"], rs.checkpoint["redo_peak_bytes"], 1e-6)
        for nf, ns in zip(rf.nodes, rs.nodes):
            assert all(close(a[1], b[1]) and close(a[2], b[2]) for a, b in zip(nf.spans, ns.spans))
        assert rf.events < 0.7 * rs.events
