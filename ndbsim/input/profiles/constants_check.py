"""Check a constants file (what ``ndbsim calibrate --output`` writes) as strictly as a scenario:
every constant a known name, a finite real number, positive (``hyperthread_gain`` may be 0)."""

from __future__ import annotations

import math
from typing import Any

from ndbsim.errors import InputError, did_you_mean

NON_NEGATIVE = ("hyperthread_gain",)
"""Constants that may be 0: a second hardware thread that adds nothing is a real host. Every
other constant is a rate or a time per unit of work, which 0 would make free (or infinite)."""


def check_constants(data: Any, names: list[str], source: str) -> None:
    """Raise an ``InputError`` naming the file, the key and the value of the first constant that
    is unknown, not a number, not finite or out of range. ``names``: the known constants."""
    if data is None:
        return
    if not isinstance(data, dict):
        raise InputError("not a mapping; give the constants file ndbsim calibrate --output wrote", source=source)
    sections: list[tuple[str, Any]] = []
    if "shared" in data:
        sections.append(("shared", data["shared"]))
    profiles = data.get("profiles")
    if profiles is not None:
        if not isinstance(profiles, dict):
            raise InputError(f"{profiles!r:.60} is not a mapping of profiles", field="profiles", source=source)
        sections.extend((f"profiles.{name}", sec) for name, sec in profiles.items())
    for where, section in sections:
        if not isinstance(section, dict):
            raise InputError(f"{section!r:.60} is not a mapping; write constants: under it", field=where, source=source)
        consts = section.get("constants", {})
        if consts is None:
            continue
        if not isinstance(consts, dict):
            raise InputError(
                f"{consts!r:.60} is not a mapping of constant names to values",
                field=f"{where}.constants",
                source=source,
            )
        for name, value in consts.items():
            field = f"{where}.constants.{name}"
            if name not in names:
                raise InputError(
                    f"unknown constant{did_you_mean(str(name), names)}; use one of {', '.join(names)}",
                    field=field,
                    source=source,
                )
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InputError(f"{value!r:.60} is not a number; write one such as 3.0e-6", field=field, source=source)
            try:
                x = float(value)
            except OverflowError:
                x = math.inf
            if not math.isfinite(x):
                raise InputError(
                    f"{value!r:.60} is not a finite number; write one such as 3.0e-6", field=field, source=source
                )
            if x < 0 or (x == 0 and name not in NON_NEGATIVE):
                bound = "0 or more" if name in NON_NEGATIVE else "a value greater than 0"
                raise InputError(f"{value!r:.60} is out of range; use {bound}", field=field, source=source)
