"""The next LCPs by arithmetic while the cycle converges (``engine.lcp.master``). After a change
of what the other flows leave the LCP (a copy step), its cycle converges to a new length over
some cycles, each a little different from the one before, so the skip of identical cycles
waits. Where nothing but an outside change can touch the next LCPs (every participant alike,
their flows beside a constant competing demand, each at one rate from start to end, no change
of the stream's rates, no EnableRedoControl re-cap, no other flow ending before they complete),
the loop computes them exactly as the fluid would run them, its timer, alarms and round-off
included, each from the state the one before leaves, and sleeps over them as a skip: an outside
change settles it as it settles a skip of identical cycles (the LCPs passed written, the one
in progress resumed mid-write), and run to its end, its LCPs are recorded as simulated."""

from __future__ import annotations

import math
from dataclasses import replace

from ndbsim.engine import clock
from ndbsim.engine.fluid.flow import EPS, UNBOUNDED_RATE, Flow
from ndbsim.engine.lcp.checkpoint import LcpRecord
from ndbsim.engine.lcp.round import CycleShape, LcpPlan, LcpSize, Skip
from ndbsim.engine.lcp.stall import held_until
from ndbsim.engine.lcp.state import LcpState
from ndbsim.engine.node import Node

AHEAD_CYCLES = 64
"""LCPs computed ahead in one skip at most (a bound on the work a skip cut short throws away,
not a model value)."""

AHEAD_MIN_CYCLES = 1.0
"""Cycles of the last period that must fit before the fluid's next flow end (which settles a
skip, and which no LCP computed ahead may reach) for the loop to compute LCPs ahead: with less,
the first one would most likely not fit, and computing it costs about what simulating it does
(a bound on work thrown away, not a model value)."""


class CycleAhead(LcpState):
    """The LCP loop's next cycles by arithmetic, slept over as a skip."""

    def _ahead(self) -> Skip | None:
        """The next LCPs, as the loop would simulate them from now, as a skip of those cycles
        (``Skip.then``): each computed from the state the one before leaves (its record put in
        the histories for the computation, then taken back: the skip writes them as it passes
        them), until one
        cannot be computed so, or two in a row are identical (run to its end, the skip's last
        LCP is compared with the one before as a simulated one is). None, with nothing
        changed, if the first cannot be computed, or if the last cycle's period would not fit
        before the fluid's next flow end (``AHEAD_MIN_CYCLES``)."""
        if self._waiters or self.running is not None or self._resume is not None or self.first_start is not None:
            return None
        if self.env.peek() <= clock.now(self.env):
            return None  # something else happens at this instant: it may well settle the skip
        first_end = self.fluid.next_end()  # the fluid stands still while the loop computes
        last = self._shape
        if last is not None and clock.now(self.env) + AHEAD_MIN_CYCLES * last.period > first_end:
            return None  # the next LCP most likely ends after that flow: simulating it costs no more
        nodes = [n for n in self.nodes if n.in_lcp and not n.down]
        alerts = [n.redo_alert for n in nodes]
        kept = (self.last_start, self.last_end, self._shape)
        chain: list[Skip] = []
        shapes: list[CycleShape | None] = [self._shape]
        now = clock.now(self.env)
        shape = self._shape
        while len(chain) < AHEAD_CYCLES:
            for n in nodes:
                n.redo_alert = 0  # as the LCP starts: the last one released REDO, the fill says the level
            cycle = self._next_lcp(nodes, now, first_end)
            if cycle is None:
                break
            chain.append(cycle)
            for n in nodes:  # what the next one reads of this one: the histories, the loop's times
                n.history.insert(0, cycle.record)
            self.last_start, self.last_end = cycle.plan.start, cycle.until
            prev, shape = shape, self._shape_of(cycle.plan, shape)
            shapes.append(shape)
            if prev is not None and shape.same_cycle(prev):
                break  # identical from here: the skip of identical cycles takes over
            now = cycle.until
        left = [n.redo_alert for n in nodes]
        for n in nodes:
            del n.history[: len(chain)]
        (self.last_start, self.last_end, self._shape) = kept
        start = clock.now(self.env)
        while chain and start + (chain[-1].until - start) != chain[-1].until:
            chain.pop()  # the skip's timer from now could not land on its end exactly
        for n, level in zip(nodes, left if chain else alerts):
            n.redo_alert = level
        self._shape = shapes[len(chain) - 1] if chain else self._shape  # the one before the last
        if not chain:
            return None
        return replace(chain[0], then=tuple(chain[1:]))

    def _shape_of(self, plan: LcpPlan, prev: CycleShape | None) -> CycleShape:
        """``CycleSkip._shape_of``."""
        raise NotImplementedError

    def _next_lcp(self, nodes: list[Node], now: float, first_end: float) -> Skip | None:
        """The LCP the loop starts after ``now`` (when the one before completed), computed, as a
        skip of that one cycle; ``nodes``, its participants, at EnableRedoControl's level 0;
        ``first_end``: when the first running flow ends (``FluidSystem.next_end``)."""
        env, sz, writes = self.env, self.sz, self.writes
        if self._waiters or self.running is not None or self._resume is not None:
            return None
        if not nodes or not nodes[0].history or len({id(n.history[0]) if n.history else 0 for n in nodes}) != 1:
            return None
        first_start = self.first_start
        start_at = self._next_trigger()
        self.first_start = first_start  # the loop computes that trigger again if this fails
        if not math.isfinite(start_at):
            return None
        wake = now + max(0.0, start_at - now)  # the loop's sleep, as SimPy schedules it
        if wake < start_at - 1e-9:
            return None
        t0 = held_until(list(self.recoveries.values()), self.lcp_secs(), wake, wake)  # DIH's hold, if any
        held = t0 - wake
        if t0 < self.last_end + sz.gcp:
            t0 = t0 + (self.last_end + sz.gcp - t0)
        if not t0 > now or now + (t0 - now) != t0 or first_end <= t0:
            return None
        since = nodes[0].history[0].start
        changes = self.plan.node_changes_since(since, t0)
        size, pct = sz.policy.lcp_size(sz.data_bytes, sz.rows, changes)
        restarting = writes.any_restarting()
        flows = []
        for n, speed in zip(nodes, writes.node_speeds(nodes, restarting, t0)):
            f = Flow(env, 1.0, writes.demand(n, size), writes.cap_at(size, speed), "", 0, _no_end)
            f.lcp_size = size
            flows.append(f)
        ends = self._ends(nodes, flows, t0, restarting)
        if ends is None:
            return None
        t1 = max(ends) + sz.lcp_fixed_secs
        if first_end <= t1 or now < self.plan.t_crash <= t1:
            return None  # another flow ends first, or the crash comes: that would settle it
        if any(now < s <= t1 for s, _ in self.plan.traffic.segments) or now + (t1 - now) != t1:
            return None
        for f, end in zip(flows, ends):
            f.end = end
        plan = LcpPlan(t0, nodes, [since] * len(nodes), {since: LcpSize(size, pct, changes)}, list(zip(nodes, flows)))
        plan.ends = ends
        plan.held = held
        durations = tuple(end - t0 for end in ends)
        ch = changes
        record = LcpRecord(t0, t1, pct, ch.updates + ch.inserts, ch.bytes, size, ch.inserts, ends[0] - t0)
        return Skip(plan, record, now, t1 - now, t0 - now, durations, t1 - t0, until=t1)

    def _ends(self, nodes: list[Node], flows: list[Flow], t0: float, restarting: bool) -> list[float] | None:
        """When each of ``nodes``' ``flows``, started at ``t0``, ends as the fluid runs it:
        each at the rate it gets beside the others' constant demand (None unless every other
        flow keeps its rate to the last bit, and no two LCP flows share a group of linked flows, so the end of
        one changes no other's rate), found finished by the fluid's timer, which
        EnableRedoControl's alarms share (None if one re-caps the writes: simulated)."""
        fluid, sz, redo = self.fluid, self.sz, self.redo
        rates, shared = fluid.rates_beside(flows)
        if shared:
            return None
        mine = set(flows)
        for f, rate in rates.items():
            if f not in mine and rate != f.rate:
                return None  # even by round-off: the fluid would re-time it, the arithmetic not
        own = [rates[f] for f in flows]
        if any(not 0.0 < r < UNBOUNDED_RATE for r in own):
            return None
        finish = [t0 + 1.0 / r for r in own]
        alarm, reach = redo.next_alert(nodes, t0) if sz.features.redo_control else (math.inf, [])
        ends = [math.nan] * len(flows)
        now = t0
        left = set(range(len(flows)))
        while left:
            at = min(alarm, *(finish[k] for k in left))
            now = now + (at - now if at > now else 0.0)  # the timer, as SimPy schedules it
            resolution = 1e-9 if now < 1e5 else now * 1e-14
            done = [k for k in left if 1.0 - own[k] * (now - t0) <= own[k] * resolution + EPS]
            for k in done:
                ends[k] = now
                left.discard(k)
            if left and alarm <= now + resolution * max(1.0, now):  # LcpState._redo_alert
                if not reach:
                    return None  # the stream's rates change
                for node, level in reach:
                    node.redo_alert = max(node.redo_alert, level)
                speeds = self.writes.node_speeds(nodes, restarting, now)  # LcpState.refresh_speeds
                if any(self.writes.cap(flows[k], speeds[k]) != flows[k].cap for k in left):
                    return None  # EnableRedoControl re-caps the writes part-way: simulated
                alarm, reach = redo.next_alert(nodes, now)
            elif not done:
                return None  # the timer would not find it finished: simulated
        return ends


def _no_end() -> None:
    """A computed flow never runs: nothing to do at its end."""
