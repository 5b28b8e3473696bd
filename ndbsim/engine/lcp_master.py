"""The DIH master's LCP loop: the live nodes' distributed local checkpoints, one after another,
each started by the REDO written since the last one (TimeBetweenLocalCheckpoints) or by a
starting node that asks for one (reference §2, §3).

Identical cycles are simulated once and then repeated by arithmetic. When two LCPs in a row
have the same participants, sizes, durations and spacing, and no other flow uses their
resources, the loop sleeps over the cycles that follow. Whatever could change them settles
the skip first: a flow starting or ending, a load, cap or speed changing, a node asking for an
LCP, failing, or reading the LCP state. Settling writes the whole cycles skipped into the
nodes' histories (and the REDO peak each would have reached) and resumes the cycle in
progress, mid-write if need be. So the events of a restart follow its steps, not its length.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import simpy
from simpy.events import Event, Timeout

from ndbsim.engine.checkpoint import LcpRecord
from ndbsim.engine.fluid import Flow
from ndbsim.engine.workload import Changes

if TYPE_CHECKING:
    from ndbsim.engine.cluster import Cluster, Node

HISTORY_KEPT = 64
"""Completed LCPs remembered per node, newest first. A restore walks back only until every
part has a full copy and the REDO needs the newest 2–3 (reference §2.2, §4); older records
cannot matter and are dropped."""

STEADY_TOLERANCE = 1e-9
"""Relative difference below which two LCP cycles count as identical: float round-off of one
cycle's arithmetic, not a model value."""

SHARE_MARGIN = 1e-6
"""Headroom a shared resource must keep below saturation for the LCP skip to leave the other
flows alone (float round-off guard, not a model value)."""

MIN_SKIPPED_CYCLES = 3
"""A skip is taken only if at least this many cycles fit before the stream's rates change;
fewer are as cheap to simulate."""


@dataclass
class LcpPlan:
    """One distributed LCP: who takes part, since when each has changes, what each writes."""

    start: float
    participants: list[Node]
    since: list[float]
    """Per participant, the start of its newest LCP: its changes are counted from there."""
    sizes: dict[float, tuple[float, float, Changes]]
    """Per distinct ``since``: (bytes written, fraction of parts written in full, changes)."""
    flows: list[tuple[Node, Flow]] = field(default_factory=list)
    dropped: set[int] = field(default_factory=set)
    """Participants that failed during the LCP: it completes without them."""
    first_caps: tuple[float, ...] = ()
    """The flows' caps (progress per second) when the LCP started."""
    cap_changes: list[tuple[float, tuple[float, ...]]] = field(default_factory=list)
    """Each speed change EnableRedoControl made while the LCP ran: (seconds after its start,
    the flows' caps from then on). Part of the cycle's shape, and of where a resumed LCP stands."""

    def progress(self, k: int, into: float) -> tuple[float, float]:
        """(share of flow ``k`` written, its cap) ``into`` seconds after the start, when it
        progresses at its cap (a skipped cycle leaves every shared resource unsaturated)."""
        done, cap, t = 0.0, self.first_caps[k], 0.0
        for at, caps in self.cap_changes:
            if at >= into:
                break
            done += cap * (at - t)
            cap, t = caps[k], at
        return done + cap * (into - t), cap


_Shape = tuple[tuple[Any, ...], tuple[float, ...], float, float]
"""What must repeat for two LCPs to be the same cycle: (participants, each one's size and
write duration then the LCP's length, start, period from the previous start)."""


def _same(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x != y and abs(x - y) > STEADY_TOLERANCE * max(abs(x), abs(y)):
            return False
    return True


@dataclass(frozen=True)
class _Skip:
    """Identical LCPs, one every ``period``, the first starting ``gap`` after ``origin``."""

    plan: LcpPlan
    """The last simulated LCP: the template of the skipped ones."""
    record: LcpRecord
    origin: float
    period: float
    gap: float
    durations: tuple[float, ...]
    length: float


class LcpMaster:
    """DIH's LCP coordination for one cluster; ``start`` runs it as a SimPy process."""

    def __init__(self, cluster: Cluster, last_start: float, first_start: float | None):
        self.c = cluster
        self.env = cluster.env
        self.last_start = last_start
        """Start of the newest completed LCP (-inf for an idle cluster)."""
        self.first_start = first_start
        """An LCP already running at the start of the warm-up (a burst on an idle cluster)."""
        self.last_end = 0.0
        self.running: LcpPlan | None = None
        self._count = 0
        self._done: Event | None = None
        """Fires when the running LCP completes; made only when someone waits for it."""
        self._waiters: list[Event] = []
        self._sleeping = False
        self._process: simpy.Process | None = None
        self._shape: _Shape | None = None
        """The last LCP's shape, to compare with the next one's."""
        self._skip: _Skip | None = None
        self._resume: tuple[LcpPlan, float] | None = None
        """After a skip that ended mid-LCP: that LCP and the table-description time left."""

    # -- what the restarts see ----------------------------------------------------------
    @property
    def count(self) -> int:
        """LCPs completed so far (skipped ones included)."""
        self.settle()
        return self._count

    def start(self) -> None:
        self._process = self.env.process(self._loop())

    def request(self) -> Event:
        """A starting node asks to take part in an LCP that starts after now; the event fires
        when such an LCP has completed."""
        self.settle()
        done = Event(self.env)
        self._waiters.append(done)
        if self._sleeping:  # the master is waiting for the next trigger: start one now
            self._sleeping = False
            assert self._process is not None
            self._process.interrupt("lcp requested")
        return done

    def idle(self) -> Event:
        """Fires when no LCP is running (for versions that cannot pause an LCP)."""
        self.settle()
        if self.running is None:
            ev = Event(self.env)
            ev.succeed()
            return ev
        if self._done is None:
            self._done = Event(self.env)
        return self._done

    def drop(self, node: Node) -> None:
        """A failed node leaves the running LCP: its writes stop and the LCP completes without
        it (DIH removes failed nodes from the LCP)."""
        self.settle()
        plan = self.running
        if plan and node in plan.participants:
            plan.dropped.add(node.id)  # even if its writes are done: the LCP is not complete
            for n, flow in plan.flows:
                if n is node:
                    self.c.fluid.cancel(flow)

    def refresh_speeds(self) -> None:
        """Re-cap the running LCP's writes after a node's restart state changed."""
        self.settle()
        plan = self.running
        if plan:
            c = self.c
            with c.fluid.batch:
                for node, flow in plan.flows:
                    c.fluid.set_cap(flow, c.lcp_flow_cap(flow, c.write_speed(node)))

    # -- the loop -----------------------------------------------------------------------
    def _loop(self) -> Generator[Event, Any, None]:
        env, c = self.env, self.c
        while True:
            if self._resume is not None:  # the LCP a skip ended in
                plan, table_left = self._resume
                self._resume = None
                yield from self._complete(plan, [], table_left)
                continue
            if not self._waiters:
                start_at = c.traffic.time_to_write(max(self.last_start, 0.0), c.lcp_trigger_bytes, math.inf)
                start_at = max(start_at, self.last_end + c.gcp)
                if self.first_start is not None:
                    start_at, self.first_start = self.first_start, None
                # sleep until the trigger (an idle cluster: until a starting node asks)
                self._sleeping = True
                try:
                    yield Event(env) if math.isinf(start_at) else Timeout(env, max(0.0, start_at - env._now))
                except simpy.Interrupt:
                    pass
                self._sleeping = False
                if not self._waiters and env.now < start_at - 1e-9:
                    continue
            if env.now < self.last_end + c.gcp:
                yield env.timeout(self.last_end + c.gcp - env.now)
            waiters, self._waiters = self._waiters, []
            plan = self._begin(env.now)
            yield from self._complete(plan, waiters, c.table_description_secs)
            skip = self._skippable(plan)
            if skip is not None:
                self._skip = skip
                c.fluid.on_change = self.settle
                until = next((s for s, _ in c.traffic.segments if s > env.now), math.inf)
                try:
                    yield Event(env) if math.isinf(until) else Timeout(env, until - env.now)
                except simpy.Interrupt:
                    pass
                self.settle(interrupt=False)

    def _begin(self, t0: float) -> LcpPlan:
        c = self.c
        participants = [n for n in c.nodes if n.in_lcp and not n.down]
        # Nodes whose newest LCP started together have applied the same changes since:
        # their LCPs are the same size. Sized once per distinct start.
        plan = LcpPlan(t0, participants, [], {})
        for n in participants:
            n.redo_alert = 0  # the last LCP released REDO: the fill says the level again
        with c.fluid.batch:
            for n in participants:
                since = n.history[0].start if n.history else -math.inf
                sized = plan.sizes.get(since)
                if sized is None:
                    changes = c.node_changes_since(n, since, t0)
                    size, pct = c.policy.lcp_size(c.data_bytes, c.rows, changes)
                    sized = plan.sizes[since] = (size, pct, changes)
                plan.since.append(since)
                plan.flows.append((n, c.lcp_flow(n, sized[0], c.write_speed(n))))
        plan.first_caps = tuple(f.cap for _, f in plan.flows)
        self.running = plan
        self._watch_redo(plan)
        return plan

    def _watch_redo(self, plan: LcpPlan) -> None:
        """EnableRedoControl re-reads the REDO fill while an LCP runs (Backup.cpp recomputes its
        write speed every period, reference §2.4): wake when a participant's REDO next crosses
        an alert level, or the stream's rate changes, and re-cap the LCP's writes then."""
        if not self.c.redo_control:
            return
        at, reach = self.c.next_redo_alert([n for n, _ in plan.flows])
        if not math.isinf(at):
            self.c.fluid.alarm(at, lambda: self._redo_alert(plan, reach), [f for _, f in plan.flows])

    def _redo_alert(self, plan: LcpPlan, reach: list[tuple[Node, int]]) -> None:
        if self.running is not plan:
            return  # that LCP has completed
        for node, level in reach:  # the REDO is at the level now, whatever the round-off says
            node.redo_alert = max(node.redo_alert, level)
        before = tuple(f.cap for _, f in plan.flows)
        self.refresh_speeds()
        after = tuple(f.cap for _, f in plan.flows)
        if after != before:
            plan.cap_changes.append((self.env._now - plan.start, after))
        self._watch_redo(plan)

    def _complete(self, plan: LcpPlan, waiters: list[Event], table_secs: float) -> Generator[Event, Any, None]:
        for _, flow in plan.flows:  # the LCP ends with its last node
            yield flow.done
        yield Timeout(self.env, table_secs)
        self.c.note_redo()  # the REDO is fullest just before an LCP completes
        t1 = self.env.now
        records: dict[float, LcpRecord] = {}
        for n, since in zip(plan.participants, plan.since):
            if n.id in plan.dropped:
                continue
            rec = records.get(since)
            if rec is None:
                size, pct, ch = plan.sizes[since]
                rec = records[since] = LcpRecord(plan.start, t1, pct, ch.updates + ch.inserts, ch.bytes, size)
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

    # -- skipping identical cycles --------------------------------------------------------
    def _skippable(self, plan: LcpPlan) -> _Skip | None:
        prev = self._shape
        self._shape = None
        if self._waiters or plan.dropped or not plan.flows:
            return None
        start = plan.start
        who = tuple(n for n, _ in plan.flows)
        n = len(plan.flows)
        values = (
            *(f.lcp_size for _, f in plan.flows),
            *(f.done._value - start for _, f in plan.flows),
            self.last_end - start,
        )
        if plan.cap_changes:
            values += tuple(x for at, caps in plan.cap_changes for x in (at, *caps))
        period = start - prev[2] if prev is not None else math.nan
        self._shape = (who, values, start, period)
        if prev is None or prev[0] != who or math.isnan(prev[3]):
            return None
        if not (_same(values, prev[1]) and _same((period,), (prev[3],))):
            return None
        length = values[2 * n]
        durations = values[n : 2 * n]
        newest = {id(n.history[0]) for n in plan.participants}
        if len(newest) != 1:
            return None
        if not self._alone(plan):
            return None
        # The cycles compared, and the REDO windows that set the next ones' write speed
        # (EnableRedoControl), must lie in one stretch of the stream and of every node's log.
        back = start - (self.c.mech.redo_lcps_kept + 1) * period
        if any(back < s <= self.env.now for s, _ in self.c.traffic.segments):
            return None
        if any(n.redo_floor > back for n in plan.participants):
            return None
        gap = period - length
        until = next((s for s, _ in self.c.traffic.segments if s > self.env.now), math.inf)
        if gap < 0 or until - self.env.now < MIN_SKIPPED_CYCLES * period:
            return None
        return _Skip(
            plan=plan,
            record=plan.participants[0].history[0],
            origin=self.last_end,
            period=period,
            gap=gap,
            durations=durations,
            length=length,
        )

    def _alone(self, plan: LcpPlan) -> bool:
        """Whether taking the LCP's flows out leaves every other flow's rate as it is: true
        when no resource they share would be saturated even with the LCP writing at its cap
        (under max-min sharing an unsaturated resource limits no flow)."""
        fluid = self.c.fluid
        lcp_use: dict[str, float] = {}
        for _, f in plan.flows:
            for r, d in f.demand.items():
                lcp_use[r] = lcp_use.get(r, 0.0) + d * f.cap
        others: dict[str, float] = {}
        for f in fluid.flows:
            for r, d in f.demand.items():
                if r in lcp_use:
                    others[r] = others.get(r, 0.0) + d * f.rate
        return all(u + lcp_use[r] < fluid.free.get(r, math.inf) * (1.0 - SHARE_MARGIN) for r, u in others.items())

    def settle(self, interrupt: bool = True) -> None:
        """End a skip now: write the cycles completed since it began and resume the one in
        progress. A no-op when no skip is under way."""
        skip = self._skip
        if skip is None:
            return
        self._skip = None
        c = self.c
        c.fluid.on_change = None
        now = self.env._now
        elapsed = now - skip.origin
        whole = int(elapsed // skip.period) if elapsed > 0 else 0
        self._write_skipped(skip, whole)
        offset = elapsed - whole * skip.period
        if offset >= skip.gap:  # mid-LCP: start its writes where they would be
            into = offset - skip.gap
            start = now - into
            tmpl = skip.plan
            since = self.last_start if whole else tmpl.start
            size, pct, changes = tmpl.sizes[tmpl.since[0]]
            plan = LcpPlan(
                start, list(tmpl.participants), [since] * len(tmpl.participants), {since: (size, pct, changes)}
            )
            for node in tmpl.participants:
                node.redo_alert = 0
            with c.fluid.batch:
                for k, ((node, was), d) in enumerate(zip(tmpl.flows, skip.durations)):
                    if into < d * (1.0 - STEADY_TOLERANCE):
                        if tmpl.cap_changes:  # EnableRedoControl sped the writes up part-way
                            done, cap = tmpl.progress(k, into)
                            left = max(0.0, 1.0 - done)
                        else:
                            left, cap = 1.0 - into / d, was.cap
                        flow = c.lcp_flow(node, size, c.write_speed(node), amount=left)
                        flow.cap = cap  # the speed at this point of the cycle, as simulated
                        plan.flows.append((node, flow))
                plan.first_caps = tuple(f.cap for _, f in plan.flows)
            writes = max(skip.durations)
            table_left = c.table_description_secs if into < writes else max(0.0, skip.length - into)
            self.running = plan
            self._resume = (plan, table_left)
            self._watch_redo(plan)
        if interrupt:
            assert self._process is not None
            self._process.interrupt("settle")

    def _write_skipped(self, skip: _Skip, whole: int) -> None:
        """Record ``whole`` skipped LCPs as if simulated: histories, counts and REDO peaks."""
        if whole <= 0:
            return
        c = self.c
        kept = c.mech.redo_lcps_kept
        tmpl = skip.record
        # the first kept + 1 (their REDO may reach back before the skip) and the last
        # HISTORY_KEPT (what the histories keep); the ones between change nothing
        head = range(1, min(whole, kept + 1) + 1)
        tail = range(max(kept + 2, whole - HISTORY_KEPT + 1), whole + 1)
        for i in (*head, *tail):
            start = skip.origin + (i - 1) * skip.period + skip.gap
            end = skip.origin + i * skip.period
            if i <= kept + 1 or i == whole:
                c.note_redo(end)
            rec = LcpRecord(start, end, tmpl.pct, tmpl.changed_rows, tmpl.changed_bytes, tmpl.bytes)
            for n in skip.plan.participants:
                n.history.insert(0, rec)
                del n.history[HISTORY_KEPT:]
        self.last_start = skip.origin + (whole - 1) * skip.period + skip.gap
        self.last_end = skip.origin + whole * skip.period
        self._count += whole
