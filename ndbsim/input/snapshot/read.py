"""A snapshot of a running restart (``ndbsim ndbinfo-sql --snapshot``, or the full script): when it
was taken, each data node's ``nodes`` row and its ``restart_info`` row, read as NDB writes them
(``ndbsim.input.snapshot.status``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from ndbsim.errors import InputError
from ndbsim.input.ndbinfo import (
    DATA_NODE_TYPE,
    SNAPSHOT_BLOCKS,
    Export,
    number,
    parse_export,
    read_export,
    release_of,
    seconds,
)
from ndbsim.input.restart_info import COLUMNS, check_row
from ndbsim.input.snapshot.status import State, state_of

STATUS_COLUMNS = ("node_restart_status", "node_restart_status_int")
"""restart_info's status columns: which state each node has reached."""


@dataclass
class NodeRow:
    """One data node in a snapshot."""

    node_id: int
    state: State | None = None
    """Its restart_info state (None: no row, the node has not restarted since the cluster started)."""
    columns: dict[str, float] = field(default_factory=dict)
    """The phase columns that are final in that state (whole seconds, as NDB rounds them down)."""
    total: float = 0.0
    """``total_restart_secs`` (0 until the restart completes)."""
    status: str | None = None
    """``nodes.status``: STARTED, STARTING, ... (None: no ``nodes`` row, the node is down)."""
    start_phase: int | None = None
    uptime: float | None = None
    """``nodes.uptime``: seconds since the node's process started."""


@dataclass
class Snapshot:
    source: str
    sampled_at: float
    """Seconds since the epoch, the SQL node's clock."""
    nodes: dict[int, NodeRow] = field(default_factory=dict)
    sql_node_version: str = ""
    """``sql_node_ndb_version`` as the SQL node printed it (``ndb-8.4.3``; "" when not exported)."""
    node_releases: dict[int, str] = field(default_factory=dict)
    """Each data node's release (``8.4.3``) from ``processes.node_version``, where the export has it."""


def _secs(ex: Export, table: str, row: dict[str, str | None], col: str, node: int) -> float:
    """A seconds value within what NDB's column holds (``ndbinfo.seconds``); NULL is 0."""
    x = seconds(ex, table, row, col, node)
    return 0.0 if math.isnan(x) else x


def _releases(ex: Export) -> dict[int, str]:
    """The data nodes' releases in the export's ``processes`` block (the full script has it)."""
    out = {}
    for row in ex.rows("processes"):
        if row.get("node_type") == DATA_NODE_TYPE:
            release = release_of(row.get("node_version") or "")
            if release is None:
                raise ex.fail("processes", f"node_version {row.get('node_version')!r} names no release; export again")
            out[_node_id(ex, "processes", row)] = release
    return out


def _node_id(ex: Export, table: str, row: dict[str, str | None]) -> int:
    x = number(ex, table, row, "node_id")
    if not (math.isfinite(x) and x.is_integer() and 1 <= x <= 255):
        raise ex.fail(table, f"node_id={row.get('node_id')!r} is not a NodeId 1-255; export again")
    return int(x)


def snapshot_from_export(ex: Export) -> Snapshot:
    """The snapshot an export holds; one line naming the table and column for anything NDB would
    not write."""
    stamp = ex.rows("snapshot")
    at = number(ex, "snapshot", stamp[0], "sampled_at") if stamp else math.nan
    if not math.isfinite(at) or at <= 0:
        raise ex.fail("snapshot", "sampled_at is not a time; export again with `ndbsim ndbinfo-sql --snapshot`")
    snap = Snapshot(ex.source, at, sql_node_version=ex.sql_node_version, node_releases=_releases(ex))
    for row in ex.rows("nodes"):
        n = _node_id(ex, "nodes", row)
        phase = row.get("start_phase")
        snap.nodes[n] = NodeRow(
            n,
            status=row.get("status"),
            start_phase=int(float(phase)) if phase not in (None, "") else None,
            uptime=_secs(ex, "nodes", row, "uptime", n) if row.get("uptime") is not None else None,
        )
    info = ex.rows("restart_info")
    missing = [c for c in STATUS_COLUMNS if info and c not in info[0]]
    if missing:
        raise ex.fail(
            "restart_info",
            f"has no column {', '.join(missing)}; export SELECT * FROM ndbinfo.restart_info with "
            "`ndbsim ndbinfo-sql --snapshot`",
        )
    for row in info:
        n = _node_id(ex, "restart_info", row)
        code = row.get("node_restart_status_int")
        try:
            state = state_of(row.get("node_restart_status"), float(code) if code is not None else None, f"node {n}")
        except ValueError:
            raise ex.fail("restart_info", f"node {n}: node_restart_status_int={code!r} is not a number") from None
        except InputError as e:
            raise e.located(ex.source) from None
        node = snap.nodes.setdefault(n, NodeRow(n))
        node.state = state
        node.total = _secs(ex, "restart_info", row, "total_restart_secs", n)
        if not state.coarse:
            node.columns = {c: _secs(ex, "restart_info", row, c, n) for c in COLUMNS[: state.finished] if c in row}
            if state.complete and math.isfinite(node.total) and node.total > 0:
                try:
                    check_row(node.columns, node.total, None, f"node {n}")
                except InputError as e:
                    raise e.located(ex.source) from None
    return snap


def read_snapshot(path: str | Path) -> Snapshot:
    """Read a snapshot file (``mysql --batch`` output of the snapshot or the full script)."""
    return snapshot_from_export(read_export(path, SNAPSHOT_BLOCKS))


def parse_snapshot(text: str, source: str) -> Snapshot:
    return snapshot_from_export(parse_export(text, source, SNAPSHOT_BLOCKS))
