"""Disk-data tables at restart (issue 32): the UNDO back to the restored LCP's start, the initial
restart's data files and disk columns, PGMAN's dirty pages in the LCP, and the fragments per
table from ClassicFragmentation / PartitionsPerNode."""

import pytest
from _helpers import BASE, phases, sim
from conftest import ROOT

from ndbsim.engine import fixed_costs
from ndbsim.input.units import parse_byte_rate, parse_bytes

DISK = ("data.disk_data_size=200G", "cluster.config.DiskPageBufferMemory=16G")
UPDATES = ("workload.updates_per_s=20000", "workload.during_restart.updates_per_s=20000")


def _undo(*sets):
    return phases(sim(BASE, *DISK, *UPDATES, *sets))["secs_undo_disk_data"]


def test_undo_is_zero_without_disk_column_changes():
    assert _undo("workload.disk_update_share=0") == 0
    assert phases(sim(BASE, *UPDATES))["secs_undo_disk_data"] == 0  # no disk data


def test_undo_grows_with_the_disk_column_update_rate():
    shares = [_undo(f"workload.disk_update_share={x}") for x in (0.1, 0.3, 0.9)]
    assert 0 < shares[0] < shares[1] < shares[2]
    rates = [
        _undo(
            "workload.disk_update_share=0.5",
            f"workload.updates_per_s={u}",
            f"workload.during_restart.updates_per_s={u}",
        )
        for u in (10000, 40000)
    ]
    assert 0 < rates[0] < rates[1]


def test_the_default_share_is_the_disk_columns_share_of_a_row():
    r = sim(BASE, *DISK, *UPDATES)
    figures = r.replications[0].nodes[-1].why["secs_undo_disk_data"]["figures"]
    assert figures["disk_update_share"] == pytest.approx(200 / (200 + 60))


def test_an_initial_restart_creates_and_ships_the_disk_data():
    """200 GB of disk data per node costs an initial restart at least the time to move 200 GB at
    the scenario's network and disk figures (the slower of the two)."""
    sets = ("restart.type=initial",)
    none = sim(BASE, *sets)
    disk = sim(BASE, *sets, *DISK)
    host = none.scenario["host"]
    slowest = min(parse_byte_rate(host["network"]), parse_byte_rate(host["disk_write"]))
    least = parse_bytes("200G") / slowest
    assert disk.total_restart_secs - none.total_restart_secs >= least * (1 - 1e-9)
    figures = disk.replications[0].nodes[-1].why["secs_to_copy_meta_data"]["figures"]
    assert figures["disk_data_file_bytes"] == parse_bytes("200G")


def test_the_copy_ships_disk_columns_where_the_network_binds():
    """Every row goes over the link with its disk part: the copy takes at least all the bytes'
    time on a 1 Gbit/s link, and longer than the in-memory rows alone."""
    sets = ("restart.type=initial", "host.network=1Gbit/s", "cluster.config.TwoPassInitialNodeRestartCopy=false")
    none = phases(sim(BASE, *sets))["secs_to_synchronize_starting_node"]
    r = sim(BASE, *sets, *DISK)
    disk = phases(r)["secs_to_synchronize_starting_node"]
    shipped = r.scenario["data"]["size"] + parse_bytes("200G")
    assert disk >= shipped / parse_byte_rate("1Gbit/s") * 0.99
    assert disk > none


def test_dirty_disk_pages_lengthen_the_restart_lcp():
    small = phases(sim(BASE, *DISK, *UPDATES, "cluster.config.DiskPageBufferMemory=64M"))
    large = phases(sim(BASE, *DISK, *UPDATES))
    assert large["secs_wait_lcp_for_restart"] > small["secs_wait_lcp_for_restart"] + 5


def test_fragments_per_table_follow_classic_fragmentation():
    cfg = {"ClassicFragmentation": True, "PartitionsPerNode": 2, "AutomaticThreadConfig": False}
    assert fixed_costs.table_fragments(cfg, 8, 2, layout_8023=True) == 16
    assert fixed_costs.table_fragments({**cfg, "ClassicFragmentation": False}, 8, 2, layout_8023=True) == 4
    assert fixed_costs.table_fragments({**cfg, "AutomaticThreadConfig": True}, 8, 3, layout_8023=True) == 6
    # before 8.0.23 there is no PartitionsPerNode: the classic layout
    assert fixed_costs.table_fragments({**cfg, "ClassicFragmentation": False}, 8, 2, layout_8023=False) == 16


def test_busy_threads_count_the_fragments_each_thread_holds():
    assert fixed_costs.busy_threads(48, 8) == 8
    assert fixed_costs.busy_threads(4, 8) == 4
    assert fixed_costs.busy_threads(12, 8) == 6  # 2 fragments on the busiest thread


def _restore_setup(*sets):
    r = sim(BASE, "version=8.0.35", "cluster.config.ClassicFragmentation=false", "host.disk_latency=5ms", *sets)
    return r.replications[0].nodes[-1].why["secs_restore_fragments"]["figures"]["file_setup_secs"], phases(r)


def test_partitions_per_node_moves_the_per_fragment_costs():
    """Twice the partitions, twice the fragments' file requests; where they bind (150 tables on a
    5 ms disk) the restore takes longer. With few tables more fragments can instead spread better
    over the restoring threads (``busy_threads``)."""
    sets = ("data.tables=150", "data.ordered_indexes=150")
    two, p2 = _restore_setup(*sets, "cluster.config.PartitionsPerNode=2")
    four, p4 = _restore_setup(*sets, "cluster.config.PartitionsPerNode=4")
    assert four > 1.5 * two  # the data files per fragment follow its size too (restore_file_ops)
    assert p4["secs_restore_fragments"] > p2["secs_restore_fragments"]


def test_one_table_of_few_partitions_restores_on_fewer_threads():
    """One table in 2 partitions per node × 2 replicas: 4 fragments for 8 LDM threads."""
    sets = ("version=8.0.35", "data.tables=1", "data.ordered_indexes=1")
    classic = phases(sim(BASE, *sets))
    few = phases(sim(BASE, *sets, "cluster.config.ClassicFragmentation=false"))
    assert few["secs_exec_redo_log"] > classic["secs_exec_redo_log"] * 1.5


def test_the_undo_log_bounds_the_undo_applied():
    r = sim(BASE, *DISK, *UPDATES, "workload.disk_update_share=1", "data.undo_log_size=1G")
    assert r.replications[0].nodes[-1].facts.undo_bytes == pytest.approx(parse_bytes("1G"))
    assert any("out of undo space" in w for w in r.warnings)
    free = sim(BASE, *DISK, *UPDATES, "workload.disk_update_share=1")
    assert free.replications[0].nodes[-1].facts.undo_bytes > parse_bytes("1G")


V80 = ("version=8.0.35",)


@pytest.mark.parametrize("buffer", ["16G", "64G", "256G", "1040G"])
def test_a_bigger_page_buffer_never_makes_the_restart_write_more_page_bytes(buffer):
    """Each page the copy dirties is written once: evicted during the copy, or by the restart's LCP
    if the cache still holds it (pgman.cpp, Pgman::insert_fragment_dirty_list, Pgman::handle_lcp;
    reference §14.1): the copy's page writes and the LCP's flush add up to the pages it dirtied,
    which it read (its read-modify-writes), whatever the buffer. The old model flushed
    min(pages touched, buffer) beside the evictions: 195.7G + 256G after reading 273.5G at 256G."""
    r = sim(BASE, *V80, *DISK[:1], *UPDATES, f"cluster.config.DiskPageBufferMemory={buffer}")
    for node in r.replications[0].nodes:
        copy = node.why["secs_to_synchronize_starting_node"]["figures"]
        lcp = node.why["secs_wait_lcp_for_restart"]["figures"]
        written = copy["starting_page_write_bytes"] + lcp.get("disk_page_flush_bytes", 0.0)
        assert written == pytest.approx(copy["starting_page_read_bytes"], rel=1e-9)


def test_the_restart_lcp_says_a_bigger_buffer_moved_the_page_writes_onto_it():
    r = sim(BASE, *V80, *DISK[:1], *UPDATES, "cluster.config.DiskPageBufferMemory=256G")
    why = r.replications[0].nodes[-1].why["secs_wait_lcp_for_restart"]
    assert "moves page writes from the copy onto this LCP" in why["mechanism"]
    assert "Pgman::do_track_handle_lcp_speed_loop" in why["mechanism"]  # 8.0.35 paces by dirty pages
    assert why["figures"]["disk_page_flush_rate"] > 0


def test_pgman_paces_the_lcp_flush_by_release():
    """8.0.1x: 32 writes in flight per PGMAN (MAX_LCP_PAGES_OUTSTANDING), so the latency bounds the
    rate; 8.0.20+: the pages made dirty over the time since the last PGMAN LCP, +10%, over the 67%
    floor of the checkpointing share, at least 200 pageouts/s, within 192 in flight."""
    from ndbsim.engine.restart import disk_data as dd

    page = dd.DISK_PAGE_BYTES
    assert dd.lcp_flush_rate(False, 1e12, 100.0, 8, 1e-3) == pytest.approx(8 * 32 * page / 1e-3)
    assert dd.lcp_flush_rate(True, 0.0, 100.0, 8, 1e-4) == pytest.approx(8 * 200 * page)  # the floor
    made = 8 * 10_000 * page * 100.0  # 10,000 pages/s per LDM thread over 100 s
    want = 1.10 * 10_000 / 0.67
    assert dd.lcp_flush_rate(True, made, 100.0, 8, 1e-4) == pytest.approx(8 * want * page)
    # at 10 ms a write the in-flight cap, wanted x latency / 1.5 + 1 = 110, binds; at 100 ms, 192
    assert dd.lcp_flush_rate(True, made, 100.0, 8, 1e-2) == pytest.approx(8 * 110 / 1e-2 * page)
    assert dd.lcp_flush_rate(True, made, 100.0, 8, 1e-1) == pytest.approx(8 * 192 / 1e-1 * page)


def test_the_wait_for_the_lcp_says_what_max_disk_write_speed_other_node_restart_did():
    """Backup.cpp calculate_current_speed_bounds: while a node restarts, MaxDiskWriteSpeedOtherNodeRestart
    is the live nodes' LCP ceiling, and each byte/s costs LDM CPU the copy and REDO share (reference
    §14.6); the rest of the LCP running when the node asked is the phase, not the speed."""
    r = sim(
        ROOT / "scenarios/rolling-4-nodes-8.0.yaml",
        "simulation.replications=1",
        "workload.updates_per_s=200000",
        "cluster.config.MaxDiskWriteSpeedOtherNodeRestart=1000M",
    )
    for node in r.replications[0].nodes:
        why = node.why["secs_wait_lcp_for_restart"]
        assert "MaxDiskWriteSpeedOtherNodeRestart (1000.0M/s) raised the live nodes' LCP ceiling" in why["mechanism"]
        assert "of their LDM threads" in why["mechanism"]
        assert 0.0 <= why["figures"]["running_lcp_rest_secs"] <= why["figures"]["distributed_lcp_wait_secs"]
