"""The release table: one ``Profile`` per release family modelled (its config.ini defaults and
mechanisms), the release lines each family simulates, and where each value comes from."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.ndbinfo import release_of
from ndbsim.input.profiles.constants import Constants
from ndbsim.input.profiles.mechanisms import Mechanisms


@dataclass(frozen=True)
class Profile:
    name: str
    family: str
    defaults: dict[str, Any]
    mechanisms: Mechanisms
    constants: Constants = field(default_factory=Constants)
    notes: tuple[str, ...] = ()
    """Warnings every output of a run on this profile carries (a release simulated with an older
    line's profile says so)."""
    sources: dict[str, str] = field(default_factory=dict)
    """Default or mechanism name -> where its value in this release comes from (``ndbsim params --diff``)."""


_COMMON: dict[str, Any] = {
    "NoOfReplicas": 2,
    "DataMemory": "80M",
    "IndexMemory": "18M",
    "MaxNoOfExecutionThreads": 2,
    "ThreadConfig": "",
    "NoOfFragmentLogParts": 4,
    "NoOfFragmentLogFiles": 16,
    "FragmentLogFileSize": "16M",
    "InitFragmentLogFiles": "SPARSE",
    "TimeBetweenLocalCheckpoints": 20,
    "TimeBetweenGlobalCheckpoints": 2000,
    "HeartbeatIntervalDbDb": 5000,
    "BuildIndexThreads": 0,
    "TwoPassInitialNodeRestartCopy": False,
    "MaxParallelCopyInstances": 0,
    "EnablePartialLcp": False,
    "RecoveryWork": 50,
    "InsertRecoveryWork": 40,
    "EnableRedoControl": False,
    "DiskCheckpointSpeed": "10M",
    "DiskCheckpointSpeedInRestart": "100M",
    "MinDiskWriteSpeed": "10M",
    "MaxDiskWriteSpeed": "20M",
    "MaxDiskWriteSpeedOtherNodeRestart": "50M",
    "MaxDiskWriteSpeedOwnRestart": "200M",
    "AutomaticThreadConfig": False,
    "NumCPUs": 0,
    "ClassicFragmentation": True,
    "PartitionsPerNode": 2,
    "DiskPageBufferMemory": "64M",
    "SharedGlobalMemory": "128M",
}
"""config.ini [ndbd default] values shared by all versions ([CFG51], [CFG76],
[DOC-NDBD80]; reference §2.3, §3, §4, §6). ClassicFragmentation true and PartitionsPerNode 2 are
8.0.23's (the manual; Configuration.cpp, ``Configuration::calcSizeAlt``, reads PartitionsPerNode
with 2 when unset); DiskPageBufferMemory 64M is the manual's default of every release, SharedGlobalMemory
128M the 7.x and 8.0 manuals' default."""


def _profile(name: str, family: str, mech: Mechanisms, **overrides: Any) -> Profile:
    return Profile(name=name, family=family, defaults={**_COMMON, **overrides}, mechanisms=mech)


PROFILES: dict[str, Profile] = {
    "5.1": _profile(
        "5.1",
        "full-lcp",
        Mechanisms(
            multithreaded=False,
            lcp_pause_for_metadata=False,
            legacy_speed_parameters=True,
            onr_fallback_lcps=3,
            redo_lcps_kept=3,
        ),
        HeartbeatIntervalDbDb=1500,
        RedoBuffer="8M",
        MaxNoOfExecutionThreads=0,
    ),
    "7.0": _profile(
        "7.0",
        "full-lcp",
        Mechanisms(lcp_pause_for_metadata=False, legacy_speed_parameters=True, redo_lcps_kept=3),
    ),
    "7.5": _profile(
        "7.5",
        "full-lcp",
        Mechanisms(adaptive_write_speed=True, lcp_start_stall=True),
    ),
    "7.6": _profile(
        "7.6",
        "partial-lcp",
        Mechanisms(
            partial_lcp_available=True,
            local_lcp_at_restart_end=True,
            parallel_undo=True,
            adaptive_write_speed=True,
            lcp_start_stall=True,
        ),
        EnablePartialLcp=True,
        BuildIndexThreads=128,
        TwoPassInitialNodeRestartCopy=True,
        RecoveryWork=60,
        IndexMemory=0,  # 7.6 folds IndexMemory into DataMemory
    ),
    "8.0": _profile(
        "8.0",
        "partial-lcp",
        Mechanisms(
            partial_lcp_available=True,
            local_lcp_at_restart_end=True,
            parallel_undo=True,
            adaptive_write_speed=True,
            redo_control=True,
            lcp_start_stall=True,
        ),
        EnablePartialLcp=True,
        BuildIndexThreads=128,
        TwoPassInitialNodeRestartCopy=True,
        RecoveryWork=60,
        EnableRedoControl=True,
        DataMemory="98M",
        IndexMemory=0,
    ),
}
PROFILES["8.4"] = replace(
    PROFILES["8.0"],
    name="8.4",
    mechanisms=replace(PROFILES["8.0"].mechanisms, query_threads=True, pgman_lcp_pacing=True),
)
PROFILES["9.x"] = replace(PROFILES["8.4"], name="9.x")
"""One profile per release family modelled: its mechanisms (see ``Mechanisms``) and the
[ndbd default] values where it differs from ``_COMMON``.

- 5.1: ndbd, DiskCheckpointSpeed family, ONR falls back to a full copy after 3 LCPs (seed 004),
  3 LCPs of REDO kept ([DOC-72]); HeartbeatIntervalDbDb 1500 and RedoBuffer 8M ([CFG51]);
  MaxNoOfExecutionThreads 0, as ndbd has no execution threads.
- 7.0: ndbmtd, still DiskCheckpointSpeed and 3 LCPs of REDO.
- 7.5: Min/MaxDiskWriteSpeed with adaptive speed, LCP paused for the metadata copy (7.4+).
- 7.6: partial LCP ([RN764]), local LCP at the restart's end ([BACKUP]), parallel UNDO
  ([DOC-NEW76]); EnablePartialLcp on, BuildIndexThreads 128 ([MR-764], [DOC-NEW76]),
  TwoPassInitialNodeRestartCopy on ([DOC-NEW76], [CFG76]), RecoveryWork 60 (7.6.7+, [RN767];
  ``_profile_for`` sets 50 for 7.6.4–7.6.6), IndexMemory 0 (folded into DataMemory).
- 8.0: as 7.6, plus EnableRedoControl on (reference §2.3: on in later 8.0 and 8.4; the exact
  8.0 release is not confirmed) and DataMemory 98M (8.0's default; not in the reference);
  ``_profile_for`` gives 8.0.23+ its thread model (query and recover threads, AutomaticThreadConfig).
- 8.4 LTS: 8.0.23+'s mechanisms and defaults. The 8.4 manual lists, since 8.0, only TLS parameters
  and ApiFailureHandlingTimeout as added and none deprecated or removed ([DOC-ADR84]); none of them
  touches a restart phase ndbsim models.
- 9.x: as 8.4; the 9.x manuals add no data-node parameter ndbsim models ([DOC-ADR94])."""

FAMILY = {
    "5.1": "5.1",
    "6.2": "7.0",
    "6.3": "7.0",
    "7.0": "7.0",
    "7.1": "7.0",
    "7.2": "7.0",
    "7.3": "7.0",
    "7.4": "7.5",
    "7.5": "7.5",
    "7.6": "7.6",
    "8.0": "8.0",
    "8.1": "8.4",
    "8.2": "8.4",
    "8.3": "8.4",
    "8.4": "8.4",
    "9.0": "9.x",
    "9.1": "9.x",
    "9.2": "9.x",
    "9.3": "9.x",
    "9.4": "9.x",
    "9.5": "9.x",
    "9.6": "9.x",
    "9.7": "9.x",
}
"""NDB release line (major.minor) -> the profile that simulates it. A modelling grouping, not an
NDB table: each line gets the profile whose mechanisms it shares (6.2–7.3 -> 7.0, 7.4 -> 7.5, the
8.1–8.3 innovation releases -> 8.4 LTS, 9.0 onwards -> 9.x); ``profile_for`` then removes ndbmtd from
6.2/6.3 and keeps two LCPs of REDO for 7.2/7.3 ([DOC-72]). A line without a profile of its own gets
a note saying which profile runs it."""

SOURCES: dict[str, dict[str, str]] = {
    "5.1": {
        "multithreaded": "ndbd only; ndbmtd came with 7.0 (reference §8)",
        "HeartbeatIntervalDbDb": "5.1 ConfigInfo.cpp [CFG51]; 5000 from 7.2.0 (7.2.0 release notes)",
        "RedoBuffer": "5.1 ConfigInfo.cpp [CFG51]",
        "onr_fallback_lcps": "seed 004 (5.1 falls back to a full copy after 3 LCPs)",
        "redo_lcps_kept": "NDB 7.2 manual, NoOfFragmentLogFiles [DOC-72]",
    },
    "7.0": {
        "multithreaded": "ndbmtd, 7.0 ([AM-RESTART]; reference §8)",
        "legacy_speed_parameters": "DiskCheckpointSpeed until 7.3 ([CFG51]); Min/MaxDiskWriteSpeed from 7.4 ([CFG76])",
        "redo_lcps_kept": "3 LCPs of REDO before 7.2 ([DOC-72]; reference §4)",
    },
    "7.5": {
        "adaptive_write_speed": "7.4+: Backup.cpp calculate_disk_write_speed ([BACKUP]; reference §2.4)",
        "lcp_start_stall": (
            "DbdihMain.cpp Dbdih::check_stall_lcp_start, with the node recovery status of"
            " ndbinfo.restart_info (NDB 7.5 manual; reference §12, §14.6)"
        ),
        "lcp_pause_for_metadata": "7.4+ pauses the LCP for the metadata copy ([NDBCNTR]; reference §3)",
        "legacy_speed_parameters": "Min/MaxDiskWriteSpeed from 7.4 ([CFG76]; reference §3)",
    },
    "7.6": {
        "partial_lcp_available": "partial LCP, 7.6.4 release notes [RN764]",
        "EnablePartialLcp": "7.6.4 release notes [RN764]; [DOC-NDBD80]",
        "local_lcp_at_restart_end": "Backup.cpp, Local LCPs during restart ([BACKUP]; reference §3)",
        "parallel_undo": "What is new in NDB 7.6, parallel undo [DOC-NEW76]",
        "BuildIndexThreads": "0 -> 128 in 7.6.4 ([MR-764], [DOC-NEW76])",
        "TwoPassInitialNodeRestartCopy": "true from 7.6.4 ([DOC-NEW76], [CFG76])",
        "RecoveryWork": "50 in 7.6.4–7.6.6, 60 from 7.6.7 (7.6.7 release notes [RN767])",
        "insert_recovery_work": "InsertRecoveryWork from 7.6.5 (reference §2.3; [RN767])",
        "redo_control": "EnableRedoControl from 7.6.7 (7.6.7 release notes [RN767])",
        "IndexMemory": "7.6 folds IndexMemory into DataMemory ([DOC-NDBD80])",
    },
    "8.0": {
        "EnableRedoControl": "on in later 8.0 and 8.4 ([DOC-NDBD80], [DOC-NDBD84]; reference §2.3)",
        "DataMemory": "98M, the 8.0 manual's default ([DOC-NDBD80])",
        "query_threads": "query/recover threads, AutomaticThreadConfig, LDM 1–332: 8.0.23 release notes; "
        "thr_config.cpp (reference §8, §11)",
    },
    "8.4": {
        "query_threads": "as 8.0.23+ (8.0.23 release notes; thr_config.cpp)",
        "line": "8.4 manual, parameters added/deprecated/removed since 8.0: TLS parameters and "
        "ApiFailureHandlingTimeout only [DOC-ADR84]",
    },
    "9.x": {
        "line": "9.x manuals, parameters added/deprecated/removed: none that ndbsim models [DOC-ADR94]",
    },
}
"""Where each profile's values come from, by default or mechanism name (reference §0 tags; [DOC-ADR84]
is https://dev.mysql.com/doc/refman/8.4/en/mysql-cluster-added-deprecated-removed.html, [DOC-ADR94] the
same page of the 9.4 manual). A release inherits its ancestors' sources (``sources_of``)."""

_LINEAGE = {"5.1": (), "7.0": ("5.1",), "7.5": ("5.1", "7.0"), "7.6": ("5.1", "7.0", "7.5")}
"""Older profiles whose sources a profile inherits, oldest first."""
_LINEAGE["8.0"] = (*_LINEAGE["7.6"], "7.6")
_LINEAGE["8.4"] = (*_LINEAGE["8.0"], "8.0")
_LINEAGE["9.x"] = (*_LINEAGE["8.4"], "8.4")


def sources_of(profile: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for name in (*_LINEAGE[profile], profile):
        out.update(SOURCES.get(name, {}))
    return out


KNOWN_VERSIONS = sorted(FAMILY)
"""The release lines ``FAMILY`` accepts, sorted; listed in "not modelled" errors."""


RELEASE_FORMS = '"ndb-8.4.3" or "mysql-8.0.35 ndb-8.0.35" as NDB prints it, or "8.4.3"'
"""The ways a user may write a release: as NDB prints it, or bare; named in the error for any other."""


def canonical_release(version: Any) -> Any:
    """A release as a user gave it, in the one form ndbsim uses: ``ndb-8.4.3`` and ``mysql-8.0.35
    ndb-8.0.35``, as NDB prints them, read ``8.4.3`` and ``8.0.35``; a YAML number (``8.0``) reads
    as the text it was written as. Anything else is returned as given, for ``parse_version`` to
    accept (a release line, ``8.4``) or refuse."""
    if isinstance(version, (int, float)) and not isinstance(version, bool):
        return str(version)
    if isinstance(version, str):
        return release_of(version, whole=True) or version
    return version


def parse_version(version: str) -> tuple[int, int, int]:
    text = canonical_release(version)
    m = re.fullmatch(r"\s*(\d+)\.(\d+)(?:\.(\d+))?\S*\s*", str(text))
    if not m:
        raise InputError(
            f"{version!r} is not an NDB release; write it {RELEASE_FORMS} "
            f"(release lines ndbsim simulates: {', '.join(KNOWN_VERSIONS)})",
            field="version",
        )
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
