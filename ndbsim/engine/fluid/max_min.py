"""Max-min fair sharing of resources among flows (``engine.fluid.system``): the rate of a flow that
shares none of its resources, progressive filling for a group of flows that do, and the group
linked to a resource."""

from __future__ import annotations

import math

from ndbsim.engine.fluid.flow import EPS, START_ORDER, UNBOUNDED_RATE, Flow


def own_bottleneck(f: Flow, free: dict[str, float]) -> float:
    """The rate of a flow that shares no resource: its cap or its tightest resource."""
    rate = f.cap
    for r, d in f.demand.items():
        if d > 0 and r in free:
            x = free[r] / d
            if x < rate:
                rate = x
    return rate if rate < UNBOUNDED_RATE else UNBOUNDED_RATE


def fill_group(active: list[Flow], capacity: dict[str, float], free: dict[str, float]) -> None:
    """Max-min fair rates of one group of flows (in start order) by progressive filling. Per
    round, each resource's use is the sum of the group's active flows' demands in start order
    (zero terms skipped: adding 0.0 changes nothing), as in the plain double loop over the
    group, only cheaper."""
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
                need = f.demand
                if any(r in saturated and need[r] > 0 for r in need):
                    continue
            still.append(f)
        if len(still) == len(active):
            break
        active = still


def linked_group(r0: str, users: dict[str, dict[Flow, None]], seen: set[str]) -> dict[Flow, None]:
    """The flows linked to resource ``r0`` through the resources they share (``users``: per
    resource, the flows running on it), found by walking resource -> flows -> resources; the
    resources reached are added to ``seen``."""
    seen.add(r0)
    stack = [r0]
    group: dict[Flow, None] = {}
    while stack:
        for f in users[stack.pop()]:
            if f not in group:
                group[f] = None
                for q in f.keys:
                    if q not in seen:
                        seen.add(q)
                        stack.append(q)
    return group


def rates_beside(
    extra: list[Flow], users: dict[str, dict[Flow, None]], capacity: dict[str, float], free: dict[str, float]
) -> tuple[dict[Flow, float], bool]:
    """The rates ``extra`` (flows not running, started now in that order) and the running flows
    linked to them would get, shared out as ``FluidSystem`` shares out a change: each linked
    group by ``fill_group`` in start order, a flow sharing none of its resources at
    ``own_bottleneck``; and whether two of ``extra`` fall in one group (the end of one would
    share that group out again). Nothing changes: every flow keeps the rate it has."""
    out: dict[Flow, float] = {}
    shared = False
    uses: dict[str, int] = {}
    for f in extra:
        for r in f.keys:
            uses[r] = uses.get(r, 0) + 1
    linked = []
    for f in extra:  # a flow no other uses a resource of is a group of one: no walk
        for r in f.keys:
            if uses[r] > 1 or users.get(r):
                linked.append(f)
                break
        else:
            out[f] = own_bottleneck(f, free)
    extra = linked
    mine = dict.fromkeys(extra)
    for f in extra:  # registered for the walk only
        for r in f.keys:
            users.setdefault(r, {})[f] = None
    try:
        seen: set[str] = set()
        for f0 in extra:
            if f0 in out or not f0.keys:
                out.setdefault(f0, own_bottleneck(f0, free))
                continue
            group = linked_group(f0.keys[0], users, seen)
            ours = [g for g in group if g in mine]
            shared = shared or len(ours) > 1
            if len(group) == 1:
                out[f0] = own_bottleneck(f0, free)
                continue
            members = [*sorted((g for g in group if g not in mine), key=START_ORDER), *ours]
            held = [g.rate for g in members]
            fill_group(members, capacity, free)
            out.update((g, g.rate) for g in members)
            for g, rate in zip(members, held):
                g.rate = rate
    finally:
        for f in extra:
            for r in f.keys:
                del users[r][f]
                if not users[r]:
                    del users[r]
    return out, shared
