"""One node's restart as it runs: the node, its record, and the helpers every step uses to
record a phase's span and to run work through the node's fluid resources."""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from simpy.events import Event
from simpy.resources.resource import Request

from ndbsim.engine.fluid.flow import Flow
from ndbsim.engine.node import Node
from ndbsim.engine.records import NodeRun
from ndbsim.engine.runtime import Runtime
from ndbsim.engine.sizing import Sizing


@dataclass
class NodeRestart:
    """A restart under way on one node."""

    rt: Runtime
    node: Node
    run: NodeRun
    crash: float
    """When the node went down."""
    redo_from: float = math.nan
    """Start of the newest LCP the node has on disk: its REDO counts from there."""
    initial: bool = False
    """The node starts with no data of its own (an initial restart, or a fall-back to one)."""
    gate: Request | None = None
    """NDBCNTR's start gate, held from the wait for the master to the end of the metadata copy."""
    redo_bytes: float = 0.0
    """REDO to apply after the restore."""
    copy_since: float = math.nan
    """When the first pass of an initial restart's copy began."""
    copy_pages: tuple[float, float] = (0.0, 0.0)
    """Disk-page bytes the copy dirtied on the node, and of them those DiskPageBufferMemory still
    holds dirty when it ends (``disk_data.CopyPages``): the restart's LCP writes the latter."""
    disk_page_flush: tuple[float, float] = (0.0, 0.0)
    """Of the restart's LCP flush of dirty disk pages: the bytes PGMAN counted made dirty, and the
    rate it paced the writes at (``disk_data.lcp_flush_rate``), for the why."""

    @property
    def own(self) -> Sizing:
        """The node's own release and config once restarted (an upgrade's new one): its threads,
        memory, REDO log files, restore, index build and copy follow it."""
        return self.rt.restarted_as

    def span(self, phase: str, t0: float) -> None:
        """Record ``phase`` as running from ``t0`` to now."""
        self.run.spans.append((phase, t0, self.rt.env.now))
        self.rt.lcp.status_changed(phase)  # DIH's node recovery status moves on (``engine.lcp.stall``)

    def timed(self, phase: str, secs: float) -> Generator[Event, Any, None]:
        """``phase`` takes ``secs`` seconds of waiting."""
        t0 = self.rt.env.now
        if secs > 0:
            yield self.rt.env.timeout(secs)
        self.span(phase, t0)

    def work(
        self, amount: float, cpu_per_unit: float, threads: float, disk_per_unit: float = 0.0, name: str = ""
    ) -> Generator[Event, Any, Flow]:
        """Work spread over ``threads`` threads of the node; its CPU use is capped at what
        those threads can get from the cores (hyperthreads count ``hyperthread_gain``). Returns
        the flow, followed for the phase's why (``engine.why``)."""
        node = self.node
        cores = self.rt.sz.cores(threads)
        demand = {node.cpu: cpu_per_unit}
        if disk_per_unit:
            demand[node.disk] = disk_per_unit
        cap = cores / cpu_per_unit if cpu_per_unit > 0 else math.inf
        flow = self.rt.fluid.transfer(amount, demand, cap=cap, name=name)
        self.rt.fluid.track(flow)
        yield flow.done
        return flow
