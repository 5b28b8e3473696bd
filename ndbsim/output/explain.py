"""What a run simulated, as fields: version and profile, data, host, thread layout, workload
before and during the restart, and which values came from a default rather than from the user
(the scenario file, the config.ini or ``--set``; ``origins`` tells them apart).

Every run states this under its title (``header``), in JSON (``simulated``, ``defaulted``) and
in CSV (one column per fact), so a result never hides what it assumed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ndbsim.input.scenario.model import Resolved, Scenario
from ndbsim.input.scenario.provenance import DEFAULT_SCENARIO, GIVEN, OVERRIDES, PYTHON_ARG, SET
from ndbsim.output.header import RATE_KEYS, value_text
from ndbsim.output.origins import explained_keys, given_keys, origin_of, value_at

if TYPE_CHECKING:
    from ndbsim.input.threads import ThreadLayout

KEEP_DURING_RESTART = {
    SET: "add --set workload.during_restart.{key}=null",
    PYTHON_ARG: "pass workload__during_restart__{key}=None",
}
"""How to make a rate given by each kind of override hold during the restart too."""

EXPLAINED_SECTIONS = ("cluster", "host", "data", "workload", "restart")
"""Scenario sections whose defaulted values a run names (``simulation`` holds seeds and
horizons, which change no modelled quantity; ``name`` and ``expect`` are labels)."""


def _rates(section: Any) -> dict[str, float | None]:
    if section is None:
        return {}
    return {k: getattr(section, k) for k in RATE_KEYS}


def describe(resolved: Resolved, where: dict[str, str] | None = None, node_ids: list[int] | None = None) -> dict:
    """The ``simulated`` fields of a result: every modelled input as run, and ``defaulted``:
    each scenario key no input gave (with its value and origin). ``where`` maps dotted keys to
    their origin (``input.scenario.provenance.origins``); without it, the keys the scenario set count as given."""
    s: Scenario = resolved.scenario
    given = given_keys(s) if where is None else set()  # ``where`` says what was given, when known
    simulated = {"version_from": origin_of("version", given, where), **_simulated(resolved, node_ids)}
    return {"simulated": simulated, "defaulted": _defaulted(s, given, where)}


def _workload(s: Scenario) -> dict[str, Any]:
    """The steady rates, the burst before the restart (None: none) and the rates during it, each
    rate a period leaves out taken from the steady workload."""
    w = s.workload
    steady = _rates(w)
    during = {k: (v if v is not None else steady[k]) for k, v in _rates(w.during_restart).items()} or dict(steady)
    burst = None
    if w.before_restart is not None and w.before_restart.duration > 0:
        burst = {k: (v if v is not None else steady[k]) for k, v in _rates(w.before_restart).items()}
        burst["duration"] = w.before_restart.duration
    return {"steady": steady, "before_restart": burst, "during_restart": during}


def _simulated(resolved: Resolved, node_ids: list[int] | None) -> dict[str, Any]:
    """Every modelled input as run, from the resolved scenario (config.ini values included)."""
    from ndbsim.input.threads import layout

    s = resolved.scenario
    cfg = resolved.config
    tables = s.data.table_amounts()
    mech = resolved.profile.mechanisms
    threads = layout(cfg, mech.multithreaded, mech.query_threads, s.host.cpu_cores * s.host.threads_per_core)
    up = resolved.upgrade
    return {
        "version": s.version,
        "profile": resolved.profile.name,
        "data_nodes": s.cluster.data_nodes,
        "node_ids": node_ids,
        "NoOfReplicas": cfg["NoOfReplicas"],
        "restart": {
            "type": s.restart.type,
            "nodes": _restarted(resolved),
            "cause": s.restart.cause,
            "downtime": s.restart.downtime,
        },
        "data": {
            "size": s.data.size,
            "rows": sum(t.rows for t in tables),
            "rows_from_row_size": not s.data.rows and not isinstance(s.data.tables, list),
            "tables": s.data.table_count,
            "ordered_indexes": round(sum(t.ordered_indexes for t in tables)),
            "disk_data_size": sum(t.disk_data for t in tables),
            "DataMemory": cfg["DataMemory"],
        },
        "host": {
            "cpu_cores": s.host.cpu_cores,
            "threads_per_core": s.host.threads_per_core,
            "core_speed": s.host.core_speed,
            "disk_read": s.host.disk_read,
            "disk_write": s.host.disk_write,
            "network": s.host.network,
        },
        "threads": _threads(cfg, threads),
        **({"upgrade_to": up.scenario.version, "upgrade_threads": _threads(up.config, _layout_of(up))} if up else {}),
        "workload": _workload(s),
    }


def _layout_of(resolved: Resolved) -> ThreadLayout:
    from ndbsim.input.threads import layout

    mech, h = resolved.profile.mechanisms, resolved.scenario.host
    return layout(resolved.config, mech.multithreaded, mech.query_threads, h.cpu_cores * h.threads_per_core)


def _threads(cfg: dict[str, Any], t: ThreadLayout) -> dict[str, Any]:
    """A node's thread layout as a result states it: each NDB thread type's count, the threads that
    restore LCP fragments, the setting that gave the layout, and the settings themselves."""
    return {
        **{k: v for k, v in t.counts().items() if k != "requested"},
        "restore_threads": t.restore_threads,
        "source": t.source,
        "MaxNoOfExecutionThreads": cfg.get("MaxNoOfExecutionThreads"),
        "ThreadConfig": cfg.get("ThreadConfig") or None,
        "AutomaticThreadConfig": bool(cfg.get("AutomaticThreadConfig")),
        "NumCPUs": cfg.get("NumCPUs"),
    }


def _defaulted(s: Scenario, given: set[str], where: dict[str, str] | None) -> list[dict[str, Any]]:
    """Each explained key no input gave, with its value and origin; ``version`` first."""
    defaulted = []
    for key in explained_keys(Scenario, EXPLAINED_SECTIONS):
        origin = origin_of(key, given, where)
        if origin in GIVEN:
            continue
        if key == "data.row_size" and s.data.rows:
            continue  # used only to derive data.rows, which is given
        defaulted.append({"key": key, "value": value_at(s, key), "from": origin})
    version = origin_of("version", given, where)
    if version not in GIVEN and not any(d["key"] == "version" for d in defaulted):
        defaulted.insert(0, {"key": "version", "value": s.version, "from": version})
    return defaulted


def _same_release_note(resolved: Resolved) -> str:
    """An upgrade between two releases that differ in nothing ndbsim models (defaults, mechanisms,
    fitted constants, the resolved config.ini), said in one line: it runs as the plain rolling
    restart (``ndbsim params --diff`` lists the same nothing)."""
    from ndbsim.input.profiles import differences

    up = resolved.upgrade
    if up is None:
        return ""
    old, new = resolved.profile, up.profile
    if differences(old, new) or old.constants != new.constants or resolved.config != up.config:
        return ""
    a, b = resolved.scenario.version, up.scenario.version
    return (
        f"restart.upgrade_to {b}: NDB {a} and {b} differ in nothing ndbsim models (ndbsim params --version {a} "
        f"--diff {b}), so this upgrade simulates as the plain rolling restart"
    )


def input_notes(resolved: Resolved, where: dict[str, str]) -> list[str]:
    """Warnings about an NDB scenario's input: a rate given with ``--set`` (or to ``simulate()``)
    that the scenario's ``workload.during_restart`` overrides while the node restarts, and a
    section (host, data, workload) no input gave."""
    s = resolved.scenario
    notes = []
    listed = s.restart.nodes
    if s.restart.type == "system" and listed and sorted(set(listed)) != list(range(1, s.cluster.data_nodes + 1)):
        shown = [resolved.node_id(i) for i in listed]
        notes.append(
            f"restart.nodes {shown} is not used: a system restart restarts all {s.cluster.data_nodes} data nodes; "
            "drop restart.nodes, or use restart.type node or rolling for some of them"
        )
    same = _same_release_note(resolved)
    if same:
        notes.append(same)
    during = s.workload.during_restart
    for k in RATE_KEYS:
        origin = where.get(f"workload.{k}", "")
        if origin not in OVERRIDES or during is None or getattr(during, k) is None:
            continue
        if where.get(f"workload.during_restart.{k}") in OVERRIDES:
            continue
        notes.append(
            f"workload.{k}={value_text(k, getattr(s.workload, k))} ({origin}) runs before the restart only: the "
            f"scenario's workload.during_restart.{k}={value_text(k, getattr(during, k))} replaces it while the node "
            f"restarts; {KEEP_DURING_RESTART[origin].format(key=k)} to keep it during the restart too"
        )
    if DEFAULT_SCENARIO in where.values():
        notes.append(
            "no scenario given: this is the built-in default scenario (seed 003's DBT2 600 warehouses), not "
            "your cluster; start one with ndbsim init --config-ini YOUR.ini --version X.Y.Z (or --ndbinfo EXPORT)"
        )
    else:
        notes.extend(
            f"{section}: not given, so ndbsim's defaults were simulated (listed under defaulted); "
            f"set {section}.* in the scenario or with --set"
            for section in ("host", "data", "workload")
            if not any(k == section or k.startswith(section + ".") for k in where)
        )
    return notes


def overridden_rates(raw: dict[str, Any], varied: Iterable[str], how: str) -> list[str]:
    """Warnings for rates a sweep varies (``varied`` keys, e.g. ``workload.updates_per_s``) that
    the base scenario's ``workload.during_restart`` replaces while the node restarts, so the
    restart never sees them; ``how`` says where to set the fix (a sweep file's ``set:``)."""
    varied = set(varied)
    workload = raw.get("workload")
    during = workload.get("during_restart") if isinstance(workload, dict) else None
    if not isinstance(during, dict):
        during = {}
    return [
        f"workload.{k} is varied but the base's workload.during_restart.{k}={during[k]} replaces it while the "
        f"node restarts, so every point restarts at that rate; set workload.during_restart.{k}=null ({how}) "
        "or vary it too"
        for k in RATE_KEYS
        if f"workload.{k}" in varied and during.get(k) is not None and f"workload.during_restart.{k}" not in varied
    ]


def _restarted(resolved: Resolved) -> list[int]:
    """The NodeIds that restart: ``restart.nodes``, else the highest-numbered node for a node or
    initial restart and every node for a system or rolling one (engine/run.py's plan)."""
    s = resolved.scenario
    n = s.cluster.data_nodes
    if s.restart.nodes and s.restart.type != "system":  # a system restart restarts them all
        picked = s.restart.nodes
    elif s.restart.type in ("system", "rolling"):
        picked = list(range(1, n + 1))
    else:
        picked = [n]
    return [resolved.node_id(i) for i in picked]


def annotate(result: Any, resolved: Resolved, where: dict[str, str], notes: list[str], changes: list[str]) -> None:
    """Give an NDB result what it needs to explain itself: the simulated and defaulted fields
    with each value's origin, the input warnings and what changed the scenario."""
    result.explained = describe(resolved, where, resolved.node_ids)
    result.notes = [*notes, *input_notes(resolved, where)]
    result.changes = changes
