"""The vocabulary of ``ndbinfo.restart_info``: its phase columns in NDB's order, the phases
``secs_for_local_recovery`` sums, and per-node phase totals from simulated spans.

Every other module takes phase names from here (reference §1.1, CONTRACT §2).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

TO_COMPLETE_NODE_FAILURE = "secs_to_complete_node_failure"
TO_ALLOCATE_NODE_ID = "secs_to_allocate_node_id"
MEMORY_TOUCH = "secs_memory_touch"
TO_INCLUDE_IN_HEARTBEAT_PROTOCOL = "secs_to_include_in_heartbeat_protocol"
UNTIL_WAIT_FOR_NDBCNTR_MASTER = "secs_until_wait_for_ndbcntr_master"
WAIT_FOR_NDBCNTR_MASTER = "secs_wait_for_ndbcntr_master"
TO_GET_START_PERMITTED = "secs_to_get_start_permitted"
TO_WAIT_FOR_LCP_FOR_COPY_META_DATA = "secs_to_wait_for_lcp_for_copy_meta_data"
TO_COPY_META_DATA = "secs_to_copy_meta_data"
TO_INCLUDE_NODE = "secs_to_include_node"
STARTING_NODE_TO_REQUEST_LOCAL_RECOVERY = "secs_starting_node_to_request_local_recovery"
RESTORE_FRAGMENTS = "secs_restore_fragments"
UNDO_DISK_DATA = "secs_undo_disk_data"
EXEC_REDO_LOG = "secs_exec_redo_log"
INDEX_REBUILD = "secs_index_rebuild"
TO_SYNCHRONIZE_STARTING_NODE = "secs_to_synchronize_starting_node"
WAIT_LCP_FOR_RESTART = "secs_wait_lcp_for_restart"
WAIT_SUBSCRIPTION_HANDOVER = "secs_wait_subscription_handover"

PHASES: tuple[str, ...] = (
    TO_COMPLETE_NODE_FAILURE,
    TO_ALLOCATE_NODE_ID,
    MEMORY_TOUCH,
    TO_INCLUDE_IN_HEARTBEAT_PROTOCOL,
    UNTIL_WAIT_FOR_NDBCNTR_MASTER,
    WAIT_FOR_NDBCNTR_MASTER,
    TO_GET_START_PERMITTED,
    TO_WAIT_FOR_LCP_FOR_COPY_META_DATA,
    TO_COPY_META_DATA,
    TO_INCLUDE_NODE,
    STARTING_NODE_TO_REQUEST_LOCAL_RECOVERY,
    RESTORE_FRAGMENTS,
    UNDO_DISK_DATA,
    EXEC_REDO_LOG,
    INDEX_REBUILD,
    TO_SYNCHRONIZE_STARTING_NODE,
    WAIT_LCP_FOR_RESTART,
    WAIT_SUBSCRIPTION_HANDOVER,
)
"""restart_info's phase columns in NDB's order, plus ``secs_memory_touch`` (CONTRACT §2)."""

OWN_PHASES: tuple[str, ...] = (MEMORY_TOUCH,)
"""ndbsim's rows that restart_info has no column for: memory allocation and touch, which NDB
counts inside its early phases (reference §10)."""

COLUMNS: tuple[str, ...] = tuple(p for p in PHASES if p not in OWN_PHASES)
"""The per-phase seconds columns of ``ndbinfo.restart_info``, exact names in NDB's order
(NdbinfoTables.cpp, [DOC-RI]; reference §1.1). Not here: node_id, the two status columns,
secs_for_local_recovery (the sum of ``LOCAL_RECOVERY``) and total_restart_secs."""

LOCAL_RECOVERY: tuple[str, ...] = (RESTORE_FRAGMENTS, UNDO_DISK_DATA, EXEC_REDO_LOG, INDEX_REBUILD)
"""``secs_for_local_recovery`` is the sum of these ([PRO-NDB] sample, reference §1.1)."""

Span = tuple[str, float, float]
"""(phase, start, end) in simulated seconds; a phase may have several spans (a two-pass copy)."""


def node_phases(spans: Iterable[Span], phases: Sequence[str] = PHASES) -> dict[str, float]:
    """Seconds per phase, every phase present (0.0 for one that did not run)."""
    out = dict.fromkeys(phases, 0.0)
    for phase, a, b in spans:
        out[phase] += b - a
    return out


def phase_bounds(spans: Iterable[Span]) -> tuple[dict[str, float], dict[str, float]]:
    """Where each phase first starts and where it last ends."""
    first: dict[str, float] = {}
    last: dict[str, float] = {}
    for p, a, b in spans:
        first.setdefault(p, a)
        last[p] = b
    return first, last


# ---------------------------------------------------------------------------------------
# restart_info's columns and the simulated phases each holds (ndbsim.studies.restart_rows cites
# where NDB counts memory allocation and touch)

FOR_LOCAL_RECOVERY = "secs_for_local_recovery"
"""restart_info's sum of the four local recovery columns ([PRO-NDB] sample: 35 = 13+0+0+21)."""

COLUMN_PHASES: dict[str, tuple[str, ...]] = {
    **{c: (c,) for c in COLUMNS},
    TO_INCLUDE_IN_HEARTBEAT_PROTOCOL: (MEMORY_TOUCH, TO_INCLUDE_IN_HEARTBEAT_PROTOCOL),
    FOR_LOCAL_RECOVERY: LOCAL_RECOVERY,
}
"""Each restart_info seconds column and the simulated phase(s) it holds: every column is its own
phase, but ``secs_to_include_in_heartbeat_protocol``, which also holds ndbsim's
``secs_memory_touch``, and ``secs_for_local_recovery``, the sum of the four local recovery phases."""


def column_of(phase: str) -> str | None:
    """The restart_info column that holds a simulated phase of ndbsim's own (``secs_memory_touch``)."""
    return next(
        (
            c
            for c, parts in COLUMN_PHASES.items()
            if phase in parts and c != phase and len(parts) > 1 and c != FOR_LOCAL_RECOVERY
        ),
        None,
    )


def mapping_table() -> str:
    """``COLUMN_PHASES`` as text, one column a line (``calibrate -h``, calibration/README.md)."""
    lines = [f"{col} = {' + '.join(parts)}" for col, parts in COLUMN_PHASES.items() if parts != (col,)]
    lines.append("every other secs_ column = the simulated phase of that name")
    lines.append("total_restart_secs = that node's own restart, never a multi-node window")
    return "\n".join(lines)
