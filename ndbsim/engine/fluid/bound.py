"""Which constraint binds a flow the fluid system tracks (``FluidSystem.track``), and the seconds
it runs bound by each: the figures ``engine.why`` turns into a phase's bottleneck. No event, no
rate changes."""

from __future__ import annotations

from ndbsim.engine.fluid.flow import Flow


def binding(f: Flow, users: dict[str, dict[Flow, None]], capacity: dict[str, float], fixed: dict[str, float]) -> str:
    """The constraint that binds ``f``'s rate: its cap, or the first of its resources that
    the flows (``users``: per resource, the flows running on it) and fixed loads use up."""
    if f.rate >= f.cap * (1.0 - 1e-9):
        return "cap"
    for r in f.keys:
        if f.demand[r] <= 0 or r not in capacity:
            continue
        used = fixed.get(r, 0.0) + sum(g.demand[r] * g.rate for g in users[r])
        if used >= capacity[r] * (1.0 - 1e-6):
            return r
    return ""


def spend(f: Flow, now: float) -> None:
    """Add the seconds since ``f.since`` to the constraint that bound ``f`` over them (a flow
    the fluid system's ``track`` follows)."""
    spent = f.spent
    if spent is not None and now > f.since:
        spent[f.bound] = spent.get(f.bound, 0.0) + (now - f.since)
