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

Before the crash the warm-up's LCPs cost no events where nothing else can touch them: every
node alike, each LCP writing alone at one rate with no change of the stream's rates under way.
The loop runs them by arithmetic (the fluid's timer and round-off, recorded as simulated) and
simulates only those a change of rates or EnableRedoControl meets, and from where it would
take a skip.
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any, Concatenate, NamedTuple, ParamSpec, Protocol, TypeVar

import simpy
from simpy.events import Event, Timeout

from ndbsim.engine import clock
from ndbsim.engine.checkpoint import LcpRecord
from ndbsim.engine.fluid import EPS, UNBOUNDED_RATE, Flow, FluidSystem
from ndbsim.engine.lcp_writes import LcpWrites
from ndbsim.engine.node import Node
from ndbsim.engine.plan import Plan
from ndbsim.engine.redo import RedoLog
from ndbsim.engine.sizing import Sizing
from ndbsim.engine.workload import Changes, Rates

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


class LcpSize(NamedTuple):
    """What one node's LCP writes."""

    bytes: float
    pct: float
    """Fraction of parts written in full."""
    changes: Changes
    """The changes since the node's newest LCP started."""


@dataclass
class LcpPlan:
    """One distributed LCP: who takes part, since when each has changes, what each writes."""

    start: float
    participants: list[Node]
    since: list[float]
    """Per participant, the start of its newest LCP: its changes are counted from there."""
    sizes: dict[float, LcpSize]
    """Per distinct ``since``: what the LCP of a node with changes since then writes."""
    flows: list[tuple[Node, Flow]] = field(default_factory=list)
    dropped: set[int] = field(default_factory=set)
    """Participants that failed during the LCP: it completes without them."""
    first_caps: tuple[float, ...] = ()
    """The flows' caps (progress per second) when the LCP started."""
    cap_changes: list[tuple[float, tuple[float, ...]]] = field(default_factory=list)
    """Each speed change EnableRedoControl made while the LCP ran: (seconds after its start,
    the flows' caps from then on). Part of the cycle's shape, and of where a resumed LCP stands."""
    ends: list[float] = field(default_factory=list)
    """When each flow's writes ended (filled when the LCP completes)."""
    writing: int = 0
    """Flows started and not ended: each flow's ``on_end`` is ``ended``, so the flows end
    without an event each and the LCP with one, ``written``."""
    written: Event | None = None
    """Fires when the last flow has ended (made once every flow has started)."""

    @functools.cached_property
    def writers(self) -> dict[int, Flow | None]:
        """Per participant's node id, its flow (None if it writes nothing, its part done)."""
        out: dict[int, Flow | None] = {n.id: None for n in self.participants}
        for n, f in self.flows:
            if out.get(n.id) is None:
                out[n.id] = f
        return out

    def ended(self) -> None:
        self.writing -= 1
        if not self.writing and self.written is not None:
            self.written.succeed()

    def started(self, env: simpy.Environment) -> None:
        """Every flow has started: ``written`` fires when the last has ended (now, if all have)."""
        self.written = Event(env)
        if self.flows and not self.writing:
            self.written.succeed()

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


@dataclass(slots=True)
class _Shape:
    """What must repeat for two LCPs to be the same cycle."""

    who: tuple[Node, ...]
    """The participants whose writes ran to the end."""
    sizes: tuple[float, ...]
    """Bytes each one wrote."""
    durations: tuple[float, ...]
    """Seconds each one's writes took."""
    length: float
    """Seconds from the LCP's start to its completion."""
    cap_changes: tuple[float, ...]
    """EnableRedoControl's speed changes, each as (seconds after the start, *the caps)."""
    start: float
    period: float
    """Seconds since the previous LCP's start (nan for the first one seen)."""

    def same_cycle(self, prev: _Shape) -> bool:
        """Whether this LCP repeats ``prev``: same participants, sizes, durations, length,
        speed changes and spacing, to ``STEADY_TOLERANCE``."""
        if prev.who != self.who or math.isnan(prev.period):
            return False
        return (
            _same(self.sizes, prev.sizes)
            and _same(self.durations, prev.durations)
            and _same((self.length,), (prev.length,))
            and _same(self.cap_changes, prev.cap_changes)
            and _same((self.period,), (prev.period,))
        )


def _same(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    if len(a) != len(b):
        return False
    return all(not (x != y and abs(x - y) > STEADY_TOLERANCE * max(abs(x), abs(y))) for x, y in zip(a, b))


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


class _Settles(Protocol):
    def settle(self, interrupt: bool = True) -> None: ...


S = TypeVar("S", bound=_Settles)
P = ParamSpec("P")
R = TypeVar("R")


def settles_first(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
    """The one rule of the skip: whatever reads or changes the cluster's LCP state from outside
    the DIH loop first settles a skip under way (writes the cycles skipped so far and resumes
    the one in progress), so that it sees, and changes, the cluster as if every cycle had been
    simulated. Every such entry point carries this decorator."""

    @functools.wraps(method)
    def settled(self: S, *args: P.args, **kwargs: P.kwargs) -> R:
        self.settle()
        return method(self, *args, **kwargs)

    return settled


class LcpMaster:
    """DIH's LCP coordination for one cluster; ``start`` runs it as a SimPy process."""

    def __init__(
        self,
        env: simpy.Environment,
        fluid: FluidSystem,
        nodes: list[Node],
        sz: Sizing,
        plan: Plan,
        redo: RedoLog,
        writes: LcpWrites,
    ):
        self.env, self.fluid, self.nodes = env, fluid, nodes
        self.sz, self.plan, self.redo, self.writes = sz, plan, redo, writes
        self.last_start = plan.last_lcp_start
        """Start of the newest completed LCP (-inf for an idle cluster)."""
        self.first_start = plan.first_lcp_start
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
        self._speeds_for: tuple[LcpPlan, float, bool] | None = None
        """The running LCP, the time and whether a node was restarting when its caps were last
        set by ``refresh_speeds``; None once a skip's settling rewrote the nodes' histories."""

    # -- what the restarts see ----------------------------------------------------------
    @property
    @settles_first
    def count(self) -> int:
        """LCPs completed so far (skipped ones included)."""
        return self._count

    def start(self) -> None:
        self._process = self.env.process(self._loop())

    @settles_first
    def request(self) -> Event:
        """A starting node asks to take part in an LCP that starts after now; the event fires
        when such an LCP has completed."""
        done = Event(self.env)
        self._waiters.append(done)
        if self._sleeping:  # the master is waiting for the next trigger: start one now
            self._sleeping = False
            assert self._process is not None
            self._process.interrupt("lcp requested")
        return done

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

    @settles_first
    def refresh_speeds(self, changed: bool = False) -> None:
        """Re-cap the running LCP's writes after a node's restart state changed. ``changed``:
        a writing node's own state changed (its restart ended, its REDO alert rose). Without
        it, a refresh at the instant of the last one, with as many nodes restarting, is one
        only a node going down asked for: that node's writes have stopped (``drop``), and every
        other input of the speeds is as it was, so the caps are."""
        plan = self.running
        if plan:
            writes, fluid = self.writes, self.fluid
            now = clock.now(self.env)
            restarting = writes.any_restarting()
            last = self._speeds_for
            if not changed and last is not None and last[0] is plan and last[1] == now and last[2] == restarting:
                return
            speeds = writes.node_speeds([n for n, _ in plan.flows], restarting)
            with fluid.batch:
                for (_, flow), speed in zip(plan.flows, speeds):
                    cap = writes.cap(flow, speed)
                    if cap != flow.cap:  # settled first: the change is all set_cap would do
                        fluid.set_cap(flow, cap)
            self._speeds_for = (plan, now, restarting)

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
            if not self._waiters:
                start_at = self._next_trigger()
                # sleep until the trigger (an idle cluster: until a starting node asks)
                self._sleeping = True
                with contextlib.suppress(simpy.Interrupt):
                    yield Event(env) if math.isinf(start_at) else Timeout(env, max(0.0, start_at - clock.now(env)))
                self._sleeping = False
                if not self._waiters and env.now < start_at - 1e-9:
                    continue
            if env.now < self.last_end + sz.gcp:
                yield env.timeout(self.last_end + sz.gcp - env.now)
            waiters, self._waiters = self._waiters, []
            plan = self._begin(env.now)
            yield from self._complete(plan, waiters, sz.lcp_fixed_secs)
            skip = self._skippable(plan)
            if skip is not None:
                yield from self._sleep_over(skip)

    def _next_trigger(self) -> float:
        """When the next LCP starts with no one asking: once the stream has written
        TimeBetweenLocalCheckpoints' REDO since the last one began, and a GCP after it ended."""
        sz = self.sz
        start_at = self.plan.traffic.time_to_write(max(self.last_start, 0.0), sz.lcp_trigger_bytes, math.inf)
        start_at = max(start_at, self.last_end + sz.gcp)
        if self.first_start is not None:
            start_at, self.first_start = self.first_start, None
        return start_at

    def _sleep_over(self, skip: _Skip) -> Generator[Event, Any, None]:
        """Skip identical cycles until the stream's rates change or something settles the skip."""
        env = self.env
        self._skip = skip
        self.fluid.on_change = self.settle
        until = next((s for s, _ in self.plan.traffic.segments if s > env.now), math.inf)
        with contextlib.suppress(simpy.Interrupt):
            yield Event(env) if math.isinf(until) else Timeout(env, until - env.now)
        self.settle(interrupt=False)

    def _begin(self, t0: float) -> LcpPlan:
        sz, writes = self.sz, self.writes
        participants = [n for n in self.nodes if n.in_lcp and not n.down]
        # Nodes whose newest LCP started together have applied the same changes since:
        # their LCPs are the same size. Sized once per distinct start.
        plan = LcpPlan(t0, participants, [], {})
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

    def _watch_redo(self, plan: LcpPlan) -> None:
        """EnableRedoControl re-reads the REDO fill while an LCP runs (Backup.cpp recomputes its
        write speed every period, reference §2.4): wake when a participant's REDO next crosses
        an alert level, or the stream's rate changes, and re-cap the LCP's writes then."""
        if not self.sz.features.redo_control:
            return
        at, reach = self.redo.next_alert([n for n, _ in plan.flows], clock.now(self.env))
        if not math.isinf(at):
            self.fluid.alarm(at, lambda: self._redo_alert(plan, reach), [f for _, f in plan.flows])

    def _redo_alert(self, plan: LcpPlan, reach: list[tuple[Node, int]]) -> None:
        if self.running is not plan:
            return  # that LCP has completed
        for node, level in reach:  # the REDO is at the level now, whatever the round-off says
            node.redo_alert = max(node.redo_alert, level)
        before = tuple(f.cap for _, f in plan.flows)
        self.refresh_speeds(changed=True)
        after = tuple(f.cap for _, f in plan.flows)
        if after != before:
            plan.cap_changes.append((clock.now(self.env) - plan.start, after))
        self._watch_redo(plan)

    def _complete(self, plan: LcpPlan, waiters: list[Event], table_secs: float) -> Generator[Event, Any, None]:
        if plan.flows:  # the LCP ends with its last node
            assert plan.written is not None
            yield plan.written
        plan.ends = [f.end for _, f in plan.flows]
        yield Timeout(self.env, table_secs)
        t1 = self.env.now
        self.redo.note(self.nodes, t1)  # the REDO is fullest just before an LCP completes
        records: dict[float, LcpRecord] = {}
        for n, since in zip(plan.participants, plan.since):
            if n.id in plan.dropped:
                continue
            rec = records.get(since)
            if rec is None:
                size, pct, ch = plan.sizes[since]
                rec = records[since] = LcpRecord(
                    plan.start, t1, pct, ch.updates + ch.inserts, ch.bytes, size, ch.inserts
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

    # -- the warm-up by arithmetic ----------------------------------------------------------
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
        shape = _Shape(
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
        rec = LcpRecord(t0, t1, pct, changes.updates + changes.inserts, changes.bytes, size, changes.inserts)
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

    # -- skipping identical cycles --------------------------------------------------------
    def _shape_of(self, plan: LcpPlan, prev: _Shape | None) -> _Shape:
        start = plan.start
        return _Shape(
            who=tuple(n for n, _ in plan.flows),
            sizes=tuple(f.lcp_size for _, f in plan.flows),
            durations=tuple(end - start for end in plan.ends),
            length=self.last_end - start,
            cap_changes=tuple(x for at, caps in plan.cap_changes for x in (at, *caps)),
            start=start,
            period=start - prev.start if prev is not None else math.nan,
        )

    def _skippable(self, plan: LcpPlan) -> _Skip | None:
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
        return _Skip(
            plan=plan,
            record=plan.participants[0].history[0],
            origin=self.last_end,
            period=shape.period,
            gap=shape.period - shape.length,
            durations=shape.durations,
            length=shape.length,
        )

    def _in_one_stretch(self, shape: _Shape, now: float, participants: list[Node]) -> bool:
        """Whether the cycles compared, and the REDO windows that set the next ones' write
        speed (EnableRedoControl), lie in one stretch of the stream and of every node's log,
        and at least ``MIN_SKIPPED_CYCLES`` more fit before the stream changes."""
        start, period = shape.start, shape.period
        segments = self.plan.traffic.segments
        back = start - (self.sz.features.redo_lcps_kept + 1) * period
        if any(back < s <= now for s, _ in segments):
            return False
        if any(n.redo_floor > back for n in participants):
            return False
        until = next((s for s, _ in segments if s > now), math.inf)
        return not (period - shape.length < 0 or until - now < MIN_SKIPPED_CYCLES * period)

    def _alone(self, plan: LcpPlan) -> bool:
        """Whether taking the LCP's flows out leaves every other flow's rate as it is: true
        when no resource they share would be saturated even with the LCP writing at its cap
        (under max-min sharing an unsaturated resource limits no flow)."""
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
        return all(u + lcp_use[r] < fluid.free.get(r, math.inf) * (1.0 - SHARE_MARGIN) for r, u in others.items())

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
        elapsed = now - skip.origin
        whole = int(elapsed // skip.period) if elapsed > 0 else 0
        self._write_skipped(skip, whole)
        offset = elapsed - whole * skip.period
        if offset >= skip.gap:  # mid-LCP: start its writes where they would be
            self._resume_mid_lcp(skip, whole, offset - skip.gap, now)
        if interrupt:
            assert self._process is not None
            self._process.interrupt("settle")

    def _resume_mid_lcp(self, skip: _Skip, whole: int, into: float, now: float) -> None:
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

    def _write_skipped(self, skip: _Skip, whole: int) -> None:
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
            rec = LcpRecord(start, end, tmpl.pct, tmpl.changed_rows, tmpl.changed_bytes, tmpl.bytes, tmpl.inserted_rows)
            for n in skip.plan.participants:
                n.history.insert(0, rec)
                del n.history[HISTORY_KEPT:]
        self.last_start = skip.origin + (whole - 1) * skip.period + skip.gap
        self.last_end = skip.origin + whole * skip.period
        self._count += whole
