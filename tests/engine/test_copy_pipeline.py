"""The copy as NDB runs it (issue 42): a copy instance is a pipeline, the live node's scan and the
starting node's apply at the same time on their own LDM threads; a live node serves one copy of
its node group at a time (the DIH master's take-over); each copied row's disk part goes through both nodes' page caches
(DiskPageBufferMemory), and so do the UNDO apply's page reads."""

import itertools
import math
from pathlib import Path

import pytest
from _helpers import sim

from ndbsim.engine.restart import disk_data
from ndbsim.engine.workload import Changes
from ndbsim.input.restart_info import TO_SYNCHRONIZE_STARTING_NODE as COPY
from ndbsim.input.restart_info import UNDO_DISK_DATA as UNDO
from ndbsim.input.scenario.loading import load

ROOT = Path(__file__).resolve().parents[2]
THREE = "tests/data/three-replicas-8.4.3.yaml"
WAVE = "restart.plan=[[21, 22, 31, 32], [23, 33]]"
IN_MEMORY = ("simulation.replications=1", "data.disk_data_size=0")


def _copy(r, nid):
    run = next(n for n in r.first.nodes if n.node_id == nid)
    return r.phases(nid)[COPY], run.why[COPY]


@pytest.fixture(scope="module")
def three():
    path = ROOT / THREE
    return {
        "per group": sim(path, *IN_MEMORY),
        "wave": sim(path, *IN_MEMORY, WAVE),
        "per group, 100k": sim(path, *IN_MEMORY, "workload.updates_per_s=100000"),
    }


def test_two_copies_from_one_live_node_run_one_after_the_other(three):
    """Node 23 is the only live node of 21 and 22, which restart together: the DIH master grants one
    take-over per node group (DbdihMain.cpp, Dbdih::execUPDATE_TOREQ), so node 23 serves one copy at
    a time, never both at once; the second waits for the first's whole copy, within 5 s of its end
    (Dbdih::execUPDATE_TOREF's retry), and then copies as much as alone from one live node."""
    first, first_why = _copy(three["wave"], 21)
    second, why = _copy(three["wave"], 22)
    for w in (first_why, why):
        assert "serving" not in w["bottleneck"] and w["figures"].get("copies_served", 1) == 1
    wait = why["figures"]["takeover_wait_secs"]
    assert why["figures"]["waited_for_node"] == 21 and any(
        k.startswith("wait: starting node 21's copy") for k in why["bound_secs"]
    )
    # 22 asked after 21's admission (NDBCNTR's one-at-a-time gate): it waits the rest of 21's copy
    gate = three["wave"].phases(22)["secs_wait_for_ndbcntr_master"]
    assert first - gate - 1.0 <= wait <= first + 5.0
    assert second == pytest.approx(wait + first, rel=0.05)


def test_the_scan_and_the_apply_run_at_once_and_the_slower_side_is_named(three):
    """Idle, the scan of 350M rows is the slower side and the why names the live nodes; at 100k
    updates/s the starting node's apply (the live stream on the same LDM threads) is, and the why
    names the starting node."""
    _, idle = _copy(three["per group"], 21)
    assert idle["bottleneck"].startswith("LDM threads of live nodes 22, 23"), idle["bottleneck"]
    _, busy = _copy(three["per group, 100k"], 21)
    assert busy["bottleneck"].startswith("LDM threads of starting node 21"), busy["bottleneck"]


DISK_NODE = (
    "simulation.replications=1",
    "restart.type=node",
    "restart.downtime=2h",
    "cluster.config.DataMemory=200G",
    "cluster.config.NoOfFragmentLogFiles=256",
    "cluster.config.FragmentLogFileSize=1G",
    "data.size=120GB",
    "data.rows=400M",
    "workload.updates_per_s=30000",
    "workload.inserts_per_s=0",
    "host.disk_read=200M",
)
"""An 8.0.35 node restart after 2 h down, disks reading 200M/s (the rolling scenario's hosts)."""

DISK = ("data.disk_data_size=900G", "cluster.config.DiskPageBufferMemory=64G", "workload.disk_update_share=0.82")


def test_disk_parts_through_the_page_buffer_slow_the_copy_on_slow_disks(root):
    """108M changed rows over 29M 32K pages touch nearly every page: the live node reads what its
    64G cache misses and the starting node reads and rewrites its own pages."""
    path = root / "scenarios/rolling-4-nodes-8.0.yaml"
    plain = sim(path, *DISK_NODE)
    disk = sim(path, *DISK_NODE, *DISK)
    assert plain.status == disk.status == "ok"
    assert disk.phases()[COPY] >= 3 * plain.phases()[COPY]


@pytest.mark.parametrize("kind", ["node", "initial"])
def test_page_traffic_costs_no_event_per_page_or_row(kind):
    """The copy's and the UNDO apply's pages are rates of the steps' flows: 16,000 times the disk
    data gives the same events."""
    idle = ("workload.before_restart=null", "cluster.config.DataMemory=16T", "data.rows=null")
    runs = [
        sim(None, f"data.size={size}", f"data.disk_data_size={size}", f"restart.type={kind}", *idle)
        for size in ("1GB", "16TB")
    ]
    assert runs[0].status == runs[1].status == "ok"
    assert runs[0].first.events == runs[1].first.events


@pytest.fixture(scope="module")
def buffers():
    path = ROOT / "scenarios/dbt2-600wh-7.6.6.yaml"
    base = (
        "workload.updates_per_s=20000",
        "workload.during_restart.updates_per_s=20000",
        "data.disk_data_size=200G",
    )
    return {b: sim(path, *base, f"cluster.config.DiskPageBufferMemory={b}") for b in ("64M", "16G", "64G", "200G")}


def test_a_bigger_page_buffer_never_slows_the_copy_or_the_undo_apply(buffers):
    figures = [(r.phases()[COPY], r.phases()[UNDO]) for r in buffers.values()]
    for (copy, undo), (copy2, undo2) in itertools.pairwise(figures):
        assert copy2 <= copy * 1.001 and undo2 <= undo * 1.001, figures
    # and it saves page reads: the live node misses less, the UNDO apply re-reads less
    assert figures[-1][0] < 0.8 * figures[0][0] and figures[-1][1] < 0.8 * figures[0][1], figures


DATA = type("D", (), {"disk_data_size": 900 * 2**30, "row_count": 400e6})()


def test_copy_pages_follow_the_distinct_pages_against_the_buffer():
    pages = 900 * 2**30 / disk_data.DISK_PAGE_BYTES
    touched = disk_data.distinct_pages(DATA, 169e6)
    assert touched == pytest.approx(pages * (1 - math.exp(-169e6 / pages)))
    small = disk_data.copy_page_bytes(DATA, 169e6, 1.0, False, (64 * 2**20, 64 * 2**20))
    big = disk_data.copy_page_bytes(DATA, 169e6, 1.0, False, (64 * 2**30, 64 * 2**30))
    assert big.live_read < small.live_read and big.own_write < small.own_write
    assert big.own_read == small.own_read == pytest.approx(touched * disk_data.DISK_PAGE_BYTES)
    whole = disk_data.copy_page_bytes(DATA, 400e6, 1.0, True, (2 * 2**40, 0.0))
    assert whole.live_read == 0.0 and whole.own_read == 0.0  # an initial restart writes new pages


def test_undo_page_reads_fall_with_the_buffer_down_to_each_page_once(root):
    s = load(root / "scenarios/dbt2-600wh-7.6.6.yaml", ["data.disk_data_size=200G"]).scenario
    c = Changes(updates=50e6, inserts=0.0, deletes=0.0)
    reads = [disk_data.undo_page_read_bytes(s, c, b) for b in (64 * 2**20, 2**30, 16 * 2**30, 2**40)]
    assert reads == sorted(reads, reverse=True) and reads[0] > reads[-1]
    assert reads[-1] == pytest.approx(disk_data.touched_page_bytes(s, c))


def test_rows_in_flight_follow_the_6000_word_window_and_the_scan_batch():
    """Dblqh.hpp MAX_NO_WORDS_OUTSTANDING_COPY_FRAGMENT 6000, a row counting (len + 56) × 1.25 words
    (DblqhMain.cpp nextScanConfCopyLab), never more than the scan's batch of 16 (pc.hpp
    ZRESERVED_SCAN_BATCH_SIZE): 300-byte rows fill the batch, 2 KB rows with 500 B disk parts leave
    6000 / ((640 + 56) × 1.25) = 6.9 in flight."""
    from ndbsim.engine.restart.copy import copy_window_rows

    assert copy_window_rows(300.0) == 16.0
    assert copy_window_rows(2048.0 + 512.0) == pytest.approx(6000 / ((640 + 56) * 1.25))
    assert copy_window_rows(976.0) == pytest.approx(16.0)
    assert copy_window_rows(1e9) == 1.0


def test_the_ldm_threads_pgman_workers_hold_ldm_of_ldm_plus_one_shares_of_the_buffer():
    """pgman.cpp Pgman::execREAD_CONFIG_REQ: each worker gets buffer / (LQH workers + 1), at least
    4 MB; the extra worker reads UNDO pages, the LDM threads' workers cache the data's pages."""
    assert disk_data.ldm_buffer_bytes(64 * 2**30, 8) == pytest.approx(64 * 2**30 * 8 / 9)
    assert disk_data.ldm_buffer_bytes(16 * 2**20, 8) == 8 * 4 * 2**20
    assert disk_data.ldm_buffer_bytes(64 * 2**30, 0) == 64 * 2**30
