"""Every parameter NDB accepts in a data-node section of config.ini, and what each that ndbsim does
not model would do to a restart.

NDB's management server refuses a config.ini with a parameter its data-node section does not
know ("Unknown parameter", ``InitConfigFileParser::parseNameValuePair`` against ``ConfigInfo::
m_ParamInfo``); ndbsim refuses it the same way (``config_ini``). The names are the ``DB_TOKEN``
entries of ``storage/ndb/src/mgmsrv/ConfigInfo.cpp`` (7.6/8.0 source) and the node configuration
parameters the 8.0 and 8.4 manuals list as added ("Options, variables and parameters added,
deprecated or removed in NDB 8.0/8.4"). Those ndbsim models live in ``config_params.PARAMS``.
"""

from __future__ import annotations

NO_EFFECT: dict[str, str] = {
    "pool": "sizes a record pool (operations, scans, schema objects); allocated at start with the node's "
    "other memory, no restart phase depends on it",
    "timeout": "a timeout or watchdog: changes when a stuck operation is stopped, not how long a healthy restart takes",
    "report": "logging, reporting or tracing only",
    "backup": "applies to online backups (START BACKUP), not to LCPs or restarts",
    "network": "connection set-up and transport options; the copy phase's bandwidth is host.network",
    "index_stat": "ordered-index statistics (ANALYZE TABLE); not rebuilt by a restart",
    "internal": "NDB-internal or test parameter",
    "retry": "applies only after a failed start (StopOnError=0)",
    "placement": "names the node, its host or its files; no bearing on restart time",
    "schema": "limits on schema objects or batch sizes of online DDL; no restart phase depends on it",
    "replication": "event/epoch buffering for the binary log; no restart phase depends on it",
}
"""Why a parameter ndbsim does not model leaves a restart's time alone, by kind (wording ours, from
each parameter's description in ConfigInfo.cpp and the manual's data-node parameter pages)."""

CHANGES_RESTART: dict[str, str] = {
    "ODirect": "LCP, REDO and backup files opened with O_DIRECT: writes bypass the page cache, so the "
    "LCP and REDO write rate is the device's (ndbsim takes host.disk_write as that rate; known limit)",
    "ODirectSyncFlag": "with ODirect, O_DIRECT writes count as synced and skip fsync; LCP and REDO "
    "flushes get cheaper (not modelled; known limit)",
    "CompressedLCP": "LCP files written with zlib: fewer bytes written and read at restore, more CPU "
    "per byte on the LDM threads (not modelled; known limit)",
    "LockPagesInMainMemory": "mlockall() of the node's memory at start (1: after allocation, 2: "
    "before it): the memory touch at start takes longer (not modelled; known limit)",
    "Numa": "memory interleaved over NUMA nodes at allocation; changes the memory-touch rate "
    "(host.memory_touch_rate stands for it)",
    "LateAlloc": "memory allocated after the node connects to the management server: moves the "
    "memory touch, not its length",
    "TransactionMemory": "allocated and touched at start beside DataMemory: adds to "
    "secs_memory_touch (ndbsim touches DataMemory only; known limit)",
    "LongMessageBuffer": "allocated at start (64M by default): a small addition to the memory touch",
    "DiskPageBufferEntries": "disk-data page requests in flight; bounds disk-data restore "
    "parallelism (not modelled; known limit)",
    "DiskIOThreadPool": "threads for disk-data file I/O: UNDO and disk-data reads at restart "
    "(not modelled; known limit)",
    "UndoDataBuffer": "disk-data UNDO buffer (NDB 7.x); sized at start",
    "UndoIndexBuffer": "UNDO buffer of the old index UNDO log (NDB 7.x); sized at start",
    "MaxDiskDataLatency": "aborts transactions when disk-data latency exceeds it; no restart phase",
    "DiskDataUsingSameDisk": "disk-data files on the LCP's disk: NDB then slows the LCP while "
    "disk-data pages are written (not modelled; known limit)",
    "DiskSyncSize": "fsync after this many bytes of an LCP file: with a slow fsync the LCP writes "
    "slower (not modelled; known limit)",
    "Diskless": "no LCP and no REDO on disk: every restart copies all data from a live node "
    "(not modelled; known limit)",
    "EncryptedFileSystem": "LCP and tablespace files encrypted: CPU per byte written and restored "
    "(not modelled; known limit)",
    "MaxLCPStartDelay": "how long an LCP waits for the checkpoint mutex before queueing: can lengthen "
    "secs_to_wait_for_lcp_for_copy_meta_data (not modelled; known limit)",
    "RestartSubscriberConnectTimeout": "how long a restarting node waits for subscribing SQL nodes "
    "(binlog) to connect: bounds secs_wait_subscription_handover (ndbsim assumes they connect at once)",
    "StartPartialTimeout": "a system restart's wait for all nodes before starting without some; a "
    "node restart does not wait on it",
    "StartPartitionedTimeout": "a system restart's wait before starting a partitioned cluster; a "
    "node restart does not wait on it",
    "StartFailureTimeout": "stops a start that takes longer; 0 (default) never does",
    "StartNoNodegroupTimeout": "a system restart's wait for nodes without a node group",
    "ConnectCheckIntervalDelay": "adds connectivity checks before a silent node is declared dead: "
    "lengthens failure detection of a crashed node (secs_to_complete_node_failure; not modelled)",
    "ArbitrationTimeout": "how long a node failure waits for the arbitrator: part of failure "
    "handling of a crash (not modelled; known limit)",
    "Arbitration": "how a node failure is arbitrated; part of failure handling of a crash",
    "HeartbeatOrder": "the heartbeat circle's order; detection time stays HeartbeatIntervalDbDb's",
    "SchedulerSpinTimer": "threads spin before sleeping: CPU use, not restart work (known limit)",
    "SpinMethod": "how threads spin before sleeping: CPU use, not restart work (known limit)",
    "AllowSpinOverhead": "CPU spent spinning: CPU use, not restart work (known limit)",
    "SchedulerExecutionTimer": "microseconds a thread executes before sending: latency, not restart work",
    "SchedulerResponsiveness": "latency against throughput of the scheduler: can slow LDM work "
    "during a restart a little (not modelled)",
    "RealtimeScheduler": "real-time priority of the threads: CPU share under contention (not modelled; known limit)",
    "LockExecuteThreadToCPU": "binds execution threads to CPUs: ndbsim counts cores, not which (known limit)",
    "LockMaintThreadsToCPU": "binds I/O and watchdog threads to a CPU: ndbsim counts cores, not which",
    "MaxSendDelay": "delays sends to batch them: latency, not restart work",
    "NodeGroupTransporters": "transporters between the nodes of a node group: more can raise the "
    "copy phase's rate beyond one connection's (not modelled; known limit)",
    "TotalSendBufferMemory": "send buffers of all transporters: a tight buffer can throttle the "
    "copy phase (not modelled)",
    "ExtraSendBufferMemory": "extra send buffers: a tight buffer can throttle the copy phase (not modelled)",
    "MaxUIBuildBatchSize": "scan batch of unique-index builds; a restart restores unique indexes "
    "as tables, so no phase depends on it",
    "BackupDiskWriteSpeedPct": "share of MaxDiskWriteSpeed kept for LCPs while a backup runs; "
    "ndbsim simulates no backup during the restart",
    "EnableMultithreadedBackup": "backups on every LDM thread; ndbsim simulates no backup during the restart",
    "CompressedBackup": "backup files compressed; ndbsim simulates no backup during the restart",
    "MinFreePct": "DataMemory kept free for restarts; ndbsim checks data.size against DataMemory",
    "MaxAllocate": "allocation chunk for table memory: no measurable effect on the memory touch",
    "RedoOverCommitLimit": "when a slow REDO disk aborts or queues transactions; no restart phase",
    "RedoOverCommitCounter": "when a slow REDO disk aborts or queues transactions; no restart phase",
    "MaxParallelScansPerFragment": "parallel scans per fragment (queries); the LCP and copy scans "
    "are not limited by it",
    "FileSystemPathDD": "disk-data files (tablespace and UNDO) on a path of their own: ndbsim assumes one "
    "device per host, shared by LCP, REDO, UNDO and data files at host.disk_read/host.disk_write; "
    "a separate device is not modelled (known limit)",
    "FileSystemPathDataFiles": "tablespace data files on a path of their own: ndbsim assumes one device "
    "per host, shared by LCP, REDO, UNDO and data files at host.disk_read/host.disk_write; a separate "
    "device is not modelled (known limit)",
    "FileSystemPathUndoFiles": "UNDO log files on a path of their own: ndbsim assumes one device per "
    "host, shared by LCP, REDO, UNDO and data files at host.disk_read/host.disk_write; a separate "
    "device is not modelled (known limit)",
}
"""Parameters ndbsim does not model whose setting can change a restart, or that need a reason of
their own: what each does (from its description in ConfigInfo.cpp and the manual's data-node
parameter pages) and whether ndbsim models it ("known limit" entries are listed in README)."""

LEAVES_RESTART: frozenset[str] = frozenset(
    {
        "LateAlloc",
        "UndoDataBuffer",
        "UndoIndexBuffer",
        "MaxDiskDataLatency",
        "StartPartialTimeout",
        "StartPartitionedTimeout",
        "StartFailureTimeout",
        "StartNoNodegroupTimeout",
        "HeartbeatOrder",
        "SchedulerExecutionTimer",
        "MaxSendDelay",
        "MaxUIBuildBatchSize",
        "BackupDiskWriteSpeedPct",
        "EnableMultithreadedBackup",
        "CompressedBackup",
        "MinFreePct",
        "MaxAllocate",
        "RedoOverCommitLimit",
        "RedoOverCommitCounter",
        "MaxParallelScansPerFragment",
    }
)
"""The ``CHANGES_RESTART`` entries whose own reason says they leave a node restart's time alone
(sized at start, a system restart's wait, a backup's or a query's setting): a run lists them on
one line with the ``NO_EFFECT`` kinds instead of warning for each."""

KIND_WORDS: dict[str, str] = {
    "pool": "record pools",
    "timeout": "timeouts and watchdogs",
    "report": "logging",
    "backup": "online backups",
    "network": "connection set-up",
    "index_stat": "index statistics",
    "internal": "NDB-internal",
    "retry": "failed starts only",
    "placement": "placement",
    "schema": "schema limits",
    "replication": "binlog epochs",
}
"""A few words per ``NO_EFFECT`` kind, for the one line that lists the parameters a restart does not
depend on."""

_BY_KIND: dict[str, list[str]] = {
    "pool": [
        "MaxNoOfAttributes",
        "MaxNoOfTables",
        "MaxNoOfOrderedIndexes",
        "MaxNoOfUniqueHashIndexes",
        "MaxNoOfIndexes",
        "MaxNoOfConcurrentIndexOperations",
        "MaxNoOfTriggers",
        "MaxNoOfFiredTriggers",
        "MaxNoOfConcurrentOperations",
        "MaxDMLOperationsPerTransaction",
        "MaxNoOfLocalOperations",
        "MaxNoOfLocalScans",
        "BatchSizePerLocalScan",
        "MaxNoOfConcurrentTransactions",
        "MaxNoOfConcurrentScans",
        "TransactionBufferMemory",
        "MaxNoOfOpenFiles",
        "InitialNoOfOpenFiles",
        "StringMemory",
        "MaxNoOfSubscriptions",
        "MaxNoOfSubscribers",
        "MaxNoOfConcurrentSubOperations",
        "ReservedConcurrentIndexOperations",
        "ReservedConcurrentOperations",
        "ReservedConcurrentScans",
        "ReservedConcurrentTransactions",
        "ReservedFiredTriggers",
        "ReservedLocalScans",
        "ReservedTransactionBufferMemory",
        "MaxNoOfSavedMessages",
        "EventLogBufferSize",
    ],
    "timeout": [
        "TimeBetweenWatchDogCheck",
        "TimeBetweenWatchDogCheckInitial",
        "WatchDogImmediateKill",
        "TimeBetweenGlobalCheckpointsTimeout",
        "TimeBetweenEpochsTimeout",
        "TimeBetweenInactiveTransactionAbortCheck",
        "TransactionInactiveTimeout",
        "TransactionDeadlockDetectionTimeout",
        "LcpScanProgressTimeout",
        "HeartbeatIntervalDbApi",
        "ApiFailureHandlingTimeout",
        "KeepAliveSendInterval",
        "CrashOnCorruptedTuple",
        "StopOnError",
    ],
    "report": [
        "LogLevelStartup",
        "LogLevelShutdown",
        "LogLevelStatistic",
        "LogLevelCheckpoint",
        "LogLevelNodeRestart",
        "LogLevelConnection",
        "LogLevelCongestion",
        "LogLevelError",
        "LogLevelInfo",
        "MemReportFrequency",
        "BackupReportFrequency",
        "StartupStatusReportFrequency",
        "DictTrace",
    ],
    "backup": [
        "ParallelBackups",
        "BackupMemory",
        "BackupDataBufferSize",
        "BackupLogBufferSize",
        "BackupWriteSize",
        "BackupMaxWriteSize",
        "RequireEncryptedBackup",
    ],
    "network": [
        "TcpBind_INADDR_ANY",
        "UseShm",
        "PreferIPVersion",
        "AllowUnresolvedHostNames",
        "RequireTls",
        "RequireCertificate",
    ],
    "index_stat": [
        "IndexStatAutoCreate",
        "IndexStatAutoUpdate",
        "IndexStatSaveSize",
        "IndexStatSaveScale",
        "IndexStatTriggerPct",
        "IndexStatTriggerScale",
        "IndexStatUpdateDelay",
    ],
    "internal": [
        "RestartOnErrorInsert",
        "__sched_scan_priority",
        "__disk_data_format",
        "__ndbmt_lqh_workers",
        "__ndbmt_lqh_threads",
        "__ndbmt_classic",
        "__at_restart_skip_indexes",
        "__at_restart_skip_fks",
        "__debug_mixology_level",
        "System",
    ],
    "retry": ["MaxStartFailRetries", "StartFailRetryDelay"],
    "placement": ["LocationDomainId"],
    "schema": ["MaxFKBuildBatchSize", "MaxReorgBuildBatchSize", "DefaultHashmapSize"],
    "replication": ["TimeBetweenEpochs", "MaxBufferedEpochs", "MaxBufferedEpochBytes"],
}
"""The other data-node parameters of ConfigInfo.cpp and the manuals, by the kind of reason they
leave a restart alone (``NO_EFFECT``)."""

IMPACT: dict[str, str] = {
    **{name: NO_EFFECT[kind] for kind, names in _BY_KIND.items() for name in names},
    **CHANGES_RESTART,
}
"""Every data-node parameter ndbsim does not model -> one line on whether and how it changes a
restart. The placement parameters config_ini reads silently are not here (``config_ini._PLACEMENT``)."""

_LOWER = {name.lower(): name for name in IMPACT}
"""Lower-cased name -> NDB's spelling (config.ini names are case-insensitive)."""


def known(name: str) -> str | None:
    """NDB's spelling of a data-node parameter ndbsim does not model, or None if NDB has none."""
    return _LOWER.get(name.lower())


def restart_impact(name: str) -> str:
    """One line on whether and how ``name`` (NDB's spelling) changes a restart."""
    return IMPACT[name]


def changes_restart(name: str) -> bool:
    """Whether the parameter can change a restart's time and is not modelled: a known limit."""
    return "known limit" in IMPACT.get(name, "")


_KIND_OF = {name: kind for kind, names in _BY_KIND.items() for name in names}


def can_change_restart(name: str) -> bool:
    """Whether the parameter (NDB's spelling), set away from its default, could change a node
    restart's time: each gets a warning of its own; the rest are listed on one line."""
    return name in CHANGES_RESTART and name not in LEAVES_RESTART


def why_not(name: str) -> str:
    """A few words on why ``name`` leaves a restart alone (its ``NO_EFFECT`` kind), '' for the
    ``LEAVES_RESTART`` entries, whose reasons differ one by one."""
    kind = _KIND_OF.get(name)
    return KIND_WORDS[kind] if kind else ""
