"""Resolving a scenario: its version profile, its config.ini parameters at their defaults, its
NodeIds and upgrade, and the checks that only hold with all of them (node groups with a live
replica, rows that fit DataMemory, a thread layout and REDO log parts NDB accepts)."""

from __future__ import annotations

from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.config import params as config_params
from ndbsim.input.profiles import Profile, parse_version, profile_for
from ndbsim.input.scenario.model import Resolved, Scenario
from ndbsim.input.scenario.sections import ROLLING_TYPES
from ndbsim.input.units import format_bytes
from ndbsim.input.units import format_secs as secs_text


def resolve(scenario: Scenario, source: str | None = None) -> Resolved:
    """Attach the version profile and resolve every config.ini parameter."""
    profile = profile_for(scenario.version)
    node_ids = scenario.cluster.node_ids
    try:
        config = config_params.resolve(profile.defaults, scenario.cluster.config)
        if node_ids is not None:
            scenario = _engine_numbering(scenario, node_ids)
        _check_consistency(scenario, profile, config, node_ids)
        upgrade = _resolve_upgrade(scenario, node_ids) if scenario.restart.upgrade_to is not None else None
    except InputError as e:
        raise (e.located(source) if source else e) from None
    return Resolved(scenario, profile, config, list(node_ids) if node_ids else None, upgrade)


def _resolve_upgrade(s: Scenario, node_ids: list[int] | None) -> Resolved:
    """The release ``restart.upgrade_to`` names, resolved with the scenario's own config.ini: a
    restarted node reads the same config.ini, with the new release's defaults where it sets
    nothing (``ndbsim.upgrade`` checks the path)."""
    from ndbsim.input.upgrade import check_upgrade

    target = str(s.restart.upgrade_to)
    check_upgrade(s.version, target, s.restart.type)
    new = s.model_copy(update={"version": target, "restart": s.restart.model_copy(update={"upgrade_to": None})})
    profile = profile_for(target)
    config = config_params.resolve(profile.defaults, s.cluster.config)
    try:
        _check_consistency(new, profile, config, node_ids)
    except InputError as e:
        raise InputError(f"on the upgrade's release {target}: {e.message}", field=e.field) from None
    return Resolved(new, profile, config, list(node_ids) if node_ids else None)


def _engine_numbering(s: Scenario, node_ids: list[int]) -> Scenario:
    """The scenario with ``restart.nodes`` as the engine numbers data nodes (1..data_nodes in
    ``cluster.node_ids``' order), after checking the NodeIds."""
    if len(node_ids) != s.cluster.data_nodes:
        raise InputError(
            f"{len(node_ids)} NodeIds for {s.cluster.data_nodes} data nodes; list one NodeId per data node",
            field="cluster.node_ids",
        )
    if len(set(node_ids)) != len(node_ids):
        dup = next(x for x in node_ids if node_ids.count(x) > 1)
        raise InputError(f"NodeId {dup} is listed twice; list each data node once", field="cluster.node_ids")
    index = {nid: i + 1 for i, nid in enumerate(node_ids)}
    s = _plan_numbering(s, index, node_ids)
    if not s.restart.nodes:
        return s
    for n in s.restart.nodes:
        if n not in index:
            raise InputError(
                f"node {n} is not a data node; use NodeIds {', '.join(map(str, node_ids))} (cluster.node_ids)",
                field="restart.nodes",
            )
    restart = s.restart.model_copy(update={"nodes": [index[n] for n in s.restart.nodes]})
    return s.model_copy(update={"restart": restart})


def _plan_numbering(s: Scenario, index: dict[int, int], node_ids: list[int]) -> Scenario:
    """The scenario with ``restart.plan``'s waves of NodeIds as the engine numbers nodes."""
    plan = s.restart.plan
    if isinstance(plan, str):
        return s
    for wave in plan:
        for n in wave:
            if n not in index:
                raise InputError(
                    f"node {n} of wave {wave} is not a data node; use NodeIds {', '.join(map(str, node_ids))}",
                    field="restart.plan",
                )
    waves = [[index[n] for n in wave] for wave in plan]
    return s.model_copy(update={"restart": s.restart.model_copy(update={"plan": waves})})


def _check_plan(s: Scenario, replicas: int, nodes: int, name: Any) -> None:
    """Explicit waves: a rolling restart's, every restarted node in exactly one wave, and no wave
    taking a whole node group down (its data would be gone: the cluster shuts down)."""
    plan = s.restart.plan
    if plan == "per-node-group":
        return
    if s.restart.type not in ROLLING_TYPES:
        raise InputError(
            f"a restart plan ({plan}) orders the waves of a rolling restart, not a {s.restart.type} restart; "
            "use restart.type=rolling or initial-rolling, or drop restart.plan",
            field="restart.plan",
        )
    if isinstance(plan, str):
        return
    chosen = sorted(s.restart.nodes or range(1, nodes + 1))
    seen: list[int] = []
    for wave in plan:
        if not wave:
            raise InputError("a wave is empty; give each wave one node or more", field="restart.plan")
        for n in wave:
            if not 1 <= n <= nodes:
                raise InputError(
                    f"node {n} of wave {wave} does not exist; use node ids 1..{nodes}", field="restart.plan"
                )
            if n in seen:
                raise InputError(f"node {name(n)} is in two waves; restart each node once", field="restart.plan")
            seen.append(n)
        for first in range(1, nodes + 1, replicas):
            group = list(range(first, first + replicas))
            if set(wave).issuperset(group):
                raise InputError(
                    f"wave {[name(n) for n in wave]} takes all of node group {(first - 1) // replicas} "
                    f"(nodes {[name(n) for n in group]}) down at once: the cluster would shut down; put "
                    "those nodes in different waves",
                    field="restart.plan",
                )
    if sorted(seen) != chosen:
        missing = sorted(set(chosen) - set(seen))
        extra = sorted(set(seen) - set(chosen))
        what = f"leave out {[name(n) for n in missing]}" if missing else f"add {[name(n) for n in extra]}"
        raise InputError(
            f"the waves {what}, which the restart {'restarts' if missing else 'leaves alone'} "
            "(restart.nodes, or every node); "
            "list every restarted node in exactly one wave",
            field="restart.plan",
        )


def _check_live_replica(s: Scenario, replicas: int, nodes: int, node_ids: list[int] | None = None) -> None:
    """Node, initial and rolling restarts copy from a live replica of the same node group
    (nodes 1..NoOfReplicas form group 0, and so on); a group with no live node shuts the
    cluster down, so such a restart is not a node restart (reference §5)."""

    def name(n: int) -> int:  # the NodeId a message shows for engine node n
        return node_ids[n - 1] if node_ids else n

    kind = s.restart.type
    if kind == "system":
        return
    if replicas == 1:
        raise InputError(
            f"NoOfReplicas=1 leaves a restarting node no replica to copy from, so a {kind} restart "
            "is impossible; use restart.type=system or raise NoOfReplicas",
            field="cluster.config.NoOfReplicas",
        )
    _check_plan(s, replicas, nodes, name)
    if kind in ROLLING_TYPES:
        return  # the plan's waves keep a member of each node group up
    chosen = set(s.restart.nodes or [nodes])
    for first in range(1, nodes + 1, replicas):
        group = list(range(first, first + replicas))
        if chosen.issuperset(group):
            raise InputError(
                f"{sorted(name(n) for n in chosen)} includes every node of node group {(first - 1) // replicas} "
                f"(nodes {[name(n) for n in group]}), which then has no live replica to copy from; restart fewer "
                "nodes at once, or use restart.type=system or rolling",
                field="restart.nodes",
            )


def _check_consistency(s: Scenario, profile: Profile, cfg: dict[str, Any], node_ids: list[int] | None = None) -> None:
    from ndbsim.input.threads import check_layout, refused_types
    from ndbsim.input.threads import layout as thread_layout

    replicas = cfg["NoOfReplicas"]
    nodes = s.cluster.data_nodes
    if nodes % replicas:
        up = (nodes // replicas + 1) * replicas
        raise InputError(
            f"{nodes} is not a multiple of NoOfReplicas={replicas}; use {up} data nodes "
            "or change cluster.config.NoOfReplicas",
            field="cluster.data_nodes",
        )
    _check_node_list(s)
    seen: set[int] = set()
    for n in s.restart.nodes or []:
        if not 1 <= n <= nodes:
            raise InputError(
                f"node {n} does not exist; use node ids 1..{nodes} or raise cluster.data_nodes", field="restart.nodes"
            )
        if n in seen:
            raise InputError(f"node {n} is listed twice; list each node once", field="restart.nodes")
        seen.add(n)
    _check_live_replica(s, replicas, nodes, node_ids)
    check_within_horizon(s)
    _check_data_fits(s, cfg)
    mech = profile.mechanisms
    old_types = refused_types(str(cfg.get("ThreadConfig") or ""), mech.query_threads)
    if old_types:
        raise InputError(
            f"{cfg['ThreadConfig']!r} {old_types} (NDB {s.version}); remove those entries or set version "
            "8.0.23 or later",
            field="cluster.config.ThreadConfig",
        )
    threads = thread_layout(cfg, mech.multithreaded, mech.query_threads, s.host.cpu_cores * s.host.threads_per_core)
    refused = check_layout(threads, mech.query_threads)
    if refused:
        key = "ThreadConfig" if threads.source == "ThreadConfig" else "MaxNoOfExecutionThreads"
        raise InputError(
            f"{cfg[key]!r} {refused} (NDB {s.version}); set a count NDB accepts", field=f"cluster.config.{key}"
        )
    _check_log_parts(s, cfg["NoOfFragmentLogParts"], threads.ldm_workers)


def _check_data_fits(s: Scenario, cfg: dict[str, Any]) -> None:
    """Each row takes at least NDB's record overhead, and the data fits in DataMemory."""
    per_row = s.data.size / s.data.row_count
    if per_row < MIN_ROW_BYTES:
        key, fix = (
            ("data.rows", "lower data.rows or raise data.size")
            if s.data.rows
            else ("data.row_size", f"raise data.row_size to {MIN_ROW_BYTES:.0f}B or more")
        )
        raise InputError(
            f"{format_bytes(s.data.size)} over {s.data.row_count:,.0f} rows is {per_row:.3g} bytes per "
            f"row, but an NDB row takes at least {MIN_ROW_BYTES:.0f} bytes (its record overhead); "
            f"{fix}",
            field=key,
        )
    if s.data.size > cfg["DataMemory"]:
        size = format_bytes(s.data.size)
        said = "" if "size" in s.data.model_fields_set else f" (not set: ndbsim's default {size})"
        memory = (
            ""
            if any(config_params.canonical_name(k) == "DataMemory" for k in s.cluster.config)
            else f" (not set: NDB {s.version}'s default {format_bytes(cfg['DataMemory'])})"
        )
        raise InputError(
            f"{size} of data{said} does not fit in DataMemory={format_bytes(cfg['DataMemory'])}"
            f"{memory}; raise cluster.config.DataMemory or lower data.size",
            field="data.size",
        )


def _check_node_list(s: Scenario) -> None:
    """A node list that names no node would be run as the default node instead: refused. (Some
    nodes of a system restart, which restarts them all, get a warning: ``--set restart.type=system``
    over a scenario naming its node is common.)"""
    if s.restart.nodes is not None and not s.restart.nodes:
        raise InputError(
            "[] names no node to restart; list the node ids, e.g. [2], or drop restart.nodes for the default",
            field="restart.nodes",
        )


def check_within_horizon(s: Scenario) -> None:
    """The node's downtime is part of its restart, which must fit in the horizon: a restart that
    cannot even start before the horizon is a typo, not a stuck restart. The message names the
    value the user set (a horizon of 0 is the horizon's fault, not the downtime's)."""
    horizon = s.simulation.horizon
    if horizon <= 0:
        raise InputError(
            f"{horizon:.6g} s leaves no time to simulate; give a positive duration, e.g. 7d (the default)",
            field="simulation.horizon",
        )
    if s.restart.downtime >= horizon and "downtime" not in s.restart.model_fields_set:
        raise InputError(
            f"{secs_text(horizon)} is not after restart.downtime ({s.restart.downtime:.6g} s); raise it",
            field="simulation.horizon",
        )
    if s.restart.downtime >= horizon:
        raise InputError(
            f"{s.restart.downtime:.6g} s is not within simulation.horizon ({secs_text(horizon)}); "
            "shorten it or raise simulation.horizon",
            field="restart.downtime",
        )


MIN_ROW_BYTES = 16.0
"""The least a row can take in DataMemory: NDB's record overhead is 16 bytes (reference §7,
[DOC-NDBD80])."""
LOG_PARTS_80 = (4, 6, 8, 10, 12, 16, 20, 24, 32)
"""NoOfFragmentLogParts values NDB 8.0 accepts (reference §4, [DOC-NDBD80])."""
LOG_PARTS_PER_LDM = 4
""""More than 4 redo log parts per LDM is disallowed" (reference §4, [DOC-NDBD80])."""


def _check_log_parts(s: Scenario, parts: int, ldm: int) -> None:
    field = "cluster.config.NoOfFragmentLogParts"
    if parse_version(s.version) >= (8, 0, 0) and parts not in LOG_PARTS_80:
        raise InputError(
            f"{parts} is not a value NDB {s.version} accepts; use one of "
            f"{', '.join(map(str, LOG_PARTS_80))} (best: the number of LDM threads)",
            field=field,
        )
    if parts > LOG_PARTS_PER_LDM * max(1, ldm):
        raise InputError(
            f"{parts} REDO log parts for {ldm} LDM thread{'s' if ldm != 1 else ''}: NDB allows at most "
            f"{LOG_PARTS_PER_LDM} per LDM thread; use at most {LOG_PARTS_PER_LDM * max(1, ldm)} or "
            "more LDM threads (MaxNoOfExecutionThreads)",
            field=field,
        )
