"""A scenario from a running cluster's ndbinfo export (``ndbsim init --ndbinfo``): each value with
the ndbinfo table it came from.

What is read: each data node's release (processes.node_version), the running configuration
(config_values joined with config_params), data and rows per node (memoryusage, memory_per_fragment),
tables and ordered indexes (dict_obj_info with dict_obj_types), the host's CPUs (hwinfo, 8.0.23+),
the change rates (operations_per_fragment sampled twice), the thread layout NDB started
(threads, checked against the one ndbsim derives), the LCP and REDO write speeds reached
(disk_write_speed_aggregate, stated in the scenario's comments) and the restart_info rows (a
calibration case, ``restart_info_csv``).
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass, field
from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.config import ndb_params
from ndbsim.input.config import params as config_params
from ndbsim.input.ndbinfo import DATA_NODE_TYPE, Export, number, release_of, seconds
from ndbsim.input.restart_info import COLUMNS, FOR_LOCAL_RECOVERY, check_row
from ndbsim.input.scenario import disk_files, provenance
from ndbsim.input.units import exact_size_text, format_bytes

DATA_MEMORY = "Data memory"
"""memoryusage.memory_type of DataMemory (the manual's ndbinfo memoryusage page)."""

USER_TABLE, ORDERED_INDEX = "User table", "Ordered index"
"""dict_obj_types.type_name of a table and of an ordered index (NdbDictionary ``Object::Type``)."""


@dataclass
class FromExport:
    """What ``init --ndbinfo`` writes: the scenario mapping, each key's source, notes, and the
    restart_info rows as a CSV calibration case (None: no node has restarted)."""

    raw: dict[str, Any]
    sources: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    restart_info_csv: str | None = None
    ldm_started: list[int] = field(default_factory=list)
    """The LDM thread counts the data nodes run (ndbinfo.threads)."""
    differs: dict[str, list[str]] = field(default_factory=dict)
    """Modelled parameters the data nodes run with different values (each keeps NDB's default)."""


def scenario_from_export(ex: Export) -> FromExport:
    ids, release = _data_nodes(ex)
    out = FromExport({"name": f"cluster exported from {ex.source}", "version": release})
    out.sources["version"] = f"ndbinfo.processes: node_version of data nodes {', '.join(map(str, ids))}"
    config, groups = _config(ex, ids, out)
    cluster: dict[str, Any] = {"data_nodes": len(ids), "node_ids": sorted(ids, key=lambda n: (groups.get(n, 0), n))}
    cluster["config"] = config
    out.raw["cluster"] = cluster
    out.sources["cluster.data_nodes"] = out.sources["cluster.node_ids"] = "ndbinfo.processes (node_type NDB)"
    out.raw["data"] = _data(ex, ids, out)
    host = _host(ex, ids, out)
    if host:
        out.raw["host"] = host
    out.raw["workload"] = _workload(ex, int(config.get("NoOfReplicas", 2)), out)
    _speeds_note(ex, out)
    _threads_note(ex, ids, out)
    out.restart_info_csv = _restart_info(ex, ids)
    _restart_from_rows(ex, out)
    provenance.record(out.raw, provenance.NDBINFO, out.sources)
    provenance.record_not_simulated(out.raw, provenance.NDBINFO_TABLE, _not_modelled(ex, ids, out))
    return out


def _restart_from_rows(ex: Export, out: FromExport) -> None:
    """The restart the restart_info rows hold, so that ``ndbsim calibrate`` on those rows runs as
    printed: one node's rows a node restart of that node; several nodes' rows a rolling restart of
    those nodes in the export's row order. restart_info keeps one row per node (its last restart)
    and no time of day (NdbinfoTables.cpp, restart_info), so which nodes restarted together cannot
    be read: the plan restarts them one at a time in that order, and a note says so."""
    order: list[int] = []
    for r in ex.rows("restart_info"):
        node = int(number(ex, "restart_info", r, "node_id"))
        if node not in order:
            order.append(node)
    if not order:
        return
    source = f"ndbinfo.restart_info: rows of node(s) {', '.join(map(str, order))}"
    if len(order) == 1:
        out.raw["restart"] = {"type": "node", "nodes": order}
    else:
        out.raw["restart"] = {"type": "rolling", "nodes": order, "plan": [[n] for n in order]}
        out.sources["restart.plan"] = f"{source}, one node per wave in the export's row order"
        out.notes.append(
            "ndbinfo.restart_info does not say which nodes restarted together: restart.plan restarts them one at a "
            "time in the export's order; edit it if they restarted in waves"
        )
    out.sources["restart.type"] = out.sources["restart.nodes"] = source


def _data_nodes(ex: Export) -> tuple[list[int], str]:
    nodes = [r for r in ex.rows("processes") if r.get("node_type") == DATA_NODE_TYPE]
    if not nodes:
        raise ex.fail("processes", "no data node (node_type NDB); export while the data nodes run")
    releases: dict[int, str] = {}
    for r in nodes:
        release = release_of(r.get("node_version") or "")
        if release is None:
            raise ex.fail("processes", f"node_version {r.get('node_version')!r} names no release; export again")
        releases[int(number(ex, "processes", r, "node_id"))] = release
    if len(set(releases.values())) > 1:
        mixed = ", ".join(f"node {n}: {v}" for n, v in sorted(releases.items()))
        raise ex.fail(
            "processes",
            f"the data nodes run different releases ({mixed}); export when the upgrade is done, or write the "
            "upgrade as a scenario with restart.upgrade_to",
        )
    started = {int(number(ex, "nodes", r, "node_id")): r.get("status") for r in ex.rows("nodes")}
    for r in ex.rows("nodes"):
        if "uptime" in r:
            seconds(ex, "nodes", r, "uptime", int(number(ex, "nodes", r, "node_id")))
    for n in sorted(releases):
        if started.get(n) != "STARTED":
            raise ex.fail(
                "nodes", f"data node {n} is {started.get(n) or 'not listed'}; export when every data node runs"
            )
    return sorted(releases), next(iter(releases.values()))


def _config(ex: Export, ids: list[int], out: FromExport) -> tuple[dict[str, Any], dict[int, int]]:
    """The modelled parameters every data node runs with (config_values), and each node's group."""
    from ndbsim.input.profiles import profile_for, unused_params

    unused = set(unused_params(profile_for(out.raw["version"]).mechanisms))
    per_node: dict[str, dict[int, str]] = {}
    groups: dict[int, int] = {}
    for r in ex.rows("config_values"):
        node = int(number(ex, "config_values", r, "node_id"))
        name = str(r.get("param_name") or "")
        if node not in ids:
            continue
        if name.lower() == "nodegroup":
            groups[node] = int(number(ex, "config_values", r, "config_value"))
        canon = config_params.canonical_name(name)
        if canon is None or canon in unused:
            continue
        per_node.setdefault(canon, {})[node] = r.get("config_value") or ""
    if not per_node:
        raise ex.fail("config_values", "no data node's parameters; export again with the unchanged script")
    config: dict[str, Any] = {}
    for name, values in sorted(per_node.items()):
        if len(set(values.values())) > 1:
            out.differs[f"{name}{provenance.DIFFERS}data nodes)"] = [values[n] for n in sorted(values)]
            continue
        value = next(iter(values.values()))
        try:
            parsed = config_params.parse_value(name, value, f"ndbinfo.config_values {name}")
        except InputError as e:
            raise ex.fail("config_values", e.message) from None
        kind = config_params.PARAMS[name].kind
        if kind in ("size", "rate"):
            config[name] = exact_size_text(parsed)
        else:
            config[name] = int(parsed) if kind == "int" else parsed
        out.sources[f"cluster.config.{name}"] = "ndbinfo.config_values"
    return config, groups


def _data(ex: Export, ids: list[int], out: FromExport) -> dict[str, Any]:
    used = [
        number(ex, "memoryusage", r, "used")
        for r in ex.rows("memoryusage")
        if r.get("memory_type") == DATA_MEMORY and int(number(ex, "memoryusage", r, "node_id")) in ids
    ]
    if not used:
        raise ex.fail("memoryusage", "no 'Data memory' row for the data nodes; export again with the unchanged script")
    data: dict[str, Any] = {"size": exact_size_text(max(used))}
    out.sources["data.size"] = "ndbinfo.memoryusage: Data memory used, the fullest data node"
    rows = [number(ex, "memory_per_fragment", r, "row_count") for r in ex.rows("memory_per_fragment")]
    rows = [x for x in rows if x == x]
    if rows and max(rows) > 0:
        data["rows"] = int(max(rows))
        out.sources["data.rows"] = "ndbinfo.memory_per_fragment: fixed_elem_count of user tables, the fullest node"
    kinds = {r.get("type_name"): int(number(ex, "dict_obj_info", r, "objects")) for r in ex.rows("dict_obj_info")}
    data["tables"] = max(1, kinds.get(USER_TABLE, 0))
    data["ordered_indexes"] = kinds.get(ORDERED_INDEX, 0)
    out.sources["data.tables"] = "ndbinfo.dict_obj_info: user tables outside database mysql"
    out.sources["data.ordered_indexes"] = "ndbinfo.dict_obj_info: ordered indexes of those tables"
    disk, sources, notes = disk_files.from_export(ex)
    data.update({k: exact_size_text(v) for k, v in disk.items()})
    out.sources.update(sources)
    out.notes.extend(notes)
    return data


def _host(ex: Export, ids: list[int], out: FromExport) -> dict[str, Any]:
    if "hwinfo" in ex.absent:
        out.notes.append(
            f"NDB {out.raw['version']} has no ndbinfo.hwinfo (8.0.23+): host.cpu_cores and host.threads_per_core "
            "are ndbsim's defaults; give your hosts' with --set host.cpu_cores=…"
        )
        return {}
    rows = [r for r in ex.rows("hwinfo") if int(number(ex, "hwinfo", r, "node_id")) in ids]
    if not rows:
        raise ex.fail("hwinfo", "no row for the data nodes; export again with the unchanged script")
    cores = min(int(number(ex, "hwinfo", r, "num_cpu_cores")) for r in rows)
    cpus = min(int(number(ex, "hwinfo", r, "cpu_cnt_max")) for r in rows)
    if cores <= 0 or cpus < cores:
        raise ex.fail("hwinfo", f"num_cpu_cores={cores}, cpu_cnt_max={cpus} cannot be a host; export again")
    out.sources["host.cpu_cores"] = "ndbinfo.hwinfo: num_cpu_cores, the smallest data-node host"
    out.sources["host.threads_per_core"] = "ndbinfo.hwinfo: cpu_cnt_max / num_cpu_cores"
    return {"cpu_cores": cores, "threads_per_core": max(1, cpus // cores)}


RATE_COLUMNS = {"updates": "updates_per_s", "inserts": "inserts_per_s", "deletes": "deletes_per_s"}
"""operations_per_fragment sums of the script (updates: tot_key_updates + tot_key_writes) -> the
scenario's cluster-wide workload rates."""


def _workload(ex: Export, replicas: int, out: FromExport) -> dict[str, Any]:
    """Cluster-wide rates: the key operations of the two samples' difference over the time between
    them, divided by NoOfReplicas (every replica of a fragment counts each write)."""
    a, b = (ex.rows(t) for t in ("operations_1", "operations_2"))
    if len(a) != 1 or len(b) != 1:
        raise ex.fail("operations_per_fragment", "one row per sample expected; export again with the unchanged script")
    secs = number(ex, "operations_2", b[0], "sampled_at") - number(ex, "operations_1", a[0], "sampled_at")
    if not secs > 0:
        raise ex.fail("operations_per_fragment", "the two samples are not in time order; export again")
    wl: dict[str, Any] = {}
    for col, key in RATE_COLUMNS.items():
        x0, x1 = number(ex, "operations_1", a[0], col), number(ex, "operations_2", b[0], col)
        x0, x1 = (0.0 if x != x else x for x in (x0, x1))  # SUM over no user table is NULL
        if x1 < x0:
            raise ex.fail(
                "operations_per_fragment", "a counter went down between the samples (a node restarted); export again"
            )
        wl[key] = round((x1 - x0) / secs / max(1, replicas), 1)
        out.sources[f"workload.{key}"] = (
            f"ndbinfo.operations_per_fragment: {col} over {secs:.0f} s between two samples, / NoOfReplicas"
        )
    return wl


def _speeds_note(ex: Export, out: FromExport) -> None:
    rows = ex.rows("disk_write_speed_aggregate")
    if not rows:
        return
    lcp = max(number(ex, "disk_write_speed_aggregate", r, "lcp_bytes_per_sec") for r in rows)
    redo = max(number(ex, "disk_write_speed_aggregate", r, "redo_bytes_per_sec") for r in rows)
    out.notes.append(
        "ndbinfo.disk_write_speed_aggregate: over the last minute the busiest node wrote LCPs at "
        f"{format_bytes(lcp)}/s and REDO at {format_bytes(redo)}/s; host.disk_write must allow at least their sum"
    )


def _threads_note(ex: Export, ids: list[int], out: FromExport) -> None:
    """The LDM threads NDB started (ndbinfo.threads), stated beside the config that gave them."""
    ldm = {
        int(number(ex, "threads", r, "node_id")): int(number(ex, "threads", r, "thread_count"))
        for r in ex.rows("threads")
        if r.get("thread_name") == "ldm"
    }
    counts = sorted({ldm.get(n, 0) for n in ids})
    if counts:
        out.notes.append(
            f"ndbinfo.threads: the data nodes run {' or '.join(map(str, counts))} LDM threads; ndbsim derives "
            "the layout from the config above (`ndbsim run` states it, JSON simulated.threads)"
        )
        out.ldm_started = counts


def _restart_info(ex: Export, ids: list[int]) -> str | None:
    """The restart_info rows as CSV (the form ``ndbsim calibrate --restart-info`` reads), or None."""
    rows = ex.rows("restart_info")
    if not rows:
        return None
    strangers = sorted({int(number(ex, "restart_info", r, "node_id")) for r in rows} - set(ids))
    if strangers:
        raise ex.fail(
            "restart_info",
            f"rows of nodes {', '.join(map(str, strangers))}, which are not this cluster's data nodes "
            f"({', '.join(map(str, ids))}); export restart_info from the same cluster",
        )
    for r in rows:  # the bounds eta and calibrate --restart-info hold the same columns to
        for c in r:
            if c.startswith("secs_") or c == "total_restart_secs":
                seconds(ex, "restart_info", r, c, int(number(ex, "restart_info", r, "node_id")))
        _check_restart_row(ex, r)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: "" if v is None else v for k, v in r.items()})
    return buf.getvalue()


def _check_restart_row(ex: Export, r: dict[str, Any]) -> None:
    """A finished row whose phases do not add up to its total is refused (``restart_info.check_row``)."""
    node = int(number(ex, "restart_info", r, "node_id"))
    total = seconds(ex, "restart_info", r, "total_restart_secs", node)
    if math.isnan(total) or total <= 0:
        return
    cells = {c: seconds(ex, "restart_info", r, c, node) for c in (*COLUMNS, FOR_LOCAL_RECOVERY) if c in r}
    phases = {c: x for c, x in cells.items() if c in COLUMNS and not math.isnan(x)}
    local = cells.get(FOR_LOCAL_RECOVERY, math.nan)
    try:
        check_row(phases, total, None if math.isnan(local) else local, f"node {node}")
    except InputError as e:
        raise e.located(ex.source) from None


def _not_modelled(ex: Export, ids: list[int], out: FromExport) -> dict[str, Any]:
    """The parameters the data nodes run with that ndbsim does not model, where set away from NDB's
    default (config_params.param_default, exported beside each value): each with its value, or
    its values when the nodes differ; and the modelled ones the nodes differ in."""
    rows = [r for r in ex.rows("config_values") if int(number(ex, "config_values", r, "node_id")) in ids]
    if rows and "param_default" not in rows[0]:
        out.notes.append(
            "ndbinfo.config_values: this export has no param_default column, so the parameters set that ndbsim "
            "does not model cannot be told from NDB's defaults and none is listed; export again with the script "
            "`ndbsim ndbinfo-sql` prints"
        )
        return dict(out.differs)
    per_node: dict[str, dict[int, str]] = {}
    for r in rows:
        name = ndb_params.known(str(r.get("param_name") or ""))
        value, default = r.get("config_value") or "", r.get("param_default") or ""
        if name is None or _same_setting(value, default):
            continue
        per_node.setdefault(name, {})[int(number(ex, "config_values", r, "node_id"))] = value
    found = {name: provenance.value_or_values(values[n] for n in sorted(values)) for name, values in per_node.items()}
    return {**found, **out.differs}


_NDB_TRUE, _NDB_FALSE = ("true", "yes", "y", "1"), ("false", "no", "n", "0")
"""How NDB spells a boolean in config_params.param_default and config_values (lower case)."""


def _same_setting(value: str, default: str) -> bool:
    """Whether a config_values value is its param_default: numbers with NDB's K/M/G suffixes and
    booleans in any of NDB's spellings compared as what they mean."""
    a, b = (_setting(x) for x in (value, default))
    return a == b


def _setting(text: str) -> str:
    t = text.strip().lower()
    if t in _NDB_TRUE:
        return "1"
    if t in _NDB_FALSE:
        return "0"
    m = re.fullmatch(r"(\d+)([kmg]?)", t)
    if m:
        return str(int(m.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30}[m.group(2)])
    return t
