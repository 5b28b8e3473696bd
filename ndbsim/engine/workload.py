"""The transaction stream as a fluid: piecewise-constant rates over time, integrated exactly.

Rates are cluster-wide, as the application issues them; each node group takes an equal
share and every replica in it applies all of that share. Nothing here is an event.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Rates:
    updates: float = 0.0
    inserts: float = 0.0
    deletes: float = 0.0
    bytes_per_change: float = 512.0

    @property
    def rows(self) -> float:
        return self.updates + self.inserts + self.deletes

    @property
    def bytes(self) -> float:
        return self.rows * self.bytes_per_change


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
    """Per-node rates as a step function of time: ``segments`` are (start, Rates)."""

    def __init__(self, segments: list[tuple[float, Rates]], share: float):
        self.segments = sorted(segments, key=lambda s: s[0])
        self.share = share  # fraction of the cluster-wide stream each node applies

    def at(self, t: float) -> Rates:
        current = self.segments[0][1]
        for start, rates in self.segments:
            if start <= t:
                current = rates
            else:
                break
        return current

    def _pieces(self, t0: float, t1: float):
        segs = self.segments
        for i, (start, rates) in enumerate(segs):
            end = segs[i + 1][0] if i + 1 < len(segs) else math.inf
            a, b = max(t0, start if i else -math.inf), min(t1, end)
            if b > a:
                yield a, b, rates

    def changes(self, t0: float, t1: float) -> Changes:
        c = Changes()
        for a, b, r in self._pieces(t0, t1):
            dt = (b - a) * self.share
            c.updates += r.updates * dt
            c.inserts += r.inserts * dt
            c.deletes += r.deletes * dt
            c.bytes += r.bytes * dt
        return c

    def redo_bytes(self, t0: float, t1: float) -> float:
        return self.changes(t0, t1).bytes

    def distinct_rows(self, t0: float, t1: float, rows: float) -> float:
        """Rows that differ from the state at ``t0``: every insert and delete, and the
        distinct rows hit by uniformly spread updates, R·(1 − e^(−u·t/R))."""
        c = self.changes(t0, t1)
        hit = rows * (1.0 - math.exp(-c.updates / rows)) if rows > 0 else 0.0
        return hit + c.inserts + c.deletes

    def time_to_write(self, t0: float, nbytes: float, horizon: float) -> float:
        """Earliest t ≥ t0 by which the cluster-wide stream has written ``nbytes`` (inf if
        never). This is what TimeBetweenLocalCheckpoints measures."""
        need = nbytes
        for a, b, r in self._pieces(t0, horizon):
            rate = r.bytes
            if rate <= 0:
                continue
            if rate * (b - a) >= need:
                return a + need / rate
            need -= rate * (b - a)
        return math.inf
