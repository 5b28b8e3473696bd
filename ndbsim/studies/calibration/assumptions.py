"""A case's assumptions: the inputs its source does not state, each written in the case file
before the answer is looked at, with the value used, a plausible range chosen from its
reasoning (release defaults, the hardware of its year, what the source says of the setup;
never from the published figure), NDB's release default where it is a config.ini parameter
the setup could have left alone, and why.

``ndbsim check`` predicts a case at every corner of its assumptions' ranges (``variants``):
the predicted interval beside the point prediction, and the prediction with every config.ini
assumption at NDB's default (``at_defaults``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from ndbsim.input.fields import StrictModel
from ndbsim.input.scenario.overrides import copy_raw, set_path

MAX_RANGED = 6
"""At most this many assumptions of one case may carry a range: ``check`` predicts the case at
every corner (2**6 = 64 predictions of the case), which keeps ``ndbsim check`` to seconds."""


class AssumptionSpec(StrictModel):
    """One assumed input: ``{value: V, range: [LOW, HIGH], default: D, why: TEXT}`` under
    ``assumptions:``, keyed by its scenario path (``host.core_speed``,
    ``cluster.config.MaxDiskWriteSpeedOtherNodeRestart``)."""

    value: Any
    range: list[Any] | None = Field(None, min_length=2, max_length=2)
    default: Any = None
    why: str


@dataclass(frozen=True)
class Assumption:
    path: str
    value: Any
    low: Any
    high: Any
    default: Any
    why: str

    @property
    def ranged(self) -> bool:
        return self.low != self.high


def assumptions_of(specs: dict[str, AssumptionSpec] | None) -> list[Assumption]:
    """The case file's ``assumptions:`` in order; an assumption without a range is the value alone."""
    out = []
    for path, spec in (specs or {}).items():
        low, high = spec.range if spec.range is not None else (spec.value, spec.value)
        out.append(Assumption(path, spec.value, low, high, spec.default, spec.why))
    return out


def applied(raw: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
    """A copy of the raw scenario ``raw`` with each ``path: value`` of ``settings`` set."""
    out = copy_raw(raw)
    for path, value in settings.items():
        set_path(out, path, value)
    return out


def variants(assumptions: list[Assumption]) -> list[dict[str, Any]]:
    """The settings of every corner of the ranged assumptions (the others keep their value)."""
    ranged = [a for a in assumptions if a.ranged]
    return [
        {a.path: v for a, v in zip(ranged, corner, strict=True)}
        for corner in itertools.product(*[(a.low, a.high) for a in ranged])
    ]


def at_defaults(assumptions: list[Assumption]) -> dict[str, Any] | None:
    """The settings with every assumption that has NDB's default at it; None when none has."""
    found = {a.path: a.default for a in assumptions if a.default is not None}
    return found or None
