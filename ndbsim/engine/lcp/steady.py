"""The steady LCP cycle a workload settles into, and the write speed EnableRedoControl holds
it at (reference §2.4, §3).

The step of ``engine.prepare`` after the write speeds: ``steady_cycles_of`` works out the base
load's cycle (the checkpoint figures of results) and the one the warm-up runs in (the base's,
or a burst's that lasts the whole warm-up); the plan starts the simulation in them."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ndbsim.engine.lcp.checkpoint import LcpRecord
from ndbsim.engine.lcp.write_speed import WriteSpeeds
from ndbsim.engine.sizing import Sizing
from ndbsim.engine.stream import Stream
from ndbsim.engine.workload import Changes, Rates

CycleAt = Callable[[float], tuple[LcpRecord, float]]
"""The steady LCP (its record, the cycle's length) at a given write speed."""

REDO_ALERT_HIGH = 0.40
"""EnableRedoControl's "high" alert level: above this REDO fill the LCP writes at no less than
MaxDiskWriteSpeedOtherNodeRestart (Backup.cpp change_alert_state_redo_percent, reference §2.4)."""

REDO_ALERT_CRITICAL = 0.60
"""EnableRedoControl's "critical" level: above this REDO fill the LCP writes at
MaxDiskWriteSpeedOwnRestart (reference §2.4)."""

REDO_CONTROL_BISECTIONS = 24
"""Halvings of the speed interval when finding the average LCP speed at which EnableRedoControl
holds the REDO fill at an alert level: 2^-24 of the interval (a numerical resolution, not an
NDB value)."""


@dataclass(frozen=True)
class SteadyCycle:
    """One workload's steady LCP cycle on one node."""

    record: LcpRecord
    """One LCP of the cycle, ending at time 0."""
    cycle: float
    """Seconds from one LCP's start to the next's (inf for an idle cluster)."""
    speed: float
    """The LCPs' write speed."""
    redo_floor: float
    """The least REDO a node keeps in the cycle: EnableRedoControl speeds an LCP up only once
    the REDO has reached an alert level, so the level's share of the log, else 0."""
    redo_bytes: float
    """REDO a node keeps at worst in the cycle (``steady_redo_bytes``)."""


@dataclass(frozen=True)
class SteadyCycles:
    """The steady cycles the simulation starts from."""

    base: SteadyCycle
    """The base load's, EnableRedoControl settled (the checkpoint figures of results)."""
    pre_rates: Rates
    """The rates the warm-up runs at: the burst's if it lasts the whole warm-up, else the base's."""
    pre: SteadyCycle
    """The cycle the warm-up runs in (``pre_rates``'s)."""
    burst_cycle: float | None
    """The burst's steady LCP cycle when the warm-up runs in it, else None."""


def steady_redo_bytes(sz: Sizing, rates: Rates, rec: LcpRecord, cycle: float) -> float:
    """REDO a node keeps at worst in the steady LCP cycle: ``redo_lcps_kept`` cycles plus the
    running LCP, at the stream's rate (0 for an idle cluster)."""
    if not math.isfinite(cycle):
        return 0.0
    return rates.bytes / sz.groups * (sz.features.redo_lcps_kept * cycle + (rec.end - rec.start))


class _Cycles:
    """Steady cycles of one cluster under the stream's rates; ``horizon``: a cycle longer than
    this counts as idle."""

    def __init__(self, sz: Sizing, speeds: WriteSpeeds, horizon: float):
        self.sz, self.speeds, self.horizon = sz, speeds, horizon

    def of(self, rates: Rates, settled: bool = False) -> SteadyCycle:
        """The steady LCP cycle under ``rates``. ``settled``: the rates have run long enough for
        EnableRedoControl to have acted on the REDO fill (the base load, which runs before the
        simulated time); a burst starts with the base's log and is simulated as it fills."""
        sz = self.sz
        share = 1.0 / sz.groups
        node_rates = Changes(rates.updates * share, rates.inserts * share, rates.deletes * share, rates.bytes * share)
        trigger = sz.lcp_trigger_bytes / rates.bytes if rates.bytes > 0 else math.inf
        if trigger > self.horizon:  # an LCP cycle longer than the horizon: idle
            trigger = math.inf
        overhead = sz.lcp_overhead_secs

        def cycle_at(v: float) -> tuple[LcpRecord, float]:
            return sz.policy.steady_state(sz.data_bytes, sz.rows, node_rates, v, overhead, trigger)

        speed = self.speeds.normal(rates)
        rec, cycle = cycle_at(speed)
        if settled and sz.features.redo_control and sz.redo_capacity:
            speed, rec, cycle, floor = _held_by_redo_control(sz, self.speeds, rates, cycle_at, speed, rec, cycle)
            return SteadyCycle(rec, cycle, speed, floor, steady_redo_bytes(sz, rates, rec, cycle))
        return SteadyCycle(rec, cycle, speed, 0.0, steady_redo_bytes(sz, rates, rec, cycle))


def _held_by_redo_control(
    sz: Sizing, speeds: WriteSpeeds, rates: Rates, cycle_at: CycleAt, speed: float, rec: LcpRecord, cycle: float
) -> tuple[float, LcpRecord, float, float]:
    """EnableRedoControl (reference §2.4): while the REDO fills the log beyond an alert level,
    the LCP writes faster; once an LCP has released REDO below the level, at the normal speed
    again. So the fill hovers at the first level whose faster speed can hold it there, and the
    cycle runs at the average of the two speeds that keeps the level's share of the log (found
    by bisection); beyond the last level, at the fastest speed. Returns (speed, record, cycle,
    REDO floor), starting from the plain cycle's ``speed``, ``rec`` and ``cycle``."""
    floor = 0.0
    for level, faster in (
        (REDO_ALERT_HIGH, sz.cfg["MaxDiskWriteSpeedOtherNodeRestart"]),
        (REDO_ALERT_CRITICAL, sz.cfg["MaxDiskWriteSpeedOwnRestart"]),
    ):
        faster = min(faster, speeds.disk_write_left(rates))
        target = level * sz.redo_capacity
        if steady_redo_bytes(sz, rates, rec, cycle) <= target:
            break
        floor = target
        if faster <= speed:  # this level's speed is no faster: the next level's may be
            continue
        fast_rec, fast_cycle = cycle_at(faster)
        if steady_redo_bytes(sz, rates, fast_rec, fast_cycle) > target:
            speed, rec, cycle = faster, fast_rec, fast_cycle  # cannot hold this level: the next
            continue
        lo, hi = speed, faster
        for _ in range(REDO_CONTROL_BISECTIONS):
            mid = 0.5 * (lo + hi)
            r, cy = cycle_at(mid)
            if steady_redo_bytes(sz, rates, r, cy) > target:
                lo = mid
            else:
                hi = mid
        speed = hi
        rec, cycle = cycle_at(hi)
        break
    return speed, rec, cycle, floor


def steady_cycles_of(sz: Sizing, speeds: WriteSpeeds, stream: Stream, warm: float, horizon: float) -> SteadyCycles:
    """The base load's steady cycle, and the one the warm-up of ``warm`` LCP cycles before the
    crash runs in: a burst's, if it lasts the whole warm-up (it has then also run long enough
    for EnableRedoControl to have acted on its REDO fill), else the base's."""
    cycles = _Cycles(sz, speeds, horizon)
    base = cycles.of(stream.base, settled=True)
    burst = stream.burst
    if burst is not None and stream.bursting:
        b = cycles.of(burst)
        if math.isfinite(b.cycle) and stream.burst_secs >= warm * b.cycle:
            b = cycles.of(burst, settled=True)
            return SteadyCycles(base, burst, b, b.cycle)
    return SteadyCycles(base, stream.base, base, None)
