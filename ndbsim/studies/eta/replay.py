"""Snapshots cut from a finished restart's restart_info rows, as the master would have shown them
at a moment of the restart: the test of ``ndbsim eta`` against a restart whose end is known.

The waves run one after another from ``start``; each node's phases follow one another in
restart_info's order, so at a moment a node has finished the columns whose running sum has
passed, shows the state that ends its last finished column (``restart_status.STATES``) and 0 in
every later column, and its process has run since the end of ``secs_to_allocate_node_id``.
"""

from __future__ import annotations

from typing import Any

from ndbsim.input.restart_info import COLUMNS, TO_ALLOCATE_NODE_ID
from ndbsim.input.snapshot.status import STATES

UP_BEFORE = 90 * 86400
"""``nodes.uptime`` of a node not yet restarted in the replayed restart: 90 days, as a production
cluster's data nodes show between two rolling restarts (the column holds years,
``ndbsim.input.ndbinfo.NUMBER64_MAX``)."""

RELEASE = "8.0.35"
"""The shipped rolling restart's release (tests/data/rolling-8.0.35)."""

HEADER = ("node_id", "node_restart_status", "node_restart_status_int", *COLUMNS, "total_restart_secs")
_BY_FINISHED = {s.finished: s for s in STATES if not s.coarse}


def wave_starts(rows: dict[int, dict[str, Any]], waves: list[list[int]], start: float) -> list[float]:
    """When each wave began: the one before it ended with its slowest node."""
    out, t = [], start
    for w in waves:
        out.append(t)
        t += max(rows[n]["total_restart_secs"] for n in w)
    return out


def _row_at(row: dict[str, Any], began: float, at: float) -> tuple[list[str], float | None]:
    """A node's restart_info cells at ``at`` and its uptime (None: its process is not running)."""
    cols = [float(row["phases"].get(c, 0.0)) for c in COLUMNS]
    done_at = began + row["total_restart_secs"]
    ends = [began + sum(cols[: i + 1]) for i in range(len(cols))]
    finished = sum(1 for e in ends if e <= at)
    if at >= done_at:
        finished = len(COLUMNS)
    state = _BY_FINISHED[finished]
    shown = [f"{c:.0f}" if i < finished else "0" for i, c in enumerate(cols)]
    total = f"{row['total_restart_secs']:.0f}" if finished == len(COLUMNS) else "0"
    cells = [str(row["node_id"]), state.text, str(state.code), *shown, total]
    alloc = COLUMNS.index(TO_ALLOCATE_NODE_ID) + 1
    process = began + sum(cols[:alloc])
    return cells, (at - process if at >= process else None)


def snapshot_text(
    rows: dict[int, dict[str, Any]],
    waves: list[list[int]],
    start: float,
    at: float,
    up_before: float = UP_BEFORE,
    release: str = RELEASE,
) -> str:
    """The snapshot script's output at ``at`` for a restart of ``waves`` that began at ``start``: the
    nodes not restarted yet up ``up_before`` seconds, every node and the SQL node on ``release``."""
    starts = wave_starts(rows, waves, start)
    info, nodes = [], []
    for began, w in zip(starts, waves):
        for n in w:
            if at < began:
                nodes.append([str(n), f"{up_before:.0f}", "STARTED", "0", "1"])  # not restarted yet
                continue
            cells, uptime = _row_at(rows[n], began, at)
            info.append(cells)
            if uptime is not None:
                started = cells[1] == "Restart completed"
                nodes.append([str(n), f"{uptime:.0f}", "STARTED" if started else "STARTING", "0", "1"])
    lines = ["ndbsim_export\tsql_node_ndb_version", f"ndbsim-ndbinfo 1\tndb-{release}"]
    lines += ["ndbsim_table", "snapshot", "sampled_at", f"{at:.6f}"]
    lines += ["ndbsim_table", "processes", "node_id\tnode_type\tnode_version"]
    lines += [f"{r[0]}\tNDB\t{release}" for r in sorted(nodes, key=lambda r: int(r[0]))]
    lines += ["ndbsim_table", "nodes", "node_id\tuptime\tstatus\tstart_phase\tconfig_generation"]
    lines += ["\t".join(r) for r in sorted(nodes, key=lambda r: int(r[0]))]
    lines += ["ndbsim_table", "restart_info"]
    if info:
        lines += ["\t".join(HEADER)] + ["\t".join(r) for r in sorted(info, key=lambda r: int(r[0]))]
    lines += ["ndbsim_table", "end"]
    return "\n".join(lines) + "\n"


def boundaries(row: dict[str, Any], began: float) -> list[float]:
    """The moments a node's phases end (its first phase's start first)."""
    out, t = [began], began
    for c in COLUMNS:
        t += float(row["phases"].get(c, 0.0))
        out.append(t)
    return out


def read_rows(csv_path: str) -> dict[int, dict[str, Any]]:
    """A finished restart's rows (``restart_rows.observations``) by NodeId."""
    from pathlib import Path

    from ndbsim.studies.calibration.restart_rows import observations

    return {r["node_id"]: r for r in observations(Path(csv_path))}


def cut_times(rows: dict[int, dict[str, Any]], waves: list[list[int]], wave: int, start: float) -> list[float]:
    """Every phase boundary of ``wave`` (0-based): the moments its first node's phases end, each once,
    from the wave's start to its end."""
    began = wave_starts(rows, waves, start)[wave]
    first = rows[waves[wave][0]]
    times = sorted(set(boundaries(first, began)))
    end = began + max(rows[n]["total_restart_secs"] for n in waves[wave])
    return [t for t in times if t < end] + [end]


def replay(session: Any, rows: dict[int, dict[str, Any]], wave: int, start: float) -> list[dict[str, Any]]:
    """``session`` fed the snapshots cut at every phase boundary of ``wave``, in order: per cut the
    state of the wave's first node, the predicted window and its error against the true one."""
    import time as clock

    from ndbsim.input.snapshot.read import parse_snapshot

    waves = session.waves
    truth = sum(max(rows[n]["total_restart_secs"] for n in w) for w in waves)
    out = []
    for k, at in enumerate(cut_times(rows, waves, wave, start)):
        t0 = clock.perf_counter()
        eta = session.update(parse_snapshot(snapshot_text(rows, waves, start, at), f"cut {k}"))
        secs = clock.perf_counter() - t0
        p = eta.progress.nodes[waves[wave][0]]
        w = eta.window
        out.append(
            {
                "cut": k,
                "at_secs": at - start,
                "node": p.node_id,
                "state": p.row.state.name if p.row.state else "",
                "phase": p.phase or "done",
                "fit_nodes": eta.refit.nodes,
                "fit_phases": eta.refit.phases,
                "window_p50": w["p50"],
                "window_p5": w["p5"],
                "window_p95": w["p95"],
                "truth": truth,
                "error": (w["p50"] - truth) / truth,
                "error_of_left": (w["p50"] - truth) / max(truth - (at - start), 1.0),
                "secs": secs,
            }
        )
    return out
