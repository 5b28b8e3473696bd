"""``restart_info``'s status columns during a restart: which state a node has reached, which of
its phase columns are final and which phase is in progress.

From NDB's source (storage/ndb/src/kernel/blocks/dbdih): ``Dbdih::NodeRecord::NodeRecoveryStatus``
(Dbdih.hpp) numbers the states, ``Dbdih::get_status_str`` names them (the text of
``node_restart_status``) and ``Dbdih::fill_row_with_node_restart_status`` (DbdihMain.cpp) writes
the row: each column is the whole seconds (milliseconds / 1000, rounded down) between two state
timestamps, written up to the state the node is in, and every later column is 0 — "Any time not
happened yet will be reported as 0". So the phase in progress shows 0, not the time spent in it:
restart_info alone cannot say how long the current phase has run. ``node_restart_status_int`` is
the enum's value; the manual's table numbers the states differently (0 = Allocated node id,
12 = Restart completed), so either number is accepted with its text.

A node whose restart began before the reporting node became master is in one of the states
20-24 (NODE_GETTING_PERMIT ... NODE_ACTIVE): for those ``Dbdih::handle_before_master`` writes a
few coarse spans only, so their phase columns are not used.
"""

from __future__ import annotations

from dataclasses import dataclass

from ndbsim.errors import InputError
from ndbsim.input.restart_info import COLUMNS


@dataclass(frozen=True)
class State:
    """One ``NodeRecoveryStatus`` of a restarting node as the master's restart_info shows it."""

    name: str
    """NDB's enum name (Dbdih.hpp)."""
    code: int
    """Its value in Dbdih.hpp, what ``node_restart_status_int`` holds."""
    manual_code: int | None
    """Its number in the manual's restart_info table, where that differs (None: not listed)."""
    texts: tuple[str, ...]
    """``node_restart_status``: ``get_status_str``'s text first, then the manual's wording."""
    finished: int
    """How many of restart_info's phase columns (``COLUMNS``, NDB's order) are final in this state;
    the next one is the phase in progress. ``len(COLUMNS)``: the restart is complete."""
    coarse: bool = False
    """Set by a master that took over mid-restart (``handle_before_master``): columns not used."""

    @property
    def complete(self) -> bool:
        return self.finished >= len(COLUMNS)

    @property
    def current(self) -> str | None:
        """The restart_info column of the phase in progress (None when complete)."""
        return None if self.complete else COLUMNS[self.finished]

    @property
    def text(self) -> str:
        return self.texts[0]


_N = len(COLUMNS)

STATES: tuple[State, ...] = (
    State("NODE_FAILED", 2, 13, ("Node failed, fail handling ongoing", "Node failed, failure handling in progress"), 0),
    State("NODE_FAILURE_COMPLETED", 3, 14, ("Node failure handling complete", "Node failure handling completed"), 1),
    State("ALLOCATED_NODE_ID", 4, 0, ("Allocated node id",), 2),
    State("INCLUDED_IN_HB_PROTOCOL", 5, 1, ("Included in heartbeat protocol",), 3),
    State(
        "NDBCNTR_START_WAIT",
        6,
        2,
        ("Wait for NDBCNTR master permit", "Wait for NDBCNTR master to permit us to start"),
        4,
    ),
    State("NDBCNTR_STARTED", 7, 3, ("NDBCNTR master permitted us", "NDBCNTR master permitted us to start"), 5),
    State("START_PERMITTED", 8, 4, ("All nodes permitted us", "All nodes permitted us to start"), 6),
    State(
        "WAIT_LCP_TO_COPY_DICT",
        9,
        5,
        ("Wait for LCP complete to copy meta data", "Wait for LCP completion to start copying metadata"),
        7,
    ),
    State(
        "COPY_DICT_TO_STARTING_NODE", 10, 6, ("Copy meta data to start node", "Copying metadata to starting node"), 8
    ),
    State(
        "INCLUDE_NODE_IN_LCP_AND_GCP",
        11,
        7,
        ("Include node in LCP/GCP protocols", "Include node in LCP and GCP protocols"),
        9,
    ),
    State("LOCAL_RECOVERY_STARTED", 12, 8, ("Restore fragments ongoing",), 10),
    State("RESTORE_FRAG_COMPLETED", 13, None, ("Undo Disk data ongoing",), 11),
    State("UNDO_DD_COMPLETED", 14, None, ("Execute REDO logs ongoing",), 12),
    State("EXECUTE_REDO_LOG_COMPLETED", 15, None, ("Build indexes ongoing",), 13),
    State(
        "COPY_FRAGMENTS_STARTED",
        16,
        9,
        ("Synchronize start node with live nodes", "Synchronizing starting node with live nodes"),
        14,
    ),
    State("WAIT_LCP_FOR_RESTART", 17, 10, ("Wait LCP to ensure durability", "Wait for LCP to ensure durability"), 15),
    State("WAIT_SUMA_HANDOVER", 18, 11, ("Wait handover of subscriptions", "Wait for handover of subscriptions"), 16),
    State("RESTART_COMPLETED", 19, 12, ("Restart completed",), _N),
    State("NODE_GETTING_PERMIT", 20, 15, ("All nodes permitted us",), 6, coarse=True),
    State("NODE_GETTING_INCLUDED", 21, 16, ("Include node in LCP/GCP protocols",), 9, coarse=True),
    State("NODE_GETTING_SYNCHED", 22, 17, ("Synchronize start node with live nodes",), 14, coarse=True),
    State("NODE_IN_LCP_WAIT_STATE", 23, 18, ("Wait LCP to ensure durability",), 15, coarse=True),
    State("NODE_ACTIVE", 24, 19, ("Restart completed",), _N, coarse=True),
)
"""Every state restart_info shows for a node (NODE_NOT_RESTARTED_YET and NOT_DEFINED_IN_CLUSTER
are never listed: ``Dbdih::execDBINFO_SCANREQ`` skips them)."""


def _key(text: str) -> str:
    return " ".join(text.lower().split())


def state_of(text: str | None, code: float | None, where: str) -> State:
    """The state a row's ``node_restart_status`` and ``node_restart_status_int`` name, or one line
    naming both and the states ndbsim knows."""
    matches = [s for s in STATES if text is not None and _key(text) in {_key(t) for t in s.texts}]
    if code is not None and matches:
        matches = [s for s in matches if code in (s.code, s.manual_code)] or []
    if len(matches) > 1:  # the same text as master and non-master state: the enum value decides
        matches = [s for s in matches if s.code == code] or matches[:1]
    if matches:
        return matches[0]
    known = "; ".join(f"{s.code} {s.text!r}" for s in STATES if not s.coarse)
    raise InputError(
        f"{where}: node_restart_status {text!r} with node_restart_status_int {code!r} is not a state ndbsim "
        f"knows (NDB's Dbdih::get_status_str: {known}); export with `ndbsim ndbinfo-sql --snapshot` from an SQL "
        "node of this cluster",
        field="node_restart_status",
    )
