"""The two anchors ``bench.py`` measures ndbsim against: what a user could write instead.

* ``closed_form``: the restart as arithmetic, phase by phase, from the same resolved scenario
  (the steady LCP cycle, restore, REDO, index rebuild, copy, the wait for an LCP). No events;
  its time is the floor of any evaluation of these formulas in Python.
* ``toy_restart``: a SimPy model with ndbsim's process structure and nothing else: N nodes,
  each a capacity its running flows share equally (re-timed whenever a flow starts or stops),
  the pipeline's phases as timeouts and flows, one one-at-a-time gate for heartbeat inclusion
  and one for start permission and the metadata copy, a live LCP loop (one LCP flow per live
  node per cycle) that a starting node waits for, and the restart in waves as ndbsim's rolling
  restart. Its amounts are the closed form's phase times, so it runs the same restart.

Neither is a model of NDB: they exist so that ndbsim's speed is read as a ratio to them.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass
from functools import partial
from typing import Any

import simpy
from simpy.events import Event

from ndbsim.engine import fixed_costs
from ndbsim.engine.lcp.checkpoint import policy_for
from ndbsim.engine.restart.copy import COPY_STEPS_MAX
from ndbsim.engine.restart.pipeline import MISSED_HEARTBEATS
from ndbsim.engine.workload import Changes
from ndbsim.input.features import features_of
from ndbsim.input.profiles import (
    HEARTBEAT_INCLUSION_SECS,
    METADATA_SECS_PER_TABLE,
    SCAN_ROW_SECS,
)
from ndbsim.input.scenario import Resolved
from ndbsim.input.threads import core_equivalents, layout

TRIGGER_WORD_BYTES = 4.0
"""TimeBetweenLocalCheckpoints is the base-2 logarithm of the 4-byte words written between two
LCPs (NDB's documentation of the parameter; ndbsim's cluster model reads it so)."""

WARM_CYCLES = 2.0
"""A burst before the crash sets the LCP cycle only if it lasts this many cycles plus the crash's
phase in the cycle: ndbsim's warm-up (``Cluster._build_traffic``)."""

FINISHED = 1e-9
"""Work-seconds left below which a toy flow counts as finished (float round-off)."""


@dataclass
class Plan:
    """One restart in closed form: per-node phase seconds, the live LCP cycle, the waves."""

    phases: dict[str, float]
    """Per restarting node, in pipeline order (work phases at a whole node's capacity)."""
    lcp_secs: float
    """One live LCP's duration."""
    lcp_cycle: float
    """Seconds from one LCP's start to the next (inf: an idle cluster starts one only on request)."""
    waves: list[list[int]]
    nodes: int
    copy_steps: int
    total: float
    """The restart's length: the waves one after another, each as long as one node's phases
    and its wait for the next LCP."""


def closed_form(resolved: Resolved, phase: float = 0.5) -> Plan:
    """The restart of ``resolved`` as arithmetic. ``phase``: where in the LCP cycle it begins."""
    s, cfg = resolved.scenario, resolved.config
    k = resolved.profile.constants
    mech = features_of(resolved.profile.mechanisms, cfg)
    h, d, w = s.host, s.data, s.workload
    gcp = cfg["TimeBetweenGlobalCheckpoints"] / 1000.0
    replicas = cfg["NoOfReplicas"]
    groups = s.cluster.data_nodes // replicas
    threads = layout(cfg, mech.multithreaded, mech.query_threads, h.cpu_cores * h.threads_per_core)
    ldm = threads.ldm

    def cores(threads: float) -> float:
        return core_equivalents(threads, h.cpu_cores, h.threads_per_core, k.hyperthread_gain) * h.core_speed

    ldm_cores = cores(ldm)
    rows, size = d.row_count, d.size

    def per_node(over: Any) -> Changes:
        """A workload segment's rates on one node (unset fields from the base workload)."""
        u, i, x = (
            base if over is None or getattr(over, f) is None else getattr(over, f)
            for f, base in (
                ("updates_per_s", w.updates_per_s),
                ("inserts_per_s", w.inserts_per_s),
                ("deletes_per_s", w.deletes_per_s),
            )
        )
        c = Changes(u / groups, i / groups, x / groups)
        c.bytes = c.rows * w.bytes_per_change
        return c

    rate, during = per_node(None), per_node(w.during_restart)
    policy = policy_for(cfg, mech, d.lcp_tables)
    speed = cfg["DiskCheckpointSpeed"] if mech.legacy_speed_parameters else cfg["MaxDiskWriteSpeed"]
    speed = min(speed, h.disk_write)
    scan = rows * SCAN_ROW_SECS / ldm_cores
    per_table = fixed_costs.table_fragments(cfg, ldm, replicas, mech.query_threads)
    fragments = fixed_costs.fragments_per_node(d.table_count, per_table)
    hidden = scan if mech.partial_lcp else scan + size / speed  # as Sizing._lcp_least_secs
    overhead = (
        gcp + scan + fixed_costs.lcp_round_secs(d.table_count, fragments, ldm, mech.partial_lcp, h.disk_latency, hidden)
    )

    def steady(r: Changes) -> tuple[Any, float]:
        written = TRIGGER_WORD_BYTES * 2 ** cfg["TimeBetweenLocalCheckpoints"]
        trigger = written / r.bytes if r.bytes > 0 else math.inf
        return policy.steady_state(size, rows, r, speed, overhead, trigger)

    rec, cycle = steady(rate)
    logged = 0.0  # REDO written since the last LCP by a burst too short to set the cycle
    if w.before_restart is not None:
        burst = per_node(w.before_restart)
        b_rec, b_cycle = steady(burst)
        if math.isfinite(b_cycle) and w.before_restart.duration >= (WARM_CYCLES + phase) * b_cycle:
            rate, rec, cycle = burst, b_rec, b_cycle
        else:
            logged = burst.bytes * w.before_restart.duration
    lcp = rec.end - rec.start

    p: dict[str, float] = {}
    # a crash is detected after MISSED_HEARTBEATS intervals and half an interval on average
    heartbeats = MISSED_HEARTBEATS + 0.5 if s.restart.cause == "crash" else 0.0
    p["failure"] = gcp + cfg["HeartbeatIntervalDbDb"] / 1000.0 * heartbeats
    p["downtime"] = s.restart.downtime
    p["memory"] = (cfg["DataMemory"] + (cfg.get("IndexMemory") or 0.0)) / h.memory_touch_rate
    p["heartbeat"] = HEARTBEAT_INCLUSION_SECS
    p["metadata"] = d.table_count * METADATA_SECS_PER_TABLE
    p["include"] = phase * gcp  # the next global checkpoint
    work = policy.restore_work(size, rows, [rec], rec)
    restorers = min(threads.restore_threads, max(1, fragments))
    ops = fixed_costs.restore_file_ops(mech.partial_lcp, work.data_files)
    p["restore"] = fixed_costs.restore_setup_secs(fragments, restorers, ops, h.disk_latency) + max(
        work.rows_applied * k.restore_row_secs / cores(restorers), work.bytes_read / h.disk_read
    )
    since = lcp + phase * cycle if math.isfinite(cycle) else 0.0
    p["redo"] = (rate.bytes * since + logged) * k.redo_byte_secs / ldm_cores
    fragments = d.table_count * ldm * replicas
    build = cfg["BuildIndexThreads"]
    threads = min(build, fragments, h.cpu_cores * h.threads_per_core) if build > 0 and fragments > 1 else ldm
    p["index"] = d.index_entries * k.index_entry_secs / cores(threads)
    down = sum(p.values())
    cap = cfg["MaxParallelCopyInstances"]
    changed = min(rows, during.rows * down)  # rows changed since the crash
    p["copy"] = changed * k.copy_row_secs / cores(min(ldm, cap) if cap else ldm) + rows * SCAN_ROW_SECS / ldm_cores
    if policy.local_lcp_at_restart_end and mech.local_lcp_at_restart_end:
        t = since + down
        local, _ = policy.lcp_size(size, rows, Changes(rate.updates * t, rate.inserts * t, rate.deletes * t))
        p["local_lcp"] = local / min(cfg["MaxDiskWriteSpeedOwnRestart"], h.disk_write) + overhead
    p["handover"] = k.suma_handover_gcps * gcp

    n = s.cluster.data_nodes
    if s.restart.type == "rolling":
        chosen = s.restart.nodes or list(range(1, n + 1))
        waves = [[i for i in chosen if (i - 1) % replicas == m] for m in range(replicas)]
        waves = [x for x in waves if x]
    else:
        waves = [list(s.restart.nodes or [n])]
    # the starting node then waits for the live nodes' next LCP to complete
    wait = lcp + phase * (cycle - lcp) if math.isfinite(cycle) else lcp
    total = len(waves) * (sum(p.values()) + wait)
    steps = min(d.table_count, COPY_STEPS_MAX)
    return Plan(p, lcp, cycle, waves, n, steps, total)


class _Share:
    """One node's capacity (1 work-second per second), shared equally by its running flows."""

    __slots__ = ("env", "flows", "last", "version")

    def __init__(self, env: simpy.Environment):
        self.env = env
        self.flows: dict[Event, float] = {}
        self.last = 0.0
        self.version = 0

    def start(self, amount: float) -> Event:
        self._advance()
        ev = Event(self.env)
        self.flows[ev] = amount
        self._retime()
        return ev

    def _advance(self) -> None:
        now = self.env.now
        if self.flows and now > self.last:
            each = (now - self.last) / len(self.flows)
            for ev in self.flows:
                self.flows[ev] -= each
        self.last = now

    def _retime(self) -> None:
        for ev in [e for e, left in self.flows.items() if left <= FINISHED]:
            del self.flows[ev]
            ev.succeed()
        self.version += 1
        if self.flows:
            version = self.version
            timer = self.env.timeout(min(self.flows.values()) * len(self.flows))
            timer.callbacks.append(partial(self._wake, version))

    def _wake(self, version: int, _timer: Event) -> None:
        if version == self.version:
            self._advance()
            for ev in self.flows:  # the flow this timer was for ends now, whatever the round-off
                if self.flows[ev] <= FINISHED * max(1.0, self.env.now):
                    self.flows[ev] = 0.0
            self._retime()


def toy_restart(plan: Plan) -> tuple[float, int]:
    """Run ``plan`` through the toy SimPy model: (restart seconds, SimPy events)."""
    env = simpy.Environment()
    shares = [_Share(env) for _ in range(plan.nodes)]
    up = [True] * plan.nodes
    waiters: list[Event] = []
    kick: list[Event | None] = [None]
    qmgr, cntr = simpy.Resource(env, 1), simpy.Resource(env, 1)
    p = plan.phases

    def lcp_loop() -> Generator[Event, Any, None]:
        steady = math.isfinite(plan.lcp_cycle)
        while True:
            if not steady and not waiters:  # idle: an LCP only when a starting node asks for one
                ask = kick[0] = Event(env)
                yield ask
            mine, waiters[:] = list(waiters), []  # who asks later waits for the next LCP
            yield env.all_of([shares[i].start(plan.lcp_secs) for i in range(plan.nodes) if up[i]])
            for ev in mine:
                ev.succeed()
            if steady:
                yield env.timeout(plan.lcp_cycle - plan.lcp_secs)

    def restart(i: int) -> Generator[Event, Any, None]:
        up[i] = False
        for name in ("failure", "downtime", "memory"):
            yield env.timeout(p[name])
        with qmgr.request() as req:
            yield req
            yield env.timeout(p["heartbeat"])
        with cntr.request() as req:
            yield req
            yield env.timeout(p["metadata"])
        yield env.timeout(p["include"])
        for name in ("restore", "redo", "index"):
            if p[name] > 0:
                yield shares[i].start(p[name])
        for _ in range(plan.copy_steps):
            yield shares[i].start(p["copy"] / plan.copy_steps)
        if "local_lcp" in p:
            yield shares[i].start(p["local_lcp"])
        up[i] = True
        ev = Event(env)
        waiters.append(ev)
        if kick[0] is not None and not kick[0].triggered:
            kick[0].succeed()
        yield ev
        yield env.timeout(p["handover"])

    def waves() -> Generator[Event, Any, None]:
        for wave in plan.waves:
            yield env.all_of([env.process(restart(i - 1)) for i in wave])

    env.process(lcp_loop())
    done = env.process(waves())
    env.run(until=done)
    return env.now, next(env._eid)
