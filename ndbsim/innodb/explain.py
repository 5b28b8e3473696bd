"""What an InnoDB crash recovery simulated, in words and as fields: server (buffer pool, redo
log), storage rates, the workload before the crash, and which values came from a default rather
than from the user (the scenario file or ``--set``).

The InnoDB counterpart of ``ndbsim.output.explain``: every InnoDB run states this under its title, in
JSON (``simulated``, ``defaulted``) and in CSV (one column per fact).
"""

from __future__ import annotations

from typing import Any

from ndbsim.innodb.scenario import InnodbScenario
from ndbsim.input.scenario.provenance import GIVEN
from ndbsim.input.units import format_bytes, format_secs
from ndbsim.output.header import csv_cell, defaulted_lines, short_rate
from ndbsim.output.origins import explained_keys, given_keys, origin_of, value_at

EXPLAINED_SECTIONS = ("server", "storage", "workload", "simulation.jitter")
"""Keys whose defaulted values a run names: every modelled input (``simulation.jitter`` spreads
the redo rate between replications; the seed and the replication count change no modelled
quantity; ``name`` and ``expect`` are labels)."""

ALTERNATIVES = {
    "workload.redo_rate": ("workload.tps", "workload.redo_per_txn"),
    "workload.tps": ("workload.redo_rate",),
    "workload.redo_per_txn": ("workload.redo_rate",),
}
"""A workload's redo rate is given as ``redo_rate`` or as ``tps`` × ``redo_per_txn``: a key of one
form left out is not a default when the other form was given."""

NOT_GIVEN = {
    "workload.data_size": "the buffer pool",
    "storage.read_latency": "0.1 ms for flash, 5 ms for raid10",
}
"""What an optional key left out means, as the defaulted list says it."""


def describe(s: InnodbScenario, where: dict[str, str] | None = None) -> dict[str, Any]:
    """The ``simulated`` fields of an InnoDB result (every modelled input as run, optional ones
    resolved: the effective redo rate, data size and read latency), and ``defaulted``: each key
    no input gave, with its value and origin. ``where`` maps dotted keys to their origin
    (``ndbsim.input.scenario.provenance.origins``); without it, the keys the scenario set count as given."""
    given = given_keys(s) if where is None else set()  # ``where`` says what was given, when known
    sv, st, w = s.server, s.storage, s.workload
    simulated = {
        "version": s.version,
        "server": {
            "buffer_pool_size": sv.buffer_pool_size,
            "innodb_log_file_size": sv.innodb_log_file_size,
            "innodb_log_files_in_group": sv.innodb_log_files_in_group,
            "log_capacity": sv.innodb_log_file_size * sv.innodb_log_files_in_group,
        },
        "storage": {
            "kind": st.kind,
            "read_iops": st.read_iops,
            "write_iops": st.write_iops,
            "seq_read": st.seq_read,
            "read_latency": st.latency,
        },
        "workload": {
            "redo_rate": w.redo_bytes_per_sec,
            "tps": w.tps,
            "redo_per_txn": w.redo_per_txn,
            "run_time": w.run_time,
            "dirty_pct": w.dirty_pct,
            "data_size": w.data_size or sv.buffer_pool_size,
            "uncommitted_txn_rows": w.uncommitted_txn_rows,
        },
        "jitter": s.simulation.jitter,
    }
    keys = explained_keys(InnodbScenario, EXPLAINED_SECTIONS)
    origin = {k: origin_of(k, given, where) for k in keys}
    defaulted = []
    for key in keys:
        if origin[key] in GIVEN:
            continue
        if any(origin[a] in GIVEN for a in ALTERNATIVES.get(key, ())):
            continue
        defaulted.append({"key": key, "value": value_at(s, key), "from": origin[key]})
    return {"simulated": simulated, "defaulted": defaulted}


def _shown(key: str, value: Any) -> str:
    if value is None:
        return f"({NOT_GIVEN[key]})" if key in NOT_GIVEN else "none"
    leaf = key.rsplit(".", 1)[-1]
    if leaf in ("buffer_pool_size", "innodb_log_file_size", "data_size", "redo_per_txn"):
        return format_bytes(value)
    if leaf in ("seq_read", "redo_rate"):
        return f"{format_bytes(value)}/s"
    if leaf in ("run_time",):
        return format_secs(value)
    if leaf == "read_latency":
        return f"{value * 1e3:g} ms"
    if leaf in ("read_iops", "write_iops", "tps", "uncommitted_txn_rows"):
        return short_rate(value)
    if isinstance(value, float) and value.is_integer():
        return f"{value:.0f}"
    return str(value)


def header_lines(explained: dict[str, Any]) -> list[str]:
    """The lines under an InnoDB table's title that say what was simulated and what was defaulted."""
    sim = explained["simulated"]
    sv, st, w = sim["server"], sim["storage"], sim["workload"]
    rate = f"{format_bytes(w['redo_rate'])}/s of redo"
    if w["tps"] is not None and w["redo_per_txn"] is not None:
        rate += f" ({short_rate(w['tps'])} txn/s × {format_bytes(w['redo_per_txn'])})"
    lines = [
        f"simulated: InnoDB {sim['version']} crash recovery · buffer pool {format_bytes(sv['buffer_pool_size'])} · "
        f"redo log {sv['innodb_log_files_in_group']} × {format_bytes(sv['innodb_log_file_size'])} "
        f"= {format_bytes(sv['log_capacity'])}",
        f"storage: {st['kind']}, {short_rate(st['read_iops'])} read IOPS, {short_rate(st['write_iops'])} write IOPS, "
        f"sequential read {format_bytes(st['seq_read'])}/s, read latency {st['read_latency'] * 1e3:g} ms",
        f"workload before the crash: {rate} for {format_secs(w['run_time'])}, {w['dirty_pct']:g}% dirty pages",
        f"data {format_bytes(w['data_size'])}, {short_rate(w['uncommitted_txn_rows'])} uncommitted rows at the crash; "
        f"redo rate jitter {sim['jitter']:g} between replications",
    ]
    return lines + defaulted_lines(explained["defaulted"], _shown)


def csv_fields(explained: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    """The ``simulated`` facts as flat CSV columns (``server_buffer_pool_size``,
    ``workload_redo_rate``, ...), then ``defaulted`` (the keys, ``;``-separated) and ``warnings``
    (`` | ``-separated)."""
    out: dict[str, Any] = {}
    for key, value in (explained.get("simulated") or {}).items():
        if isinstance(value, dict):
            out.update({f"{key}_{k}": csv_cell(v) for k, v in value.items()})
        else:
            out[key] = csv_cell(value)
    out["defaulted"] = ";".join(d["key"] for d in explained.get("defaulted") or [])
    out["warnings"] = " | ".join(warnings)
    return out
