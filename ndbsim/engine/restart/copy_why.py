"""The copy phase's why (``engine.restart.copy``): what each step's time splits into, and the
part whose resource, twice as good, would shorten the copy most (``fluid.gains``).

A copy step is a pipeline (``copy._pipeline_cap``): the live node's scan and the starting node's
apply run at once, each side a sum, its LDM CPU per row plus its wait for the pages its cache
misses (one page outstanding per scan, reference §14.3); the disks, links and cores the step
shares with other work are floors beside them. A step the fluid system held below the pipeline's
pace (a disk or link shared with other work, ``FluidSystem.track``) ran at that constraint's
pace for those seconds, which split over its parts (a disk's reads and writes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ndbsim.engine import why
from ndbsim.engine.fluid import gains
from ndbsim.engine.fluid.flow import Flow
from ndbsim.engine.fluid.gains import Part, Segment
from ndbsim.engine.node import Node
from ndbsim.engine.restart.node_restart import NodeRestart
from ndbsim.input.restart_info import TO_SYNCHRONIZE_STARTING_NODE

APPLY, SCAN = "cap-apply", "cap-scan"
"""The two sides of a copy instance whose pace can cap a step (``copy.PIPELINE_SIDES``)."""


@dataclass(frozen=True)
class StepParts:
    """One copy step's seconds at the pipeline's pace, by side: ``apply`` and ``scan``, each (LDM
    CPU, page-read wait); ``demand``: its fluid demand by resource; ``own_disk``: the starting
    node's disk-seconds reading and writing (the parts of its disk demand); ``busy``: the share of
    each side's LDM threads the live stream keeps (``copy._convergence``, ``copy._scan_cores``)."""

    apply: tuple[float, float]
    scan: tuple[float, float]
    demand: dict[str, float]
    own_disk: tuple[float, float]
    busy: tuple[float, float] = (0.0, 0.0)
    scan_fixed: float = 1.0
    """The share of the scan's CPU that scans every row, whatever changed (the rest ships the
    changed rows); 1 where every row is shipped (a full copy): all of its work is then fixed."""


def _labels(r: NodeRestart, sources: list[Node], instances: float, served: dict[int, int]) -> dict[str, str]:
    """Each part's label, by the fluid resource or pipeline part it stands for."""
    rt, node = r.rt, r.node
    names: dict[str, str] = {}
    for p in sources:
        nid, k = rt.node_id(p), served[p.id]
        also = f", serving {k} copies" if k > 1 else ""
        names[p.cpu] = f"CPU of live node {nid}"
        names[p.ldm] = f"LDM threads of live node {nid}{also}"
        names[p.net] = f"network of live node {nid}{also}"
        names[p.disk] = f"disk read (live node {nid}: page-cache misses of the disk parts){also}"
    live = ", ".join(str(rt.node_id(p)) for p in sources)
    s = "s" if len(sources) > 1 else ""
    names[APPLY] = f"LDM threads of starting node {node.node_id} ({instances:.3g} copy instances applying)"
    names[SCAN] = f"LDM threads of live node{s} {live} ({instances:.3g} copy instances scanning)"
    names[APPLY + "-wait"] = f"page-read latency (starting node {node.node_id}, a window of rows per instance)"
    names[SCAN + "-wait"] = f"page-read latency (live node{s} {live}, one page at a time per scan)"
    names[node.disk + "-read"] = f"disk read (node {node.node_id})"
    names[node.disk + "-write"] = f"disk write (node {node.node_id})"
    names[node.cpu] = f"CPU (node {node.node_id}'s cores)"
    names[node.net] = f"network (node {node.node_id}'s link)"
    return names


def _floors(r: NodeRestart, step: StepParts, work: float, names: dict[str, str]) -> list[tuple[Part, ...]]:
    """The floors of ``work`` of a step (a share of it): both pipeline sides, and each resource it
    needs at that resource's whole capacity."""
    rt, node = r.rt, r.node
    cap = rt.fluid.capacity
    fixed = step.scan_fixed >= 1.0  # a full copy ships every row, however long the node was away
    scan_cpu = step.scan[0] * work
    apply_twice, scan_twice = gains.busy_twice(step.busy[0]), gains.busy_twice(step.busy[1])
    out = [
        (
            Part(names[APPLY], gains.CPU, step.apply[0] * work, apply_twice, fixed),
            Part(names[APPLY + "-wait"], gains.LATENCY, step.apply[1] * work, fixed=fixed),
        ),
        (
            Part(names[SCAN], gains.CPU, scan_cpu * step.scan_fixed, scan_twice),
            Part(names[SCAN], gains.CPU, scan_cpu * (1.0 - step.scan_fixed), scan_twice, fixed),
            Part(names[SCAN + "-wait"], gains.LATENCY, step.scan[1] * work, fixed=fixed),
        ),
    ]
    for res, d in step.demand.items():
        if d <= 0 or not cap.get(res):
            continue
        if res == node.disk:
            read, write = step.own_disk
            out.append(
                (
                    Part(names[res + "-read"], gains.DISK_READ, read * work, fixed=fixed),
                    Part(names[res + "-write"], gains.DISK_WRITE, write * work, fixed=fixed),
                )
            )
        else:
            key = why.resource_key(res, node, "read", gains.CPU)
            out.append((Part(names.get(res, res), key, d / cap[res] * work, fixed=fixed),))
    return out


def _segments(r: NodeRestart, flow: Flow, step: StepParts, names: dict[str, str]) -> list[Segment]:
    """A step's segments: the seconds it ran at the pipeline's pace (its cap), then those a fluid
    constraint held it below, each that constraint's floor set to the seconds it took."""
    spent = dict(flow.spent or {})
    pace = sum(step.apply) if sum(step.apply) >= sum(step.scan) else sum(step.scan)
    capped = sum(spent.pop(k, 0.0) for k in ("cap", APPLY, SCAN))
    out: list[Segment] = []
    done = min(1.0, capped / pace) if pace > 0 else 1.0
    if capped > 0:
        out.append(Segment(capped, tuple(_floors(r, step, done, names))))
    held = sum(spent.values())
    for res, secs in spent.items():
        work = (1.0 - done) * secs / held if held > 0 else 0.0
        floors = _floors(r, step, work, names)
        fixed = step.scan_fixed >= 1.0
        if res == r.node.disk:
            read, write = step.own_disk
            share = read / (read + write) if read + write > 0 else 1.0
            mine: tuple[Part, ...] = (
                Part(names[res + "-read"], gains.DISK_READ, secs * share, fixed=fixed),
                Part(names[res + "-write"], gains.DISK_WRITE, secs * (1.0 - share), fixed=fixed),
            )
        else:
            label = names.get(res) or why.resource_label(res, r.node, "read", "threads")
            mine = (Part(label, why.resource_key(res, r.node, "read", gains.CPU), secs, fixed=fixed),)
        out.append(Segment(secs, (mine, *floors)))
    return out


def note_why(
    r: NodeRestart,
    sources: list[Node],
    steps: list[tuple[Flow, StepParts]],
    full: bool,
    pages: dict[str, float],
    instances: float,
    span: float = 0.0,
) -> None:
    """The copy's why: its parts and the one whose resource, twice as good, would shorten it most,
    the rows, the disk-page bytes (``pages``, with disk data), and the live node(s) it copied from
    with the most copies each served at once; a live node serving several copies is named.
    ``instances``: ``copy._copy_instances``; ``span``: the seconds since the node stopped, over which
    the rows to ship changed (``why.note_flows``)."""
    rt, node, run = r.rt, r.node, r.run
    served = {p.id: rt.copies_served.get((node.id, p.id), 1) for p in sources}
    names = _labels(r, sources, instances, served)
    where: dict[str, Any] = {"live_node": rt.node_id(sources[0])}
    if len(sources) > 1:
        where = {"live_nodes": ", ".join(str(rt.node_id(p)) for p in sources)}
    if len(sources) > 1 or max(served.values()) > 1:
        where["copies_served"] = max(served.values())
    where.update(pages)
    segments = [seg for flow, step in steps for seg in _segments(r, flow, step, names)]
    why.note_flows(
        run,
        TO_SYNCHRONIZE_STARTING_NODE,
        [],
        node,
        "rows shipped from the live node" + (" (every row)" if full else " (those changed since the node stopped)"),
        segments=segments,
        span=0.0 if full else span,
        copied_rows=run.facts.copied_rows,
        scanned_rows=rt.sz.rows,
        **where,
        copy_steps=len(steps),
    )
    shared = [p for p in sources if served[p.id] > 1]
    if shared:
        run.why[TO_SYNCHRONIZE_STARTING_NODE]["mechanism"] = "; ".join(
            f"live node {rt.node_id(p)} served {served[p.id]} copies at once (its LDM threads scan, its "
            "link sends, for each): DIH copies every fragment from its primary replica among the live "
            "nodes (DbdihMain.cpp, Dbdih::toCopyFragLab)"
            for p in shared
        )
