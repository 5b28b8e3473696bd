"""Shared bandwidth as a fluid: flows share resources max-min fairly.

A ``FluidSystem`` holds resources (cores, a disk, a network link) with capacities, fixed
loads (the live transaction stream), and elastic flows (restore, REDO apply, LCP writes, copy).
Each flow needs ``demand[r]`` units of resource ``r`` per unit of progress and may be capped.
Rates are recomputed only when a flow starts, ends or changes its cap, or a fixed load
changes, so the number of simulated events depends on the number of flows and load changes,
never on bytes or rows. An ``alarm`` calls back at a set time while given flows still run (the
LCP's EnableRedoControl reads the REDO fill so); it shares the flows' one timer.

A change costs what it touches. Flows interact only through the resources they share, so a
change reallocates only the group of flows linked to the resources it changed (found by walking
resource -> flows -> resources); every other flow keeps its rate. Progress is kept lazily: a
flow's ``remaining`` holds at ``since`` and is brought forward only when its rate changes or it
may be finishing. A heap of finish times gives the next timer, and the flows that may be within
their tolerance of the end, without looking at the others.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence

import simpy
from simpy.events import Event, Timeout

from ndbsim.engine.fluid.bound import binding, spend
from ndbsim.engine.fluid.flow import EPS, START_ORDER, Alarm, Batch, Flow, end_flow
from ndbsim.engine.fluid.max_min import fill_group, linked_group, own_bottleneck, rates_beside

HEAP_SLACK = 4
"""The heap of finish times is rebuilt from the live flows once it holds this many entries per
flow (entries of rates since changed are dropped lazily; a memory bound, not a model value)."""

CANDIDATE_MARGIN = 1e-12
"""Relative margin on the finish times that pick the flows tested for finishing: the round-off
of ``since + remaining / rate`` (float round-off, not a model value; the exact test decides)."""


class FluidSystem:
    """All resources of one simulated cluster, allocated together."""

    def __init__(self, env: simpy.Environment):
        self.env = env
        self.capacity: dict[str, float] = {}
        self.fixed: dict[str, float] = {}
        self.free: dict[str, float] = {}
        """capacity − fixed, floored at 0: what the elastic flows share."""
        self.flows: dict[Flow, None] = {}
        """The running flows in start order (a dict: ordered, and removal costs nothing)."""
        self._users: dict[str, dict[Flow, None]] = {}
        """Per resource, the running flows that use it."""
        self._dirty: dict[str, None] = {}
        """Resources whose flows must be shared out again at the next reallocation."""
        self._lone: list[Flow] = []
        """Started or re-capped flows that use no resource (only their cap limits them)."""
        self._finish: list[tuple[float, int, int, Flow]] = []
        """Heap of (finish time, seq, token, flow) for the timer."""
        self._slack = 0.0
        """The most seconds before its finish time that a flow in the heap counts as finished
        (its tolerance at its rate): flows finishing this close to now are the candidates."""
        self._seq = 0
        self._tokens = 0
        self._held = 0
        self._deferred = False
        self._timer: Timeout | None = None
        self._pending = math.nan
        self._alarms: list[Alarm] = []
        self.on_change: Callable[[], None] | None = None
        """Called before any change to the flows or loads (the LCP loop's skip settles on it)."""
        self.batch = Batch(self)
        """``with fluid.batch:`` — the changes made inside share one reallocation at the end."""

    def add_resource(self, name: str, capacity: float) -> None:
        self.capacity[name] = capacity
        self.fixed.setdefault(name, 0.0)
        self._set_free(name)
        self._dirty[name] = None

    def set_fixed_loads(self, loads: dict[str, float]) -> None:
        """Inelastic use of resources (e.g. applying the live update stream)."""
        if self.on_change is not None:
            self.on_change()
        fixed = self.fixed
        changed = False
        for r, x in loads.items():
            if fixed.get(r, 0.0) != x:
                fixed[r] = x
                self._set_free(r)
                self._dirty[r] = None
                changed = True
        if changed:
            self.flush()

    def spare(self, name: str) -> float:
        return self.capacity[name] - self.fixed.get(name, 0.0)

    def transfer(
        self,
        amount: float,
        demand: dict[str, float],
        cap: float = math.inf,
        name: str = "",
        on_end: Callable[[], None] | None = None,
    ) -> Flow:
        """Start a flow; ``yield flow.done`` waits for it, or ``on_end`` is called when it ends
        (at once for a flow with nothing to do, whose ``end`` is then 0.0)."""
        if self.on_change is not None:
            self.on_change()
        flow = self._add(amount, demand, cap, name, on_end)
        if flow.remaining > EPS:
            self.flush()
        return flow

    def transfer_each(
        self,
        amount: float,
        demands: Sequence[dict[str, float]],
        caps: Sequence[float],
        names: Sequence[str],
        on_end: Callable[[], None],
    ) -> list[Flow]:
        """``transfer`` one flow of ``amount`` per demand, cap and name, in that order, all
        ending through ``on_end``; one reallocation for all."""
        if self.on_change is not None:
            self.on_change()
        add = self._add
        out = [add(amount, demand, cap, name, on_end) for demand, cap, name in zip(demands, caps, names)]
        self.flush()
        return out

    def _add(
        self, amount: float, demand: dict[str, float], cap: float, name: str, on_end: Callable[[], None] | None
    ) -> Flow:
        """A new flow, registered with the resources it uses (their shares wait for ``flush``);
        one with nothing to do ends at once."""
        self._seq += 1
        flow = Flow(self.env, amount if amount > 0.0 else 0.0, demand, cap, name, self._seq, on_end)
        if flow.remaining <= EPS:
            end_flow(flow, 0.0)
            return flow
        self.flows[flow] = None
        users, dirty = self._users, self._dirty
        for r in flow.keys:
            mine = users.get(r)
            if mine is None:
                users[r] = {flow: None}
            else:
                mine[flow] = None
            dirty[r] = None
        if not flow.keys:
            self._lone.append(flow)
        return flow

    def cancel(self, flow: Flow) -> None:
        """Stop a flow now (its ``done`` fires) and give its share to the others."""
        if self.on_change is not None:
            self.on_change()
        if flow in self.flows:
            spend(flow, self.env._now)
            self._remove(flow)
            end_flow(flow, self.env._now)
            self.flush()

    def set_cap(self, flow: Flow, cap: float) -> None:
        if self.on_change is not None:
            self.on_change()
        if cap != flow.cap and flow in self.flows:
            flow.cap = cap
            for r in flow.keys:
                self._dirty[r] = None
            if not flow.keys:
                self._lone.append(flow)
            self.flush()

    def track(self, flow: Flow) -> None:
        """Follow ``flow``: from now on, the seconds it runs bound by each constraint are added
        up in ``flow.spent`` (the why of a restart's phase; no event, no rate changes)."""
        if flow.spent is None:
            flow.spent = {}
            if flow in self.flows:
                flow.bound = binding(flow, self._users, self.capacity, self.fixed)

    def next_end(self) -> float:
        """When the first running flow ends at the rate it has (inf if none runs)."""
        return min((f.since + f.remaining / f.rate for f in self.flows if f.rate > 0.0), default=math.inf)

    def rates_beside(self, extra: list[Flow]) -> tuple[dict[Flow, float], bool]:
        """The rates ``extra`` (flows not running) and the running flows they would share a
        resource with would have, were ``extra`` to start now, and whether two of ``extra``
        would share a group of linked flows (``max_min.rates_beside``); nothing changes."""
        return rates_beside(extra, self._users, self.capacity, self.free)

    def alarm(self, at: float, fn: Callable[[], None], flows: Sequence[Flow]) -> None:
        """Call ``fn`` at time ``at`` if one of ``flows`` is still running then. The alarm shares
        the flows' timer, so an alarm whose flows all finish first costs no event."""
        self._alarms.append(Alarm(at, fn, tuple(flows)))
        self._arm()

    def flush(self) -> None:
        """Finish what is done and share the resources the changes since the last reallocation
        touched again."""
        if self._held:
            self._deferred = True
            return
        now = self.env._now
        heap = self._finish
        if heap and heap[0][0] <= now + self._slack + CANDIDATE_MARGIN * max(1.0, abs(now)):
            done = self._pop_due(now, 0.0)
            if done:
                self._reap(done, now)
        if not self.flows:
            self._alarms.clear()
            self._dirty.clear()
            self._lone.clear()
            heap.clear()
            self._slack = 0.0
            self._timer, self._pending = None, math.nan
            return
        if self._dirty or self._lone:
            self._reallocate(now)
        self._arm()

    def _arm(self) -> None:
        """One timer for the next flow to finish or alarm to ring; a pending timer for that
        instant is kept."""
        flows = self.flows
        heap = self._finish
        while heap and (heap[0][2] != heap[0][3].token or heap[0][3] not in flows):
            heapq.heappop(heap)
        at = heap[0][0] if heap else math.inf
        alarms = self._alarms
        if alarms:
            for a in alarms:
                if not a.watching(flows):  # drop those whose flows have all ended
                    alarms = self._alarms = [a for a in alarms if a.watching(flows)]
                    break
            for a in alarms:
                if a.at < at:
                    at = a.at
        if at == math.inf:
            self._timer, self._pending = None, math.nan
            return
        if self._pending != at:
            self._pending = at
            now = self.env._now
            timer = self._timer = Timeout(self.env, at - now if at > now else 0.0)
            timer.callbacks.append(self._wake)

    # -- internals ------------------------------------------------------------------
    def _set_free(self, name: str) -> None:
        if name in self.capacity:
            x = self.capacity[name] - self.fixed.get(name, 0.0)
            self.free[name] = x if x > 0.0 else 0.0

    def _remove(self, flow: Flow) -> None:
        del self.flows[flow]
        flow.rate = 0.0
        flow.token = -1
        users = self._users
        dirty = self._dirty
        for r in flow.keys:
            mine = users[r]
            del mine[flow]
            if mine:  # a resource left with no flow has nothing to share out
                dirty[r] = None

    def _pop_due(self, now: float, resolution: float) -> list[Flow]:
        """The flows left with no more than their tolerance (plus ``resolution`` seconds at
        their rate) at ``now``; their remaining work is set to 0."""
        heap = self._finish
        flows = self.flows
        limit = now + resolution + self._slack
        limit += CANDIDATE_MARGIN * max(1.0, abs(limit))
        done: list[Flow] = []
        keep: list[tuple[float, int, int, Flow]] = []
        while heap and heap[0][0] <= limit:
            entry = heapq.heappop(heap)
            f = entry[3]
            if entry[2] != f.token or f not in flows:
                continue
            left = f.remaining - f.rate * (now - f.since) if now > f.since else f.remaining
            if left <= f.rate * resolution + f.tolerance:
                if f.spent is not None:
                    spend(f, now)
                f.remaining, f.since = 0.0, now
                done.append(f)
            else:
                keep.append(entry)
        for entry in keep:
            heapq.heappush(heap, entry)
        return done

    def _reap(self, done: list[Flow], now: float) -> None:
        """Finish ``done``, in start order."""
        if len(done) > 1:
            done.sort(key=START_ORDER)
        for f in done:
            self._remove(f)
        for f in done:
            end_flow(f, now)

    def _reallocate(self, now: float) -> None:
        """Share out again the groups of flows linked to the changed resources, and the changed
        flows that use none. A group is found by walking resource -> flows -> resources, so the
        cost is the size of the groups touched, not of the cluster."""
        free = self.free
        retime = self._retime
        if self._lone:
            lone, self._lone = self._lone, []
            for f in lone:
                if f in self.flows:
                    retime(f, f.rate, own_bottleneck(f, free), now)
        if not self._dirty:
            return
        dirty, self._dirty = self._dirty, {}
        users = self._users
        seen: set[str] = set()
        for r0 in dirty:
            if r0 in seen:
                continue
            first = users.get(r0)
            if not first:
                continue
            if len(first) == 1:  # the common case: a flow that shares none of its resources
                f = next(iter(first))
                keys = f.keys
                for q in keys:
                    if len(users[q]) != 1:
                        break
                else:
                    seen.update(keys)
                    rate = own_bottleneck(f, free)
                    if rate != f.rate or f.token < 0:
                        retime(f, f.rate, rate, now)
                    continue
            members = sorted(linked_group(r0, users, seen), key=START_ORDER)
            old = [f.rate for f in members]
            fill_group(members, self.capacity, free)
            for f, was in zip(members, old):
                if f.rate != was or f.token < 0:
                    retime(f, was, f.rate, now)
        if len(self._finish) > HEAP_SLACK * len(self.flows) + 64:
            self._rebuild_heaps()

    def _retime(self, f: Flow, was: float, rate: float, now: float) -> None:
        """Bring ``f``'s progress up to now at its old rate ``was``, then run it at ``rate``:
        a new entry in the heap of finish times."""
        since = f.since
        if now > since:
            if f.spent is not None:
                spend(f, now)
            f.remaining -= was * (now - since)
            f.since = since = now
        f.rate = rate
        if f.spent is not None:
            f.bound = binding(f, self._users, self.capacity, self.fixed)
        self._tokens += 1
        token = f.token = self._tokens
        if rate > 0:
            finish = since + f.remaining / rate
            heapq.heappush(self._finish, (finish if finish > since else since, f.seq, token, f))
            slack = f.tolerance / rate
            if slack > self._slack:
                self._slack = slack

    def _rebuild_heaps(self) -> None:
        self._finish.clear()
        self._slack = 0.0
        for f in self.flows:
            self._retime(f, f.rate, f.rate, f.since)

    def _wake(self, timer: Event) -> None:
        if timer is not self._timer:
            return  # superseded by a later reallocation
        self._timer, self._pending = None, math.nan
        now = self.env._now
        # Done when what is left takes less than the clock can resolve at this time (far
        # into a simulation now + dt == now for small dt, and time would stop).
        resolution = 1e-9 if now < 1e5 else now * 1e-14
        done = self._pop_due(now, resolution)
        if done:
            self._reap(done, now)
        if self._alarms:
            ring = [a for a in self._alarms if a.at <= now + resolution * max(1.0, now)]
            if ring:
                self._alarms = [a for a in self._alarms if a not in ring]
                for a in ring:
                    if a.watching(self.flows):
                        a.fn()
        self.flush()
