"""The end of a node's restart, as ``ndbinfo.restart_info`` reports it (reference §1.4): the LCP
that makes the node recoverable (on 7.6 its own local LCP first, then a distributed one), a system
restart's LCP before any transaction, and SUMA's subscription handover. ``engine.restart.pipeline`` orders
these steps in its tables.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from simpy.events import Event

from ndbsim.engine import fixed_costs, why
from ndbsim.engine.fluid.flow import Flow
from ndbsim.engine.lcp.checkpoint import LcpRecord
from ndbsim.engine.node import Node
from ndbsim.engine.restart import disk_data
from ndbsim.engine.restart.node_restart import NodeRestart
from ndbsim.engine.runtime import Runtime
from ndbsim.engine.workload import Changes
from ndbsim.input import restart_info as ri


def wait_lcp_for_restart(r: NodeRestart) -> Generator[Event, Any, None]:
    """Wait for an LCP that makes the node recoverable: on 7.6 its own local LCP first, then a
    distributed LCP it takes part in (started at DIH's next check, ended by its stop GCP)."""
    rt, node = r.rt, r.node
    t0 = rt.env.now
    if rt.sz.features.local_lcp_at_restart_end:
        yield from _local_lcp(r, t0)
    else:
        node.redo_floor = t0  # logging is enabled once the copy is done (END_TOREQ, reference §1.4)
    yield rt.env.timeout(float(rt.rng.random()) * fixed_costs.LCP_START_CHECK_SECS)  # DIH's next check
    node.in_lcp = True
    t_dist = rt.env.now
    yield rt.lcp.request(node)
    yield rt.env.timeout(fixed_costs.lcp_stop_gcp_secs(float(rt.rng.random()), rt.sz.gcp))
    why.lcp_wait(r, t0, t_dist)
    r.span(ri.WAIT_LCP_FOR_RESTART, t0)
    _rejoin(rt, node)


def _local_lcp(r: NodeRestart, t0: float) -> Generator[Event, Any, None]:
    rt, node, facts = r.rt, r.node, r.run.facts
    sz, env = rt.sz, rt.env
    changes = rt.plan.node_changes_since(r.redo_from, env.now)
    size, pct = sz.policy.lcp_size(sz.data_bytes, sz.rows, changes, first=r.initial)
    facts.local_lcp_bytes = size
    flow = rt.writes.flow(node, size, rt.writes.speed(node))
    rt.fluid.track(flow)
    restored = node.history[0] if node.history and not r.initial else None
    yield flow.done
    flush = yield from _disk_page_flush(r, changes)
    facts.local_lcp_secs = env.now - t0
    why.local_lcp(r, flow, size, changes.updates + changes.inserts, restored, flush)
    # the local LCP is now this node's newest checkpoint (an initial restart's only one)
    rec = LcpRecord(t0, env.now, pct, changes.updates + changes.inserts, changes.bytes, size, changes.inserts)
    node.history = [rec] if r.initial else [rec, *node.history]
    node.redo_floor = env.now  # 7.6 activates REDO logging after the local LCP


def system_restart_lcp(r: NodeRestart) -> Generator[Event, Any, None]:
    """Every system restart runs an LCP before any transaction starts (DbdihMain.cpp,
    ZNDB_SPH5, ST_SYSTEM_RESTART: immediateLcpStart), at the restart's write speed: full up to
    7.5, partial from 7.6, of the changes the REDO just re-applied since the restored LCP."""
    rt, node, facts = r.rt, r.node, r.run.facts
    sz, env = rt.sz, rt.env
    t0 = env.now
    changes = rt.plan.node_changes_since(r.redo_from, r.crash)
    size, pct = sz.policy.lcp_size(sz.data_bytes, sz.rows, changes)
    facts.local_lcp_bytes = size
    flow = rt.writes.flow(node, size, rt.writes.speed(node))
    rt.fluid.track(flow)
    yield flow.done
    flush = yield from _disk_page_flush(r, changes)
    why.note_flows(
        r.run,
        ri.WAIT_LCP_FOR_RESTART,
        [flow] if flush is None else [flow, flush],
        node,
        "LCP bytes: the changes the REDO re-applied",
        disk="write",
        cap=f"write speed ({why.speed_parameter(sz)})",
        cap_key=f"cluster.config.{why.speed_parameter(sz)}",
        lcp_bytes=size,
        lcp_fixed_secs=sz.lcp_fixed_secs,
    )
    yield env.timeout(sz.lcp_fixed_secs)
    facts.local_lcp_secs = env.now - t0
    rec = LcpRecord(t0, env.now, pct, changes.updates + changes.inserts, changes.bytes, size, changes.inserts)
    node.history = [rec, *node.history]
    node.redo_floor = env.now  # the cluster logs again once it has started
    r.span(ri.WAIT_LCP_FOR_RESTART, t0)
    _rejoin(rt, node)


def _disk_page_flush(r: NodeRestart, changes: Changes) -> Generator[Event, Any, Flow | None]:
    """The LCP also writes the dirty disk-data pages of the page cache: each fragment's LCP ends by
    having PGMAN write its table's dirty pages (Backup's SYNC_PAGE_CACHE_REQ to PGMAN before the
    fragment's LCP completes, and SYNC_EXTENT_PAGES_REQ at the LCP's end), after its in-memory part,
    once per page (``Pgman::insert_fragment_dirty_list``; reference §14.1). After a copy those are
    the pages the copy dirtied that DiskPageBufferMemory still holds (``NodeRestart.copy_pages``; the
    others were written as they were evicted); without one, the pages ``changes`` dirtied since the
    restored LCP, at most the buffer (``disk_data.dirty_page_bytes``). PGMAN paces them by its own
    rules, not by the LCP's write speed (``disk_data.lcp_flush_rate``), within the disk's rate. The
    pages made dirty count from PGMAN's restart sync at the end of the UNDO apply."""
    rt, node = r.rt, r.node
    s = rt.scenario
    made, dirty = r.copy_pages
    if made <= 0:
        dirty = made = disk_data.dirty_page_bytes(s, changes, r.own.cfg["DiskPageBufferMemory"])
    if dirty <= 0:
        return None
    since = next((t1 for phase, _, t1 in reversed(r.run.spans) if phase == ri.UNDO_DISK_DATA), r.crash)
    sz = rt.sz
    rate = disk_data.lcp_flush_rate(
        sz.features.pgman_lcp_pacing, made, rt.env.now - since, rt.lqh_workers(node), sz.host.disk_latency
    )
    r.run.facts.disk_page_flush_bytes = dirty
    r.disk_page_flush = (made, rate)
    flow = rt.fluid.transfer(dirty, {node.disk: 1.0 / sz.host.disk_write}, cap=rate, name=f"pages{node.id}")
    rt.fluid.track(flow)
    yield flow.done
    return flow


def _rejoin(rt: Runtime, node: Node) -> None:
    node.restarting = False
    rt.lcp.refresh_speeds(changed=True)


def wait_subscription_handover(r: NodeRestart) -> Generator[Event, Any, None]:
    """SUMA hands the node its share of the event subscriptions from the live nodes."""
    k, gcp = r.rt.sz.k, r.rt.sz.gcp
    why.step(r.run, ri.WAIT_SUBSCRIPTION_HANDOVER, gcps=k.suma_handover_gcps, gcp_secs=gcp)
    yield from r.timed(ri.WAIT_SUBSCRIPTION_HANDOVER, k.suma_handover_gcps * gcp)
