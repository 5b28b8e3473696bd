"""Quantiles of the predictive distribution, the one range every answer reads: ``run``'s p5–p95,
``--quantile``, ``--timeouts``, solve's plans, compare, advise and report all take theirs here.

The distribution is a mixture: with the share ``s`` of replications that did not complete (error
410, a copy that never converges, error 827, or a range end of a defaulted input that stops the
restart), the restart does not complete with probability ``s``; otherwise its log total is
normal around the interval's centre with the interval's log sd (``sources.combine``). Its ``q``
quantile is the completed part's ``q / (1 − s)`` quantile, and "does not complete" (infinite)
from ``1 − s`` on. With ``s = 0`` it is the lognormal that ``run``'s p5–p95 has always been.

A figure other than the total (a node's own start, which the timeouts bound) has its own crash
moment spread over the replications, and the other sources' width (constants, defaults, model):
those move every phase, so they move the figure by the same factor as the total.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any

CRASH = "crash_moment"
"""The source that is the replications' own spread (``sources.combine``'s key)."""

Z95 = NormalDist().inv_cdf(0.95)
"""The standard normal's 95th percentile: a p5–p95 spread is ±Z95 sd (``sources.Z90``, unrounded)."""


def quantile(xs: list[float], q: float) -> float:
    """Linear-interpolated quantile of finite values (``output.result.quantile``'s, which this
    module, below ``result``, cannot import)."""
    ys = sorted(xs)
    if not ys:
        return math.nan
    pos = q * (len(ys) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ys) - 1)
    return ys[lo] + (ys[hi] - ys[lo]) * (pos - lo)


def stopped_share(totals: list[float]) -> float:
    """The share of replications that did not complete (a total that is not finite)."""
    return sum(1 for t in totals if not math.isfinite(t)) / len(totals) if totals else 0.0


def mixture_quantile(centre: float, sd: float, stopped: float, q: float) -> float:
    """The ``q`` quantile of "does not complete with probability ``stopped``, else lognormal
    around ``centre`` with log sd ``sd``" (infinite from ``1 − stopped`` on)."""
    if not (math.isfinite(centre) and centre > 0) or stopped >= 1 or q >= 1 - stopped:
        return math.inf
    inner = q / (1 - stopped)
    if inner <= 0:
        return 0.0
    return centre * math.exp(NormalDist().inv_cdf(inner) * sd)


def predictive_quantile(iv: dict[str, Any], q: float) -> float:
    """The ``q`` quantile of an interval's predictive distribution (``sources.combine``'s dict);
    nan when the interval has none (no completed replication to centre it on)."""
    if "centre" not in iv:
        return math.nan
    return mixture_quantile(float(iv["centre"]), float(iv.get("sd_log", 0.0)), float(iv.get("stopped_share", 0.0)), q)


def others_sd(iv: dict[str, Any]) -> float:
    """The log sd of every source but the crash moment (what moves all phases alike)."""
    return math.sqrt(sum(s["sd_log"] ** 2 for k, s in (iv.get("sources") or {}).items() if k != CRASH))


def figure_quantile(values: list[float], iv: dict[str, Any], q: float) -> float:
    """The ``q`` quantile of a figure other than the total (per replication ``values``, e.g. the
    slowest node's start) under the same predictive distribution: its own crash-moment spread
    over the completed replications, with the other sources' sd and the interval's centre shift
    and share of restarts that do not complete."""
    done = [v for v in values if math.isfinite(v)]
    if not done:
        return math.inf
    stopped = max(stopped_share(values), float(iv.get("stopped_share", 0.0)))
    lo, mid, hi = quantile(done, 0.05), quantile(done, 0.5), quantile(done, 0.95)
    crash = math.log(hi / lo) / (2 * Z95) if lo > 0 else 0.0
    shift = float(iv.get("shift_log", 0.0))
    return mixture_quantile(mid * math.exp(shift), math.hypot(crash, others_sd(iv)), stopped, q)
