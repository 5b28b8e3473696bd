"""``ndbsim check --cross``: how far a calibration carries. For each NDB ``fit`` case, the shared
constants are refitted without it and the case is predicted with them; the leave-one-out
error per case and phase says how well the constants predict a restart they never saw."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ndbsim.studies.calibration.calibrate import fit
from ndbsim.studies.calibration.cases import DEFAULT_DIR, Row, compare, load_cases, predict
from ndbsim.studies.calibration.fit_progress import Steps
from ndbsim.studies.uncertainty.covariance import held_out_interval


@dataclass
class Held:
    """One fit case predicted by constants fitted without it."""

    case: str
    rows: list[Row]
    steps: int
    interval: dict | None = None
    """The held-out total's predictive interval (``uncertainty.held_out_interval``)."""

    @property
    def covered(self) -> bool | None:
        """Whether the published total lies inside the predictive p5–p95 (None: no total published)."""
        total = next((r for r in self.rows if r.figure == "total_restart_secs" and not r.info), None)
        if total is None or not self.interval:
            return None
        return bool(self.interval["p5"] <= total.published <= self.interval["p95"])


def cross(directory: Path | str = DEFAULT_DIR, progress: bool = False) -> list[Held]:
    """Leave-one-out over the NDB fit cases of ``directory``."""
    cases = load_cases(directory)
    fit_cases = [c for c in cases if c.role == "fit" and c.model.constants_file is None]
    out = []
    for held in fit_cases:
        rest = [c for c in cases if c is not held]
        with Steps(progress, f"refit without {held.name}") as steps:
            constants, _ = fit(rest, steps)
        interval = held_out_interval(held, rest, constants)
        out.append(Held(held.name, compare(held, predict(held, constants)), steps.count, interval))
    return out


def own_held_out(directory: Path | str = DEFAULT_DIR) -> list[dict]:
    """Leave-one-out for the models with constants of their own (InnoDB's, seed 002): each case
    predicted by those constants fitted on the model's other cases."""
    cases = load_cases(directory)
    models = {id(c.model): c.model for c in cases if c.model.constants_file is not None}
    return [record for m in models.values() for record in m.hold_out(Path(directory))]


def format_own_held_out(found: list[dict]) -> str:
    lines = [f"{'held-out case':30s} {'fitted on':>9s} {'published':>9s} {'predicted':>9s} {'error':>7s}  ok"]
    for r in found:
        ok = "ok" if abs(r["error"]) <= r["tolerance"] else "out"
        lines.append(
            f"{r['case']:30s} {len(r['fitted_on']):>9d} {r['published']:9.1f} {r['predicted']:9.1f} "
            f"{100 * r['error']:+6.0f}%  {ok}"
        )
    return "\n".join(lines) + "\n"


def format_cross(found: list[Held]) -> str:
    lines = [f"{'held-out case':28s} {'figure':42s} {'published':>9s} {'predicted':>9s} {'error':>7s}  ok"]
    for h in found:
        for r in h.rows:
            err = f"{100 * r.rel_error:+.0f}%" if r.published else f"{r.error:+.1f}s"
            mark = "info" if r.info else ("ok" if r.ok else "out")
            lines.append(f"{h.case:28s} {r.label:42s} {r.published:9.1f} {r.predicted:9.1f} {err:>7s}  {mark}")
    lines.extend(coverage_lines(found))
    return "\n".join(lines) + "\n"


def coverage_lines(found: list[Held]) -> list[str]:
    """Each held-out total's predictive p5–p95, then ``held-out coverage: K of N``."""
    judged = [h for h in found if h.covered is not None]
    out = ["", "held-out totals against their predictive p5–p95 (constants refitted without them):"]
    for h in judged:
        total = next(r for r in h.rows if r.figure == "total_restart_secs")
        iv = h.interval or {}
        out.append(
            f"{h.case:28s} published {total.published:9.1f}  p5–p95 {iv['p5']:9.1f}–{iv['p95']:<9.1f} "
            f"{'inside' if h.covered else 'outside'}"
        )
    out.append(f"held-out coverage: {sum(1 for h in judged if h.covered)} of {len(judged)}")
    return out
