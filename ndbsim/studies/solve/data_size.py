"""``solve data-size``: the most data per node whose restart fits a window."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.config_params import G, M
from ndbsim.input.units import format_secs
from ndbsim.studies.runs import VariantRun
from ndbsim.studies.solve.answer import Answer
from ndbsim.studies.solve.search import Sim, brent_steps, quantile_total, step_search


def data_size(sim: Sim, resolved: Any, window: float, q: float) -> Answer:
    """The most whole gigabytes of data per node whose ``q`` quantile restart fits ``window``;
    rows and DataMemory scale with the data (the scenario's row size and memory headroom)."""
    from ndbsim.input.config_params import PARAMS

    s, cfg = resolved.scenario, resolved.config
    size0 = s.data.size
    rows0 = s.data.row_count
    headroom = cfg["DataMemory"] / size0
    top = int(PARAMS["DataMemory"].hi / headroom // G)

    def sets(gb: int) -> tuple[str, ...]:
        size = gb * G
        dm = math.ceil(size * headroom / M)
        return (f"data.size={gb}G", f"data.rows={rows0 * size / size0:.0f}", f"cluster.config.DataMemory={dm}M")

    def run(gb: int) -> VariantRun:
        return sim(sets(gb))

    def fits(o: VariantRun) -> bool:
        return quantile_total(o, q) <= window

    def f(x: float) -> float:
        t = quantile_total(run(max(1, round(x))), q)
        return (min(t, 10 * window) - window) / window

    which = "median" if q == 0.5 else f"p{100 * q:g}"
    target = (
        f"the most data per node whose {which} restart fits {format_secs(window)} "
        f"(rows and DataMemory scale with it: {size0 / rows0:.0f} B per row, DataMemory {headroom:.2f} × data)"
    )
    if not fits(run(1)):
        raise InputError(
            f"even 1G of data per node misses a {format_secs(window)} window "
            f"({format_secs(quantile_total(run(1), q))}); give a longer --window",
            field="--window",
        )
    gb = _largest_fitting(run, fits, f, max(2, int(size0 // G)), top)
    up = gb + 1 if gb < top else None
    return Answer(
        question="data-size",
        parameter="data.size",
        value=float(gb * G),
        shown=f"{gb}G",
        sets=sets(gb),
        outcome=run(gb),
        short=f"{up}G" if up else "none: DataMemory's limit",
        short_outcome=run(up) if up else None,
        target=target,
        runs=0,
        seed=0,
        replications=0,
        passed=fits(run(gb)),
        short_passed=fits(run(up)) if up else None,
        short_label="one step more",
    )


def _largest_fitting(
    run: Callable[[int], VariantRun],
    fits: Callable[[VariantRun], bool],
    f: Callable[[float], float],
    hi: int,
    top: int,
) -> int:
    """The largest gigabyte count that fits (1 fits): doubling from ``hi`` to a bound that does
    not (or ``top``), then Brent's method on ``f`` and the walk to the step."""
    lo = 1
    while fits(run(hi)):
        if hi >= top:
            break
        lo, hi = hi, min(top, hi * 2)
    if fits(run(hi)):
        return hi
    guess = brent_steps(f, lo, hi) if f(lo) * f(hi) < 0 else lo
    return step_search(run, fits, math.floor(guess), lo, hi, smallest=False)
