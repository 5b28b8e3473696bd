"""The copy phase: synchronisation with a live node of the node group, table by table, the
live node scanning every row and shipping the changed ones while the target moves (the offline
ordered-index rebuild is ``engine.restart.local_recovery``'s)."""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import Any

from simpy.events import Event

from ndbsim.engine import fixed_costs
from ndbsim.engine.fluid.flow import Flow
from ndbsim.engine.node import Node
from ndbsim.engine.records import Status
from ndbsim.engine.restart import copy_why, disk_data
from ndbsim.engine.restart.copy_why import StepParts
from ndbsim.engine.restart.node_restart import NodeRestart
from ndbsim.input.profiles import SCAN_ROW_SECS
from ndbsim.input.restart_info import TO_SYNCHRONIZE_STARTING_NODE

COPY_SCAN_SHARE = 0.5
"""The live node's share of ``copy_row_secs``, the core time a shipped row costs the two nodes
together; the starting node's apply takes the rest. A free constant, not fitted: the published
restarts give only the copy's total (its restart_info phase), never one side's, so no case can
separate the scan's per-row work (DblqhMain.cpp ``nextScanConfCopyLab``: read the row through
TUP, pack it into an LQHKEYREQ, send) from the apply's (``execLQHKEYREQ`` on the starting node: ACC
key lookup, TUP write, commit, LQHKEYCONF back). Half each by symmetry; a stated range of 0.3 to
0.7 (the apply writes where the scan reads, so it is not likely the cheaper side by much). Only
which side is the slower one of a copy instance's pipeline (``_pipeline_cap``) depends on it."""

COPY_STEPS_MAX = 32
"""The copy phase runs table by table, each table shipping what changed until it starts (the
moving target); beyond this many tables, tables are grouped into this many equal steps so that
the events per copy stay bounded. A numerical resolution, not an NDB value: with up to 32
tables every table is its own step."""


def copy_phase(
    r: NodeRestart, since: float, full: bool, index_online: bool, takeover: bool = True
) -> Generator[Event, Any, None]:
    """Synchronise with the live nodes, table by table (``COPY_STEPS_MAX``). Each fragment is
    copied from its primary replica among the live nodes of the node group (``sources``); the
    source scans every row and ships those changed since ``since`` (all rows for a full copy);
    the starting node has joined all transactions, so it also applies the live stream as it
    arrives. A table copied later has collected more changes: the target moves while the copy
    runs. A copy that cannot run or never converges ends the restart with that status.

    A take-over copy (``takeover``: all but the first pass of a two-pass initial copy, which runs
    in START_FRAGREQ, ``Dbdih::nr_start_fragment``) first takes its node group's take-over from
    the DIH master and holds it to its end: another starting node of the node group copying now
    makes it wait (``engine.restart.takeover``)."""
    rt, node, run = r.rt, r.node, r.run
    t0 = rt.env.now
    peers = rt.peers(node)
    if not peers:
        run.status, run.reason = Status.ERROR, "no live node in the node group to copy from"
        run.end = rt.env.now
        r.span(TO_SYNCHRONIZE_STARTING_NODE, t0)
        return
    lock = rt.takeovers[node.group] if takeover else None
    waited, blocker = (yield from lock.acquire(node.id)) if lock else (0.0, None)
    try:
        yield from _synchronize(r, peers, since, full, index_online, (t0, waited, blocker))
    finally:
        if lock:
            lock.release(node.id)


def _synchronize(
    r: NodeRestart,
    peers: list[Node],
    since: float,
    full: bool,
    index_online: bool,
    wait: tuple[float, float, int | None],
) -> Generator[Event, Any, None]:
    """The copy once the node group's take-over is this node's (``wait``: when the phase began,
    the seconds it waited for the take-over, the node it waited for)."""
    rt, node, run = r.rt, r.node, r.run
    t0 = wait[0]
    rt.apply_live_load(node, rt.plan.restart_rates)
    sz, s = rt.sz, rt.scenario
    groups = s.data.table_groups(COPY_STEPS_MAX)
    index_per_row = s.data.index_entries_per_row * sz.k.index_entry_secs if index_online else 0.0
    instances = _copy_instances(r, peers)  # the same through the phase: read once
    limit, apply_cores = _convergence(r, peers, full, index_per_row, instances)
    if limit:
        run.status = Status.NON_CONVERGING
        run.reason = "the copy phase never converges: " + limit
        run.end = math.inf
        run.spans.append((TO_SYNCHRONIZE_STARTING_NODE, t0, math.inf))  # the copy would never end
        return
    index_secs = [entries * sz.k.index_entry_secs if index_online else 0.0 for _, entries in groups]
    shares = [share for share, _ in groups]
    rt.begin_copy(node, peers)
    shipped, steps, pages = yield from _ship(r, peers, since, full, shares, index_secs, (apply_cores, instances))
    rt.end_copy(node, peers)
    run.facts.copied_rows = (run.facts.copied_rows or 0.0) + shipped  # both passes
    r.copy_pages = disk_data.left_dirty(r.copy_pages, pages)
    scan_cores = _scan_cores(r, peers, instances / len(peers))
    # the rows a table ships changed from the node's stop until that table's turn: on average half
    # way through the copy, its tables copied one after another (the moving target)
    began = t0 + wait[1]
    span = began - since + (rt.env.now - began) / 2
    copy_why.note_why(r, peers, steps, full, pages, (apply_cores, instances, scan_cores), span, takeover=wait[1:])
    r.span(TO_SYNCHRONIZE_STARTING_NODE, t0)


def _copy_instances(r: NodeRestart, sources: list[Node]) -> float:
    """Copy instances: one per LDM thread of the starting node holding fragments, each copying one
    fragment at a time (``fixed_costs.busy_threads``), never more than any node it copies from runs
    (DbdihMain.cpp, Dbdih::check_takeover_thread: "we will never run more parallelism than we have
    in the minimum node of the starting node and the copying node"), at most the starting node's
    MaxParallelCopyInstances.

    As the source runs them: ``Dbdih::execSTART_TOCONF`` starts ``c_max_takeover_copy_threads``
    copy threads (MaxParallelCopyInstances, 0 for the default, at most 64: ConfigInfo.cpp); a thread
    takes the fragments whose ``instanceId = key % min(lqhWorkers of both nodes)`` it owns
    (``instanceId % m_number_of_copy_threads == m_copy_thread_id``, ``Dbdih::check_takeover_thread``),
    so threads beyond that minimum get none, and each has one COPY_FRAGREQ outstanding
    (``Dbdih::toStartCopyFrag``). A copying LQH instance thus serves one copy of this starting node
    at a time, and with one take-over per node group (``engine.restart.takeover``) no other: the
    copying DBLQH's limit of three active copies (DblqhMain.cpp, ``execCOPY_FRAGREQ``,
    ``ndbrequire(cnoActiveCopy < 3)``) never binds."""
    own = r.own
    busy = fixed_costs.busy_threads(own.fragments, own.ldm)
    instances = min([busy, *(float(r.rt.lqh_workers(p)) for p in sources)])
    cap = own.cfg["MaxParallelCopyInstances"]
    return min(instances, cap) if cap else instances


def _convergence(
    r: NodeRestart, sources: list[Node], full: bool, index_per_row: float, instances: float
) -> tuple[str | None, float]:
    """(why the copy can never converge or None, the cores the copy gets). The starting node's
    LDM threads apply the live stream and run the copy (its ``instances``, ``_copy_instances``):
    the copy gets what the stream leaves. It never converges if the stream alone saturates the
    LDM threads, the node's cores or the link from the live node."""
    rt, node = r.rt, r.node
    sz, k, rates = rt.sz, rt.sz.k, rt.plan.restart_rates
    per_row_apply = k.restore_row_secs + index_per_row  # a live change applied on the starting node
    stream_rows = rates.rows / sz.groups
    ldm_cores = r.own.ldm_cores
    copy_cores = sz.cores(instances)
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
    if not limit and _scan_cores(r, sources, 1.0) <= 0:
        limit = (
            "the live stream alone saturates the live node's LDM threads, which scan for the copy; "
            "lower the update rate"
        )
    if not limit and not full:
        limit = _moving_target_outruns(r, sources, index_per_row, (apply_cores, instances))
    return limit, apply_cores


def _moving_target_outruns(
    r: NodeRestart, sources: list[Node], index_per_row: float, copy: tuple[float, float]
) -> str | None:
    """Updates hit the same rows again (the target saturates at every row), but each insert and
    delete is one more row to ship: if they arrive faster than the copy can ship rows at best,
    every table copied later has more to ship, without end. At best the copy ships at its slower
    side's pace for the shipped rows alone (``_pipeline_sides``): the starting node's apply, or the
    sources' part of each shipped row on their instances (``copy``: the apply's cores, the
    copy instances)."""
    rt = r.rt
    apply_cores, instances = copy
    sz, rates = rt.sz, rt.plan.restart_rates
    row_size = (sz.data_bytes / sz.rows if sz.rows else 0.0) + disk_data.row_bytes(rt.scenario.data)
    grow = (rates.inserts + rates.deletes) / sz.groups
    best = apply_cores / ((1.0 - COPY_SCAN_SHARE) * sz.k.copy_row_secs + index_per_row)
    each = 1.0 / len(sources)
    best = min(best, _scan_cores(r, sources, instances * each) / (COPY_SCAN_SHARE * sz.k.copy_row_secs * each))
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
    sources: list[Node],
    since: float,
    full: bool,
    shares: list[float],
    index_secs: list[float],
    copy: tuple[float, float],
) -> Generator[Event, Any, tuple[float, list[tuple[Flow, StepParts]], dict[str, float]]]:
    """Ship the rows, one step of tables after another (``shares`` of the rows, changes spread
    over the rows evenly; ``index_secs`` the core time each shipped row's ordered indexes
    cost; ``copy``: the cores the apply gets, the copy instances); returns the rows shipped, the
    flows (followed for the phase's why) with their parts (``copy_why.StepParts``), and the page bytes.

    Each fragment comes from its primary replica among the live nodes (DbdihMain.cpp,
    ``Dbdih::toCopyFragLab``: ``toCopyNode = nodes[0]`` of ``extractNodeInfo``, the live
    replicas primary first); primaries are spread evenly over a node group's nodes, so each
    of the ``sources`` scans and sends an equal share. A source's scan runs in its LDM threads
    and its rows leave through its link, shared with every other copy it serves and with the
    stream it applies. With two replicas a source serves one copy at a time: its link carries what
    the starting node's receives, so the starting node's binds first; its LDM threads are then
    held to the copy's instances by the step's cap (``_pipeline_sides``).

    A copy instance is a pipeline (``_pipeline_sides``): the live node's scan and the starting
    node's apply run at the same time, each on its own node's LDM threads, so a step goes at the
    slower side's pace, not at the sum of both. Rows with a disk part go through both nodes' page
    caches (``disk_data.copy_page_bytes``)."""
    rt, node = r.rt, r.node
    sz, env = rt.sz, rt.env
    shipped_total = 0.0
    page_bytes: dict[str, float] = {}
    steps: list[tuple[Flow, StepParts]] = []
    even = len(set(shares)) == 1
    sources_at = (
        [p.cpu for p in sources],
        [p.ldm for p in sources] if rt.shared_sources else [],
        [p.net for p in sources] if rt.shared_sources else [],
    )
    apply_cores, instances = copy
    cores = (apply_cores, _scan_cores(r, sources, instances / len(sources)))
    for share, index_per_row in zip(shares, index_secs):
        part = 1.0 / len(shares) if even else share
        changed = sz.rows if full else rt.plan.traffic.distinct_rows(since, env.now, sz.rows, sz.max_rows)
        ship = changed * part
        shipped_total += ship
        parts = _step(r, sources, sources_at, full, (part, ship, index_per_row), (*cores, instances), page_bytes)
        apply, scan = sum(parts.apply), sum(parts.scan)
        cap = 1.0 / max(apply, scan) if max(apply, scan) > 0 else math.inf
        flow = rt.fluid.transfer(1.0, parts.demand, cap=cap, name=f"copy{node.id}")
        rt.fluid.track(flow)
        steps.append((flow, parts))
        yield flow.done
    return shipped_total, steps, page_bytes


def _step(
    r: NodeRestart,
    sources: list[Node],
    sources_at: tuple[list[str], list[str], list[str]],
    full: bool,
    step: tuple[float, float, float],
    cores: tuple[float, float, float],
    page_bytes: dict[str, float],
) -> StepParts:
    """One copy step's demand and its pipeline sides' seconds (``_pipeline_sides``), for
    ``step``: the share of the rows it scans, the rows it ships, each shipped row's ordered-index
    core time; ``cores``: what the starting node's and each source's copy instances get, and the
    copy instances (``_copy_instances``). Adds the step's disk-page bytes to ``page_bytes``
    (``PAGE_FIGURES``)."""
    rt = r.rt
    sz, k, d = rt.sz, rt.sz.k, rt.scenario.data
    part, ship, index_per_row = step
    each = 1.0 / len(sources)
    row_size = sz.data_bytes / sz.rows if sz.rows else 0.0
    disk_row = disk_data.row_bytes(d)  # each copied row carries its disk part
    own_cpu = ship * ((1.0 - COPY_SCAN_SHARE) * k.copy_row_secs + index_per_row)
    live_cpu = (sz.rows * part * SCAN_ROW_SECS + ship * COPY_SCAN_SHARE * k.copy_row_secs) * each
    pages = None
    disk = (0.0, 0.0)
    own_disk = (0.0, 0.0)
    if disk_row > 0:
        # the live node's hits: what its LDM threads' PGMAN workers hold; the starting node's
        # buffer also bounds the dirty pages its LCP writes (``end``), so both keep the whole
        live_ldm = min(rt.lqh_workers(p) for p in sources)
        buffers = (
            disk_data.ldm_buffer_bytes(float(sz.cfg["DiskPageBufferMemory"]), live_ldm),
            float(r.own.cfg["DiskPageBufferMemory"]),
        )
        pages = disk_data.copy_page_bytes(d, ship, part, full, buffers)
        disk = (
            pages.live_read * each / sz.host.disk_read,
            pages.own_read / sz.host.disk_read + pages.own_write / sz.host.disk_write,
        )
        own_disk = (pages.own_read / sz.host.disk_read, pages.own_write / sz.host.disk_write)
        for key, x in zip(PAGE_FIGURES, (pages.live_read, pages.own_read, pages.own_write, pages.dirtied)):
            page_bytes[key] = page_bytes.get(key, 0.0) + x
    demand = _demand(r.node, sources, sources_at, (own_cpu, live_cpu), ship * (row_size + disk_row), each, disk)
    apply, scan = _pipeline_sides(r, (own_cpu, live_cpu), pages, cores[:2], cores[2], each)
    scanned = sz.rows * part * SCAN_ROW_SECS * each
    fixed = 1.0 if full or live_cpu <= 0 else scanned / live_cpu
    return StepParts(apply, scan, demand, own_disk, fixed)


PAGE_FIGURES = (
    "live_page_read_bytes",
    "starting_page_read_bytes",
    "starting_page_write_bytes",
    "starting_page_dirtied_bytes",
)
"""The copy's why figures of its disk-page traffic (``disk_data.CopyPages``): what the live nodes
read (their cache misses), what the starting node reads and writes during the copy, and the pages
it dirtied (those not written during the copy are left for the restart's LCP)."""


def _scan_cores(r: NodeRestart, sources: list[Node], threads: float) -> float:
    """Cores a source's ``threads`` copy-instance LDM threads give its scan: what the live stream it
    applies leaves of them (the same share of each LDM thread as on the starting node)."""
    rt = r.rt
    sz, rates = rt.sz, rt.plan.restart_rates
    stream_cpu = sz.live_load(rates)[0] if rates else 0.0
    least = math.inf
    for p in sources:
        ldm_cores = sz.cores(rt.lqh_workers(p))
        busy = min(1.0, stream_cpu / ldm_cores) if ldm_cores > 0 else 1.0
        least = min(least, sz.cores(threads) * (1.0 - busy))
    return least


def _pipeline_sides(
    r: NodeRestart,
    cpu: tuple[float, float],
    pages: disk_data.CopyPages | None,
    cores: tuple[float, float],
    instances: float,
    each: float,
) -> tuple[tuple[float, float], tuple[float, float]]:
    """A step's seconds on each side of the pipeline, the apply's and the scan's, each (LDM CPU,
    page-read wait): the step's rate cap is one over the slower side's sum. The live node's DBLQH scans the fragment for
    COPY_FRAGREQ and sends each row as it reads it (DblqhMain.cpp, ``nextRecordCopy`` after each row
    sent), while the starting node applies the rows already sent; the scan stops only when a whole
    window of rows is unanswered (``copyCompletedLab`` resumes it; ``copy_window_rows``: the 6,000-word
    window, at most the scan's batch of 16 rows). So each side runs
    on its own node's LDM threads and the step goes at the slower one's pace. The scan of each source
    (``cpu[1]``: its core-seconds) runs on its share of the instances (``cores[1]``: what those threads
    give it) and waits for each page its cache misses, one at a time per instance (the row cannot be
    read before its disk part is in); the apply (``cpu[0]``) runs on the starting node's instances
    (``cores[0]``) and waits for its page misses with a window of rows in flight per instance."""
    own_cpu, live_cpu = cpu
    apply_cores, scan_cores = cores
    latency = r.rt.sz.host.disk_latency
    own_wait = live_wait = 0.0
    if pages is not None and instances > 0:
        sz = r.rt.sz
        row = (sz.data_bytes / sz.rows if sz.rows else 0.0) + disk_data.row_bytes(r.rt.scenario.data)
        own_wait = pages.own_misses * latency / (instances * copy_window_rows(row))
        live_wait = pages.live_misses * each * latency / (instances * each)
    apply = own_cpu / apply_cores if apply_cores > 0 else math.inf
    scan = live_cpu / scan_cores if scan_cores > 0 else math.inf
    return (apply, own_wait), (scan, live_wait)


COPY_SCAN_BATCH_ROWS = 16
"""The copy scan's batch (pc.hpp ``ZRESERVED_SCAN_BATCH_SIZE``: "LCP scans and Backup scans always
use batch size 16 ... This is also true for Node recovery scans as started by COPY_FRAGREQ")."""

COPY_WINDOW_WORDS = 6000
"""Words a copying DBLQH may have sent to the starting node and not yet had answered
(Dblqh.hpp ``MAX_NO_WORDS_OUTSTANDING_COPY_FRAGMENT 6000``, ``cmaxWordsAtNodeRec`` in
``Dblqh::startphase2Lab``): ``nextScanConfCopyLab`` fetches the next row only while
``copyCountWords`` is below it, ``copyCompletedLab`` resumes the scan on LQHKEYCONF."""

COPY_ROW_OVERHEAD_WORDS = 56
"""Words each copied row counts in the window besides its own (Dblqh.hpp ``MAGIC_CONSTANT 56``:
the LQHKEYREQ and its key), the sum counted 1.25 times (``COPY_ROW_WORD_FACTOR``)."""

COPY_ROW_WORD_FACTOR = 1.25
"""A copied row's words count (len + 56) × 1.25 against the window (reference §14.3, DblqhMain.cpp
``nextScanConfCopyLab``)."""


def copy_window_rows(row_bytes: float) -> float:
    """Rows a copy instance has in flight towards the starting node, whose applying operations
    may wait for their disk pages at once: as many as the 6,000-word window holds at
    (len + 56) × 1.25 words a row, len the words of ``row_bytes``, the row with its disk part (a
    copy ships whole rows), and never more than the scan's batch of 16. Rows under about 1 KB fill
    the batch first; bigger rows leave fewer in flight."""
    row_words = math.ceil(row_bytes / 4.0)
    window = COPY_WINDOW_WORDS / ((row_words + COPY_ROW_OVERHEAD_WORDS) * COPY_ROW_WORD_FACTOR)
    return max(1.0, min(float(COPY_SCAN_BATCH_ROWS), window))


def _demand(
    node: Node,
    sources: list[Node],
    sources_at: tuple[list[str], list[str], list[str]],
    cpu: tuple[float, float],
    sent: float,
    each: float,
    disk: tuple[float, float],
) -> dict[str, float]:
    """A copy step's demand: the starting node's cores and link, then each source's cores, LDM
    threads and link (``sources_at``: their resource names) for its share (``cpu``: the starting
    node's core-seconds, each source's); the starting node's first, so that a tie names it. With
    disk-data columns (``disk``: each source's disk-seconds reading the pages its cache misses, the
    starting node's reading and writing its pages) the disks too."""
    cpus, ldms, nets = sources_at
    own_cpu, from_each = cpu
    demand = {node.cpu: own_cpu}
    for c in cpus:
        demand[c] = from_each
    demand[node.net] = sent
    for c in ldms:
        demand[c] = from_each
    for c in nets:
        demand[c] = sent * each
    if disk[0] > 0:
        for p in sources:
            demand[p.disk] = disk[0]
    if disk[1] > 0:
        demand[node.disk] = disk[1]
    return demand
