"""The calibration case file's format (calibration/README.md), checked with pydantic when a case
is loaded (``cases.case_from_data``), and its assumptions as data.

A case's assumptions are the inputs its source does not state, each written in the case file
before the answer is looked at, with the value used, a plausible range chosen from its
reasoning (release defaults, the hardware of its year, what the source says of the setup;
never from the published figure), NDB's release default where it is a config.ini parameter
the setup could have left alone, and why. ``ndbsim check`` predicts a case at each end of each
range, one assumption at a time (``check.variants``: the sensitivity), and at the defaults
(``check.at_defaults``). Every other input the case's scenario sets is one its source states,
listed under ``states:`` with the source's words (``stated_paths``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field
from pydantic_core import PydanticCustomError

from ndbsim.input.fields import StrictModel
from ndbsim.input.scenario.overrides import copy_raw, set_path
from ndbsim.studies.calibration.restart_rows import MAX_SECS

MAX_RANGED = 8
"""At most this many assumptions of one case may carry a range: ``check`` predicts the case at
each end of each (16 predictions of the case beside its point; seed 003's 7.5.10 case is 101
landing points a prediction), which keeps ``ndbsim check`` to seconds."""
UNSTATED_KEYS = ("name", "kind", "simulation")
"""Scenario keys that are not inputs of the restart a source describes: the scenario's label, its
model, and how it is simulated (seed, replications: the case's own ``replications`` rules)."""


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


CASE_KEYS = {
    "source",
    "role",
    "reason",
    "scenario",
    "overrides",
    "replications",
    "seed",
    "stated",
    "states",
    "assumed",
    "assumptions",
    "published",
}
"""The top-level keys a calibration case file may have (the case format of calibration/README.md);
any other key is an error."""
MAX_REPLICATIONS = 1000
"""A case's ``replications`` cap: the published cases use at most 21, and ``ndbsim check`` and
every step of the fit simulate each case that many times, so more would run for hours."""


def _no_bool(v: Any) -> Any:
    if isinstance(v, bool):
        raise PydanticCustomError("bool_not_number", "a boolean is not a number")
    return v


Number = Annotated[float, BeforeValidator(_no_bool)]
Whole = Annotated[int, BeforeValidator(_no_bool)]


class FigureSpec(StrictModel):
    """One published figure: ``{value: SECONDS, tolerance: FRACTION, abs_tolerance: SECONDS,
    info: BOOL, note: TEXT}``."""

    value: Annotated[Number, Field(ge=0, le=MAX_SECS)]
    tolerance: Annotated[Number, Field(ge=0)] | None = None
    abs_tolerance: Annotated[Number, Field(ge=0, le=MAX_SECS)] | None = None
    info: bool = False
    note: Any = None


class NodeSpec(StrictModel):
    """One node's own restart, as a restart_info row gives it: ``{node_id: NODEID, line: N,
    total_restart_secs: FIGURE, phases: {COLUMN: FIGURE}}``; phases are restart_info's columns."""

    node_id: Annotated[Whole, Field(ge=1, le=255)]
    line: Annotated[Whole, Field(ge=1)] | None = None
    total_restart_secs: FigureSpec
    phases: dict[str, FigureSpec] | None = None


class PublishedSpec(StrictModel):
    total_restart_secs: FigureSpec | None = None
    phases: dict[str, FigureSpec] | None = None
    nodes: list[NodeSpec] | None = None
    """Restarts node by node (an imported restart_info export): each compared with that node's
    own simulated restart, never with a multi-node window."""


class CaseSpec(StrictModel):
    source: Any = None
    role: Literal["fit", "validate", "info", "reference"]
    reason: str | None = None
    scenario: Any
    overrides: list[str] | None = None
    replications: Annotated[Whole, Field(ge=1, le=MAX_REPLICATIONS)] | None = None
    seed: Annotated[Whole, Field(ge=0)] | None = None
    stated: Any = None
    states: dict[str, str] | None = None
    """The scenario inputs the source states, each keyed by its scenario path with the source's words."""
    assumed: Any = None
    assumptions: dict[str, AssumptionSpec] | None = None
    published: PublishedSpec


def keys_at(loc: tuple[Any, ...]) -> tuple[str, ...]:
    """The keys a case file allows beside an unknown key at ``loc`` (for "did you mean")."""
    if len(loc) == 1:
        return tuple(CASE_KEYS)
    if loc[:-1] == ("published",):
        return tuple(PublishedSpec.model_fields)
    if len(loc) == 4 and loc[:2] == ("published", "nodes"):
        return tuple(NodeSpec.model_fields)
    if len(loc) == 3 and loc[0] == "assumptions":
        return tuple(AssumptionSpec.model_fields)
    return tuple(FigureSpec.model_fields)


def scenario_inputs(raw: dict[str, Any], prefix: str = "") -> list[str]:
    """Every input a raw scenario sets, as dotted paths to its leaves (``cluster.config.DataMemory``,
    ``workload.before_restart.duration``), without ``UNSTATED_KEYS``; an inline list is one input."""
    out: list[str] = []
    for key, value in raw.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if not prefix and key in UNSTATED_KEYS:
            continue
        if isinstance(value, dict) and value:
            out += scenario_inputs(value, path)
        else:
            out.append(path)
    return out
