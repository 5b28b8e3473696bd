"""Version profiles: each NDB release family's defaults, mechanisms and fitted constants.

Versions differ by defaults and mechanisms only. The free constants (``Constants``) are
physical speeds of the calibration host; they are fitted by ``ndbsim calibrate`` from the
published cases and stored, with their residuals, in ``calibrated.yaml`` beside this file.
A scenario's ``host.core_speed`` scales every CPU-bound constant for other hardware.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields, replace
from functools import cache
from pathlib import Path
from typing import Any

from ndbsim.errors import InputError

CALIBRATED_FILE = Path(__file__).with_name("calibrated.yaml")
"""``calibrated.yaml`` beside this file: the free constants fitted by ``ndbsim calibrate`` on the
``fit`` cases in calibration/ (its ``fitted_on`` lists them), with residuals; written by
``calibrate.write_calibration``, read by ``calibrated_constants``."""


@dataclass(frozen=True)
class Constants:
    """The model's free constants, at ``core_speed`` 1.0 (the calibration host of seed 003).

    Defaults are the reference's own estimates; ``calibrated.yaml`` holds the fitted values.
    """

    restore_row_secs: float = 3.0e-6
    """Core-seconds to restore one row from an LCP file (row-by-row insert through
    LQHKEYREQ, [RESTORE]). Reference §10 derives ≈0.54 GB/s node-wide from seed 003 (7.5)."""

    change_row_secs: float = 4.5e-6
    """Core-seconds to apply one CHANGE row of a partial LCP at restore: a WRITE by ROWID, which
    looks the rowid up (the row may be there from an older ALL-ROWS part) before it writes,
    where an ALL-ROWS row is a plain INSERT by ROWID ([BACKUP] "Partial LCP", reference §2.1).
    Seed 003: 7.6's restore took 2m15s against 7.5's 1m51s for the same 60 GB ("duplicate rows
    across partial LCPs"); the docs' "RecoveryWork=40 makes the restore 10 to 15 percent faster"
    than 60 is the same cost seen through the CHANGE rows' share."""

    redo_byte_secs: float = 1.0e-8
    """Core-seconds to apply one byte of REDO log (read, decode, re-execute the COMMITted
    operation) on an LDM thread. Fitted from seed 003's REDO phases."""

    index_entry_secs: float = 3.0e-6
    """Core-seconds to insert one entry into an ordered index (T-tree) during the offline
    rebuild. Seed 003: 2m4s on 8 cores (7.5) for ~300M rows."""

    hyperthread_gain: float = 0.6
    """Extra throughput of a core's second hardware thread. Seed 003: rebuild on 16
    hyperthreads (7.6) took 77 s vs 124 s on 8 cores (7.5): "the reason it isn't twice is
    since we make use of hyperthreading"."""

    copy_row_secs: float = 3.0e-5
    """Core-seconds a copy instance spends per row it ships: the live node reads the row under
    a short lock and sends it, the starting node receives and inserts it (COPY_FRAGREQ scan,
    one LQHKEYREQ per row), both sides in series; online index maintenance comes on top.
    Fitted from seed 001's initial node restart (7.0, 30M rows)."""

    suma_handover_gcps: float = 2.75
    """SUMA subscription handover, in global checkpoints (TimeBetweenGlobalCheckpoints):
    the starting node takes its buckets over at epoch boundaries. Seed 003: 5–6 s."""

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]


# Protocol constants, not fitted: each has a source in the reference.
METADATA_SECS_PER_TABLE = 0.05
"""DIH copies "one table of distribution information at a time" with a disk write each, "in
the order of fifty milliseconds" per table description ([NDBCNTR], reference §3, §9)."""

LCP_TABLE_DESCRIPTION_SECS = 0.05 / 4
"""LCP writes one table description per table after its fragments, ≈50 ms each, at most 4 in
parallel, ≈80 tables/s ([NDBCNTR], reference §3)."""

SCAN_ROW_SECS = 1.0e-7
"""Core-seconds for the live node's copy scan to check one row's GCI (one cache line per row
header, ≈100 ns). Derived: seed 003/000 report the synchronisation of an idle 300M-row node as
"more or less empty" / "3–4 s" with 8 LDM threads."""

LCP_CPU_SECS_PER_BYTE = 0.1 / 10 / 2**20
"""Core-seconds per LCP byte written: "writing 10 MByte/second gives roughly about 10% CPU
usage in one CPU" ([BACKUP], reference §2.4)."""

HEARTBEAT_INCLUSION_SECS = 1.0
"""QMGR brings one node at a time into the heartbeat protocol, with "some delays"; about
1–3 s ([NDBCNTR], reference §10). Seed 003: the preparatory steps took 1–2 s in all."""

PARTIAL_LCP_PARTS = 2048
"""Parts of the page-id range in a partial LCP ([BACKUP], reference §2.1)."""

DELETE_RECOVERY_WORK = 120
"""Deleted rows weigh 1.2× in the parts formula, hard-coded in Backup.cpp ([BACKUP], §2.2)."""


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
}
"""config.ini [ndbd default] values shared by all versions ([CFG51], [CFG76],
[DOC-NDBD80]; reference §2.3, §3, §4, §6)."""


def _profile(name: str, family: str, mech: Mechanisms, **overrides: Any) -> Profile:
    return Profile(name=name, family=family, defaults={**_COMMON, **overrides}, mechanisms=mech)


_PROFILES: dict[str, Profile] = {
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
        Mechanisms(adaptive_write_speed=True),
    ),
    "7.6": _profile(
        "7.6",
        "partial-lcp",
        Mechanisms(
            partial_lcp_available=True, local_lcp_at_restart_end=True, parallel_undo=True, adaptive_write_speed=True
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
_PROFILES["8.4"] = replace(
    _PROFILES["8.0"], name="8.4", mechanisms=replace(_PROFILES["8.0"].mechanisms, query_threads=True)
)
_PROFILES["9.x"] = replace(_PROFILES["8.4"], name="9.x")
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

_FAMILY = {
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
same page of the 9.4 manual). A release inherits its ancestors' sources (``_sources``)."""

_LINEAGE = {"5.1": (), "7.0": ("5.1",), "7.5": ("5.1", "7.0"), "7.6": ("5.1", "7.0", "7.5")}
"""Older profiles whose sources a profile inherits, oldest first."""
_LINEAGE["8.0"] = (*_LINEAGE["7.6"], "7.6")
_LINEAGE["8.4"] = (*_LINEAGE["8.0"], "8.0")
_LINEAGE["9.x"] = (*_LINEAGE["8.4"], "8.4")


def _sources(profile: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for name in (*_LINEAGE[profile], profile):
        out.update(SOURCES.get(name, {}))
    return out


KNOWN_VERSIONS = sorted(_FAMILY)
"""The release lines ``_FAMILY`` accepts, sorted; listed in "not modelled" errors."""


def parse_version(version: str) -> tuple[int, int, int]:
    m = re.fullmatch(r"\s*(\d+)\.(\d+)(?:\.(\d+))?\S*\s*", str(version))
    if not m:
        raise InputError(
            f'{version!r} is not an NDB version; write it like "7.6.6" (known: {", ".join(KNOWN_VERSIONS)})',
            field="version",
        )
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


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
    if not mech.query_threads:
        out += ("AutomaticThreadConfig", "NumCPUs")
    return tuple(sorted(out))


def profile_for(version: str) -> Profile:
    """The profile for an NDB version string such as ``"7.6.6"``, with the defaults that
    depend on the patch release and the calibrated constants (cached per version)."""
    return _profile_for(str(version))


QUERY_THREADS_SINCE = (8, 0, 23)
"""The release of query and recover threads, AutomaticThreadConfig and LDM counts 1–332 (8.0.23
release notes; reference §8, §11)."""


@cache
def _profile_for(version: str) -> Profile:
    major, minor, patch = parse_version(version)
    key = f"{major}.{minor}"
    if key not in _FAMILY:
        raise InputError(
            f'NDB version {version!r} is not modelled; use one of {", ".join(KNOWN_VERSIONS)} (e.g. "7.6.6")',
            field="version",
        )
    family = _FAMILY[key]
    if key == "7.6" and patch < 4:
        family = "7.5"  # the 7.6 milestones before 7.6.4 had no partial LCP yet ([RN764], §2.3)
    base = _PROFILES[family]
    defaults = dict(base.defaults)
    sources = _sources(family)
    # RecoveryWork 50 in 7.6.4–7.6.6, 60 from 7.6.7; InsertRecoveryWork from 7.6.5
    # (before: inserts weigh 100%); EnableRedoControl from 7.6.7 ([RN767], §2.3).
    if family == "7.6" and patch < 7:
        defaults["RecoveryWork"] = 50
    mechanisms = base.mechanisms
    if family == "7.6" and patch < 5:
        mechanisms = replace(mechanisms, insert_recovery_work=False)
    if family == "7.6" and patch >= 7:
        mechanisms = replace(mechanisms, redo_control=True)
    if family == "8.0" and (major, minor, patch) >= QUERY_THREADS_SINCE:
        mechanisms = replace(mechanisms, query_threads=True)
    if key in ("6.2", "6.3"):
        mechanisms = replace(mechanisms, multithreaded=False)  # ndbmtd arrived with 7.0
    if key in ("7.2", "7.3"):
        mechanisms = replace(mechanisms, redo_lcps_kept=2)  # 7.2 keeps two LCPs of REDO ([DOC-72])
    notes: tuple[str, ...] = ()
    if key != family:
        notes = (
            f"NDB {key} has no profile of its own: ndbsim simulates {version} with the {family} profile "
            f"(its mechanisms and defaults{', with corrections for ' + key if family in ('7.0', '7.5') else ''}); "
            "`ndbsim params --version` shows them",
        )
    return replace(
        base,
        defaults=defaults,
        mechanisms=mechanisms,
        constants=calibrated_constants(base.name),
        notes=notes,
        sources=sources,
    )


def differences(a: Profile, b: Profile) -> list[tuple[str, Any, Any, str]]:
    """(name, value in a, value in b, source) for every default and mechanism that differs between an
    older release ``a`` and a newer ``b``; the source is where ``b``'s value comes from, else ``a``'s."""
    from dataclasses import asdict

    out: list[tuple[str, Any, Any, str]] = []
    for name in sorted(set(a.defaults) | set(b.defaults)):
        va, vb = a.defaults.get(name), b.defaults.get(name)
        if str(va) != str(vb):
            out.append((name, va, vb, b.sources.get(name) or a.sources.get(name, "")))
    ma, mb = asdict(a.mechanisms), asdict(b.mechanisms)
    out.extend(
        (name, ma[name], mb[name], b.sources.get(name) or a.sources.get(name, ""))
        for name in ma
        if ma[name] != mb[name]
    )
    return out


CONSTANTS_ENV = "NDBSIM_CONSTANTS"
"""Environment variable naming a constants file (what ``ndbsim calibrate -o FILE`` writes) to use
instead of the packaged ``calibrated.yaml``; ``use_constants`` and ``--constants`` set it, so
sweep worker processes see the same constants."""


def constants_file() -> Path:
    """The constants file in use: ``$NDBSIM_CONSTANTS`` if set, else the packaged one."""
    return Path(os.environ[CONSTANTS_ENV]) if os.environ.get(CONSTANTS_ENV) else CALIBRATED_FILE


def use_constants(path: str | Path | None) -> None:
    """Use the fitted constants in ``path`` from now on (None: the packaged ones again). The file
    must be what ``ndbsim calibrate --output`` writes."""
    if path is None:
        os.environ.pop(CONSTANTS_ENV, None)
    else:
        p = Path(path)
        if not p.is_file():
            raise InputError(
                f"{str(p)!r} is not a file; give the constants file ndbsim calibrate --output wrote",
                field="--constants",
            )
        data = _read_constants(p)
        if not isinstance(data, dict) or not isinstance(data.get("shared", data.get("profiles")), dict):
            raise InputError(
                f"{str(p)!r} holds no fitted constants (no shared: or profiles: section); give the "
                "file ndbsim calibrate --output wrote",
                field="--constants",
            )
        os.environ[CONSTANTS_ENV] = str(p.resolve())
    reload_calibration()


def _read_constants(path: Path) -> Any:
    from ndbsim.input.profiles.constants_check import check_constants
    from ndbsim.input.safe_load import read_yaml_file

    data = read_yaml_file(path, "constants file (ndbsim calibrate --output)")
    check_constants(data, Constants.names(), str(path))
    return data


@cache
def _calibrated() -> dict[str, Any]:
    path = constants_file()
    if not path.exists():
        if path != CALIBRATED_FILE:
            raise InputError(
                f"{str(path)!r} (from ${CONSTANTS_ENV}) does not exist; fix or unset it", field=CONSTANTS_ENV
            )
        return {}
    return _read_constants(path) or {}


def calibrated_constants(profile_name: str) -> Constants:
    """Fitted constants for a profile: its own entry, else the shared fit, else defaults."""
    data = _calibrated()
    values = dict(data.get("shared", {}).get("constants", {}))
    values.update(data.get("profiles", {}).get(profile_name, {}).get("constants", {}))
    known = {k: float(v) for k, v in values.items() if k in Constants.names()}
    return Constants(**known)


def reload_calibration() -> None:
    _calibrated.cache_clear()
    _profile_for.cache_clear()
