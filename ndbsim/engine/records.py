"""What a simulated restart hands back: plain records, no simulation objects."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any

from ndbsim.input.restart_info import Span


class Status(str, Enum):
    """How a restart ended; the value is what results and sweeps write.

    A ``str`` mixin rather than ``enum.StrEnum`` (Python 3.11+), so the package keeps its
    Python 3.10 floor; ``__str__`` and ``__format__`` give the plain value as StrEnum does,
    so f-strings, JSON, CSV and Parquet write "ok", never "Status.OK"."""

    OK = "ok"
    """Every node finished its restart."""
    ERROR = "error"
    """A node could not restart at all (no live node in its group to copy from)."""
    NON_CONVERGING = "non-converging"
    """The copy phase can never catch up with the live stream."""
    STUCK = "stuck"
    """The restart did not finish within simulation.horizon."""
    REDO_OVERLOAD = "redo-overload"
    """A live node had to keep more REDO than its log holds (error 410)."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, format_spec: str) -> str:
        return format(str(self.value), format_spec)


@dataclass
class NodeFacts:
    """Amounts one node's restart worked on, for results (``facts``); None: not part of this
    restart. The field order is the order in which a restart learns them."""

    lcp_count_at_crash: int | None = None
    """LCPs the cluster had completed when the node went down."""
    full_copy_fallback: float | None = None
    """1.0 when a node restart fell back to copying every row (``onr_fallback_lcps``)."""
    restore_bytes: float | None = None
    restore_rows: float | None = None
    restore_lcps: int | None = None
    """LCP files the restore read back through."""
    redo_bytes_wanted: float | None = None
    """REDO the node would have had to apply, when that is more than the log holds."""
    redo_bytes: float | None = None
    undo_bytes: float | None = None
    copied_rows: float | None = None
    """Rows shipped by the copy phase, both passes of a two-pass copy together."""
    local_lcp_bytes: float | None = None
    local_lcp_secs: float | None = None
    disk_page_flush_bytes: float | None = None
    """Dirty disk-data pages the restart's own LCP wrote from DiskPageBufferMemory."""

    def as_dict(self) -> dict[str, float]:
        """The facts this restart has, in the order it learnt them."""
        out: dict[str, float] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if v is not None:
                out[f.name] = v
        return out


@dataclass
class NodeRun:
    """What happened to one restarting node."""

    node_id: int
    kind: str
    start: float
    end: float = math.nan
    status: Status = Status.OK
    reason: str = ""
    spans: list[Span] = field(default_factory=list)
    facts: NodeFacts = field(default_factory=NodeFacts)
    wave: int = 1
    """The wave the node restarted in (1 for the first; every node of a one-wave restart)."""
    release: str = ""
    """The NDB release the node came back on (restart.upgrade_to's in an upgrade)."""
    threads: dict[str, Any] = field(default_factory=dict)
    """The thread layout the node came back with, by NDB thread type, and the setting that gave it."""
    notes: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per restart_info phase, why it took its time as the engine has noted it so far; read ``why``."""
    pending: list[Callable[[], None]] = field(default_factory=list, compare=False, repr=False)
    """The whys' summaries still to compute (``engine.why.later``), in the order they were noted:
    most runs are never asked why (the replications after the first, sweeps), so they cost nothing."""

    @property
    def why(self) -> dict[str, dict[str, Any]]:
        """Per restart_info phase, why it took its time (``engine.why``): bottleneck, quantity,
        figures, and for work through the fluid resources its parts and their gains."""
        while self.pending:
            self.pending.pop(0)()
        return self.notes

    def __getstate__(self) -> dict[str, Any]:
        """The run with its whys computed (a pickled run carries no pending closure)."""
        _ = self.why
        return dict(self.__dict__)


@dataclass
class Replication:
    """The outcome of one simulated restart (all nodes)."""

    total_restart_secs: float
    status: Status
    reason: str
    nodes: list[NodeRun]
    checkpoint: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    events: int = 0
    setting_flags: list[str] = field(default_factory=list)
    """What the configuration sits on that a run warns about: an oversubscribed host, a cliff
    (``cliffs``); advise flags a candidate with these."""
    single_replica: list[dict[str, Any]] = field(default_factory=list)
    """Per wave and node group left on one live node: wave, node_group, live_node, restarting
    (NodeIds) and secs (``engine.exposure``)."""
    data_memory_full: bool = False
    """Whether the inserts during the restart fill DataMemory before it ends (NDB error 827)."""
    stopped_secs: float = math.nan
    """A restart that did not complete (any status but ok): the seconds after the crash at which
    it stopped (its total is infinite, so it never ranks as faster than one that completes)."""
    stopped_in: str = ""
    """The restart_info phase a restarting node was in when it stopped ('' when none was in one)."""
