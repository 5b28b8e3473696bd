"""``solve update-rate``: the highest update rate during the restart at which the copy still
converges."""

from __future__ import annotations

import math
from typing import Any

from ndbsim.errors import InputError
from ndbsim.studies.runs import VariantRun
from ndbsim.studies.solve.answer import Answer
from ndbsim.studies.solve.search import Sim, sign_bisect

RATE_TOLERANCE = 0.005
"""Relative width of the final bracket for the update rate (0.5%): finer than any operator's
rate limit needs, in about 20 bisection steps (ndbsim's choice)."""
MAX_UPDATE_RATE = 1e9
"""Highest update rate tried (per second, cluster-wide): far beyond any NDB cluster's, so a copy
that converges there converges at any real rate (ndbsim's bound, not NDB's)."""


def update_rate(sim: Sim, resolved: Any) -> Answer:
    """The highest cluster-wide update rate whose runs converge, to ``RATE_TOLERANCE``, verified
    by a run with it and one a step more."""
    key = "workload.during_restart.updates_per_s"
    if resolved.scenario.restart.type == "system":
        raise InputError(
            "a system restart runs no transactions and copies nothing; ask update-rate of a node, initial or "
            "rolling restart",
            field="restart.type",
        )

    def run(x: float) -> VariantRun:
        return sim((f"{key}={_rate_text(x)}",))

    def passes(x: float) -> bool:
        return run(x).status not in ("non-converging", "stuck")

    if not passes(0.0):
        raise InputError(
            f"the copy does not converge even with no updates during the restart ({run(0.0).reason}); "
            "lower the inserts and deletes during the restart",
            field="workload.during_restart",
        )
    from ndbsim.models.levers import restart_update_rate

    hi = max(1000.0, 2 * restart_update_rate(resolved))
    lo = 0.0
    while passes(hi):
        if hi >= MAX_UPDATE_RATE:
            raise InputError(
                f"the copy converges at every update rate up to {MAX_UPDATE_RATE:.0e}/s; no limit to find",
                field="question",
            )
        lo, hi = hi, min(MAX_UPDATE_RATE, hi * 4)
    good, bad = sign_bisect(passes, lo, hi, RATE_TOLERANCE)
    # The answer as printed: three significant figures, rounded down so that it still passes.
    shown = _round_down(good)
    if shown > good or not passes(shown):
        shown = good
    notes = [f"the copy converges up to {good:,.0f}/s and not at {bad:,.0f}/s (bisection)"]
    if run(shown).status_flag:
        notes.append(f"at this rate the restart ends {run(shown).status_flag}: {run(shown).reason}")
    return Answer(
        question="update-rate",
        parameter=key,
        value=shown,
        shown=f"{shown:,.0f}/s",
        sets=(f"{key}={_rate_text(shown)}",),
        outcome=run(shown),
        short=f"{bad:,.0f}/s",
        short_outcome=run(bad),
        target="the highest update rate (cluster-wide) during the restart at which the copy still converges",
        runs=0,
        seed=0,
        replications=0,
        notes=notes,
        passed=passes(shown),
        short_passed=passes(bad),
        short_label="one step more",
    )


def _round_down(x: float, digits: int = 3) -> float:
    """``x`` rounded down to ``digits`` significant figures."""
    if x <= 0:
        return x
    scale = 10 ** (digits - 1 - math.floor(math.log10(x)))
    return math.floor(x * scale) / scale


def _rate_text(x: float) -> str:
    """A rate as ``--set`` text."""
    return f"{x:.0f}" if x >= 1 else f"{x:.6g}"
