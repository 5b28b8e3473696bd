"""Why each phase of a node's restart took its time, from what the engine simulated: the
constraint that bound the phase's fluid flows most of the time (the node's cores, its disk, its
network link, a live node's cores, or the flow's own cap: its threads or its configured write
speed), or the gate or wait it spent its time in, and the quantity that drove it, with the
figures. Recorded on ``NodeRun.why`` as the restart runs; plain dicts, no event.

An entry is ``{"bottleneck": str, "quantity": str, "figures": {name: number}}``; a flow's
entry also has ``"bound_secs"``: the seconds of the phase by part (the constraint that bound a flow,
or the resource a pipeline side waited on, ``fluid.gains``), ``"resources"``: each part's scenario
key, ``"gains"``: the seconds each key, twice as good, would save, and ``"resource"``: the named
bottleneck's key, the one that saves the most (a protocol step at one resource's pace has it too).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from ndbsim.engine.fluid import gains
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


def resource_key(resource: str, node: Node, disk: str, cap_key: str) -> str:
    """The scenario key that makes a constraint twice as good (``fluid.gains.RESOURCES``): the
    cores' speed for CPU and LDM threads, the disk's read or write rate, the link's rate;
    ``cap_key`` for the flow's own cap."""
    if resource == "cap":
        return cap_key
    if resource == node.disk:
        return gains.DISK_WRITE if disk == "write" else gains.DISK_READ
    if resource.startswith(("cpu", "ldm")):
        return gains.CPU
    if resource.startswith("disk"):
        return gains.DISK_READ
    if resource.startswith("net"):
        return gains.NETWORK
    return ""


class Ran(NamedTuple):
    """What the why reads of a flow that ended: the seconds it ran bound by each constraint
    (``Flow.spent``), its demand and its cap; no reference to the simulation, so a run's pending
    whys hold none (``later``)."""

    spent: dict[str, float]
    demand: dict[str, float]
    cap: float


def ran(flows: Iterable[Flow]) -> list[Ran]:
    """``Ran`` of each flow."""
    return [Ran(f.spent or {}, f.demand, f.cap) for f in flows]


def flow_segments(
    flows: Iterable[Ran],
    node: Node,
    disk: str,
    cap: str,
    cap_key: str,
    names: dict[str, str] | None = None,
    fixed: bool = True,
    floors: list[gains.Part] | None = None,
) -> list[gains.Segment]:
    """The segments of ``flows`` (``fluid.gains``): the seconds each ran bound by one constraint,
    that constraint's part, beside ``floors``: the seconds the flows' whole work needs of each of
    their constraints at its whole capacity (``work_floors``), in the segment's share; ``fixed``:
    whether the flows' work is fixed (``gains.Part.fixed``)."""
    out = []
    flows = list(flows)
    total = sum(sum((f.spent or {}).values()) for f in flows)
    for f in flows:
        for r, secs in (f.spent or {}).items():
            label = (names or {}).get(r) or resource_label(r, node, disk, cap)
            part = gains.Part(label, resource_key(r, node, disk, cap_key), secs, fixed=fixed)
            share = secs / total if total > 0 else 0.0
            beside = tuple((gains.Part(p.label, p.resource, p.secs * share, fixed=fixed),) for p in floors or ())
            out.append(gains.Segment(secs, ((part,), *beside)))
    return out


def work_floors(
    capacity: dict[str, float], flow: Ran, amount: float, node: Node, disk: str, cap: str, cap_key: str
) -> list[gains.Part]:
    """The seconds ``amount`` of ``flow``'s work needs of its cap and of each resource it uses at
    that resource's whole capacity (``capacity``: the fluid system's): the floors beside the one
    that bound it."""
    out = [gains.Part(cap, cap_key, amount / flow.cap)] if 0 < flow.cap < math.inf else []
    for r, d in flow.demand.items():
        if d > 0 and capacity.get(r):
            out.append(
                gains.Part(
                    resource_label(r, node, disk, cap), resource_key(r, node, disk, cap_key), amount * d / capacity[r]
                )
            )
    return out


def earlier_gains(run: NodeRun, phase: str = "") -> dict[str, float]:
    """The seconds each resource, twice as good, would save over the phases ``run`` has recorded
    before ``phase`` (their ``gains``; a protocol step at one resource's pace, ``paced``)."""
    out: dict[str, float] = {}
    for p, entry in run.notes.items():
        if p == phase:
            continue
        for k, v in entry.get("gains", {}).items():
            out[k] = out.get(k, 0.0) + v
    return out


def age_saved(rt: Runtime, history: list[LcpRecord], age: float) -> dict[str, float]:
    """Seconds of the restored LCP's ``age`` at the crash (``history``: the node's LCPs, the
    restored one first) that its pace, twice as fast, would save: the LCPs ran back to back, so a
    node restores the LCP before the running one and the age (the REDO, the UNDO and the local LCP
    grow with it) is one to two LCPs, halved with them; with gaps between LCPs, only the restored
    LCP's half span. Its pace is its write speed where it reached it, else what held it back
    (``_held_back``): the LDM threads' CPU (the row scan or Backup.cpp's feedback), the disk the
    REDO shares."""
    restored = history[0] if history else None
    if restored is None or restored.end <= restored.start:
        return {}
    sz = rt.sz
    span = restored.end - restored.start
    back_to_back = len(history) > 1 and restored.start - history[1].end <= 0.05 * span
    written = restored.write_speed
    base = float(sz.cfg.get("MaxDiskWriteSpeed") or 0.0)
    other = float(sz.cfg.get("MaxDiskWriteSpeedOtherNodeRestart") or 0.0)
    held = "" if written >= 0.98 * base else _held_back(rt, restored.start, restored.bytes, written)
    if sz.features.legacy_speed_parameters:
        key = "cluster.config.DiskCheckpointSpeed"
    elif held == ROW_SCAN or held.startswith(("the LDM threads", "the node's CPU")):
        key = gains.CPU
    elif held.startswith("the disk"):
        key = gains.DISK_WRITE
    elif other and abs(written - other) <= 0.02 * other and written > 1.02 * base:
        key = "cluster.config.MaxDiskWriteSpeedOtherNodeRestart"
    else:
        key = "cluster.config.MaxDiskWriteSpeed"
    return {key: age / 2 if back_to_back else span / 2}


def lcp_work_shrink(r: NodeRestart, t0: float) -> Callable[[], dict[str, float]]:
    """By resource, the share by which the changes since the restored LCP started, up to ``t0``,
    shrink with the resource twice as good: those before the crash with the restored LCP's age
    (``age_saved``), those since with the phases before ``t0`` (``earlier_gains``); computed when
    the why is read (``later``)."""
    rt = r.rt
    age = r.crash - r.redo_from
    before = rt.plan.node_changes_since(r.redo_from, r.crash).rows
    after = rt.plan.node_changes_since(r.crash, t0).rows if t0 > r.crash else 0.0
    saved = age_saved(rt, r.node.history, age)
    return partial(_lcp_work_shrink, r.run, saved, (age, t0 - r.crash), (before, after))


def _lcp_work_shrink(
    run: NodeRun, saved: dict[str, float], spans: tuple[float, float], rows: tuple[float, float]
) -> dict[str, float]:
    (age, since), (before, after) = spans, rows
    if before + after <= 0:
        return {}
    out: dict[str, float] = {}
    for k, v in gains.shrinks(saved, age).items():
        out[k] = out.get(k, 0.0) + v * before / (before + after)
    for k, v in gains.shrinks(earlier_gains(run, ri.WAIT_LCP_FOR_RESTART), since).items():
        out[k] = out.get(k, 0.0) + v * after / (before + after)
    return out


def paced(run: NodeRun, phase: str, secs: float) -> None:
    """A protocol step at one resource's pace (``PROTOCOL_RESOURCES``) took ``secs``: twice the
    resource halves it."""
    entry = run.notes.get(phase)
    if entry is not None and entry.get("resource") and secs > 0:
        entry["gains"] = {entry["resource"]: secs / 2}


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


PROTOCOL_RESOURCES = {ri.MEMORY_TOUCH: gains.MEMORY_TOUCH, ri.UNTIL_WAIT_FOR_NDBCNTR_MASTER: gains.DISK_WRITE}
"""The protocol steps that run at one resource's pace, by the key that makes it twice as good."""


def step(run: NodeRun, phase: str, **figures: Any) -> None:
    """``note`` for a protocol step (``PROTOCOL``), with its resource (``PROTOCOL_RESOURCES``)."""
    note(run, phase, *PROTOCOL[phase], **figures)
    if phase in PROTOCOL_RESOURCES:
        run.notes[phase]["resource"] = PROTOCOL_RESOURCES[phase]


def note(run: NodeRun, phase: str, bottleneck: str, quantity: str, **figures: Any) -> None:
    """Record why ``phase`` took its time on ``run`` (a phase run twice keeps both figures:
    the later entry adds to the earlier one's)."""
    entry: dict[str, Any] = {"bottleneck": bottleneck, "quantity": quantity, "figures": figures}
    old = run.notes.get(phase)
    if old is not None:
        entry["figures"] = {**old["figures"], **figures}
        if "mechanism" in old:
            entry["mechanism"] = old["mechanism"]
    run.notes[phase] = entry


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
    cap_key: str = gains.CPU,
    wait_keys: dict[str, str] | None = None,
    segments: list[gains.Segment] | Callable[[], list[gains.Segment]] | None = None,
    span: float = 0.0,
    earlier: bool = True,
    saved_span: dict[str, float] | Callable[[], dict[str, float]] | None = None,
    shrink: dict[str, float] | Callable[[], dict[str, float]] | None = None,
    work: tuple[dict[str, float], float] | None = None,
    saturation: float = 0.0,
    **figures: Any,
) -> None:
    """``note`` for a phase whose work ran as fluid flows: its time splits into parts (``segments``,
    else the seconds each flow ran bound by one constraint, ``flow_segments``, with ``names``:
    labels for other nodes' resources), and ``waits``: the seconds the phase spent outside its flows,
    by what it waited for (``wait_keys``: the resource of each, ``fluid.gains``). ``span``: the seconds
    over which the phase's work that is not fixed grew (the rows changed since then): what the phases
    before it would save (``earlier``, ``earlier_gains``) and ``saved_span`` (the seconds of it each
    resource would save otherwise, ``age_saved``) shrink that work (or ``shrink``: the share by which
    it shrinks, by resource). ``work``: the fluid system's capacities and the amount of a one-flow
    phase's work, for the floors beside the constraint that bound it (``work_floors``);
    ``saturation``: how far the rows changed over ``span`` saturate (``gains.shrinks``). The
    bottleneck is the part whose resource, twice as good, would save the most (``named``). Noted
    when the run's why is first read (``later``): the flows' seconds no longer change once they end."""
    args = (phase, ran(flows), node, quantity, disk, cap, names, waits, cap_key, wait_keys, segments)
    later(run, _note_flows_now, run, *args, (span, saturation), earlier, saved_span, shrink, work, figures)


def later(run: NodeRun, fn: Callable[..., None], *args: Any) -> None:
    """Note ``fn(*args)`` when ``run``'s why is first read (``NodeRun.why``), in the order noted."""
    run.pending.append(partial(fn, *args))


def _note_flows_now(
    run: NodeRun,
    phase: str,
    flows: list[Ran],
    node: Node,
    quantity: str,
    disk: str,
    cap: str,
    names: dict[str, str] | None,
    waits: dict[str, float] | None,
    cap_key: str,
    wait_keys: dict[str, str] | None,
    segments: list[gains.Segment] | Callable[[], list[gains.Segment]] | None,
    spans: tuple[float, float],
    earlier: bool,
    saved_span: dict[str, float] | Callable[[], dict[str, float]] | None,
    shrink: dict[str, float] | Callable[[], dict[str, float]] | None,
    work: tuple[dict[str, float], float] | None,
    figures: dict[str, Any],
) -> None:
    """``note_flows``, now (``spans``: its ``span`` and ``saturation``)."""
    span, saturation = spans
    if callable(segments):
        segments = segments()
    if callable(shrink):
        shrink = shrink()
    if callable(saved_span):
        saved_span = saved_span()
    if span > 0:
        saved = earlier_gains(run, phase) if earlier else {}
        for k, v in (saved_span or {}).items():
            saved[k] = saved.get(k, 0.0) + v
        shrink = gains.shrinks(saved, span, saturation)
    if segments is None:
        floors = None
        if work is not None:
            capacity, amount = work
            floors = [p for f in flows for p in work_floors(capacity, f, amount, node, disk, cap, cap_key)]
        segments = flow_segments(flows, node, disk, cap, cap_key, names, fixed=span <= 0, floors=floors)
    keys = wait_keys or {}
    for k, v in (waits or {}).items():
        if v > 0:
            segments.append(gains.Segment(v, ((gains.Part(k, keys.get(k, _wait_key(k)), v),),)))
    _record(run, phase, quantity, segments, shrink or {}, figures)


def _record(
    run: NodeRun,
    phase: str,
    quantity: str,
    segments: list[gains.Segment],
    shrink: dict[str, float],
    figures: dict[str, Any],
) -> None:
    """``note_flows``'s entry: the parts' seconds, their resources, the gains and the named bottleneck,
    added to those of the phase's earlier entry (a phase run twice)."""
    secs = gains.shares(segments)
    saved_secs = gains.gains(segments, shrink)
    labels = gains.resources(segments)
    old = run.notes.get(phase)
    if old is not None:
        for k, v in old.get("bound_secs", {}).items():
            secs[k] = secs.get(k, 0.0) + v
        for k, v in old.get("gains", {}).items():
            saved_secs[k] = saved_secs.get(k, 0.0) + v
        labels = {**old.get("resources", {}), **labels}
    secs = dict(sorted(secs.items(), key=lambda kv: -kv[1]))
    saved_secs = dict(sorted(saved_secs.items(), key=lambda kv: -kv[1]))
    bottleneck = named(secs, saved_secs, labels)
    note(run, phase, bottleneck, quantity, **figures)
    entry = run.notes[phase]
    entry["bound_secs"] = secs
    entry["resources"] = {k: labels[k] for k in secs if labels.get(k)}
    entry["gains"] = saved_secs
    if labels.get(bottleneck):
        entry["resource"] = labels[bottleneck]


def named(secs: dict[str, float], saved: dict[str, float], labels: dict[str, str]) -> str:
    """The bottleneck: of the parts whose resource would save the most twice as good (``saved``),
    the longest (``secs``); the longest part when no resource would save anything."""
    best = next((k for k, v in saved.items() if k and v > 0), "")
    mine = [k for k in secs if labels.get(k) == best] if best else []
    if mine:
        return mine[0]
    if best:  # it shrinks the work (fewer rows changed while the node was away) rather than runs it
        labels[f"{best}, through the work it shrinks"] = best
        return f"{best}, through the work it shrinks"
    return next(iter(secs), "no work")


def _wait_key(label: str) -> str:
    """The resource of a wait the phase names by label: a disk latency wait is the disk's."""
    return gains.LATENCY if label.startswith("disk latency") else ""


# -- the wait for an LCP at the end of a restart -----------------------------------------------
def speed_parameter(sz: Sizing) -> str:
    """The parameter that sets a restarting node's own LCP write speed in this release."""
    return "DiskCheckpointSpeedInRestart" if sz.features.legacy_speed_parameters else "MaxDiskWriteSpeedOwnRestart"


def local_lcp(
    r: NodeRestart, flow: Flow, size: float, rows: float, restored: LcpRecord | None, flush: Flow | None = None
) -> None:
    """Why the local LCP took its time: its bytes are the changes since the node's newest LCP
    on disk, so a younger newest LCP (more LCPs before the crash, or faster ones) shrinks it, and
    so does a faster restart before it; ``flush``: PGMAN's dirty disk-data pages written after it
    (``end._disk_page_flush``), which a bigger DiskPageBufferMemory moves there from the copy
    (``page_flush``), at PGMAN's pace or the disk's write rate."""
    rt = r.rt
    sz = rt.sz
    speed = float(sz.cfg[speed_parameter(sz)])  # a restarting node's own LCP speed (WriteSpeeds.of_node)
    by_speed = speed / size <= sz.lcp_cap(size, speed) * (1 + 1e-9)
    cap = f"write speed ({speed_parameter(sz)})" if by_speed else "LDM CPU (the LCP's row scan)"
    figures: dict[str, Any] = {
        "local_lcp_bytes": size,
        "local_lcp_changed_rows": rows,
        "local_lcp_secs": r.run.facts.local_lcp_secs or 0.0,
        "own_restart_write_speed": speed,
        "restored_lcp_age_at_crash_secs": r.crash - r.redo_from,
    }
    if restored is not None:
        figures["restored_lcp_secs"] = restored.end - restored.start
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
    cap_key = f"cluster.config.{speed_parameter(sz)}" if by_speed else gains.CPU
    flushed: tuple[dict[str, float], bool] | None = None
    if flush is not None:
        buffer = float(r.own.cfg["DiskPageBufferMemory"])
        flushed = flush.spent or {}, figures.get("disk_page_flush_bytes", 0.0) >= buffer * (1 - 1e-9)
    segments = partial(_local_lcp_segments, ran([flow]), r.node, (cap, cap_key), flushed)
    note_flows(
        r.run,
        ri.WAIT_LCP_FOR_RESTART,
        [],
        r.node,
        "local LCP bytes: the rows changed since the node's newest LCP on disk started",
        segments=segments,
        shrink=lcp_work_shrink(r, rt.env.now - (r.run.facts.local_lcp_secs or 0.0)),  # from its start
        **figures,
    )
    if mechanism:
        later(r.run, set_mechanism, r.run, ri.WAIT_LCP_FOR_RESTART, mechanism)


def set_mechanism(run: NodeRun, phase: str, mechanism: str) -> None:
    """Say what mechanism set ``phase``'s quantity (a phase's ``"mechanism"``)."""
    run.notes[phase]["mechanism"] = mechanism


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


def _local_lcp_segments(
    flows: list[Ran], node: Node, cap: tuple[str, str], flushed: tuple[dict[str, float], bool] | None
) -> list[gains.Segment]:
    """The local LCP's segments: its flow's, then the page flush's (``flushed``: its bound seconds,
    and whether it flushed as many pages as the buffer holds, so that fewer changes would not
    shrink it), at the disk's write rate."""
    segments = flow_segments(flows, node, "write", cap[0], cap[1], fixed=False)
    if flushed is not None:
        spent, full = flushed
        label = f"disk write (node {node.node_id}: the page cache's dirty disk-data pages)"
        for res, s in spent.items():
            # "cap": PGMAN's own pacing held the writes below the disk's rate; its writes in flight
            # follow the disk's write latency (``disk_data.lcp_flush_rate``)
            part = (
                gains.Part("PGMAN's pacing of the LCP's disk-page writes", gains.LATENCY, s, fixed=full)
                if res == "cap"
                else gains.Part(label, gains.DISK_WRITE, s, fixed=full)
            )
            segments.append(gains.Segment(s, ((part,),)))
    return segments


def lcp_wait(r: NodeRestart, t0: float, t_dist: float) -> None:
    """The distributed LCP's part of the wait: the rest of the running LCP (with DIH's next check
    and the stop GCP: a wait on the LCP cycle, no resource of this node's), then one LCP the node
    takes part in, at the live LCPs' pace (``_live_lcp_key``); the bottleneck when it would save
    more than the local LCP before it (``note_flows``)."""
    rt = r.rt
    dist = rt.env.now - t_dist
    joined = r.node.history[0] if r.node.history else None
    one = min(dist, (joined.end - joined.start) if joined else 0.0)
    figures: dict[str, Any] = {
        "distributed_lcp_wait_secs": dist,
        "distributed_lcp_bytes": joined.bytes if joined else 0.0,
        "distributed_lcp_secs": (joined.end - joined.start) if joined else 0.0,
    }
    mechanism = ""
    if joined is not None:
        figures["running_lcp_rest_secs"] = max(0.0, joined.start - t_dist)
        mechanism = _other_node_restart(rt, joined.start)
    later(r.run, _note_lcp_wait, r.run, r.node, (rt.sz, joined), (one, dist), figures, mechanism)


def _note_lcp_wait(
    run: NodeRun,
    node: Node,
    lcp: tuple[Sizing, LcpRecord | None],
    secs: tuple[float, float],
    figures: dict[str, Any],
    mechanism: str = "",
) -> None:
    """``lcp_wait``'s note (``secs``: one LCP's and the whole wait's): the local LCP's quantity
    stays when it remains the bottleneck; ``mechanism``: what MaxDiskWriteSpeedOtherNodeRestart did
    (``_other_node_restart``), beside the local LCP's."""
    one, dist = secs
    key = _live_lcp_key(*lcp)
    rest = "wait: the running LCP's rest, DIH's check, the stop GCP"
    segments = [
        gains.Segment(one, ((gains.Part("a distributed LCP the node takes part in", key, one),),)),
        gains.Segment(dist - one, ((gains.Part(rest, "", dist - one),),)),
    ]
    local = run.notes.get(ri.WAIT_LCP_FOR_RESTART)
    quantity = local["quantity"] if local is not None else ""
    _note_flows_now(
        run,
        ri.WAIT_LCP_FOR_RESTART,
        [],
        node,
        quantity,
        "read",
        "threads",
        None,
        None,
        gains.CPU,
        None,
        segments,
        (0.0, 0.0),
        True,
        None,
        None,
        None,
        {},
    )
    entry = run.notes[ri.WAIT_LCP_FOR_RESTART]
    entry["figures"].update(figures)
    if local is None or entry["bottleneck"] in (s.floors[0][0].label for s in segments):
        entry["quantity"] = "the running LCP's rest, then one LCP of the live nodes' changes"
    if mechanism:
        entry["mechanism"] = "; ".join(x for x in (entry.get("mechanism", ""), mechanism) if x)


def _live_lcp_key(sz: Sizing, joined: LcpRecord | None) -> str:
    """What paces an LCP of the live nodes while the node restarts: the LDM threads' row scan
    where it held the LCP below its write speed (``_held_back``'s ``ROW_SCAN``), else the write
    speed the live nodes use while another node restarts."""
    scan = joined is not None and joined.bytes > 0 and joined.end > joined.start
    if scan and joined is not None and joined.write_speed >= 0.95 * sz.lcp_cap(joined.bytes, math.inf) * joined.bytes:
        return gains.CPU
    name = "DiskCheckpointSpeed" if sz.features.legacy_speed_parameters else "MaxDiskWriteSpeedOtherNodeRestart"
    return f"cluster.config.{name}"


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
