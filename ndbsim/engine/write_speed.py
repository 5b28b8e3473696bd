"""The LCP write-speed policy: the speed a node's LCP writes at, from the release's speed
parameters, the LDM threads' CPU load, restarts in the cluster, the REDO fill
(EnableRedoControl), and what the disk has left beside the REDO (reference §2.4)."""

from __future__ import annotations

from ndbsim.engine.node import Node
from ndbsim.engine.sizing import Sizing
from ndbsim.engine.workload import Rates

LDM_BUSY_HOLD = 0.90
"""Backup.cpp's CPU feedback (calculate_disk_write_speed, reference §2.4): above this LDM
busy share the LCP write speed stops rising; below it, it climbs to MaxDiskWriteSpeed."""

LDM_BUSY_BACK_OFF = 0.95
"""Above this LDM busy share the feedback lowers the LCP write speed to MinDiskWriteSpeed
(reference §2.4). Between the two thresholds ndbsim holds the midpoint of Min and Max."""


class WriteSpeeds:
    """LCP write speeds of one cluster, in bytes/s."""

    def __init__(self, sizing: Sizing):
        self.sz = sizing
        self._normal: dict[int, tuple[Rates, float]] = {}

    def normal(self, rates: Rates) -> float:
        """LCP write speed with no restart anywhere (memoised per workload segment's Rates)."""
        hit = self._normal.get(id(rates))
        if hit is not None and hit[0] is rates:
            return hit[1]
        speed = min(self._configured(rates), self.disk_write_left(rates))
        self._normal[id(rates)] = (rates, speed)
        return speed

    def _configured(self, rates: Rates) -> float:
        sz = self.sz
        cfg = sz.cfg
        if sz.features.legacy_speed_parameters:
            return cfg["DiskCheckpointSpeed"]
        lo, hi = cfg["MinDiskWriteSpeed"], cfg["MaxDiskWriteSpeed"]
        if sz.features.adaptive_write_speed:
            # CPU feedback of Backup.cpp: up while the LDM threads are below 90% busy,
            # held between 90% and 95%, down above 95%.
            busy = sz.live_load(rates)[0] / (sz.host.core_speed * sz.ldm)
            if busy > LDM_BUSY_BACK_OFF:
                return lo
            if busy > LDM_BUSY_HOLD:
                return 0.5 * (lo + hi)
        return hi

    def disk_write_left(self, rates: Rates) -> float:
        """Bytes/s an LCP can write beside the REDO the stream writes: no configured speed
        makes the disk faster (reference §3, T_LCP = D / W). At least 1 byte/s, so that a disk
        the REDO alone fills gives an endless LCP cycle (error 410), not a division by zero."""
        return max(1.0, self.sz.host.disk_write * (1.0 - self.sz.live_load(rates)[1]))

    def of_node(self, node: Node, rates: Rates, any_restarting: bool, redo_alert: int) -> float:
        """The speed ``node``'s LCP writes at now: the stream runs at ``rates``, some node of
        the cluster restarts or none, and ``redo_alert`` is the node's EnableRedoControl level."""
        cfg = self.sz.cfg
        if self.sz.features.legacy_speed_parameters:
            return cfg["DiskCheckpointSpeedInRestart"] if node.restarting else cfg["DiskCheckpointSpeed"]
        if node.restarting:
            return cfg["MaxDiskWriteSpeedOwnRestart"]
        speed = self.normal(rates)
        if any_restarting:
            speed = max(speed, cfg["MaxDiskWriteSpeedOtherNodeRestart"])
        if redo_alert == 2:
            speed = max(speed, cfg["MaxDiskWriteSpeedOwnRestart"])
        elif redo_alert == 1:
            speed = max(speed, cfg["MaxDiskWriteSpeedOtherNodeRestart"])
        return speed
