"""The warm-up's LCPs run by arithmetic (``engine.lcp.master``): before the crash, where nothing
else can touch them (every node alike, each LCP writing alone at one rate with no change of the
stream's rates under way), the loop's LCPs are computed exactly as the fluid would run them,
the fluid's timer and round-off included, and recorded as simulated; only those a change of
rates or EnableRedoControl meets, and from where the skip would take over, are simulated."""

from __future__ import annotations

import math

from ndbsim.engine import clock
from ndbsim.engine.fluid.flow import EPS, UNBOUNDED_RATE
from ndbsim.engine.lcp.checkpoint import LcpRecord
from ndbsim.engine.lcp.round import HISTORY_KEPT, CycleShape
from ndbsim.engine.lcp.state import LcpState
from ndbsim.engine.node import Node
from ndbsim.engine.workload import Rates


class WarmUpByArithmetic(LcpState):
    """The LCP loop's warm-up LCPs, by arithmetic."""

    def _fast_forward(self) -> float | None:
        """Run the warm-up's LCPs by arithmetic, exactly as the loop would simulate them, for as
        long as nothing else can touch them: before the crash, with every node alike, each
        node's LCP writing alone on its own disk and cores at one rate from start to end (no
        change of the stream's rates while it runs, no EnableRedoControl alarm ringing), and
        while an LCP does not repeat the one before it (a cycle the skip could take over is the
        loop's to simulate). The histories, REDO peak, LCP count and the last LCP's shape are
        left as simulating those LCPs would leave them. Returns when the last of them completed
        (the loop goes on from there), or None if the next one cannot be run so."""
        env, nodes = self.env, self.nodes
        now = clock.now(env)
        if not now < self.plan.t_crash or self._waiters:
            return None
        first = nodes[0].history[0].start if nodes[0].history else None
        if any(
            n.restarting
            or n.down
            or not n.in_lcp
            or n.redo_alert
            or n.redo_floor != -math.inf
            or (n.history[0].start if n.history else None) != first
            for n in nodes
        ):
            return None  # the nodes are not all alike
        top: float | None = None
        while True:
            t = now if top is None else top
            first_start = self.first_start
            start_at = self._next_trigger()
            wake = t + max(0.0, start_at - t)  # the loop's sleep, as SimPy schedules it
            t1 = self._lone_lcp(start_at, wake, now) if math.isfinite(start_at) else None
            if t1 is None:
                self.first_start = first_start  # the loop computes that trigger again
                return top
            top = t1

    def _lone_lcp(self, start_at: float, wake: float, now: float) -> float | None:
        """The LCP the loop starts after waking at ``wake``, by arithmetic: the fluid's timer
        and round-off as it would run it, recorded as ``_complete`` records it. Returns its
        completion, or None (nothing changed) if it cannot run alone before the crash (or a
        timer set ``now`` cannot end on it)."""
        sz, nodes, traffic = self.sz, self.nodes, self.plan.traffic
        if wake < start_at - 1e-9:
            return None
        t0 = wake
        if t0 < self.last_end + sz.gcp:
            t0 = t0 + (self.last_end + sz.gcp - t0)
        if not t0 < self.plan.t_crash:
            return None
        node = nodes[0]  # every node alike: one stands for all
        since = node.history[0].start if node.history else -math.inf
        changes = self.plan.node_changes_since(since, t0)
        size, pct = sz.policy.lcp_size(sz.data_bytes, sz.rows, changes)
        cap = self.writes.cap_at(size, self.writes.speed(node, False, t0))
        rate = self._lone_rate(node, cap, self.writes.demand(node, size), traffic.at(t0))
        if not rate > 0.0:
            return None
        at = t0 + 1.0 / rate  # the fluid's timer for one unit of writes
        if sz.features.redo_control and self.redo.next_alert([node], t0)[0] < at:
            return None  # EnableRedoControl re-caps it part-way: simulated
        end = t0 + (at - t0 if at > t0 else 0.0)
        resolution = 1e-9 if end < 1e5 else end * 1e-14
        if 1.0 - rate * (end - t0) > rate * resolution + EPS:
            return None  # the timer would not find it finished
        t1 = end + sz.lcp_fixed_secs
        if not t1 < self.plan.t_crash or any(t0 <= s <= t1 for s, _ in traffic.segments):
            return None  # the restart, or a change of the stream's rates, meets it
        if now + (t1 - now) != t1:
            return None  # the loop's timer from now could not land on it exactly
        prev = self._shape
        shape = CycleShape(
            who=tuple(nodes),
            sizes=(size,) * len(nodes),
            durations=(end - t0,) * len(nodes),
            length=t1 - t0,
            cap_changes=(),
            start=t0,
            period=t0 - prev.start if prev is not None else math.nan,
        )
        if prev is not None and shape.same_cycle(prev) and self._in_one_stretch(shape, t1, [node]):
            return None  # the loop would skip the cycles from here: its to simulate
        self.redo.note([node], t1)
        rec = LcpRecord(t0, t1, pct, changes.updates + changes.inserts, changes.bytes, size, changes.inserts, end - t0)
        for n in nodes:
            n.history.insert(0, rec)
            del n.history[HISTORY_KEPT:]
        self.last_start, self.last_end = t0, t1
        self._count += 1
        self._shape = shape
        return t1

    def _lone_rate(self, node: Node, cap: float, demand: dict[str, float], rates: Rates) -> float:
        """The fluid's rate for a flow alone on ``node``'s resources beside the stream at
        ``rates``: its cap, or its tightest resource's share (as ``FluidSystem`` computes it)."""
        capacity = self.fluid.capacity
        rate = cap
        for r, load in zip((node.cpu, node.disk, node.net), self.sz.live_load(rates)):
            d = demand.get(r, 0.0)
            if d > 0:
                free = capacity[r] - load
                x = (free if free > 0.0 else 0.0) / d
                if x < rate:
                    rate = x
        return rate if rate < UNBOUNDED_RATE else UNBOUNDED_RATE
