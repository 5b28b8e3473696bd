"""Local recovery of one data node, the restart_info phases that rebuild it from its own disk
(reference §1.4): the restore of its newest LCP(s), the UNDO of disk data, the REDO applied since
the restored LCP started, and the offline rebuild of the ordered indexes (not in the LCP). Each
step's work flows through the node's fluid resources (``NodeRestart.work``)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from simpy.events import Event

from ndbsim.engine import fixed_costs, why
from ndbsim.engine.restart.node_restart import NodeRestart
from ndbsim.input import restart_info as ri


def restore_fragments(r: NodeRestart) -> Generator[Event, Any, None]:
    """Restore the LCP(s) on disk, written under the cluster's checkpoint policy: one fragment at a
    time per restoring thread of the node's own release, each fragment's file requests first
    (``fixed_costs.restore_setup_secs``), then its rows."""
    rt = r.rt
    sz = rt.sz
    work = sz.policy.restore_of(sz.data_bytes, sz.rows, r.node.history, rt.plan.steady, rt.plan.older_eras())
    f = r.run.facts
    f.restore_bytes, f.restore_rows, f.restore_lcps = work.bytes_read, work.rows_applied, work.lcps
    t0 = rt.env.now
    restorers = min(r.own.threads.restore_threads, max(1, sz.fragments))
    ops = fixed_costs.restore_file_ops(sz.features.partial_lcp, work.data_files)
    setup = fixed_costs.restore_setup_secs(sz.fragments, restorers, ops, sz.host.disk_latency)
    yield rt.env.timeout(setup)
    k = sz.k
    cpu = (work.rows_applied - work.change_rows) * k.restore_row_secs + work.change_rows * k.change_row_secs
    per_byte = cpu / work.bytes_read
    flow = yield from r.work(work.bytes_read, per_byte, restorers, 1.0 / sz.host.disk_read, "restore")
    why.note_flows(
        r.run,
        ri.RESTORE_FRAGMENTS,
        [flow],
        r.node,
        "LCP bytes and rows read back",
        cap=f"LDM CPU ({restorers} restoring threads)",
        bytes=work.bytes_read,
        rows=work.rows_applied,
        change_rows=work.change_rows,
        lcp_files=work.lcps,
        fragments=sz.fragments,
        file_setup_secs=setup,
    )
    r.span(ri.RESTORE_FRAGMENTS, t0)


def undo_disk_data(r: NodeRestart) -> Generator[Event, Any, None]:
    """REDO written since the restored LCP started; disk-data pages also need UNDO, its share."""
    rt = r.rt
    sz, data = rt.sz, rt.scenario.data
    redo = rt.redo.since(r.redo_from, r.crash)
    if redo > sz.redo_capacity:  # the log cannot hold more: writes had aborted with error 410
        r.run.facts.redo_bytes_wanted = redo
        redo = sz.redo_capacity
    undo = redo * (data.disk_data_size / (data.disk_data_size + sz.data_bytes))
    r.redo_bytes = r.run.facts.redo_bytes = redo
    r.run.facts.undo_bytes = undo
    t0 = rt.env.now
    if undo > 0:
        threads = r.own.ldm if r.own.features.parallel_undo else 1
        flow = yield from r.work(undo, sz.k.redo_byte_secs, threads, 1.0 / sz.host.disk_read, "undo")
        why.note_flows(
            r.run,
            ri.UNDO_DISK_DATA,
            [flow],
            r.node,
            "UNDO bytes (disk data's share of the REDO)",
            cap=f"CPU ({threads} UNDO threads)",
            undo_bytes=undo,
            redo_bytes=redo,
        )
    r.span(ri.UNDO_DISK_DATA, t0)


def exec_redo_log(r: NodeRestart) -> Generator[Event, Any, None]:
    """Apply the REDO logged since the restored LCP started, on every LDM thread."""
    sz = r.rt.sz
    t0 = r.rt.env.now
    flow = yield from r.work(r.redo_bytes, sz.k.redo_byte_secs, r.own.ldm, 1.0 / sz.host.disk_read, "redo")
    why.note_flows(
        r.run,
        ri.EXEC_REDO_LOG,
        [flow],
        r.node,
        "REDO bytes logged since the restored LCP started",
        cap=f"LDM CPU ({r.own.ldm} LDM threads)",
        redo_bytes=r.redo_bytes,
        lcp_age_at_crash_secs=r.crash - r.redo_from,
    )
    r.span(ri.EXEC_REDO_LOG, t0)


def index_rebuild(r: NodeRestart) -> Generator[Event, Any, None]:
    """Rebuild the ordered indexes offline (they are not in the LCP)."""
    t0 = r.rt.env.now
    yield from rebuild_indexes(r)
    r.span(ri.INDEX_REBUILD, t0)


def rebuild_indexes(r: NodeRestart) -> Generator[Event, Any, None]:
    """Build every ordered index offline, over the node's own BuildIndexThreads threads (or its LDM
    threads). DBLQH builds one index after the other (DblqhMain.cpp, ``Dblqh::rebuildOrderedIndexes``:
    BUILD_INDX_IMPL_REQ, the next index on its CONF); DBTUP adds every row of the table's fragments, in
    the LDM thread (DbtupIndex.cpp, ``Dbtup::buildIndex``) or, with BuildIndexThreads > 0, fragments in
    parallel on idxbld threads (``Dbtup::buildIndexOffline``). No schema transaction and no wait
    (``engine.fixed_costs``); in the LDM thread every tuple slot costs a signal, free ones too."""
    sz, own, s = r.rt.sz, r.own, r.rt.scenario
    entries = s.data.index_entries  # per table, its rows x its ordered indexes
    if entries <= 0:
        return
    fragments = s.data.table_count * own.ldm * sz.replicas
    hw = s.host.cpu_cores * s.host.threads_per_core
    build = own.cfg["BuildIndexThreads"]
    offline = build > 0 and fragments > 1
    threads = min(build, fragments, hw) if offline else own.ldm
    if not offline:  # slot by slot in the LDM thread (fixed_costs.slot_visits)
        entries = max(entries, fixed_costs.slot_visits(s.data.table_amounts(), own.ldm * sz.replicas))
    flow = yield from r.work(entries, sz.k.index_entry_secs, threads, name="index")
    why.note_flows(
        r.run,
        ri.INDEX_REBUILD,
        [flow],
        r.node,
        "ordered-index entries (rows × ordered indexes; slot visits in the LDM thread)",
        cap=f"CPU ({threads} index-build threads)",
        index_entries=entries,
        ordered_indexes=s.data.ordered_indexes,
        build_threads=threads,
    )
