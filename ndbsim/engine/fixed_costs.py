"""Fixed costs of a restart: the time NDB spends per object (fragment, table) and per round (an LCP),
whatever the amount of data. Each is a count read off NDB's source (how many synchronous file-system
requests a fragment's restore or checkpoint makes, one fragment at a time per thread) times a host
figure (``host.disk_latency``, the wait of one such request). On a large node they vanish beside the
per-row work.

Each function returns seconds of wall time on one node; the restart pipeline and the LCP loop add
them to the phase they belong to. The ordered-index rebuild of a node restart runs no schema
transaction and no wait: DBLQH builds one index after the other through DBTUP (DblqhMain.cpp,
``Dblqh::rebuildOrderedIndexes``; DbtupIndex.cpp, ``Dbtup::buildIndex``), whose cost per index follows
the tuple slots it visits (``slot_visits``). A node restart's per-index schema transactions are
DICT's index activations at the end of the metadata copy (Dbdict.cpp, ``Dbdict::activateIndexes``);
``Dbdict::rebuildIndexes`` is the system restart's, on the master, in start phase 7.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from ndbsim.input.profiles import LCP_TABLE_DESCRIPTION_SECS, METADATA_SECS_PER_TABLE
from ndbsim.input.scenario import Data, TableAmounts

RESTORE_FILE_OPS_FULL = 3
"""Synchronous file-system requests that restore one fragment of a full (≤7.5) LCP: open its one data
file, read its first pages, close it (restore.cpp of 7.5, ``Restore::open_file`` -> FSOPENREQ,
``Restore::read_file`` -> FSREADREQ, ``Restore::close_file`` -> FSCLOSEREQ, and ``RESTORE_LCP_CONF``
only after FSCLOSECONF, ``Restore::execFSCLOSECONF``). Later reads overlap the parsing of earlier
pages, so only the first waits."""

RESTORE_CTL_FILE_OPS = 6
"""Requests that read a fragment's two control files before a partial (7.6+) LCP is restored: open,
read and close 0.ctl, then the same for 1.ctl (restore.cpp of 8.0, the flow chart above
``Restore::execFSREMOVEREF`` and ``Restore::open_ctl_file``); each of the LCP's data files is then
restored as in ``RESTORE_FILE_OPS_FULL``."""

LCP_FILE_OPS_FULL = 3
"""Requests one fragment's full (≤7.5) LCP makes besides its writes: create-open its data file, sync
and close it. Pre-7.6 LCPs have no control file (restore.cpp of 8.0 treats a fragment with neither
0.ctl nor 1.ctl as "a certain upgrade", flow-chart case 4)."""

LCP_FILE_OPS_PARTIAL = 6
"""Requests one fragment's partial (7.6+) LCP makes besides its data writes: the data file's
create-open, sync and close, then its control file's create-open, synced write and close (the
control-file cycle restore.cpp of 8.0 shows in ``Restore::lcp_create_ctl_open``,
``lcp_create_ctl_done_open`` with ``setSyncFlag`` and ``lcp_create_ctl_done_write``; reference §2.1).
Idle fragments write only the control file, which this count still covers."""


PAGE_BYTES = 32768
"""DataMemory "consists of 32KB pages" (reference §7): the unit DBTUP allocates a fragment's rows in."""


def slot_visits(tables: Iterable[TableAmounts], fragments_per_table: int) -> float:
    """Tuple slots the ordered-index build with BuildIndexThreads=0 visits, one CONTINUEB
    (ZBUILD_INDEX) signal each, per index: ``Dbtup::buildIndex`` (DbtupIndex.cpp) walks every slot
    of every page up to the fragment's ``m_max_page_cnt``, and a free slot ("skip over free
    tuple") still ends its signal. A fragment's slots are its rows rounded up to whole pages of
    ``PAGE_BYTES / row size`` slots, so a table of few rows costs a page of slots per fragment
    and index where its rows alone would cost almost nothing."""
    visits = 0.0
    for t in tables:
        if t.rows <= 0 or t.ordered_indexes <= 0:
            continue
        per_page = max(1.0, math.floor(PAGE_BYTES / max(1.0, t.bytes / t.rows)))
        pages = math.ceil(t.rows / fragments_per_table / per_page - 1e-9)
        visits += t.ordered_indexes * fragments_per_table * pages * per_page
    return visits


SCHEMA_TRANS_COMMIT_SECS = 0.02
"""A node restart's metadata copy ends with ``Dbdict::activateIndexes`` (Dbdict.cpp): for
``ST_NODE_RESTART`` and ``ST_INITIAL_NODE_RESTART`` one local schema transaction per index
(RF_LOCAL_TRANS, RF_NO_BUILD), each begun only when the previous one has ended
(``activateIndex_fromEndTrans`` → ``activateIndexes(signal, i + 1)``); the commit of each waits
on a 20 ms timer (Dbdict.cpp of 7.5.0, as read in issue 28)."""


def metadata_copy_secs(data: Data) -> float:
    """The metadata copy: DIH's distribution information one table at a time with a disk write
    each (``METADATA_SECS_PER_TABLE``), then DICT's index activation, one schema transaction per
    index (``SCHEMA_TRANS_COMMIT_SECS``)."""
    return data.table_count * METADATA_SECS_PER_TABLE + data.ordered_indexes * SCHEMA_TRANS_COMMIT_SECS


LCP_START_CHECK_SECS = 1.0
"""DIH's master checks once a second whether to start an LCP; a starting node's forced start
(``c_lcpState.immediateLcpStart``, set when its copy completes: DbdihMain.cpp
``Dbdih::toCopyCompletedLab``) waits for the next check (DbdihMain.cpp of 7.5.0, as read in
issue 28: "polled once a second")."""

LCP_STOP_GCP_CHECK_SECS = 0.1
"""An LCP completes only once the GCP after its stop GCI (``c_lcpState.lcpStopGcp``) has
completed; DIH re-checks that every 100 ms (DbdihMain.cpp of 7.5.0, as read in issue 28)."""


def lcp_stop_gcp_secs(phase: float, gcp: float) -> float:
    """The wait after an LCP's last write for the GCP running then to complete: the rest of that
    GCP (``phase`` of its interval, a uniform draw), seen at the next 100 ms re-check."""
    return math.ceil(phase * gcp / LCP_STOP_GCP_CHECK_SECS - 1e-9) * LCP_STOP_GCP_CHECK_SECS


def table_fragments(cfg: Mapping[str, Any], ldm: int, replicas: int, layout_8023: bool) -> int:
    """Fragment replicas of one table a data node holds. A table has #data nodes × #LDM partitions
    (ClassicFragmentation), or from 8.0.23 with ClassicFragmentation off, which AutomaticThreadConfig
    implies, #data nodes × PartitionsPerNode (Configuration.cpp, ``Configuration::calcSizeAlt``:
    ``noFragPerTable``). A node group holds its share, NoOfReplicas copies of each partition, and every
    node of the group one copy: #LDM (or PartitionsPerNode) × NoOfReplicas per table."""
    partitioned = layout_8023 and (not cfg.get("ClassicFragmentation", True) or cfg.get("AutomaticThreadConfig"))
    per_node = int(cfg["PartitionsPerNode"]) if partitioned else ldm
    return max(1, per_node) * replicas


def fragments_per_node(tables: int, per_table: int) -> int:
    """Fragment replicas one data node holds: ``per_table`` (``table_fragments``) of every table."""
    return tables * per_table


def busy_threads(fragments: int, threads: int) -> float:
    """Threads a per-fragment phase keeps busy. Each LDM thread owns its fragments (their log part),
    and a restoring or copying thread takes one fragment at a time (``restore_setup_secs``), so with
    equal fragments the phase lasts as long as the thread with the most: ``ceil(fragments /
    threads)`` fragments' work, the pace of ``fragments / ceil(fragments / threads)`` threads. The
    classic layout gives every LDM thread the same count; PartitionsPerNode can leave some idle."""
    if fragments <= 0 or threads <= 0:
        return float(max(1, threads))
    return fragments / math.ceil(fragments / threads)


def restore_file_ops(partial: bool, data_files: int) -> int:
    """Synchronous file-system requests to restore one fragment: its control files (partial LCP only),
    then an open, a first read and a close for each data file the restore reads. A partial LCP's
    restore reads one data file per part pair of the control file it uses, oldest first ("Set to
    number of files (also number of part pairs) to restore in the LCP": restore.cpp of 8.0,
    ``m_num_files``, ``Restore::open_data_file``), at most the control file's 2048 part pairs; an
    idle fragment's LCP adds none (``RestoreWork.data_files``)."""
    ctl = RESTORE_CTL_FILE_OPS if partial else 0
    return ctl + RESTORE_FILE_OPS_FULL * max(1, data_files)


def restore_setup_secs(fragments: int, restore_threads: int, file_ops: int, disk_latency: float) -> float:
    """File set-up of the LCP restore. DBLQH keeps one fragment restoring per LDM instance and sends the
    next RESTORE_LCP_REQ only on RESTORE_LCP_CONF (DblqhMain.cpp, ``Dblqh::execSTART_FRAGREQ`` queues
    on ``c_lcp_waiting_fragments``, ``Dblqh::send_restore_lcp``, ``Dblqh::execRESTORE_LCP_CONF``), so
    each restoring thread waits ``file_ops`` requests per fragment, one fragment after the other. From
    8.0.23 query and recover threads restore too, so the rounds are spread over ``restore_threads``."""
    if fragments <= 0:
        return 0.0
    return math.ceil(fragments / max(1, restore_threads)) * file_ops * disk_latency


def lcp_round_secs(
    tables: int, fragments: int, ldm: int, partial: bool, disk_latency: float, hidden_secs: float
) -> float:
    """Fixed time of one LCP besides writing and scanning: the master sends one LCP_FRAG_ORD per
    fragment and "each LDM thread can process writing of one fragment replica at a time", each fragment
    making ``LCP_FILE_OPS_*`` synchronous requests; after each table its description is written, ≈50 ms,
    at most 4 in parallel ([NDBCNTR], reference §3). Up to 2 fragment orders are outstanding and 2
    queued per node ([NDBCNTR]), so a fragment's file work overlaps the writing of the one before: only
    what exceeds ``hidden_secs`` (the LCP's own scan and write time per LDM thread) adds to the round.
    The GCP an LCP starts on is the LCP loop's own wait."""
    ops = LCP_FILE_OPS_PARTIAL if partial else LCP_FILE_OPS_FULL
    files = math.ceil(fragments / max(1, ldm)) * ops * disk_latency if fragments > 0 else 0.0
    return tables * LCP_TABLE_DESCRIPTION_SECS + max(0.0, files - hidden_secs)


TOUCHED_MEMORY = ("DataMemory", "IndexMemory", "DiskPageBufferMemory", "SharedGlobalMemory")
"""The config.ini memories a data node allocates and touches in one pass at start: ndbd.cpp,
``init_global_memory_manager``, sums the pages of every resource group (DataMemory's, with
IndexMemory's where non-zero: ``compute_acc_32kpages`` still reads CFG_DB_INDEX_MEM and adds it to
RG_DATAMEM; RG_DISK_PAGE_BUFFER for DiskPageBufferMemory; the shared global pages of
SharedGlobalMemory) into one ``m_mem_manager->init(watchCounter, sum)``, and ``Ndbd_mem_manager::map``
touches them all (``ndbd_alloc_touch_mem``, TOUCH_PARALLELISM threads) before the node goes on
(reference §14.5). The smaller groups (job, file and transporter buffers, TransactionMemory) are not
modelled."""


def touched_memory(cfg: Mapping[str, Any]) -> dict[str, float]:
    """Bytes of each of ``TOUCHED_MEMORY`` a node with config ``cfg`` touches at start (0 where its
    release has no such parameter)."""
    return {name: float(cfg.get(name) or 0.0) for name in TOUCHED_MEMORY}


def memory_touch_secs(memory_bytes: float, touch_rate: float) -> float:
    """Allocating and touching the node's memory at start (``touched_memory``): bound by memory and the OS, and
    multi-threaded (reference §1.4, §7), so it runs at the host's touch rate, not its core speed."""
    return memory_bytes / touch_rate if touch_rate > 0 else 0.0
