"""Two modes in the crash moment's spread: where the crash lands in the live nodes' LCP cycle can
decide whether the restart waits for one LCP or two (the rolling 8.0 restart at 500k updates/s:
about 1890 s or 2030 s, its LCP wait 325 s or 458 s), so the replications' totals fall in two
groups with nothing between. A median of a few replications then picks a mode, and a comparison of
two variants compares the modes they happened to draw.

The rule (``modes``): the sorted totals split at their widest gap into a low and a high group;
they are two modes when that gap is at least ``MODE_GAP_SHARE`` of the median total and more than
``MODE_GAP_SPREAD`` times the wider group's own range. solve and advise then run every variant
with at least ``MODE_REPLICATIONS`` replications (``enough_replications``).
"""

from __future__ import annotations

import math
from typing import Any

MODE_GAP_SHARE = 0.02
"""The least gap between two modes, as a share of the median total: below it the two groups are
one spread (a 2% difference is within the replications' own noise on most restarts; ndbsim's
choice)."""
MODE_GAP_SPREAD = 3.0
"""How many times the wider group's own range the gap must exceed to be two modes and not one
wide spread (a smooth spread of n values has gaps of about its range over n; ndbsim's choice)."""
MODE_REPLICATIONS = 25
"""The replications solve and advise run when the crash moment's spread has two modes: with a
mode's share p, its estimate's standard error is sqrt(p(1-p)/n), at most 0.1 with 25 (p = 0.5),
and a mode of a fifth of the moments is missed by all 25 with probability 0.8^25 < 0.4%."""


def _median(xs: list[float]) -> float:
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def modes(totals: list[float] | tuple[float, ...]) -> dict[str, Any] | None:
    """The two modes of the completed ``totals`` (each mode's median total and count, and the
    gap), or None when they are one spread (or fewer than three completed)."""
    xs = sorted(t for t in totals if math.isfinite(t))
    if len(xs) < 3:
        return None
    gaps = [xs[i + 1] - xs[i] for i in range(len(xs) - 1)]
    i = max(range(len(gaps)), key=gaps.__getitem__)
    low, high = xs[: i + 1], xs[i + 1 :]
    within = max(low[-1] - low[0], high[-1] - high[0])
    if gaps[i] < MODE_GAP_SHARE * _median(xs) or gaps[i] <= MODE_GAP_SPREAD * within:
        return None
    return {
        "low_secs": _median(low),
        "high_secs": _median(high),
        "low_count": len(low),
        "high_count": len(high),
        "gap_secs": gaps[i],
        "split_secs": 0.5 * (low[-1] + high[0]),
    }


def mode_phases(totals: list[float], phases: dict[str, list[float]], split: float) -> dict[str, tuple[float, float]]:
    """The phases whose median differs between the modes by at least half the gap between the
    modes' totals, each with its low and high mode's median (per replication ``phases``)."""
    lo_i = [i for i, t in enumerate(totals) if math.isfinite(t) and t < split]
    hi_i = [i for i, t in enumerate(totals) if math.isfinite(t) and t >= split]
    gap = _median(sorted(totals[i] for i in hi_i)) - _median(sorted(totals[i] for i in lo_i))
    out = {}
    for p, xs in phases.items():
        if len(xs) != len(totals):
            continue
        a, b = _median(sorted(xs[i] for i in lo_i)), _median(sorted(xs[i] for i in hi_i))
        if abs(b - a) >= 0.5 * gap:
            out[p] = (a, b)
    return out


def modes_line(totals: list[float], phases: dict[str, list[float]] | None = None) -> str:
    """The modes in one line ('' when there are none)."""
    from ndbsim.input.units import format_secs

    m = modes(totals)
    if m is None:
        return ""
    n = m["low_count"] + m["high_count"]
    text = (
        f"crash-moment spread has two modes: {m['low_count']} of {n} replications near "
        f"{format_secs(m['low_secs'])}, {m['high_count']} near {format_secs(m['high_secs'])}"
    )
    moved = mode_phases(totals, phases or {}, m["split_secs"])
    if moved:
        text += " (" + ", ".join(f"{p} {format_secs(a)} or {format_secs(b)}" for p, (a, b) in moved.items()) + ")"
    return text + (
        f"; solve and advise run at least {MODE_REPLICATIONS} replications on such a restart"
        if n < MODE_REPLICATIONS
        else ""
    )


def enough_replications(totals: list[float] | tuple[float, ...], n: int) -> int:
    """The replications a study runs after a base run with ``totals``: at least
    ``MODE_REPLICATIONS`` when they show two modes, else ``n``."""
    return max(n, MODE_REPLICATIONS) if modes(totals) is not None else n
