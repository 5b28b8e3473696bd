"""``solve update-rate``: the highest update rate during the restart at which the restart still
ends, with the REDO log holding, within a window (``--window``) or, without one, within a
stated bound on how much the updates may lengthen it."""

from __future__ import annotations

from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.units import format_secs
from ndbsim.studies.runs import VariantRun
from ndbsim.studies.solve.answer import Answer
from ndbsim.studies.solve.search import REDO_ANSWER_FILL, Sim, quantile_total, rate_bisect, within_margin

MAX_UPDATE_RATE = 1e9
"""Highest update rate tried (per second, cluster-wide): far beyond any NDB cluster's, so a
restart that ends within its bound there does so at any real rate (ndbsim's bound, not NDB's)."""
RATE_BOUND_FACTOR = 2.0
"""Without ``--window``, how much longer than with no updates during it the restart may take.
A copy that just converges is an answer nobody can use (days of restart, the copy creeping up on
the updates), so the bound asks for a restart at most twice as long as an idle one: the updates
may take at most half of it. ndbsim's choice, printed with every answer; ``--window`` sets a
bound of the user's own."""
KEY = "workload.during_restart.updates_per_s"
"""The scenario key the question varies (cluster-wide updates per second during the restart)."""


def update_rate(sim: Sim, resolved: Any, window: float | None, q: float) -> Answer:
    """The highest cluster-wide update rate that meets ``_meets`` (``q`` quantile within ``window``,
    without one ``RATE_BOUND_FACTOR`` × the idle restart), to three significant figures, verified
    by a run with it and one a step more."""
    if resolved.scenario.restart.type == "system":
        raise InputError(
            "a system restart runs no transactions and copies nothing; ask update-rate of a node, initial or "
            "rolling restart",
            field="restart.type",
        )

    def run(x: float) -> VariantRun:
        return sim((f"{KEY}={_rate_text(x)}",))

    idle = run(0.0)
    which = "median" if q == 0.5 else f"p{100 * q:g}"
    limit, bound = _bound(idle, window, q)

    def ok(o: VariantRun) -> bool:
        return _meets(o, q, limit)

    def passes(x: float) -> bool:
        return ok(run(x))

    if not ok(idle):
        _refuse(idle, limit, q)
    from ndbsim.models.levers import restart_update_rate

    lo, hi = 0.0, max(1000.0, 2 * restart_update_rate(resolved))
    while passes(hi):
        if hi >= MAX_UPDATE_RATE:
            raise InputError(
                f"the restart ends {bound} at every update rate up to {MAX_UPDATE_RATE:.0e}/s; no limit to find",
                field="question",
            )
        lo, hi = hi, min(MAX_UPDATE_RATE, hi * 4)
    good, bad = rate_bisect(passes, lo, hi)
    return Answer(
        question="update-rate",
        parameter=KEY,
        value=good,
        shown=_rate_shown(good),
        sets=(f"{KEY}={_rate_text(good)}",),
        outcome=run(good),
        short=_rate_shown(bad),
        short_outcome=run(bad),
        target=(
            f"the highest update rate (cluster-wide) during the restart at which the copy converges, the REDO "
            f"peak stays at most {REDO_ANSWER_FILL:.0%} of the log (ndbsim's margin below error 410) and the "
            f"{which} restart ends {bound}"
        ),
        runs=0,
        seed=0,
        replications=0,
        notes=_notes(good, bad, restart_update_rate(resolved)),
        passed=passes(good),
        short_passed=passes(bad),
        short_label="one step more",
    )


def _meets(o: VariantRun, q: float, limit: float) -> bool:
    """Whether a run answers the question: the copy converges, no replication overloads the REDO
    log nor passes its margin (``within_margin``), and the ``q`` quantile total is within ``limit``."""
    return (
        o.status not in ("non-converging", "stuck")
        and not o.redo_overloaded
        and within_margin(o)
        and quantile_total(o, q) <= limit
    )


def _notes(good: float, bad: float, now: float) -> list[str]:
    """The bisection's last step and, below the scenario's rate ``now``, what the answer gives up."""
    notes = [f"the restart meets the target up to {_rate_shown(good)} and not at {_rate_shown(bad)} (bisection)"]
    if good < now:
        notes.append(
            f"below the scenario's {_rate_shown(now)} during the restart: it gives up {_rate_shown(now - good)} of "
            "updates while the node restarts (throttle the applications, or see ndbsim advise)"
        )
    return notes


def _bound(idle: VariantRun, window: float | None, q: float) -> tuple[float, str]:
    """The longest the restart may take, and how the answer states it: the window, or without
    one ``RATE_BOUND_FACTOR`` × the restart with no updates during it (``idle``)."""
    if window is not None:
        return window, f"within the {format_secs(window)} window"
    limit = RATE_BOUND_FACTOR * quantile_total(idle, q)
    return limit, (
        f"within {format_secs(limit)}, {RATE_BOUND_FACTOR:g}× its {format_secs(quantile_total(idle, q))} "
        "with no updates during it (ndbsim's bound; --window sets yours)"
    )


def _refuse(idle: VariantRun, limit: float, q: float) -> None:
    """The one-line error when even no updates during the restart miss the target."""
    if idle.status in ("non-converging", "stuck"):
        raise InputError(
            f"the copy does not converge even with no updates during the restart ({idle.reason}); "
            "lower the inserts and deletes during the restart",
            field="workload.during_restart",
        )
    if idle.redo_overloaded or not within_margin(idle):
        raise InputError(
            f"the REDO peak passes {REDO_ANSWER_FILL:.0%} of the log even with no updates during the restart "
            f"({idle.redo_peak_fill:.0%}); size it first (ndbsim solve redo-log)",
            field="question",
        )
    raise InputError(
        f"even with no updates during the restart it takes {format_secs(quantile_total(idle, q))}, more than "
        f"the {format_secs(limit)} window; give a longer --window",
        field="--window",
    )


def _rate_shown(x: float) -> str:
    """A rate as the answer prints it, to the unit."""
    return f"{x:,.0f}/s"


def _rate_text(x: float) -> str:
    """A rate as ``--set`` text."""
    return f"{x:.0f}" if x >= 1 else f"{x:.6g}"
