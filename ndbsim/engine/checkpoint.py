"""Checkpoint policies: the legacy full LCP (≤7.5) and the partial LCP of 7.6+.

A policy answers four questions for one node: how many bytes an LCP writes given the changes
since the previous one; what a restore reads and applies given the LCPs on disk; whether the
end of a node restart runs a local LCP first; and the steady-state LCP cycle.
Formulas: reference §2.2 (Backup::calculate_number_of_parts, lcp_simulator.cc) and §3.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ndbsim.engine.workload import Changes
from ndbsim.features import Features
from ndbsim.profiles import DELETE_RECOVERY_WORK, PARTIAL_LCP_PARTS


@dataclass(frozen=True)
class LcpRecord:
    """One completed LCP on one node."""

    start: float
    end: float
    pct: float
    """Fraction of the 2048 parts written as ALL ROWS (1.0 for a full LCP)."""
    changed_rows: float
    changed_bytes: float
    bytes: float


@dataclass(frozen=True)
class RestoreWork:
    bytes_read: float
    rows_applied: float
    lcps: int
    """LCP files a restore reads back through (1 for a full LCP)."""


class CheckpointPolicy:
    """Interface; see ``FullLcp`` and ``PartialLcp``."""

    name = "abstract"
    """The policy's name in results (``checkpoint.policy``): full or partial."""
    local_lcp_at_restart_end = False
    """Whether a node restart ends with a local LCP of the starting node (7.6+, reference §3)."""

    def lcp_size(self, data_bytes: float, rows: float, changes: Changes, first: bool = False) -> tuple[float, float]:
        """(bytes written, fraction of parts written in full)."""
        raise NotImplementedError

    def restore_work(
        self, data_bytes: float, rows: float, history: list[LcpRecord], steady: LcpRecord | None
    ) -> RestoreWork:
        raise NotImplementedError

    def steady_state(
        self,
        data_bytes: float,
        rows: float,
        row_rates: Changes,
        write_speed: float,
        overhead_secs: float,
        trigger_secs: float,
    ) -> tuple[LcpRecord, float]:
        """The LCP cycle the node settles into: LCPs start every ``cycle`` seconds, the larger
        of the LCP's own duration and the time the stream takes to write the
        TimeBetweenLocalCheckpoints threshold (``trigger_secs``). Returns the record of one
        LCP and the cycle length: the fixed point of T = size(changes during T) / speed."""
        if not math.isfinite(trigger_secs):  # an idle cluster starts no LCPs
            size, pct = self.lcp_size(data_bytes, rows, Changes())
            duration = size / write_speed + overhead_secs
            return LcpRecord(-duration, 0.0, pct, 0.0, 0.0, size), math.inf
        cycle = max(data_bytes / write_speed + overhead_secs, trigger_secs)
        duration = cycle
        for _ in range(60):
            size, pct = self.lcp_size(data_bytes, rows, _scale(row_rates, cycle))
            duration = size / write_speed + overhead_secs
            new = max(duration, trigger_secs)
            if abs(new - cycle) <= 1e-6 * cycle:
                cycle = new
                break
            cycle = 0.5 * (cycle + new)
        c = _scale(row_rates, cycle)
        size, pct = self.lcp_size(data_bytes, rows, c)
        duration = size / write_speed + overhead_secs
        return LcpRecord(
            start=-duration, end=0.0, pct=pct, changed_rows=c.updates + c.inserts, changed_bytes=c.bytes, bytes=size
        ), cycle


def _scale(rates: Changes, t: float) -> Changes:
    return Changes(rates.updates * t, rates.inserts * t, rates.deletes * t, rates.bytes * t)


class FullLcp(CheckpointPolicy):
    """Every LCP writes every row; a restore reads the last completed LCP once."""

    name = "full"
    """Every LCP writes all rows (≤7.5, or EnablePartialLcp=false)."""

    def lcp_size(self, data_bytes: float, rows: float, changes: Changes, first: bool = False) -> tuple[float, float]:
        return data_bytes, 1.0

    def restore_work(
        self, data_bytes: float, rows: float, history: list[LcpRecord], steady: LcpRecord | None
    ) -> RestoreWork:
        return RestoreWork(bytes_read=data_bytes, rows_applied=rows, lcps=1)


class PartialLcp(CheckpointPolicy):
    """Partial LCP (7.6.4+): 2048 parts, RecoveryWork, InsertRecoveryWork, deletes ×1.2."""

    name = "partial"
    """Partial LCP of 7.6.4+ (reference §2.2)."""
    local_lcp_at_restart_end = True
    """A 7.6 node restart runs one local LCP before joining a distributed one (reference §3)."""

    def __init__(self, recovery_work: float, insert_recovery_work: float, tables: int = 1):
        self.p = recovery_work / 100.0
        self.insert_weight = insert_recovery_work / 100.0
        self.tables = max(1, tables)

    def parts(self, rows: float, changes: Changes, first: bool = False) -> int:
        """Backup::calculate_number_of_parts: rules 1–5 of reference §2.2."""
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
        rule1 = 1 + math.floor(PARTIAL_LCP_PARTS * k / (k + self.p))
        return max(1, min(PARTIAL_LCP_PARTS, rule1))

    def lcp_size(self, data_bytes: float, rows: float, changes: Changes, first: bool = False) -> tuple[float, float]:
        pct = self.parts(rows, changes, first) / PARTIAL_LCP_PARTS
        row_size = data_bytes / rows if rows else 0.0
        changed_bytes = min(rows, changes.updates + changes.inserts) * row_size
        return pct * data_bytes + (1.0 - pct) * changed_bytes, pct

    def restore_work(
        self, data_bytes: float, rows: float, history: list[LcpRecord], steady: LcpRecord | None
    ) -> RestoreWork:
        """Walk back from the newest LCP until every part has an ALL-ROWS copy; each part is
        restored from there and the CHANGE rows of every later LCP are applied on top."""
        covered = 0.0
        bytes_read = rows_applied = 0.0
        n = 0
        row_size = data_bytes / rows if rows else 0.0
        for rec in history:
            if covered >= 1.0 - 1e-12:
                break
            take = min(rec.pct, 1.0 - covered)
            stale = max(0.0, 1.0 - covered - rec.pct)  # parts whose ALL copy is older
            bytes_read += take * data_bytes + (1.0 - rec.pct) * rec.changed_rows * row_size
            rows_applied += take * rows + stale * rec.changed_rows
            covered += take
            n += 1
        if covered < 1.0 - 1e-12:
            x = steady.pct if steady else 1.0
            c = steady.changed_rows if steady else 0.0
            m = math.ceil((1.0 - covered) / x - 1e-9)
            # m identical LCPs: stale fraction after the j-th is 1 - covered - (j+1)·x
            stale_sum = sum_positive_arithmetic(1.0 - covered - x, -x, m)
            bytes_read += (1.0 - covered) * data_bytes + m * (1.0 - x) * c * row_size
            rows_applied += (1.0 - covered) * rows + stale_sum * c
            n += m
        return RestoreWork(bytes_read=bytes_read, rows_applied=rows_applied, lcps=n)


def sum_positive_arithmetic(first: float, step: float, count: int) -> float:
    """Σ max(0, first + j·step) for j in 0..count-1, with step < 0."""
    if count <= 0 or first <= 0:
        return 0.0
    last_positive = min(count - 1, math.floor(first / -step)) if step < 0 else count - 1
    k = last_positive + 1
    return k * first + step * k * (k - 1) / 2.0


def policy_for(config: Mapping[str, Any], features: Features, tables: int) -> CheckpointPolicy:
    """The checkpoint policy of a release under its config; before 7.6.5 (no
    ``insert_recovery_work``) inserted rows count in full, whatever InsertRecoveryWork says."""
    if features.partial_lcp:
        inserts = config["InsertRecoveryWork"] if features.insert_recovery_work else 100.0
        return PartialLcp(config["RecoveryWork"], inserts, tables)
    return FullLcp()
