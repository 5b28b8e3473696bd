"""A version string's profile: its family's defaults and mechanisms, corrected for the patch
release, with the calibrated constants; the differences between two releases; the choice of
constants file."""

from __future__ import annotations

import os
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.profiles.calibrated import (
    CONSTANTS_ENV,
    calibrated_constants,
    calibrated_data,
    read_constants,
)
from ndbsim.input.profiles.releases import (
    FAMILY,
    KNOWN_VERSIONS,
    PROFILES,
    Profile,
    canonical_release,
    parse_version,
    sources_of,
)
from ndbsim.input.profiles.shipped import check_shipped


def profile_for(version: str) -> Profile:
    """The profile for an NDB release such as ``"7.6.6"`` (or ``ndb-7.6.6``, as NDB prints it), with
    the defaults that depend on the patch release and the calibrated constants (cached per release)."""
    return _profile_for(str(canonical_release(version)))


QUERY_THREADS_SINCE = (8, 0, 23)
"""The release of query and recover threads, AutomaticThreadConfig and LDM counts 1–332 (8.0.23
release notes; reference §8, §11)."""


PGMAN_LCP_PACING_SINCE = (8, 0, 20)
"""The first release ndbsim gives PGMAN's paced LCP writes (``Mechanisms.pgman_lcp_pacing``): the
2019 pgman.cpp (8.0.1x) lacks ``do_track_handle_lcp_speed_loop``, the 2023 one (8.0.3x) has it; the
release between that brought it was not found, so ndbsim takes 8.0.20, the first 8.0 release after
the 2019 file (reference §14.1)."""


@cache
def _profile_for(version: str) -> Profile:
    major, minor, patch = parse_version(version)
    key = f"{major}.{minor}"
    if key not in FAMILY:
        raise InputError(
            f'NDB version {version!r} is not modelled; use one of {", ".join(KNOWN_VERSIONS)} (e.g. "7.6.6")',
            field="version",
        )
    check_shipped(version)
    family = FAMILY[key]
    if key == "7.6" and patch < 4:
        family = "7.5"  # the 7.6 milestones before 7.6.4 had no partial LCP yet ([RN764], §2.3)
    base = PROFILES[family]
    defaults = dict(base.defaults)
    sources = sources_of(family)
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
    if family == "8.0" and (major, minor, patch) >= PGMAN_LCP_PACING_SINCE:
        mechanisms = replace(mechanisms, pgman_lcp_pacing=True)
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
        data = read_constants(p)
        if not isinstance(data, dict) or not isinstance(data.get("shared", data.get("profiles")), dict):
            raise InputError(
                f"{str(p)!r} holds no fitted constants (no shared: or profiles: section); give the "
                "file ndbsim calibrate --output wrote",
                field="--constants",
            )
        os.environ[CONSTANTS_ENV] = str(p.resolve())
    reload_calibration()


def reload_calibration() -> None:
    """Read the constants file again and rebuild the profiles with it."""
    calibrated_data.cache_clear()
    _profile_for.cache_clear()
