"""A node's LCP as a flow in the fluid system, and the speed it writes at now."""

from __future__ import annotations

import math
from collections.abc import Callable

import simpy

from ndbsim.engine import clock
from ndbsim.engine.fluid.flow import Flow
from ndbsim.engine.fluid.system import FluidSystem
from ndbsim.engine.lcp.write_speed import WriteSpeeds
from ndbsim.engine.node import Node
from ndbsim.engine.plan import Plan
from ndbsim.engine.redo import RedoLog
from ndbsim.engine.sizing import Sizing

MEMO_ENTRIES = 4096
"""Per-size LCP caps and demands remembered at most (a memory bound on a cache of pure
functions of the size and speed; not a model value)."""


class LcpWrites:
    """The LCP writes of one cluster's ``nodes``."""

    def __init__(
        self,
        env: simpy.Environment,
        fluid: FluidSystem,
        nodes: list[Node],
        sz: Sizing,
        plan: Plan,
        speeds: WriteSpeeds,
        redo: RedoLog,
    ):
        self.env, self.fluid, self.nodes = env, fluid, nodes
        self.sz, self.plan, self.speeds, self.redo = sz, plan, speeds, redo
        self._names = {n.id: f"lcp{n.id}" for n in nodes}
        self._caps: dict[tuple[float, float], float] = {}
        """``Sizing.lcp_cap`` by (size, speed): every node writing one size at one speed has one cap."""
        self._last = (math.nan, math.nan, math.nan)
        """The last (size, speed, cap) looked up."""
        self._use: dict[float, tuple[float, float]] = {}
        """Disk-seconds and core-seconds per unit of an LCP, by its size."""

    def any_restarting(self) -> bool:
        """Whether some node of the cluster is restarting (the live nodes' LCPs write faster)."""
        return any(n.restarting for n in self.nodes)

    def speed(self, node: Node, any_restarting: bool | None = None, now: float | None = None) -> float:
        """The speed ``node``'s LCP writes at ``now`` (default: the clock's now), some node
        restarting or none (default: as the cluster stands; callers re-capping many LCPs read
        it once) (``WriteSpeeds.of_node``)."""
        if now is None:
            now = clock.now(self.env)
        rates = self.plan.traffic.at(now)
        if any_restarting is None:
            any_restarting = self.any_restarting()
        alert = self.redo.alert_level(node, now) if self.sz.features.redo_control else 0
        return self.speeds.of_node(node, rates, any_restarting, alert)

    def node_speeds(self, nodes: list[Node], restarting: bool | None = None, now: float | None = None) -> list[float]:
        """``speed`` of each of ``nodes`` at ``now`` (default: the clock's now), computed once
        per kind of node: nodes restarting alike, keeping the same REDO and at the same
        EnableRedoControl level write alike. ``restarting``: ``any_restarting()``, if the
        caller has it."""
        if now is None:
            now = clock.now(self.env)
        rates = self.plan.traffic.at(now)
        if restarting is None:
            restarting = self.any_restarting()
        redo, of_node = self.redo, self.speeds.of_node
        out = []
        if not self.sz.features.redo_control:
            alike: dict[bool, float] = {}
            for node in nodes:
                speed = alike.get(node.restarting)
                if speed is None:
                    speed = alike[node.restarting] = of_node(node, rates, restarting, 0)
                out.append(speed)
            return out
        log_start = redo.log_start
        memo: dict[tuple[bool, float, int], float] = {}
        for node in nodes:
            key = (node.restarting, log_start(node), node.redo_alert)
            speed = memo.get(key)
            if speed is None:
                speed = memo[key] = of_node(node, rates, restarting, redo.alert_level(node, now))
            out.append(speed)
        return out

    def demand(self, node: Node, size: float) -> dict[str, float]:
        """What one unit of a node's LCP writing ``size`` bytes takes of its disk and cores."""
        use = self._use.get(size)
        if use is None:
            if len(self._use) >= MEMO_ENTRIES:
                self._use.clear()
            sz = self.sz
            use = self._use[size] = (size / sz.host.disk_write, sz.lcp_cpu(size))
        return {node.disk: use[0], node.cpu: use[1]}

    def cap_at(self, size: float, speed: float) -> float:
        """The cap of an LCP writing ``size`` bytes at ``speed`` (``Sizing.lcp_cap``)."""
        last = self._last
        if last[0] == size and last[1] == speed:  # the common case: the same as the node before
            return last[2]
        key = (size, speed)
        cap = self._caps.get(key)
        if cap is None:
            if len(self._caps) >= MEMO_ENTRIES:
                self._caps.clear()
            cap = self._caps[key] = self.sz.lcp_cap(size, speed)
        self._last = (size, speed, cap)
        return cap

    def flow(
        self,
        node: Node,
        size: float,
        speed: float,
        amount: float = 1.0,
        on_end: Callable[[], None] | None = None,
    ) -> Flow:
        """One node's LCP as a flow of one unit: it writes ``size`` bytes at no more than
        ``speed`` and scans every row, each LDM thread its own fragments. ``amount`` < 1 is
        the part left of an LCP already under way; ``on_end`` as for ``FluidSystem.transfer``."""
        flow = self.fluid.transfer(
            amount,
            self.demand(node, size),
            cap=self.cap_at(size, speed),
            name=self._name(node),
            on_end=on_end,
        )
        flow.lcp_size = size
        return flow

    def flows(
        self, nodes: list[Node], sizes: list[float], speeds: list[float], on_end: Callable[[], None]
    ) -> list[Flow]:
        """``flow`` of one unit for each of ``nodes`` writing its size at its speed, started
        together (``FluidSystem.transfer_each``)."""
        demand, cap_at, name = self.demand, self.cap_at, self._name
        flows = self.fluid.transfer_each(
            1.0,
            [demand(n, size) for n, size in zip(nodes, sizes)],
            [cap_at(size, speed) for size, speed in zip(sizes, speeds)],
            [name(n) for n in nodes],
            on_end,
        )
        for flow, size in zip(flows, sizes):
            flow.lcp_size = size
        return flows

    def _name(self, node: Node) -> str:
        """A node's LCP flow's name (``lcpN``), made once per node."""
        return self._names.get(node.id) or f"lcp{node.id}"

    def cap(self, flow: Flow, speed: float) -> float:
        """The cap of an LCP flow writing at ``speed``."""
        return self.cap_at(flow.lcp_size, speed)
