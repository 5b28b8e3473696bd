"""A node's LCP as a flow in the fluid system, and the speed it writes at now."""

from __future__ import annotations

from collections.abc import Callable

import simpy

from ndbsim.engine import clock
from ndbsim.engine.fluid import Flow, FluidSystem
from ndbsim.engine.node import Node
from ndbsim.engine.plan import Plan
from ndbsim.engine.redo import RedoLog
from ndbsim.engine.sizing import Sizing
from ndbsim.engine.write_speed import WriteSpeeds


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

    def node_speeds(self, nodes: list[Node]) -> list[float]:
        """``speed`` of each of ``nodes`` now, computed once per kind of node: nodes restarting
        alike, keeping the same REDO and at the same EnableRedoControl level write alike."""
        now = clock.now(self.env)
        rates = self.plan.traffic.at(now)
        restarting = self.any_restarting()
        control = self.sz.features.redo_control
        redo, of_node = self.redo, self.speeds.of_node
        memo: dict[tuple[bool, float, int], float] = {}
        out = []
        for node in nodes:
            key = (node.restarting, redo.log_start(node), node.redo_alert) if control else (node.restarting, 0.0, 0)
            speed = memo.get(key)
            if speed is None:
                alert = redo.alert_level(node, now) if control else 0
                speed = memo[key] = of_node(node, rates, restarting, alert)
            out.append(speed)
        return out

    def demand(self, node: Node, size: float) -> dict[str, float]:
        """What one unit of a node's LCP writing ``size`` bytes takes of its disk and cores."""
        sz = self.sz
        return {node.disk: size / sz.host.disk_write, node.cpu: sz.lcp_cpu(size)}

    def flow(
        self,
        node: Node,
        size: float,
        speed: float,
        amount: float = 1.0,
        on_end: Callable[[float], None] | None = None,
    ) -> Flow:
        """One node's LCP as a flow of one unit: it writes ``size`` bytes at no more than
        ``speed`` and scans every row, each LDM thread its own fragments. ``amount`` < 1 is
        the part left of an LCP already under way; ``on_end`` as for ``FluidSystem.transfer``."""
        flow = self.fluid.transfer(
            amount,
            self.demand(node, size),
            cap=self.sz.lcp_cap(size, speed),
            name=f"lcp{node.id}",
            on_end=on_end,
        )
        flow.lcp_size = size
        return flow

    def cap(self, flow: Flow, speed: float) -> float:
        """The cap of an LCP flow writing at ``speed``."""
        return self.sz.lcp_cap(flow.lcp_size, speed)
