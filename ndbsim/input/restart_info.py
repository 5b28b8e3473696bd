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
# restart_info's columns and the simulated phases each holds (ndbsim.studies.calibration.restart_rows cites
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


# Reading a user's export of ndbinfo.restart_info

COMMENT = "#"
"""A line whose first non-blank character is this is a comment in a restart_info export (a note
a user adds above the header); mysql and spreadsheets write none, so nothing real is skipped."""

ROUNDING_SECS = 1.0
"""How far one restart_info column may be from the true seconds: NDB reports whole seconds
(``Uint32`` columns, [DOC-RI]), so each phase and the total may each be up to 1 s off."""


def without_comments(text: str) -> str:
    """``text`` with its comment lines blanked (line numbers kept for messages)."""
    return "\n".join("" if ln.lstrip().startswith(COMMENT) else ln for ln in text.split("\n"))


def column_name(cell: str) -> str:
    """A header cell as restart_info names the column: MySQL column names are case-insensitive,
    so ``NODE_ID`` or ``Total_Restart_Secs`` from a spreadsheet are restart_info's lower-case names."""
    return cell.strip().lower()


def check_row(phases: dict[str, float], total: float, local_recovery: float | None, where: str) -> None:
    """Refuse a row that contradicts itself. Every ``secs_`` column is the gap between two of the
    master's timestamps for the node, one state after the other, and ``total_restart_secs`` the gap
    from the first to the last (``Dbdih::fill_row_with_node_restart_status``, reference §12): so
    the phases add up to the total, up to each column's whole-second rounding (``ROUNDING_SECS``
    per column and for the total). With a column missing (a partial export) the phases may only
    fall short of the total. ``secs_for_local_recovery`` is the sum of its four phases
    (reference §1.1). ``where`` names the row (line and node) in the message."""
    from ndbsim.errors import InputError

    summed = [c for c in COLUMNS if c in phases]
    slack = ROUNDING_SECS * (len(summed) + 1)
    added = sum(phases[c] for c in summed)
    every = len(summed) == len(COLUMNS)
    if added > total + slack or (every and added < total - slack):
        raise InputError(
            f"{where}: its phases add up to {added:.0f} s but total_restart_secs is {total:.0f} s; "
            f"restart_info's total is the sum of its phases (each a whole second, so within {slack:.0f} s), "
            "so one of them is wrong: export SELECT * FROM ndbinfo.restart_info again",
            field="total_restart_secs",
        )
    parts = [c for c in LOCAL_RECOVERY if c in phases]
    if local_recovery is None or len(parts) < len(LOCAL_RECOVERY):
        return
    inner = sum(phases[c] for c in parts)
    if abs(inner - local_recovery) > ROUNDING_SECS * (len(parts) + 1):
        raise InputError(
            f"{where}: secs_for_local_recovery is {local_recovery:.0f} s but its four phases (restore, undo, "
            f"REDO, index rebuild) add up to {inner:.0f} s; export SELECT * FROM ndbinfo.restart_info again",
            field="secs_for_local_recovery",
        )


def check_header(header: list[str], source: str) -> None:
    """Refuse a column named twice: which of its two values a row means cannot be known."""
    from ndbsim.errors import InputError

    twice = sorted({c for c in header if c and header.count(c) > 1})
    if twice:
        raise InputError(
            f"the header names {', '.join(twice)} twice; export SELECT * FROM ndbinfo.restart_info again",
            field=twice[0],
            source=source,
        )
