"""The searches solve's questions share: cached runs of one scenario's variants and bisection,
on whole steps (a log file, a megabyte, a gigabyte) or on a rate down to its step.

Plain bisection, no SciPy: every answer is a whole step, so bisection on the steps ends on two
adjacent steps, one meeting the target and one not, which are the answer and its verification,
in log₂(range) runs. A root finder such as Brent's method would save a few runs of a few
milliseconds each, but needs SciPy (about 40 MB) in the base install and still ends with the
same walk to the step."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ndbsim.engine.run import DATA_MEMORY_WARN_FILL, REDO_WARN_FILL
from ndbsim.errors import InputError
from ndbsim.studies.runs import VariantRun, evaluate

REDO_ANSWER_FILL = REDO_WARN_FILL
"""The most of the REDO log an answer's check run may fill at its peak: 60%, where ``ndbsim run``
warns "error 410 is close" (``engine.run.REDO_WARN_FILL``, EnableRedoControl's critical alert
level, reference §2.4). A REDO log, update rate, LCP speed or data size is answered only where
every replication's peak stays at or under it, so the printed check command warns of nothing."""
DATA_MEMORY_ANSWER_FILL = DATA_MEMORY_WARN_FILL
"""The most of DataMemory a data-size answer may fill: 80%, seed 004's best practice ("never
fill up your database with more than 80% of the DataMemory", ``engine.run.DATA_MEMORY_WARN_FILL``)."""


class Sim:
    """Runs of one scenario under ``--set`` variants, counted and cached by variant."""

    def __init__(self, raw: dict[str, Any], seed: int, n: int):
        self.raw, self.seed, self.n = raw, seed, n
        self.cache: dict[tuple[str, ...], VariantRun] = {}

    def __call__(self, sets: tuple[str, ...]) -> VariantRun:
        if sets not in self.cache:
            self.cache[sets] = evaluate(self.raw, sets, self.seed, self.n)
        o = self.cache[sets]
        if o.invalid:
            raise InputError(o.invalid)
        return o


def int_bisect(passes: Callable[[int], bool], lo: int, hi: int) -> int:
    """The smallest integer in (lo, hi] that passes, given ``lo`` fails and ``hi`` passes
    (a monotone question)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if passes(mid):
            hi = mid
        else:
            lo = mid
    return hi


def largest_passing(passes: Callable[[int], bool], lo: int, hi: int) -> int:
    """The largest integer in [lo, hi) that passes, given ``lo`` passes and ``hi`` fails."""
    return int_bisect(lambda v: not passes(v), lo, hi) - 1


def rate_step(x: float) -> float:
    """The step of a rate near ``x``: its third significant figure, and at least 1/s."""
    return max(1.0, 10.0 ** (math.floor(math.log10(max(x, 1.0))) - 2))


def rate_bisect(passes: Callable[[float], bool], lo: float, hi: float) -> tuple[float, float]:
    """(largest passing, smallest failing) rate, adjacent on the grid of ``rate_step``, given
    ``lo`` passes and ``hi`` fails: bisection down to a step, then on the steps."""
    while hi - lo > rate_step(lo):
        mid = (lo + hi) / 2
        if passes(mid):
            lo = mid
        else:
            hi = mid
    step = rate_step(lo)
    k = int_bisect(lambda k: not passes(k * step), math.floor(lo / step), math.ceil(hi / step))
    return (k - 1) * step, k * step


def holds(o: VariantRun) -> bool:
    """Whether a run ends with nothing its own warnings say against an answer: the restart
    finishes, no replication overloads the REDO log (error 410) and the inserts during the restart
    do not fill DataMemory (error 827). An answer whose check run warns of either is no answer."""
    return o.status == "ok" and not o.redo_overloaded and not o.data_memory_full


def within_margin(o: VariantRun) -> bool:
    """Whether every replication's REDO peak stays at or under ``REDO_ANSWER_FILL`` of the log
    (a run without a REDO log passes)."""
    return not o.redo_peak_fill > REDO_ANSWER_FILL


def margin_text(o: VariantRun) -> str:
    """A run's REDO margin as an answer's line gives it."""
    if math.isnan(o.redo_peak_fill):
        return "no REDO log"
    return f"REDO peak {o.redo_peak_fill:.1%} of the log (answers keep it at most {REDO_ANSWER_FILL:.0%})"


def fits_window(o: VariantRun, q: float, window: float) -> bool:
    """Whether a run answers a window question: it ``holds``, its REDO peak is ``within_margin``
    and its ``q`` quantile total fits."""
    return holds(o) and within_margin(o) and quantile_total(o, q) <= window


def quantile_total(o: VariantRun, q: float) -> float:
    """The ``q`` quantile of a variant's total: the median (``q`` 0.5) is the run's total, as
    ``run`` prints it; any other quantile is the predictive distribution's
    (``output.interval.predictive``), the range ``run`` prints, not the crash moment's spread
    alone. A restart that never ends, in any replication, takes forever at the median."""
    from ndbsim.output.interval.predictive import predictive_quantile
    from ndbsim.output.result import quantile

    if o.status in ("non-converging", "stuck"):
        return math.inf
    if q == 0.5:
        return o.median
    if o.interval.get("sources"):
        return predictive_quantile(o.interval, q)
    return quantile(list(o.totals), q)
