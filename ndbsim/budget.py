"""How much work a command will do: the bound on a sweep's runs, and the line that announces
long but legal work (a big sweep, ``run -n 100000``) before it starts."""

from __future__ import annotations

from ndbsim.errors import InputError
from ndbsim.units import shown

MAX_SWEEP_RUNS = 2_000_000
"""Most runs (points × replications) one sweep makes: every run is one row held in memory
until the sweep is written (~1 KB each, ~2 GB at this size), the same bound as
``sweep.MAX_SWEEP_POINTS`` on points. Larger studies are shards or several sweeps. A guard,
not a model value."""
SECS_PER_RUN = 0.002
"""Rough wall seconds of one replication on one core, for the up-front estimate only: ~1 ms
per replication (``scenario.MAX_REPLICATIONS``), doubled for the slower scenarios and for
process start-up. Not a model value."""
ANNOUNCE_SECS = 30.0
"""Estimated wall time from which a command says up front how much it will do."""


def check_sweep_runs(points: int, replications: int, source: str | None = None) -> None:
    """Refuse a sweep of more than ``MAX_SWEEP_RUNS`` runs before any is made."""
    runs = points * replications
    if runs > MAX_SWEEP_RUNS:
        reps = f"{replications:,}" if replications < 10**15 else shown(replications)
        many = f"{runs:,}" if runs < 10**15 else "over 10^15"
        raise InputError(
            f"{points:,} point{'s' if points != 1 else ''} × {reps} replications is {many} runs, "
            f"more than one sweep makes ({MAX_SWEEP_RUNS:,}); use fewer replications or points, or several sweeps",
            field="replications",
            source=source,
        )


def announcement(runs: int, workers: int, what: str) -> str | None:
    """'ndbsim: RUNS WHAT on W workers, about T' when that is long enough to say, else None."""
    from ndbsim.units import format_secs

    secs = runs * SECS_PER_RUN / max(1, workers)
    if secs < ANNOUNCE_SECS:
        return None
    return (
        f"ndbsim: {runs:,} {what} on {workers} worker{'s' if workers != 1 else ''}, "
        f"about {format_secs(secs)} (an estimate); Ctrl-C stops"
    )
