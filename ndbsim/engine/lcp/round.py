"""One distributed LCP as the DIH master runs it (who takes part, what each node writes, its
flows), and the shape two LCPs must share to count as one cycle the master may skip
(``engine.lcp.master``)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import NamedTuple

import simpy
from simpy.events import Event

from ndbsim.engine.fluid.flow import Flow
from ndbsim.engine.lcp.checkpoint import LcpRecord
from ndbsim.engine.node import Node
from ndbsim.engine.workload import Changes

HISTORY_KEPT = 64
"""Completed LCPs remembered per node, newest first. A restore walks back only until every
part has a full copy and the REDO needs the newest 2–3 (reference §2.2, §4); older records
cannot matter and are dropped."""

STEADY_TOLERANCE = 1e-9
"""Relative difference below which two LCP cycles count as identical: float round-off of one
cycle's arithmetic, not a model value."""


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
    held: float = 0.0
    """Seconds DIH held this LCP's start for a restarting node (``engine.lcp.stall``)."""
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
        progresses at its cap (a skipped cycle that EnableRedoControl re-capped leaves every shared
        resource unsaturated: ``CycleSkip._beside``)."""
        done, cap, t = 0.0, self.first_caps[k], 0.0
        for at, caps in self.cap_changes:
            if at >= into:
                break
            done += cap * (at - t)
            cap, t = caps[k], at
        return done + cap * (into - t), cap


@dataclass(slots=True)
class CycleShape:
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

    def same_cycle(self, prev: CycleShape) -> bool:
        """Whether this LCP repeats ``prev``: same participants, sizes, durations, length,
        speed changes and spacing, to ``STEADY_TOLERANCE``."""
        if prev.who != self.who or math.isnan(prev.period):
            return False
        return (
            same(self.sizes, prev.sizes)
            and same(self.durations, prev.durations)
            and same((self.length,), (prev.length,))
            and same(self.cap_changes, prev.cap_changes)
            and same((self.period,), (prev.period,))
        )


def same(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    if len(a) != len(b):
        return False
    return all(not (x != y and abs(x - y) > STEADY_TOLERANCE * max(abs(x), abs(y))) for x, y in zip(a, b))


@dataclass(frozen=True)
class Skip:
    """Identical LCPs, one every ``period``, the first starting ``gap`` after ``origin`` (or one
    LCP computed ahead, ending at ``until``)."""

    plan: LcpPlan
    """The last simulated LCP, the template of the skipped ones; or the LCP computed ahead."""
    record: LcpRecord
    origin: float
    period: float
    gap: float
    durations: tuple[float, ...]
    length: float
    until: float = math.inf
    """When the skip ends by itself: the end of its one LCP for a cycle computed ahead
    (``lcp_ahead``); inf for identical cycles, skipped until something settles them."""
    then: tuple[Skip, ...] = ()
    """The LCPs computed ahead after this one, each a skip of one cycle from the one before's end."""
