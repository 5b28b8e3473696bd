"""Fixed costs of a restart: the time NDB spends per object (fragment, ordered index, table) and per
round (an LCP, a schema transaction), whatever the amount of data. On a small cluster they are most
of the restart (reference §9, [PRO-NDB]: 66 s for ~10 MB); on a large one they vanish beside the
per-row work.

Each function returns seconds of wall time on one node; the restart pipeline and the LCP loop add
them to the phase they belong to.
"""

from __future__ import annotations

import math

from ndbsim.profiles import LCP_TABLE_DESCRIPTION_SECS

FRAGMENT_FILE_SECS = 0.5
"""Wall seconds one thread spends on one fragment's files in a restore or an LCP, besides moving its
rows: open, read or write, sync and close its control files (0.ctl/1.ctl) and data file (restore.cpp,
Backup.cpp; reference §2.1, §3). No source gives the figure. It is read off the one published restart
small enough to show it, reference §9's lab cluster ([PRO-NDB], 7.5.4 on virtual machines): 13 s of
restore for ~24 fragments on one LDM thread, ≈0.5 s each (the same case's 17 s LCP wait then checks
it). It is a virtual disk's sync latency: expect far less on a local NVMe disk."""

SCHEMA_TRANS_GCPS = 0.5
"""Global checkpoints one index rebuild waits for. After a restore DICT rebuilds every index (ordered
and unique hash) in a schema transaction of its own, one index after the other (DbdictMain.cpp,
``Dbdict::rebuildIndexes``: beginSchemaTrans -> BUILDINDXREQ -> endSchemaTrans, then the next index);
the commit is made durable by the next global checkpoint, which a moment at random finds on average
half a TimeBetweenGlobalCheckpoints away. That the wait is one GCP boundary is ndbsim's reading of the
schema-transaction commit, not a figure from the source."""


def fragments_per_node(tables: int, ldm: int, replicas: int) -> int:
    """Fragment replicas one data node holds: each table has #LDM × #data nodes partitions
    (ClassicFragmentation, reference §8) and NoOfReplicas copies of each, spread over the node group,
    so every node holds tables × LDM × NoOfReplicas of them."""
    return tables * ldm * replicas


def restore_setup_secs(fragments: int, restore_threads: int) -> float:
    """File set-up of the LCP restore: DBLQH queues START_FRAGREQ per fragment and each restoring
    thread restores "one at a time" ([NDBCNTR], reference §1.4), opening and reading its control files
    (0.ctl/1.ctl) and opening its data files first ([RESTORE], reference §2.1). From 8.0.23 query and
    recover threads restore too, so the rounds are spread over ``restore_threads``."""
    if fragments <= 0:
        return 0.0
    return math.ceil(fragments / max(1, restore_threads)) * FRAGMENT_FILE_SECS


def lcp_round_secs(tables: int, fragments: int, ldm: int, hidden_secs: float) -> float:
    """Fixed time of one LCP besides writing and scanning: the master sends one LCP_FRAG_ORD per
    fragment and "each LDM thread can process writing of one fragment replica at a time", each fragment
    opening, syncing and closing its files and writing its control file; after each table its
    description is written, ≈50 ms, at most 4 in parallel ([NDBCNTR], reference §3). Up to 2 fragment
    orders are outstanding and 2 queued per node ([NDBCNTR]), so a fragment's file work overlaps the
    writing of the one before: only what exceeds ``hidden_secs`` (the LCP's own scan and write time per
    LDM thread) adds to the round. The GCP an LCP starts on is the LCP loop's own wait."""
    files = math.ceil(fragments / max(1, ldm)) * FRAGMENT_FILE_SECS if fragments > 0 else 0.0
    return tables * LCP_TABLE_DESCRIPTION_SECS + max(0.0, files - hidden_secs)


def index_rebuild_setup_secs(ordered_indexes: int, gcp_secs: float) -> float:
    """Schema transactions of the ordered-index rebuild: one per index, in series (``SCHEMA_TRANS_GCPS``)."""
    return ordered_indexes * SCHEMA_TRANS_GCPS * gcp_secs


def memory_touch_secs(memory_bytes: float, touch_rate: float) -> float:
    """Allocating and touching DataMemory (and IndexMemory) at start: bound by memory and the OS, and
    multi-threaded (reference §1.4, §7), so it runs at the host's touch rate, not its core speed."""
    return memory_bytes / touch_rate if touch_rate > 0 else 0.0
