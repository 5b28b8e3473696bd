"""The copy phase: synchronisation with a live node of the node group, table by table, the
live node scanning every row and shipping the changed ones while the target moves (the offline
ordered-index rebuild is ``engine.restart.local_recovery``'s)."""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from simpy.events import Event

from ndbsim.engine import why
from ndbsim.engine.fluid.flow import Flow
from ndbsim.engine.node import Node
from ndbsim.engine.records import Status
from ndbsim.engine.restart.node_restart import NodeRestart
from ndbsim.input.profiles import SCAN_ROW_SECS
from ndbsim.input.restart_info import TO_SYNCHRONIZE_STARTING_NODE

if TYPE_CHECKING:
    from ndbsim.input.scenario import Scenario

COPY_STEPS_MAX = 32
"""The copy phase runs table by table, each table shipping what changed until it starts (the
moving target); beyond this many tables, tables are grouped into this many equal steps so that
the events per copy stay bounded. A numerical resolution, not an NDB value: with up to 32
tables every table is its own step."""


def copy_phase(r: NodeRestart, since: float, full: bool, index_online: bool) -> Generator[Event, Any, None]:
    """Synchronise with the live node, table by table (``COPY_STEPS_MAX``). The live node scans
    every row and ships those changed since ``since`` (all rows for a full copy); the starting
    node has joined all transactions, so it also applies the live stream as it arrives. A table
    copied later has collected more changes: the target moves while the copy runs. A copy that
    cannot run or never converges ends the restart with that status."""
    rt, node, run = r.rt, r.node, r.run
    t0 = rt.env.now
    peers = rt.peers(node)
    if not peers:
        run.status, run.reason = Status.ERROR, "no live node in the node group to copy from"
        run.end = rt.env.now
        r.span(TO_SYNCHRONIZE_STARTING_NODE, t0)
        return
    rt.apply_live_load(node, rt.plan.restart_rates)
    sz, s = rt.sz, rt.scenario
    groups = s.data.table_groups(COPY_STEPS_MAX)
    index_per_row = s.data.index_entries_per_row * sz.k.index_entry_secs if index_online else 0.0
    limit, apply_cores = _convergence(r, full, index_per_row)
    if limit:
        run.status = Status.NON_CONVERGING
        run.reason = "the copy phase never converges: " + limit
        run.end = math.inf
        run.spans.append((TO_SYNCHRONIZE_STARTING_NODE, t0, math.inf))  # the copy would never end
        return
    index_secs = [entries * sz.k.index_entry_secs if index_online else 0.0 for _, entries in groups]
    shares = [share for share, _ in groups]
    shipped, flows = yield from _ship(r, peers[0], since, full, shares, index_secs, apply_cores)
    run.facts.copied_rows = (run.facts.copied_rows or 0.0) + shipped  # both passes
    why.note_flows(
        run,
        TO_SYNCHRONIZE_STARTING_NODE,
        flows,
        node,
        "rows shipped from the live node" + (" (every row)" if full else " (those changed since the node stopped)"),
        cap=f"LDM CPU ({_copy_instances(r)} copy instances)",
        copied_rows=run.facts.copied_rows,
        scanned_rows=sz.rows,
        live_node=_node_id(rt.scenario, peers[0].id),
        copy_steps=len(shares),
    )
    r.span(TO_SYNCHRONIZE_STARTING_NODE, t0)


def _copy_instances(r: NodeRestart) -> int:
    """Copy instances: one per LDM thread of the starting node, at most its own MaxParallelCopyInstances."""
    own = r.own
    cap = own.cfg["MaxParallelCopyInstances"]
    return min(own.ldm, cap) if cap else own.ldm


def _convergence(r: NodeRestart, full: bool, index_per_row: float) -> tuple[str | None, float]:
    """(why the copy can never converge or None, the cores the copy gets). The starting node's
    LDM threads apply the live stream and run the copy: the copy gets what the stream leaves.
    It never converges if the stream alone saturates the LDM threads, the node's cores or the
    link from the live node."""
    rt, node = r.rt, r.node
    sz, k, rates = rt.sz, rt.sz.k, rt.plan.restart_rates
    per_row_apply = k.restore_row_secs + index_per_row  # a live change applied on the starting node
    stream_rows = rates.rows / sz.groups
    ldm_cores = r.own.ldm_cores
    copy_cores = sz.cores(_copy_instances(r))
    need = stream_rows * per_row_apply
    stream_bytes = rates.bytes / sz.groups
    limit = None
    if need >= ldm_cores:
        limit = (
            f"applying {stream_rows:,.0f} changed rows/s needs {need:.1f} cores of the starting node's "
            f"{r.own.ldm} LDM threads, which give {ldm_cores:.1f}; lower the update rate during the restart "
            "or add LDM threads"
        )
    elif rt.fluid.spare(node.cpu) <= 0:
        limit = "the starting node's cores are saturated by the live stream; lower the update rate"
    elif rt.fluid.spare(node.net) <= 0:
        limit = (
            f"the live stream alone sends {stream_bytes / 1e6:,.0f} MB/s to the starting node over a "
            f"{sz.host.network * 8 / 1e9:g} Gbit/s link; lower the update rate or use a faster network"
        )
    apply_cores = copy_cores * (1.0 - need / ldm_cores) if not limit else 0.0
    if not limit and not full:
        limit = _moving_target_outruns(r, index_per_row, apply_cores)
    return limit, apply_cores


def _moving_target_outruns(r: NodeRestart, index_per_row: float, apply_cores: float) -> str | None:
    """Updates hit the same rows again (the target saturates at every row), but each insert and
    delete is one more row to ship: if they arrive faster than the copy can ship rows at best,
    every table copied later has more to ship, without end."""
    rt = r.rt
    sz, rates = rt.sz, rt.plan.restart_rates
    row_size = sz.data_bytes / sz.rows if sz.rows else 0.0
    grow = (rates.inserts + rates.deletes) / sz.groups
    best = apply_cores / (sz.k.copy_row_secs + index_per_row)
    if row_size > 0:
        best = min(best, rt.fluid.spare(r.node.net) / row_size)
    if grow >= best:
        return (
            f"inserts and deletes add {grow:,.0f} rows/s to ship, more than the copy's best "
            f"{best:,.0f} rows/s; lower the insert and delete rates during the restart or raise "
            "MaxParallelCopyInstances"
        )
    return None


def _ship(
    r: NodeRestart,
    live: Node,
    since: float,
    full: bool,
    shares: list[float],
    index_secs: list[float],
    apply_cores: float,
) -> Generator[Event, Any, tuple[float, list[Flow]]]:
    """Ship the rows, one step of tables after another (``shares`` of the rows, changes spread
    over the rows evenly; ``index_secs`` the core time each shipped row's ordered indexes
    cost); returns the rows shipped and the flows, followed for the phase's why."""
    rt, node = r.rt, r.node
    sz, k, env = rt.sz, rt.sz.k, rt.env
    row_size = sz.data_bytes / sz.rows if sz.rows else 0.0
    shipped_total = 0.0
    flows: list[Flow] = []
    even = len(set(shares)) == 1
    for share, index_per_row in zip(shares, index_secs):
        if full:
            ship = sz.rows / len(shares) if even else sz.rows * share
        else:
            changed = rt.plan.traffic.distinct_rows(since, env.now, sz.rows, sz.max_rows)
            ship = changed / len(shares) if even else changed * share
        scan = sz.rows / len(shares) if even else sz.rows * share
        shipped_total += ship
        demand = {
            node.cpu: ship * (0.5 * k.copy_row_secs + index_per_row),
            live.cpu: scan * SCAN_ROW_SECS + ship * 0.5 * k.copy_row_secs,
            node.net: ship * row_size,
        }
        # A copy instance is a pair of threads, one on each side, exchanging rows
        # request by request (COPY_FRAGREQ scan -> LQHKEYREQ per row): each pays both
        # sides' per-row cost in series.
        per_chunk = demand[node.cpu] + demand[live.cpu]
        cap = apply_cores / per_chunk if per_chunk > 0 else math.inf
        flow = rt.fluid.transfer(1.0, demand, cap=cap, name=f"copy{node.id}")
        rt.fluid.track(flow)
        flows.append(flow)
        yield flow.done
    return shipped_total, flows


def _node_id(s: Scenario, index: int) -> int:
    """The NDB NodeId of the engine's data node ``index`` (1-based; ``cluster.node_ids``' order)."""
    ids = s.cluster.node_ids
    return ids[index - 1] if ids else index
