"""The predictive interval of what is left of a restart: the ends of the running nodes, their wave
and the plan, from the simulated columns of the median replication, each column's length uncertain
by a factor that narrows as the cluster shows that column.

Before a column has finished on any node, its log sd is ``output.interval.phase_sds``: the
model's error on published restarts (the leave-one-family-out error for a family with none), the constants that
scale it and the defaulted inputs that move it. Each finished value of that column the refit
has fitted (a done node's row, a restarting node's finished phase) is one observation: the sd
left is ``prior / sqrt(1 + m)`` for ``m`` observations (the posterior of a mean whose prior is
as wide as one node's scatter), plus, in quadrature, the scatter the refit leaves between its
simulated and measured columns (node-to-node variation no host figure explains). The crash
moment's spread over the replications comes on top of what is left after the phase in progress.

The phase in progress has run ``in_phase`` seconds of a length ``sim × exp(z sd)``: its rest at
quantile ``z`` is that less ``in_phase``, never below 0. Parts are added quantile by quantile
(as if they moved together: the conservative bound), and a wave ends with its slowest node.
"""

from __future__ import annotations

import math
from typing import Any

from ndbsim.input.restart_info import COLUMN_PHASES, COLUMNS, node_phases
from ndbsim.output.interval import sd_of
from ndbsim.studies.calibration.restart_rows import node_columns
from ndbsim.studies.eta.progress import DONE, RESTARTING

Z = {"p5": -1.645, "p50": 0.0, "p95": 1.645, "p99": 2.326}
"""The standard normal's quantiles of the reported ends."""

SCATTER_MIN_SECS = 5.0
"""Columns shorter than this (measured or simulated) are left out of the scatter: restart_info
rounds each column down to whole seconds, so a 2 s column's ratio is mostly rounding."""


def column_sds(prior: dict[str, float], rows: list[dict[str, Any]]) -> dict[str, float]:
    """Each restart_info column's log sd given the refit's ``rows`` (one per fitted figure)."""
    seen: dict[str, int] = {}
    logs = []
    for r in rows:
        col = str(r["column"])
        seen[col] = seen.get(col, 0) + 1
        m, s = float(r["measured_secs"]), float(r["after_secs"])
        if col in COLUMNS and m >= SCATTER_MIN_SECS and s >= SCATTER_MIN_SECS:
            logs.append(math.log(m / s))
    scatter = math.sqrt(sum(x * x for x in logs) / len(logs)) if logs else 0.0
    out = {}
    for c in COLUMNS:
        sd = max((prior.get(p, 0.0) for p in COLUMN_PHASES.get(c, (c,))), default=0.0)
        m = seen.get(c, 0)
        out[c] = math.sqrt(sd * sd / (1 + m) + scatter * scatter) if m else sd
    return out


def _lognormal(secs: float, sd: float) -> dict[str, float]:
    return {q: secs * math.exp(z * sd) for q, z in Z.items()}


def _rest(cols: dict[str, float], names: list[str], sds: dict[str, float], crash_sd: float) -> dict[str, float]:
    """The columns ``names`` together, each uncertain by its sd (independent of one another)."""
    total = sum(cols[c] for c in names)
    if total <= 0:
        return dict.fromkeys(Z, 0.0)
    var = sum((sds[c] * cols[c]) ** 2 for c in names) / total**2
    return _lognormal(total, math.sqrt(var + crash_sd**2))


def node_window(p: Any, cols: dict[str, float], sds: dict[str, float], crash_sd: float) -> dict[str, float]:
    """Node ``p``'s seconds left per quantile, from its simulated columns ``cols``."""
    if p.status == DONE:
        return dict.fromkeys(Z, 0.0)
    if p.status != RESTARTING or p.phase is None:
        return _rest(cols, list(COLUMNS), sds, crash_sd)
    i = COLUMNS.index(p.phase)
    sim, sd = cols[p.phase], sds[p.phase]
    rest = _rest(cols, list(COLUMNS[i + 1 :]), sds, crash_sd)
    return {q: max(sim * math.exp(z * sd) - p.in_phase, 0.0) + rest[q] for q, z in Z.items()}


def _crash_sd(xs: list[float]) -> float:
    from ndbsim.output.result import quantile

    lo, hi = quantile(xs, 0.05), quantile(xs, 0.95)
    return sd_of(lo, hi) if math.isfinite(hi) and lo > 0 else 0.0


def predictive(
    replications: list[Any],
    plan: list[float],
    running: list[Any],
    later_waves: list[list[int]],
    sds: dict[str, float],
) -> tuple[dict[int, dict[str, float]], dict[str, float], dict[str, float]] | None:
    """Each running node's, the wave's and the plan's seconds left per quantile (None when the
    median replication does not finish)."""
    order = sorted(range(len(plan)), key=plan.__getitem__)
    k = order[(len(order) - 1) // 2]
    if not math.isfinite(plan[k]):
        return None
    runs = {r.node_id: r for r in replications[k].nodes}
    crash = _crash_sd([p for p in plan if math.isfinite(p)])
    nodes: dict[int, dict[str, float]] = {}
    for p in running:
        r = runs.get(p.node_id)
        if r is None or p.status == DONE:
            continue
        nodes[p.node_id] = node_window(p, node_columns(node_phases(r.spans), r.end - r.start), sds, crash)
    wave = {q: max((n[q] for n in nodes.values()), default=0.0) for q in Z}
    later_cols = dict.fromkeys(COLUMNS, 0.0)
    length = 0.0
    for w in later_waves:
        mine = [runs[n] for n in w if n in runs]
        if not mine:
            continue
        slowest = max(mine, key=lambda r: r.end - r.start)
        cols = node_columns(node_phases(slowest.spans), slowest.end - slowest.start)
        span = max(r.end for r in mine) - min(r.start for r in mine)
        whole = sum(cols[c] for c in COLUMNS) or 1.0
        for c in COLUMNS:
            later_cols[c] += cols[c] * span / whole
        length += span
    later = _rest(later_cols, list(COLUMNS), sds, crash) if length > 0 else dict.fromkeys(Z, 0.0)
    return nodes, wave, {q: wave[q] + later[q] for q in Z}
