"""The transaction stream as a fluid: piecewise-constant rates over time, integrated exactly.

Rates are cluster-wide, as the application issues them; each node group takes an equal
share and every replica in it applies all of that share. Nothing here is an event.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Rates:
    """Cluster-wide change rates of the transaction stream, per second."""

    updates: float = 0.0
    inserts: float = 0.0
    deletes: float = 0.0
    bytes_per_change: float = 512.0
    """Bytes logged per changed row; the scenario's ``workload.bytes_per_change`` (512B by
    default there) always sets it, this default only serves tests."""
    rows: float = field(init=False)
    """Changed rows per second: updates + inserts + deletes."""
    bytes: float = field(init=False)
    """Bytes changed (and logged to REDO) per second."""

    def __post_init__(self) -> None:
        rows = self.updates + self.inserts + self.deletes
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "bytes", rows * self.bytes_per_change)


@dataclass
class Changes:
    """Row changes on one node over an interval."""

    updates: float = 0.0
    inserts: float = 0.0
    deletes: float = 0.0
    bytes: float = 0.0

    @property
    def rows(self) -> float:
        return self.updates + self.inserts + self.deletes


class Traffic:
    """The stream as a step function of time. ``segments`` are (start, cluster-wide Rates);
    ``share`` is the fraction of it each node applies, and ``changes``, ``redo_bytes`` and
    ``distinct_rows`` answer per node."""

    def __init__(self, segments: list[tuple[float, Rates]], share: float):
        self.segments = sorted(segments, key=lambda s: s[0])
        self.share = share  # fraction of the cluster-wide stream each node applies
        # (start, end, updates, inserts, deletes, bytes) per node, end of the last = inf;
        # the first segment also covers all time before it
        self._per_node = []
        for i, (start, r) in enumerate(self.segments):
            end = self.segments[i + 1][0] if i + 1 < len(self.segments) else math.inf
            self._per_node.append(
                (
                    start if i else -math.inf,
                    end,
                    r.updates * share,
                    r.inserts * share,
                    r.deletes * share,
                    r.bytes * share,
                )
            )

    def at(self, t: float) -> Rates:
        current = self.segments[0][1]
        for start, rates in self.segments:
            if start > t:
                break
            current = rates
        return current

    def changes(self, t0: float, t1: float) -> Changes:
        u = i = d = b = 0.0
        for start, end, ru, ri, rd, rb in self._per_node:
            lo = t0 if t0 > start else start
            hi = t1 if t1 < end else end
            if hi > lo:
                dt = hi - lo
                u += ru * dt
                i += ri * dt
                d += rd * dt
                b += rb * dt
        return Changes(u, i, d, b)

    def redo_bytes(self, t0: float, t1: float) -> float:
        b = 0.0
        for start, end, _, _, _, rb in self._per_node:
            lo = t0 if t0 > start else start
            hi = t1 if t1 < end else end
            if hi > lo:
                b += rb * (hi - lo)
        return b

    def distinct_rows(self, t0: float, t1: float, rows: float, max_rows: float = math.inf) -> float:
        """Rows that differ from the state at ``t0``: the distinct rows hit by uniformly spread
        updates, R·(1 − e^(−u·t/R)), and the deleted ones (together at most R, the rows there
        were), plus every insert, as far as DataMemory holds them (``max_rows`` in all)."""
        c = self.changes(t0, t1)
        hit = rows * (1.0 - math.exp(-c.updates / rows)) if rows > 0 else 0.0
        return min(rows, hit + c.deletes) + min(c.inserts, max(0.0, max_rows - rows))

    def time_to_write(self, t0: float, nbytes: float, horizon: float) -> float:
        """Earliest t ≥ t0 by which the cluster-wide stream has written ``nbytes`` (inf if
        never). This is what TimeBetweenLocalCheckpoints measures."""
        need = nbytes
        for start, end, _, _, _, rb in self._per_node:
            lo = t0 if t0 > start else start
            hi = horizon if horizon < end else end
            rate = rb / self.share
            if hi <= lo or rate <= 0:
                continue
            if rate * (hi - lo) >= need:
                return lo + need / rate
            need -= rate * (hi - lo)
        return math.inf
