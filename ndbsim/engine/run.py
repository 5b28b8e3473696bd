"""One replication: build the cluster, warm it up, restart the nodes, collect plain records."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ndbsim.engine.cluster import Cluster
from ndbsim.engine.restart import NodeRun, Restarter
from ndbsim.scenario import Resolved
from ndbsim.units import format_bytes

STATUS_OK = "ok"
"""The status of a restart that finished; the others are non-converging, stuck, redo-overload."""

REDO_WARN_FILL = 0.6
"""Warn when the REDO a node must keep reaches this share of the log: EnableRedoControl's
critical alert level (reference §2.4), where NDB itself starts to push LCPs hard."""

DATA_MEMORY_WARN_FILL = 0.8
"""Seed 004's best practice: "never fill up your database with more than 80% of the
DataMemory", as a system restart may re-allocate the data in another order."""


@dataclass
class Replication:
    """The outcome of one simulated restart (all nodes)."""

    total_restart_secs: float
    status: str
    reason: str
    nodes: list[NodeRun]
    checkpoint: dict[str, float]
    warnings: list[str] = field(default_factory=list)
    events: int = 0


def restart_plan(c: Cluster) -> tuple[str, list[list[int]]]:
    """(kind, waves of node ids). Nodes of one wave restart together."""
    s = c.s
    kind = s.restart.type
    all_ids = [n.id for n in c.nodes]
    if kind == "system":
        return "system", [all_ids]
    if kind == "rolling":
        chosen = s.restart.nodes or all_ids
        waves: list[list[int]] = []
        for member in range(c.replicas):
            wave = [n.id for n in c.nodes if n.id in chosen and (n.id - 1) % c.replicas == member]
            if wave:
                waves.append(wave)
        return "node", waves
    return kind, [s.restart.nodes or [all_ids[-1]]]


def simulate_once(resolved: Resolved, rng: np.random.Generator) -> Replication:
    c = Cluster(resolved, rng)
    env = c.env
    r = Restarter(c)
    kind, waves = restart_plan(c)
    chosen = resolved.scenario.restart.nodes
    if resolved.scenario.restart.type == "rolling" and chosen and len(set(chosen)) < len(c.nodes):
        c.warnings.append(
            f"a rolling restart of restart.nodes {sorted(set(chosen))} only, not of all "
            f"{len(c.nodes)} data nodes; drop restart.nodes to roll through the whole cluster"
        )
    runs: list[NodeRun] = []
    state = {"failed": None}

    def orchestrate():
        yield env.timeout(c.t_crash)
        c.note_redo()
        for wave in waves:
            procs = []
            for nid in wave:
                node = c.nodes[nid - 1]
                run = NodeRun(node_id=nid, kind=kind, start=env.now)
                runs.append(run)
                procs.append(env.process(r.restart(node, kind, run)))
            yield env.all_of(procs)
            bad = [x for x in runs if x.status != STATUS_OK]
            if bad:
                state["failed"] = bad[0]
                return

    c.start()
    done = env.process(orchestrate())
    # the horizon bounds the restarts' own work: each wave's planned downtime comes on top
    horizon = c.t_crash + resolved.scenario.simulation.horizon + resolved.scenario.restart.downtime * len(waves)
    env.run(until=done | env.timeout(horizon))
    events = next(env._eid)

    status, reason = STATUS_OK, ""
    failed = state["failed"]
    if failed is not None:
        status, reason = failed.status, failed.reason
    elif not done.triggered:
        status = "stuck"
        waiting = [x for x in runs if math.isnan(x.end)]
        done = waiting[0].spans[-1][0] if waiting and waiting[0].spans else None
        reason = (
            f"the restart did not finish within simulation.horizon "
            f"({resolved.scenario.simulation.horizon:.0f} s); "
            + (f"the last phase it finished was {done}" if done else "it had finished no phase")
        )
    c.note_redo()
    warnings = list(c.warnings)
    checkpoint = checkpoint_figures(c)
    if checkpoint["redo_peak_bytes"] > checkpoint["redo_capacity_bytes"] and status in (STATUS_OK, "stuck"):
        status = "redo-overload"
        reason = (
            f"REDO log overloaded (error 410): {format_bytes(checkpoint['redo_peak_bytes'])} of REDO must "
            f"be kept but the log holds {format_bytes(checkpoint['redo_capacity_bytes'])} "
            "(NoOfFragmentLogParts × NoOfFragmentLogFiles × FragmentLogFileSize); raise "
            f"NoOfFragmentLogFiles or {_speed_fix(c)}"
        )
    elif checkpoint["redo_peak_bytes"] > checkpoint["redo_capacity_bytes"]:
        warnings.append(
            f"the REDO log also overloads (error 410): {format_bytes(checkpoint['redo_peak_bytes'])} "
            f"needed, {format_bytes(checkpoint['redo_capacity_bytes'])} configured"
        )
    elif checkpoint["redo_peak_bytes"] > REDO_WARN_FILL * checkpoint["redo_capacity_bytes"]:
        fill = checkpoint["redo_peak_bytes"] / checkpoint["redo_capacity_bytes"]
        warnings.append(f"REDO log reaches {100 * fill:.0f}% of its capacity; error 410 is close")
    s = resolved.scenario
    if s.restart.type == "system" and s.data.size > DATA_MEMORY_WARN_FILL * resolved.config["DataMemory"]:
        warnings.append(
            "data fills more than 80% of DataMemory: a system restart may fail to "
            "re-allocate it in another order (seed 004); raise DataMemory"
        )
    # A restart that cannot finish has no total: it is reported as infinite (null in JSON).
    ends = [x.end for x in runs if not math.isnan(x.end)]
    total = (max(ends) - c.t_crash) if ends and status in (STATUS_OK, "redo-overload") else math.inf
    for x in runs:
        if math.isnan(x.end):
            x.end = math.inf
    grow = (c.restart_rates.inserts - c.restart_rates.deletes) / c.groups  # net new rows per node per second
    span = total if math.isfinite(total) else env.now - c.t_crash
    if grow > 0 and span * grow > c.max_rows - c.rows:
        warnings.append(
            f"inserts during the restart fill DataMemory after {(c.max_rows - c.rows) / grow:,.0f} s "
            "(NDB error 827); ndbsim keeps data.size fixed and copies at most what DataMemory holds"
        )
    return Replication(
        total_restart_secs=total,
        status=status,
        reason=reason,
        nodes=runs,
        checkpoint=checkpoint,
        warnings=warnings,
        events=events,
    )


def _speed_fix(c: Cluster) -> str:
    """The parameters that make this version's LCPs write faster, for the error-410 advice."""
    if c.base_lcp_speed >= c.disk_write_left(c.base_rates) * (1.0 - 1e-9):
        return "use a faster disk (host.disk_write): the LCPs already write as fast as the disk allows beside the REDO"
    if c.mech.legacy_speed_parameters:
        return "DiskCheckpointSpeed (shorter LCPs release REDO sooner)"
    if c.redo_control:
        return (
            "MaxDiskWriteSpeedOtherNodeRestart and MaxDiskWriteSpeedOwnRestart, the speeds "
            "EnableRedoControl raises the LCP to as the REDO fills"
        )
    fix = "MaxDiskWriteSpeed (shorter LCPs release REDO sooner)"
    return fix + ", or set EnableRedoControl=true" if c.mech.redo_control else fix


def checkpoint_figures(c: Cluster) -> dict[str, float]:
    """Steady-state checkpoint figures under the pre-restart workload (per node)."""
    steady, base_cycle = c.base_steady
    lcp_secs = steady.end - steady.start
    cycle = base_cycle if math.isfinite(base_cycle) else 0.0
    needed = max(c.steady_redo_bytes(c.base_rates, steady, base_cycle), c.base_redo_floor)
    return {
        "policy": c.policy.name,
        "lcp_secs": lcp_secs,
        "lcp_bytes": steady.bytes,
        "lcp_cycle_secs": cycle,
        "lcp_write_speed": c.base_lcp_speed,
        "redo_bytes_needed": needed,
        "redo_capacity_bytes": c.redo_capacity,
        "redo_peak_bytes": max(c.redo_peak_bytes, needed),
        "lcps_simulated": c.lcp.count,
    }
