"""``ndbsim check --cross``: how far a calibration carries. For each release family of the NDB
``fit`` cases, the shared constants are refitted without that family's fit cases and each of them
is predicted with them (leave-one-family-out; one fit case a family today, so leave-one-out); the
error per case and phase says how well the constants predict a restart they never saw, and each
held-out total is judged against its predictive interval. The InnoDB cases (constants of their
own) are held out one at a time and judged the same way."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ndbsim.input.profiles.lookup import profile_for
from ndbsim.studies.calibration.calibrate import fit
from ndbsim.studies.calibration.cases import DEFAULT_DIR, Case, Row, compare, figures_of, load_cases, run_case
from ndbsim.studies.calibration.fit_progress import Steps
from ndbsim.studies.uncertainty.covariance import held_out_interval

TOTAL = "total_restart_secs"


@dataclass
class Held:
    """One fit case predicted by constants fitted without it (and without its family)."""

    case: str
    rows: list[Row]
    steps: int
    interval: dict | None = None
    """The held-out total's predictive interval (``uncertainty.held_out_interval``)."""
    family: str = ""
    """The release family whose fit cases were left out together (``innodb`` for InnoDB's)."""

    @property
    def total(self) -> Row | None:
        return next((r for r in self.rows if r.figure == TOTAL and not r.info), None)

    @property
    def covered(self) -> bool | None:
        """Whether the published total lies inside the predictive p5–p95 (None: no total published)."""
        total = self.total
        if total is None or not self.interval:
            return None
        return bool(self.interval["p5"] <= total.published <= self.interval["p95"])

    @property
    def log_error(self) -> float | None:
        total = self.total
        if total is None or not (total.published > 0 and total.predicted > 0):
            return None
        return math.log(total.predicted / total.published)


def family_of(case: Case) -> str:
    """The release family whose profile simulates ``case``."""
    return profile_for(str(case.raw.get("version"))).name


def _held_errors(found: list[Held], without: str) -> dict[str, list[dict[str, Any]]]:
    """``output.interval.measured_errors``' held-out records of ``found``, ``without`` one family."""
    out: dict[str, list[dict[str, Any]]] = {}
    for h in found:
        total = h.total
        if h.family != without and total is not None:
            figures = [{"figure": TOTAL, "published": total.published, "predicted": total.predicted}]
            c_sd = ((h.interval or {}).get("sources") or {}).get("constants", {}).get("sd_log", 0.0)
            out.setdefault(h.family, []).append({"case": h.case, "figures": figures, "constants_sd_log": c_sd})
    return out


def leave_family_out(directory: Path | str = DEFAULT_DIR, progress: bool = False) -> list[tuple[Held, Any, Case]]:
    """For each family of the NDB fit cases, its fit cases predicted by constants refitted without
    them: each ``Held`` (no interval yet), the constants and the cases they were fitted on."""
    cases = load_cases(directory)
    fit_cases = [c for c in cases if c.role == "fit" and c.model.constants_file is None]
    families: dict[str, list[Case]] = {}
    for c in fit_cases:
        families.setdefault(family_of(c), []).append(c)
    out = []
    for family, held in families.items():
        rest = [c for c in cases if c not in held]
        with Steps(progress, f"refit without {family} ({', '.join(c.name for c in held)})") as steps:
            constants, _ = fit(rest, steps)
        for case in held:
            rows = compare(case, figures_of(case, run_case(case, constants)))
            out.append((Held(case.name, rows, steps.count, None, family), constants, case))
    return out


def cross(directory: Path | str = DEFAULT_DIR, progress: bool = False) -> list[Held]:
    """Leave-one-family-out over the NDB fit cases of ``directory``, each held-out total with its
    predictive interval: the constants' covariance refitted without it, its crash-moment spread and
    the model's error measured without its family (the validation cases and the other families'
    held-out totals, ``output.interval.model_sd``)."""
    from ndbsim.output.accuracy import published_errors
    from ndbsim.output.interval.sources import measured_errors, model_sd, with_model

    cases = load_cases(directory)
    found = leave_family_out(directory, progress)
    held_all = [h for h, _, _ in found]
    for h, constants, case in found:  # the constants' part first: the model's is net of it
        rest = [c for c in cases if c.name not in {x.case for x in held_all if x.family == h.family}]
        h.interval = held_out_interval(case, rest, constants, (0.0, ""))
    for h, _, case in found:
        validation = {f: v for f, v in published_errors().items() if f != h.family}
        errors = measured_errors(validation, _held_errors(held_all, h.family))
        h.interval = with_model(h.interval or {}, model_sd(str(case.raw.get("version")), errors))
    return held_all


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


def own_as_held(found: list[dict]) -> list[Held]:
    """``own_held_out``'s records as ``Held`` totals with their intervals (for the coverage)."""
    out = []
    for r in found:
        row = Row(r["case"], "fit", TOTAL, r["published"], r["predicted"], r["tolerance"] * r["published"], False)
        out.append(Held(r["case"], [row], 0, r.get("interval"), "innodb"))
    return out


def format_cross(found: list[Held]) -> str:
    lines = [f"{'held-out case':28s} {'figure':42s} {'published':>9s} {'predicted':>9s} {'error':>7s}  ok"]
    for h in found:
        for r in h.rows:
            err = f"{100 * r.rel_error:+.0f}%" if r.published else f"{r.error:+.1f}s"
            mark = "info" if r.info else ("ok" if r.ok else "out")
            lines.append(f"{h.case:28s} {r.label:42s} {r.published:9.1f} {r.predicted:9.1f} {err:>7s}  {mark}")
    return "\n".join(lines) + "\n"


def coverage_lines(found: list[Held]) -> list[str]:
    """Each held-out total's predictive p5–p95 with its width (p95/p5) and each source's log sd,
    then ``held-out coverage: K of N`` and the median width."""
    judged = [h for h in found if h.covered is not None]
    out = [
        "",
        "held-out totals against their predictive p5–p95 (constants refitted without them; sd_log of each source:",
        "crash moment, constants, model):",
    ]
    widths = []
    for h in judged:
        total = h.total
        assert total is not None
        iv = h.interval or {}
        widths.append(iv["p95"] / iv["p5"])
        src = iv.get("sources") or {}
        sds = " ".join(f"{src[k]['sd_log']:.3f}" if k in src else "-" for k in ("crash_moment", "constants", "model"))
        out.append(
            f"{h.case:29s} published {total.published:9.1f}  p5–p95 {iv['p5']:9.1f}–{iv['p95']:<9.1f} "
            f"{'inside' if h.covered else 'outside':7s} ×{widths[-1]:<7.2f} {sds}"
        )
    out.append(f"held-out coverage: {sum(1 for h in judged if h.covered)} of {len(judged)}")
    if widths:
        out.append(f"median width (p95/p5): ×{statistics.median(widths):.2f}")
    for h in judged:
        model = ((h.interval or {}).get("sources") or {}).get("model")
        if model:
            out.append(f"  {h.case} model: {model['from']}")
    return out
