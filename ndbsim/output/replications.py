"""A run's replications folded, as each finishes, into what its outputs need, so that memory does
not grow with ``-n`` beyond a few numbers per replication.

The outputs are medians and quantiles (of the totals, of every node's phases and own time, of the
slowest node's phases), the first non-ok status, the warnings and flags in order, two REDO
figures, the first replication in full (checkpoint, facts, threads, why) and one more replication
in full for the schedule (the median window). The medians need every value, so each is kept as
an 8-byte float in an ``array``, in replication order: the median of a list made from it is the
median of the values a list of whole replications gave, bit for bit. The first ``KEPT_WHOLE``
replications are also kept whole; any later one asked for (the schedule's, a Gantt chart's,
``to_frame``'s) is simulated again from its own random stream by ``rerun``, which gives the same
record (a replication depends on nothing but the resolved scenario and its stream). A log made
from a list of replications (no ``rerun``) keeps them all."""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from ndbsim.engine.records import Replication
from ndbsim.input.restart_info import PHASES, node_phases

KEPT_WHOLE = 200
"""Replications a result keeps whole, so that reading them back costs nothing in a run of a
usual size (the commands' own defaults are at most 21); a later one is simulated again when read. Whole
records take about 15 kB each for the default scenario and 80 kB for the 4-node rolling one
(``tracemalloc``), so at most about 16 MB, whatever ``-n``. A choice of ours."""


def _column() -> array:
    return array("d")


_WIDTH = 1 + len(PHASES)
"""A replication's row in ``_NodeColumns``: the node's own time, then each phase in PHASES order."""


class _NodeColumns:
    """One node's figures over the replications it restarted in, a row of ``_WIDTH`` floats per
    replication in one array (its own time, then each phase): a column is every ``_WIDTH``-th."""

    __slots__ = ("rows",)

    def __init__(self) -> None:
        self.rows = _column()

    def add(self, secs: float, phases: dict[str, float]) -> None:
        self.rows.append(secs)
        self.rows.extend([phases[p] for p in PHASES])

    @property
    def secs(self) -> list[float]:
        return self.rows[0::_WIDTH].tolist()

    def phase(self, i: int) -> list[float]:
        return self.rows[1 + i :: _WIDTH].tolist()


class ReplicationLog(Sequence[Replication]):
    """The replications of one run, folded (see the module's docstring); a sequence of
    ``Replication`` to its readers (index 0 kept, any other simulated again when asked for)."""

    def __init__(self, replications: Iterable[Replication] = (), rerun: Callable[[int], Replication] | None = None):
        self.rerun = rerun
        self.size = 0
        self.kept: dict[int, Replication] = {}
        self.totals = _column()
        self.slowest_secs = _column()
        """Per replication, the slowest restarted node's time from its stop to its start (nan: none)."""
        self.slowest = _NodeColumns()
        """The slowest node's phases, over the replications with a restarted node."""
        self.nodes: dict[int, _NodeColumns] = {}
        self.bad: tuple[str, str] | None = None
        """The first replication's status and reason that is not ok."""
        self.warnings: dict[str, None] = {}
        self.flags: dict[str, None] = {}
        self.redo_overloaded = False
        """Whether any replication had to keep more REDO than the log holds."""
        self.data_memory_full = False
        """Whether the inserts during any replication's restart filled DataMemory (error 827)."""
        self.redo_peak_fill: float = math.nan
        """The highest REDO peak over the log's capacity of any replication (nan: no REDO log)."""
        self.redo_peak_bytes: float = math.nan
        """The highest REDO peak of any replication, in bytes (nan: no REDO log)."""
        self._fills = 0
        self._last: tuple[int, Replication] | None = None
        for r in replications:
            self.add(r)

    def add(self, r: Replication) -> None:
        """Fold replication number ``len(self)`` in."""
        i = self.size
        self.size += 1
        if i < KEPT_WHOLE or self.rerun is None:
            self.kept[i] = r
        self.totals.append(r.total_restart_secs)
        if r.status != "ok" and self.bad is None:
            self.bad = (r.status, r.reason)
        for w in r.warnings:
            self.warnings.setdefault(w)
        for f in r.setting_flags:
            self.flags.setdefault(f)
        self._redo(r.checkpoint)
        self.data_memory_full = self.data_memory_full or r.data_memory_full
        if not r.nodes:
            self.slowest_secs.append(math.nan)
            return
        slowest = max(r.nodes, key=lambda n: n.end - n.start)
        self.slowest_secs.append(slowest.end - slowest.start)
        for n in r.nodes:
            phases = node_phases(n.spans)
            self.nodes.setdefault(n.node_id, _NodeColumns()).add(n.end - n.start, phases)
            if n is slowest:
                self.slowest.add(n.end - n.start, phases)

    def _redo(self, checkpoint: dict[str, Any]) -> None:
        peak, capacity = checkpoint.get("redo_peak_bytes"), checkpoint.get("redo_capacity_bytes")
        if peak is None or capacity is None:
            return
        self.redo_overloaded = self.redo_overloaded or peak > capacity
        if not peak <= self.redo_peak_bytes:  # nan (none yet) or higher
            self.redo_peak_bytes = peak
        if capacity > 0:
            fill = peak / capacity
            if not self._fills or fill > self.redo_peak_fill:  # as max() picks: the first of the highest
                self.redo_peak_fill = fill
            self._fills += 1

    # -- the sequence of replications ------------------------------------------------------
    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int) -> Replication:  # type: ignore[override]  # no slices
        if i < 0:
            i += self.size
        if not 0 <= i < self.size:
            raise IndexError(i)
        if i in self.kept:
            return self.kept[i]
        if self._last is None or self._last[0] != i:
            assert self.rerun is not None
            self._last = (i, self.rerun(i))
        return self._last[1]

    def __iter__(self) -> Iterator[Replication]:
        for i in range(self.size):
            yield self[i]

    # -- what the outputs read ---------------------------------------------------------------
    def node_ids(self) -> list[int]:
        return list(self.nodes)

    def node_secs(self, node_id: int) -> list[float]:
        """``node_id``'s own time in each replication it restarted in."""
        cols = self.nodes.get(node_id)
        return cols.secs if cols else []

    def phase_values(self, phase: str, node_id: int | None = None) -> list[float]:
        """Seconds of ``phase`` in each replication: of the slowest node, or of ``node_id``."""
        cols = self.slowest if node_id is None else self.nodes.get(node_id)
        return cols.phase(PHASES.index(phase)) if cols else []
