"""What each free constant can be before any fit: the physical range its cost can take, read as
its p5–p95, from the work NDB's (or InnoDB's) source does per row, byte, entry or GCP. The
covariance (``covariance.py``) adds each range's precision, so a direction no fit case moves keeps
its own range's spread instead of one factor for every constant.

The bounds are core-seconds on seed 003's core (``core_speed`` 1.0). One key operation of NDB
(an LQHKEYREQ through DBLQH, DBACC's hash and DBTUP's row) is taken to cost between 1 and 10 µs
on such a core: the low end a short row on the fast path, the high end a wide row with many
attributes and cache misses. The per-row bounds below are that bound times the key operations the
source does per row; they are stated bounds, not fits, and no case's published figure was
looked at to set them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z90 = 1.645
"""The standard normal's 95th percentile: a range read as p5–p95 is ±Z90 sd."""

KEY_OP_SECS = (1.0e-6, 1.0e-5)
"""One NDB key operation (LQHKEYREQ → DBACC → DBTUP, ``DblqhMain.cpp`` ``execLQHKEYREQ``,
``DbtupExecQuery.cpp`` ``execTUPKEYREQ``), core-seconds: the bound every per-row range scales."""


@dataclass(frozen=True)
class Prior:
    """A constant's range before any fit (p5, p95) and what it rests on."""

    lo: float
    hi: float
    rests_on: str

    @property
    def sd_log(self) -> float:
        """The range's log sd, read as p5–p95."""
        return math.log(self.hi / self.lo) / (2 * Z90)


LO, HI = KEY_OP_SECS

PRIORS: dict[str, Prior] = {
    "restore_row_secs": Prior(
        LO,
        HI,
        "one key operation a row: restore.cpp Restore::parse_record and execute_operation send one "
        "LQHKEYREQ (insert by ROWID) per LCP row",
    ),
    "change_row_secs": Prior(
        1.5 * LO,
        2 * HI,
        "a WRITE by ROWID (restore.cpp, partial LCP CHANGE rows): the insert's key operation plus a "
        "rowid lookup, at most two key operations",
    ),
    "redo_byte_secs": Prior(
        LO / 500,
        HI / 200,
        "one key operation per REDO record of 200–500 bytes (DblqhMain.cpp execLogRecord re-executes "
        "each logged operation as an LQHKEYREQ; the record carries its header and changed attributes)",
    ),
    "index_entry_secs": Prior(
        LO,
        HI,
        "one T-tree descent and insert per row (DbtuxBuild.cpp mt_buildIndexFragment, DbtuxTree.cpp "
        "treeAdd after searchToAdd): about 20–25 key comparisons, each an attribute read through DBTUP",
    ),
    "hyperthread_gain": Prior(
        0.15,
        0.95,
        "a core's second hardware thread adds between a small share (memory-bound code) and almost a "
        "whole core; 0 and 1 are the physical bounds",
    ),
    "copy_row_secs": Prior(
        3 * LO,
        HI * 10,
        "both nodes per row (DblqhMain.cpp nextScanConfCopyLab: the live node's scan read and its "
        "LQHKEYREQ to the starting node, which inserts it with its index maintenance): 3 to 10 key "
        "operations",
    ),
    "suma_handover_gcps": Prior(
        2.0,
        4.0,
        "Suma::send_handover_req takes over at the last complete GCI + 3: between 2 and 3 GCPs after "
        "the request, plus the 1000 ms subscriber and 300 ms lock retries (reference §12)",
    ),
    "apply_rate": Prior(
        5.0 * 2**20,
        50.0 * 2**20,
        "InnoDB 5.5's single recovery thread (recv_recover_page: parse each record again, apply it, "
        "LSN checks): 5–50 MB of redo a second on a 2010 core",
    ),
    "read_queue_depth": Prior(
        1.0,
        128.0,
        "InnoDB 5.5's random reads in flight: from one (synchronous) to innodb_read_io_threads (4) × "
        "OS_AIO_N_PENDING_IOS_PER_THREAD (32) slots (os0file.c)",
    ),
}
"""Each free constant's range before any fit, p5–p95 (NDB's ``Constants`` and InnoDB's
``FREE_CONSTANTS``); tests/studies/test_priors.py holds every fitted constant to one."""


def prior_sd(name: str) -> float:
    """The constant's log sd before any fit (``PRIORS``)."""
    return PRIORS[name].sd_log
