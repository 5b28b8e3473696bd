"""``ndbsim check``: every published case, predicted vs published, plus the seeds' variance and
qualitative claims (``claims``).

Each case is predicted as written (the point) and at every corner of its assumptions' ranges
(``case_spec``: the assumptions as data): a validation case passes when its published figure lies within tolerance of
that interval, a fit case when its point does. ``check_cases`` returns the judged figures as
records (``Checked``); ``format_check`` prints them. Cases of role ``info`` and ``reference``
are printed with their error and reason and not counted: exit 1 when a counted figure or a
claim is outside its tolerance.
"""

from __future__ import annotations

import itertools
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ndbsim.studies.calibration.case_spec import Assumption, applied
from ndbsim.studies.calibration.cases import DEFAULT_DIR, Case, Row, compare, figures_of, load_cases, run_case
from ndbsim.studies.calibration.claims import Claim, qualitative_claims, variance_claims

__all__ = ["Checked", "Claim", "broken_cases", "check_case", "check_cases", "format_check", "run_check"]


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


@dataclass
class Checked:
    """One published figure of one case as ``check`` judges it."""

    row: Row
    """The point prediction: the case as written, its assumptions at their values."""
    low: float
    high: float
    """The least and greatest prediction over the corners of the assumptions' ranges (and the point)."""
    corners: int
    """How many corners were predicted (1 when no assumption has a range)."""
    at_defaults: float | None
    """The prediction with every assumed config.ini parameter at NDB's release default (None: the
    case assumes none)."""
    p5: float | None = None
    p95: float | None = None
    """The total's p5 and p95 over the crash's landing point in the LCP cycle (cases with
    replications), at the point; None for phases."""
    percentile: float | None = None
    """The share of the replications' totals below the published total (where it falls in the
    spread over the LCP cycle); None for phases and single-replication cases."""
    gates: bool = True
    """Whether the figure counts in check's exit status (a fit or validate case, not ``info: true``)."""
    reason: str | None = None
    """Why an info or reference case is not counted."""
    release: str | None = None
    """The release the case's scenario names (``version``), e.g. ``7.5.10``; for an accuracy band
    by release family."""

    @property
    def width(self) -> float:
        return self.high - self.low

    @property
    def outside(self) -> float:
        """How far the published figure lies outside the interval (0 inside it)."""
        pub = self.row.published
        return max(self.low - pub, pub - self.high, 0.0)

    @property
    def ok(self) -> bool:
        """A validation figure within tolerance of its interval; any other figure's point within it."""
        if self.row.info:
            return True
        if self.row.role == "validate":
            return self.outside <= self.row.allowed + 1e-9
        return self.row.ok

    @property
    def status(self) -> str:
        if self.row.info:
            return "info"
        if not self.gates:
            return f"{self.row.role}:{'ok' if self.ok else 'out'}"
        return "ok" if self.ok else "FAIL"


def _spread(result, published: float) -> tuple[float | None, float | None, float | None]:
    """The total's p5, p95 over the replications and the share of them below ``published``."""
    totals = getattr(result, "totals", [])
    if len(totals) < 2:
        return None, None, None
    s = result.spread()
    return float(s["p5"]), float(s["p95"]), sum(t < published for t in totals) / len(totals)


def _compared(case: Case, constants, settings: dict) -> list[Row]:
    """The case's figures with ``settings`` (assumption paths to values) over its scenario."""
    return compare(case, figures_of(case, run_case(case, constants, raw=applied(case.raw, settings))))


def check_case(case: Case, constants=None) -> list[Checked]:
    """One case judged: its point, its interval over the assumptions' corners, its prediction at
    NDB's defaults, the total's spread over the LCP cycle."""
    result = run_case(case, constants)
    rows = compare(case, figures_of(case, result))
    corners = variants(case.assumptions)
    found = [_compared(case, constants, c) for c in corners]
    defaults = at_defaults(case.assumptions)
    at_def = _compared(case, constants, defaults) if defaults else None
    p5, p95, pct = _spread(result, rows[0].published)
    out = []
    for i, row in enumerate(rows):
        values = [row.predicted, *(f[i].predicted for f in found)]
        total = row.figure == "total_restart_secs"
        out.append(
            Checked(
                row,
                min(values),
                max(values),
                max(len(corners), 1),
                at_def[i].predicted if at_def else None,
                p5 if total else None,
                p95 if total else None,
                pct if total else None,
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
    interval = f"{_secs(c.low)}–{_secs(c.high)}" if c.corners > 1 else "-"
    width = f"{c.width:.0f}" if c.corners > 1 else "-"
    spread = "-"
    if c.p5 is not None and c.p95 is not None:
        spread = f"{c.p5:.0f}–{c.p95:.0f} @{100 * (c.percentile or 0):.0f}%"
    return (
        f"{r.case:29s} {r.role:9s} {r.label:33s} {_secs(r.published):>9s} {_secs(r.predicted):>9s} {_err(r):>6s} "
        f"{interval:>11s} {width:>5s} {_secs(c.at_defaults):>8s} {spread:>15s}  {c.status}"
    )


HEADER = (
    f"{'case':29s} {'role':9s} {'figure':33s} {'published':>9s} {'predicted':>9s} {'error':>6s} "
    f"{'interval':>11s} {'width':>5s} {'defaults':>8s} {'p5–p95 @pub':>15s}  ok"
)


def format_check(checked: list[Checked], found: list[Claim]) -> str:
    """The table: per figure the point prediction and its error, the interval over the
    assumptions' ranges and its width, the prediction at NDB's defaults and the total's p5–p95
    over the LCP cycle; then the uncounted cases' reasons, the claims and the count."""
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
    lines.append(
        "validation cases pass when the published figure lies within tolerance of the interval over their "
        "assumptions' ranges; fit cases on their point; defaults: every assumed config.ini parameter at "
        "NDB's release default; p5–p95: the total over the crash's landing point in the LCP cycle, @ the share "
        "of it below the published total"
    )
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
