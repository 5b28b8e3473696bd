"""The searches solve's questions share: cached runs of one scenario's variants, bisection on
the integers and on a pass/fail sign, Brent's method on a window, and the walk to a step."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ndbsim.errors import InputError
from ndbsim.studies.runs import VariantRun, evaluate


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


def quantile_total(o: VariantRun, q: float) -> float:
    from ndbsim.output.result import quantile

    if o.status in ("non-converging", "stuck"):
        return math.inf
    return quantile(list(o.totals), q)


def sign_bisect(passes: Callable[[float], bool], lo: float, hi: float, rtol: float) -> tuple[float, float]:
    """(largest passing, smallest failing) x after ``scipy.optimize.bisect`` on a ±1 sign,
    given ``lo`` passes and ``hi`` fails."""
    from scipy.optimize import bisect

    seen: dict[float, bool] = {lo: True, hi: False}

    def sign(x: float) -> float:
        if x not in seen:
            seen[x] = passes(x)
        return 1.0 if seen[x] else -1.0

    bisect(sign, lo, hi, xtol=1e-9, rtol=rtol, maxiter=200)
    good = max(x for x, ok in seen.items() if ok)
    bad = min(x for x, ok in seen.items() if not ok and x > good)
    return good, bad


def step_search(
    run: Callable[[int], VariantRun], fits: Callable[[VariantRun], bool], guess: int, lo: int, hi: int, smallest: bool
) -> int:
    """From ``guess``, walk in steps to the boundary: the smallest step count that fits
    (``smallest``) or the largest, within [lo, hi]."""
    v = min(hi, max(lo, guess))
    if smallest:
        while v < hi and not fits(run(v)):
            v += 1
        while v > lo and fits(run(v - 1)):
            v -= 1
    else:
        while v > lo and not fits(run(v)):
            v -= 1
        while v < hi and fits(run(v + 1)):
            v += 1
    return v


def brent_steps(f: Callable[[float], float], a: float, b: float) -> float:
    """A root of ``f`` in [a, b] (signs differ at the ends), to within a step."""
    from scipy.optimize import brentq

    return brentq(f, a, b, xtol=0.5, maxiter=100)
