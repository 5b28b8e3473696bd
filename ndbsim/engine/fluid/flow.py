"""A flow of the fluid system: an amount of work that needs so much of each resource per unit of
progress, capped or not; the alarm that rings while given flows run; the batch that holds
reallocations (``engine.fluid.system``)."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Protocol

import simpy
from simpy.events import Event

EPS = 1e-9
"""Relative tolerance below which a flow counts as finished (float round-off, not a model value)."""

UNBOUNDED_RATE = 1e30
"""Rate given to a flow that no resource and no cap limits (a numeric stand-in for infinity)."""


class Flow:
    done: Event
    """Fires with the end time when the flow ends (a flow with ``on_end`` has none)."""

    __slots__ = (
        "bound",
        "cap",
        "demand",
        "done",
        "end",
        "keys",
        "lcp_size",
        "name",
        "on_end",
        "rate",
        "remaining",
        "seq",
        "since",
        "spent",
        "token",
        "tolerance",
    )

    def __init__(
        self,
        env: simpy.Environment,
        amount: float,
        demand: dict[str, float],
        cap: float,
        name: str,
        seq: int = 0,
        on_end: Callable[[], None] | None = None,
    ):
        self.remaining = amount
        """Work left at time ``since`` (progress since then is ``rate * (now - since)``)."""
        self.since = env._now
        self.tolerance = EPS * amount if amount > 1.0 else EPS
        """Left over below this, the flow is finished."""
        self.demand = demand
        self.keys = tuple(demand)
        self.cap = cap
        self.rate = 0.0
        if on_end is None:
            self.done = Event(env)
        self.name = name
        self.lcp_size = 0.0
        """Bytes an LCP flow writes (set by ``LcpWrites.flow``; 0 for other flows)."""
        self.seq = seq
        """Start order: groups are filled and finished flows reaped in this order."""
        self.token = -1
        """Which heap entries are this flow's current ones (-1: none)."""
        self.on_end = on_end
        """Called when the flow ends, instead of firing ``done``: a caller that waits for many
        flows together (the LCP loop) counts them off without an event each."""
        self.end = math.nan
        """When the flow ended (the value ``done`` fires with)."""
        self.spent: dict[str, float] | None = None
        """Seconds the flow ran bound by each constraint (a resource's name, or "cap"), for a
        flow ``FluidSystem.track`` follows; None: not followed (bookkeeping, no event)."""
        self.bound = ""
        """The constraint that binds the flow's current rate, for a followed flow."""


class Alarm:
    __slots__ = ("at", "first", "flows", "fn")

    def __init__(self, at: float, fn: Callable[[], None], flows: tuple[Flow, ...]):
        self.at, self.fn, self.flows = at, fn, flows
        self.first = 0
        """Index of the first of ``flows`` still running when last looked (a flow never restarts)."""

    def watching(self, running: dict[Flow, None]) -> bool:
        """Whether one of the alarm's flows still runs."""
        flows, i = self.flows, self.first
        while i < len(flows) and flows[i] not in running:
            i += 1
        self.first = i
        return i < len(flows)


def end_flow(flow: Flow, at: float) -> None:
    flow.end = at
    on_end = flow.on_end
    if on_end is None:
        flow.done.succeed(at)
    else:
        flow.on_end = None  # the caller's bookkeeping may hold the flow: no cycle left for the GC
        on_end()


START_ORDER = operator.attrgetter("seq")
"""A flow's start order, the sort key of groups and of flows finishing together."""


class Reallocating(Protocol):
    """What a ``Batch`` holds: ``engine.fluid.system``'s ``FluidSystem``."""

    _held: int
    _deferred: bool

    def flush(self) -> None: ...


class Batch:
    """Context manager holding a ``FluidSystem``'s reallocation until the outermost exit."""

    __slots__ = ("fluid",)

    def __init__(self, fluid: Reallocating):
        self.fluid = fluid

    def __enter__(self) -> None:
        self.fluid._held += 1

    def __exit__(self, *exc: object) -> None:
        fluid = self.fluid
        fluid._held -= 1
        if not fluid._held and fluid._deferred:
            fluid._deferred = False
            fluid.flush()
