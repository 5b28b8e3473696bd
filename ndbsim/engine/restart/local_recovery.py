"""Local recovery of one data node, the restart_info phases that rebuild it from its own disk
(reference §1.4): the restore of its newest LCP(s), the UNDO of disk data, the REDO applied since
the restored LCP started, and the offline rebuild of the ordered indexes (not in the LCP). Each
step's work flows through the node's fluid resources (``NodeRestart.work``)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from simpy.events import Event

from ndbsim.engine import fixed_costs, why
from ndbsim.engine.restart import disk_data
from ndbsim.engine.restart.node_restart import NodeRestart
from ndbsim.input import restart_info as ri
from ndbsim.input.units import format_bytes

MEMORY_COPY_BYTES_PER_SEC = 5e9
"""Bytes one core copies per second between buffers larger than its caches: an assumption at the low
end of what a server core's memcpy (STREAM Copy, one thread) reaches, 5–10 GB/s; no NDB source gives
it."""

RESTORE_BYTE_COPIES = 2
"""Times the restore copies each byte of a row: ``Restore::parse_record`` (restore.cpp) copies the
row from the LCP file's page into the LQHKEYREQ's attribute section (``memcpy`` of the READ_LCP
words), and DBTUP writes those words into the row's DataMemory page. The row-count cost
(``restore_row_secs``, fitted on 200-byte rows) holds the per-row work; these copies are what a
wider row adds."""


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
    threads = r.own.threads.restore_threads
    restorers = fixed_costs.busy_threads(sz.fragments, threads)
    ops = fixed_costs.restore_file_ops(sz.features.partial_lcp, work.data_files)
    setup = fixed_costs.restore_setup_secs(sz.fragments, threads, ops, sz.host.disk_latency)
    yield rt.env.timeout(setup)
    k = sz.k
    cpu = (work.rows_applied - work.change_rows) * k.restore_row_secs + work.change_rows * k.change_row_secs
    per_byte = cpu / work.bytes_read + RESTORE_BYTE_COPIES / MEMORY_COPY_BYTES_PER_SEC
    flow = yield from r.work(work.bytes_read, per_byte, restorers, 1.0 / sz.host.disk_read, "restore")
    why.note_flows(
        r.run,
        ri.RESTORE_FRAGMENTS,
        [flow],
        r.node,
        "LCP bytes and rows read back",
        cap=f"LDM CPU ({restorers:.3g} restoring threads)",
        work=(rt.fluid.capacity, work.bytes_read),
        waits={f"disk latency (LCP file requests, node {r.node.node_id})": setup},  # one fragment at a time
        bytes=work.bytes_read,
        rows=work.rows_applied,
        change_rows=work.change_rows,
        lcp_files=work.lcps,
        data_files_per_fragment=work.data_files,
        file_requests_per_fragment=ops,
        fragments=sz.fragments,
        file_setup_secs=setup,
    )
    r.span(ri.RESTORE_FRAGMENTS, t0)


def undo_disk_data(r: NodeRestart) -> Generator[Event, Any, None]:
    """Apply the disk-data UNDO logged since the restored LCP started, back to that start. LGMAN
    reads the log backwards and hands each record to DBTUP, which fetches the record's page through
    PGMAN and undoes the change where the page is newer (``Dbtup::disk_restart_undo``): the UNDO
    file and each touched page are read, and each record costs the LDM thread its bytes. From 7.6
    the rep thread sends the records of each page to its LDM thread without waiting, so the LDM
    threads apply them in parallel; before, one record at a time ([DOC-NEW76], reference §6). The
    pages come through the node's page cache, empty after the restart: each touched page is read
    once, and again where DiskPageBufferMemory cannot hold every touched page
    (``disk_data.undo_page_read_bytes``)."""
    rt = r.rt
    sz, s = rt.sz, rt.scenario
    redo = rt.redo.since(r.redo_from, r.crash)
    if redo > sz.redo_capacity:  # the log cannot hold more: writes had aborted with error 410
        r.run.facts.redo_bytes_wanted = redo
        redo = sz.redo_capacity
    r.redo_bytes = r.run.facts.redo_bytes = redo
    changes = rt.plan.node_changes_since(r.redo_from, r.crash)
    records = disk_data.disk_changes(s, changes)
    undo = disk_data.undo_bytes(s, changes)
    pages = disk_data.undo_page_read_bytes(s, changes, float(r.own.cfg["DiskPageBufferMemory"]))
    log = s.data.undo_log_size
    if 0 < log < undo:  # LGMAN holds no more: the disk-column changes beyond it had aborted
        rt.warnings.append(
            f"node {r.node.id}: {format_bytes(undo)} of UNDO since its restored LCP started, more than the "
            f"{format_bytes(log)} UNDO log (data.undo_log_size): disk-data writes would have failed (out of "
            "undo space); a larger InitialLogFileGroup or faster LCPs keep it"
        )
        records, pages, undo = records * log / undo, pages * log / undo, log
    r.run.facts.undo_bytes = undo
    t0 = rt.env.now
    if records > 0:
        threads = fixed_costs.busy_threads(sz.fragments, r.own.ldm) if r.own.features.parallel_undo else 1
        disk = (undo + pages) / records / sz.host.disk_read
        flow = yield from r.work(records, undo / records * sz.k.redo_byte_secs, threads, disk, "undo")
        why.note_flows(
            r.run,
            ri.UNDO_DISK_DATA,
            [flow],
            r.node,
            "UNDO records of the disk-column changes since the restored LCP started",
            cap=f"CPU ({threads:.3g} UNDO threads)",
            work=(rt.fluid.capacity, records),
            span=r.crash - r.redo_from,  # the disk-column changes since the restored LCP started
            earlier=False,
            saved_span=why.age_saved(rt, r.node.history, r.crash - r.redo_from),
            undo_records=records,
            undo_bytes=undo,
            page_read_bytes=pages,
            disk_update_share=disk_data.update_share(s),
        )
    r.span(ri.UNDO_DISK_DATA, t0)


def exec_redo_log(r: NodeRestart) -> Generator[Event, Any, None]:
    """Apply the REDO logged since the restored LCP started, on every LDM thread."""
    sz = r.rt.sz
    t0 = r.rt.env.now
    threads = fixed_costs.busy_threads(sz.fragments, r.own.ldm)
    flow = yield from r.work(r.redo_bytes, sz.k.redo_byte_secs, threads, 1.0 / sz.host.disk_read, "redo")
    why.note_flows(
        r.run,
        ri.EXEC_REDO_LOG,
        [flow],
        r.node,
        "REDO bytes logged since the restored LCP started",
        cap=f"LDM CPU ({threads:.3g} of {r.own.ldm} LDM threads holding fragments)",
        work=(r.rt.fluid.capacity, r.redo_bytes),
        span=r.crash - r.redo_from,  # the REDO logged since the restored LCP started
        earlier=False,
        saved_span=why.age_saved(r.rt, r.node.history, r.crash - r.redo_from),
        redo_bytes=r.redo_bytes,
        lcp_age_at_crash_secs=r.crash - r.redo_from,
        restored_lcp_secs=(r.node.history[0].end - r.node.history[0].start) if r.node.history else 0.0,
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
    fragments = own.fragments
    hw = s.host.cpu_cores * s.host.threads_per_core
    build = own.cfg["BuildIndexThreads"]
    offline = build > 0 and fragments > 1
    threads = min(build, fragments, hw) if offline else fixed_costs.busy_threads(fragments, own.ldm)
    if not offline:  # slot by slot in the LDM thread (fixed_costs.slot_visits)
        entries = max(entries, fixed_costs.slot_visits(s.data.table_amounts(), own.table_fragments))
    flow = yield from r.work(entries, sz.k.index_entry_secs, threads, name="index")
    why.note_flows(
        r.run,
        ri.INDEX_REBUILD,
        [flow],
        r.node,
        "ordered-index entries (rows × ordered indexes; slot visits in the LDM thread)",
        cap=f"CPU ({threads:.3g} index-build threads)",
        work=(r.rt.fluid.capacity, entries),
        index_entries=entries,
        ordered_indexes=s.data.ordered_indexes,
        build_threads=threads,
    )
