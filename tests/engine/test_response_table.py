"""The response table: one thing varied at a time, as an NDB engineer would, and the direction
(and, where NDB's source or docs give one, the size) the restart must move in.

Every row can fail: it runs on a base where its parameter binds (a disk-bound base for a disk
row, a loaded base for a REDO or change-size row) and its figure must move. A row that fails
is a mechanism to fix, not a row to weaken; a parameter that moves nothing on any sensible
base is a model finding, not a row to fake.

The row format (``Row``), to add a row for a new mechanism::

    Row(base, key, old, new, expect, metric=TOTAL, band=None, also=(), by=0.0, why="", every_phase=False)

- ``base``: a name in ``BASES`` (a scenario file plus overrides); add a base where the new
  parameter binds rather than reuse one where it does not.
- ``key``, ``old``, ``new``: the dotted override moved (``cluster.config.X``, ``host.x``, ...).
- ``metric``: ``total_restart_secs`` (``TOTAL``) or a restart_info phase of the slowest node.
- ``expect``: ``up`` / ``down``: the metric moves that way by at least ``by`` (relative) and by
  more than the noise slack (``TOLERANCE``, ``ABS_TOLERANCE``); ``not_much_up`` /
  ``not_much_down``: it moves (beyond the slack) but never that way by more than ``MUCH``;
  ``none``: "no effect here", it stays within the slack, and ``why`` must name the NDB source
  file (``SOURCE``) that says so.
- ``by``: required (> 0) on up/down rows; ``why``: required on every row, saying why the
  parameter binds on this base (and so why ``by``), or the source of a ``none``.
- ``band``: bounds of new/old where NDB's source or docs give a size.
- ``also``: overrides on both sides; ``every_phase``: no phase of any node (waits as the time
  they end) and not the total moves against ``expect`` either.

``python tests/engine/test_response_table.py`` prints the table with today's figures.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

import ndbsim
from ndbsim.input.restart_info import PHASES as PHASE_ORDER

ROOT = Path(__file__).resolve().parents[2]
S75 = "scenarios/dbt2-600wh-7.5.10.yaml"
S76 = "scenarios/dbt2-600wh-7.6.6.yaml"
SR = "scenarios/system-restart-7.6.yaml"
ROLL = "scenarios/rolling-4-nodes-8.0.yaml"
I70 = "scenarios/mysql70-6gb-initial.yaml"
LAB = "scenarios/lab-2node-7.5.4-tiny.yaml"
THREE = "tests/data/three-replicas-8.4.3.yaml"

BASES: dict[str, tuple[str, tuple[str, ...]]] = {
    "7.5 node": (S75, ()),
    "7.5 node, updates": (S75, ("workload.updates_per_s=20000", "workload.during_restart.updates_per_s=20000")),
    "7.6 node": (S76, ()),
    "7.6 node, updates": (S76, ("workload.updates_per_s=20000", "workload.during_restart.updates_per_s=20000")),
    "7.6 node, burst": (S76, ("cluster.config.DataMemory=100G", "workload.before_restart.inserts_per_s=50000")),
    "8.0 node, updates": (
        S76,
        ("version=8.0.35", "workload.updates_per_s=20000", "workload.during_restart.updates_per_s=20000"),
    ),
    "8.0 node, 4KB updates": (
        S76,
        (
            "version=8.0.35",
            "workload.updates_per_s=20000",
            "workload.during_restart.updates_per_s=20000",
            "workload.bytes_per_change=4KB",
        ),
    ),
    "8.0 node, LDM threads saturated": (
        S76,
        (
            "version=8.0.35",
            "cluster.config.MaxNoOfExecutionThreads=4",
            "workload.updates_per_s=660000",
            "workload.during_restart.updates_per_s=20000",
            "cluster.config.NoOfFragmentLogFiles=256",
            "simulation.replications=8",
        ),
    ),
    "8.0 node, no redo control": (
        S76,
        (
            "version=8.0.35",
            "workload.updates_per_s=20000",
            "workload.during_restart.updates_per_s=20000",
            "cluster.config.EnableRedoControl=false",
        ),
    ),
    "7.5 system": (SR, ("version=7.5.10",)),
    "7.6 system": (SR, ()),
    "8.0 system": (SR, ("version=8.0.35",)),
    "7.6 initial": (S76, ("restart.type=initial",)),
    "7.0 initial": (I70, ()),
    "8.0 rolling": (ROLL, ("simulation.replications=1",)),
    "8.0 today": (
        ROLL,
        (
            "cluster.config.AutomaticThreadConfig=true",
            "data.size=40GB",
            "data.rows=200M",
            "data.tables=150",
            "data.ordered_indexes=320",
            "workload.updates_per_s=20000",
            "workload.inserts_per_s=2000",
            "workload.deletes_per_s=1000",
            "simulation.replications=3",
        ),
    ),
    "7.5 lab": (LAB, ()),
    "8.0 rolling, 3 replicas": (
        ROLL,
        ("simulation.replications=1", "cluster.data_nodes=6", "cluster.config.NoOfReplicas=3", "host.cpu_cores=16"),
    ),
    "8.4 node, 3 replicas, disk data": (
        THREE,
        ("data.disk_data_size=250G", "restart.type=node", "simulation.replications=1"),
    ),
    "7.6 node, disk data": (
        S76,
        (
            "workload.updates_per_s=20000",
            "workload.during_restart.updates_per_s=20000",
            "data.disk_data_size=200G",
            "cluster.config.DiskPageBufferMemory=16G",
        ),
    ),
    "8.0 node, disk data": (
        S76,
        (
            "version=8.0.35",
            "workload.updates_per_s=20000",
            "workload.during_restart.updates_per_s=20000",
            "data.disk_data_size=200G",
            "cluster.config.DiskPageBufferMemory=16G",
        ),
    ),
    "7.5 node, disk data": (
        S75,
        (
            "workload.updates_per_s=20000",
            "workload.during_restart.updates_per_s=20000",
            "data.disk_data_size=200G",
            "cluster.config.DiskPageBufferMemory=16G",
        ),
    ),
    "8.0 today, 5 ms disk": (
        ROLL,
        (
            "cluster.config.AutomaticThreadConfig=true",
            "data.size=40GB",
            "data.rows=200M",
            "data.tables=150",
            "data.ordered_indexes=320",
            "workload.updates_per_s=20000",
            "workload.inserts_per_s=2000",
            "workload.deletes_per_s=1000",
            "simulation.replications=1",
            "host.disk_latency=5ms",
        ),
    ),
}
"""Base scenarios: 7.5, 7.6 and 8.0, and every restart type (node, initial, system, rolling)."""

TOTAL = "total_restart_secs"

WAITS = (
    "secs_to_include_in_heartbeat_protocol",
    "secs_wait_for_ndbcntr_master",
    "secs_to_wait_for_lcp_for_copy_meta_data",
    "secs_to_include_node",
    "secs_wait_lcp_for_restart",
)
"""Phases that queue at a one-at-a-time gate or wait for the cluster's next GCP or LCP rather
than work (reference §1.1, §1.4). A wait may grow when the node reaches it sooner: an
``every_phase`` row holds for the time at which the wait ends."""

ROWS_FOLLOW = ("data.rows=null",)
"""The rows follow data.size at data.row_size, so that more data is more rows."""


FULL_LCP_LINEAR = (1.8, 2.2)
"""A full LCP writes every row (reference §3): its duration, and the wait for it, double with
the data (within the fixed per-LCP costs)."""

TABLE_1 = "[{name: big, rows: 300M, size: 60GB, ordered_indexes: 10}]"
TABLE_1000 = TABLE_1[:-1] + "".join(f", {{name: t{i}, rows: 0, ordered_indexes: 0}}" for i in range(999)) + "]"


@dataclass(frozen=True)
class Row:
    base: str
    key: str
    old: str
    new: str
    expect: str
    """One of ``EXPECT``: up / down (moves that way by at least ``by``), not_much_up /
    not_much_down (moves, but never that way by more than ``MUCH``), none (does not move: a
    "no effect here" row, whose ``why`` cites NDB's source)."""
    metric: str = TOTAL
    band: tuple[float, float] | None = None
    """Bounds of new/old where NDB's source or docs give a size."""
    also: tuple[str, ...] = ()
    """Overrides on both sides (e.g. data.rows=null, so that the rows follow data.size)."""
    by: float = 0.0
    """An up/down row's least relative move of ``metric`` (0.2: by at least 20%)."""
    why: str = ""
    """Why the parameter binds on this base and moves the figure by at least ``by``; for a
    ``none`` row, the NDB source (file and function) that says it has no effect here."""
    every_phase: bool = False
    """Also: no restart_info phase of any node (waits as the time at which they end, ``WAITS``)
    and not the total moves against ``expect``."""

    @property
    def id(self) -> str:
        return f"{self.base}: {self.key} {_short(self.old)}->{_short(self.new)} [{self.metric}]"


EXPECT = ("up", "down", "not_much_up", "not_much_down", "none")
DIRECTIONAL = ("up", "down", "not_much_up", "not_much_down")

SOURCE = re.compile(r"\w+\.(cpp|hpp)\b")
"""What a ``none`` row's why must name: a file of NDB's source."""

DISK_BOUND = "restore reads its LCP files at host.disk_read: halving the read time halves the phase"
NET_BOUND = (
    "the copy ships its rows over host.network, which binds below about 0.5 Gbit/s on these hosts "
    "(the copy is LDM-CPU-bound at 1 Gbit/s and above: faster links move nothing there)"
)
MORE_LDM = "8 -> 16 threads doubles the LDM threads, which restore, apply REDO and rebuild fragment by fragment"

SMALL_FRAGMENTS = ("cluster.config.PartitionsPerNode=4",)
"""8.0 today's AutomaticThreadConfig turns ClassicFragmentation off (PartitionsPerNode 2): 4 per node
gives each of its 4 LDM threads a fragment of every table, as the classic layout would, fragments
small enough that the LCP cycle's chain of data files shows in the restore."""

FAST_TOUCH = "host.memory_touch_rate=1TB/s"
"""A memory touch too fast to count: rows about what a bigger DiskPageBufferMemory does to the copy,
the UNDO apply and the LCP hold aside the touch of the buffer itself (ndbd.cpp,
init_global_memory_manager), which has its own rows."""

ROWS = [
    # --- bigger changes, smaller logs and slower LCPs never buy a faster restart -----------------
    Row(
        "8.0 node, updates",
        "workload.bytes_per_change",
        "200B",
        "4KB",
        "up",
        by=0.03,
        why="20x the REDO bytes per change: more REDO to execute and a fuller log at the crash",
    ),
    Row(
        "7.6 node, updates",
        "workload.bytes_per_change",
        "200B",
        "4KB",
        "up",
        by=0.1,
        why="7.6.6 has no EnableRedoControl: the LCP keeps MaxDiskWriteSpeed while 20x the REDO accumulates",
    ),
    Row(
        "7.5 node, updates",
        "workload.bytes_per_change",
        "200B",
        "4KB",
        "up",
        "secs_exec_redo_log",
        by=0.5,
        why="20x the REDO bytes per change to read and apply (the 7.5 total ends at an LCP boundary, so "
        "the REDO phase is the figure that moves)",
    ),
    # a REDO stream the LCPs cannot keep below 40% of the log holds it at an alert level: the
    # REDO a restart applies is that share of the log (Backup.cpp change_alert_state_redo_percent:
    # beyond 40% "extends the time to recover at a restart substantially")
    Row(
        "8.0 node, 4KB updates",
        "cluster.config.NoOfFragmentLogFiles",
        "64",
        "16",
        "down",
        "secs_exec_redo_log",
        by=0.3,
        why="at the alert level the REDO a restart applies is a share of the log: a quarter of the log",
    ),
    Row(
        "8.0 node, 4KB updates",
        "cluster.config.NoOfFragmentLogFiles",
        "32",
        "16",
        "not_much_down",
        why="80 MB/s of REDO fills the log: EnableRedoControl holds it at an alert level",
    ),
    Row(
        "8.0 node, 4KB updates",
        "cluster.config.NoOfFragmentLogFiles",
        "32",
        "8",
        "not_much_down",
        why="80 MB/s of REDO fills the log: EnableRedoControl holds it at an alert level (at 8 files the "
        "log overflows, error 410, the run's status; the restart itself is barely shorter)",
    ),
    Row(
        "8.0 node, 4KB updates",
        "cluster.config.FragmentLogFileSize",
        "128M",
        "32M",
        "not_much_down",
        why="80 MB/s of REDO fills the log: EnableRedoControl holds it at an alert level (at 32M files the "
        "log overflows, error 410, the run's status; the restart itself is barely shorter)",
    ),
    Row(
        "8.0 node, 4KB updates",
        "cluster.config.NoOfFragmentLogFiles",
        "16",
        "3",
        "up",
        by=1.0,
        why=(
            "80 MB/s of REDO fills the log: EnableRedoControl holds it at an alert level (Backup.cpp "
            "change_alert_state_redo_percent); at 3 files it overflows (error 410): the restart does not "
            "complete, and a restart that stops has no total that could rank as faster"
        ),
    ),
    Row(
        "8.0 node, 4KB updates",
        "cluster.config.MaxDiskWriteSpeed",
        "12M",
        "8M",
        "none",
        why="EnableRedoControl's proposal leads: it raises the maximum the LCP writes at above "
        "MaxDiskWriteSpeed (Backup.cpp measure_change_speed, set_proposed_disk_write_speed)",
    ),
    Row(
        "8.0 node, LDM threads saturated",
        "cluster.config.MinDiskWriteSpeed",
        "2M",
        "10M",
        "none",
        why="the live load keeps the 2 LDM threads over 95% busy, so Backup.cpp's CPU feedback holds the "
        "LCP at MinDiskWriteSpeed (calculate_current_speed_bounds, adjust_disk_write_speed_down) only until "
        "the REDO reaches an EnableRedoControl alert level, which raises it (set_redo_alert_factor, "
        "set_proposed_disk_write_speed); the REDO hovers at the critical level (60% of the log), so "
        "EnableRedoControl sets every LCP's speed once the log has filled. MinDiskWriteSpeed sets only the "
        "LCPs before that, which moves where in the cycle the crash lands: one replication moves with it "
        "(2M -> 10M, the first: 2080 -> 2105 s, its newest LCP 490 -> 511 s old at the crash), the 8 "
        "replications across the cycle do not",
    ),
    Row(
        "8.0 node, no redo control",
        "cluster.config.MaxDiskWriteSpeed",
        "20M",
        "10M",
        "up",
        by=0.1,
        why="without EnableRedoControl the LCP writes at MaxDiskWriteSpeed: a longer cycle, more REDO to execute",
    ),
    Row(
        "8.0 node, no redo control",
        "workload.updates_per_s",
        "20000",
        "40000",
        "up",
        by=0.05,
        why="without EnableRedoControl the LCP keeps its speed: twice the REDO per cycle to execute",
    ),
    Row(
        "8.0 node, updates",
        "workload.updates_per_s",
        "20000",
        "40000",
        "none",
        why="EnableRedoControl proposes the LCP speed from the change rate, so twice the changes are "
        "checkpointed twice as fast and the REDO a restart applies stays put (Backup.cpp "
        "measure_change_speed, set_proposed_disk_write_speed)",
    ),
    Row(
        "7.6 node, updates",
        "cluster.config.MaxDiskWriteSpeedOtherNodeRestart",
        "100M",
        "50M",
        "up",
        by=0.1,
        why="the LCP the node waits for writes at MaxDiskWriteSpeedOtherNodeRestart (Backup.cpp "
        "calculate_current_speed_bounds)",
    ),
    # --- the system restart's LCP before transactions start (DbdihMain.cpp ZNDB_SPH5) -----------
    Row(
        "7.5 system",
        "data.size",
        "30GB",
        "60GB",
        "up",
        "secs_wait_lcp_for_restart",
        FULL_LCP_LINEAR,
        ROWS_FOLLOW,
        by=0.8,
        why="the full LCP writes every byte",
    ),
    Row(
        "7.5 system",
        "data.rows",
        "300M",
        "600M",
        "none",
        "secs_wait_lcp_for_restart",
        why="at the same bytes a full LCP is as long: the write-speed cap counts the words written per "
        "100 ms period (Backup.hpp m_words_written_this_period, Backup.cpp calculate_current_speed_bounds)",
    ),
    Row(
        "7.6 system",
        "data.size",
        "30GB",
        "60GB",
        "up",
        "secs_wait_lcp_for_restart",
        also=ROWS_FOLLOW,
        by=0.5,
        why="the LCP before transactions start writes every fragment",
    ),
    Row(
        "8.0 system",
        "data.size",
        "30GB",
        "60GB",
        "up",
        "secs_wait_lcp_for_restart",
        also=ROWS_FOLLOW,
        by=0.5,
        why="the LCP before transactions start writes every fragment",
    ),
    Row(
        "7.5 system",
        "cluster.config.MaxDiskWriteSpeedOwnRestart",
        "200M",
        "400M",
        "down",
        "secs_wait_lcp_for_restart",
        (0.45, 0.55),
        by=0.45,
        why="a full LCP of a restarting cluster writes at MaxDiskWriteSpeedOwnRestart: twice the speed, half the time",
    ),
    Row(
        "7.6 system",
        "workload.updates_per_s",
        "10000",
        "100000",
        "up",
        "secs_exec_redo_log",
        by=1.0,
        why="REDO since the last LCP grows with the update rate",
    ),
    Row(
        "7.6 system",
        "restart.cause",
        "crash",
        "host-failure",
        "none",
        "secs_to_complete_node_failure",
        why="in a system restart every node stopped: no live node detects the failure by heartbeats "
        "(QmgrMain.cpp execDISCONNECT_REP / the heartbeat check run on live nodes only)",
    ),
    # --- a burst contributes only what it wrote (Backup.cpp design bound) -----------------------
    Row(
        "7.6 node, burst",
        "workload.before_restart.duration",
        "5m",
        "8m",
        "up",
        "secs_restore_fragments",
        by=0.03,
        why="more inserted rows in the partial LCPs the node restores",
    ),
    Row(
        "7.6 node, burst",
        "workload.before_restart.duration",
        "20m",
        "2h",
        "up",
        "secs_restore_fragments",
        by=0.2,
        why="more inserted rows in the partial LCPs the node restores",
    ),
    Row(
        "7.6 node, burst",
        "workload.before_restart.duration",
        "2h",
        "4h",
        "none",
        "secs_restore_fragments",
        why="a 2 h burst already rewrote every row; a fragment's LCP files never exceed (1 + p) x its "
        "data + 12.5% (Backup.cpp, the partial LCP design comment before calculate_number_of_parts)",
    ),
    Row(
        "7.6 node, burst",
        "workload.before_restart.duration",
        "8m",
        "20m",
        "up",
        "secs_restore_fragments",
        by=0.05,
        why="more inserted rows in the partial LCPs the node restores",
    ),
    # --- schema: skew, tables and indexes -------------------------------------------------------
    Row(
        "7.6 node",
        "data.tables",
        TABLE_1,
        TABLE_1000,
        "none",
        "secs_index_rebuild",
        why="999 empty tables without ordered indexes give the rebuild nothing: Dblqh::rebuildOrderedIndexes "
        "builds the ordered indexes only, one at a time per LDM (DblqhMain.cpp)",
    ),
    Row(
        "7.6 node",
        "data.ordered_indexes",
        "10",
        "20",
        "up",
        "secs_index_rebuild",
        (1.8, 2.2),
        by=0.8,
        why="every ordered index is rebuilt from every row",
    ),
    Row(
        "7.5 node",
        "data.ordered_indexes",
        "10",
        "20",
        "up",
        "secs_index_rebuild",
        (1.8, 2.2),
        by=0.8,
        why="every ordered index is rebuilt from every row",
    ),
    Row(
        "7.6 node",
        "cluster.config.BuildIndexThreads",
        "128",
        "0",
        "up",
        "secs_index_rebuild",
        by=0.2,
        why="with 0 the build runs in the LDM threads, not on every core's idxbld threads",
    ),
    Row(
        "7.6 node",
        "data.tables",
        "9",
        "100",
        "up",
        "secs_to_copy_meta_data",
        by=1.0,
        why="the metadata copy ships each table's definition",
    ),
    # --- per-object fixed costs (issue 28): at fixed data, more tables (fragments) and more ordered
    # indexes cost more; each file request waits host.disk_latency, which a small node feels most
    Row(
        "8.0 today",
        "data.tables",
        "150",
        "1500",
        "up",
        also=("data.ordered_indexes=0",),
        by=0.2,
        why="10x the fragments: file opens, table-definition writes and metadata per table",
    ),
    Row(
        "7.6 node",
        "data.tables",
        "9",
        "900",
        "up",
        also=("data.ordered_indexes=0",),
        by=0.1,
        why="100x the fragments: file opens, table-definition writes and metadata per table",
    ),
    Row("8.0 today", "data.ordered_indexes", "150", "300", "up", by=0.1, why="twice the indexes to rebuild"),
    Row(
        "7.5 lab",
        "host.disk_latency",
        "1ms",
        "20ms",
        "up",
        band=(1.10, 3.0),
        by=0.1,
        why="a tiny restart is mostly file requests, each waiting the latency",
    ),
    Row(
        "7.6 node",
        "host.disk_latency",
        "1ms",
        "20ms",
        "not_much_up",
        band=(1.0, 1.05),
        why="file requests are a small share of a 60 GB restart",
    ),
    # --- the restore after today's LCP cycle (issue 28): rule 1 keeps the CHANGE rows near p/2 x
    # the rows whatever the cycle (Backup.cpp calculate_min_parts); a shorter cycle is a longer
    # chain of data files, one per part pair (restore.cpp), so at most a little slower; rule 3 caps
    # the chain of a small fragment at its pages (2048 / max_page_count parts)
    Row(
        "8.0 today",
        "cluster.config.MaxDiskWriteSpeed",
        "20M",
        "80M",
        "not_much_up",
        "secs_restore_fragments",
        (0.95, 1.05),
        SMALL_FRAGMENTS,
        why="a 4x faster LCP cycle lengthens the chain of data files a restore opens",
    ),
    Row(
        "8.0 today",
        "cluster.config.MaxDiskWriteSpeed",
        "10M",
        "160M",
        "not_much_up",
        also=SMALL_FRAGMENTS,
        why="a 16x faster LCP cycle lengthens the chain of data files a restore opens",
    ),
    Row(
        "8.0 today",
        "data.size",
        "20GB",
        "40GB",
        "up",
        "secs_restore_fragments",
        (1.0, 2.0),
        ("host.disk_read=500MB/s",),
        by=0.05,
        why="more bytes to read at the same rows, at a host.disk_read where the reads bind (at 2 GB/s the "
        "200M rows bind, and 8.0.23's PartitionsPerNode layout gives 40 GB fragments fewer LCP files)",
    ),
    Row(
        "8.0 today",
        "data.rows",
        "200M",
        "215M",
        "up",
        "secs_restore_fragments",
        (1.0, 1.10),
        by=0.03,
        why="7.5% more rows to restore, each at its per-row cost",
    ),
    # --- failure detection: a crashed process closes its sockets, a dead host does not -----------
    Row(
        "7.6 node",
        "restart.cause",
        "crash",
        "host-failure",
        "up",
        "secs_to_complete_node_failure",
        by=1.0,
        why="a dead host is found by 4 missed heartbeats",
    ),
    Row(
        "7.5 node",
        "restart.cause",
        "planned",
        "crash",
        "none",
        "secs_to_complete_node_failure",
        why="both close the node's sockets: the live nodes fail it at once (QmgrMain.cpp execDISCONNECT_REP)",
    ),
    Row(
        "8.0 rolling",
        "restart.cause",
        "crash",
        "network-failure",
        "up",
        "secs_to_complete_node_failure",
        by=1.0,
        why="a cut network is found by 4 missed heartbeats",
    ),
    # --- data size ------------------------------------------------------------------------------
    Row(
        "7.5 node",
        "data.size",
        "30GB",
        "60GB",
        "up",
        "secs_restore_fragments",
        FULL_LCP_LINEAR,
        ROWS_FOLLOW,
        by=0.8,
        why="a full LCP holds every row once",
    ),
    Row(
        "7.5 node",
        "data.size",
        "30GB",
        "60GB",
        "up",
        "secs_wait_lcp_for_restart",
        also=ROWS_FOLLOW,
        by=0.5,
        why="the full LCP the node waits for writes every byte",
    ),
    Row(
        "7.6 node",
        "data.size",
        "30GB",
        "60GB",
        "up",
        "secs_restore_fragments",
        also=ROWS_FOLLOW,
        by=0.3,
        why="the partial LCPs hold every row at least once",
    ),
    Row(
        "7.6 initial",
        "data.size",
        "30GB",
        "60GB",
        "up",
        "secs_to_synchronize_starting_node",
        also=ROWS_FOLLOW,
        by=0.8,
        why="an initial restart copies every row",
    ),
    Row("7.0 initial", "data.size", "3GB", "6GB", "up", also=ROWS_FOLLOW, by=0.5, why="every row is copied"),
    Row("8.0 rolling", "data.size", "20GB", "40GB", "up", by=0.3, why="every node restores twice the data"),
    Row(
        "7.6 node",
        "cluster.config.DataMemory",
        "65G",
        "130G",
        "up",
        "secs_memory_touch",
        (1.9, 2.1),
        by=0.9,
        why="every page is touched at start",
    ),
    # --- RecoveryWork: restore overhead p/2 (Backup.cpp); docs: RW 40 restores 10-15% faster ---
    Row(
        "7.6 node, updates",
        "cluster.config.RecoveryWork",
        "60",
        "40",
        "down",
        "secs_restore_fragments",
        (0.80, 0.95),
        by=0.05,
        why="the docs: RecoveryWork 40 restores 10-15% faster",
    ),
    Row(
        "7.6 node, updates",
        "cluster.config.RecoveryWork",
        "25",
        "100",
        "up",
        "secs_restore_fragments",
        by=0.2,
        why="the LCP files hold up to (1 + p) x the data: p from 0.25 to 1",
    ),
    # --- faster disks, network, cores and more LDM threads never slow any phase: each on a base
    # where it binds (a disk or link the phase saturates), the phase it binds moving by `by`
    Row(
        "7.5 node",
        "host.disk_read",
        "100MB/s",
        "200MB/s",
        "down",
        "secs_restore_fragments",
        by=0.4,
        why=DISK_BOUND,
        every_phase=True,
    ),
    Row(
        "7.6 node, updates",
        "host.disk_read",
        "100MB/s",
        "200MB/s",
        "down",
        "secs_restore_fragments",
        by=0.4,
        why=DISK_BOUND,
        every_phase=True,
    ),
    Row(
        "8.0 node, updates",
        "host.disk_write",
        "50MB/s",
        "100MB/s",
        "down",
        by=0.3,
        why="the LCPs and the REDO share host.disk_write: at 50 MB/s the LCP cannot keep pace (not every phase: "
        "the faster LCPs leave a longer chain of partial LCP files, restore 198 -> 211 s, within MUCH)",
    ),
    Row(
        "7.6 system",
        "host.disk_read",
        "100MB/s",
        "200MB/s",
        "down",
        "secs_restore_fragments",
        by=0.4,
        why=DISK_BOUND,
        every_phase=True,
    ),
    Row(
        "7.6 node, updates",
        "host.network",
        "100Mbit/s",
        "200Mbit/s",
        "down",
        "secs_to_synchronize_starting_node",
        by=0.3,
        why=NET_BOUND,
        every_phase=True,
    ),
    Row(
        "7.6 initial",
        "host.network",
        "100Mbit/s",
        "200Mbit/s",
        "down",
        "secs_to_synchronize_starting_node",
        (0.45, 0.55),
        by=0.45,
        why=NET_BOUND,
        every_phase=True,
    ),
    Row(
        "8.0 rolling",
        "host.network",
        "100Mbit/s",
        "200Mbit/s",
        "down",
        "secs_to_synchronize_starting_node",
        by=0.3,
        why=NET_BOUND,
        every_phase=True,
    ),
    Row(
        "7.5 node",
        "cluster.config.MaxNoOfExecutionThreads",
        "8",
        "16",
        "down",
        "secs_restore_fragments",
        by=0.3,
        why=MORE_LDM + " (the 7.5 total ends at an LCP boundary)",
        every_phase=True,
    ),
    Row(
        "7.6 node, updates",
        "cluster.config.MaxNoOfExecutionThreads",
        "8",
        "16",
        "down",
        by=0.2,
        why=MORE_LDM,
        every_phase=True,
    ),
    Row(
        "8.0 rolling",
        "cluster.config.MaxNoOfExecutionThreads",
        "8",
        "16",
        "down",
        by=0.2,
        why=MORE_LDM,
        every_phase=True,
    ),
    Row(
        "7.6 system",
        "cluster.config.MaxNoOfExecutionThreads",
        "8",
        "16",
        "down",
        by=0.2,
        why=MORE_LDM,
        every_phase=True,
    ),
    Row(
        "7.0 initial",
        "host.core_speed",
        "0.55",
        "1.1",
        "down",
        by=0.2,
        every_phase=True,
        why="the 7.0 copy and rebuild run on the cores",
    ),
    Row(
        "7.6 node, updates",
        "host.core_speed",
        "1",
        "2",
        "down",
        by=0.2,
        every_phase=True,
        why="restore, REDO and rebuild are CPU-bound on a 2 GB/s disk",
    ),
    # --- traffic during the restart ------------------------------------------------------------
    Row(
        "7.6 node",
        "workload.during_restart.updates_per_s",
        "0",
        "20000",
        "up",
        "secs_to_synchronize_starting_node",
        by=1.0,
        why="the copy ships the changed rows and the node applies the live stream",
    ),
    Row("8.0 rolling", "workload.updates_per_s", "20000", "40000", "up", by=0.03, why="more REDO and more to copy"),
    Row(
        "7.6 node, updates",
        "restart.downtime",
        "0",
        "10m",
        "up",
        "secs_to_synchronize_starting_node",
        by=0.5,
        why="ten minutes of changes to ship",
    ),
    # --- two starting nodes of a node group copy one after the other (issue 48) -------------------
    Row(
        "8.0 rolling, 3 replicas",
        "restart.plan",
        "per-node-group",
        "[[1, 2, 4, 5], [3, 6]]",
        "up",
        "node 2: secs_to_synchronize_starting_node",
        (1.8, 2.6),
        ("workload.updates_per_s=5000", "data.size=160GB", "cluster.config.DataMemory=200G"),
        by=0.8,
        why=(
            "nodes 1 and 2 restart together and both copy from node 3: the DIH master grants node group 0's "
            "take-over to one at a time (DbdihMain.cpp, Dbdih::execUPDATE_TOREQ, activeTakeOver), so node 2 "
            "waits for node 1's copy (up to 5 s more, Dbdih::execUPDATE_TOREF) and then copies its own"
        ),
    ),
    Row(
        "8.0 rolling, 3 replicas",
        "restart.plan",
        "per-node-group",
        "[[1, 2, 4, 5], [3, 6]]",
        "none",
        "node 1: secs_to_synchronize_starting_node",
        also=("workload.updates_per_s=5000", "data.size=160GB", "cluster.config.DataMemory=200G"),
        why=(
            "node 1 copies from node 3 alone instead of from 2 and 3, as fast: its copy threads take one "
            "fragment each, as many as the fewer LQH workers of the two nodes, wherever the fragment's "
            "primary replica lives (DbdihMain.cpp, Dbdih::check_takeover_thread, Dbdih::execSTART_TOCONF)"
        ),
    ),
    Row(
        "8.0 rolling, 3 replicas",
        "restart.plan",
        "per-node-group",
        "[[1, 2, 4, 5], [3, 6]]",
        "down",
        by=0.2,
        why="two waves instead of three: two nodes of every node group restart together",
    ),
    Row(
        "8.0 rolling, 3 replicas",
        "restart.plan",
        "per-node-group",
        "[[1, 2, 4, 5], [3, 6]]",
        "up",
        "node 2: secs_to_synchronize_starting_node",
        also=("workload.updates_per_s=100000", "data.ordered_indexes=120"),
        by=0.9,
        why=(
            "under 100k updates/s node 2 waits for node 1's copy (one take-over per node group, DbdihMain.cpp "
            "Dbdih::execUPDATE_TOREQ), and its own copy then ships the changes of the longer wait too"
        ),
    ),
    # --- one take-over per node group (issue 48): the DIH master grants a node group's copies to one
    # starting node at a time (DbdihMain.cpp, Dbdih::execUPDATE_TOREQ, NGPtr.p->activeTakeOver) --------
    Row(
        "8.4 node, 3 replicas, disk data",
        "restart.nodes",
        "[21]",
        "[21, 22]",
        "up",
        "secs_to_synchronize_starting_node",
        (1.9, 3.0),
        by=0.9,
        why=(
            "node 22 asks for node group 0's take-over while node 21 copies and is refused "
            "(UpdateToRef::CopyFragInProgress); it asks again every 5 s (Dbdih::execUPDATE_TOREF) and copies "
            "after node 21's last fragment commits: its phase holds node 21's copy less the admission gate's "
            "head start, up to 5 s, and its own copy of the changes since its crash, more by the wait"
        ),
    ),
    Row(
        "8.4 node, 3 replicas, disk data",
        "restart.nodes",
        "[21]",
        "[21, 22]",
        "up",
        by=0.3,
        why="node 22's copy follows node 21's: the restart ends a whole copy later",
    ),
    Row(
        "8.4 node, 3 replicas, disk data",
        "restart.nodes",
        "[21]",
        "[21, 31]",
        "none",
        "secs_to_synchronize_starting_node",
        why=(
            "nodes 21 and 31 are of node groups 0 and 1: each node group has its own activeTakeOver "
            "(DbdihMain.cpp, Dbdih::execUPDATE_TOREQ), so their copies run at once, each from its own live nodes"
        ),
    ),
    # --- copy threads as DIH runs them (issue 48): as many as the fewer LQH workers of the two nodes
    Row(
        "8.4 node, 3 replicas, disk data",
        "cluster.config.MaxParallelCopyInstances",
        "8",
        "64",
        "none",
        "secs_to_synchronize_starting_node",
        why=(
            "8 LDM threads on both nodes: a copy thread takes the fragments of instanceId = key % min(lqhWorkers "
            "of both nodes), so threads beyond 8 get none (DbdihMain.cpp, Dbdih::check_takeover_thread)"
        ),
    ),
    Row(
        "8.4 node, 3 replicas, disk data",
        "cluster.config.MaxParallelCopyInstances",
        "8",
        "2",
        "up",
        "secs_to_synchronize_starting_node",
        by=0.5,
        why=(
            "2 copy threads of 8 LDM threads: each has one COPY_FRAGREQ outstanding (DbdihMain.cpp "
            "Dbdih::toStartCopyFrag), a quarter of the fragments copied at once; the disk's page writes bind "
            "part of the time, so less than 4 times"
        ),
    ),
    # --- disk-data tables (issue 32): each disk-column change writes an UNDO record applied back to
    # the restored LCP's start (DbtupDiskAlloc.cpp, Dbtup::disk_restart_undo), serially before 7.6;
    # an initial restart creates the data files in full and ships every row's disk part; the LCP
    # writes PGMAN's dirty pages, at most DiskPageBufferMemory
    Row(
        "7.6 node, disk data",
        "workload.disk_update_share",
        "0",
        "0.2",
        "up",
        "secs_undo_disk_data",
        by=1.0,
        why="no disk-column change writes no UNDO; a fifth of the changes each write a record to apply",
    ),
    Row(
        "7.6 node, disk data",
        "workload.disk_update_share",
        "0.2",
        "0.8",
        "up",
        "secs_undo_disk_data",
        by=0.5,
        why="four times the UNDO records and more of the pages they touch read back",
    ),
    Row(
        "7.5 node, disk data",
        "workload.disk_update_share",
        "0.2",
        "0.8",
        "up",
        "secs_undo_disk_data",
        (2.0, 4.5),
        by=1.0,
        why="one UNDO record at a time before 7.6: four times the records, about four times the phase",
    ),
    Row(
        "7.6 initial",
        "data.disk_data_size",
        "0",
        "200G",
        "up",
        by=0.1,
        why="the data files are created in full and every row ships its disk part",
    ),
    Row(
        "7.6 initial",
        "data.disk_data_size",
        "0",
        "200G",
        "up",
        "secs_to_copy_meta_data",
        by=10.0,
        why="the metadata copy creates the 200G of data files, written in full at host.disk_write",
    ),
    Row(
        "7.6 node, disk data",
        "workload.disk_update_share",
        "0.05",
        "0.8",
        "up",
        "secs_wait_lcp_for_restart",
        by=0.01,
        why="more dirty disk pages for the local LCP to write, up to DiskPageBufferMemory",
    ),
    Row(
        "7.6 node, disk data",
        "cluster.config.DiskPageBufferMemory",
        "64M",
        "16G",
        "up",
        "secs_wait_lcp_for_restart",
        by=0.05,
        why="the page cache holds 16G of dirty pages, which the local LCP writes after its rows",
    ),
    # --- DiskPageBufferMemory both ways (issue 42): a bigger page cache saves the copy's and the UNDO
    # apply's page reads (PGMAN misses) and the copy's evictions, and holds more dirty pages for the
    # restart's LCP to write at its end; on disks that read at 2GB/s the saved reads win, on disks
    # that read at 10GB/s the evictions saved come back as the LCP's final flush
    Row(
        "7.6 node, disk data",
        "cluster.config.DiskPageBufferMemory",
        "64M",
        "64G",
        "down",
        "secs_to_synchronize_starting_node",
        by=0.15,
        why=(
            "the live node's cache holds 64G of the 200G of disk pages, so its scan misses a third fewer pages, "
            "and the starting node evicts a third fewer dirty pages during the copy"
        ),
    ),
    Row(
        "7.6 node, disk data",
        "cluster.config.DiskPageBufferMemory",
        "64M",
        "64G",
        "down",
        "secs_undo_disk_data",
        by=0.1,
        why="a page the UNDO apply fetched stays in the cache for the page's later records instead of being read again",
    ),
    Row(
        "7.6 node, disk data",
        "cluster.config.DiskPageBufferMemory",
        "64M",
        "64G",
        "down",
        also=(FAST_TOUCH,),
        by=0.02,
        why="the page reads the copy and the UNDO apply save outweigh the 64G of dirty pages the restart's LCP writes "
        "(the buffer's own memory touch held aside: its rows follow)",
    ),
    Row(
        "7.6 node, disk data",
        "cluster.config.DiskPageBufferMemory",
        "64M",
        "64G",
        "not_much_down",
        also=("host.disk_read=10GB/s", FAST_TOUCH),
        why=(
            "on disks reading 10GB/s the copy's misses cost little; the dirty pages it no longer evicts are "
            "written once by the LCP's page-cache sync instead (pgman.cpp, Pgman::handle_lcp), the same bytes: "
            "the reads saved win a little, never much (the buffer's own memory touch held aside: its rows follow)"
        ),
    ),
    # --- the page buffer at start and in the restart's LCP (issue 48): NDB allocates and touches
    # DiskPageBufferMemory and SharedGlobalMemory in the same pass as DataMemory (ndbd.cpp,
    # init_global_memory_manager, ndbd_alloc_touch_mem); the copy's dirty pages a bigger buffer keeps
    # are written once by the restart's LCP instead of as evictions, paced by PGMAN (pgman.cpp,
    # Pgman::do_track_handle_lcp_speed_loop in 8.0.20+), never more bytes
    Row(
        "8.0 node, disk data",
        "cluster.config.DiskPageBufferMemory",
        "16G",
        "1040G",
        "up",
        "secs_memory_touch",
        (13.5, 13.75),
        by=5.0,
        why="the touch pass covers DataMemory 65G + the buffer + SharedGlobalMemory 128M: (65G + 1040G + 128M) / "
        "(65G + 16G + 128M) = 13.6 at one touch rate (ndbd.cpp, init_global_memory_manager)",
    ),
    Row(
        "8.0 node, disk data",
        "cluster.config.SharedGlobalMemory",
        "0",
        "64G",
        "up",
        "secs_memory_touch",
        (1.77, 1.80),
        by=0.5,
        why="SharedGlobalMemory's pages join the same touch pass: (65G + 16G + 64G) / (65G + 16G) = 1.79 "
        "(ndbd.cpp, init_global_memory_manager)",
    ),
    Row(
        "8.0 node, disk data",
        "cluster.config.DiskPageBufferMemory",
        "16G",
        "256G",
        "up",
        "secs_wait_lcp_for_restart",
        also=(FAST_TOUCH,),
        by=1.0,
        why="the copy's dirty pages the bigger buffer keeps (up from 8% to all of 200G) are written by the restart's "
        "LCP, once each, at PGMAN's pace, instead of as evictions during the copy (pgman.cpp, Pgman::handle_lcp, "
        "Pgman::do_track_handle_lcp_speed_loop)",
    ),
    Row(
        "8.0 node, disk data",
        "cluster.config.DiskPageBufferMemory",
        "16G",
        "256G",
        "down",
        also=(FAST_TOUCH,),
        by=0.02,
        why="the same page bytes are written, moved from the copy onto the LCP (pgman.cpp, Pgman::handle_lcp, "
        "once per page), and the copy's page reads the warm caches save are gone: never a longer restart "
        "(the buffer's own memory touch held aside)",
    ),
    # --- fragments per table (8.0.23: ClassicFragmentation off, which AutomaticThreadConfig implies,
    # lets PartitionsPerNode set them; Configuration.cpp calcSizeAlt)
    Row(
        "8.0 today, 5 ms disk",
        "cluster.config.PartitionsPerNode",
        "2",
        "4",
        "up",
        "secs_restore_fragments",
        by=0.2,
        why="twice the fragments, each restored after its file requests at 5 ms",
    ),
    Row(
        "8.0 today, 5 ms disk",
        "cluster.config.PartitionsPerNode",
        "2",
        "4",
        "up",
        by=0.1,
        why="twice the fragments' file requests in the restore and in every LCP at 5 ms",
    ),
    # --- the subscription handover is counted in global checkpoints ------------------------------
    Row(
        "7.6 node",
        "cluster.config.TimeBetweenGlobalCheckpoints",
        "2000",
        "4000",
        "up",
        "secs_wait_subscription_handover",
        band=(1.5, 2.05),
        by=0.5,
        why="Suma.cpp send_handover_req takes the buckets over at the last complete GCI + 3: a number of "
        "GCPs (suma_handover_gcps), each TimeBetweenGlobalCheckpoints long, so twice the interval nearly "
        "doubles the handover (at most doubles it: only its GCP-bound part grows)",
    ),
]

MUCH = 0.05
"""The issue's "much faster": by more than 5%. A smaller REDO log may make EnableRedoControl
reach an alert level sooner and write LCPs a little faster; it must never buy much. Likewise a
faster LCP may lengthen the chain of data files a restore opens; it must never cost much."""

TOLERANCE = 0.01
"""Relative slack of a direction (1%), for float and event-order noise; plus ABS_TOLERANCE."""
ABS_TOLERANCE = 0.5
"""Seconds of slack of a direction: the one-GCP and heartbeat draws of the seeded stream."""


@cache
def _run(base: str, extra: tuple[str, ...]) -> dict[str, float]:
    """The total, the slowest node's phases, and (under "node N: ") every node's own phases."""
    path, sets = BASES[base]
    r = ndbsim.simulate(ROOT / path, overrides=[*sets, *extra])
    out = dict(r.phases())
    out[TOTAL] = r.total_restart_secs
    for node in r.node_ids():
        out.update({f"node {node}: {k}": v for k, v in _ends(r.phases(node)).items()})
    return out


def figures(row: Row) -> tuple[dict[str, float], dict[str, float]]:
    return _run(row.base, (*row.also, f"{row.key}={row.old}")), _run(row.base, (*row.also, f"{row.key}={row.new}"))


def _ends(phases: dict[str, float]) -> dict[str, float]:
    """The phases, with each wait replaced by the time from the crash at which it ends."""
    out, clock = {}, 0.0
    for name in PHASE_ORDER:
        clock += phases.get(name, 0.0)
        out[name + (" ends at" if name in WAITS else "")] = clock if name in WAITS else phases.get(name, 0.0)
    return out


def _slack(old: float, new: float) -> float:
    return TOLERANCE * max(abs(old), abs(new)) + ABS_TOLERANCE


def moved(old: float, new: float) -> bool:
    """The figure changed by more than the noise slack."""
    if math.isinf(old) or math.isinf(new):
        return old != new
    return abs(new - old) > _slack(old, new)


def _holds(row: Row, old: float, new: float) -> bool:
    if row.expect == "none":
        return not moved(old, new)
    if not moved(old, new):
        return False
    if math.isinf(old) or math.isinf(new):
        return {"up": new > old, "down": new < old, "not_much_up": new <= old, "not_much_down": new >= old}[row.expect]
    slack = _slack(old, new)
    return {
        "up": new > old + slack and new >= old * (1.0 + row.by),
        "down": new < old - slack and new <= old * (1.0 - row.by),
        "not_much_down": new >= (1.0 - MUCH) * old - slack,
        "not_much_up": new <= (1.0 + MUCH) * old + slack,
    }[row.expect]


def _not_against(expect: str, old: float, new: float) -> bool:
    """``new`` does not move against ``expect`` beyond the slack (an every_phase row's phases)."""
    if math.isinf(old) or math.isinf(new):
        return new <= old if expect == "down" else new >= old
    slack = _slack(old, new)
    return new <= old + slack if expect == "down" else new >= old - slack


def check(row: Row) -> list[str]:
    """What is wrong with this row today (empty when it holds)."""
    old, new = figures(row)
    a, b = old.get(row.metric, 0.0), new.get(row.metric, 0.0)
    bad = []
    if not _holds(row, a, b):
        what = f"by at least {row.by:.0%}" if row.expect in ("up", "down") else ""
        bad.append(f"{row.metric}: {a:.1f} -> {b:.1f} s, expected {row.expect} {what}".rstrip())
    elif row.band and a > 0 and not row.band[0] <= b / a <= row.band[1]:
        bad.append(f"{row.metric}: {a:.1f} -> {b:.1f} s, ratio {b / a:.2f} outside {row.band}")
    if row.every_phase:
        metrics = [m for m in sorted(old) if m.startswith("node ")] + [TOTAL]
        bad.extend(
            f"{m}: {old.get(m, 0.0):.1f} -> {new.get(m, 0.0):.1f} s, against {row.expect}"
            for m in metrics
            if not _not_against(row.expect, old.get(m, 0.0), new.get(m, 0.0))
        )
    return bad


def _short(value: str) -> str:
    return f"{value.count('name:')} tables" if "name:" in value else value


@pytest.mark.parametrize("duration", ["5m", "20m", "2h", "4h"])
def test_a_burst_restore_reads_within_the_design_bound(duration):
    """Backup.cpp: LCP files ≤ (1 + p) × data + 12.5% (p = 0.5 in 7.6.6), however long the burst;
    its inserted rows have no older copy to duplicate."""
    path, sets = BASES["7.6 node, burst"]
    r = ndbsim.simulate(ROOT / path, overrides=[*sets, f"workload.before_restart.duration={duration}"])
    facts = r.replications[0].nodes[-1].facts
    assert facts.restore_bytes <= (1 + 0.5 + 0.125) * r.scenario["data"]["size"]
    assert facts.restore_rows <= (1 + 0.5 / 2) * r.scenario["data"]["rows"]


def test_the_table_covers_every_version_and_restart_type():
    assert len(ROWS) >= 40
    bases = {r.base for r in ROWS}
    for version in ("7.5", "7.6", "8.0"):
        assert any(b.startswith(version) for b in bases)
    for kind in ("node", "initial", "system", "rolling"):
        assert any(kind in b for b in bases)


@pytest.mark.parametrize("row", ROWS, ids=[r.id[:90] for r in ROWS])
def test_every_row_is_well_formed(row: Row):
    """A row says why; a directional row says by how much; a no-effect row cites NDB's source."""
    assert row.base in BASES, f"{row.base!r} is not in BASES"
    assert row.expect in EXPECT, f"expect {row.expect!r}: write one of {EXPECT}"
    assert row.why.strip(), "say why the parameter binds on this base (or, for none, cite the source)"
    if row.expect in ("up", "down"):
        assert row.by > 0, "an up/down row states its least move: by > 0"
    else:
        assert row.by == 0, "by is an up/down row's least move"
    if row.expect == "none":
        assert SOURCE.search(row.why), "a no-effect row names the NDB source file that says so (e.g. Backup.cpp)"
        assert not row.every_phase


def test_no_directional_row_is_unchanged():
    """A row whose figure does not move cannot fail: every directional row's figure moves."""
    still = []
    for row in ROWS:
        if row.expect in DIRECTIONAL:
            old, new = figures(row)
            a, b = old.get(row.metric, 0.0), new.get(row.metric, 0.0)
            if not moved(a, b):
                still.append(f"{row.id}: {a:.1f} -> {b:.1f}")
    assert not still, "unchanged: " + "; ".join(still)


@pytest.mark.parametrize("row", ROWS, ids=[r.id[:90] for r in ROWS])
def test_response(row: Row):
    assert not check(row), check(row)


if __name__ == "__main__":
    print(f"{'base':26} {'parameter':48} {'from -> to':24} {'metric':34} {'expect':13} {'old':>8} {'new':>8}  ok")
    for row in ROWS:
        try:
            old, new = figures(row)
        except Exception as e:  # a row the model cannot run yet: shown, not hidden
            print(f"{row.base:26} {row.key:48} ERROR {type(e).__name__}: {e}"[:200])
            continue
        move = f"{_short(row.old)} -> {_short(row.new)}"
        expect = f"{row.expect} {row.by:.0%}" if row.by else row.expect
        bad = check(row)
        print(
            f"{row.base:26} {row.key:48} {move:24} {row.metric:34} {expect:13} "
            f"{old.get(row.metric, 0):8.1f} {new.get(row.metric, 0):8.1f}  "
            f"{'ok' if not bad else 'FAIL ' + '; '.join(bad)[:160]}"
        )
