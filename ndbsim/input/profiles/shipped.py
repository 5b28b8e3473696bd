"""Which NDB releases NDB Cluster shipped: a release the release notes never list (``8.0.99``) is
an input error naming the nearest ones, wherever a release is given (``profiles.profile_for``
checks every version, ``--version``, ``restart.upgrade_to`` and ``params --diff`` with it).

The list is data, ``ndbsim/input/data/ndb_releases.yaml``, with its source per line (the NDB
Cluster release notes); a line it does not list is not checked."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from ndbsim.errors import InputError

RELEASES_FILE = Path(__file__).resolve().parents[1] / "data" / "ndb_releases.yaml"
"""The releases NDB shipped, per line (first and last patch), from the NDB Cluster release notes."""


@cache
def shipped_lines() -> dict[str, Any]:
    """The release file's contents: ``as_of`` and, per ``major.minor`` line, ``first``, ``last``
    and ``source``."""
    from ndbsim.input.safe_load import load_yaml

    return dict(load_yaml(RELEASES_FILE.read_text(encoding="utf-8")))


def check_shipped(version: str) -> None:
    """Raise ``InputError`` (field ``version``) when ``version`` is a whole release (X.Y.Z) of a
    listed line outside the patches NDB shipped; a release line (``8.4``) or an unlisted line
    passes."""
    m = re.fullmatch(r"\s*(\d+)\.(\d+)\.(\d+)\S*\s*", str(version))
    data = shipped_lines()
    if not m or f"{m.group(1)}.{m.group(2)}" not in data["lines"]:
        return
    line, patch = f"{m.group(1)}.{m.group(2)}", int(m.group(3))
    known = data["lines"][line]
    first, last = int(known["first"]), int(known["last"])
    if first <= patch <= last:
        return
    if first == last:
        span, nearest = f"its one {line} release is {line}.{first}", f"{line}.{first}"
    else:
        span = f"its {line} releases run {line}.{first} to {line}.{last}"
        nearest = f"{line}.{last}, the newest" if patch > last else f"{line}.{first}, the first"
    raise InputError(
        f"NDB never shipped {line}.{patch}: {span} (NDB release notes, as of {data['as_of']}); use {nearest}",
        field="version",
    )
