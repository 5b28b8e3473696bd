"""Fixed costs: counts of file-system requests read off NDB's source, times the host's disk latency."""

import pytest

import ndbsim
from ndbsim.engine import fixed_costs as fc
from ndbsim.engine.checkpoint import LcpRecord as R
from ndbsim.engine.checkpoint import PartialLcp

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
