"""A fit, judged before it is written: every case's figures before and after, which published
figures it puts out of tolerance (the refusal rule) and the tables ``ndbsim calibrate`` prints."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ndbsim.studies.calibration.cases import GATING_ROLES, Case, Row, compare, predict


@dataclass
class Change:
    """One figure of one case, before and after a fit."""

    before: Row
    after: Row
    published: bool
    """Whether the figure belongs to a published case (not the user's own restarts)."""

    @property
    def worse(self) -> bool:
        """Within its tolerance before the fit, outside it after."""
        return not self.before.info and self.before.ok and not self.after.ok

    def score(self, row: Row) -> float:
        """The error in units of the tolerance (1 = at its edge)."""
        return abs(row.error) / row.allowed if row.allowed > 0 else math.inf


def review(cases: list[Case], before: Callable[[Case], dict], after: Callable[[Case], dict]) -> list[Change]:
    """Every figure of every case, predicted by ``before`` and ``after`` (each case to its figures)."""
    out: list[Change] = []
    for case in cases:
        pairs = zip(compare(case, before(case)), compare(case, after(case)))
        out.extend(Change(b, a, not case.imported) for b, a in pairs)
    return out


def with_constants(constants) -> Callable[[Case], dict]:
    """A case's figures with ``constants`` (None: the constants in use)."""
    return lambda case: predict(case, constants)


def refused(changes: list[Change]) -> list[Change]:
    """The published figures of counted cases (fit, validate) the fit puts out of tolerance: the
    fit is refused unless accepted. Info and reference cases are shown, never a reason to refuse."""
    return [c for c in changes if c.published and c.worse and c.before.role in GATING_ROLES]


def _err(row: Row) -> str:
    if not math.isfinite(row.predicted):
        return "never"
    return f"{100 * row.rel_error:+.0f}%" if row.published else f"{row.error:+.1f}s"


def format_cases(changes: list[Change]) -> str:
    """One line per case: its figures within tolerance and its worst error, before → after."""
    lines = [f"{'case':34s} {'within tolerance':>18s}  {'worst error (×tolerance)':>26s}"]
    for name in dict.fromkeys(c.before.case for c in changes):
        mine = [c for c in changes if c.before.case == name and not c.before.info]
        ok_b, ok_a = sum(c.before.ok for c in mine), sum(c.after.ok for c in mine)
        worst_b = max((c.score(c.before) for c in mine), default=0.0)
        worst_a = max((c.score(c.after) for c in mine), default=0.0)
        mark = "  WORSE" if any(c.worse for c in mine) else ""
        lines.append(
            f"{name:34s} {f'{ok_b}/{len(mine)} → {ok_a}/{len(mine)}':>18s}  "
            f"{f'{worst_b:.2f} → {worst_a:.2f}':>26s}{mark}"
        )
    return "\n".join(lines) + "\n"


def format_figures(changes: list[Change], only: Callable[[Change], bool] = lambda c: True) -> str:
    """The figures ``only`` picks, node by node: published, before, after, error before → after."""
    head = f"{'case':28s} {'node':>4s} {'figure':42s} {'published':>9s} {'before':>9s} {'after':>9s}  error"
    lines = [head]
    for c in changes:
        if not only(c):
            continue
        b, a = c.before, c.after
        node = "" if b.node is None else str(b.node)
        mark = "  WORSE" if c.worse else ("" if a.ok else "  out")
        lines.append(
            f"{b.case:28s} {node:>4s} {b.figure:42s} {b.published:9.1f} {b.predicted:9.1f} {a.predicted:9.1f}"
            f"  {_err(b)} → {_err(a)}{mark}"
        )
    return "\n".join(lines) + "\n"
