"""Why each phase of a node's restart took its time, from what the engine simulated: the
constraint that bound the phase's fluid flows most of the time (the node's cores, its disk, its
network link, a live node's cores, or the flow's own cap: its threads or its configured write
speed), or the gate or wait it spent its time in, and the quantity that drove it, with the
figures. Recorded on ``NodeRun.why`` as the restart runs; plain dicts, no event.

An entry is ``{"bottleneck": str, "quantity": str, "figures": {name: number}}``; a flow's
entry also has ``"bound_secs"``: the seconds it ran bound by each constraint.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ndbsim.engine.fluid.flow import Flow
from ndbsim.input import restart_info as ri
from ndbsim.input.units import format_bytes

if TYPE_CHECKING:
    from ndbsim.engine.lcp.checkpoint import LcpRecord
    from ndbsim.engine.node import Node
    from ndbsim.engine.records import NodeRun
    from ndbsim.engine.restart.node_restart import NodeRestart
    from ndbsim.engine.runtime import Runtime
    from ndbsim.engine.sizing import Sizing


def resource_label(resource: str, node: Node, disk: str, cap: str) -> str:
    """A constraint's name as a DBA reads it: ``disk`` says whether the node's disk reads or
    writes in this flow; ``cap`` names what the flow's own cap stands for."""
    if resource == "cap":
        return cap
    if resource == node.cpu:
        return f"CPU (node {node.node_id}'s cores)"
    if resource == node.disk:
        return f"disk {disk} (node {node.node_id})"
    if resource == node.net:
        return f"network (node {node.node_id}'s link)"
    if resource.startswith("cpu"):
        return f"CPU of live node {resource[3:]}"
    if resource.startswith("disk"):
        return f"disk of node {resource[4:]}"
    if resource.startswith("net"):
        return f"network of node {resource[3:]}"
    if resource.startswith("ldm"):
        return f"LDM threads of live node {resource[3:]}"
    return "shared resources (no single one saturated)"


def bound_secs(
    flows: Iterable[Flow], node: Node, disk: str, cap: str, names: dict[str, str] | None = None
) -> dict[str, float]:
    """The seconds ``flows`` (followed by ``FluidSystem.track``) ran bound by each constraint,
    by label (``names`` first: other nodes' resources as the phase names them), the longest first."""
    out: dict[str, float] = {}
    for f in flows:
        for r, secs in (f.spent or {}).items():
            label = (names or {}).get(r) or resource_label(r, node, disk, cap)
            out[label] = out.get(label, 0.0) + secs
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


PROTOCOL: dict[str, tuple[str, str]] = {
    ri.TO_COMPLETE_NODE_FAILURE: (
        "wait: the live nodes' failure handling",
        "one global checkpoint, and missed heartbeats after a host or network failure",
    ),
    ri.TO_ALLOCATE_NODE_ID: ("wait: planned downtime", "restart.downtime"),
    ri.MEMORY_TOUCH: (
        "memory touch rate (host.memory_touch_rate)",
        "DataMemory, IndexMemory, DiskPageBufferMemory and SharedGlobalMemory bytes, touched in one pass",
    ),
    ri.TO_INCLUDE_IN_HEARTBEAT_PROTOCOL: (
        "gate: QMGR includes one starting node at a time",
        "starting nodes ahead in QMGR's queue",
    ),
    ri.UNTIL_WAIT_FOR_NDBCNTR_MASTER: ("disk write", "REDO log bytes initialised (InitFragmentLogFiles=FULL)"),
    ri.WAIT_FOR_NDBCNTR_MASTER: (
        "gate: NDBCNTR's master starts one node at a time",
        "another starting node's metadata copy",
    ),
    ri.TO_WAIT_FOR_LCP_FOR_COPY_META_DATA: (
        "wait: the running LCP (it cannot pause before 7.4)",
        "the rest of the live nodes' LCP",
    ),
    ri.TO_COPY_META_DATA: (
        "dictionary copy, table by table",
        "tables, then the ordered indexes (one schema transaction each)",
    ),
    ri.TO_INCLUDE_NODE: ("wait: the next global checkpoint", "GCP interval"),
    ri.WAIT_SUBSCRIPTION_HANDOVER: ("wait: SUMA's handover, some global checkpoints", "GCPs"),
}
"""The bottleneck and the driving quantity of each phase that is a protocol step (a wait, a gate
or a fixed-rate step) rather than work through the fluid resources; the figures are the run's."""


def step(run: NodeRun, phase: str, **figures: Any) -> None:
    """``note`` for a protocol step (``PROTOCOL``)."""
    note(run, phase, *PROTOCOL[phase], **figures)


def note(run: NodeRun, phase: str, bottleneck: str, quantity: str, **figures: Any) -> None:
    """Record why ``phase`` took its time on ``run`` (a phase run twice keeps both figures:
    the later entry adds to the earlier one's)."""
    entry: dict[str, Any] = {"bottleneck": bottleneck, "quantity": quantity, "figures": figures}
    old = run.why.get(phase)
    if old is not None:
        entry["figures"] = {**old["figures"], **figures}
    run.why[phase] = entry


def note_flows(
    run: NodeRun,
    phase: str,
    flows: Iterable[Flow],
    node: Node,
    quantity: str,
    disk: str = "read",
    cap: str = "threads",
    names: dict[str, str] | None = None,
    waits: dict[str, float] | None = None,
    **figures: Any,
) -> None:
    """``note`` for a phase whose work ran as fluid flows: its bottleneck is the constraint
    that bound them longest (``names``: labels for other nodes' resources, ``bound_secs``), or
    one of ``waits``: the seconds the phase spent outside its flows, by what bound them."""
    secs = bound_secs(flows, node, disk, cap, names)
    for k, v in (waits or {}).items():
        if v > 0:
            secs[k] = secs.get(k, 0.0) + v
    secs = dict(sorted(secs.items(), key=lambda kv: -kv[1]))
    old = run.why.get(phase)
    if old is not None:
        for k, v in old.get("bound_secs", {}).items():
            secs[k] = secs.get(k, 0.0) + v
        secs = dict(sorted(secs.items(), key=lambda kv: -kv[1]))
    bottleneck = next(iter(secs), "no work")
    note(run, phase, bottleneck, quantity, **figures)
    run.why[phase]["bound_secs"] = secs


# -- the wait for an LCP at the end of a restart -----------------------------------------------
def speed_parameter(sz: Sizing) -> str:
    """The parameter that sets a restarting node's own LCP write speed in this release."""
    return "DiskCheckpointSpeedInRestart" if sz.features.legacy_speed_parameters else "MaxDiskWriteSpeedOwnRestart"


def local_lcp(
    r: NodeRestart, flow: Flow, size: float, rows: float, restored: LcpRecord | None, flush: list[Flow] | None = None
) -> None:
    """Why the local LCP took its time: its bytes are the changes since the node's newest LCP
    on disk, so a younger newest LCP (more LCPs before the crash, or faster ones) shrinks it; and
    the dirty disk pages PGMAN wrote with it (``flush``), which a bigger DiskPageBufferMemory moves
    there from the copy (``page_flush``)."""
    rt = r.rt
    sz = rt.sz
    speed = float(sz.cfg[speed_parameter(sz)])  # a restarting node's own LCP speed (WriteSpeeds.of_node)
    cap = (
        f"write speed ({speed_parameter(sz)})"
        if speed / size <= sz.lcp_cap(size, speed) * (1 + 1e-9)
        else "LDM CPU (the LCP's row scan)"
    )
    figures: dict[str, Any] = {
        "local_lcp_bytes": size,
        "local_lcp_changed_rows": rows,
        "local_lcp_secs": r.run.facts.local_lcp_secs or 0.0,
        "own_restart_write_speed": speed,
        "restored_lcp_age_at_crash_secs": r.crash - r.redo_from,
    }
    mechanism = ""
    if r.run.facts.disk_page_flush_bytes:  # PGMAN's dirty pages, written beside the LCP
        mechanism = page_flush(r, figures)
    if restored is not None and restored.end > restored.start:
        # the speed it wrote at while writing, as the run's "LCPs under the base load" line says it:
        # its span also holds the GCP wait and the per-fragment file work (LcpRecord.write_secs)
        written = figures["restored_lcp_write_speed"] = restored.write_speed
        held_back = _held_back(rt, restored.start, restored.bytes, written)
        newest = _newest_lcp_speed(sz, written, held_back, _set_speed(rt, restored.start))
        mechanism = "; ".join(x for x in (newest, mechanism) if x)
    for f in flush or []:  # PGMAN's own pacing, not the LCP's write speed, capped the page writes
        spent = f.spent or {}
        if "cap" in spent:
            spent[PAGE_PACING] = spent.get(PAGE_PACING, 0.0) + spent.pop("cap")
    note_flows(
        r.run,
        ri.WAIT_LCP_FOR_RESTART,
        [flow, *(flush or [])],
        r.node,
        "local LCP bytes: the rows changed since the node's newest LCP on disk started",
        disk="write",
        cap=cap,
        names={PAGE_PACING: "PGMAN's pacing of the LCP's disk-page writes"},
        **figures,
    )
    if mechanism:
        r.run.why[ri.WAIT_LCP_FOR_RESTART]["mechanism"] = mechanism


PAGE_PACING = "pgman-pacing"
"""The why's name for the time the restart LCP's disk-page writes ran at PGMAN's pace
(``disk_data.lcp_flush_rate``) rather than at the disk's."""


def page_flush(r: NodeRestart, figures: dict[str, Any]) -> str:
    """Adds the restart LCP's disk-page flush to ``figures`` and says why it took its time: PGMAN
    writes each page the copy left dirty in DiskPageBufferMemory once, paced by its own rules
    (``disk_data.lcp_flush_rate``); the copy wrote the pages it evicted, so a bigger buffer moves
    page writes from the copy onto this LCP and never adds any (reference §14.1, §14.2)."""
    flushed = r.run.facts.disk_page_flush_bytes or 0.0
    made, rate = r.disk_page_flush
    figures["disk_page_flush_bytes"] = flushed
    figures["disk_pages_made_dirty_bytes"] = made
    if math.isfinite(rate):
        figures["disk_page_flush_rate"] = rate
    if r.copy_pages[0] <= 0:
        return ""
    during = r.copy_pages[0] - r.copy_pages[1]
    paced = (
        "paced by the pages made dirty (pgman.cpp, Pgman::do_track_handle_lcp_speed_loop)"
        if r.rt.sz.features.pgman_lcp_pacing
        else "32 writes in flight per LDM thread (pgman.cpp, MAX_LCP_PAGES_OUTSTANDING)"
    )
    return (
        f"PGMAN wrote the {format_bytes(flushed)} of disk pages the copy left dirty in DiskPageBufferMemory "
        f"with this LCP, once each, {paced}, not at MaxDiskWriteSpeed; the copy wrote the other "
        f"{format_bytes(during)} it dirtied as it evicted them: a bigger DiskPageBufferMemory moves page "
        "writes from the copy onto this LCP, never adds any"
    )


ROW_SCAN = "the LCP's row scan on the LDM threads (every LCP scans every row for changed GCIs)"
"""What holds an LCP below its write speed when its LDM threads scan rows as fast as they can."""


def _set_speed(rt: Runtime, t: float) -> float:
    """The speed a live node's LCP was set to write at ``t`` with no restart and no REDO alert
    (``WriteSpeeds.normal``): the speed the run's "LCPs under the base load" line prints."""
    try:
        return rt.speeds.normal(rt.plan.traffic.at(t))
    except KeyError:
        return math.nan


def _held_back(rt: Runtime, t: float, size: float, written: float) -> str:
    """What held a live LCP of ``size`` bytes, started at ``t``, to ``written`` bytes/s below
    MaxDiskWriteSpeed: Backup.cpp's CPU feedback (``write_speed._configured``), the disk the REDO
    shares (``SpeedsAt.disk_left``), the LCP's row scan on the LDM threads (``Sizing.lcp_cap``),
    else the node's CPU and disk shared with the live load while the LCP ran."""
    from ndbsim.engine.lcp.write_speed import LDM_BUSY_BACK_OFF, LDM_BUSY_HOLD

    sz = rt.sz
    rates = rt.plan.traffic.at(t)
    busy = sz.live_load(rates)[0] / (sz.host.core_speed * sz.ldm)
    if sz.features.adaptive_write_speed and busy > LDM_BUSY_HOLD:
        level = "MinDiskWriteSpeed" if busy > LDM_BUSY_BACK_OFF else "midway between Min and Max"
        return f"the LDM threads' CPU load ({busy:.0%} busy: Backup.cpp's feedback holds it {level})"
    try:
        left = rt.speeds.disk_write_left(rates)
    except KeyError:
        left = math.inf
    if left < float(sz.cfg.get("MaxDiskWriteSpeed") or 0.0):
        return f"the disk, which the REDO shares ({left / 2**20:.0f}M/s left for LCPs)"
    if size > 0 and written >= 0.95 * sz.lcp_cap(size, math.inf) * size:
        return ROW_SCAN
    return "the node's CPU and disk, shared with the live load while the LCP ran"


def _per_sec(speed: float) -> str:
    """A speed as the run's checkpoint lines print it."""
    return f"{format_bytes(speed)}/s"


def _newest_lcp_speed(sz: Sizing, written: float, held_back: str, set_speed: float) -> str:
    """What set the speed the node's newest LCP was written at before the crash, as the
    write-speed parameters say (``WriteSpeeds.of_node``): the faster it wrote, the younger the
    newest LCP at the crash and the fewer changes the local LCP writes again. ``written``: its
    bytes over the seconds it wrote (``LcpRecord.write_speed``); ``set_speed``: the speed it was
    set to (``_set_speed``), which an LCP bound by its row scan does not reach."""
    cfg = sz.cfg
    if sz.features.legacy_speed_parameters:
        return f"the live LCPs wrote at DiskCheckpointSpeed ({_per_sec(written)})"
    base = float(cfg.get("MaxDiskWriteSpeed") or 0.0)
    other = float(cfg.get("MaxDiskWriteSpeedOtherNodeRestart") or 0.0)
    speed = _per_sec(written)
    if written < base * 0.98 and held_back == ROW_SCAN and written < 0.98 * set_speed:
        at = f"MaxDiskWriteSpeed ({_per_sec(base)})" if set_speed >= base * 0.98 else _per_sec(set_speed)
        return (
            f"the live LCPs were set to write at {at}, and {held_back} held them to {speed} while they "
            "wrote: the newest LCP was old at the crash"
        )
    if written < base * 0.98:
        lo = float(cfg.get("MinDiskWriteSpeed") or 0.0)
        return (
            f"the live LCPs wrote at {speed}, below MaxDiskWriteSpeed ({_per_sec(base)}), the cap of the "
            f"adaptive LCP speed (from MinDiskWriteSpeed {_per_sec(lo)} up): held back by {held_back}; "
            "the newest LCP was old at the crash"
        )
    if written <= base * 1.02:
        return f"the live LCPs wrote at MaxDiskWriteSpeed ({speed}): the newest LCP was old at the crash"
    if abs(written - other) <= 0.02 * other:
        return f"the newest LCP wrote at MaxDiskWriteSpeedOtherNodeRestart ({speed}), another node restarting"
    if sz.features.redo_control:
        return (
            f"EnableRedoControl raised the live LCPs' write speed above MaxDiskWriteSpeed ({_per_sec(base)}) "
            f"to {speed} as the REDO filled: the newest LCP was younger at the crash"
        )
    return f"the live LCPs wrote at {speed}, above MaxDiskWriteSpeed ({_per_sec(base)})"


def lcp_wait(r: NodeRestart, t0: float, t_dist: float) -> None:
    """The distributed LCP's part of the wait: the rest of the running LCP, then one the node
    takes part in; the bottleneck when it took longer than a local LCP before it."""
    rt = r.rt
    dist = rt.env.now - t_dist
    joined = r.node.history[0] if r.node.history else None
    figures: dict[str, Any] = {
        "distributed_lcp_wait_secs": dist,
        "distributed_lcp_bytes": joined.bytes if joined else 0.0,
        "distributed_lcp_secs": (joined.end - joined.start) if joined else 0.0,
    }
    mechanism = ""
    if joined is not None:
        figures["running_lcp_rest_secs"] = max(0.0, joined.start - t_dist)
        mechanism = _other_node_restart(rt, joined.start)
    local = r.run.why.get(ri.WAIT_LCP_FOR_RESTART)
    if local is not None and t_dist - t0 >= dist:
        local["figures"].update(figures)
        if mechanism:
            local["mechanism"] = "; ".join(x for x in (local.get("mechanism", ""), mechanism) if x)
        return
    note(
        r.run,
        ri.WAIT_LCP_FOR_RESTART,
        "wait: a distributed LCP the node takes part in",
        "the running LCP's rest, then one LCP of the live nodes' changes",
        **figures,
    )
    if mechanism:
        r.run.why[ri.WAIT_LCP_FOR_RESTART]["mechanism"] = mechanism


def _other_node_restart(rt: Runtime, t: float) -> str:
    """What MaxDiskWriteSpeedOtherNodeRestart did to the LCP a starting node waits for, started at
    ``t``: while a node restarts and an LCP runs it is the live nodes' ceiling
    (Backup.cpp, ``calculate_current_speed_bounds``), the speed climbing to it while their LDM
    threads are below 90% busy (``calculate_disk_write_speed``); the bytes/s they write cost LDM
    CPU ("writing 10 MByte/second gives roughly about 10% CPU usage in one CPU") that the copy
    scans and the REDO apply share (reference §14.6)."""
    sz = rt.sz
    if sz.features.legacy_speed_parameters:
        return ""
    try:
        rates = rt.plan.traffic.at(t)
        normal = rt.speeds.normal(rates)
    except KeyError:
        return ""
    from ndbsim.input.profiles import LCP_CPU_SECS_PER_BYTE

    other = float(sz.cfg.get("MaxDiskWriteSpeedOtherNodeRestart") or 0.0)
    speed = max(normal, other)
    cpu = speed * LCP_CPU_SECS_PER_BYTE / sz.ldm_cores if sz.ldm_cores > 0 else 0.0
    bound = (
        f"MaxDiskWriteSpeedOtherNodeRestart ({_per_sec(other)}) raised the live nodes' LCP ceiling above "
        f"{_per_sec(normal)}"
        if other > normal
        else f"MaxDiskWriteSpeedOtherNodeRestart ({_per_sec(other)}) is below the {_per_sec(normal)} the live "
        "LCPs already write at: it moves nothing here"
    )
    takes = (
        f"at {_per_sec(speed)} their LCP takes {cpu:.0%} of their LDM threads from the copy scans and the REDO apply"
        if cpu <= 1.0
        else f"at {_per_sec(speed)} their LCP would need {cpu:.0%} of their LDM threads: those threads, shared "
        "with the copy scans and the REDO apply, cap it below the ceiling"
    )
    return (
        f"{bound} (Backup.cpp, calculate_current_speed_bounds); {takes}; the rest of the LCP "
        "running when the node asked (running_lcp_rest_secs) depends on where in its cycle the copy ended, "
        "not on this speed"
    )
