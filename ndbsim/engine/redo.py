"""The REDO log's accounting: what each node must keep, how full its log is, when it next
reaches an EnableRedoControl alert level, and the peak the live nodes reached (error 410)."""

from __future__ import annotations

import math

from ndbsim.engine.lcp.checkpoint import LcpRecord
from ndbsim.engine.lcp.steady import REDO_ALERT_CRITICAL, REDO_ALERT_HIGH
from ndbsim.engine.node import Node
from ndbsim.engine.plan import Plan
from ndbsim.engine.sizing import Sizing


class RedoLog:
    """The REDO logs of one cluster's nodes, all of ``capacity`` bytes."""

    def __init__(self, sz: Sizing, plan: Plan):
        self.capacity = sz.redo_capacity
        self.kept = sz.features.redo_lcps_kept
        self.groups = sz.groups
        self.plan = plan
        self.peak_bytes = 0.0
        """The most REDO a live node had to keep so far (see ``note``)."""
        self.overloaded_at = math.inf
        """The first time ``note`` found a live node keeping more REDO than its log holds
        (error 410); infinite while it never did."""

    def oldest_kept(self, node: Node) -> LcpRecord | None:
        """The oldest LCP whose REDO the node still keeps (it keeps ``redo_lcps_kept``)."""
        hist = node.history
        return hist[min(self.kept, len(hist)) - 1] if hist else None

    def since(self, start: float, now: float) -> float:
        """REDO one node logged from ``start`` to ``now``, including the steady state before
        simulated time 0 (the warm-up begins in it)."""
        tail = -start * self.plan.pre_rates.bytes / self.groups if start < 0 and math.isfinite(start) else 0.0
        return self.plan.traffic.redo_bytes(max(start, 0.0), now) + tail

    def log_start(self, node: Node) -> float:
        """Where the REDO a node must keep begins: the start of the oldest of the
        ``redo_lcps_kept`` newest completed LCPs, or where its log begins if later. Nodes with
        the same start keep the same REDO."""
        hist, kept = node.history, self.kept  # oldest_kept without the call: every node of every LCP asks
        start = hist[(kept if kept < len(hist) else len(hist)) - 1].start if hist else 0.0
        if node.redo_floor > start:
            start = node.redo_floor
        return start

    def needed(self, node: Node, now: float) -> float:
        """REDO a node must keep: everything since its ``log_start``."""
        return self.since(self.log_start(node), now)

    def fill(self, node: Node, now: float) -> float:
        return self.needed(node, now) / self.capacity if self.capacity else 0.0

    def alert_level(self, node: Node, now: float) -> int:
        """EnableRedoControl's alert level for ``node``: 2 above REDO_ALERT_CRITICAL of the log,
        1 above REDO_ALERT_HIGH, else 0; or the level an alarm raised it to during this LCP."""
        fill = self.fill(node, now)
        level = 2 if fill > REDO_ALERT_CRITICAL else 1 if fill > REDO_ALERT_HIGH else 0
        return max(level, node.redo_alert)

    def next_alert(self, nodes: list[Node], now: float) -> tuple[float, list[tuple[Node, int]]]:
        """When the next of ``nodes`` reaches an EnableRedoControl alert level above its own (the
        REDO a running LCP keeps only grows until it completes), and which nodes reach which
        level then; or when the stream's rate changes, with none. inf when neither happens."""
        traffic = self.plan.traffic
        at = next((start for start, _ in traffic.segments if start > now), math.inf)
        rate = traffic.at(now).bytes / self.groups
        reach: list[tuple[Node, int]] = []
        if rate <= 0 or not self.capacity:
            return at, reach
        seen: dict[tuple[float, int], tuple[int, float]] = {}  # nodes keeping the same REDO reach alike
        log_start = self.log_start
        for n in nodes:
            if n.down or n.redo_floor > now:
                continue  # logs no REDO now: its fill does not grow
            key = (log_start(n), n.redo_alert)
            hit = seen.get(key)
            if hit is None:
                need = self.needed(n, now)  # alert_level's fill, once
                fill = need / self.capacity
                level = max(2 if fill > REDO_ALERT_CRITICAL else 1 if fill > REDO_ALERT_HIGH else 0, n.redo_alert)
                t = math.inf
                if level < 2:
                    target = (REDO_ALERT_CRITICAL if level == 1 else REDO_ALERT_HIGH) * self.capacity
                    t = now + max(0.0, target - need) / rate
                hit = seen[key] = (level, t)
            level, t = hit
            if level >= 2:
                continue
            if t < at:
                at, reach = t, [(n, level + 1)]
            elif t == at:
                reach.append((n, level + 1))
        return at, reach

    def note(self, nodes: list[Node], now: float) -> None:
        """Record the REDO the live nodes must keep at ``now``, if it is a new peak. A starting
        node is left out until its restart has completed an LCP: it logs nothing while down,
        7.6 activates its REDO logging only after the local LCP (reference §3), and its
        pre-crash log is released by that LCP; error 410 is a live node's problem."""
        seen = math.nan
        log_start = self.log_start
        for n in nodes:
            if n.down or n.restarting:  # not live
                continue
            start = log_start(n)
            if start == seen:
                continue  # the REDO kept starts where the previous node's does: the same amount
            seen = start
            need = self.since(start, now)
            if need > self.peak_bytes:
                self.peak_bytes = need
            if need > self.capacity and now < self.overloaded_at:
                self.overloaded_at = now
