"""The REDO log: how full it gets, error 410, and EnableRedoControl's faster LCPs."""

from types import SimpleNamespace

import pytest
from _helpers import BASE, LEGACY, sim

from ndbsim.engine.redo import RedoLog


def test_redo_overload_is_a_result():
    r = sim(
        None,
        "cluster.config.NoOfFragmentLogFiles=3",
        "cluster.config.FragmentLogFileSize=16M",
        "workload.updates_per_s=20000",
        "workload.bytes_per_change=1KB",
        "version=7.5.10",
    )
    assert r.status == "redo-overload"
    assert "410" in r.reason


def test_redo_control_speeds_up_the_steady_lcp_and_averts_error_410():
    """EnableRedoControl raises the LCP write speed as the REDO fills (reference §2.4): the
    steady cycle that would overload a small log at MaxDiskWriteSpeed settles at a faster speed
    and keeps the REDO within the log; without the control the same load is error 410."""
    load = (
        "version=8.0.35",
        "workload.before_restart=null",
        "workload.updates_per_s=35000",
        "workload.bytes_per_change=300B",
        "cluster.config.NoOfFragmentLogFiles=16",
        "cluster.config.FragmentLogFileSize=64M",
        "data.size=200GB",
        "data.rows=null",
        "cluster.config.DataMemory=240G",
    )
    on = sim(None, *load, "cluster.config.EnableRedoControl=true")
    off = sim(None, *load, "cluster.config.EnableRedoControl=false")
    assert off.status == "redo-overload"
    assert on.status == "ok"
    c_on, c_off = on.first.checkpoint, off.first.checkpoint
    assert c_on["lcp_write_speed"] > c_off["lcp_write_speed"]
    assert c_on["lcp_secs"] < c_off["lcp_secs"]
    assert c_on["redo_bytes_needed"] < c_on["redo_capacity_bytes"] < c_off["redo_bytes_needed"]


def test_redo_control_proposes_a_write_speed_that_keeps_pace_with_the_changes():
    """At MaxDiskWriteSpeed=20M the LCPs of 32 MiB/s of changes fall behind and the log
    overloads; EnableRedoControl proposes the speed the changes call for (Backup.cpp
    calculate_checkpoint_rate, x1.25), so the LCPs keep pace and the log stays far from full."""
    load = (
        "version=8.0.35",
        "cluster.config.MaxDiskWriteSpeed=20M",
        "workload.updates_per_s=65536",
        "workload.bytes_per_change=512B",
    )
    on = sim(None, *load)
    off = sim(None, *load, "cluster.config.EnableRedoControl=false")
    assert off.status == "redo-overload"
    assert on.status == "ok"
    assert on.first.checkpoint["lcp_write_speed"] > 20 * 2**20
    fill = on.first.checkpoint["redo_peak_bytes"] / on.first.checkpoint["redo_capacity_bytes"]
    assert fill < 0.4


def test_redo_control_makes_the_restart_independent_of_the_log_size():
    """With EnableRedoControl the proposal keeps the LCPs in pace with 50k updates/s: the REDO
    stays below the high alert level whatever the log's size, so neither a smaller nor a larger
    log changes the restart (the audit's seed: 8.0, 16 to 256 log files)."""
    load = (
        "version=8.0.30",
        "data.rows=null",
        "workload.before_restart=null",
        "workload.updates_per_s=50000",
        "workload.during_restart=null",
    )
    totals = []
    for files in (16, 32, 64, 256):
        r = sim(None, *load, f"cluster.config.NoOfFragmentLogFiles={files}")
        cp = r.first.checkpoint
        assert cp["redo_peak_bytes"] < 0.4 * cp["redo_capacity_bytes"], files
        totals.append(r.total_restart_secs)
    assert max(totals) <= 1.01 * min(totals)


def test_redo_control_tries_the_critical_level_when_the_high_levels_speed_is_no_faster():
    """MaxDiskWriteSpeedOtherNodeRestart at the normal speed gives the 40% level nothing; the
    60% level's MaxDiskWriteSpeedOwnRestart must still speed the steady LCPs up."""
    r = sim(
        None,
        "version=8.0.30",
        "cluster.config.NoOfFragmentLogFiles=4",
        "workload.updates_per_s=200000",
        "cluster.config.MaxDiskWriteSpeedOtherNodeRestart=20M",
        "cluster.config.MaxDiskWriteSpeedOwnRestart=200M",
    )
    assert r.first.checkpoint["lcp_write_speed"] > 100 * 2**20


def test_absurd_write_rate_is_redo_overload_not_a_hang():
    r = sim(None, "workload.updates_per_s=1e9", "workload.during_restart.updates_per_s=0")
    assert r.status == "redo-overload"
    assert "410" in r.reason


@pytest.mark.parametrize("path", ["scenarios/mysql51-1gb-onr-2000ups.yaml", LEGACY, BASE])
def test_a_long_downtime_does_not_fill_the_redo_log(root, path):
    """A node that is down logs nothing, and the live nodes keep cutting their log tail: the
    REDO peak does not grow with the downtime, so a long downtime raises no error 410."""
    extra = [] if "mysql51" in path else ["workload.during_restart=null", "workload.updates_per_s=5000"]
    short = sim(root / path, *extra)
    long = sim(root / path, *extra, "restart.downtime=2h")
    assert long.status == "ok", long.reason
    peak = [r.first.checkpoint["redo_peak_bytes"] for r in (short, long)]
    assert peak[1] <= 1.05 * peak[0]


def test_before_76_a_restarted_node_logs_redo_only_after_its_copy(root):
    busy = [
        "workload.during_restart.updates_per_s=200000",
        "workload.before_restart=null",
        "cluster.config.MaxDiskWriteSpeedOtherNodeRestart=400M",
        "cluster.config.NoOfFragmentLogFiles=32",
        "cluster.config.FragmentLogFileSize=256M",
    ]
    quick = sim(root / LEGACY, *busy)
    long = sim(root / LEGACY, *busy, "restart.downtime=1h")
    assert quick.status == long.status == "ok", long.reason
    assert long.first.checkpoint["redo_peak_bytes"] <= 1.001 * quick.first.checkpoint["redo_peak_bytes"]


RATE = 1e6
"""REDO bytes per second per node in these tests."""


def _log(kept=2):
    traffic = SimpleNamespace(redo_bytes=lambda t0, t1: RATE * (t1 - t0))
    plan = SimpleNamespace(traffic=traffic, pre_rates=SimpleNamespace(bytes=RATE))
    sz = SimpleNamespace(redo_capacity=1e12, features=SimpleNamespace(redo_lcps_kept=kept), groups=1)
    return RedoLog(sz, plan)


def _node(history, redo_floor=0.0):
    return SimpleNamespace(down=False, restarting=False, history=history, redo_floor=redo_floor)


def test_peak_counts_each_node_from_where_its_log_starts():
    """Two live nodes keep the same LCPs, but the first's log starts later (it restarted at 80 s):
    the second, whose log reaches back to the LCP at 10 s, sets the peak."""
    shared = [SimpleNamespace(start=50.0), SimpleNamespace(start=10.0)]
    log = _log()
    log.note([_node(shared, redo_floor=80.0), _node(shared)], now=100.0)
    assert log.peak_bytes == RATE * 90.0


def test_nodes_keeping_the_same_redo_count_once_and_a_down_node_not_at_all():
    shared = [SimpleNamespace(start=50.0), SimpleNamespace(start=10.0)]
    down = SimpleNamespace(down=True, restarting=False, history=[SimpleNamespace(start=-500.0)], redo_floor=0.0)
    log = _log()
    log.note([_node(shared), _node(shared), down], now=100.0)
    assert log.peak_bytes == RATE * 90.0
