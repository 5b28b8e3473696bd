"""Checkpoint policies: the legacy full LCP (≤7.5) and the partial LCP of 7.6+.

A policy answers four questions for one node: how many bytes an LCP writes given the changes
since the previous one; what a restore reads and applies given the LCPs on disk; whether the
end of a node restart runs a local LCP first; and the steady-state LCP cycle.
Formulas: reference §2.2 (Backup::calculate_number_of_parts, lcp_simulator.cc) and §3.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ndbsim.engine.workload import Changes
from ndbsim.input.features import Features
from ndbsim.input.profiles import DELETE_RECOVERY_WORK, PARTIAL_LCP_PARTS


@dataclass(frozen=True)
class LcpRecord:
    """One completed LCP on one node."""

    start: float
    end: float
    pct: float
    """Fraction of the 2048 parts written as ALL ROWS (1.0 for a full LCP)."""
    changed_rows: float
    """Rows written as CHANGE rows: updated and inserted since the previous LCP."""
    changed_bytes: float
    bytes: float
    inserted_rows: float = 0.0
    """Of ``changed_rows``, the rows inserted since the previous LCP: no older LCP holds them,
    so a restore applies them once, never as a duplicate of an older ALL-ROWS copy."""
    write_secs: float = math.nan
    """Of ``end - start``, the seconds its bytes were being written (its write flow ran): the rest
    is the wait for a GCP and the per-fragment and per-table fixed work. NaN: not recorded."""

    @property
    def write_speed(self) -> float:
        """The bytes/s the LCP wrote at while it wrote (over its whole span where ``write_secs`` was
        not recorded): the figure the run's "LCPs under the base load ... at" line prints."""
        secs = self.write_secs if self.write_secs > 0 else self.end - self.start
        return self.bytes / secs if secs > 0 else math.nan


RESTORES_KEPT = 256
"""Restore walks ``restore_of`` remembers at most (a memory bound, not a model value)."""


@dataclass(frozen=True)
class Era:
    """``count`` identical LCPs, each like ``record``, older than the simulated history: the
    steady cycle of a workload that ran for that many cycles (``math.inf``: for ever) before."""

    record: LcpRecord
    count: float


@dataclass(frozen=True)
class RestoreWork:
    bytes_read: float
    rows_applied: float
    lcps: int
    """LCP files a restore reads back through (1 for a full LCP)."""
    data_files: int = 1
    """Of ``lcps``, those that wrote the fragment a data file: an LCP of an idle fragment writes only
    its control file (Backup.cpp, handle_idle_lcp; reference §2.1), so the restore opens none for it."""
    change_rows: float = 0.0
    """Of ``rows_applied``, the CHANGE rows (WRITE by ROWID) applied on top of an older
    ALL-ROWS copy; the rest are ALL-ROWS rows (INSERT by ROWID)."""


class CheckpointPolicy:
    """Interface; see ``FullLcp`` and ``PartialLcp``."""

    name = "abstract"
    """The policy's name in results (``checkpoint.policy``): full or partial."""
    local_lcp_at_restart_end = False
    """Whether a node restart ends with a local LCP of the starting node (7.6+, reference §3)."""
    _restores: dict[tuple[Any, ...], tuple[tuple[Any, ...], RestoreWork]] | None = None
    """``restore_of``'s walks, by the identity of the records walked."""

    def lcp_size(self, data_bytes: float, rows: float, changes: Changes, first: bool = False) -> tuple[float, float]:
        """(bytes written, fraction of parts written in full)."""
        raise NotImplementedError

    def restore_work(
        self,
        data_bytes: float,
        rows: float,
        history: list[LcpRecord],
        steady: LcpRecord | None,
        older: list[Era] | None = None,
    ) -> RestoreWork:
        """What a restore reads and applies: ``history`` is the node's completed LCPs, newest
        first; ``older`` the eras of identical LCPs before them, newest first (default: the
        ``steady`` LCP for ever)."""
        raise NotImplementedError

    def restore_of(
        self,
        data_bytes: float,
        rows: float,
        history: list[LcpRecord],
        steady: LcpRecord | None,
        older: list[Era] | None = None,
    ) -> RestoreWork:
        """``restore_work``, walked once for nodes whose histories hold the very same LCP records
        (nodes that completed those LCPs together, as a rolling restart's wave has): the
        remembered entries keep their records, so no other record can take their ids."""
        memo = self._restores
        if memo is None:
            memo = self._restores = {}
        key = (
            data_bytes,
            rows,
            tuple(map(id, history)),
            id(steady),
            None if older is None else tuple((id(e.record), e.count) for e in older),
        )
        hit = memo.get(key)
        if hit is not None:
            return hit[1]
        work = self.restore_work(data_bytes, rows, history, steady, older)
        if len(memo) >= RESTORES_KEPT:
            memo.clear()
        memo[key] = ((tuple(history), steady, older), work)
        return work

    def design_bound_bytes(self, data_bytes: float) -> float:
        """The most a restore reads by design: the LCP files on disk (``data_bytes`` for a
        full LCP)."""
        return data_bytes

    def steady_state(
        self,
        data_bytes: float,
        rows: float,
        row_rates: Changes,
        write_speed: float | Callable[[float, float], float],
        overhead_secs: float,
        trigger_secs: float,
    ) -> tuple[LcpRecord, float]:
        """The LCP cycle the node settles into: LCPs start every ``cycle`` seconds, the larger
        of the LCP's own duration and the time the stream takes to write the
        TimeBetweenLocalCheckpoints threshold (``trigger_secs``). Returns the record of one
        LCP and the cycle length: the fixed point of T = size(changes during T) / speed.
        ``write_speed`` is bytes/s, or a function of (the LCP's size, the cycle) giving it,
        for a speed proposed from the changes themselves (EnableRedoControl)."""
        speed_at = write_speed if callable(write_speed) else None
        fixed = 0.0 if callable(write_speed) else write_speed

        def duration_of(size: float, cycle: float) -> float:
            return size / (speed_at(size, cycle) if speed_at else fixed) + overhead_secs

        if not math.isfinite(trigger_secs):  # an idle cluster starts no LCPs
            size, pct = self.lcp_size(data_bytes, rows, Changes())
            duration = duration_of(size, math.inf)
            return LcpRecord(-duration, 0.0, pct, 0.0, 0.0, size, write_secs=duration - overhead_secs), math.inf
        cycle = max(duration_of(data_bytes, math.inf), trigger_secs)
        duration = cycle
        for _ in range(PROPOSING_ITERATIONS if speed_at else STEADY_ITERATIONS):
            size, pct = self.lcp_size(data_bytes, rows, _scale(row_rates, cycle))
            duration = duration_of(size, cycle)
            new = max(duration, trigger_secs)
            if abs(new - cycle) <= 1e-6 * cycle:
                cycle = new
                break
            cycle = 0.5 * (cycle + new)
        c = _scale(row_rates, cycle)
        size, pct = self.lcp_size(data_bytes, rows, c)
        duration = duration_of(size, cycle)
        return LcpRecord(
            start=-duration,
            end=0.0,
            pct=pct,
            changed_rows=c.updates + c.inserts,
            changed_bytes=c.bytes,
            bytes=size,
            inserted_rows=c.inserts,
            write_secs=duration - overhead_secs,
        ), cycle


STEADY_ITERATIONS = 60
"""Damped fixed-point steps for the steady LCP cycle at a fixed write speed; each halves the
distance to the fixed point or better, so 60 reach float precision (a numerical resolution,
not an NDB value)."""

PROPOSING_ITERATIONS = 240
"""The same for a speed proposed from the cycle itself, where a step closes only a tenth of
the distance (0.9^240 < 1e-10; a numerical resolution)."""


def _scale(rates: Changes, t: float) -> Changes:
    return Changes(rates.updates * t, rates.inserts * t, rates.deletes * t, rates.bytes * t)


class FullLcp(CheckpointPolicy):
    """Every LCP writes every row; a restore reads the last completed LCP once."""

    name = "full"
    """Every LCP writes all rows (≤7.5, or EnablePartialLcp=false)."""

    def lcp_size(self, data_bytes: float, rows: float, changes: Changes, first: bool = False) -> tuple[float, float]:
        return data_bytes, 1.0

    def restore_work(
        self,
        data_bytes: float,
        rows: float,
        history: list[LcpRecord],
        steady: LcpRecord | None,
        older: list[Era] | None = None,
    ) -> RestoreWork:
        return RestoreWork(bytes_read=data_bytes, rows_applied=rows, lcps=1)


class PartialLcp(CheckpointPolicy):
    """Partial LCP (7.6.4+): 2048 parts, RecoveryWork, InsertRecoveryWork, deletes ×1.2."""

    name = "partial"
    """Partial LCP of 7.6.4+ (reference §2.2)."""
    local_lcp_at_restart_end = True
    """A 7.6 node restart runs one local LCP before joining a distributed one (reference §3)."""

    def __init__(
        self, recovery_work: float, insert_recovery_work: float, tables: float = 1, fragment_pages: float = math.inf
    ):
        self.p = recovery_work / 100.0
        self.insert_weight = insert_recovery_work / 100.0
        self.tables = max(1, tables)
        self.fragment_pages = fragment_pages
        """DataMemory pages of the node's average fragment (rule 3's ``max_page_count``)."""

    def parts(self, rows: float, changes: Changes, first: bool = False) -> float:
        """Parts one LCP writes as ALL ROWS (Backup::calculate_number_of_parts and
        calculate_min_parts, rules 1–5 of reference §2.2), as the mean over the node's fragments.

        NDB takes the integer part per fragment and per LCP: rule 1 is ``1 + floor(u)``,
        ``u = 2048·k/(k+p)``, and rule 3 ``2048 / max_page_count`` in integer division. The model
        sees one average fragment; the node's fragments differ in change share (their tables'
        traffic, the rows the hash gives them, the z term) and in pages, and one LCP's parts set
        the next LCP's length, so their ``u`` spreads over the step. Over a unit spread the integer
        part averages to ``u − ½`` (rule 1: ``u + ½``), with no step a 1% shorter cycle could
        cross for every fragment at once."""
        if first or rows <= 0:
            return PARTIAL_LCP_PARTS  # rule 4: a fragment's first LCP is full
        raw = changes.rows
        if 10 * raw > 7 * rows:
            return PARTIAL_LCP_PARTS  # rule 2: more than 70% of rows changed
        weighted = (
            changes.updates + changes.inserts * self.insert_weight + changes.deletes * DELETE_RECOVERY_WORK / 100.0
        )
        y = weighted / rows
        z = y / self.tables  # the fragment's share of its LDM's memory ≈ 1/tables
        k = y + 0.5 * z
        rule1 = PARTIAL_LCP_PARTS * k / (k + self.p) + 0.5
        rule3 = PARTIAL_LCP_PARTS / self.fragment_pages - 0.5 if self.fragment_pages > 0 else PARTIAL_LCP_PARTS
        return max(1.0, min(float(PARTIAL_LCP_PARTS), max(rule1, rule3)))  # rule 5: at least one part

    def lcp_size(self, data_bytes: float, rows: float, changes: Changes, first: bool = False) -> tuple[float, float]:
        pct = self.parts(rows, changes, first) / PARTIAL_LCP_PARTS
        row_size = data_bytes / rows if rows else 0.0
        changed_bytes = min(rows, changes.updates + changes.inserts) * row_size
        return pct * data_bytes + (1.0 - pct) * changed_bytes, pct

    def restore_work(
        self,
        data_bytes: float,
        rows: float,
        history: list[LcpRecord],
        steady: LcpRecord | None,
        older: list[Era] | None = None,
    ) -> RestoreWork:
        """Walk back from the newest LCP until every part has an ALL-ROWS copy; each part is
        restored from there and the CHANGE rows of every later LCP are applied on top
        (Backup.cpp, "Partial LCP" comment; lcp_simulator.cc calculate_num_lcps). An ALL-ROWS
        part holds the rows there were when its LCP ran: rows inserted since come only as CHANGE
        rows of later LCPs, so inserts never duplicate an older copy and the older LCPs read
        less. The walk ends with the oldest LCP kept, which is full (rule 4: a fragment's first
        LCP is full)."""
        walk = _RestoreWalk(data_bytes, rows)
        for rec in history:
            if walk.done:
                break
            walk.add(rec, 1)
        eras = older if older is not None else [Era(steady or _FIRST, math.inf)]
        for era in eras:
            if walk.done:
                break
            walk.add(era.record, era.count)
        if not walk.done:
            walk.add(_FIRST, 1)
        return RestoreWork(
            bytes_read=walk.bytes_read,
            rows_applied=walk.rows_applied,
            lcps=walk.lcps,
            change_rows=walk.change_rows,
            data_files=max(1, walk.data_files),
        )

    def design_bound_bytes(self, data_bytes: float) -> float:
        """Backup.cpp's design bound on the LCP files kept: (1 + p) × the data, plus up to
        LCP_FILE_SLACK because whole files are deleted, not parts (reference §2.2)."""
        return (1.0 + self.p + LCP_FILE_SLACK) * data_bytes


LCP_FILE_SLACK = 0.125
"""The ALL-ROWS parts of an LCP go to "1 file per 12.5% of the parts" and old files are deleted
whole, so up to 12.5% of the data is kept beyond what a restore needs (Backup.cpp, reference
§2.1-2.2)."""

_FIRST = LcpRecord(-math.inf, -math.inf, 1.0, 0.0, 0.0, 0.0)
"""A fragment's first LCP, which is full (Backup.cpp rule 4): where every restore walk ends."""


class _RestoreWalk:
    """Accumulates a restore's work while walking back through LCPs, newest first."""

    def __init__(self, data_bytes: float, rows: float):
        self.data_bytes, self.rows = data_bytes, rows
        self.row_size = data_bytes / rows if rows else 0.0
        self.covered = 0.0
        """Share of the parts whose ALL-ROWS copy has been found."""
        self.inserted_after = 0.0
        """Rows inserted after the LCP being looked at (in the newer LCPs walked)."""
        self.bytes_read = self.rows_applied = self.change_rows = 0.0
        self.lcps = 0
        self.data_files = 0

    @property
    def done(self) -> bool:
        return self.covered >= 1.0 - 1e-12

    def add(self, rec: LcpRecord, count: float) -> None:
        """``count`` LCPs like ``rec``, one after another going back (``math.inf``: as many as
        the walk needs). The j-th takes min(x, left − j·x) of the parts as ALL ROWS, holding the
        rows there were then (the rows now less those inserted since), and the parts still
        without an ALL-ROWS copy, max(0, left − (j+1)·x), take its CHANGE rows."""
        x, c, ins = rec.pct, rec.changed_rows, min(rec.inserted_rows, rec.changed_rows)
        left = 1.0 - self.covered
        if x <= 0.0:
            x = 1.0 / PARTIAL_LCP_PARTS  # rule 5: at least one part
        needed = math.ceil(left / x - 1e-9)
        m = int(min(count, needed))
        emptied = False
        if ins > 0.0:
            # going back, the table loses the rows inserted since: before the LCP by which
            # all of today's rows were inserted it held none, and older LCPs hold nothing
            before_empty = math.ceil(max(0.0, self.rows - self.inserted_after) / ins - 1e-9)
            if before_empty < m:
                m, emptied = max(1, before_empty), True
        if m <= 0:
            return
        whole = m if m < needed or emptied else m - 1  # LCPs taking x each; the last takes the rest
        taken = whole * x if whole == m else left
        inserted = 0.0
        if ins > 0.0 or self.inserted_after > 0.0:
            inserted = x * (whole * self.inserted_after + ins * whole * (whole - 1) / 2.0)
            if whole < m:
                inserted += (left - whole * x) * (self.inserted_after + (m - 1) * ins)
            inserted = min(inserted, taken * self.rows)  # no part holds fewer than no rows
        stale = sum_positive_arithmetic(left - x, -x, m)
        self.rows_applied += (taken * self.rows - inserted) + stale * c
        self.change_rows += stale * c
        self.bytes_read += (taken * self.data_bytes - inserted * self.row_size) + m * (1.0 - x) * c * self.row_size
        self.covered = 1.0 if emptied else self.covered + taken
        self.inserted_after += m * ins
        self.lcps += m
        if c > 0.0 or rec.pct >= 1.0:  # an idle fragment's LCP writes no data file
            self.data_files += m


def sum_positive_arithmetic(first: float, step: float, count: int) -> float:
    """Σ max(0, first + j·step) for j in 0..count-1, with step < 0."""
    if count <= 0 or first <= 0:
        return 0.0
    last_positive = min(count - 1, math.floor(first / -step)) if step < 0 else count - 1
    k = last_positive + 1
    return k * first + step * k * (k - 1) / 2.0


DATA_MEMORY_PAGE_BYTES = 32768
"""DataMemory "consists of 32KB pages" (reference §7); a fragment's ``max_page_count`` counts them."""


def policy_for(
    config: Mapping[str, Any], features: Features, tables: float, fragment_bytes: float = math.inf
) -> CheckpointPolicy:
    """The checkpoint policy of a release under its config; before 7.6.5 (no
    ``insert_recovery_work``) inserted rows count in full, whatever InsertRecoveryWork says.
    ``fragment_bytes`` is the data of the node's average fragment (rule 3)."""
    if features.partial_lcp:
        inserts = config["InsertRecoveryWork"] if features.insert_recovery_work else 100.0
        pages = max(1.0, fragment_bytes / DATA_MEMORY_PAGE_BYTES) if math.isfinite(fragment_bytes) else math.inf
        return PartialLcp(config["RecoveryWork"], inserts, tables, pages)
    return FullLcp()
