"""The model's free constants (``Constants``, fitted by ``ndbsim calibrate``) and the protocol
constants that are not fitted, each with its source in the reference."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Constants:
    """The model's free constants, at ``core_speed`` 1.0 (the calibration host of seed 003).

    Defaults are the reference's own estimates; ``calibrated.yaml`` holds the fitted values.
    """

    restore_row_secs: float = 3.0e-6
    """Core-seconds to restore one row from an LCP file (row-by-row insert through
    LQHKEYREQ, [RESTORE]). Reference §10 derives ≈0.54 GB/s node-wide from seed 003 (7.5)."""

    change_row_secs: float = 4.5e-6
    """Core-seconds to apply one CHANGE row of a partial LCP at restore: a WRITE by ROWID, which
    looks the rowid up (the row may be there from an older ALL-ROWS part) before it writes,
    where an ALL-ROWS row is a plain INSERT by ROWID ([BACKUP] "Partial LCP", reference §2.1).
    Seed 003: 7.6's restore took 2m15s against 7.5's 1m51s for the same 60 GB ("duplicate rows
    across partial LCPs"); the docs' "RecoveryWork=40 makes the restore 10 to 15 percent faster"
    than 60 is the same cost seen through the CHANGE rows' share."""

    redo_byte_secs: float = 1.0e-8
    """Core-seconds to apply one byte of REDO log (read, decode, re-execute the COMMITted
    operation) on an LDM thread. Fitted from seed 003's REDO phases."""

    index_entry_secs: float = 3.0e-6
    """Core-seconds to insert one entry into an ordered index (T-tree) during the offline
    rebuild. Seed 003: 2m4s on 8 cores (7.5) for ~300M rows."""

    hyperthread_gain: float = 0.6
    """Extra throughput of a core's second hardware thread. Seed 003: rebuild on 16
    hyperthreads (7.6) took 77 s vs 124 s on 8 cores (7.5): "the reason it isn't twice is
    since we make use of hyperthreading"."""

    copy_row_secs: float = 3.0e-5
    """Core-seconds a copy instance spends per row it ships, on both nodes together: the live node
    reads the row under a short lock and sends it (half), the starting node receives and inserts
    it (half; COPY_FRAGREQ scan, one LQHKEYREQ per row); the two halves run at the same time on
    their own node's LDM threads (``engine.restart.copy._pipeline_sides``), and online index
    maintenance comes on top. Fitted from seed 001's initial node restart (7.0, 30M rows)."""

    suma_handover_gcps: float = 2.75
    """SUMA subscription handover, in global checkpoints (TimeBetweenGlobalCheckpoints):
    the starting node takes its buckets over at epoch boundaries. Seed 003: 5–6 s."""

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]


# Protocol constants, not fitted: each has a source in the reference.
METADATA_SECS_PER_TABLE = 0.05
"""DIH copies "one table of distribution information at a time" with a disk write each, "in
the order of fifty milliseconds" per table description ([NDBCNTR], reference §3, §9)."""

LCP_TABLE_DESCRIPTION_SECS = 0.05 / 4
"""LCP writes one table description per table after its fragments, ≈50 ms each, at most 4 in
parallel, ≈80 tables/s ([NDBCNTR], reference §3)."""

SCAN_ROW_SECS = 1.0e-7
"""Core-seconds for the live node's copy scan to check one row's GCI (one cache line per row
header, ≈100 ns). Derived: seed 003/000 report the synchronisation of an idle 300M-row node as
"more or less empty" / "3–4 s" with 8 LDM threads."""

LCP_CPU_SECS_PER_BYTE = 0.1 / 10 / 2**20
"""Core-seconds per LCP byte written: "writing 10 MByte/second gives roughly about 10% CPU
usage in one CPU" ([BACKUP], reference §2.4)."""

HEARTBEAT_INCLUSION_SECS = 1.0
"""QMGR brings one node at a time into the heartbeat protocol, with "some delays"; about
1–3 s ([NDBCNTR], reference §10). Seed 003: the preparatory steps took 1–2 s in all."""

PARTIAL_LCP_PARTS = 2048
"""Parts of the page-id range in a partial LCP ([BACKUP], reference §2.1)."""

DELETE_RECOVERY_WORK = 120
"""Deleted rows weigh 1.2× in the parts formula, hard-coded in Backup.cpp ([BACKUP], §2.2)."""
