"""One data node's state as the simulation moves it: its LCPs, where it stands in a restart,
its REDO log's start and alert level, and the names of its resources in the fluid system."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ndbsim.engine.lcp.checkpoint import LcpRecord


@dataclass
class Node:
    id: int
    group: int
    node_id: int = 0
    """The NDB NodeId the reader knows the node by (``cluster.node_ids``); 0: ``id``, the engine's
    1..data_nodes."""
    history: list[LcpRecord] = field(default_factory=list)
    """Completed LCPs, newest first."""
    restarting: bool = False
    in_lcp: bool = True
    """Takes part in distributed LCPs (live nodes, and starting nodes once synchronised)."""
    down: bool = False
    upgraded: bool = False
    """Runs the upgrade's release (restart.upgrade_to): set when it restarts in an upgrade."""
    redo_alert: int = 0
    """EnableRedoControl's alert level (1 high, 2 critical) this node's REDO reached while the
    running LCP wrote, as its alarms saw it; 0 again when the next LCP begins."""
    redo_floor: float = -math.inf
    """Where this node's REDO log begins: a restarted node logged nothing while it was down,
    so it keeps no REDO from before it logs again, whatever LCPs it still keeps."""
    cpu: str = field(init=False)
    """The node's resources in the fluid system: its cores, its disk, its network link, and its
    LDM threads as a copy source (``engine.copy``)."""
    disk: str = field(init=False)
    net: str = field(init=False)
    ldm: str = field(init=False)

    def __post_init__(self) -> None:
        self.node_id = self.node_id or self.id
        self.cpu, self.disk, self.net = f"cpu{self.id}", f"disk{self.id}", f"net{self.id}"
        self.ldm = f"ldm{self.id}"

    @property
    def live(self) -> bool:
        """Up and not restarting: it applies the transaction stream and can be copied from."""
        return not self.down and not self.restarting
