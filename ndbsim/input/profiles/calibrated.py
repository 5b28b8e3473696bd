"""The fitted constants on disk: the packaged ``calibrated.yaml`` or the file ``$NDBSIM_CONSTANTS``
names, read (and checked) once."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.profiles.constants import Constants

CALIBRATED_FILE = Path(__file__).with_name("calibrated.yaml")
"""``calibrated.yaml`` beside this file: the free constants fitted by ``ndbsim calibrate`` on the
``fit`` cases in calibration/ (its ``fitted_on`` lists them), with residuals; written by
``calibrate.write_calibration``, read by ``calibrated_constants``."""


CONSTANTS_ENV = "NDBSIM_CONSTANTS"
"""Environment variable naming a constants file (what ``ndbsim calibrate -o FILE`` writes) to use
instead of the packaged ``calibrated.yaml``; ``use_constants`` and ``--constants`` set it, so
sweep worker processes see the same constants."""


def constants_file() -> Path:
    """The constants file in use: ``$NDBSIM_CONSTANTS`` if set, else the packaged one."""
    return Path(os.environ[CONSTANTS_ENV]) if os.environ.get(CONSTANTS_ENV) else CALIBRATED_FILE


def read_constants(path: Path) -> Any:
    """A constants file's data, checked as strictly as a scenario (``constants_check``)."""
    from ndbsim.input.profiles.constants_check import check_constants
    from ndbsim.input.safe_load import read_yaml_file

    data = read_yaml_file(path, "constants file (ndbsim calibrate --output)")
    check_constants(data, Constants.names(), str(path))
    return data


@cache
def calibrated_data() -> dict[str, Any]:
    """The constants file in use, read once (``lookup.reload_calibration`` reads it again)."""
    path = constants_file()
    if not path.exists():
        if path != CALIBRATED_FILE:
            raise InputError(
                f"{str(path)!r} (from ${CONSTANTS_ENV}) does not exist; fix or unset it", field=CONSTANTS_ENV
            )
        return {}
    return read_constants(path) or {}


def calibrated_constants(profile_name: str) -> Constants:
    """Fitted constants for a profile: its own entry, else the shared fit, else defaults."""
    data = calibrated_data()
    values = dict(data.get("shared", {}).get("constants", {}))
    values.update(data.get("profiles", {}).get(profile_name, {}).get("constants", {}))
    known = {k: float(v) for k, v in values.items() if k in Constants.names()}
    return Constants(**known)
