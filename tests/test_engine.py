"""The mechanisms of the restart pipeline, each pinned by a behaviour that could fail."""

import math

import pytest

import ndbsim
from ndbsim.restart_info import PHASES

BASE = "scenarios/dbt2-600wh-7.6.6.yaml"
LEGACY = "scenarios/dbt2-600wh-7.5.10.yaml"


def phases(result, node=None):
    return result.phases(node)


def sim(path=None, *sets, **kw):
    return ndbsim.simulate(path, overrides=list(sets), **kw)


def test_every_restart_info_phase_present_and_summing_to_total(root):
    r = sim(root / BASE)
    d = r.to_dict()
    for node in d["nodes"]:
        assert set(PHASES) <= set(node["phases"])
        assert math.isclose(sum(node["phases"].values()), node["total_restart_secs"], rel_tol=1e-9)
        assert "secs_for_local_recovery" in node["restart_info"]
        assert "total_restart_secs" in node["restart_info"]


def test_events_do_not_depend_on_data_size():
    idle = ("workload.before_restart=null", "cluster.config.DataMemory=16T", "data.rows=null")
    small = sim(None, "data.size=1GB", *idle)
    big = sim(None, "data.size=16TB", *idle)
    assert small.first.events == big.first.events
    # both restarts complete, and 16 000 times the data takes far longer in simulated time
    assert small.status == big.status == "ok"
    assert big.total_restart_secs > 5 * small.total_restart_secs


def test_events_bounded_under_load_from_1gb_to_16tb(root):
    path = root / "scenarios/rolling-4-nodes-8.0.yaml"
    ev = []
    for size, mem in (("1GB", "2G"), ("16TB", "16T")):
        r = sim(
            path,
            f"data.size={size}",
            f"cluster.config.DataMemory={mem}",
            "cluster.config.NoOfFragmentLogFiles=1000",
            replications=1,
        )
        ev.append(r.first.events)
    # No event per row or page, and identical LCP cycles are skipped by arithmetic: 16,000
    # times the data (and ten times the LCPs) gives about the same events.
    assert ev[1] < 1.3 * ev[0]


def test_doubling_datamemory_doubles_memory_touch():
    a = phases(sim(None, "cluster.config.DataMemory=100G"))["secs_memory_touch"]
    b = phases(sim(None, "cluster.config.DataMemory=200G"))["secs_memory_touch"]
    assert b == pytest.approx(2 * a, rel=1e-6)


def test_more_ldm_threads_shorten_restore_and_redo(root):
    few = phases(sim(root / LEGACY, "cluster.config.MaxNoOfExecutionThreads=8"))
    many = phases(sim(root / LEGACY, "cluster.config.MaxNoOfExecutionThreads=16"))
    assert many["secs_restore_fragments"] < few["secs_restore_fragments"]
    assert many["secs_exec_redo_log"] < few["secs_exec_redo_log"]


def test_partial_lcp_restores_more_but_waits_far_less(root):
    full = phases(sim(root / LEGACY))
    part = phases(sim(root / LEGACY, "version=7.6.6"))
    assert part["secs_restore_fragments"] > full["secs_restore_fragments"]
    assert part["secs_wait_lcp_for_restart"] < 0.5 * full["secs_wait_lcp_for_restart"]


def test_update_rate_above_copy_rate_is_non_converging():
    r = sim(None, "workload.during_restart.updates_per_s=50M", "restart.downtime=1m")
    assert r.status == "non-converging"
    assert "never converges" in r.reason


def test_updates_during_restart_lengthen_the_copy():
    idle = phases(sim(None, "restart.downtime=5m"))
    busy = phases(sim(None, "restart.downtime=5m", "workload.during_restart.updates_per_s=50000"))
    assert busy["secs_to_synchronize_starting_node"] > idle["secs_to_synchronize_starting_node"]


def test_disk_data_only_runs_undo(root):
    assert phases(sim(root / LEGACY))["secs_undo_disk_data"] == 0
    r = sim(root / LEGACY, "data.disk_data_size=200G")
    assert phases(r)["secs_undo_disk_data"] > 0


def test_undo_parallel_from_76(root):
    sets = ["data.disk_data_size=200G", "simulation.lcp_phase=0.5"]
    old = phases(sim(root / LEGACY, *sets))["secs_undo_disk_data"]
    new = phases(sim(root / LEGACY, *sets, "version=7.6.6"))["secs_undo_disk_data"]
    assert new < old / 3


def test_index_rebuild_uses_build_index_threads(root):
    off = phases(sim(root / BASE, "cluster.config.BuildIndexThreads=0"))["secs_index_rebuild"]
    on = phases(sim(root / BASE))["secs_index_rebuild"]
    assert on < off


def test_initial_restart_copies_everything_and_is_slower(root):
    normal = sim(root / "scenarios/mysql70-6gb-normal.yaml")
    initial = sim(root / "scenarios/mysql70-6gb-initial.yaml")
    assert phases(initial)["secs_restore_fragments"] == 0
    assert initial.first.nodes[0].facts.copied_rows >= 30e6 * 0.999
    assert initial.total_restart_secs > normal.total_restart_secs


def test_full_lcp_wait_is_between_one_and_two_lcps(root):
    r = sim(root / LEGACY, replications=30)
    cfg = r.scenario["cluster"]["config"]
    lcp = r.scenario["data"]["size"] / cfg["MaxDiskWriteSpeedOtherNodeRestart"]  # the LCP during a restart
    waits = [sum(b - a for p, a, b in rep.nodes[0].spans if p == "secs_wait_lcp_for_restart") for rep in r.replications]
    assert min(waits) > 0.8 * lcp
    assert max(waits) < 2.3 * lcp
    assert max(waits) - min(waits) > 0.3 * lcp  # the landing point in the LCP cycle is random


def test_deterministic_for_a_seed():
    a = sim(None, replications=3, seed=7).to_json()
    b = sim(None, replications=3, seed=7).to_json()
    assert a == b


def test_system_restart_has_no_copy_and_warns_above_80_percent():
    r = sim(None, "restart.type=system", "cluster.config.DataMemory=70G")
    assert phases(r)["secs_to_synchronize_starting_node"] == 0
    assert any("80%" in w for w in r.warnings)
    assert len(r.node_ids()) == 2


def test_rolling_restart_visits_every_node(root):
    r = sim(root / "scenarios/rolling-4-nodes-8.0.yaml", replications=1)
    assert sorted(r.node_ids()) == [1, 2, 3, 4]
    starts = {n.node_id: n.start for n in r.first.nodes}
    assert starts[2] > starts[1] and starts[4] > starts[3]


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


def test_parameters_a_release_does_not_have_are_ignored_with_a_warning():
    """EnableRedoControl came with 7.6.7 and DiskCheckpointSpeed left with 7.4: set on a release
    without them they change nothing, and the run says so."""
    load = (
        "version=7.6.6",
        "workload.before_restart=null",
        "workload.updates_per_s=35000",
        "cluster.config.NoOfFragmentLogFiles=16",
        "cluster.config.FragmentLogFileSize=64M",
    )
    plain = sim(None, *load)
    odd = sim(None, *load, "cluster.config.EnableRedoControl=true", "cluster.config.DiskCheckpointSpeed=1G")
    assert odd.total_restart_secs == plain.total_restart_secs
    assert odd.first.checkpoint == plain.first.checkpoint
    assert any("DiskCheckpointSpeed, EnableRedoControl: not parameters of NDB 7.6.6" in w for w in odd.warnings)
    assert not plain.warnings or not any("not a parameter" in w for w in plain.warnings)
    later = sim(None, *load, "version=7.6.7", "cluster.config.EnableRedoControl=true")
    assert later.first.checkpoint["lcp_write_speed"] > plain.first.checkpoint["lcp_write_speed"]


def test_51_node_down_three_lcps_falls_back_to_full_copy(root):
    path = root / "scenarios/mysql51-1gb-onr-2000ups.yaml"
    quick = sim(path, "restart.downtime=0s")
    long = sim(path, "restart.downtime=30m")
    assert quick.first.nodes[0].facts.full_copy_fallback is None
    assert long.first.nodes[0].facts.full_copy_fallback == 1.0


def test_dataframe_api():
    df = sim(None, replications=2).to_frame()
    assert set(df.columns) >= {"replication", "node_id", "phase", "secs", "start", "end"}
    assert len(df) == 2 * len(PHASES)


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


def test_a_system_restart_runs_no_transactions(root):
    path = root / "scenarios/system-restart-7.6.yaml"
    idle = sim(path, "workload.during_restart.updates_per_s=0")
    busy = sim(path, "workload.during_restart.updates_per_s=50000", "restart.downtime=24h")
    assert busy.status == "ok"
    assert busy.first.checkpoint["lcps_simulated"] == idle.first.checkpoint["lcps_simulated"]
    assert busy.first.events <= idle.first.events + 2
    assert any("ignored for a system restart" in w for w in busy.warnings)


def test_inserts_faster_than_the_copy_ships_are_non_converging_at_once():
    r = sim(None, "workload.during_restart.inserts_per_s=1e6")
    assert r.status == "non-converging"
    assert "inserts and deletes" in r.reason
    assert r.first.events < 200  # found before the copy starts, not at the horizon


def test_deletes_cannot_ship_more_rows_than_the_table_holds():
    r = sim(
        None,
        "workload.during_restart.deletes_per_s=100000",
        "restart.downtime=1h",
        "cluster.config.NoOfFragmentLogFiles=1000",
    )
    assert r.status == "ok"
    assert r.first.nodes[0].facts.copied_rows <= 300e6 * (1 + 1e-9)


def test_copy_events_do_not_grow_with_the_number_of_tables(root):
    path = root / "scenarios/rolling-4-nodes-8.0.yaml"
    few = sim(path, "data.tables=32", replications=1)
    many = sim(path, "data.tables=2000", replications=1)
    assert many.first.events <= few.first.events * 1.1


def _schema(tables: int) -> str:
    """``tables`` tables as a list, a tenth of them holding 90% of 40G (a skewed schema)."""
    big = max(1, tables // 10)
    sizes = [(0.9 if i < big else 0.1) * 40 * 2**30 / (big if i < big else tables - big) for i in range(tables)]
    listed = ", ".join(f"{{name: t{i}, size: {b!r}, ordered_indexes: 2}}" for i, b in enumerate(sizes))
    return f"data.tables=[{listed}]"


def test_a_per_table_schema_of_2000_tables_costs_no_more_events_than_32(root):
    path = root / "scenarios/rolling-4-nodes-8.0.yaml"
    few = sim(path, "data.size=40G", "data.ordered_indexes=64", _schema(32), replications=1)
    many = sim(path, "data.size=40G", "data.ordered_indexes=4000", _schema(2000), replications=1)
    assert few.status == many.status == "ok"
    assert many.first.events <= few.first.events


def test_partial_lcp_starts_with_764():
    policy = {v: sim(None, f"version={v}").first.checkpoint["policy"] for v in ("7.6.3", "7.6.4", "8.0.35")}
    assert policy == {"7.6.3": "full", "7.6.4": "partial", "8.0.35": "partial"}


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


def test_inserts_during_a_restart_are_copied_only_as_far_as_datamemory_holds():
    r = sim(
        None,
        "data.size=1G",
        "cluster.config.DataMemory=2G",
        "data.rows=2M",
        "restart.downtime=24h",
        "workload.inserts_per_s=20000",
        "workload.during_restart=null",
        "workload.before_restart=null",
    )
    assert r.status == "ok"
    assert r.first.nodes[0].facts.copied_rows <= 4e6 * (1 + 1e-9)  # 2G of DataMemory at 512 B a row
    assert any("error 827" in w for w in r.warnings)


def test_a_two_pass_initial_restart_counts_both_copies():
    r = sim(None, "restart.type=initial", "workload.during_restart.updates_per_s=1000")
    assert r.first.nodes[0].facts.copied_rows > 300e6  # the full first pass plus the changes


def test_a_long_planned_downtime_is_not_counted_against_the_horizon(root):
    r = sim(
        root / "scenarios/rolling-4-nodes-8.0.yaml", "restart.downtime=50h", "simulation.horizon=100h", replications=1
    )
    assert r.status == "ok", r.reason


def test_insert_recovery_work_counts_from_765():
    def lcp_bytes(version, irw):
        return sim(
            None, f"version={version}", "workload.inserts_per_s=20000", f"cluster.config.InsertRecoveryWork={irw}"
        ).first.checkpoint["lcp_bytes"]

    assert lcp_bytes("7.6.4", 0) == lcp_bytes("7.6.4", 70)  # inserts count in full before 7.6.5
    assert lcp_bytes("7.6.6", 0) < lcp_bytes("7.6.6", 70)


def test_release_lines_get_their_own_mechanisms():
    from ndbsim.profiles import profile_for

    def mech(version):
        return profile_for(version).mechanisms

    assert not mech("6.3.28").multithreaded and mech("7.0.9").multithreaded
    assert mech("7.1.10").redo_lcps_kept == 3 and mech("7.2.10").redo_lcps_kept == 2
    assert not mech("7.6.4").insert_recovery_work and mech("7.6.5").insert_recovery_work


def test_a_copy_that_never_converges_has_no_end_and_the_table_says_never():
    r = sim(None, "workload.during_restart.updates_per_s=3000000")
    assert r.status == "non-converging"
    assert math.isinf(r.phases()["secs_to_synchronize_starting_node"])
    from ndbsim.report import phase_table

    table = phase_table(r)
    assert "secs_to_synchronize_starting_node" in table
    row = next(line for line in table.splitlines() if line.startswith("secs_to_synchronize_starting_node"))
    assert row.split()[-1] == "never" and "restart total: never" in table


def test_a_system_restart_has_no_failure_handling_or_handover(root):
    r = sim(root / "scenarios/system-restart-7.6.yaml", "restart.cause=crash")
    for node in r.node_ids():
        ph = r.phases(node)
        assert ph["secs_to_complete_node_failure"] == 0.0
        assert ph["secs_wait_subscription_handover"] == 0.0
    node = sim(None, "restart.cause=crash").phases()
    assert node["secs_to_complete_node_failure"] > 0 and node["secs_wait_subscription_handover"] > 0


def test_a_rolling_restart_of_some_nodes_warns(root):
    path = root / "scenarios/rolling-4-nodes-8.0.yaml"
    some = sim(path, "restart.nodes=[1,2]")
    assert some.node_ids() == [1, 2]
    assert any("rolling restart of restart.nodes [1, 2] only" in w for w in some.warnings)
    assert not any("rolling restart of" in w for w in sim(path).warnings)


def test_spread_of_restarts_that_never_end_is_inf_not_nan():
    from ndbsim.result import quantile

    assert quantile([1.0, 2.0, math.inf], 0.5) == 2.0
    assert quantile([1.0, 2.0, math.inf], 0.95) == math.inf
    assert quantile([1.0, 2.0, 4.0], 0.25) == pytest.approx(1.5)
    spread = sim(None, "workload.during_restart.updates_per_s=3000000", replications=3).spread()
    assert spread["p5"] == spread["p50"] == spread["p95"] == math.inf


def test_a_node_down_for_three_lcps_in_51_warns_that_it_copies_everything(root):
    """Seed 004: a 5.1 node down for 3 LCPs falls back to a full copy; the run says so."""
    short = sim(root / "scenarios/mysql51-1gb-onr-2000ups.yaml")
    long = sim(root / "scenarios/mysql51-1gb-onr-2000ups.yaml", "restart.downtime=5m")
    assert not any("copying every row" in w for w in short.warnings)
    assert any("down for 3 LCPs or more" in w and "copying every row" in w for w in long.warnings)
    assert long.phases()["secs_restore_fragments"] == 0.0


def test_the_steady_lcp_cannot_write_faster_than_the_disk():
    """MaxDiskWriteSpeed above what the disk writes beside the REDO: the steady cycle runs at the
    disk's speed, and error 410's advice names the disk, not the speed parameter."""
    load = ("version=7.5.10", "host.disk_write=10MB/s", "workload.updates_per_s=5000", "workload.before_restart=null")
    r = sim(None, *load)
    cp = r.first.checkpoint
    assert cp["lcp_write_speed"] < 10e6
    assert cp["lcp_cycle_secs"] > 60e9 / 10e6  # 60 GB at under 10 MB/s
    small = sim(None, *load, "cluster.config.NoOfFragmentLogFiles=16")
    assert small.status == "redo-overload" and "faster disk (host.disk_write)" in small.reason


def test_a_burst_that_inserts_more_rows_than_the_table_holds_warns():
    """The default burst inserts 120M rows: 40% of the default 300M (no warning), 400% of 30M."""
    assert not any("before_restart inserts" in w for w in sim(None).warnings)
    small = sim(None, "data.rows=30M")
    assert any("before_restart inserts 120,000,000 rows net, 400% of data.rows" in w for w in small.warnings)


def test_a_restart_past_the_horizon_names_the_last_phase_it_finished():
    r = sim(None, "simulation.horizon=100")
    assert r.status == "stuck"
    assert r.reason.endswith("the last phase it finished was secs_starting_node_to_request_local_recovery")


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
