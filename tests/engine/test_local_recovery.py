"""The local-recovery phases (memory touch, restore, REDO execution, disk-data UNDO, index
rebuild), each scaling with its mechanism."""

import pytest
from _helpers import BASE, LEGACY, phases, sim


def test_each_datamemory_byte_adds_the_same_memory_touch():
    a, b, c = (phases(sim(None, f"cluster.config.DataMemory={g}G"))["secs_memory_touch"] for g in (100, 200, 300))
    assert b - a == pytest.approx(c - b, rel=1e-6) and b - a > 0


@pytest.mark.parametrize("name", ["DiskPageBufferMemory", "SharedGlobalMemory"])
def test_the_page_buffer_and_shared_global_memory_are_touched_with_datamemory(name):
    """ndbd.cpp, init_global_memory_manager, allocates RG_DISK_PAGE_BUFFER and the shared global
    pages in the same pass as DataMemory and ndbd_alloc_touch_mem touches them all (reference
    §14.5): 1T more of either adds 1T at the host's touch rate. The old model touched DataMemory
    only (DiskPageBufferMemory 16G -> 1T left secs_memory_touch at 101.8 s)."""
    rate = 2.5 * 2**30
    small = sim(None, f"cluster.config.{name}=16G", "host.memory_touch_rate=2.5G/s")
    big = sim(None, f"cluster.config.{name}=1040G", "host.memory_touch_rate=2.5G/s")
    added = phases(big)["secs_memory_touch"] - phases(small)["secs_memory_touch"]
    assert added == pytest.approx(1024 * 2**30 / rate, rel=1e-6)


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
