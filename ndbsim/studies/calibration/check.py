"""``ndbsim check``: every published case, predicted vs published, plus the seeds' variance and
qualitative claims (``claims``).

The gate's rule (``RULE``, printed under the table): each figure is judged on one of two rules,
and the table says which.

- ``point``: the prediction with the case's assumptions at the values its file fixed before the
  answer was looked at (the median over its landing points in the LCP cycle) lies within the
  figure's tolerance of the published one. Every validation figure, and a fit figure whose
  spread over the crash's landing point is within its tolerance.
- ``p5–p95``: a fit figure whose spread over the landing point is wider than its tolerance (7.5's
  wait for LCP) was published from one run, one draw of that spread: it passes when the published
  figure lies inside the spread's p5–p95.

The prediction at every corner of the assumptions' ranges (``case_spec``) is shown beside it as a
sensitivity (how far the unknown inputs could move the figure), never as a pass band.
``check_cases`` returns the judged figures as records (``Checked``); ``format_check`` prints
them. Cases of role ``info`` and ``reference`` are printed with their error and reason and not
counted: exit 1 when a counted figure or a claim is outside its tolerance.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ndbsim.output.result import quantile
from ndbsim.studies.calibration.case_spec import Assumption, applied
from ndbsim.studies.calibration.cases import DEFAULT_DIR, Case, Row, compare, figures_of, load_cases, run_case
from ndbsim.studies.calibration.claims import Claim, qualitative_claims, variance_claims

__all__ = ["RULE", "Checked", "Claim", "broken_cases", "check_case", "check_cases", "format_check", "run_check"]

POINT, DRAW = "point", "p5–p95"
"""The two rules a figure is judged on (``Checked.rule``)."""
RULE = (
    "rule: a figure passes when its point (the assumptions at the values each case file fixed beforehand; "
    "the median over the crash's landing points in the LCP cycle) is within its tolerance of the published "
    "figure [point]; a fit figure whose p5–p95 over the landing points reaches beyond its tolerance of that "
    "median was published from one run, one draw of the spread, and passes when the published figure lies "
    "inside the p5–p95 [p5–p95]; validation figures are always judged on their point. sensitivity: the "
    "least and greatest prediction with each assumption at each end of its range, one at a time, shown, not "
    "a pass band. "
    "defaults: every assumed config.ini parameter at NDB's release default. @: the share of the landing "
    "points below the published figure. info and reference cases are not counted."
)
"""The rule ``ndbsim check`` judges by, printed under its table (and in calibration/README.md)."""


def variants(assumptions: list[Assumption]) -> list[dict[str, Any]]:
    """The settings of the sensitivity: each ranged assumption at each end of its range, one at a
    time, the others at their values (2 predictions an assumption, not 2**n corners: the case
    files list every unstated input, and 7.5's fit case is 101 landing points a prediction)."""
    return [{a.path: end} for a in assumptions if a.ranged for end in (a.low, a.high)]


def at_defaults(assumptions: list[Assumption]) -> dict[str, Any] | None:
    """The settings with every assumption that has NDB's default at it; None when none has."""
    found = {a.path: a.default for a in assumptions if a.default is not None}
    return found or None


@dataclass
class Checked:
    """One published figure of one case as ``check`` judges it."""

    row: Row
    """The point prediction: the case as written, its assumptions at their values."""
    low: float
    high: float
    """The least and greatest prediction with each ranged assumption at each end of its range, one at
    a time (and the point): the sensitivity, shown, never a pass band."""
    corners: int
    """How many predictions the sensitivity took beside the point (1 when no assumption has a range)."""
    at_defaults: float | None
    """The prediction with every assumed config.ini parameter at NDB's release default (None: the
    case assumes none)."""
    p5: float | None = None
    p95: float | None = None
    """The figure's p5 and p95 over the crash's landing point in the LCP cycle (cases with
    replications), at the point; None for a single replication or a node's own figure."""
    percentile: float | None = None
    """The share of the replications below the published figure (where it falls in the spread
    over the LCP cycle); None where p5 and p95 are."""
    gates: bool = True
    """Whether the figure counts in check's exit status (a fit or validate case, not ``info: true``)."""
    reason: str | None = None
    """Why an info or reference case is not counted."""
    release: str | None = None
    """The release the case's scenario names (``version``), e.g. ``7.5.10``; for an accuracy band
    by release family."""

    @property
    def width(self) -> float:
        """The sensitivity's width: how far the assumptions' ranges move the figure."""
        return self.high - self.low

    @property
    def spread_within_tolerance(self) -> bool:
        """Whether every landing point from p5 to p95 lies within the figure's tolerance of the
        point (True without a spread: one replication)."""
        if self.p5 is None or self.p95 is None:
            return True
        point, allowed = self.row.predicted, self.row.allowed + 1e-9
        return point - self.p5 <= allowed and self.p95 - point <= allowed

    @property
    def rule(self) -> str:
        """``point`` or ``p5–p95``: the rule the figure is judged on (``RULE``)."""
        if self.row.role == "fit" and not self.spread_within_tolerance:
            return DRAW
        return POINT

    @property
    def ok(self) -> bool:
        """The figure passes its rule (``RULE``); an ``info: true`` figure always does."""
        if self.row.info:
            return True
        if self.rule == DRAW:
            assert self.p5 is not None and self.p95 is not None
            return self.p5 - 1e-9 <= self.row.published <= self.p95 + 1e-9
        return self.row.ok

    @property
    def status(self) -> str:
        if self.row.info:
            return "info"
        if not self.gates:
            return f"{self.row.role}:{'ok' if self.ok else 'out'}"
        return "ok" if self.ok else "FAIL"


def _values(result, row: Row) -> list[float]:
    """The figure of ``row`` in each replication: the total, or the slowest node's phase (none for
    a node's own figure, or a model without per-replication phases)."""
    if row.node is not None:
        return []
    if row.figure == "total_restart_secs":
        return list(getattr(result, "totals", []))
    phase_values = getattr(getattr(result, "replications", None), "phase_values", None)
    if phase_values is None:
        return []
    try:
        return list(phase_values(row.figure))
    except ValueError:  # not one of restart_info's phases
        return []


def _spread(result, row: Row) -> tuple[float | None, float | None, float | None]:
    """The figure's p5, p95 over the replications and the share of them below its published value."""
    values = _values(result, row)
    if len(values) < 2:
        return None, None, None
    share = sum(v < row.published for v in values) / len(values)
    return quantile(values, 0.05), quantile(values, 0.95), share


def _compared(case: Case, constants, settings: dict) -> list[Row]:
    """The case's figures with ``settings`` (assumption paths to values) over its scenario."""
    return compare(case, figures_of(case, run_case(case, constants, raw=applied(case.raw, settings))))


def check_case(case: Case, constants=None) -> list[Checked]:
    """One case judged: its point, its sensitivity to the assumptions' ranges, its prediction at
    NDB's defaults, each figure's spread over the LCP cycle."""
    result = run_case(case, constants)
    rows = compare(case, figures_of(case, result))
    corners = variants(case.assumptions)
    found = [_compared(case, constants, c) for c in corners]
    defaults = at_defaults(case.assumptions)
    at_def = _compared(case, constants, defaults) if defaults else None
    out = []
    for i, row in enumerate(rows):
        values = [row.predicted, *(f[i].predicted for f in found)]
        p5, p95, pct = _spread(result, row)
        out.append(
            Checked(
                row,
                min(values),
                max(values),
                max(len(corners), 1),
                at_def[i].predicted if at_def else None,
                p5,
                p95,
                pct,
                case.gates and not row.info,
                case.reason,
                None if case.raw.get("version") is None else str(case.raw["version"]),
            )
        )
    return out


def check_cases(directory: Path | str = DEFAULT_DIR, constants=None) -> list[Checked]:
    """Every case of ``directory`` judged (``check_case``), in file order: the records ``ndbsim
    check`` prints and other studies read (e.g. an accuracy band from the validation errors)."""
    return [checked for case in load_cases(directory) for checked in check_case(case, constants)]


def run_check(directory: Path | str = DEFAULT_DIR, claims: bool = True) -> tuple[list[Checked], list[Claim]]:
    found = (variance_claims() + qualitative_claims()) if claims else []
    return check_cases(directory), found


def failed(checked: list[Checked], found: list[Claim]) -> bool:
    """Whether ``check`` exits 1: a counted figure or a claim outside its tolerance."""
    return any(c.gates and not c.ok for c in checked) or any(not c.ok for c in found)


def _secs(x: float | None) -> str:
    if x is None:
        return "-"
    if not math.isfinite(x):
        return "never"
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.1f}"


def _err(row: Row) -> str:
    if not math.isfinite(row.predicted):
        return "never"
    return f"{100 * row.rel_error:+.0f}%" if row.published else f"{row.error:+.1f}s"


def _line(c: Checked) -> str:
    r = c.row
    sensitivity = f"{_secs(c.low)}–{_secs(c.high)}" if c.corners > 1 else "-"
    width = f"{c.width:.0f}" if c.corners > 1 else "-"
    spread = "-"
    if c.p5 is not None and c.p95 is not None:
        at = f" @{100 * (c.percentile or 0):.0f}%" if c.p95 > c.p5 else ""
        spread = f"{_secs(c.p5)}–{_secs(c.p95)}{at}"
    rule = "-" if r.info else c.rule
    return (
        f"{r.case:29s} {r.role:9s} {r.label:33s} {_secs(r.published):>9s} {_secs(r.predicted):>9s} {_err(r):>6s} "
        f"{spread:>17s} {rule:>7s}  {c.status:13s} {sensitivity:>11s} {width:>5s} {_secs(c.at_defaults):>8s}"
    ).rstrip()


HEADER = (
    f"{'case':29s} {'role':9s} {'figure':33s} {'published':>9s} {'predicted':>9s} {'error':>6s} "
    f"{'p5–p95 @pub':>17s} {'rule':>7s}  {'ok':13s} {'sensitivity':>11s} {'width':>5s} {'defaults':>8s}"
)


def format_check(checked: list[Checked], found: list[Claim]) -> str:
    """The table: per figure the point prediction and its error, its p5–p95 over the crash's
    landing point, the rule it is judged on and the judgment, then the sensitivity to the
    assumptions' ranges and its width and the prediction at NDB's defaults; then the uncounted
    cases' reasons, the claims, the rule and the count."""
    lines = [HEADER, *(_line(c) for c in checked)]
    reasons = {c.row.case: (c.row.role, c.reason) for c in checked if not c.gates and c.reason}
    if reasons:
        lines.append("")
        lines.append("not counted in the exit status:")
        lines += [f"  {name} ({role}): {why}" for name, (role, why) in reasons.items()]
    if found:
        lines.append("")
        lines += [f"{'ok  ' if c.ok else 'FAIL'} {c.name}: {c.detail}" for c in found]
    counted = [c for c in checked if c.gates]
    bad = sum(not c.ok for c in counted) + sum(not c.ok for c in found)
    total = len(counted) + len(found)
    lines.append("")
    lines.append(RULE)  # one line: fitted to the terminal where it is printed (output.stdout.fit)
    lines.append(f"{total - bad} passed, {bad} failed" if bad else f"all {total} checks within tolerance")
    return "\n".join(lines) + "\n"


def broken_cases(constants: Path | str, directory: Path | str = DEFAULT_DIR) -> list[str]:
    """The counted published figures (``case: phase``) outside their tolerance with the constants
    in ``constants`` (what ``ndbsim calibrate`` just wrote); the constants in use are restored."""
    from ndbsim.input.profiles import CONSTANTS_ENV, reload_calibration, use_constants

    before = os.environ.get(CONSTANTS_ENV)
    use_constants(constants)
    try:
        checked = check_cases(directory)
    finally:
        if before is None:
            os.environ.pop(CONSTANTS_ENV, None)
        else:
            os.environ[CONSTANTS_ENV] = before
        reload_calibration()
    return [f"{c.row.case}: {c.row.label}" for c in checked if c.gates and not c.ok]
