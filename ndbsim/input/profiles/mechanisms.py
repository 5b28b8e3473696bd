"""What a release family does (``Mechanisms``), as opposed to how it is configured, and the
config.ini parameters a release with given mechanisms does not have."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class Mechanisms:
    """What a release family does, as opposed to how it is configured."""

    multithreaded: bool = True
    """ndbmtd exists (from 7.0); 5.1's ndbd runs everything in one thread."""
    partial_lcp_available: bool = False
    """Partial LCP, 7.6.4+ ([RN764]); honoured only with EnablePartialLcp."""
    lcp_pause_for_metadata: bool = True
    """7.4+ pauses the running LCP to copy metadata; older versions wait for it to finish
    (restart_info status 5, WAIT_LCP_TO_COPY_DICT; reference §3)."""
    local_lcp_at_restart_end: bool = False
    """7.6+: the starting node runs its own local LCP, then joins a short distributed LCP
    ([BACKUP] "Local LCPs during restart")."""
    parallel_undo: bool = False
    """7.6+ dispatches UNDO records to all LDM threads in parallel ([DOC-NEW76])."""
    legacy_speed_parameters: bool = False
    """5.1–7.3: DiskCheckpointSpeed/DiskCheckpointSpeedInRestart instead of the
    Min/MaxDiskWriteSpeed family of 7.4 ([CFG51], [CFG76])."""
    onr_fallback_lcps: int | None = None
    """5.1: a node down for this many LCPs falls back to a full copy (seed 004)."""
    redo_lcps_kept: int = 2
    """LCPs of REDO kept: 3 before 7.2, 2 after ([DOC-72], [LIMITS])."""
    lcp_start_stall: bool = False
    """DIH's master holds an LCP start for a node about to need it (DbdihMain.cpp
    ``Dbdih::check_stall_lcp_start``), part of the node recovery status module that also fills
    ``ndbinfo.restart_info`` (documented from the NDB 7.5 manual)."""
    adaptive_write_speed: bool = False
    """7.4+: the LCP write speed moves between MinDiskWriteSpeed and MaxDiskWriteSpeed with
    the LDM threads' CPU load ([BACKUP] calculate_disk_write_speed)."""
    insert_recovery_work: bool = True
    """7.6.5+: InsertRecoveryWork sets how much an inserted row counts towards a partial LCP's
    size; before it, inserts count in full (reference §2.3)."""
    redo_control: bool = False
    """7.6.7+: EnableRedoControl raises the LCP write speed as the REDO log fills ([RN767],
    reference §2.3, §2.4); before it the parameter does not exist."""
    query_threads: bool = False
    """8.0.23+: query and recover threads, which also restore LCP fragments (QRESTORE);
    AutomaticThreadConfig with NumCPUs; any LDM count 1–332 and thr_config.cpp's newer
    MaxNoOfExecutionThreads table (8.0.23 release notes; NDB internals manual, RESTORE block;
    reference §8, §11)."""
    pgman_lcp_pacing: bool = False
    """PGMAN paces an LCP's disk-page writes by the pages made dirty (pgman.cpp,
    ``Pgman::do_track_handle_lcp_speed_loop`` every 100 ms, at least 200 pageouts per second, up
    to 192 in flight from the measured write latency), as the 2023 (8.0.3x) source has it; the
    2019 (8.0.1x) source and older keep at most 32 LCP pageouts in flight
    (``Pgman::get_num_lcp_pages_to_write``, MAX_LCP_PAGES_OUTSTANDING) and issue the next at once
    (reference §14.1). ndbsim switches at ``PGMAN_LCP_PACING_SINCE``."""


_SPEED_74 = (
    "MinDiskWriteSpeed",
    "MaxDiskWriteSpeed",
    "MaxDiskWriteSpeedOtherNodeRestart",
    "MaxDiskWriteSpeedOwnRestart",
)
"""The LCP write-speed parameters of 7.4+ ([CFG76]), replacing DiskCheckpointSpeed."""


@cache
def unused_params(mech: Mechanisms) -> tuple[str, ...]:
    """The modelled config.ini parameters a release with these mechanisms does not have (or,
    for ndbd, does not use); ndbsim ignores them there."""
    out: list[str] = []
    if mech.legacy_speed_parameters:
        out += _SPEED_74
    else:
        out += ("DiskCheckpointSpeed", "DiskCheckpointSpeedInRestart")
    if not mech.partial_lcp_available:
        out += ("EnablePartialLcp", "RecoveryWork", "InsertRecoveryWork", "TwoPassInitialNodeRestartCopy")
    elif not mech.insert_recovery_work:
        out.append("InsertRecoveryWork")
    if not mech.redo_control:
        out.append("EnableRedoControl")
    if not mech.multithreaded:
        out += ("MaxNoOfExecutionThreads", "ThreadConfig")
    if not mech.query_threads:  # 8.0.23's thread model and fragment layout
        out += ("AutomaticThreadConfig", "NumCPUs", "ClassicFragmentation", "PartitionsPerNode")
    return tuple(sorted(out))
