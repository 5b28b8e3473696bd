"""The copy phase's why (``engine.restart.copy``): what each step's time splits into, and the
part whose resource, twice as good, would shorten the copy most (``fluid.gains``).

A copy step is a pipeline (``copy._pipeline_cap``): the live node's scan and the starting node's
apply run at once, each side a sum, its LDM CPU per row plus its wait for the pages its cache
misses (one page outstanding per scan, reference §14.3); the disks, links and cores the step
shares with other work are floors beside them. A step the fluid system held below the pipeline's
pace (a disk or link shared with other work, ``FluidSystem.track``) ran at that constraint's
pace for those seconds, which split over its parts (a disk's reads and writes)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from ndbsim.engine import why
from ndbsim.engine.fluid import gains
from ndbsim.engine.fluid.flow import Flow
from ndbsim.engine.fluid.gains import Part, Segment
from ndbsim.engine.node import Node
from ndbsim.engine.restart.node_restart import NodeRestart
from ndbsim.input.restart_info import TO_SYNCHRONIZE_STARTING_NODE

if TYPE_CHECKING:
    from ndbsim.engine.sizing import Sizing

APPLY, SCAN = "cap-apply", "cap-scan"
"""The two sides of a copy instance whose pace can cap a step (``copy._pipeline_sides``): the keys
of their parts' labels."""


@dataclass(frozen=True)
class StepParts:
    """One copy step's seconds at the pipeline's pace, by side: ``apply`` and ``scan``, each (LDM
    CPU, page-read wait); ``demand``: its fluid demand by resource; ``own_disk``: the starting
    node's disk-seconds reading and writing (the parts of its disk demand)."""

    apply: tuple[float, float]
    scan: tuple[float, float]
    demand: dict[str, float]
    own_disk: tuple[float, float]
    scan_fixed: float = 1.0
    """The share of the scan's CPU that scans every row, whatever changed (the rest ships the
    changed rows); 1 where every row is shipped (a full copy): all of its work is then fixed."""


class Copied(NamedTuple):
    """What the copy's why reads when it is computed (``why.later``): the starting node, the fluid
    system's capacities, the sizing, each source's NodeId by engine id; no simulation object."""

    node: Node
    capacity: dict[str, float]
    sz: Sizing
    ids: dict[int, int]


def _labels(w: Copied, sources: list[Node], instances: float, served: dict[int, int]) -> dict[str, str]:
    """Each part's label, by the fluid resource or pipeline part it stands for."""
    node = w.node
    names: dict[str, str] = {}
    for p in sources:
        nid, k = w.ids[p.id], served[p.id]
        also = f", serving {k} copies" if k > 1 else ""
        names[p.cpu] = f"CPU of live node {nid}"
        names[p.ldm] = f"LDM threads of live node {nid}{also}"
        names[p.net] = f"network of live node {nid}{also}"
        names[p.disk] = f"disk read (live node {nid}: page-cache misses of the disk parts){also}"
    live = ", ".join(str(w.ids[p.id]) for p in sources)
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


def _amounts(w: Copied, step: StepParts, work: float, out: dict[str, float]) -> None:
    """Add to ``out`` the seconds ``work`` of a step (a share of it) needs on each floor's parts:
    both pipeline sides (``APPLY``, ``SCAN``: LDM CPU, the scan's split into the rows it scans
    whatever changed and those it ships, and the page-read waits), and each resource at its whole
    capacity (the starting node's disk by reads and writes)."""
    node = w.node
    cap = w.capacity
    add = {
        APPLY: step.apply[0] * work,
        APPLY + "-wait": step.apply[1] * work,
        SCAN + "-fixed": step.scan[0] * work * step.scan_fixed,
        SCAN: step.scan[0] * work * (1.0 - step.scan_fixed),
        SCAN + "-wait": step.scan[1] * work,
    }
    for res, d in step.demand.items():
        if d <= 0 or not cap.get(res):
            continue
        if res == node.disk:
            add[res + "-read"] = step.own_disk[0] * work
            add[res + "-write"] = step.own_disk[1] * work
        else:
            add[res] = d / cap[res] * work
    for k, v in add.items():
        out[k] = out.get(k, 0.0) + v


def _segment(
    w: Copied,
    bound: str,
    amounts: dict[str, float],
    step: StepParts,
    names: dict[str, str],
    busy: tuple[float, float],
) -> Segment:
    """The segment of the copy's seconds bound by ``bound`` ("cap": the pipeline's pace, else a
    fluid constraint, whose own part is its seconds, ``"mine"``), from the summed ``amounts``
    (``_amounts``); ``step``: any step, for what is the same in every one (whether the work is
    fixed); ``busy``: the share of each side's LDM threads the live stream keeps (``_busy``)."""
    node = w.node
    fixed = step.scan_fixed >= 1.0  # a full copy ships every row, however long the node was away
    apply_twice, scan_twice = gains.busy_twice(busy[0]), gains.busy_twice(busy[1])
    floors: list[tuple[Part, ...]] = [
        (
            Part(names[APPLY], gains.CPU, amounts[APPLY], apply_twice, fixed),
            Part(names[APPLY + "-wait"], gains.LATENCY, amounts[APPLY + "-wait"], fixed=fixed),
        ),
        (
            Part(names[SCAN], gains.CPU, amounts[SCAN + "-fixed"], scan_twice),
            Part(names[SCAN], gains.CPU, amounts[SCAN], scan_twice, fixed),
            Part(names[SCAN + "-wait"], gains.LATENCY, amounts[SCAN + "-wait"], fixed=fixed),
        ),
    ]
    disk = node.disk
    for k, v in amounts.items():
        if k in (disk + "-read", disk + "-write"):
            continue
        if k.startswith((APPLY, SCAN, "mine")):
            continue
        key = why.resource_key(k, node, "read", gains.CPU)
        floors.append((Part(names.get(k, k), key, v, fixed=fixed),))
    if disk + "-read" in amounts:
        floors.append(
            (
                Part(names[disk + "-read"], gains.DISK_READ, amounts[disk + "-read"], fixed=fixed),
                Part(names[disk + "-write"], gains.DISK_WRITE, amounts[disk + "-write"], fixed=fixed),
            )
        )
    secs = amounts["mine"]
    if bound == "cap":
        return Segment(secs, tuple(floors))
    if bound == disk:
        read, write = amounts.get(disk + "-read", 0.0), amounts.get(disk + "-write", 0.0)
        share = read / (read + write) if read + write > 0 else 1.0
        mine: tuple[Part, ...] = (
            Part(names[disk + "-read"], gains.DISK_READ, secs * share, fixed=fixed),
            Part(names[disk + "-write"], gains.DISK_WRITE, secs * (1.0 - share), fixed=fixed),
        )
    else:
        label = names.get(bound) or why.resource_label(bound, node, "read", "threads")
        mine = (Part(label, why.resource_key(bound, node, "read", gains.CPU), secs, fixed=fixed),)
    return Segment(secs, (mine, *floors))


Cores = tuple[float, float, float]
"""The copy's cores as its why reads them: the apply's cores, the copy instances, and the cores
each source's scan gets (``copy._convergence``, ``copy._scan_cores``)."""


def _busy(w: Copied, sources: list[Node], cores: Cores) -> tuple[float, float]:
    """The share of the copy instances' LDM threads the live stream keeps, on the starting node and on
    each source (``cores``)."""
    apply_cores, instances, scan_cores = cores
    sz = w.sz
    whole = (sz.cores(instances), sz.cores(instances / len(sources)))  # with no live stream
    got = (apply_cores, scan_cores)
    return (1.0 - got[0] / whole[0] if whole[0] > 0 else 0.0, 1.0 - got[1] / whole[1] if whole[1] > 0 else 0.0)


def _segments(
    w: Copied, steps: list[tuple[dict[str, float], StepParts]], names: dict[str, str], busy: tuple[float, float]
) -> list[Segment]:
    """The copy's segments, one per constraint that bound its steps: the seconds they ran at the
    pipeline's pace (their cap), then those a fluid constraint held them below, each with the
    floors of the work done meanwhile (the steps' floors are linear in their work: summed)."""
    sums: dict[str, dict[str, float]] = {}
    for spent, step in steps:
        pace = max(sum(step.apply), sum(step.scan))
        capped = spent.get("cap", 0.0)
        done = min(1.0, capped / pace) if pace > 0 else 1.0
        held = sum(spent.values()) - capped
        for res, secs in spent.items():
            work = done if res == "cap" else ((1.0 - done) * secs / held if held > 0 else 0.0)
            acc = sums.setdefault(res, {"mine": 0.0})
            acc["mine"] += secs
            _amounts(w, step, work, acc)
    if not steps:
        return []
    last = steps[-1][1]
    return [_segment(w, bound, acc, last, names, busy) for bound, acc in sums.items() if acc["mine"] > 0]


def _labelled_segments(
    w: Copied,
    sources: list[Node],
    cores: Cores,
    served: dict[int, int],
    steps: list[tuple[dict[str, float], StepParts]],
) -> list[Segment]:
    names = _labels(w, sources, cores[1], served)
    return _segments(w, steps, names, _busy(w, sources, cores))


def _saturation(copied: float, rows: float) -> float:
    """The exponent of the distinct rows the copy shipped, ``rows·(1 − e^(−x))`` (``gains.shrinks``),
    from the rows shipped and the node's rows: ``x = −ln(1 − copied/rows)``."""
    if rows <= 0 or copied <= 0:
        return 0.0
    held = min(copied / rows, 1.0 - 1e-9)
    return -math.log1p(-held)


def _after_wait(wait: Segment, segments: Callable[[], list[Segment]]) -> list[Segment]:
    """The copy's segments after the seconds it waited for the node group's take-over (a wait no
    resource of this node shortens)."""
    return [wait, *segments()]


def _takeover_wait(
    r: NodeRestart,
    takeover: tuple[float, int | None],
    segments: Callable[[], list[Segment]],
    where: dict[str, Any],
) -> tuple[Callable[[], list[Segment]], list[str]]:
    """The copy's segments and mechanisms with the seconds it waited for the node group's take-over
    (``takeover``: those seconds and the engine id of the starting node that held it), its figures
    added to ``where``."""
    waited, blocker = takeover
    if blocker is None or waited <= 0:
        return segments, []
    other = r.rt.node_id(r.rt.nodes[blocker - 1])
    where.update(takeover_wait_secs=waited, waited_for_node=other)
    label = f"wait: starting node {other}'s copy (one take-over per node group)"
    wait = Segment(waited, ((Part(label, "", waited),),))
    said = (
        f"waited {waited:.1f} s for starting node {other}'s copy: the DIH master grants one take-over "
        "per node group at a time and a refused node asks again every 5 s (DbdihMain.cpp, "
        "Dbdih::execUPDATE_TOREQ, NGPtr.p->activeTakeOver; Dbdih::execUPDATE_TOREF)"
    )
    return partial(_after_wait, wait, segments), [said]


def note_why(
    r: NodeRestart,
    sources: list[Node],
    steps: list[tuple[Flow, StepParts]],
    full: bool,
    pages: dict[str, float],
    cores: Cores,
    span: float = 0.0,
    takeover: tuple[float, int | None] = (0.0, None),
) -> None:
    """The copy's why: its parts and the one whose resource, twice as good, would shorten it most,
    the rows, the disk-page bytes (``pages``, with disk data), and the live node(s) it copied from
    with the most copies each served at once; a live node serving several copies is named.
    ``cores``: ``Cores``; ``span``: the seconds since the node stopped, over which
    the rows to ship changed (``why.note_flows``); ``takeover``: the seconds the node waited for the
    node group's take-over and the engine id of the starting node that held it (``takeover.py``)."""
    rt, node, run = r.rt, r.node, r.run
    served = {p.id: rt.copies_served.get((node.id, p.id), 1) for p in sources}
    where: dict[str, Any] = {"live_node": rt.node_id(sources[0])}
    if len(sources) > 1:
        where = {"live_nodes": ", ".join(str(rt.node_id(p)) for p in sources)}
    if len(sources) > 1 or max(served.values()) > 1:
        where["copies_served"] = max(served.values())
    where.update(pages)
    copied = Copied(node, rt.fluid.capacity, rt.sz, {p.id: rt.node_id(p) for p in sources})
    ran = [(flow.spent or {}, step) for flow, step in steps]
    labelled = partial(_labelled_segments, copied, sources, cores, served, ran)
    segments, mechanisms = _takeover_wait(r, takeover, labelled, where)
    why.note_flows(
        run,
        TO_SYNCHRONIZE_STARTING_NODE,
        [],
        node,
        "rows shipped from the live node" + (" (every row)" if full else " (those changed since the node stopped)"),
        segments=segments,
        span=0.0 if full else span,
        saturation=_saturation(run.facts.copied_rows or 0.0, rt.sz.rows),
        copied_rows=run.facts.copied_rows,
        scanned_rows=rt.sz.rows,
        **where,
        copy_steps=len(steps),
    )
    mechanisms += [
        f"live node {rt.node_id(p)} served {served[p.id]} copies at once (its LDM threads scan, its "
        "link sends, for each): DIH copies every fragment from its primary replica among the live "
        "nodes (DbdihMain.cpp, Dbdih::toCopyFragLab)"
        for p in sources
        if served[p.id] > 1
    ]
    if mechanisms:
        why.later(run, why.set_mechanism, run, TO_SYNCHRONIZE_STARTING_NODE, "; ".join(mechanisms))
