"""Two runs side by side (``ndbsim compare``): two scenarios, one scenario against itself with
``--set`` changes, or one scenario under two config.ini files. Both sides run with the same
seed and replications, so replication ``i`` of each draws the same random stream and the
difference is paired. Phase by phase, node by node: the median seconds on each side, the
difference (B − A) and each side's why (``engine.why``: bottleneck, quantity, figures)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.restart_info import PHASES
from ndbsim.models.load import Loaded
from ndbsim.output.result import json_clean

SLOWEST = "slowest"
"""The node column when the two sides restart no node in common: each side's slowest node."""


@dataclass
class Side:
    """One side of a comparison: its label (what makes it this side) and its result."""

    label: str
    result: Any
    defaulted: list[dict[str, Any]] | None = None
    """The inputs of ``default_ranges`` this side left at ndbsim's defaults (as ``run`` lists
    them): its interval has the same defaults source as ``run``'s."""


def check_ndb(loaded: Loaded, label: str) -> None:
    """Only NDB restarts have restart_info phases and whys to compare."""
    if not set(PHASES) <= set(loaded.model.phases):
        raise InputError(
            f"{label} is an {loaded.model.label} scenario; ndbsim compare compares NDB restarts", field="scenario"
        )


def run_sides(a: Loaded, b: Loaded, labels: tuple[str, str], seed: int | None, replications: int | None) -> list[Side]:
    """Run A, then B with A's seed and replication count (the same streams on both sides)."""
    from ndbsim.output.interval.sources import defaulted_of

    first = a.run(seed, replications, explained=True)
    second = b.run(first.seed, len(first.replications), explained=True)
    return [
        Side(labels[0], first, defaulted_of(a.prepared.scenario, a.origins)),
        Side(labels[1], second, defaulted_of(b.prepared.scenario, b.origins)),
    ]


def _diff(x: float, y: float) -> float:
    return y - x if math.isfinite(x) and math.isfinite(y) else math.nan


def _pairs(a: Any, b: Any) -> list[tuple[str, int | None, int | None]]:
    """The nodes compared: (label, A's node id, B's node id); the slowest of each when the
    sides share no restarted node."""
    common = [n for n in a.node_ids() if n in set(b.node_ids())]
    if common:
        return [(str(n), n, n) for n in common]
    return [(SLOWEST, None, None)]


def _whys(result: Any, node_id: int | None) -> dict[str, Any]:
    """A node's why per phase (the slowest node's for None), from the result's first replication."""
    nodes = result.first.nodes
    if not nodes:
        return {}
    node = (
        max(nodes, key=lambda n: n.end - n.start) if node_id is None else next(n for n in nodes if n.node_id == node_id)
    )
    return dict(node.why)


def comparison(sides: list[Side]) -> dict[str, Any]:
    """The comparison as one mapping (the JSON): each side's title, total and spread, then per
    node and phase the seconds on each side, the difference and the whys."""
    a, b = sides[0].result, sides[1].result
    nodes = []
    for label, ida, idb in _pairs(a, b):
        pa, pb = a.phases(ida), b.phases(idb)
        wa, wb = _whys(a, ida), _whys(b, idb)
        phases = {
            p: {"a": pa[p], "b": pb[p], "diff": _diff(pa[p], pb[p]), "why_a": wa.get(p), "why_b": wb.get(p)}
            for p in PHASES
        }
        ta = a.node_total(ida) if ida is not None else max(a.node_total(n) for n in a.node_ids())
        tb = b.node_total(idb) if idb is not None else max(b.node_total(n) for n in b.node_ids())
        # a side that did not complete has no node total to compare: its node may have ended, but
        # in a run that stopped (error 410's refused writes, a copy that never converges)
        done = a.status == "ok" and b.status == "ok"
        diff = _diff(ta, tb) if done else math.nan
        nodes.append({"node": label, "node_total": {"a": ta, "b": tb, "diff": diff}, "phases": phases})
    return {
        "a": _side(sides[0]),
        "b": _side(sides[1]),
        "seed": a.seed,
        "replications": len(a.replications),
        "total_restart_secs": {
            "a": a.total_restart_secs,
            "b": b.total_restart_secs,
            "diff": _diff(a.total_restart_secs, b.total_restart_secs),
        },
        "nodes": nodes,
        "differences": differences(a.scenario, b.scenario),
    }


NOT_A_DIFFERENCE = ("name",)
"""Scenario keys that differ between two sides without changing what is simulated."""


def _flat(mapping: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(mapping, dict):
        return {prefix: mapping}
    out: dict[str, Any] = {}
    for k, v in mapping.items():
        out.update(_flat(v, f"{prefix}.{k}" if prefix else str(k)))
    return out


def differences(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """Every resolved scenario key (config.ini parameters as ``cluster.config.X``) whose value
    differs between the two sides, with both values: what the comparison compares."""
    fa, fb = _flat(a), _flat(b)
    keys = sorted(k for k in fa.keys() | fb.keys() if k not in NOT_A_DIFFERENCE and fa.get(k) != fb.get(k))
    return [{"key": k, "a": fa.get(k), "b": fb.get(k)} for k in keys]


BYTE_KEYS = (
    "data.size",
    "data.disk_data_size",
    "data.tablespace_size",
    "data.undo_log_size",
    "data.row_size",
    "bytes_per_change",
)
"""Resolved scenario keys (or their last part) that hold bytes."""
RATE_KEYS = ("host.disk_read", "host.disk_write", "host.memory_touch_rate")
"""Resolved scenario keys that hold bytes per second."""


def value_text(key: str, value: Any) -> str:
    """A resolved scenario value as the table shows it: bytes and rates with NDB's binary units
    (``96.0G``, ``500.0M/s``), a duration in seconds, config.ini sizes and rates as sizes."""
    from ndbsim.input.config.params import PARAMS
    from ndbsim.input.units import format_bytes, format_secs

    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return str(value)
    leaf = key.rsplit(".", 1)[-1]
    param = PARAMS.get(leaf) if key.startswith("cluster.config.") else None
    if key == "host.network":
        return f"{value * 8 / 1e9:g}Gbit/s"
    if key in RATE_KEYS or (param is not None and param.kind == "rate"):
        return f"{format_bytes(value)}/s"
    if key in BYTE_KEYS or leaf in BYTE_KEYS or (param is not None and param.kind == "size"):
        return format_bytes(value)
    if leaf in ("downtime", "duration", "horizon"):
        return format_secs(value)
    return f"{value:.0f}" if float(value).is_integer() else f"{value:g}"


def _side(side: Side) -> dict[str, Any]:
    from ndbsim.output.interval import result_interval

    r = side.result
    return {
        "label": side.label,
        "title": r.title,
        "version": r.version,
        "restart_type": r.restart_type,
        "total_restart_secs": r.total_restart_secs,
        **(r.stopped() or {}),
        "replications": r.spread(),
        "interval": result_interval(r, side.defaulted),
        "status": r.status,
        "reason": r.reason,
        "warnings": r.warnings,
    }


def to_csv(cmp: dict[str, Any]) -> str:
    """One row per node and phase: both sides' seconds, the difference and both bottlenecks
    and quantities; a last row with the restart totals."""
    from ndbsim.output.result import _csv_cell

    cols = "node,phase,a_secs,b_secs,diff_secs,a_bottleneck,a_quantity,b_bottleneck,b_quantity"
    lines = [cols]
    for n in cmp["nodes"]:
        for p, row in n["phases"].items():
            wa, wb = row["why_a"] or {}, row["why_b"] or {}
            cells = [n["node"], p, row["a"], row["b"], row["diff"]]
            cells += [wa.get("bottleneck"), wa.get("quantity"), wb.get("bottleneck"), wb.get("quantity")]
            lines.append(",".join(_cell(c, _csv_cell) for c in cells))
    t = cmp["total_restart_secs"]
    lines.append(",".join(_cell(c, _csv_cell) for c in ["all", "total_restart_secs", t["a"], t["b"], t["diff"]]))
    return "\n".join(lines) + "\n"


def _cell(value: Any, csv_cell: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if math.isfinite(value) else ""
    return str(csv_cell(value))


def to_json(cmp: dict[str, Any]) -> str:
    import json

    return json.dumps(json_clean(cmp), indent=2) + "\n"


def table(cmp: dict[str, Any]) -> str:
    """Side by side: per node, every phase that took time on either side with its seconds on
    each, the difference, and each side's why under it."""
    from ndbsim.output.why import why_text

    a, b = cmp["a"], cmp["b"]
    out = [
        f"A: {a['title']}  ({a['label']})",
        f"B: {b['title']}  ({b['label']})",
        f"seed {cmp['seed']} · {cmp['replications']} replication(s) on both sides (medians)",
        "",
    ]
    if cmp["differences"]:
        out.append("what differs (B − A's scenario as resolved):")
        out.extend(
            f"    {d['key']}: A {value_text(d['key'], d['a'])} · B {value_text(d['key'], d['b'])}"
            for d in cmp["differences"]
        )
    else:
        out.append("what differs: nothing in the resolved scenarios (the same restart on both sides)")
    out.append("")
    width = max(len(p) for p in PHASES) + 2
    for n in cmp["nodes"]:
        out.append(f"node {n['node']}".ljust(width) + f"{'A':>11s}{'B':>11s}{'B − A':>11s}")
        for p, row in n["phases"].items():
            if not (row["a"] or row["b"]):
                continue
            out.append(p.ljust(width) + _s(row["a"]) + _s(row["b"]) + _s(row["diff"], sign=True))
            wa, wb = row["why_a"], row["why_b"]
            if wa and wa == wb:
                out.append(f"    A, B: {why_text(wa)}")
                continue
            out.extend(f"    {side}: {why_text(w)}" for side, w in (("A", wa), ("B", wb)) if w)
        t = n["node_total"]
        out.append("node total".ljust(width) + _s(t["a"]) + _s(t["b"]) + _s(t["diff"], sign=True))
        out.append("")
    t = cmp["total_restart_secs"]
    out.append(
        f"restart total: A {_total(t['a'], a)} · B {_total(t['b'], b)} · B − A "
        + (f"{t['diff']:+.1f} s" if math.isfinite(t["diff"]) else "n/a")
    )
    from ndbsim.output.interval import range_text

    out.append(f"predictive p5–p95: A {range_text(a.get('interval'))} · B {range_text(b.get('interval'))}")
    out.extend(f"status {x['label']}: {x['status']} — {x['reason']}" for x in (a, b) if x["status"] != "ok")
    return "\n".join(out) + "\n"


def _total(secs: float, side: dict[str, Any]) -> str:
    """A side's restart total, or where a restart that did not complete stopped."""
    from ndbsim.input.units import format_secs

    if math.isfinite(secs) or "stopped_secs" not in side or not math.isfinite(side["stopped_secs"]):
        return format_secs(secs)
    secs = side["stopped_secs"]
    when = "at the crash" if secs <= 0 else f"{format_secs(secs)} after the crash"
    n, k = side["replications"]["n"], side.get("stopped_replications", 0)
    if 0 < k < n:
        return f"does not complete in {k} of {n} replications ({side['status']}, the first stopped {when})"
    return f"did not complete ({side['status']}, stopped {when})"


def _s(x: float, sign: bool = False) -> str:
    if not math.isfinite(x):
        return f"{'n/a' if math.isnan(x) else 'never':>11s}"
    return f"{x:>+9.1f} s" if sign else f"{x:>9.1f} s"
