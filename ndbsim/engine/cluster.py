"""The simulated cluster: hosts as fluid resources, the transaction stream and the LCP write
speeds and REDO it implies, the live nodes' LCP cycle (run by ``LcpMaster``), and the gates
every starting node passes one at a time.

Simulated time starts with a warm-up of a few LCP cycles under the pre-restart workload, so
that the restart lands at a random (seeded) point of the LCP cycle; ``t_crash`` is the moment
the restart begins.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import simpy
from simpy.events import Event

from ndbsim.engine.checkpoint import CheckpointPolicy, LcpRecord, policy_for
from ndbsim.engine.fluid import Flow, FluidSystem
from ndbsim.engine.lcp_master import LcpMaster
from ndbsim.engine.workload import Changes, Rates, Traffic
from ndbsim.profiles import LCP_CPU_SECS_PER_BYTE, LCP_TABLE_DESCRIPTION_SECS, SCAN_ROW_SECS, unused_params
from ndbsim.scenario import Resolved
from ndbsim.threads import core_equivalents, ldm_threads

LDM_BUSY_HOLD = 0.90
"""Backup.cpp's CPU feedback (calculate_disk_write_speed, reference §2.4): above this LDM
busy share the LCP write speed stops rising; below it, it climbs to MaxDiskWriteSpeed."""

LDM_BUSY_BACK_OFF = 0.95
"""Above this LDM busy share the feedback lowers the LCP write speed to MinDiskWriteSpeed
(reference §2.4). Between the two thresholds ndbsim holds the midpoint of Min and Max."""

REDO_ALERT_HIGH = 0.40
"""EnableRedoControl's "high" alert level: above this REDO fill the LCP writes at no less than
MaxDiskWriteSpeedOtherNodeRestart (Backup.cpp change_alert_state_redo_percent, reference §2.4)."""

REDO_ALERT_CRITICAL = 0.60
"""EnableRedoControl's "critical" level: above this REDO fill the LCP writes at
MaxDiskWriteSpeedOwnRestart (reference §2.4)."""

REDO_CONTROL_BISECTIONS = 24
"""Halvings of the speed interval when finding the average LCP speed at which EnableRedoControl
holds the REDO fill at an alert level: 2^-24 of the interval (a numerical resolution, not an
NDB value)."""


@dataclass
class Node:
    id: int
    group: int
    history: list[LcpRecord] = field(default_factory=list)
    """Completed LCPs, newest first."""
    restarting: bool = False
    in_lcp: bool = True
    """Takes part in distributed LCPs (live nodes, and starting nodes once synchronised)."""
    down: bool = False
    redo_alert: int = 0
    """EnableRedoControl's alert level (1 high, 2 critical) this node's REDO reached while the
    running LCP wrote, as its alarms saw it; 0 again when the next LCP begins."""
    redo_floor: float = -math.inf
    """Where this node's REDO log begins: a restarted node logged nothing while it was down,
    so it keeps no REDO from before it logs again, whatever LCPs it still keeps."""
    cpu: str = field(init=False)
    """The node's resources in the fluid system: its cores, its disk, its network link."""
    disk: str = field(init=False)
    net: str = field(init=False)

    def __post_init__(self) -> None:
        self.cpu, self.disk, self.net = f"cpu{self.id}", f"disk{self.id}", f"net{self.id}"


class Cluster:
    """Everything shared by the restarting nodes."""

    def __init__(self, resolved: Resolved, rng: np.random.Generator):
        s = resolved.scenario
        cfg = resolved.config
        self.s, self.cfg = s, cfg
        self.mech = resolved.profile.mechanisms
        self.redo_control = self.mech.redo_control and bool(cfg.get("EnableRedoControl"))
        """EnableRedoControl is on and this release has it (7.6.7+)."""
        self.k = resolved.profile.constants
        self.rng = rng
        self.env = simpy.Environment()
        self.fluid = FluidSystem(self.env)
        self.ldm = ldm_threads(cfg["MaxNoOfExecutionThreads"], cfg["ThreadConfig"], self.mech.multithreaded)
        self.policy: CheckpointPolicy = policy_for(
            cfg, self.mech.partial_lcp_available, s.data.tables, self.mech.insert_recovery_work
        )
        self.replicas = cfg["NoOfReplicas"]
        self.groups = s.cluster.data_nodes // self.replicas
        self.nodes = [Node(id=i + 1, group=i // self.replicas) for i in range(s.cluster.data_nodes)]
        self.data_bytes = s.data.size
        self.rows = s.data.row_count
        self.max_rows = cfg["DataMemory"] / (self.data_bytes / self.rows) if self.rows else math.inf
        """Rows DataMemory holds at this row size: inserts beyond it would fail (error 827)."""
        self.gcp = cfg["TimeBetweenGlobalCheckpoints"] / 1000.0
        self.redo_capacity = cfg["NoOfFragmentLogParts"] * cfg["NoOfFragmentLogFiles"] * cfg["FragmentLogFileSize"]
        self.lcp_trigger_bytes = 4.0 * 2 ** cfg["TimeBetweenLocalCheckpoints"]
        self.table_description_secs = s.data.tables * LCP_TABLE_DESCRIPTION_SECS
        """Each LCP ends by writing every table's description."""
        h = s.host
        self.cpu_capacity = self.cores(h.cpu_cores * h.threads_per_core)
        self.ldm_cores = self.cores(self.ldm)
        """What the LDM threads get from the cores (constant for a cluster)."""
        for n in self.nodes:
            self.fluid.add_resource(n.cpu, self.cpu_capacity)
            self.fluid.add_resource(n.disk, 1.0)  # disk-seconds per second: reads and writes compete
            self.fluid.add_resource(n.net, h.network)
        self.qmgr_gate = simpy.Resource(self.env, capacity=1)
        self.cntr_gate = simpy.Resource(self.env, capacity=1)
        self.warnings: list[str] = []
        ignored = [k for k in unused_params(self.mech) if k in s.cluster.config]
        if ignored:
            self.warnings.append(
                f"{', '.join(ignored)}: not {'a parameter' if len(ignored) == 1 else 'parameters'} "
                f"of NDB {s.version}, ignored (`ndbsim params --version {s.version}` lists "
                "this version's)"
            )
        self.redo_peak_bytes = 0.0
        self._normal_speeds: dict[int, tuple[Rates, float]] = {}
        self._build_traffic()
        self.lcp = LcpMaster(self, self.last_lcp_start, self.first_lcp_start)
        """The DIH master's LCP loop over the live nodes."""

    def cores(self, threads: float) -> float:
        """Core-equivalents ``threads`` threads of one host get (hyperthreads count
        ``hyperthread_gain``), at the host's ``core_speed``."""
        h = self.s.host
        return core_equivalents(threads, h.cpu_cores, h.threads_per_core, self.k.hyperthread_gain) * h.core_speed

    # -- traffic ------------------------------------------------------------------------
    def _build_traffic(self) -> None:
        w = self.s.workload
        base = Rates(w.updates_per_s, w.inserts_per_s, w.deletes_per_s, w.bytes_per_change)

        def merged(over) -> Rates:
            if over is None:
                return base
            return Rates(
                *(
                    getattr(over, f) if getattr(over, f) is not None else getattr(base, g)
                    for f, g in (
                        ("updates_per_s", "updates"),
                        ("inserts_per_s", "inserts"),
                        ("deletes_per_s", "deletes"),
                        ("bytes_per_change", "bytes_per_change"),
                    )
                )
            )

        self.base_rates = base
        self.burst_rates = merged(w.before_restart) if w.before_restart else None
        self.burst_secs = w.before_restart.duration if w.before_restart else 0.0
        if self.burst_rates is not None:
            grown = (self.burst_rates.inserts - self.burst_rates.deletes) * self.burst_secs
            if self.rows and grown > 0.5 * self.rows:
                self.warnings.append(
                    f"workload.before_restart inserts {grown:,.0f} rows net, {grown / self.rows:.0%} of data.rows "
                    f"({self.rows:,.0f}): ndbsim models the data at its size at the crash throughout, so the "
                    "LCPs of the burst are sized as if the table had been that big all along; raise data.rows "
                    "or shorten the burst"
                )
        self.restart_rates = merged(w.during_restart)
        if self.s.restart.type == "system":
            # the whole cluster is down: no transaction runs until the system restart completes
            if w.during_restart is not None and self.restart_rates.rows > 0:
                self.warnings.append(
                    "workload.during_restart is ignored for a system restart: the cluster "
                    "runs no transactions until it has restarted"
                )
            self.restart_rates = Rates(bytes_per_change=base.bytes_per_change)
        share = 1.0 / self.groups
        base_rec, base_cycle, self.base_lcp_speed, self.base_redo_floor = self._steady(base, settled=True)
        self.base_steady = (base_rec, base_cycle)
        # The warm-up starts a few LCP cycles before the crash, in the steady state of the
        # rates in force then; the crash lands at a random (seeded) point of the cycle.
        drawn = float(self.rng.random())
        pinned = s_phase = self.s.simulation.lcp_phase
        phase = drawn if pinned is None else s_phase
        pre, self.steady, cycle = base, self.base_steady[0], base_cycle
        warm = 2.0 + phase
        if self.burst_rates is not None and self.burst_secs > 0:
            burst_steady, burst_cycle, _, _ = self._steady(self.burst_rates)
            if math.isfinite(burst_cycle) and self.burst_secs >= warm * burst_cycle:
                pre, self.steady, cycle = self.burst_rates, burst_steady, burst_cycle
        self.pre_rates = pre
        span = warm * cycle if math.isfinite(cycle) else 0.0
        if pre is base:
            self.t_crash = span + self.burst_secs
        else:
            self.t_crash = span
        # An idle cluster has no LCP cycle of its own; under a burst the restart must still
        # land at a random point of the LCP then running. That first LCP (full: everything;
        # partial: next to nothing, as nothing has changed yet) starts ``phase`` of its own
        # length before the crash, or as many whole lengths earlier as fit in the burst. A
        # full LCP longer than the burst began before it (an LCP started by earlier writes).
        self.first_lcp_start: float | None = None
        if pre is base and not math.isfinite(base_cycle) and self.burst_rates is not None and self.burst_secs > 0:
            size, _ = self.policy.lcp_size(self.data_bytes, self.rows, Changes())
            first = size / self.normal_write_speed(self.burst_rates) + self.lcp_overhead_secs()
            back = phase * first
            back += math.floor(max(0.0, self.burst_secs - back) / first) * first
            self.t_crash = max(self.t_crash, back)
            self.first_lcp_start = self.t_crash - back
        segments = [(0.0, pre)]
        if pre is base and self.burst_rates is not None and self.burst_secs > 0:
            segments.append((self.t_crash - self.burst_secs, self.burst_rates))
        segments.append((self.t_crash, self.restart_rates))
        self.traffic = Traffic(segments, share)
        if math.isfinite(cycle):
            rec = self.steady
            start = -(rec.end - rec.start)
            for n in self.nodes:
                n.history = [LcpRecord(start, 0.0, rec.pct, rec.changed_rows, rec.changed_bytes, rec.bytes)]
            self.last_lcp_start = start
        else:  # idle: the last LCP completed long ago and none is running
            for n in self.nodes:
                n.history = [LcpRecord(-math.inf, -math.inf, 1.0, 0.0, 0.0, self.data_bytes)]
            self.last_lcp_start = -math.inf

    def _steady(self, rates: Rates, settled: bool = False) -> tuple[LcpRecord, float, float, float]:
        """The steady LCP cycle under ``rates``: one LCP's record, the cycle's length, the LCP's
        write speed, and the least REDO a node keeps in it (EnableRedoControl speeds an LCP up only
        once the REDO has reached an alert level, so the level's share of the log, else 0).
        ``settled``: the rates have run long enough for
        EnableRedoControl to have acted on the REDO fill (the base load, which runs before the
        simulated time); a burst starts with the base's log and is simulated as it fills."""
        share = 1.0 / self.groups
        node_rates = Changes(rates.updates * share, rates.inserts * share, rates.deletes * share, rates.bytes * share)
        trigger = self.lcp_trigger_bytes / rates.bytes if rates.bytes > 0 else math.inf
        if trigger > self.s.simulation.horizon:  # an LCP cycle longer than the horizon: idle
            trigger = math.inf
        overhead = self.lcp_overhead_secs()

        def cycle_at(v: float) -> tuple[LcpRecord, float]:
            return self.policy.steady_state(self.data_bytes, self.rows, node_rates, v, overhead, trigger)

        speed = self.normal_write_speed(rates)
        floor = 0.0
        rec, cycle = cycle_at(speed)
        if settled and self.redo_control and self.redo_capacity:
            # EnableRedoControl (reference §2.4): while the REDO fills the log beyond an alert
            # level, the LCP writes faster; once an LCP has released REDO below the level, at
            # the normal speed again. So the fill hovers at the first level whose faster speed
            # can hold it there, and the cycle runs at the average of the two speeds that keeps
            # the level's share of the log (found by bisection); beyond the last level, at the
            # fastest speed.
            for level, faster in (
                (REDO_ALERT_HIGH, self.cfg["MaxDiskWriteSpeedOtherNodeRestart"]),
                (REDO_ALERT_CRITICAL, self.cfg["MaxDiskWriteSpeedOwnRestart"]),
            ):
                faster = min(faster, self.disk_write_left(rates))
                target = level * self.redo_capacity
                if self.steady_redo_bytes(rates, rec, cycle) <= target:
                    break
                floor = target
                if faster <= speed:  # this level's speed is no faster: the next level's may be
                    continue
                fast_rec, fast_cycle = cycle_at(faster)
                if self.steady_redo_bytes(rates, fast_rec, fast_cycle) > target:
                    speed, rec, cycle = faster, fast_rec, fast_cycle  # cannot hold this level: the next
                    continue
                lo, hi = speed, faster
                for _ in range(REDO_CONTROL_BISECTIONS):
                    mid = 0.5 * (lo + hi)
                    r, cy = cycle_at(mid)
                    if self.steady_redo_bytes(rates, r, cy) > target:
                        lo = mid
                    else:
                        hi = mid
                speed = hi
                rec, cycle = cycle_at(hi)
                break
        return rec, cycle, speed, floor

    def steady_redo_bytes(self, rates: Rates, rec: LcpRecord, cycle: float) -> float:
        """REDO a node keeps at worst in the steady LCP cycle: ``redo_lcps_kept`` cycles plus the
        running LCP, at the stream's rate (0 for an idle cluster)."""
        if not math.isfinite(cycle):
            return 0.0
        return rates.bytes / self.groups * (self.mech.redo_lcps_kept * cycle + (rec.end - rec.start))

    def live_load(self, rates: Rates) -> tuple[float, float, float]:
        """(cpu, disk, net) a node spends applying its share of the stream: each change is
        applied like a restored row, logged to REDO and sent to the other replicas."""
        share = 1.0 / self.groups
        cpu = rates.rows * share * self.k.restore_row_secs
        disk = rates.bytes * share / self.s.host.disk_write
        net = rates.bytes * share * (self.replicas - 1)
        return cpu, disk, net

    def live_loads(self, node: Node, rates: Rates | None) -> dict[str, float]:
        cpu, disk, net = self.live_load(rates) if rates else (0.0, 0.0, 0.0)
        return {node.cpu: cpu, node.disk: disk, node.net: net}

    def apply_live_load(self, node: Node, rates: Rates | None) -> None:
        self.fluid.set_fixed_loads(self.live_loads(node, rates))

    # -- LCP write speed ----------------------------------------------------------------
    def lcp_overhead_secs(self) -> float:
        """Per-LCP cost besides writing: one GCP must pass between LCPs, the LDM threads scan
        every row, and the table descriptions are written."""
        return self.gcp + self.lcp_scan_secs() / self.ldm_cores + self.table_description_secs

    def normal_write_speed(self, rates: Rates) -> float:
        """LCP write speed with no restart anywhere (memoised per workload segment's Rates)."""
        hit = self._normal_speeds.get(id(rates))
        if hit is not None and hit[0] is rates:
            return hit[1]
        speed = self._normal_write_speed(rates)
        self._normal_speeds[id(rates)] = (rates, speed)
        return speed

    def _normal_write_speed(self, rates: Rates) -> float:
        return min(self._configured_write_speed(rates), self.disk_write_left(rates))

    def _configured_write_speed(self, rates: Rates) -> float:
        cfg = self.cfg
        if self.mech.legacy_speed_parameters:
            return cfg["DiskCheckpointSpeed"]
        lo, hi = cfg["MinDiskWriteSpeed"], cfg["MaxDiskWriteSpeed"]
        if self.mech.adaptive_write_speed:
            # CPU feedback of Backup.cpp: up while the LDM threads are below 90% busy,
            # held between 90% and 95%, down above 95%.
            busy = self.live_load(rates)[0] / (self.s.host.core_speed * self.ldm)
            if busy > LDM_BUSY_BACK_OFF:
                return lo
            if busy > LDM_BUSY_HOLD:
                return 0.5 * (lo + hi)
        return hi

    def disk_write_left(self, rates: Rates) -> float:
        """Bytes/s an LCP can write beside the REDO the stream writes: no configured speed
        makes the disk faster (reference §3, T_LCP = D / W). At least 1 byte/s, so that a disk
        the REDO alone fills gives an endless LCP cycle (error 410), not a division by zero."""
        return max(1.0, self.s.host.disk_write * (1.0 - self.live_load(rates)[1]))

    def write_speed(self, node: Node) -> float:
        cfg = self.cfg
        rates = self.traffic.at(self.env._now)
        if self.mech.legacy_speed_parameters:
            return cfg["DiskCheckpointSpeedInRestart"] if node.restarting else cfg["DiskCheckpointSpeed"]
        if node.restarting:
            return cfg["MaxDiskWriteSpeedOwnRestart"]
        speed = self.normal_write_speed(rates)
        for n in self.nodes:
            if n.restarting:
                speed = max(speed, cfg["MaxDiskWriteSpeedOtherNodeRestart"])
                break
        if self.redo_control:
            level = self.redo_alert_level(node)
            if level == 2:
                speed = max(speed, cfg["MaxDiskWriteSpeedOwnRestart"])
            elif level == 1:
                speed = max(speed, cfg["MaxDiskWriteSpeedOtherNodeRestart"])
        return speed

    def lcp_scan_secs(self) -> float:
        """Core-seconds one LCP spends scanning every row for changed GCIs."""
        return self.rows * SCAN_ROW_SECS

    def lcp_flow(self, node: Node, size: float, speed: float, amount: float = 1.0) -> Flow:
        """One node's LCP as a flow of one unit: it writes ``size`` bytes at no more than
        ``speed`` and scans every row, each LDM thread its own fragments. ``amount`` < 1 is
        the part left of an LCP already under way."""
        cpu = self.lcp_scan_secs() + size * LCP_CPU_SECS_PER_BYTE
        flow = self.fluid.transfer(
            amount,
            {node.disk: size / self.s.host.disk_write, node.cpu: cpu},
            cap=self._lcp_cap(size, cpu, speed),
            name=f"lcp{node.id}",
        )
        flow.lcp_size = size
        return flow

    def _lcp_cap(self, size: float, cpu: float, speed: float) -> float:
        """An LCP's progress is capped by its write speed and by what its LDM threads get."""
        return min(speed / size if size > 0 else math.inf, self.ldm_cores / cpu if cpu > 0 else math.inf)

    def lcp_flow_cap(self, flow: Flow, speed: float) -> float:
        size = flow.lcp_size
        return self._lcp_cap(size, self.lcp_scan_secs() + size * LCP_CPU_SECS_PER_BYTE, speed)

    # -- REDO ---------------------------------------------------------------------------
    def redo_needed(self, node: Node, now: float | None = None) -> float:
        """REDO a node must keep: everything since the start of the oldest of the
        ``redo_lcps_kept`` newest completed LCPs."""
        oldest = self.oldest_kept(node)
        start = oldest.start if oldest else 0.0
        if node.redo_floor > start:
            start = node.redo_floor
        return self.redo_since(start, self.env.now if now is None else now)

    def oldest_kept(self, node: Node) -> LcpRecord | None:
        """The oldest LCP whose REDO the node still keeps (it keeps ``redo_lcps_kept``)."""
        hist = node.history
        return hist[min(self.mech.redo_lcps_kept, len(hist)) - 1] if hist else None

    def redo_since(self, start: float, now: float) -> float:
        """REDO one node logged from ``start`` to ``now``, including the steady state before
        simulated time 0 (the warm-up begins in it)."""
        tail = -start * self.pre_rates.bytes / self.groups if start < 0 and math.isfinite(start) else 0.0
        return self.traffic.redo_bytes(max(start, 0.0), now) + tail

    def redo_alert_level(self, node: Node) -> int:
        """EnableRedoControl's alert level for ``node``: 2 above REDO_ALERT_CRITICAL of the log,
        1 above REDO_ALERT_HIGH, else 0; or the level an alarm raised it to during this LCP."""
        fill = self.redo_fill(node)
        level = 2 if fill > REDO_ALERT_CRITICAL else 1 if fill > REDO_ALERT_HIGH else 0
        return max(level, node.redo_alert)

    def next_redo_alert(self, nodes: list[Node]) -> tuple[float, list[tuple[Node, int]]]:
        """When the next of ``nodes`` reaches an EnableRedoControl alert level above its own (the
        REDO a running LCP keeps only grows until it completes), and which nodes reach which
        level then; or when the stream's rate changes, with none. inf when neither happens."""
        now = self.env._now
        at = next((start for start, _ in self.traffic.segments if start > now), math.inf)
        rate = self.traffic.at(now).bytes / self.groups
        reach: list[tuple[Node, int]] = []
        if rate <= 0 or not self.redo_capacity:
            return at, reach
        for n in nodes:
            if n.down or n.redo_floor > now:
                continue  # logs no REDO now: its fill does not grow
            level = self.redo_alert_level(n)
            if level >= 2:
                continue
            target = (REDO_ALERT_CRITICAL if level == 1 else REDO_ALERT_HIGH) * self.redo_capacity
            t = now + max(0.0, target - self.redo_needed(n)) / rate
            if t < at:
                at, reach = t, [(n, level + 1)]
            elif t == at:
                reach.append((n, level + 1))
        return at, reach

    def redo_fill(self, node: Node) -> float:
        return self.redo_needed(node) / self.redo_capacity if self.redo_capacity else 0.0

    def note_redo(self, now: float | None = None) -> None:
        """Record the REDO the live nodes must keep now, if it is a new peak. A starting node
        is left out until its restart has completed an LCP: it logs nothing while down, 7.6
        activates its REDO logging only after the local LCP (reference §3), and its pre-crash
        log is released by that LCP; error 410 is a live node's problem."""
        if now is None:
            self.lcp.settle()
        seen = None
        for n in self.nodes:
            if n.down or n.restarting:
                continue
            oldest = self.oldest_kept(n)
            if oldest is seen and seen is not None:
                continue  # same LCPs kept as the previous node: same REDO
            seen = oldest
            need = self.redo_needed(n, now)
            if need > self.redo_peak_bytes:
                self.redo_peak_bytes = need

    # -- processes ------------------------------------------------------------------------
    def start(self) -> None:
        self.lcp.start()
        self.env.process(self._stream())

    def _stream(self) -> Generator[Event, Any, None]:
        """Live nodes apply the transaction stream throughout: a fixed load that changes only
        where the rates do (the burst, the restart). A restarting node takes its share again
        once it joins the transactions (the copy phase)."""
        for start, rates in self.traffic.segments:
            if start > self.env.now:
                yield self.env.timeout(start - self.env.now)
            loads: dict[str, float] = {}  # one reallocation for all nodes
            for n in self.nodes:
                if not n.restarting and not n.down:
                    loads.update(self.live_loads(n, rates))
            self.fluid.set_fixed_loads(loads)

    def node_changes_since(self, node: Node, t0: float, t1: float) -> Changes:
        """Changes a node has applied since ``t0`` (the pre-warm-up steady state included)."""
        c = self.traffic.changes(max(t0, 0.0), t1)
        if t0 < 0 and math.isfinite(t0):
            share = 1.0 / self.groups
            b = self.pre_rates
            c.updates += b.updates * share * -t0
            c.inserts += b.inserts * share * -t0
            c.deletes += b.deletes * share * -t0
            c.bytes += b.bytes * share * -t0
        return c

    def peers(self, node: Node) -> list[Node]:
        """The live nodes of ``node``'s node group, which it can copy from."""
        return [n for n in self.nodes if n.group == node.group and n is not node and not n.down and not n.restarting]
