"""One answer per mechanism: present in the scenario's release AND switched on in its config.

A mechanism runs only when the release has it (``profiles.Mechanisms``) and, where config.ini
has a switch for it, the switch is on. Both halves are read here once per scenario, so the
engine asks one question per mechanism instead of combining the two wherever it needs one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ndbsim.input.profiles import Mechanisms


@dataclass(frozen=True)
class Features:
    """The mechanisms a simulated restart runs (reference §2–§3; ``Mechanisms`` cites each)."""

    multithreaded: bool
    """ndbmtd: several LDM threads (7.0+)."""
    query_threads: bool
    """Query and recover threads, which restore LCP fragments beside the LDM threads (8.0.23+)."""
    partial_lcp: bool
    """Partial LCP (7.6.4+) with EnablePartialLcp."""
    insert_recovery_work: bool
    """InsertRecoveryWork weighs inserted rows in a partial LCP's size (7.6.5+); before, they count in full."""
    two_pass_copy: bool
    """TwoPassInitialNodeRestartCopy on a release that has it (7.6.4+, with the partial LCP)."""
    local_lcp_at_restart_end: bool
    """A node restart ends with a local LCP: the 7.6 restart under the partial LCP (reference §3)."""
    lcp_pause_for_metadata: bool
    """The running LCP pauses for the metadata copy (7.4+); before, the copy waits for it to end."""
    parallel_undo: bool
    """Disk-data UNDO applied by every LDM thread (7.6+)."""
    legacy_speed_parameters: bool
    """DiskCheckpointSpeed and DiskCheckpointSpeedInRestart set the LCP speed (5.1–7.3)."""
    adaptive_write_speed: bool
    """The LCP speed follows the LDM threads' CPU load between Min- and MaxDiskWriteSpeed (7.4+)."""
    redo_control: bool
    """EnableRedoControl on a release that has it (7.6.7+)."""
    redo_control_available: bool
    """The release has EnableRedoControl, whether or not it is on (for advice)."""
    onr_fallback_lcps: int | None
    """A node down for this many LCPs restarts with a full copy (5.1, seed 004); None: never."""
    redo_lcps_kept: int
    """LCPs of REDO a node keeps (3 before 7.2, 2 after)."""
    lcp_start_stall: bool = False
    """DIH holds an LCP start for a restarting node about to need it (7.4+, ``engine.lcp.stall``)."""
    pgman_lcp_pacing: bool = False
    """PGMAN paces an LCP's disk-page writes by the pages made dirty (8.0.20+); before, 32 in flight."""


def features_of(mech: Mechanisms, config: Mapping[str, Any]) -> Features:
    """The features of a release (``mech``) under a resolved config.ini (``config``)."""
    partial = mech.partial_lcp_available and bool(config.get("EnablePartialLcp"))
    return Features(
        multithreaded=mech.multithreaded,
        query_threads=mech.query_threads,
        partial_lcp=partial,
        insert_recovery_work=mech.insert_recovery_work,
        # TwoPassInitialNodeRestartCopy came with 7.6.4, the release of the partial LCP
        two_pass_copy=mech.partial_lcp_available and bool(config["TwoPassInitialNodeRestartCopy"]),
        local_lcp_at_restart_end=partial and mech.local_lcp_at_restart_end,
        lcp_pause_for_metadata=mech.lcp_pause_for_metadata,
        parallel_undo=mech.parallel_undo,
        legacy_speed_parameters=mech.legacy_speed_parameters,
        adaptive_write_speed=mech.adaptive_write_speed,
        redo_control=mech.redo_control and bool(config.get("EnableRedoControl")),
        redo_control_available=mech.redo_control,
        onr_fallback_lcps=mech.onr_fallback_lcps,
        redo_lcps_kept=mech.redo_lcps_kept,
        lcp_start_stall=mech.lcp_start_stall,
        pgman_lcp_pacing=mech.pgman_lcp_pacing,
    )
