"""The restart's plan, the last step of ``engine.prepare`` before anything is simulated: the
transaction stream over time (the base load, a burst before the restart, the load during it),
the warm-up in the steady LCP cycle that lands the crash at a random (seeded) point of it, and
the LCP history every node starts with.

Simulated time starts with a warm-up of a few LCP cycles under the pre-restart workload
(the LCP loop runs most of them by arithmetic, ``LcpMaster._fast_forward``); ``t_crash`` is
the moment the restart begins.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, replace

from ndbsim.engine.lcp.checkpoint import Era, LcpRecord
from ndbsim.engine.lcp.steady import SteadyCycle, SteadyCycles
from ndbsim.engine.lcp.write_speed import WriteSpeeds
from ndbsim.engine.sizing import Sizing
from ndbsim.engine.stream import Stream
from ndbsim.engine.workload import Changes, Rates, Traffic
from ndbsim.input.profiles import unused_params
from ndbsim.input.scenario import Resolved
from ndbsim.input.threads import ignored_settings, oversubscribed


@dataclass(frozen=True)
class Plan:
    """The stream and the LCP state the simulation starts from."""

    base_rates: Rates
    burst_rates: Rates | None
    """``workload.before_restart`` merged into the base rates; None without a burst."""
    burst_secs: float
    restart_rates: Rates
    """The rates while the restart runs (none for a system restart)."""
    pre_rates: Rates
    """The rates the warm-up runs at: the burst's if it lasts the whole warm-up, else the base's."""
    base: SteadyCycle
    """The steady cycle of the base load (the checkpoint figures of results)."""
    steady: LcpRecord
    """One LCP of the steady cycle the warm-up starts in."""
    t_crash: float
    first_lcp_start: float | None
    """An LCP already running at the start of the warm-up (a burst on an idle cluster)."""
    last_lcp_start: float
    """Start of the newest LCP completed before the warm-up (-inf for an idle cluster)."""
    start_record: LcpRecord
    """The newest LCP every node has when the warm-up starts."""
    burst_cycle: float | None
    """The burst's steady LCP cycle when the warm-up runs in it, else None."""
    traffic: Traffic
    groups: int
    warnings: tuple[str, ...]

    def older_eras(self) -> list[Era]:
        """The LCPs before the warm-up, newest first, for a restore that reaches back past the
        simulated ones: the burst's steady LCPs for as long as it had run by then (a burst
        contributes only the LCPs it wrote), then the base load's for ever."""
        if self.pre_rates is self.base_rates or self.burst_cycle is None:
            return [Era(self.steady, math.inf)]
        before = max(0.0, self.burst_secs - self.t_crash)  # burst seconds before the warm-up
        return [Era(self.steady, math.floor(before / self.burst_cycle)), Era(self.base.record, math.inf)]

    def initial_history(self) -> list[LcpRecord]:
        """A node's LCP history at the start of the warm-up (its own record: nodes' histories
        share a record only when they completed that LCP together): a copy, made with
        ``copy.copy``, which is twice as fast as ``dataclasses.replace``."""
        return [copy.copy(self.start_record)]

    def node_changes_since(self, t0: float, t1: float) -> Changes:
        """Changes a node has applied since ``t0`` (the pre-warm-up steady state included)."""
        c = self.traffic.changes(max(t0, 0.0), t1)
        if t0 < 0 and math.isfinite(t0):
            share = 1.0 / self.groups
            b = self.pre_rates
            c.updates += b.updates * share * -t0
            c.inserts += b.inserts * share * -t0
            c.deletes += b.deletes * share * -t0
            c.bytes += b.bytes * share * -t0
        return c


def _ignored_params(resolved: Resolved) -> list[str]:
    """Parameters this release does not have; in an upgrade, those only the new release uses are
    named as such (the nodes restarted onto it use them, ``Runtime.restarted_as``)."""
    s, mech = resolved.scenario, resolved.profile.mechanisms
    up = resolved.upgrade
    ignored = [k for k in unused_params(mech) if k in s.cluster.config]
    if not ignored:
        return []
    later = [k for k in ignored if up is not None and k not in unused_params(up.profile.mechanisms)]
    ignored = [k for k in ignored if k not in later]
    out = []
    if ignored:
        out.append(
            f"{', '.join(ignored)}: not {'a parameter' if len(ignored) == 1 else 'parameters'} "
            f"of NDB {s.version}, ignored (`ndbsim params --version {s.version}` lists "
            "this version's)"
        )
    if later and up is not None:
        out.append(
            f"{', '.join(later)}: not {'a parameter' if len(later) == 1 else 'parameters'} of NDB {s.version}: "
            f"the nodes still on {s.version} ignore {'it' if len(later) == 1 else 'them'}, each node restarted "
            f"onto {up.scenario.version} uses {'it' if len(later) == 1 else 'them'} (JSON nodes[].threads)"
        )
    return out


def _overridden_threads(resolved: Resolved) -> list[str]:
    """The thread settings the scenario gives that NDB ignores for another one it gives
    (``threads.ignored_settings``): the run warns, so that no one tunes a setting NDB never reads."""
    s = resolved.scenario
    out = []
    for name, by in ignored_settings(s.cluster.config, resolved.profile.mechanisms.query_threads).items():
        auto = by.startswith("AutomaticThreadConfig")
        why = "it sizes every thread type from the CPUs" if auto else "it names every thread type's count"
        out.append(
            f"{name}: ignored, as {by} is set ({why}); drop {name}"
            + (" or set AutomaticThreadConfig=false" if auto else "")
        )
    return out


def _crowded(sz: Sizing) -> list[str]:
    crowded = oversubscribed(sz.threads, sz.host.cpu_cores * sz.host.threads_per_core)
    return [crowded] if crowded else []


def make_plan(
    resolved: Resolved, sz: Sizing, stream: Stream, speeds: WriteSpeeds, cycles: SteadyCycles, phase: float, warm: float
) -> Plan:
    """The plan of one replication, the last step of ``engine.prepare``: the warm-up of ``warm``
    steady cycles (``cycles.pre``) lands the crash at ``phase`` of its cycle."""
    warnings = [
        *resolved.profile.notes,
        *_crowded(sz),
        *_ignored_params(resolved),
        *_overridden_threads(resolved),
        *stream.warnings,
    ]
    base, burst, burst_secs, during = stream.base, stream.burst, stream.burst_secs, stream.during
    pre, steady, cycle = cycles.pre_rates, cycles.pre.record, cycles.pre.cycle
    span = warm * cycle if math.isfinite(cycle) else 0.0
    t_crash = span + burst_secs if pre is base else span
    first_lcp_start: float | None = None
    if pre is base and not math.isfinite(cycles.base.cycle) and burst is not None and stream.bursting:
        t_crash, first_lcp_start = _first_lcp(sz, speeds, burst, burst_secs, phase, t_crash)
    segments = [(0.0, pre)]
    if pre is base and burst is not None and stream.bursting:
        segments.append((t_crash - burst_secs, burst))
    segments.append((t_crash, during))
    if math.isfinite(cycle):
        start = -(steady.end - steady.start)
        record = replace(steady, start=start, end=0.0)
    else:  # idle: the last LCP completed long ago and none is running
        start = -math.inf
        record = LcpRecord(-math.inf, -math.inf, 1.0, 0.0, 0.0, sz.data_bytes)
    return Plan(
        base_rates=base,
        burst_rates=burst,
        burst_secs=burst_secs,
        restart_rates=during,
        pre_rates=pre,
        base=cycles.base,
        steady=steady,
        t_crash=t_crash,
        first_lcp_start=first_lcp_start,
        last_lcp_start=start,
        start_record=record,
        burst_cycle=cycles.burst_cycle,
        traffic=Traffic(segments, 1.0 / sz.groups),
        groups=sz.groups,
        warnings=tuple(warnings),
    )


def _first_lcp(
    sz: Sizing, speeds: WriteSpeeds, burst: Rates, burst_secs: float, phase: float, t_crash: float
) -> tuple[float, float]:
    """(crash time, start of the LCP running when the warm-up starts) for a burst on an idle
    cluster. An idle cluster has no LCP cycle of its own; under a burst the restart must still
    land at a random point of the LCP then running. That first LCP (full: everything; partial:
    next to nothing, as nothing has changed yet) starts ``phase`` of its own length before the
    crash, or as many whole lengths earlier as fit in the burst. A full LCP longer than the
    burst began before it (an LCP started by earlier writes)."""
    size, _ = sz.policy.lcp_size(sz.data_bytes, sz.rows, Changes())
    first = size / speeds.normal(burst) + sz.lcp_overhead_secs
    back = phase * first
    back += math.floor(max(0.0, burst_secs - back) / first) * first
    t_crash = max(t_crash, back)
    return t_crash, t_crash - back
