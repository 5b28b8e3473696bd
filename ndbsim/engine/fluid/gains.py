"""What a phase's time splits into, and how much making each resource twice as good would save:
the figures behind a phase's named bottleneck (``engine.why``). No event, no rate changes.

A phase runs as ``Segment``s one after another (a copy step, or the part of a flow bound by one
constraint). A segment's time is the longest of its ``floors``: each a sum of ``Part``s, the
seconds the segment's work needs of one resource after another (a copy scan's LDM CPU per row
plus its wait for each page read, one page outstanding per scan), the floors running at once
(the scan on the live node, the apply on the starting node, a disk's share). Making a resource
twice as good halves its parts; the segment then takes its longest floor's new sum, so the
saving comes out of the recorded figures with no extra run: a resource whose parts sit under a
slower floor saves nothing, one that is half of the slowest floor saves at most that half.

A part's ``resource`` is the scenario key that makes it twice as good (``host.core_speed``,
``host.disk_read``, ``host.disk_write``, ``host.disk_latency`` halved, ``host.network``,
``host.memory_touch_rate``, ``cluster.config.<write speed>``), so the why names a lever.
"""

from __future__ import annotations

import math
from typing import NamedTuple

CPU = "host.core_speed"
DISK_READ = "host.disk_read"
DISK_WRITE = "host.disk_write"
LATENCY = "host.disk_latency"
NETWORK = "host.network"
MEMORY_TOUCH = "host.memory_touch_rate"
RESOURCES = (CPU, DISK_READ, DISK_WRITE, LATENCY, NETWORK, MEMORY_TOUCH)
"""The host resources a part can need, by the scenario key that makes each twice as good (twice
the key's value, half for ``host.disk_latency``); a config write speed is named by its key."""


class Part(NamedTuple):
    """Seconds of a segment's work on one resource: ``label`` as the why prints it, ``resource``
    the scenario key that makes it twice as good (``RESOURCES``, or a config key)."""

    label: str
    resource: str
    secs: float
    twice: float = 0.5
    """The share of ``secs`` left with the resource twice as good: a half, or less where the part's
    resource is also shared with other work that shrinks with it (``busy_twice``)."""
    fixed: bool = True
    """False for work that grows with the time the node was away (rows changed since it stopped):
    a resource that shortened the phases before it shrinks this work too (``gains``'s ``shrink``)."""


def busy_twice(busy: float) -> float:
    """``Part.twice`` of CPU work on threads the live load keeps ``busy`` (a share): twice the core
    speed halves the work and the load, so the work gets (1 - busy / 2) of twice the speed in place
    of (1 - busy) of the speed."""
    return (1.0 - busy) / (2.0 - busy) if busy < 1.0 else 0.5


class Segment(NamedTuple):
    """A stretch of a phase: ``secs`` it took, the ``floors`` that ran at once (each a sum of
    parts; ``secs`` is at least the longest, longer where a resource shared with other work held
    it: the excess is counted to the longest floor's parts, in proportion)."""

    secs: float
    floors: tuple[tuple[Part, ...], ...]

    def binding(self) -> tuple[Part, ...]:
        """The floor that set the segment's time (the longest)."""
        return max(self.floors, key=_total, default=())

    def after(self, resource: str, shrink: float = 0.0) -> float:
        """The segment's seconds with ``resource`` twice as good: its floors' new sums, the longest,
        scaled by what held it beyond its longest floor; ``shrink``: the share by which the work
        that is not ``fixed`` shrinks with it."""
        longest = _total(self.binding())
        if longest <= 0:
            return self.secs
        scale = self.secs / longest
        return scale * max(sum(_after(p, resource, shrink) for p in f) for f in self.floors)


def _after(p: Part, resource: str, shrink: float) -> float:
    secs = p.secs * p.twice if p.resource == resource else p.secs
    return secs if p.fixed else secs * (1.0 - shrink)


def _total(floor: tuple[Part, ...]) -> float:
    return sum(p.secs for p in floor)


def shares(segments: list[Segment]) -> dict[str, float]:
    """The phase's seconds by part label: each segment's seconds over its binding floor's parts,
    in proportion, the longest first."""
    out: dict[str, float] = {}
    for s in segments:
        floor = s.binding()
        total = _total(floor)
        for p in floor:
            if total > 0:
                out[p.label] = out.get(p.label, 0.0) + s.secs * p.secs / total
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def gains(segments: list[Segment], shrink: dict[str, float] | None = None) -> dict[str, float]:
    """Seconds the phase would save with each resource twice as good, the most first: its own parts'
    resources, and those that shrink the work that is not fixed (``shrink``: by resource, the share
    by which that work shrinks, ``shrinks``)."""
    shrink = shrink or {}
    keys = dict.fromkeys([*(p.resource for s in segments for f in s.floors for p in f), *shrink])
    out = {k: sum(s.secs - s.after(k, shrink.get(k, 0.0)) for s in segments) for k in keys if k}
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def shrinks(earlier: dict[str, float], span: float, saturation: float = 0.0) -> dict[str, float]:
    """By resource, the share by which work that grows with ``span`` seconds (the rows changed in
    them) shrinks when the resource, twice as good, saves ``earlier`` seconds of that span.
    ``saturation``: the span's changes over the rows they fall on, as the exponent of the distinct
    rows changed, ``rows·(1 − e^(−saturation))``: a row changed twice is shipped once, so the last
    seconds of a long span add fewer distinct rows than the first (linear where it is 0)."""
    if span <= 0:
        return {}
    out: dict[str, float] = {}
    for k, v in earlier.items():
        if v <= 0:
            continue
        cut = min(1.0, v / span)
        if saturation > 1e-9 and cut < 1.0:
            cut = 1.0 - math.expm1(-saturation * (1.0 - cut)) / math.expm1(-saturation)
        out[k] = min(1.0, max(0.0, cut))
    return out


def resources(segments: list[Segment]) -> dict[str, str]:
    """Each part label's resource key."""
    return {p.label: p.resource for s in segments for f in s.floors for p in f}
