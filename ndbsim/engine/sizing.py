"""The cluster's fixed figures, worked out once from the resolved scenario: its nodes and node
groups, the LDM threads and the cores they get, the data, the REDO log, the checkpoint policy,
and the CPU, disk and network one node spends on the live stream and on one LCP."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ndbsim.engine import fixed_costs
from ndbsim.engine.lcp.checkpoint import CheckpointPolicy, policy_for
from ndbsim.engine.workload import Rates
from ndbsim.input.features import Features
from ndbsim.input.profiles import LCP_CPU_SECS_PER_BYTE, SCAN_ROW_SECS, Constants
from ndbsim.input.scenario import Host, Resolved
from ndbsim.input.threads import ThreadLayout, core_equivalents
from ndbsim.input.threads import layout as thread_layout


@dataclass(frozen=True)
class Sizing:
    """Figures of one simulated cluster that no event changes."""

    host: Host
    k: Constants
    cfg: dict[str, Any]
    features: Features
    policy: CheckpointPolicy
    data_nodes: int
    replicas: int
    groups: int
    threads: ThreadLayout
    """The node's threads by NDB type (threads.py): LDM threads run the LCP, REDO and copy; LDM, query
    and recover threads restore."""
    ldm: int
    """LDM workers per node: the LDM threads, or the one worker a node without LDM threads runs in its
    receive thread (``ThreadLayout.ldm_workers``)."""
    tables: int
    fragments: int
    """Fragment replicas per node (``fixed_costs.fragments_per_node``)."""
    table_fragments: int
    """Fragment replicas of one table per node (``fixed_costs.table_fragments``)."""
    data_bytes: float
    rows: float
    max_rows: float
    """Rows DataMemory holds at this row size: inserts beyond it would fail (error 827)."""
    gcp: float
    """TimeBetweenGlobalCheckpoints in seconds."""
    redo_capacity: float
    lcp_trigger_bytes: float
    """REDO the stream writes between two LCPs' starts (TimeBetweenLocalCheckpoints, 4·2^n bytes)."""

    @cached_property
    def cpu_capacity(self) -> float:
        """Core-equivalents of all of one host's hardware threads."""
        return self.cores(self.host.cpu_cores * self.host.threads_per_core)

    @cached_property
    def ldm_cores(self) -> float:
        """What the LDM threads get from the cores (constant for a cluster)."""
        return self.cores(self.ldm)

    def cores(self, threads: float) -> float:
        """Core-equivalents ``threads`` threads of one host get (hyperthreads count
        ``hyperthread_gain``), at the host's ``core_speed``."""
        h = self.host
        return core_equivalents(threads, h.cpu_cores, h.threads_per_core, self.k.hyperthread_gain) * h.core_speed

    def live_load(self, rates: Rates) -> tuple[float, float, float]:
        """(cpu, disk, net) a node spends applying its share of the stream: each change is
        applied like a restored row, logged to REDO and sent to the other replicas."""
        share = 1.0 / self.groups
        cpu = rates.rows * share * self.k.restore_row_secs
        disk = rates.bytes * share / self.host.disk_write
        net = rates.bytes * share * (self.replicas - 1)
        return cpu, disk, net

    def lcp_scan_secs(self) -> float:
        """Core-seconds one LCP spends scanning every row for changed GCIs."""
        return self.rows * SCAN_ROW_SECS

    @cached_property
    def lcp_fixed_secs(self) -> float:
        """Each LCP's fixed time: every fragment's file requests, one fragment at a time per LDM thread,
        where not hidden behind the LCP's own scan and writes, and every table's description
        (``fixed_costs.lcp_round_secs``)."""
        return fixed_costs.lcp_round_secs(
            self.tables,
            self.fragments,
            self.ldm,
            self.features.partial_lcp,
            self.host.disk_latency,
            self._lcp_least_secs(),
        )

    def _lcp_least_secs(self) -> float:
        """The least time an LCP spends scanning and writing, per LDM thread: the row scan, and for a
        full LCP every byte at the configured speed (the fixed per-fragment file work hides behind it)."""
        scan = self.lcp_scan_secs() / max(1e-9, self.ldm_cores)
        if self.features.partial_lcp:  # its size depends on the changes
            return scan
        cfg = self.cfg
        speed = cfg["DiskCheckpointSpeed"] if self.features.legacy_speed_parameters else cfg["MaxDiskWriteSpeed"]
        return scan + self.data_bytes / speed

    @cached_property
    def lcp_overhead_secs(self) -> float:
        """Per-LCP cost besides writing: one GCP must pass between LCPs, the LDM threads scan
        every row, and the fixed per-fragment and per-table work is done (``lcp_fixed_secs``)."""
        return self.gcp + self.lcp_scan_secs() / self.ldm_cores + self.lcp_fixed_secs

    def lcp_cpu(self, size: float) -> float:
        """Core-seconds of one node's LCP that writes ``size`` bytes."""
        return self.lcp_scan_secs() + size * LCP_CPU_SECS_PER_BYTE

    def lcp_cap(self, size: float, speed: float) -> float:
        """An LCP's progress is capped by its write speed and by what its LDM threads get."""
        cpu = self.lcp_cpu(size)
        return min(speed / size if size > 0 else math.inf, self.ldm_cores / cpu if cpu > 0 else math.inf)


def sizing_of(resolved: Resolved, features: Features) -> Sizing:
    s, cfg = resolved.scenario, resolved.config
    h = s.host
    replicas = cfg["NoOfReplicas"]
    threads = thread_layout(cfg, features.multithreaded, features.query_threads, h.cpu_cores * h.threads_per_core)
    data_bytes, rows = s.data.size, s.data.row_count
    per_table = fixed_costs.table_fragments(cfg, threads.ldm_workers, replicas, features.query_threads)
    fragments = fixed_costs.fragments_per_node(s.data.table_count, per_table)

    return Sizing(
        host=h,
        k=resolved.profile.constants,
        cfg=cfg,
        features=features,
        policy=policy_for(cfg, features, s.data.lcp_tables, data_bytes / max(1, fragments)),
        data_nodes=s.cluster.data_nodes,
        replicas=replicas,
        groups=s.cluster.data_nodes // replicas,
        threads=threads,
        ldm=threads.ldm_workers,
        tables=s.data.table_count,
        fragments=fragments,
        table_fragments=per_table,
        data_bytes=data_bytes,
        rows=rows,
        max_rows=cfg["DataMemory"] / (data_bytes / rows) if rows else math.inf,
        gcp=cfg["TimeBetweenGlobalCheckpoints"] / 1000.0,
        redo_capacity=cfg["NoOfFragmentLogParts"] * cfg["NoOfFragmentLogFiles"] * cfg["FragmentLogFileSize"],
        lcp_trigger_bytes=4.0 * 2 ** cfg["TimeBetweenLocalCheckpoints"],
    )
