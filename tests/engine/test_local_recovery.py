"""The local-recovery phases (memory touch, restore, REDO execution, disk-data UNDO, index
rebuild), each scaling with its mechanism."""

import pytest
from _helpers import BASE, LEGACY, phases, sim


def test_doubling_datamemory_doubles_memory_touch():
    a = phases(sim(None, "cluster.config.DataMemory=100G"))["secs_memory_touch"]
    b = phases(sim(None, "cluster.config.DataMemory=200G"))["secs_memory_touch"]
    assert b == pytest.approx(2 * a, rel=1e-6)


def test_more_ldm_threads_shorten_restore_and_redo(root):
    few = phases(sim(root / LEGACY, "cluster.config.MaxNoOfExecutionThreads=8"))
    many = phases(sim(root / LEGACY, "cluster.config.MaxNoOfExecutionThreads=16"))
    assert many["secs_restore_fragments"] < few["secs_restore_fragments"]
    assert many["secs_exec_redo_log"] < few["secs_exec_redo_log"]


def test_disk_data_only_runs_undo(root):
    assert phases(sim(root / LEGACY))["secs_undo_disk_data"] == 0
    r = sim(root / LEGACY, "data.disk_data_size=200G")
    assert phases(r)["secs_undo_disk_data"] > 0


def _undo_secs_per_record(r):
    node = r.replications[0].nodes[-1]
    return phases(r)["secs_undo_disk_data"] / node.why["secs_undo_disk_data"]["figures"]["undo_records"]


def test_undo_parallel_from_76(root):
    """7.6 hands UNDO records to every LDM thread; before, one at a time. The restored LCPs differ
    in age between the releases, so the time per record is compared, on a disk fast enough that
    the page reads do not bind."""
    sets = ["data.disk_data_size=200G", "simulation.lcp_phase=0.5", "host.disk_read=100GB/s"]
    old = _undo_secs_per_record(sim(root / LEGACY, *sets))
    new = _undo_secs_per_record(sim(root / LEGACY, *sets, "version=7.6.6"))
    assert new < old / 3


def test_index_rebuild_uses_build_index_threads(root):
    off = phases(sim(root / BASE, "cluster.config.BuildIndexThreads=0"))["secs_index_rebuild"]
    on = phases(sim(root / BASE))["secs_index_rebuild"]
    assert on < off
