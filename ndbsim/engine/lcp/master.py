"""The DIH master's LCP loop: the live nodes' distributed local checkpoints, one after another,
each started by the REDO written since the last one (TimeBetweenLocalCheckpoints) or by a
starting node that asks for one (reference §2, §3).

Identical cycles are simulated once and then repeated by arithmetic. When two LCPs in a row
have the same participants, sizes, durations and spacing, and no other flow's rate depends on
them (the resources they share stay unsaturated, or the others keep their rates beside them:
a copy held by its own pipeline, with the LCP taking what it leaves), the loop sleeps over the
cycles that follow. Whatever could change them settles
the skip first: a flow starting or ending, a load, cap or speed changing, a node asking for an
LCP, failing, or reading the LCP state. Settling writes the whole cycles skipped into the
nodes' histories (and the REDO peak each would have reached) and resumes the cycle in
progress, mid-write if need be. So the events of a restart follow its steps, not its length
(``lcp_skip``). While the cycle converges to a new length (after a copy step changed what the
copy leaves it), the LCPs that only an outside change can touch are computed ahead, exactly as
simulated, and slept over as one skip (``lcp_ahead``).

Before the crash the warm-up's LCPs cost no events where nothing else can touch them: every
node alike, each LCP writing alone at one rate with no change of the stream's rates under way.
The loop runs them by arithmetic (the fluid's timer and round-off, recorded as simulated) and
simulates only those a change of rates or EnableRedoControl meets, and from where it would
take a skip (``lcp_warm_up``). One LCP's participants, sizes and flows are ``lcp_round``'s; the
loop's state, its trigger and the re-capping of running writes ``lcp_state``'s.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Generator
from typing import Any

import simpy
from simpy.events import Event, Timeout

from ndbsim.engine import clock
from ndbsim.engine.lcp.checkpoint import LcpRecord
from ndbsim.engine.lcp.round import HISTORY_KEPT, LcpPlan, LcpSize
from ndbsim.engine.lcp.skip import CycleSkip
from ndbsim.engine.lcp.stall import ROUND_OFF_SECS, Recovery, hold, inputs
from ndbsim.engine.lcp.state import settles_first
from ndbsim.engine.lcp.warm_up import WarmUpByArithmetic
from ndbsim.engine.node import Node
from ndbsim.input.restart_info import Span


class LcpMaster(WarmUpByArithmetic, CycleSkip):
    """DIH's LCP coordination for one cluster; ``start`` runs it as a SimPy process. Its state and
    shared steps are ``lcp_state.LcpState``'s; the warm-up by arithmetic and the skip of identical
    cycles are its two parents'."""

    # -- what the restarts see ----------------------------------------------------------
    @property
    @settles_first
    def count(self) -> int:
        """LCPs completed so far (skipped ones included)."""
        return self._count

    def start(self) -> None:
        self._process = self.env.process(self._loop())

    @settles_first
    def request(self, node: Node | None = None) -> Event:
        """A starting node asks to take part in an LCP that starts after now; the event fires
        when such an LCP has completed. ``node``: who asks (END_TOREQ with WAIT_LCP: DIH stops
        holding LCP starts for it, ``engine.lcp.stall``)."""
        if node is not None and node.id in self.recoveries:
            self.recoveries[node.id].asked = self.env.now
        done = Event(self.env)
        self._waiters.append(done)
        if self._stalled:  # END_TOREQ's nudge: DIH decides again at once (its node is waiting now)
            assert self._process is not None
            self._process.interrupt("lcp requested")
        elif self._sleeping:  # the master is waiting for the next trigger: start one now
            self._sleeping = False
            assert self._process is not None
            self._process.interrupt("lcp requested")
        return done

    @settles_first
    def recovering(self, node: Node, crash: float, spans: list[Span]) -> None:
        """A node's restart begins (NODE_FAILED at ``crash``); ``spans``, its phases as they end,
        are its node recovery status, read by ``check_stall_lcp_start`` (``engine.lcp.stall``)."""
        if self.sz.features.lcp_start_stall:  # releases without the node recovery status hold none
            self.recoveries[node.id] = Recovery(node, crash, spans)

    def status_changed(self, phase: str = "") -> None:
        """A restarting node entered its next state after ``phase``: a held LCP start is decided
        again (DIH re-checks while it stalls); a skip ends if what the holds read has changed."""
        if self._skip is not None and self._skip_inputs != inputs(list(self.recoveries.values()), self.env.now):
            self.settle()
        if self._stalled:
            assert self._process is not None
            self._process.interrupt("recovery status")

    @settles_first
    def idle(self) -> Event:
        """Fires when no LCP is running (for versions that cannot pause an LCP)."""
        if self.running is None:
            ev = Event(self.env)
            ev.succeed()
            return ev
        if self._done is None:
            self._done = Event(self.env)
        return self._done

    @settles_first
    def drop(self, node: Node) -> None:
        """A failed node leaves the running LCP: its writes stop and the LCP completes without
        it (DIH removes failed nodes from the LCP)."""
        plan = self.running
        if plan and node.id in plan.writers:
            plan.dropped.add(node.id)  # even if its writes are done: the LCP is not complete
            flow = plan.writers[node.id]
            if flow is not None:
                self.fluid.cancel(flow)

    # -- the loop -----------------------------------------------------------------------
    def _loop(self) -> Generator[Event, Any, None]:
        env, sz = self.env, self.sz
        while True:
            if self._resume is not None:  # the LCP a skip ended in
                plan, table_left = self._resume
                self._resume = None
                yield from self._complete(plan, [], table_left)
                continue
            done = self._fast_forward()
            if done is not None:  # LCPs run by arithmetic until ``done``: on from there
                yield Timeout(env, done - clock.now(env))
            start_at = math.inf
            if not self._waiters:
                start_at = self._next_trigger()
                # sleep until the trigger (an idle cluster: until a starting node asks)
                self._sleeping = True
                with contextlib.suppress(simpy.Interrupt):
                    yield Event(env) if math.isinf(start_at) else Timeout(env, max(0.0, start_at - clock.now(env)))
                self._sleeping = False
                if not self._waiters and env.now < start_at - 1e-9:
                    continue
            yield from self._stall_start(min(start_at, env.now))
            if env.now < self.last_end + sz.gcp:
                yield env.timeout(self.last_end + sz.gcp - env.now)
            waiters, self._waiters = self._waiters, []
            plan = self._begin(env.now)
            yield from self._complete(plan, waiters, sz.lcp_fixed_secs)
            skip = self._skippable(plan)
            while skip is not None and (yield from self._sleep_over(skip)):
                skip = self._skippable((skip.then[-1] if skip.then else skip).plan)  # as if simulated

    def _stall_start(self, t0: float) -> Generator[Event, Any, None]:
        """Hold the LCP start while ``check_stall_lcp_start`` says a restarting node will soon
        need it (DbdihMain.cpp; ``engine.lcp.stall``), deciding again whenever a restarting
        node's state changes or one reaches END_TOREQ. ``t0``: when the timer said start (DIH
        counts the hold from there, ``m_start_lcp_check_time``; earlier than now when a skip
        was settled during the hold)."""
        env = self.env
        waited = 0
        while True:
            secs, node = hold(list(self.recoveries.values()), self.lcp_secs(), env.now - t0, env.now)
            if secs <= ROUND_OFF_SECS:
                break
            waited = node
            self._stalled = True
            with contextlib.suppress(simpy.Interrupt):
                yield Timeout(env, secs)
            self._stalled = False
        self.last_hold = env.now - t0
        if env.now > t0:
            self.stalls.append((t0, env.now - t0, waited))

    def _begin(self, t0: float) -> LcpPlan:
        sz, writes = self.sz, self.writes
        participants = [n for n in self.nodes if n.in_lcp and not n.down]
        # Nodes whose newest LCP started together have applied the same changes since:
        # their LCPs are the same size. Sized once per distinct start.
        plan = LcpPlan(t0, participants, [], {})
        plan.held = self.last_hold
        for n in participants:
            n.redo_alert = 0  # the last LCP released REDO: the fill says the level again
        sizes = []
        for n in participants:
            since = n.history[0].start if n.history else -math.inf
            sized = plan.sizes.get(since)
            if sized is None:
                changes = self.plan.node_changes_since(since, t0)
                size, pct = sz.policy.lcp_size(sz.data_bytes, sz.rows, changes)
                sized = plan.sizes[since] = LcpSize(size, pct, changes)
            plan.since.append(since)
            sizes.append(sized.bytes)
        plan.writing = len(participants)
        flows = writes.flows(participants, sizes, writes.node_speeds(participants), plan.ended)
        plan.flows = list(zip(participants, flows))
        plan.started(self.env)
        plan.first_caps = tuple(f.cap for _, f in plan.flows)
        self.running = plan
        self._watch_redo(plan)
        return plan

    def _complete(self, plan: LcpPlan, waiters: list[Event], table_secs: float) -> Generator[Event, Any, None]:
        if plan.flows:  # the LCP ends with its last node
            assert plan.written is not None
            yield plan.written
        plan.ends = [f.end for _, f in plan.flows]
        yield Timeout(self.env, table_secs)
        t1 = self.env.now
        self.redo.note(self.nodes, t1)  # the REDO is fullest just before an LCP completes
        records: dict[float, LcpRecord] = {}
        wrote = {n.id: f.end - plan.start for n, f in plan.flows}
        for n, since in zip(plan.participants, plan.since):
            if n.id in plan.dropped:
                continue
            rec = records.get(since)
            if rec is None:
                size, pct, ch = plan.sizes[since]
                rec = records[since] = LcpRecord(
                    plan.start, t1, pct, ch.updates + ch.inserts, ch.bytes, size, ch.inserts, wrote.get(n.id, math.nan)
                )
            n.history.insert(0, rec)
            del n.history[HISTORY_KEPT:]
        self.last_start = plan.start
        self._count += 1
        self.last_end = t1
        self.running = None
        if self._done is not None:
            done, self._done = self._done, None
            done.succeed()
        for w in waiters:  # waiters that arrived while this LCP ran wait for the next one
            w.succeed(t1)
