"""What a run simulated, as a reader sees it: the lines under a table's title (in words), the
title as run, and the same facts as CSV columns (``explain.describe`` gives the facts)."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from typing import Any

from ndbsim.input.units import format_bytes, format_count, format_secs

RATE_KEYS = ("updates_per_s", "inserts_per_s", "deletes_per_s", "bytes_per_change")
"""The rate keys of a workload period (``workload``, ``during_restart``, ``before_restart``)."""


def short_rate(x: float | None) -> str:
    """A count or rate in a DBA's units (``1.0B``, ``300M``, ``20K``): ``units.format_count``."""
    return format_count(x)


def rates_text(r: dict[str, Any] | None) -> str:
    """``2k updates/s, 100k inserts/s of 200B`` or ``idle``."""
    if not r:
        return "idle"
    parts = [
        f"{short_rate(r.get(k))} {k.removesuffix('_per_s')}/s"
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
    "data.tablespace_size": "data.disk_data_size",
    "workload.disk_update_share": "the disk columns' share of a row's bytes",
}
"""What an optional key left out means, as the defaulted list says it."""


def value_text(key: str, value: Any) -> str:
    if value is None and key in NOT_GIVEN:
        return f"({NOT_GIVEN[key]})"
    if isinstance(value, float) and key.split(".")[-1] in (
        "size",
        "row_size",
        "disk_data_size",
        "tablespace_size",
        "undo_log_size",
        "bytes_per_change",
    ):
        return format_bytes(value)
    if key.endswith(("disk_read", "disk_write", "touch_rate")) and isinstance(value, (int, float)):
        return f"{format_bytes(value)}/s"
    if key.endswith("latency") and isinstance(value, (int, float)):
        return f"{value * 1000:.3g} ms"
    if key.endswith("network"):
        return _network(value)
    if key.endswith(("downtime", "duration")):
        return format_secs(value)
    if key.endswith(("_per_s", ".rows")) and isinstance(value, (int, float)):
        return short_rate(value)
    if isinstance(value, float) and value.is_integer():
        return f"{value:.0f}"
    if value is None:
        return "none"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {value_text(k, v)}" for k, v in value.items()) + "}"
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
        f"simulated: NDB {sim['version']} (release from {sim.get('version_from', 'scenario')}; profile "
        f"{sim['profile']}) · {nodes}, NoOfReplicas={sim['NoOfReplicas']} · "
        f"{r['type']} restart of node{plural} {restart_nodes} ({r['cause']}, down {format_secs(r['downtime'])})",
        f"data per node: {format_bytes(d['size'])} in {short_rate(d['rows'])} rows"
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
    return lines + defaulted_lines(explained["defaulted"], value_text)


def threads_text(t: dict[str, Any]) -> str:
    """``4 LDM, 4 query, 4 recover, 2 tc, 1 main, 1 rep, 1 send, 1 recv threads (AutomaticThreadConfig,
    NumCPUs=16)``: a node's layout as a header shows it, from a result's ``simulated.threads``."""
    kinds = ("ldm", "query", "recover", "tc", "main", "rep", "send", "recv")
    counts = ", ".join(f"{t[k]} {'LDM' if k == 'ldm' else k}" for k in kinds)
    return f"{counts} threads ({t['source']})"


def defaulted_lines(defaulted: list[dict[str, Any]], shown: Callable[[str, Any], str]) -> list[str]:
    """The header's "defaulted (origin): key=value, ..." lines, one group per origin, wrapped;
    ``shown`` writes a value as the model's scenario would."""
    from ndbsim.output.stdout import terminal_width

    by_origin: dict[str, list[str]] = {}
    for item in defaulted:
        by_origin.setdefault(item["from"], []).append(f"{item['key']}={shown(item['key'], item['value'])}")
    lines: list[str] = []
    for origin, items in by_origin.items():
        lines.extend(
            textwrap.wrap(f"defaulted ({origin}): " + ", ".join(items), width=terminal_width(), subsequent_indent="  ")
        )
    return lines


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
                out[f"{key}_{k}"] = csv_cell(v)
        else:
            out[key] = csv_cell(value)
    out["defaulted"] = ";".join(d["key"] for d in explained.get("defaulted") or [])
    out["warnings"] = " | ".join(warnings)
    return out


def csv_cell(v: Any) -> Any:
    return ";".join(map(str, v)) if isinstance(v, list) else v
