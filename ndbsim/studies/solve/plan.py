"""``solve plan``: which restart plan of a rolling restart fits a window. Every plan the replica
count allows (``plans.enumerate_plans``: one-at-a-time, per-node-group, and with three or four
replicas waves of several nodes of a node group) is run with the same seed and replications;
the answer is the safest plan (the most replicas kept up, then the fewest nodes down at once)
whose window fits; when none does, an input error names the fastest and its window (exit 2, as
every window question whose target no value meets). Each plan is listed with its window and
the node groups it leaves on a single replica, and for how long."""

from __future__ import annotations

import math
from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.scenario import ROLLING_TYPES
from ndbsim.input.units import format_secs
from ndbsim.studies.runs import VariantRun
from ndbsim.studies.solve.answer import Answer
from ndbsim.studies.solve.plans import PlanChoice, enumerate_plans
from ndbsim.studies.solve.search import Sim, fits_window, quantile_total

SINGLE_REPLICA_LISTED = 4
"""A plan's single-replica stretches listed one by one up to this many; beyond, summed up."""


def plan(sim: Sim, resolved: Any, window: float, q: float) -> Answer:
    """The safest plan whose ``q`` quantile window fits ``window`` and whose run holds
    (``search.holds``); an InputError naming the fastest when none does."""
    s = resolved.scenario
    if s.restart.type not in ROLLING_TYPES:
        raise InputError(
            f"solve plan picks the waves of a rolling restart; this is a {s.restart.type} restart: "
            "add --set restart.type=rolling",
            field="restart.type",
        )
    choices = enumerate_plans(resolved)
    runs = {p: sim((p.set,)) for p in choices}
    windows = {p: quantile_total(o, q) for p, o in runs.items()}
    fits = {p: fits_window(runs[p], q, window) for p in choices}
    which = "median" if q == 0.5 else f"p{100 * q:g}"
    chosen = next((p for p in choices if fits[p]), None)
    if chosen is None:  # an unreachable target is an input error, as every window question's
        fastest = min(choices, key=lambda p: (windows[p], p.safety))
        raise InputError(
            f"no restart plan fits {format_secs(window)}: the fastest of the {len(choices)} plans, {_name(fastest)}, "
            f"takes {format_secs(windows[fastest])} ({which}, {runs[fastest].status}); give a longer --window "
            "or shorten the restart (ndbsim advise)",
            field="--window",
        )
    at = choices.index(chosen)
    other = choices[at - 1] if at > 0 else choices[1] if len(choices) > 1 else chosen
    notes: list[str] = []
    answer = Answer(
        question="plan",
        parameter="restart.plan",
        value=windows[chosen],  # the chosen plan's window, in seconds
        shown=chosen.value,
        sets=(chosen.set,),
        outcome=runs[chosen],
        short=other.value,
        short_outcome=runs[other] if other is not chosen else None,
        target=(
            f"the rolling restart's plan that keeps the most replicas up and whose {which} window fits "
            f"{format_secs(window)}"
        ),
        runs=0,
        seed=0,
        replications=0,
        notes=notes,
        passed=fits[chosen],
        short_passed=fits[other] if other is not chosen else None,
        short_label="the other plan" if len(choices) == 2 else "the next plan",
    )
    answer.plans = [_plan_row(p, runs[p], windows[p], fits[p]) for p in choices]
    return answer


def _name(p: PlanChoice) -> str:
    """A plan as the notes name it: a named plan, or its waves with their words."""
    return f"{p.value} ({p.description})" if p.value.startswith("[") else p.value


def _plan_row(p: PlanChoice, o: VariantRun, window: float, fits: bool) -> dict[str, Any]:
    """One plan as ``Answer.plans`` lists it: its value, words, window and single-replica exposure."""
    return {
        "plan": p.value,
        "description": p.description,
        "set": p.set,
        "window_secs": window,
        "status": o.status,
        "fits": fits,
        "replicas_kept": p.replicas_kept,
        "single_replica": [dict(e) for e in o.single_replica],
        "exposure": exposure_text(p.replicas_kept, o.single_replica),
    }


def exposure_text(kept: int, single: tuple[dict[str, Any], ...] | list[dict[str, Any]]) -> str:
    """A plan's single-replica exposure in words: none, each stretch, or their sum."""
    if not single:
        return f"keeps {kept} replicas of every node group up"

    def secs(x: float) -> str:
        return format_secs(x) if math.isfinite(x) else "ever"

    if len(single) <= SINGLE_REPLICA_LISTED:
        parts = ", ".join(f"node group {e['node_group']} for {secs(e['secs'])} (wave {e['wave']})" for e in single)
        return f"single replica: {parts}"
    total = sum(e["secs"] for e in single)
    longest = max(e["secs"] for e in single)
    return (
        f"single replica in {len({e['wave'] for e in single})} waves: {len(single)} node-group stretches, "
        f"{secs(total)} in all, the longest {secs(longest)}"
    )
