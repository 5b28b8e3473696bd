"""One replication: build the cluster, warm it up, restart the nodes, collect plain records."""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import Any

import numpy as np
from simpy.events import Event

from ndbsim.engine import clock, exposure
from ndbsim.engine.prepare import prepare
from ndbsim.engine.records import NodeRun, Replication, Status
from ndbsim.engine.restart.pipeline import restart
from ndbsim.engine.runtime import Runtime
from ndbsim.input.scenario import ROLLING_TYPES, Resolved
from ndbsim.input.units import format_bytes

__all__ = ["Replication", "checkpoint_figures", "restart_plan", "simulate_once"]

REDO_WARN_FILL = 0.6
"""Warn when the REDO a node must keep reaches this share of the log: EnableRedoControl's
critical alert level (reference §2.4), where NDB itself starts to push LCPs hard."""

DATA_MEMORY_WARN_FILL = 0.8
"""Seed 004's best practice: "never fill up your database with more than 80% of the
DataMemory", as a system restart may re-allocate the data in another order."""


def restart_plan(rt: Runtime) -> tuple[str, list[list[int]]]:
    """(kind, waves of node ids). Nodes of one wave restart together; a rolling restart is
    node restarts in the waves of ``restart.plan`` (per-node-group: one wave per replica of each
    node group), an initial-rolling one initial node restarts in the same waves."""
    s = rt.scenario
    kind = s.restart.type
    all_ids = [n.id for n in rt.nodes]
    if kind == "system":
        return "system", [all_ids]
    if kind in ROLLING_TYPES:
        chosen = s.restart.nodes or all_ids
        kind = "initial" if kind == "initial-rolling" else "node"
        plan = s.restart.plan
        if plan == "one-at-a-time":
            return kind, [[n] for n in sorted(chosen)]
        if not isinstance(plan, str):  # explicit waves, checked against the node groups on input
            return kind, [list(w) for w in plan]
        replicas = rt.sz.replicas
        waves: list[list[int]] = []
        for member in range(replicas):
            wave = [n.id for n in rt.nodes if n.id in chosen and (n.id - 1) % replicas == member]
            if wave:
                waves.append(wave)
        return kind, waves
    return kind, [s.restart.nodes or [all_ids[-1]]]


class _Orchestra:
    """Runs the waves one after another; stops after a wave in which a node failed."""

    def __init__(self, rt: Runtime, kind: str, waves: list[list[int]]):
        self.rt, self.kind, self.waves = rt, kind, waves
        self.runs: list[NodeRun] = []
        self.failed: NodeRun | None = None

    def play(self) -> Generator[Event, Any, None]:
        rt = self.rt
        env = rt.env
        yield env.timeout(rt.plan.t_crash)
        rt.note_redo()
        for number, wave in enumerate(self.waves, start=1):
            procs = []
            for nid in wave:
                node = rt.nodes[nid - 1]
                run = NodeRun(node_id=nid, kind=self.kind, start=env.now, wave=number)
                self.runs.append(run)
                procs.append(env.process(restart(rt, node, self.kind, run)))
            yield env.all_of(procs)
            bad = [x for x in self.runs if x.status != Status.OK]
            if bad:
                self.failed = bad[0]
                return


def simulate_once(resolved: Resolved, rng: np.random.Generator) -> Replication:
    rt = Runtime(prepare(resolved, rng), rng)
    env = rt.env
    s = resolved.scenario
    kind, waves = restart_plan(rt)
    chosen = s.restart.nodes
    if s.restart.type in ROLLING_TYPES and chosen and len(set(chosen)) < len(rt.nodes):
        rt.warnings.append(
            f"a{'n initial-' if s.restart.type == 'initial-rolling' else ' '}rolling restart of restart.nodes "
            f"{sorted(set(chosen))} only, not of all {len(rt.nodes)} data nodes; drop restart.nodes to roll "
            "through the whole cluster"
            + ("; the others keep the old release, so the cluster stays mixed" if s.restart.upgrade_to else "")
        )
    orchestra = _Orchestra(rt, kind, waves)
    rt.start()
    done = env.process(orchestra.play())
    # the horizon bounds the restarts' own work: each wave's planned downtime comes on top
    horizon = rt.plan.t_crash + s.simulation.horizon + s.restart.downtime * len(waves)
    env.run(until=done | env.timeout(horizon))
    events = clock.events_scheduled(env)
    runs = orchestra.runs
    status, reason = _ending(orchestra, done.triggered, s.simulation.horizon)
    rt.note_redo()
    warnings = list(rt.warnings)
    checkpoint = checkpoint_figures(rt)
    status, reason = _redo_verdict(rt, checkpoint, status, reason, warnings)
    if s.restart.type == "system" and s.data.size > DATA_MEMORY_WARN_FILL * resolved.config["DataMemory"]:
        warnings.append(
            "data fills more than 80% of DataMemory: a system restart may fail to "
            "re-allocate it in another order (seed 004); raise DataMemory"
        )
    # A restart that did not complete has no total: it is reported as infinite (null in JSON), so
    # no table, comparison or ranking reads it as faster than one that completes; where it stopped
    # is stopped_secs / stopped_in.
    ends = [x.end for x in runs if not math.isnan(x.end)]
    total = (max(ends) - rt.plan.t_crash) if ends and status is Status.OK else math.inf
    stopped, stopped_in = _stopped(rt, runs, status, checkpoint)
    for x in runs:
        if math.isnan(x.end):
            x.end = math.inf
    single = exposure.single_replica(rt, runs) if kind != "system" else []
    warnings.extend(exposure.warnings(rt.sz.replicas, single))
    full = _warn_data_memory_fills(rt, total, warnings)
    return Replication(
        total_restart_secs=total,
        status=status,
        reason=reason,
        nodes=runs,
        checkpoint=checkpoint,
        warnings=warnings,
        events=events,
        setting_flags=list(rt.setting_flags),
        single_replica=single,
        data_memory_full=full,
        stopped_secs=stopped,
        stopped_in=stopped_in,
    )


def _stopped(rt: Runtime, runs: list[NodeRun], status: Status, checkpoint: dict[str, Any]) -> tuple[float, str]:
    """Where a restart that did not complete stopped: the seconds after the crash and the phase a
    restarting node was in. A failed node stops where its last phase began (a copy that never
    converges, no live node to copy from); a stuck restart at the horizon, in the phase it did not
    finish; error 410 when a live node first had to keep more REDO than its log holds (at the
    crash when the steady LCP cycle already needs more, NDB refusing writes before the restart)."""
    t_crash = rt.plan.t_crash
    if status is Status.OK:
        return math.nan, ""
    if status is Status.REDO_OVERLOAD:
        steady = checkpoint["redo_bytes_needed"] > checkpoint["redo_capacity_bytes"]
        at = t_crash if steady else min(rt.redo.overloaded_at, rt.env.now)
    else:
        failed = [x for x in runs if x.status is not Status.OK]
        at = failed[0].spans[-1][1] if failed and failed[0].spans else rt.env.now
    return max(0.0, at - t_crash), _phase_at(runs, at)


def _phase_at(runs: list[NodeRun], t: float) -> str:
    """The phase a restarting node was in at ``t`` (the first node's whose span holds it); ''
    when none holds it (a node between phases, or every node's phases over)."""
    for x in runs:
        for name, a, b in x.spans:
            if a <= t < b or (a == t == b):
                return name
    return ""


def _ending(orchestra: _Orchestra, finished: bool, horizon: float) -> tuple[Status, str]:
    """The status before the REDO is looked at: a node's failure, or stuck past the horizon."""
    if orchestra.failed is not None:
        return orchestra.failed.status, orchestra.failed.reason
    if finished:
        return Status.OK, ""
    waiting = [x for x in orchestra.runs if math.isnan(x.end)]
    last = waiting[0].spans[-1][0] if waiting and waiting[0].spans else None
    return Status.STUCK, (
        f"the restart did not finish within simulation.horizon ({horizon:.0f} s); "
        + (f"the last phase it finished was {last}" if last else "it had finished no phase")
    )


def _redo_verdict(
    rt: Runtime, checkpoint: dict[str, Any], status: Status, reason: str, warnings: list[str]
) -> tuple[Status, str]:
    """Error 410 when a live node had to keep more REDO than its log holds: the restart's status
    if it had none worse, else a warning; a warning too when the log came close."""
    peak, capacity = checkpoint["redo_peak_bytes"], checkpoint["redo_capacity_bytes"]
    if peak > capacity and status in (Status.OK, Status.STUCK):
        return Status.REDO_OVERLOAD, (
            f"REDO log overloaded (error 410): {format_bytes(peak)} of REDO must "
            f"be kept but the log holds {format_bytes(capacity)} "
            "(NoOfFragmentLogParts × NoOfFragmentLogFiles × FragmentLogFileSize); raise "
            f"NoOfFragmentLogFiles or {_speed_fix(rt)}"
        )
    if peak > capacity:
        warnings.append(
            f"the REDO log also overloads (error 410): {format_bytes(peak)} needed, {format_bytes(capacity)} configured"
        )
    elif peak > REDO_WARN_FILL * capacity:
        warnings.append(f"REDO log reaches {100 * (peak / capacity):.0f}% of its capacity; error 410 is close")
    return status, reason


def _warn_data_memory_fills(rt: Runtime, total: float, warnings: list[str]) -> bool:
    """Whether the inserts during the restart fill DataMemory before it ends (NDB error 827), with
    the warning when they do."""
    sz, rates = rt.sz, rt.plan.restart_rates
    grow = (rates.inserts - rates.deletes) / sz.groups  # net new rows per node per second
    span = total if math.isfinite(total) else rt.env.now - rt.plan.t_crash
    if grow > 0 and span * grow > sz.max_rows - sz.rows:
        warnings.append(
            f"inserts during the restart fill DataMemory after {(sz.max_rows - sz.rows) / grow:,.0f} s "
            "(NDB error 827); ndbsim keeps data.size fixed and copies at most what DataMemory holds"
        )
        return True
    return False


def _speed_fix(rt: Runtime) -> str:
    """The parameters that make this version's LCPs write faster, for the error-410 advice."""
    f, plan = rt.sz.features, rt.plan
    if plan.base.speed >= rt.speeds.at(plan.base_rates).disk_left * (1.0 - 1e-9):
        return "use a faster disk (host.disk_write): the LCPs already write as fast as the disk allows beside the REDO"
    if f.legacy_speed_parameters:
        return "DiskCheckpointSpeed (shorter LCPs release REDO sooner)"
    if f.redo_control:
        return (
            "MaxDiskWriteSpeedOtherNodeRestart and MaxDiskWriteSpeedOwnRestart, the speeds "
            "EnableRedoControl raises the LCP to as the REDO fills"
        )
    fix = "MaxDiskWriteSpeed (shorter LCPs release REDO sooner)"
    return fix + ", or set EnableRedoControl=true" if f.redo_control_available else fix


def checkpoint_figures(rt: Runtime) -> dict[str, Any]:
    """Steady-state checkpoint figures under the pre-restart workload (per node)."""
    base = rt.plan.base
    steady = base.record
    lcp_secs = steady.end - steady.start
    cycle = base.cycle if math.isfinite(base.cycle) else 0.0
    needed = max(base.redo_bytes, base.redo_floor)
    return {
        "policy": rt.sz.policy.name,
        "lcp_secs": lcp_secs,
        "lcp_bytes": steady.bytes,
        "lcp_cycle_secs": cycle,
        "lcp_write_speed": base.speed,
        "redo_bytes_needed": needed,
        "redo_capacity_bytes": rt.sz.redo_capacity,
        "redo_peak_bytes": max(rt.redo.peak_bytes, needed),
        "lcps_simulated": rt.lcp.count,
    }
