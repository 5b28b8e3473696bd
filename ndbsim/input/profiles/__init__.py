"""Version profiles: each NDB release family's defaults, mechanisms and fitted constants.

Versions differ by defaults and mechanisms only. The free constants (``Constants``) are
physical speeds of the calibration host; they are fitted by ``ndbsim calibrate`` from the
published cases and stored, with their residuals, in ``calibrated.yaml`` beside this file.
A scenario's ``host.core_speed`` scales every CPU-bound constant for other hardware.

The modules: ``constants`` (the free and the protocol constants), ``mechanisms`` (what a
release does), ``releases`` (the release table: families, defaults, sources), ``calibrated``
(the fitted constants on disk), ``lookup`` (a version's profile, ``profile_for``). Their names
are re-exported here.
"""

from __future__ import annotations

from ndbsim.input.profiles.calibrated import (
    CALIBRATED_FILE,
    CONSTANTS_ENV,
    calibrated_constants,
    constants_file,
)
from ndbsim.input.profiles.constants import (
    DELETE_RECOVERY_WORK,
    HEARTBEAT_INCLUSION_SECS,
    LCP_CPU_SECS_PER_BYTE,
    LCP_TABLE_DESCRIPTION_SECS,
    METADATA_SECS_PER_TABLE,
    PARTIAL_LCP_PARTS,
    SCAN_ROW_SECS,
    Constants,
)
from ndbsim.input.profiles.lookup import (
    QUERY_THREADS_SINCE,
    differences,
    profile_for,
    reload_calibration,
    use_constants,
)
from ndbsim.input.profiles.mechanisms import Mechanisms, unused_params
from ndbsim.input.profiles.releases import (
    KNOWN_VERSIONS,
    RELEASE_FORMS,
    SOURCES,
    Profile,
    canonical_release,
    parse_version,
)

__all__ = [
    "CALIBRATED_FILE",
    "CONSTANTS_ENV",
    "DELETE_RECOVERY_WORK",
    "HEARTBEAT_INCLUSION_SECS",
    "KNOWN_VERSIONS",
    "LCP_CPU_SECS_PER_BYTE",
    "LCP_TABLE_DESCRIPTION_SECS",
    "METADATA_SECS_PER_TABLE",
    "PARTIAL_LCP_PARTS",
    "QUERY_THREADS_SINCE",
    "RELEASE_FORMS",
    "SCAN_ROW_SECS",
    "SOURCES",
    "Constants",
    "Mechanisms",
    "Profile",
    "calibrated_constants",
    "canonical_release",
    "constants_file",
    "differences",
    "parse_version",
    "profile_for",
    "reload_calibration",
    "unused_params",
    "use_constants",
]
