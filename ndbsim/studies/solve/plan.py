"""``solve plan``: which restart plan of a rolling restart fits a window. ``one-at-a-time``
keeps the most replicas up (one node down at a time) but runs a wave per node;
``per-node-group`` takes one node of every node group down together and runs a wave per
replica. The answer is the plan that keeps more replicas up if it fits, else the faster one;
both are run with the same seed and replications, and both runs are shown."""

from __future__ import annotations

from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.scenario import ROLLING_TYPES
from ndbsim.input.units import format_secs
from ndbsim.studies.solve.answer import Answer
from ndbsim.studies.solve.search import Sim, quantile_total

SAFEST_FIRST = ("one-at-a-time", "per-node-group")
"""The named plans, the one that keeps more replicas up first (``Restart.plan``)."""


def plan(sim: Sim, resolved: Any, window: float, q: float) -> Answer:
    """The first plan of ``SAFEST_FIRST`` whose ``q`` quantile window fits ``window``; the
    faster one, marked as missing, when neither does."""
    s = resolved.scenario
    if s.restart.type not in ROLLING_TYPES:
        raise InputError(
            f"solve plan picks the waves of a rolling restart; this is a {s.restart.type} restart: "
            "add --set restart.type=rolling",
            field="restart.type",
        )
    runs = {p: sim((f"restart.plan={p}",)) for p in SAFEST_FIRST}
    fits = {p: quantile_total(o, q) <= window and o.status == "ok" for p, o in runs.items()}
    chosen = next((p for p in SAFEST_FIRST if fits[p]), SAFEST_FIRST[-1])
    other = next(p for p in SAFEST_FIRST if p != chosen)
    which = "median" if q == 0.5 else f"p{100 * q:g}"
    notes = []
    if not fits[chosen]:
        notes.append(
            f"no plan fits {format_secs(window)}: even per-node-group takes "
            f"{format_secs(quantile_total(runs[chosen], q))}; give a longer window or shorten the restart "
            "(ndbsim advise)"
        )
    return Answer(
        question="plan",
        parameter="restart.plan",
        value=quantile_total(runs[chosen], q),  # the chosen plan's window, in seconds
        shown=chosen,
        sets=(f"restart.plan={chosen}",),
        outcome=runs[chosen],
        short=other,
        short_outcome=runs[other],
        target=(
            f"the rolling restart's plan that keeps the most replicas up and whose {which} window fits "
            f"{format_secs(window)}"
        ),
        runs=0,
        seed=0,
        replications=0,
        notes=notes,
        passed=fits[chosen],
        short_passed=fits[other],
        short_label="the other plan",
    )
