"""How much work a command will do: the bound on a sweep's runs, and the line that announces
long but legal work (a big sweep, ``run -n 100000``) before it starts."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from ndbsim.errors import InputError
from ndbsim.input.units import shown
from ndbsim.signals import check

T = TypeVar("T")

MAX_SWEEP_RUNS = 2_000_000
"""Most runs (points × replications) one sweep makes: every run is one row held in memory
until the sweep is written (``ROW_BYTES`` each, ~5 GB at this size), the same bound as
``sweep.MAX_SWEEP_POINTS`` on points. Larger studies are shards or several sweeps. A guard,
not a model value."""
SECS_PER_RUN = 0.001
"""Wall seconds of one replication on one free core, for the up-front estimate only (the progress
bar's ETA then follows the real pace). Measured: CPU time (``time.process_time``) of 100
replications of each shipped scenario on this project's 2-core test machine — 0.91 ms for the
default (``dbt2-600wh-7.6.6``), a median of 0.58 ms over the 16 scenarios, 0.11 ms for InnoDB,
and 4.7–6.4 ms for the 4-node rolling and upgrade scenarios (one restart per node). The
default's, rounded up; a busy machine runs slower. Not a model value."""
ROW_BYTES = 2_700
"""Memory per sweep row, for the up-front estimate only. Measured with ``tracemalloc`` on 1,000
rows of the default scenario with two factors: 1,290 bytes per row as held in the main process
(``records.SweepRow``, unpickled from a worker), plus 1,380 bytes per row at the peak of making
the DataFrame (``records.frame``). Not a model value."""
ANNOUNCE_SECS = 30.0
"""Estimated wall time from which a command says up front how much it will do."""
PROGRESS_SECS = 2.0
"""Estimated wall time from which replications show a progress bar (when one is wanted at all,
see ``showing_progress``); shorter runs finish before a bar would tell anything."""
ANNOUNCE_BYTES = 500 * 2**20
"""Estimated memory of a sweep's rows from which the announcement says how much they need."""


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


def announcement(runs: int, workers: int, what: str, rows: int = 0) -> str | None:
    """'ndbsim: RUNS WHAT on W workers, about T' when that is long enough to say, else None;
    with how much memory ``rows`` sweep rows need when that is more than ``ANNOUNCE_BYTES``."""
    from ndbsim.input.units import format_bytes, format_secs

    secs = runs * SECS_PER_RUN / max(1, workers)
    memory = rows * ROW_BYTES
    if secs < ANNOUNCE_SECS and memory <= ANNOUNCE_BYTES:
        return None
    held = (
        f"; its {rows:,} rows need about {format_bytes(memory)} of memory until written (--shard splits it)"
        if memory > ANNOUNCE_BYTES
        else ""
    )
    return (
        f"ndbsim: {runs:,} {what} on {workers} worker{'s' if workers != 1 else ''}, "
        f"about {format_secs(secs)} (an estimate){held}; Ctrl-C stops"
    )


_SHOW_PROGRESS: ContextVar[bool] = ContextVar("ndbsim_show_progress", default=False)
"""Whether replications draw a progress bar: off for the library (``simulate()`` prints nothing),
on in the commands that ask for it with ``showing_progress``."""


@contextmanager
def showing_progress(on: bool) -> Iterator[None]:
    """Within the block, long replication loops draw a progress bar on stderr when ``on`` (the CLI
    passes whether stderr is a terminal, so JSON or CSV on stdout and logs never get one)."""
    token = _SHOW_PROGRESS.set(on)
    try:
        yield
    finally:
        _SHOW_PROGRESS.reset(token)


def progress(items: Iterable[T], total: int, unit: str) -> Iterable[T]:
    """``items`` with a tqdm bar and ETA on stderr when ``showing_progress`` is on and ``total``
    runs are estimated at ``PROGRESS_SECS`` or more; each item handed out only once no signal
    is waiting to stop the run (``signals.check``)."""
    if not _SHOW_PROGRESS.get() or total * SECS_PER_RUN < PROGRESS_SECS:
        return _checked(items)
    from tqdm import tqdm

    return _checked(tqdm(items, total=total, unit=unit, desc="ndbsim", smoothing=0.1, dynamic_ncols=True, leave=False))


def _checked(items: Iterable[T]) -> Iterator[T]:
    for item in items:
        check()
        yield item
