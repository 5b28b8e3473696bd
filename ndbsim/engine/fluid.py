"""Shared bandwidth as a fluid: flows share resources max-min fairly.

A ``FluidSystem`` holds resources (cores, a disk, a network link) with capacities, fixed
loads (the live transaction stream), and elastic flows (restore, REDO apply, LCP writes, copy).
Each flow needs ``demand[r]`` units of resource ``r`` per unit of progress and may be capped.
Rates are recomputed only when a flow starts, ends or changes its cap, so the number of
simulated events depends on the number of flows, never on bytes or rows.
"""

from __future__ import annotations

import math

import simpy

EPS = 1e-9
"""Relative tolerance below which a flow counts as finished (float round-off, not a model value)."""


class Flow:
    __slots__ = ("amount", "remaining", "demand", "cap", "rate", "done", "name", "lcp_size")

    def __init__(self, env: simpy.Environment, amount: float, demand: dict[str, float], cap: float, name: str):
        self.amount = amount
        self.remaining = amount
        self.demand = demand
        self.cap = cap
        self.rate = 0.0
        self.done = env.event()
        self.name = name


class FluidSystem:
    """All resources of one simulated cluster, allocated together."""

    def __init__(self, env: simpy.Environment):
        self.env = env
        self.capacity: dict[str, float] = {}
        self.fixed: dict[str, float] = {}
        self.flows: list[Flow] = []
        self._last = 0.0
        self._token = 0
        self._pending = math.nan

    def add_resource(self, name: str, capacity: float) -> None:
        self.capacity[name] = capacity
        self.fixed.setdefault(name, 0.0)

    def set_fixed_loads(self, loads: dict[str, float]) -> None:
        """Inelastic use of resources (e.g. applying the live update stream): one
        reallocation for all of them, none if nothing changed."""
        fixed = self.fixed
        if all(fixed.get(r, 0.0) == x for r, x in loads.items()):
            return
        self._settle()
        fixed.update(loads)
        self._reallocate()

    def spare(self, name: str) -> float:
        return self.capacity[name] - self.fixed.get(name, 0.0)

    def transfer(self, amount: float, demand: dict[str, float], cap: float = math.inf, name: str = "") -> Flow:
        """Start a flow; ``yield flow.done`` waits for it."""
        self._settle()
        flow = Flow(self.env, max(amount, 0.0), demand, cap, name)
        if flow.remaining <= EPS:
            flow.done.succeed(0.0)
            return flow
        self.flows.append(flow)
        self._reallocate()
        return flow

    def cancel(self, flow: Flow) -> None:
        """Stop a flow now (its ``done`` fires) and give its share to the others."""
        if flow in self.flows:
            self._settle()
            self.flows.remove(flow)
            flow.rate = 0.0
            flow.done.succeed(self.env.now)
            self._reallocate()

    def set_cap(self, flow: Flow, cap: float) -> None:
        if flow in self.flows and cap != flow.cap:
            self._settle()
            flow.cap = cap
            self._reallocate()

    # -- internals ------------------------------------------------------------------
    def _settle(self) -> None:
        now = self.env.now
        dt = now - self._last
        if dt > 0:
            for f in self.flows:
                f.remaining -= f.rate * dt
        self._last = now

    def _reallocate(self) -> None:
        # Progressive filling (max-min fairness). Per round, each resource's use is the sum of
        # the active flows' demands in flow order (zero terms skipped: adding 0.0 changes
        # nothing), so the arithmetic is exactly that of the plain double loop, only cheaper.
        flows = self.flows
        now = self.env.now
        i = 0
        while i < len(flows):
            f = flows[i]
            if f.remaining <= EPS * max(1.0, f.amount):
                del flows[i]
                f.rate = 0.0
                f.done.succeed(now)
            else:
                i += 1
        if not flows:
            return
        capacity = self.capacity
        fixed = self.fixed
        # Fast path: no resource is shared, so each flow's rate is simply its own bottleneck.
        seen: set[str] = set()
        shared = False
        for f in flows:
            for r in f.demand:
                if r in seen:
                    shared = True
                    break
                seen.add(r)
            if shared:
                break
        if not shared:
            for f in flows:
                rate = f.cap
                for r, d in f.demand.items():
                    if d > 0 and r in capacity:
                        x = capacity[r] - fixed.get(r, 0.0)
                        x = (x if x > 0.0 else 0.0) / d
                        if x < rate:
                            rate = x
                f.rate = rate if rate < 1e30 else 1e30
            self._schedule()
            return
        left = {}
        for r, c in capacity.items():
            x = c - fixed.get(r, 0.0)
            left[r] = x if x > 0.0 else 0.0
        active = list(flows)
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
                step = 1e30
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
        self._schedule()

    def _schedule(self) -> None:
        """One timer for the next flow to finish; a pending timer for that instant is kept."""
        horizon = math.inf
        for f in self.flows:
            if f.rate > 0:
                x = f.remaining / f.rate
                if x < horizon:
                    horizon = x
        if horizon == math.inf:
            self._token += 1
            return
        at = self.env.now + (horizon if horizon > 0.0 else 0.0)
        if self._pending == at:
            return
        self._token += 1
        token = self._token
        self._pending = at
        timer = self.env.timeout(at - self.env.now)
        timer.callbacks.append(lambda _ev, token=token: self._wake(token))

    def _wake(self, token: int) -> None:
        if token == self._token:
            self._pending = math.nan
            self._settle()
            # Done when what is left takes less than the clock can resolve at this time (far
            # into a simulation now + dt == now for small dt, and time would stop).
            resolution = max(1e-9, abs(self.env.now) * 1e-14)
            for f in self.flows:
                if f.rate > 0 and f.remaining <= f.rate * resolution + EPS * max(1.0, f.amount):
                    f.remaining = 0.0
            self._reallocate()
