"""The simulated cluster while it runs: the SimPy environment, the hosts as fluid resources,
the nodes, the live transaction stream, the DIH master's LCP loop, and the gates every
starting node passes one at a time. Built from what ``engine.prepare`` worked out; the restart
pipelines act on it."""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import Any

import numpy as np
import simpy
from simpy.events import Event

from ndbsim.engine.fluid.system import FluidSystem
from ndbsim.engine.lcp.master import LcpMaster
from ndbsim.engine.lcp.state import settles_first
from ndbsim.engine.lcp.write_speed import WriteSpeeds
from ndbsim.engine.lcp.writes import LcpWrites
from ndbsim.engine.node import Node
from ndbsim.engine.plan import Plan
from ndbsim.engine.prepare import Prepared
from ndbsim.engine.redo import RedoLog
from ndbsim.engine.restart.takeover import NodeGroupTakeOver
from ndbsim.engine.sizing import Sizing
from ndbsim.engine.workload import Rates
from ndbsim.input.scenario import Scenario


class Runtime:
    """One replication's running cluster."""

    def __init__(self, prepared: Prepared, rng: np.random.Generator):
        self.scenario: Scenario = prepared.scenario
        self.rng = rng
        self.sz: Sizing = prepared.sz
        self.restarted_as: Sizing = prepared.restarted_as
        """The release and config a restarted node comes back with (``Prepared.restarted_as``)."""
        self.speeds: WriteSpeeds = prepared.speeds
        self.plan: Plan = prepared.plan
        self.warnings: list[str] = list(prepared.warnings)
        self.setting_flags: list[str] = list(prepared.setting_flags)
        """Flags for advise: the host oversubscribed, each cliff by its parameter."""
        self.env = simpy.Environment()
        self.fluid = FluidSystem(self.env)
        sz = self.sz
        ids = self.scenario.cluster.node_ids or []
        self.nodes = [
            Node(id=i + 1, group=i // sz.replicas, node_id=ids[i] if ids else 0) for i in range(sz.data_nodes)
        ]
        self.shared_sources = sz.replicas > 2
        """Whether a live node may serve several copies at once, so that its LDM threads and link
        are resources of the copies it serves (``engine.restart.copy``)."""
        self.groups: list[list[Node]] = [
            self.nodes[g : g + sz.replicas] for g in range(0, len(self.nodes), sz.replicas)
        ]
        """The nodes of each node group, by group number."""
        self.takeovers = [NodeGroupTakeOver(self.env) for _ in self.groups]
        """The DIH master's take-over of each node group, by group number: one starting node copies
        in a node group at a time (``engine.restart.takeover``)."""
        for n in self.nodes:
            n.history = self.plan.initial_history()
            self.fluid.add_resource(n.cpu, sz.cpu_capacity)
            self.fluid.add_resource(n.disk, 1.0)  # disk-seconds per second: reads and writes compete
            self.fluid.add_resource(n.net, sz.host.network)
            if self.shared_sources:
                self.fluid.add_resource(n.ldm, sz.ldm_cores)  # the LDM threads a copy from this node scans in
        self.copying_from: dict[int, dict[int, None]] = {n.id: {} for n in self.nodes}
        """Per live node, the starting nodes copying from it now (``engine.copy``)."""
        self.copies_served: dict[tuple[int, int], int] = {}
        """(starting node, live node) -> the most copies that live node served at once while
        the starting node copied from it."""
        self.qmgr_gate = simpy.Resource(self.env, capacity=1)
        self.cntr_gate = simpy.Resource(self.env, capacity=1)
        self.redo = RedoLog(sz, self.plan)
        self.writes = LcpWrites(self.env, self.fluid, self.nodes, sz, self.plan, self.speeds, self.redo)
        self.lcp = LcpMaster(self.env, self.fluid, self.nodes, sz, self.plan, self.redo, self.writes)
        """The DIH master's LCP loop over the live nodes."""

    def settle(self, interrupt: bool = True) -> None:
        """Settle the LCP loop's skip (``settles_first``)."""
        self.lcp.settle(interrupt)

    @settles_first
    def note_redo(self) -> None:
        """Record the REDO the live nodes must keep now, if it is a new peak."""
        self.redo.note(self.nodes, self.env.now)

    @settles_first
    def take_down(self, node: Node) -> None:
        """``node`` goes down to restart: it leaves the LCP and the transactions, and logs no
        REDO until it is back in the transactions."""
        node.restarting, node.in_lcp, node.down = True, False, True
        node.redo_floor = math.inf
        with self.fluid.batch:
            self.lcp.drop(node)
            self.apply_live_load(node, None)
            self.lcp.refresh_speeds()

    def live_loads(self, node: Node, rates: Rates | None) -> dict[str, float]:
        """What applying the stream at ``rates`` takes of ``node``'s resources; the CPU part is
        its LDM threads' work, so their share for a copy from this node shrinks by as much."""
        cpu, disk, net = self.sz.live_load(rates) if rates else (0.0, 0.0, 0.0)
        if self.shared_sources:
            return {node.cpu: cpu, node.disk: disk, node.net: net, node.ldm: cpu}
        return {node.cpu: cpu, node.disk: disk, node.net: net}

    def apply_live_load(self, node: Node, rates: Rates | None) -> None:
        self.fluid.set_fixed_loads(self.live_loads(node, rates))

    def lqh_workers(self, node: Node) -> int:
        """LDM threads ``node`` runs now: an upgraded node runs its new release's layout."""
        return self.restarted_as.ldm if node.upgraded else self.sz.ldm

    def start_binary(self, node: Node) -> None:
        """``node``'s binary starts again: the upgrade's release if there is one, with that
        release's LDM threads (the cores a later copy from this node scans with)."""
        node.upgraded = self.restarted_as is not self.sz
        if node.upgraded and self.shared_sources:
            self.fluid.add_resource(node.ldm, self.sz.cores(self.lqh_workers(node)))

    def peers(self, node: Node) -> list[Node]:
        """The live nodes of ``node``'s node group, which it can copy from."""
        return [n for n in self.groups[node.group] if n is not node and n.live]

    def begin_copy(self, node: Node, sources: list[Node]) -> None:
        """``node`` starts copying from ``sources``: each counts one more copy to serve, and
        every copy it serves notes the new count if it is its most."""
        for live in sources:
            serving = self.copying_from[live.id]
            serving[node.id] = None
            for other in serving:
                key = (other, live.id)
                self.copies_served[key] = max(self.copies_served.get(key, 0), len(serving))

    def end_copy(self, node: Node, sources: list[Node]) -> None:
        for live in sources:
            self.copying_from[live.id].pop(node.id, None)

    def node_id(self, node: Node) -> int:
        """The NDB NodeId of ``node`` (``cluster.node_ids``, else the engine's 1..data_nodes)."""
        ids = self.scenario.cluster.node_ids
        return ids[node.id - 1] if ids else node.id

    def start(self) -> None:
        self.lcp.start()
        self.env.process(self._stream())

    def _stream(self) -> Generator[Event, Any, None]:
        """Live nodes apply the transaction stream throughout: a fixed load that changes only
        where the rates do (the burst, the restart). A restarting node takes its share again
        once it joins the transactions (the copy phase)."""
        for start, rates in self.plan.traffic.segments:
            if start > self.env.now:
                yield self.env.timeout(start - self.env.now)
            loads: dict[str, float] = {}  # one reallocation for all nodes
            for n in self.nodes:
                if n.live:
                    loads.update(self.live_loads(n, rates))
            self.fluid.set_fixed_loads(loads)
