"""The LCP write-speed policy: the speed a node's LCP writes at, from the release's speed
parameters, the LDM threads' CPU load, restarts in the cluster, the REDO fill
(EnableRedoControl), and what the disk has left beside the REDO (reference §2.4).

The step of ``engine.prepare`` after the stream: ``write_speeds_of`` works out, once for each of
the stream's rates, the speed with no restart anywhere, EnableRedoControl's proposal and what the
disk has left; the steady cycles, the plan and the running LCPs (``of_node``) read them."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ndbsim.engine.lcp.proposed_speed import ALERT_RAISE, proposed_speed, proposing_cycle
from ndbsim.engine.node import Node
from ndbsim.engine.sizing import Sizing
from ndbsim.engine.stream import Stream
from ndbsim.engine.workload import Changes, Rates

LDM_BUSY_HOLD = 0.90
"""Backup.cpp's CPU feedback (calculate_disk_write_speed, reference §2.4): above this LDM
busy share the LCP write speed stops rising; below it, it climbs to MaxDiskWriteSpeed."""

LDM_BUSY_BACK_OFF = 0.95
"""Above this LDM busy share the feedback lowers the LCP write speed to MinDiskWriteSpeed
(reference §2.4). Between the two thresholds ndbsim holds the midpoint of Min and Max."""


@dataclass(frozen=True)
class SpeedsAt:
    """LCP write speeds under one of the stream's rates, in bytes/s."""

    normal: float
    """The speed with no restart anywhere: the CPU feedback's, raised by EnableRedoControl's
    proposal, within ``disk_left``."""
    proposal: float
    """EnableRedoControl's proposed speed in the steady cycle of the rates, before any alert
    level's raise (0 without EnableRedoControl or a partial LCP)."""
    disk_left: float
    """What an LCP can write beside the REDO the stream writes: no configured speed makes the
    disk faster (reference §3, T_LCP = D / W). At least 1 byte/s, so that a disk the REDO alone
    fills gives an endless LCP cycle (error 410), not a division by zero."""


class WriteSpeeds:
    """LCP write speeds of one cluster under its stream's rates (``write_speeds_of``)."""

    def __init__(self, sz: Sizing, at: list[tuple[Rates, SpeedsAt]]):
        self.sz = sz
        self._at = {id(rates): (rates, speeds) for rates, speeds in at}

    def at(self, rates: Rates) -> SpeedsAt:
        """The speeds under ``rates``, one of the stream's (the same object)."""
        hit = self._at.get(id(rates))
        if hit is None or hit[0] is not rates:
            raise KeyError(f"no write speeds worked out for {rates}: not one of the stream's rates")
        return hit[1]

    def normal(self, rates: Rates) -> float:
        """LCP write speed with no restart anywhere."""
        return self.at(rates).normal

    def disk_write_left(self, rates: Rates) -> float:
        """Bytes/s an LCP can write beside the REDO (``SpeedsAt.disk_left``)."""
        return self.at(rates).disk_left

    def of_node(self, node: Node, rates: Rates, any_restarting: bool, redo_alert: int) -> float:
        """The speed ``node``'s LCP writes at now: the stream runs at ``rates``, some node of
        the cluster restarts or none, and ``redo_alert`` is the node's EnableRedoControl level."""
        cfg = self.sz.cfg
        if self.sz.features.legacy_speed_parameters:
            return cfg["DiskCheckpointSpeedInRestart"] if node.restarting else cfg["DiskCheckpointSpeed"]
        if node.restarting:
            return cfg["MaxDiskWriteSpeedOwnRestart"]
        at = self.at(rates)
        speed = at.normal
        if any_restarting:
            speed = max(speed, cfg["MaxDiskWriteSpeedOtherNodeRestart"])
        if redo_alert == 2:
            speed = max(speed, cfg["MaxDiskWriteSpeedOwnRestart"])
        elif redo_alert == 1:
            speed = max(speed, cfg["MaxDiskWriteSpeedOtherNodeRestart"])
        if redo_alert:  # the proposal's extra at the level, within what the disk has left
            raised = ALERT_RAISE[redo_alert] * at.proposal
            speed = max(speed, min(raised, at.disk_left))
        return speed


def write_speeds_of(sz: Sizing, stream: Stream, horizon: float) -> WriteSpeeds:
    """The write speeds under each of the stream's rates; ``horizon``: an LCP cycle longer than
    this counts as idle (``simulation.horizon``)."""
    return WriteSpeeds(sz, [(rates, _speeds_at(sz, rates, horizon)) for rates in stream.rates()])


def _speeds_at(sz: Sizing, rates: Rates, horizon: float) -> SpeedsAt:
    left = max(1.0, sz.host.disk_write * (1.0 - sz.live_load(rates)[1]))
    proposal = 0.0
    if sz.features.redo_control and sz.features.partial_lcp:
        proposal = _proposal(sz, rates, left, horizon)
    return SpeedsAt(min(_configured(sz, rates, proposal), left), proposal, left)


def _proposal(sz: Sizing, rates: Rates, left: float, horizon: float) -> float:
    """EnableRedoControl's proposal in the steady cycle where the LCP writes at the larger of
    MaxDiskWriteSpeed and the proposal itself (``proposing_cycle``); Backup.cpp proposes
    from the partial LCP's parts formula, so only a partial LCP is proposed for."""
    share = 1.0 / sz.groups
    node_rates = Changes(rates.updates * share, rates.inserts * share, rates.deletes * share, rates.bytes * share)
    trigger = sz.lcp_trigger_bytes / rates.bytes if rates.bytes > 0 else math.inf
    if trigger > horizon:
        return 0.0
    floor = min(sz.cfg["MaxDiskWriteSpeed"], left)
    rec, cycle, _ = proposing_cycle(
        sz.policy, sz.data_bytes, sz.rows, node_rates, floor, left, sz.lcp_overhead_secs, trigger
    )
    return proposed_speed(sz.policy, sz.data_bytes, sz.rows, rec.bytes, cycle)


def _configured(sz: Sizing, rates: Rates, proposal: float = 0.0) -> float:
    """The speed the CPU feedback settles at between MinDiskWriteSpeed and the maximum,
    which EnableRedoControl's ``proposal`` raises ("used to increase the maximum speed used
    in the adaptive disk write speed algorithm", Backup.cpp measure_change_speed)."""
    cfg = sz.cfg
    if sz.features.legacy_speed_parameters:
        return cfg["DiskCheckpointSpeed"]
    lo, hi = cfg["MinDiskWriteSpeed"], max(cfg["MaxDiskWriteSpeed"], proposal)
    if sz.features.adaptive_write_speed:
        # CPU feedback of Backup.cpp: up while the LDM threads are below 90% busy,
        # held between 90% and 95%, down above 95%.
        busy = sz.live_load(rates)[0] / (sz.host.core_speed * sz.ldm)
        if busy > LDM_BUSY_BACK_OFF:
            return lo
        if busy > LDM_BUSY_HOLD:
            return 0.5 * (lo + hi)
    return hi
