"""The vocabulary of ``ndbinfo.restart_info``: its phase columns in NDB's order, the phases
``secs_for_local_recovery`` sums, and per-node phase totals from simulated spans.

Every other module takes phase names from here (reference §1.1, CONTRACT §2).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

PHASES: tuple[str, ...] = (
    "secs_to_complete_node_failure",
    "secs_to_allocate_node_id",
    "secs_memory_touch",
    "secs_to_include_in_heartbeat_protocol",
    "secs_until_wait_for_ndbcntr_master",
    "secs_wait_for_ndbcntr_master",
    "secs_to_get_start_permitted",
    "secs_to_wait_for_lcp_for_copy_meta_data",
    "secs_to_copy_meta_data",
    "secs_to_include_node",
    "secs_starting_node_to_request_local_recovery",
    "secs_restore_fragments",
    "secs_undo_disk_data",
    "secs_exec_redo_log",
    "secs_index_rebuild",
    "secs_to_synchronize_starting_node",
    "secs_wait_lcp_for_restart",
    "secs_wait_subscription_handover",
)
"""restart_info's phase columns in NDB's order, plus ``secs_memory_touch`` (CONTRACT §2)."""

OWN_PHASES: tuple[str, ...] = ("secs_memory_touch",)
"""ndbsim's rows that restart_info has no column for: memory allocation and touch, which NDB
counts inside its early phases (reference §10)."""

COLUMNS: tuple[str, ...] = tuple(p for p in PHASES if p not in OWN_PHASES)
"""The per-phase seconds columns of ``ndbinfo.restart_info``, exact names in NDB's order
(NdbinfoTables.cpp, [DOC-RI]; reference §1.1). Not here: node_id, the two status columns,
secs_for_local_recovery (the sum of ``LOCAL_RECOVERY``) and total_restart_secs."""

LOCAL_RECOVERY: tuple[str, ...] = (
    "secs_restore_fragments",
    "secs_undo_disk_data",
    "secs_exec_redo_log",
    "secs_index_rebuild",
)
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
