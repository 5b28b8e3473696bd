"""What a run simulated, in words and as fields: version and profile, data, host, thread
layout, workload before and during the restart, and which values came from a default rather
than from the user (the scenario file, the config.ini or ``--set``).

Every run states this under its title (report.py), in JSON (``simulated``, ``defaulted``) and
in CSV (one column per fact), so a result never hides what it assumed.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterable
from functools import cache
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ndbsim.input.scenario import Resolved, Scenario
from ndbsim.input.units import format_bytes, format_secs

if TYPE_CHECKING:
    from ndbsim.input.threads import ThreadLayout

SCENARIO = "scenario"
"""Origin of a value written in the scenario file (or mapping) the user gave."""
DEFAULT_SCENARIO = "built-in default scenario"
"""Origin of a value taken from the built-in default scenario (``ndbsim run`` with no file)."""
CONFIG_INI = "config.ini"
"""Origin of a value read from ``--config-ini``."""
SET = "--set"
"""Origin of a value given with ``--set``."""
VERSION_OPTION = "--version"
"""Origin of the NDB release given with ``--version`` (a config.ini names no release)."""
NDBINFO = "ndbinfo export"
"""Origin of a value read from a running cluster's ndbinfo export (``ndbsim init --ndbinfo``)."""
PYTHON_ARG = "simulate() argument"
"""Origin of a value given to ``ndbsim.simulate()``: in ``overrides=`` or as a keyword argument."""
OVERRIDES = (SET, PYTHON_ARG)
"""The origins of a value set on top of the scenario (and of the sections it creates)."""
GIVEN = (SCENARIO, CONFIG_INI, VERSION_OPTION, NDBINFO, *OVERRIDES)
"""The origins of a value the user gave; any other origin is listed under ``defaulted``."""
KEEP_DURING_RESTART = {
    SET: "add --set workload.during_restart.{key}=null",
    PYTHON_ARG: "pass workload__during_restart__{key}=None",
}
"""How to make a rate given by each kind of override hold during the restart too."""
FROM_DATAMEMORY = "derived from DataMemory"
"""Origin of ``data.size`` when a config.ini alone gave no data size (``init_scenario``)."""
NDBSIM_DEFAULT = "ndbsim default"
"""Origin of a value no input gave: the scenario model's default (``ndbsim init`` lists them)."""

EXPLAINED_SECTIONS = ("cluster", "host", "data", "workload", "restart")
"""Scenario sections whose defaulted values a run names (``simulation`` holds seeds and
horizons, which change no modelled quantity; ``name`` and ``expect`` are labels)."""


@cache
def leaf_keys(model: type[BaseModel], prefix: str = "") -> tuple[str, ...]:
    """Every dotted scenario key below ``model`` that holds a value (sections recursed into;
    ``cluster.config`` is config.ini's and is reported by parameter, not here). A function of
    the class alone, so walked once per class."""
    keys: list[str] = []
    for name, info in model.model_fields.items():
        key = f"{prefix}{name}"
        if key == "cluster.config":
            continue
        sub = _model_of(info.annotation)
        if sub is not None and key not in ("workload.during_restart", "workload.before_restart"):
            keys.extend(leaf_keys(sub, key + "."))
        else:
            keys.append(key)
    return tuple(keys)


@cache
def explained_keys(model: type[BaseModel], sections: tuple[str, ...]) -> tuple[str, ...]:
    """The keys of ``leaf_keys(model)`` whose defaults a run names: ``version`` and those in
    ``sections``."""
    return tuple(k for k in leaf_keys(model) if k == "version" or k.startswith(sections))


def _model_of(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def given_keys(model: BaseModel, prefix: str = "") -> set[str]:
    """Dotted keys the input set explicitly (pydantic's ``model_fields_set``, recursively)."""
    out: set[str] = set()
    _given_into(model, prefix, out)
    return out


def _given_into(model: BaseModel, prefix: str, out: set[str]) -> None:
    for name in model.model_fields_set:
        value = getattr(model, name)
        key = f"{prefix}{name}"
        out.add(key)
        if isinstance(value, BaseModel):
            _given_into(value, key + ".", out)


def flat_keys(raw: Any, prefix: str = "") -> set[str]:
    """Dotted keys of a raw scenario mapping, sections included (``{"a": {"b": 1}}`` →
    ``{"a", "a.b"}``); ``cluster.config``'s parameters keep NDB's names after the prefix."""
    out: set[str] = set()
    if isinstance(raw, dict):
        _flat_into(raw, prefix, out)
    return out


def _flat_into(raw: dict[Any, Any], prefix: str, out: set[str]) -> None:
    for k, v in raw.items():
        key = f"{prefix}{k}"
        out.add(key)
        if isinstance(v, dict):
            _flat_into(v, key + ".", out)


def origins(
    raw: dict[str, Any],
    builtin: bool,
    config_ini: Iterable[str] = (),
    sets: Iterable[str] = (),
    base: dict[str, str] | None = None,
    set_origin: str = SET,
) -> dict[str, str]:
    """Where each given key came from: ``base``, the keys of the scenario ``raw`` (from the
    built-in default scenario when ``builtin``), then ``config_ini``'s keys, then ``sets``'
    keys (and the sections they set) with the origin ``set_origin``, the later winning."""
    out = dict(base or {})
    out.update(dict.fromkeys(flat_keys(raw), DEFAULT_SCENARIO if builtin else SCENARIO))
    out.update(dict.fromkeys(config_ini, CONFIG_INI))
    for key in sets:
        parts = key.split(".")
        for i in range(1, len(parts) + 1):
            out[".".join(parts[:i])] = set_origin
    return out


def _origin(key: str, given: set[str], where: dict[str, str] | None) -> str:
    if where is not None:
        if key in where:
            return where[key]
        for k in _parents(key):
            if where.get(k) in OVERRIDES:
                return where[k]
        return NDBSIM_DEFAULT
    return SCENARIO if key in given else NDBSIM_DEFAULT


@cache
def _parents(key: str) -> tuple[str, ...]:
    """The sections holding ``key``, innermost first (called with the model's own keys only)."""
    parts = key.split(".")
    return tuple(".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1))


RATE_KEYS = ("updates_per_s", "inserts_per_s", "deletes_per_s", "bytes_per_change")
"""The rate keys of a workload period (``workload``, ``during_restart``, ``before_restart``)."""


def _rates(section: Any) -> dict[str, float | None]:
    if section is None:
        return {}
    return {k: getattr(section, k) for k in RATE_KEYS}


def describe(resolved: Resolved, where: dict[str, str] | None = None, node_ids: list[int] | None = None) -> dict:
    """The ``simulated`` fields of a result: every modelled input as run, and ``defaulted``:
    each scenario key no input gave (with its value and origin). ``where`` maps dotted keys to
    their origin (see ``origins``); without it, the keys the scenario set count as given."""
    from ndbsim.input.threads import layout

    s: Scenario = resolved.scenario
    cfg = resolved.config
    given = given_keys(s) if where is None else set()  # ``where`` says what was given, when known
    w = s.workload
    steady = _rates(w)
    during = {k: (v if v is not None else steady[k]) for k, v in _rates(w.during_restart).items()} or dict(steady)
    burst = None
    if w.before_restart is not None and w.before_restart.duration > 0:
        burst = {k: (v if v is not None else steady[k]) for k, v in _rates(w.before_restart).items()}
        burst["duration"] = w.before_restart.duration
    tables = s.data.table_amounts()
    mech = resolved.profile.mechanisms
    hw = s.host.cpu_cores * s.host.threads_per_core
    threads = layout(cfg, mech.multithreaded, mech.query_threads, hw)
    up = resolved.upgrade
    simulated = {
        "version": s.version,
        "version_from": _origin("version", given, where),
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
        "workload": {"steady": steady, "before_restart": burst, "during_restart": during},
    }
    defaulted = []
    for key in explained_keys(Scenario, EXPLAINED_SECTIONS):
        origin = _origin(key, given, where)
        if origin in GIVEN:
            continue
        if key == "data.row_size" and s.data.rows:
            continue  # used only to derive data.rows, which is given
        defaulted.append({"key": key, "value": _value_at(s, key), "from": origin})
    version = _origin("version", given, where)
    if version not in GIVEN and not any(d["key"] == "version" for d in defaulted):
        defaulted.insert(0, {"key": "version", "value": s.version, "from": version})
    return {"simulated": simulated, "defaulted": defaulted}


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


def threads_text(t: dict[str, Any]) -> str:
    """``4 LDM, 4 query, 4 recover, 2 tc, 1 main, 1 rep, 1 send, 1 recv threads (AutomaticThreadConfig,
    NumCPUs=16)``: the layout a header shows, from a result's ``simulated.threads``."""
    kinds = ("ldm", "query", "recover", "tc", "main", "rep", "send", "recv")
    counts = ", ".join(f"{t[k]} {'LDM' if k == 'ldm' else k}" for k in kinds)
    return f"{counts} threads ({t['source']})"


def input_notes(resolved: Resolved, where: dict[str, str]) -> list[str]:
    """Warnings about an NDB scenario's input: a rate given with ``--set`` (or to ``simulate()``)
    that the scenario's ``workload.during_restart`` overrides while the node restarts, and a
    section (host, data, workload) no input gave."""
    s = resolved.scenario
    notes = []
    during = s.workload.during_restart
    for k in RATE_KEYS:
        origin = where.get(f"workload.{k}", "")
        if origin not in OVERRIDES or during is None or getattr(during, k) is None:
            continue
        if where.get(f"workload.during_restart.{k}") in OVERRIDES:
            continue
        notes.append(
            f"workload.{k}={_shown(k, getattr(s.workload, k))} ({origin}) runs before the restart only: the "
            f"scenario's workload.during_restart.{k}={_shown(k, getattr(during, k))} replaces it while the node "
            f"restarts; {KEEP_DURING_RESTART[origin].format(key=k)} to keep it during the restart too"
        )
    if DEFAULT_SCENARIO in where.values():
        notes.append(
            "no scenario given: this is the built-in default scenario (seed 003's DBT2 600 warehouses), not "
            "your cluster; start one with ndbsim init --config-ini YOUR.ini"
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
    if s.restart.nodes:
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


def _value_at(s: BaseModel, key: str) -> Any:
    cur = _getter(key)(s)
    if isinstance(cur, BaseModel):
        return cur.model_dump(mode="json", exclude_none=True)
    return cur


@cache
def _getter(key: str) -> attrgetter[Any]:
    """Reads a dotted key's value off a scenario (called with the models' own keys only)."""
    return attrgetter(key)


# ---------------------------------------------------------------------------------------
# In words


def _rate(x: float | None) -> str:
    x = x or 0.0
    if x >= 1e9:
        return f"{x / 1e9:.3g}G"
    if x >= 1e6:
        return f"{x / 1e6:.3g}M"
    if x >= 1e3:
        return f"{x / 1e3:.3g}k"
    return f"{x:.3g}"


def rates_text(r: dict[str, Any] | None) -> str:
    """``2k updates/s, 100k inserts/s of 200B`` or ``idle``."""
    if not r:
        return "idle"
    parts = [
        f"{_rate(r.get(k))} {k.removesuffix('_per_s')}/s"
        for k in ("updates_per_s", "inserts_per_s", "deletes_per_s")
        if r.get(k)
    ]
    if not parts:
        return "idle"
    return ", ".join(parts) + f" of {format_bytes(r['bytes_per_change'])}"


def _network(bps: float) -> str:
    return f"{bps * 8 / 1e9:.3g} Gbit/s"


NOT_GIVEN = {
    "data.rows": "data.size / data.row_size",
    "workload.during_restart": "the steady rates",
    "workload.before_restart": "no burst",
    "restart.nodes": "the highest NodeId (node, initial) or all",
    "cluster.node_ids": "1..data_nodes",
}
"""What an optional key left out means, as the defaulted list says it."""


def _shown(key: str, value: Any) -> str:
    if value is None and key in NOT_GIVEN:
        return f"({NOT_GIVEN[key]})"
    if isinstance(value, float) and key.split(".")[-1] in ("size", "row_size", "disk_data_size", "bytes_per_change"):
        return format_bytes(value)
    if key.endswith(("disk_read", "disk_write")):
        return f"{format_bytes(value)}/s"
    if key.endswith("network"):
        return _network(value)
    if key.endswith(("downtime", "duration")):
        return format_secs(value)
    if key.endswith(("_per_s", ".rows")) and isinstance(value, (int, float)):
        return _rate(value)
    if isinstance(value, float) and value.is_integer():
        return f"{value:.0f}"
    if value is None:
        return "none"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_shown(k, v)}" for k, v in value.items()) + "}"
    return str(value)


def header_lines(explained: dict[str, Any]) -> list[str]:
    """The lines under a table's title that say what was simulated and what was defaulted."""
    sim = explained["simulated"]
    d, h, t, r = sim["data"], sim["host"], sim["threads"], sim["restart"]
    ids = sim.get("node_ids")
    nodes = f"NodeIds {', '.join(map(str, ids))}" if ids else f"{sim['data_nodes']} data nodes"
    restart_nodes = (
        ", ".join(map(str, r["nodes"])) if r["nodes"] else ("all" if r["type"] in ("system", "rolling") else "the last")
    )
    disk_data = f"{format_bytes(d['disk_data_size'])} disk data" if d["disk_data_size"] else "no disk data"
    threads = threads_text(t)
    wl = sim["workload"]
    burst = wl["before_restart"]
    before = f"{rates_text(burst)} for the last {format_secs(burst['duration'])}" if burst else "no burst"
    plural = "s" if len(r["nodes"]) != 1 else ""
    lines = [
        f"simulated: NDB {sim['version']} (release from {sim.get('version_from', SCENARIO)}; profile "
        f"{sim['profile']}) · {nodes}, NoOfReplicas={sim['NoOfReplicas']} · "
        f"{r['type']} restart of node{plural} {restart_nodes} ({r['cause']}, down {format_secs(r['downtime'])})",
        f"data per node: {format_bytes(d['size'])} in {_rate(d['rows'])} rows"
        + (" (from data.row_size)" if d["rows_from_row_size"] else "")
        + f", {d['tables']} tables, {d['ordered_indexes']} ordered indexes, {disk_data}; "
        f"DataMemory={format_bytes(d['DataMemory'])}",
        f"host: {h['cpu_cores']} cores × {h['threads_per_core']} threads"
        + (f" at {h['core_speed']:g}× speed" if h["core_speed"] != 1 else "")
        + f", disk read {format_bytes(h['disk_read'])}/s, write {format_bytes(h['disk_write'])}/s, "
        f"network {_network(h['network'])}",
        f"threads per data node: {threads}"
        + (
            f"; nodes restarted onto NDB {sim['upgrade_to']}: {threads_text(sim['upgrade_threads'])}"
            if sim.get("upgrade_to")
            else ""
        ),
        f"workload (cluster-wide): steady {rates_text(wl['steady'])}; before the restart {before}; "
        f"during it {rates_text(wl['during_restart'])}",
    ]
    return lines + defaulted_lines(explained["defaulted"], _shown)


def defaulted_lines(defaulted: list[dict[str, Any]], shown: Callable[[str, Any], str]) -> list[str]:
    """The header's "defaulted (origin): key=value, ..." lines, one group per origin, wrapped;
    ``shown`` writes a value as the model's scenario would."""
    by_origin: dict[str, list[str]] = {}
    for item in defaulted:
        by_origin.setdefault(item["from"], []).append(f"{item['key']}={shown(item['key'], item['value'])}")
    lines: list[str] = []
    for origin, items in by_origin.items():
        lines.extend(
            textwrap.wrap(f"defaulted ({origin}): " + ", ".join(items), width=HEADER_WIDTH, subsequent_indent="  ")
        )
    return lines


HEADER_WIDTH = 118
"""Width the defaulted lines wrap at: the project's 120-column limit, less a margin."""


# ---------------------------------------------------------------------------------------
# Titles


_VERSION_TOKEN = re.compile(r"(?<![\w.])(\d+\.\d+(?:\.\d+)?)(?![\w.])")
"""A version in a scenario's name, such as ``7.6.6`` or ``8.0``."""
_NODES_TOKEN = re.compile(r"\b(\d+)(?= data nodes?\b)")
"""The count in a name's ``N data nodes``."""


def title_as_run(name: str, version: str, data_nodes: int, changes: list[str] | None = None) -> str:
    """The scenario's name with any version or ``N data nodes`` in it made to agree with the run
    (``--set version=8.0.36`` turns ``… 7.6.6 node restart`` into ``… 8.0.36 node restart``),
    and the changes that made the run differ from the file named after it."""

    def version_sub(m: re.Match[str]) -> str:
        token = m.group(1)
        return token if version == token or version.startswith(token + ".") else version

    title = _VERSION_TOKEN.sub(version_sub, name)
    title = _NODES_TOKEN.sub(str(data_nodes), title)
    if changes:
        title += f" [as run: {', '.join(changes)}]"
    return title


# ---------------------------------------------------------------------------------------
# CSV


def csv_fields(explained: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    """The ``simulated`` facts as flat CSV columns, the same in every run (``data_size``,
    ``host_cpu_cores``, ``workload_during_restart_updates_per_s``, ...), then ``defaulted`` (the
    keys, ``;``-separated) and ``warnings`` (`` | ``-separated)."""
    out: dict[str, Any] = {}
    sim = explained.get("simulated") or {}
    for key, value in sim.items():
        if key == "workload":
            for period in ("steady", "before_restart", "during_restart"):
                rates = value[period] or {}
                for k in RATE_KEYS:
                    out[f"workload_{period}_{k}"] = rates.get(k, 0.0)
            out["workload_before_restart_duration"] = (value["before_restart"] or {}).get("duration", 0.0)
        elif isinstance(value, dict):
            for k, v in value.items():
                out[f"{key}_{k}"] = _cell(v)
        else:
            out[key] = _cell(value)
    out["defaulted"] = ";".join(d["key"] for d in explained.get("defaulted") or [])
    out["warnings"] = " | ".join(warnings)
    return out


def _cell(v: Any) -> Any:
    return ";".join(map(str, v)) if isinstance(v, list) else v
