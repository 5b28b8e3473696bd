"""The engine's fixed inputs of one replication, built in one pass before anything is simulated,
in the order the physics depends, each step taking what the ones before produced:

    sizing_of          the cluster's fixed figures (nodes, threads, data, REDO log, LCP policy),
                       the cluster's own and a restarted node's (restart.upgrade_to's)
    stream_of          the transaction stream's rates (base, burst, during the restart)
    write_speeds_of    the LCP write speeds under each of those rates
    steady_cycles_of   the steady LCP cycles those speeds settle into (base, warm-up)
    make_plan          the warm-up, the crash's time, the stream over time, the start histories

``Runtime`` builds the running cluster from the result; nothing downstream works any of it out
again.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ndbsim.engine.cliffs import cliff_warnings
from ndbsim.engine.lcp.steady import SteadyCycles, steady_cycles_of
from ndbsim.engine.lcp.write_speed import WriteSpeeds, write_speeds_of
from ndbsim.engine.plan import Plan, make_plan
from ndbsim.engine.sizing import Sizing, sizing_of
from ndbsim.engine.stream import Stream, stream_of
from ndbsim.input.features import features_of
from ndbsim.input.scenario import Resolved, Scenario
from ndbsim.input.threads import oversubscribed

WARM_UP_CYCLES = 2.0
"""Whole steady LCP cycles simulated before the crash's point in its cycle, so that the LCP
histories and the REDO the nodes keep are those of the steady state (a numerical choice)."""


@dataclass(frozen=True)
class Prepared:
    """What one replication's simulation starts from."""

    scenario: Scenario
    sz: Sizing
    """The cluster's release and config: the cluster-wide protocols follow it."""
    restarted_as: Sizing
    """The release and config a restarted node comes back with: restart.upgrade_to's, else the
    cluster's own (``sz``). Its own work follows it."""
    stream: Stream
    speeds: WriteSpeeds
    cycles: SteadyCycles
    plan: Plan
    warnings: tuple[str, ...]
    """The plan's warnings, then the restarting node's configuration cliffs."""
    setting_flags: tuple[str, ...] = ()
    """What ``run`` warns the configuration sits on, as advise flags it: ``oversubscribed`` (the
    cluster's or the restarted node's threads outnumber the hardware threads), ``cliff: NAME``."""


def prepare(resolved: Resolved, rng: np.random.Generator) -> Prepared:
    """The steps of the module's docstring, in order; draws the crash's point in the LCP cycle
    from ``rng`` (unless ``simulation.lcp_phase`` pins it)."""
    s = resolved.scenario
    sz = sizing_of(resolved, features_of(resolved.profile.mechanisms, resolved.config))
    up = resolved.upgrade
    restarted_as = sizing_of(up, features_of(up.profile.mechanisms, up.config)) if up else sz
    drawn = float(rng.random())
    phase = drawn if s.simulation.lcp_phase is None else s.simulation.lcp_phase
    warm = WARM_UP_CYCLES + phase
    stream = stream_of(resolved, sz.rows)
    speeds = write_speeds_of(sz, stream, s.simulation.horizon)
    cycles = steady_cycles_of(sz, speeds, stream, warm, s.simulation.horizon)
    plan = make_plan(resolved, sz, stream, speeds, cycles, phase, warm)
    # the cliffs are the restarting node's own configuration's
    cliffs = cliff_warnings(
        restarted_as.cfg,
        {"rolling": "node", "initial-rolling": "initial"}.get(s.restart.type, s.restart.type),
        restarted_as.ldm,
        s.host.cpu_cores * s.host.threads_per_core,
        s.data.index_entries > 0,
        (up or resolved).profile.mechanisms.partial_lcp_available,
    )
    hw = s.host.cpu_cores * s.host.threads_per_core
    crowded = oversubscribed(sz.threads, hw) or (up is not None and oversubscribed(restarted_as.threads, hw))
    flags = (*(["oversubscribed"] if crowded else []), *(f"cliff: {c.split('=', 1)[0]}" for c in cliffs))
    return Prepared(s, sz, restarted_as, stream, speeds, cycles, plan, (*plan.warnings, *cliffs), flags)
