"""Fixed costs: counts of file-system requests read off NDB's source, times the host's disk latency."""

import pytest

import ndbsim
from ndbsim.engine import fixed_costs as fc
from ndbsim.engine.lcp.checkpoint import LcpRecord as R
from ndbsim.engine.lcp.checkpoint import PartialLcp

LAB = "scenarios/lab-2node-7.5.4-tiny.yaml"


def test_a_partial_lcp_restore_reads_two_control_files_and_every_data_file():
    assert fc.restore_file_ops(partial=False, data_files=1) == 3
    assert fc.restore_file_ops(partial=True, data_files=1) == 6 + 3
    assert fc.restore_file_ops(partial=True, data_files=4) == 6 + 4 * 3


def test_restore_setup_is_serial_per_thread():
    one = fc.restore_setup_secs(24, 1, 3, 0.01)
    assert one == pytest.approx(24 * 3 * 0.01)
    assert fc.restore_setup_secs(24, 4, 3, 0.01) == pytest.approx(one / 4)
    assert fc.restore_setup_secs(0, 1, 3, 0.01) == 0.0


def test_lcp_file_work_hides_behind_writing():
    exposed = fc.lcp_round_secs(tables=2, fragments=8, ldm=2, partial=True, disk_latency=0.01, hidden_secs=0.0)
    assert exposed == pytest.approx(2 * fc.LCP_TABLE_DESCRIPTION_SECS + 4 * 6 * 0.01)
    hidden = fc.lcp_round_secs(tables=2, fragments=8, ldm=2, partial=True, disk_latency=0.01, hidden_secs=10.0)
    assert hidden == pytest.approx(2 * fc.LCP_TABLE_DESCRIPTION_SECS)


def test_the_lab_restore_grows_with_disk_latency_by_its_file_requests(root):
    """24 fragments (12 tables × 1 LDM × 2 replicas) restored one at a time, 3 requests each on 7.5."""
    fast = ndbsim.simulate(root / LAB, overrides=["host.disk_latency=10ms"]).phases()
    slow = ndbsim.simulate(root / LAB, overrides=["host.disk_latency=110ms"]).phases()
    grown = slow["secs_restore_fragments"] - fast["secs_restore_fragments"]
    assert grown == pytest.approx(24 * 3 * 0.1, rel=1e-6)
    assert slow["secs_index_rebuild"] == pytest.approx(fast["secs_index_rebuild"])


def test_an_idle_fragments_lcp_adds_no_data_file_to_the_restore():
    """Backup.cpp's handle_idle_lcp: an LCP of a fragment with no changes writes only its control file,
    so a restore walking back through it opens no data file for it (reference §2.1)."""
    policy = PartialLcp(recovery_work=60, insert_recovery_work=40)
    busy = R(0.0, 1.0, 0.1, 1e5, 1e7, 1e8)
    idle = R(0.0, 1.0, 1 / 2048, 0.0, 0.0, 0.0)
    work = policy.restore_work(1e9, 1e7, [busy, idle, idle, busy], None)
    assert work.lcps > work.data_files >= 2
    assert policy.restore_work(1e9, 1e7, [busy] * 20, None).data_files == 10


def test_the_slot_wise_build_visits_whole_pages_of_slots():
    """Dbtup::buildIndex with BuildIndexThreads=0: every slot of every page, free ones too."""
    from ndbsim.input.scenario import TableAmounts

    full = TableAmounts("t", rows=163_840, nbytes=163_840 * 200, ordered_indexes=2, disk_data=0)
    per_page = fc.PAGE_BYTES // 200  # 163 slots of 200 B
    visits = fc.slot_visits([full], fragments_per_table=2)
    assert 2 * 163_840 <= visits < 2 * (163_840 + 2 * per_page)
    tiny = TableAmounts("t", rows=10, nbytes=2000, ordered_indexes=3, disk_data=0)
    assert fc.slot_visits([tiny], fragments_per_table=2) == 3 * 2 * per_page  # a page per fragment
    assert fc.slot_visits([TableAmounts("t", 0, 0, 3, 0)], fragments_per_table=2) == 0


def test_many_small_indexed_tables_slow_a_75_rebuild_but_not_a_76_offline_one(root):
    """7.5 builds slot by slot in the LDM thread; 7.6's offline build (BuildIndexThreads=128) skips
    free slots without a signal."""
    big = "{name: big, rows: 300M, size: 60GB, ordered_indexes: 10}"
    small = "".join(f", {{name: t{i}, rows: 100, size: 20KB, ordered_indexes: 3}}" for i in range(999))
    out = {}
    for version in ("7.5.10", "7.6.6"):
        for label, tables, n in (("one", f"[{big}]", 10), ("many", f"[{big}{small}]", 3007)):
            sets = [f"version={version}", f"data.tables={tables}", f"data.ordered_indexes={n}"]
            r = ndbsim.simulate(root / "scenarios/dbt2-600wh-7.5.10.yaml", overrides=sets)
            out[version, label] = r.phases()["secs_index_rebuild"]
    assert out["7.5.10", "many"] - out["7.5.10", "one"] > 1.0
    assert out["7.6.6", "many"] - out["7.6.6", "one"] < 0.5


def test_the_metadata_copy_activates_every_index_in_its_own_schema_transaction(root):
    """Dbdict::activateIndexes: a node restart's metadata copy runs one local schema transaction per
    index, each after the previous one ended; at fixed tables and data, more indexes cost more."""
    few = ndbsim.simulate(root / LAB, overrides=["data.ordered_indexes=12"]).phases()
    many = ndbsim.simulate(root / LAB, overrides=["data.ordered_indexes=112"]).phases()
    grown = many["secs_to_copy_meta_data"] - few["secs_to_copy_meta_data"]
    assert grown == pytest.approx(100 * fc.SCHEMA_TRANS_COMMIT_SECS, rel=1e-6)
