"""Shared bandwidth as a fluid: flows share resources max-min fairly.

A ``FluidSystem`` holds resources (cores, a disk, a network link) with capacities, fixed
loads (the live transaction stream), and elastic flows (restore, REDO apply, LCP writes, copy).
Each flow needs ``demand[r]`` units of resource ``r`` per unit of progress and may be capped.
Rates are recomputed only when a flow starts, ends or changes its cap, or a fixed load
changes, so the number of simulated events depends on the number of flows and load changes,
never on bytes or rows. An ``alarm`` calls back at a set time while given flows still run (the
LCP's EnableRedoControl reads the REDO fill so); it shares the flows' one timer.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import simpy
from simpy.events import Event, Timeout

EPS = 1e-9
"""Relative tolerance below which a flow counts as finished (float round-off, not a model value)."""

UNBOUNDED_RATE = 1e30
"""Rate given to a flow that no resource and no cap limits (a numeric stand-in for infinity)."""


class Flow:
    __slots__ = ("cap", "demand", "done", "keys", "lcp_size", "name", "rate", "remaining", "tolerance")

    def __init__(self, env: simpy.Environment, amount: float, demand: dict[str, float], cap: float, name: str):
        self.remaining = amount
        self.tolerance = EPS * amount if amount > 1.0 else EPS
        """Left over below this, the flow is finished."""
        self.demand = demand
        self.keys = tuple(demand)
        self.cap = cap
        self.rate = 0.0
        self.done = Event(env)
        self.name = name
        self.lcp_size = 0.0
        """Bytes an LCP flow writes (set by ``LcpWrites.flow``; 0 for other flows)."""


class _Alarm:
    __slots__ = ("at", "flows", "fn")

    def __init__(self, at: float, fn: Callable[[], None], flows: tuple[Flow, ...]):
        self.at, self.fn, self.flows = at, fn, flows


class FluidSystem:
    """All resources of one simulated cluster, allocated together."""

    def __init__(self, env: simpy.Environment):
        self.env = env
        self.capacity: dict[str, float] = {}
        self.fixed: dict[str, float] = {}
        self.free: dict[str, float] = {}
        """capacity − fixed, floored at 0: what the elastic flows share."""
        self.flows: list[Flow] = []
        self._users: dict[str, int] = {}
        self._shared = 0
        """Resources used by two or more flows; while 0 each flow's rate is its own bottleneck."""
        self._last = 0.0
        self._held = 0
        self._deferred = False
        self._timer: Timeout | None = None
        self._pending = math.nan
        self._alarms: list[_Alarm] = []
        self.on_change: Callable[[], None] | None = None
        """Called before any change to the flows or loads (the LCP loop's skip settles on it)."""
        self.batch = _Batch(self)
        """``with fluid.batch:`` — the changes made inside share one reallocation at the end."""

    def add_resource(self, name: str, capacity: float) -> None:
        self.capacity[name] = capacity
        self.fixed.setdefault(name, 0.0)
        self._set_free(name)

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
                changed = True
        if changed:
            self.flush()

    def spare(self, name: str) -> float:
        return self.capacity[name] - self.fixed.get(name, 0.0)

    def transfer(self, amount: float, demand: dict[str, float], cap: float = math.inf, name: str = "") -> Flow:
        """Start a flow; ``yield flow.done`` waits for it."""
        if self.on_change is not None:
            self.on_change()
        flow = Flow(self.env, amount if amount > 0.0 else 0.0, demand, cap, name)
        if flow.remaining <= EPS:
            flow.done.succeed(0.0)
            return flow
        self.flows.append(flow)
        users = self._users
        for r in flow.keys:
            n = users.get(r, 0) + 1
            users[r] = n
            if n == 2:
                self._shared += 1
        self.flush()
        return flow

    def cancel(self, flow: Flow) -> None:
        """Stop a flow now (its ``done`` fires) and give its share to the others."""
        if self.on_change is not None:
            self.on_change()
        if flow in self.flows:
            self._remove(flow)
            flow.done.succeed(self.env._now)
            self.flush()

    def set_cap(self, flow: Flow, cap: float) -> None:
        if self.on_change is not None:
            self.on_change()
        if cap != flow.cap and flow in self.flows:
            flow.cap = cap
            self.flush()

    def alarm(self, at: float, fn: Callable[[], None], flows: Sequence[Flow]) -> None:
        """Call ``fn`` at time ``at`` if one of ``flows`` is still running then. The alarm shares
        the flows' timer, so an alarm whose flows all finish first costs no event."""
        self._alarms.append(_Alarm(at, fn, tuple(flows)))
        self._arm()

    def flush(self) -> None:
        """Settle progress up to now, finish what is done and share the resources again."""
        if self._held:
            self._deferred = True
            return
        flows = self.flows
        now = self.env._now
        dt = now - self._last
        if dt > 0:
            for f in flows:
                f.remaining -= f.rate * dt
        self._last = now
        for f in flows:
            if f.remaining <= f.tolerance:
                self._reap()
                break
        if not flows:
            self._alarms.clear()
            self._timer, self._pending = None, math.nan
            return
        if self._shared:
            self._fill()
        else:
            free = self.free
            for f in flows:
                f.rate = _own_bottleneck(f, free)
        self._arm()

    def _arm(self) -> None:
        """One timer for the next flow to finish or alarm to ring; a pending timer for that
        instant is kept. Flows have progressed to ``_last``."""
        flows = self.flows
        horizon = math.inf
        for f in flows:
            if f.rate > 0:
                x = f.remaining / f.rate
                if x < horizon:
                    horizon = x
        at = self._last + (horizon if horizon > 0.0 else 0.0) if horizon < math.inf else math.inf
        if self._alarms:
            self._alarms = [a for a in self._alarms if any(f in flows for f in a.flows)]
            for a in self._alarms:
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
        self.flows.remove(flow)
        flow.rate = 0.0
        users = self._users
        for r in flow.keys:
            n = users[r] - 1
            users[r] = n
            if n == 1:
                self._shared -= 1

    def _reap(self) -> None:
        """Finish the flows with nothing left to do, in flow order."""
        now = self.env._now
        for f in [f for f in self.flows if f.remaining <= f.tolerance]:
            self._remove(f)
            f.done.succeed(now)

    def _fill(self) -> None:
        """Max-min fair rates. Flows interact only through the resources they share, so the
        flows fall into groups (connected by shared resources) that are filled one by one: a
        flow alone in its group takes its own bottleneck; a group of several is filled
        progressively. Cost grows with the groups' sizes, not with the cluster's."""
        group_of: dict[str, list[Flow]] = {}
        free = self.free
        for f in self.flows:
            if not f.keys:  # uses no resource: only its cap limits it
                f.rate = _own_bottleneck(f, free)
                continue
            mine: list[Flow] | None = None
            for r in f.keys:
                other = group_of.get(r)
                if other is None or other is mine:
                    continue
                if mine is None:
                    mine = other
                else:  # f joins two groups: merge the smaller into the larger
                    if len(other) > len(mine):
                        mine, other = other, mine
                    mine.extend(other)
                    for g in other:
                        for q in g.keys:
                            group_of[q] = mine
            if mine is None:
                mine = []
            mine.append(f)
            for r in f.keys:
                group_of[r] = mine
        order: dict[int, int] | None = None
        seen: set[int] = set()
        for group in group_of.values():
            if id(group) in seen:
                continue
            seen.add(id(group))
            if len(group) == 1:
                group[0].rate = _own_bottleneck(group[0], free)
            else:
                if order is None:
                    order = {id(f): i for i, f in enumerate(self.flows)}
                self._fill_group(sorted(group, key=lambda f: order[id(f)]))

    def _fill_group(self, active: list[Flow]) -> None:
        # Progressive filling (max-min fairness) of one group. Per round, each resource's use is
        # the sum of the group's active flows' demands in flow order (zero terms skipped: adding
        # 0.0 changes nothing), as in the plain double loop over the group, only cheaper.
        capacity = self.capacity
        free = self.free
        left = {r: free[r] for f in active for r in f.keys if r in free}
        for f in active:
            f.rate = 0.0
        while active:
            use: dict[str, float] = {}
            for f in active:
                for r, d in f.demand.items():
                    if r in left:
                        u = use.get(r)
                        use[r] = d if u is None else u + d
            step = math.inf
            for r, u in use.items():
                if u > 0:
                    x = left[r] / u
                    if x < step:
                        step = x
            for f in active:
                x = f.cap - f.rate
                if x < step:
                    step = x
            if step == math.inf:  # unconstrained flows: nothing limits them
                step = UNBOUNDED_RATE
            saturated = set()
            for r, u in use.items():
                if u > 0:
                    x = left[r] - step * u
                    left[r] = x
                    if x <= EPS * max(1.0, capacity[r]):
                        saturated.add(r)
            still = []
            for f in active:
                f.rate += step
                if f.rate >= f.cap * (1 - 1e-12):
                    continue
                if saturated:
                    d = f.demand
                    if any(r in saturated and d[r] > 0 for r in d):
                        continue
                still.append(f)
            if len(still) == len(active):
                break
            active = still

    def _wake(self, timer: Event) -> None:
        if timer is not self._timer:
            return  # superseded by a later reallocation
        self._timer, self._pending = None, math.nan
        now = self.env._now
        dt = now - self._last
        # Done when what is left takes less than the clock can resolve at this time (far
        # into a simulation now + dt == now for small dt, and time would stop).
        resolution = 1e-9 if now < 1e5 else now * 1e-14
        for f in self.flows:
            if dt > 0:
                f.remaining -= f.rate * dt
            if f.rate > 0 and f.remaining <= f.rate * resolution + f.tolerance:
                f.remaining = 0.0
        self._last = now
        self._reap()
        if self._alarms:
            ring = [a for a in self._alarms if a.at <= now + resolution * max(1.0, now)]
            if ring:
                self._alarms = [a for a in self._alarms if a not in ring]
                for a in ring:
                    if any(f in self.flows for f in a.flows):
                        a.fn()
        self.flush()


def _own_bottleneck(f: Flow, free: dict[str, float]) -> float:
    """The rate of a flow that shares no resource: its cap or its tightest resource."""
    rate = f.cap
    for r, d in f.demand.items():
        if d > 0 and r in free:
            x = free[r] / d
            if x < rate:
                rate = x
    return rate if rate < UNBOUNDED_RATE else UNBOUNDED_RATE


class _Batch:
    """Context manager holding a ``FluidSystem``'s reallocation until the outermost exit."""

    __slots__ = ("fluid",)

    def __init__(self, fluid: FluidSystem):
        self.fluid = fluid

    def __enter__(self) -> None:
        self.fluid._held += 1

    def __exit__(self, *exc: object) -> None:
        fluid = self.fluid
        fluid._held -= 1
        if not fluid._held and fluid._deferred:
            fluid._deferred = False
            fluid.flush()
