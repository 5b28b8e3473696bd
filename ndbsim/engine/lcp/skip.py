"""Skipping identical LCP cycles (``engine.lcp.master``). When two LCPs in a row have the same
participants, sizes, durations and spacing, and no other flow's rate depends on them
(``CycleSkip._alone``), the loop sleeps over the cycles that follow: the other flows run on at
the rates they have beside the LCP. Whatever could change them settles the skip first
(``settles_first``): settling writes the whole cycles skipped into the nodes' histories (and
the REDO peak each would have reached) and resumes the cycle in progress, mid-write if need be."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Generator
from dataclasses import replace
from typing import Any

import simpy
from simpy.events import Event, Timeout

from ndbsim.engine import clock
from ndbsim.engine.lcp.ahead import CycleAhead
from ndbsim.engine.lcp.round import HISTORY_KEPT, STEADY_TOLERANCE, CycleShape, LcpPlan, LcpSize, Skip, same
from ndbsim.engine.lcp.stall import flips_at, held_until, inputs

SHARE_MARGIN = 1e-6
"""Headroom a shared resource must keep below saturation for the LCP skip to leave the other
flows alone (float round-off guard, not a model value)."""

ONE_RATE_TOLERANCE = 1e-8
"""Relative difference between an LCP flow's whole write and its rate times its duration below
which it counts as written at that one rate: ten times the fluid's end tolerance (``EPS`` of
the amount), a float round-off guard, not a model value."""


class CycleSkip(CycleAhead):
    """The LCP loop's skip of identical cycles."""

    def _sleep_over(self, skip: Skip) -> Generator[Event, Any, bool]:
        """Skip identical cycles until the stream's rates change or something settles the skip
        (a cycle computed ahead: until its end). Returns whether the skip ran to its ``until``."""
        env = self.env
        self._skip = skip
        self._skip_inputs = inputs(list(self.recoveries.values()), env.now)
        self.fluid.on_change = self.settle
        until = next((s for s, _ in self.plan.traffic.segments if s > env.now), math.inf)
        last = skip.then[-1] if skip.then else skip
        until = min(until, last.until)
        # a start DIH would hold for a restarting node from then on (``engine.lcp.stall``)
        until = min(until, flips_at(list(self.recoveries.values()), self.lcp_secs(), env.now))
        ran_out = False
        with contextlib.suppress(simpy.Interrupt):
            yield Event(env) if math.isinf(until) else Timeout(env, until - env.now)
            ran_out = True
        self.settle(interrupt=False)
        return ran_out and until == last.until

    def _shape_of(self, plan: LcpPlan, prev: CycleShape | None) -> CycleShape:
        start = plan.start
        return CycleShape(
            who=tuple(n for n, _ in plan.flows),
            sizes=tuple(f.lcp_size for _, f in plan.flows),
            durations=tuple(end - start for end in plan.ends),
            length=self.last_end - start,
            cap_changes=tuple(x for at, caps in plan.cap_changes for x in (at, *caps)),
            start=start,
            period=start - prev.start if prev is not None else math.nan,
        )

    def _skippable(self, plan: LcpPlan) -> Skip | None:
        """After ``plan`` completed: the identical cycles to skip from here, or the next LCP
        computed ahead (``lcp_ahead``), or None (the loop simulates the next one)."""
        return self._identical(plan) or self._ahead()

    def _identical(self, plan: LcpPlan) -> Skip | None:
        prev = self._shape
        self._shape = None
        if self._waiters or plan.dropped or not plan.flows:
            return None
        shape = self._shape = self._shape_of(plan, prev)
        if prev is None or not shape.same_cycle(prev):
            return None
        if len({id(n.history[0]) for n in plan.participants}) != 1:
            return None
        if not self._alone(plan):
            return None
        if not self._in_one_stretch(shape, self.env.now, plan.participants):
            return None
        if not self._holds_alike(plan, shape):
            return None
        return Skip(
            plan=plan,
            record=plan.participants[0].history[0],
            origin=self.last_end,
            period=shape.period,
            gap=shape.period - shape.length,
            durations=shape.durations,
            length=shape.length,
        )

    def _holds_alike(self, plan: LcpPlan, shape: CycleShape) -> bool:
        """Whether DIH would hold the next start as long as it held this one's
        (``engine.lcp.stall``): the hold follows the restarting nodes' states, not the cycle, and
        a state changed since (a node reaching END_TOREQ) changes it and the cycles with it."""
        trigger = plan.start + shape.period - plan.held
        held = held_until(list(self.recoveries.values()), self.lcp_secs(), trigger, trigger) - trigger
        return same((held,), (plan.held,))

    def _alone(self, plan: LcpPlan) -> bool:
        """Whether the LCP's flows leave every other flow's rate as it is, so that the others
        run through the skipped cycles as they would beside them: true when no resource they
        share would be saturated even with the LCP writing at its cap (under max-min sharing an
        unsaturated resource limits no flow), or when the others keep their rates shared out
        with the LCP's flows (``_beside``)."""
        fluid = self.fluid
        lcp_use: dict[str, float] = {}
        for _, f in plan.flows:
            for r, d in f.demand.items():
                lcp_use[r] = lcp_use.get(r, 0.0) + d * f.cap
        others: dict[str, float] = {}
        for f in fluid.flows:
            for r, d in f.demand.items():
                if r in lcp_use:
                    others[r] = others.get(r, 0.0) + d * f.rate
        free = fluid.free
        if all(u + lcp_use[r] < free.get(r, math.inf) * (1.0 - SHARE_MARGIN) for r, u in others.items()):
            return True
        return self._beside(plan)

    def _beside(self, plan: LcpPlan) -> bool:
        """Whether the LCP writes beside a constant competing demand: shared out max-min with
        the LCP's flows at their caps, every other flow keeps its rate (a copy held by its own
        pipeline, say), so the LCP takes what the others leave of a saturated resource, the
        same in every cycle, and each of its flows ran at one rate through its write (the rate a
        skip resumed mid-write goes on at). The cycles simulated measured the length under that
        sharing. An LCP that EnableRedoControl re-capped mid-write is left to the first test: a
        squeezed flow's progress does not follow its caps."""
        if plan.cap_changes:
            return False
        mine = {f: None for _, f in plan.flows}
        for f, rate in self.fluid.rates_beside(list(mine))[0].items():
            if f in mine:
                if abs(rate * (f.end - plan.start) - 1.0) > ONE_RATE_TOLERANCE:
                    return False
            elif not same((rate,), (f.rate,)):
                return False
        return True

    def settle(self, interrupt: bool = True) -> None:
        """End a skip now: write the cycles completed since it began and resume the one in
        progress. A no-op when no skip is under way."""
        skip = self._skip
        if skip is None:
            return
        self._skip = None
        self._speeds_for = None
        self.fluid.on_change = None
        now = clock.now(self.env)
        chain = (skip, *skip.then)
        if now < chain[-1].until < math.inf:
            self._shape = None  # LCPs computed ahead cut short: the next is compared with none
        k = 0
        while k < len(chain) - 1 and now >= chain[k].until:  # the LCPs computed ahead, passed
            self._write_skipped(chain[k], 1)
            k += 1
        skip = chain[k]
        elapsed = now - skip.origin
        whole = int(elapsed // skip.period) if elapsed > 0 else 0
        self._write_skipped(skip, whole)
        offset = elapsed - whole * skip.period
        if offset >= skip.gap:  # mid-LCP: start its writes where they would be
            self._resume_mid_lcp(skip, whole, offset - skip.gap, now)
        if interrupt:
            assert self._process is not None
            self._process.interrupt("settle")

    def _resume_mid_lcp(self, skip: Skip, whole: int, into: float, now: float) -> None:
        """Start the LCP a skip ended in, ``into`` seconds after its start, each node's writes
        where they would be then."""
        writes = self.writes
        start = now - into
        tmpl = skip.plan
        since = self.last_start if whole else tmpl.start
        size, pct, changes = tmpl.sizes[tmpl.since[0]]
        plan = LcpPlan(
            start, list(tmpl.participants), [since] * len(tmpl.participants), {since: LcpSize(size, pct, changes)}
        )
        for node in tmpl.participants:
            node.redo_alert = 0
        speeds = writes.node_speeds([n for n, _ in tmpl.flows])
        with self.fluid.batch:
            for k, ((node, was), d) in enumerate(zip(tmpl.flows, skip.durations)):
                if into < d * (1.0 - STEADY_TOLERANCE):
                    if tmpl.cap_changes:  # EnableRedoControl sped the writes up part-way
                        done, cap = tmpl.progress(k, into)
                        left = max(0.0, 1.0 - done)
                    else:
                        left, cap = 1.0 - into / d, was.cap
                    plan.writing += 1
                    flow = writes.flow(node, size, speeds[k], amount=left, on_end=plan.ended)
                    flow.cap = cap  # the speed at this point of the cycle, as simulated
                    plan.flows.append((node, flow))
            plan.started(self.env)
            plan.first_caps = tuple(f.cap for _, f in plan.flows)
        longest = max(skip.durations)
        table_left = self.sz.lcp_fixed_secs if into < longest else max(0.0, skip.length - into)
        self.running = plan
        self._resume = (plan, table_left)
        self._watch_redo(plan)

    def _write_skipped(self, skip: Skip, whole: int) -> None:
        """Record ``whole`` skipped LCPs as if simulated: histories, counts and REDO peaks."""
        if whole <= 0:
            return
        kept = self.sz.features.redo_lcps_kept
        tmpl = skip.record
        # the first kept + 1 (their REDO may reach back before the skip) and the last
        # HISTORY_KEPT (what the histories keep); the ones between change nothing
        head = range(1, min(whole, kept + 1) + 1)
        tail = range(max(kept + 2, whole - HISTORY_KEPT + 1), whole + 1)
        for i in (*head, *tail):
            start = skip.origin + (i - 1) * skip.period + skip.gap
            end = skip.origin + i * skip.period
            if i <= kept + 1 or i == whole:
                self.redo.note(self.nodes, end)
            rec = replace(tmpl, start=start, end=end)
            for n in skip.plan.participants:
                n.history.insert(0, rec)
                del n.history[HISTORY_KEPT:]
        self.last_start = skip.origin + (whole - 1) * skip.period + skip.gap
        self.last_end = skip.origin + whole * skip.period
        self._count += whole
