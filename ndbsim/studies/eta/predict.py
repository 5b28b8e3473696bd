"""What is left of a restart, simulated: the running wave from its start and the waves after it,
with the refitted host figures; each node's simulated phases then stand in only for what the
snapshot has not shown (the phases not finished, the rest of the one in progress).

Per replication (a landing point in the LCP cycle, as ``run``'s): a node restarting ends when its
current phase has run its simulated length (or now, if it has run longer) and its later phases
after that; the running wave ends with its last node; each later wave takes what it takes in
the simulation, one after another. The spread is over these replications: the model's own
variation, not the uncertainty of the fit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ndbsim.input.restart_info import COLUMNS, node_phases
from ndbsim.models.load import load
from ndbsim.output.result import quantile
from ndbsim.studies.calibration.restart_rows import node_columns
from ndbsim.studies.eta.progress import DONE, RESTARTING, Progress
from ndbsim.studies.eta.refit import Refit, plan_raw

QUANTILES = {"p5": 0.05, "p50": 0.5, "p95": 0.95, "p99": 0.99}
"""The spread reported (p99 is what ``--watch`` judges an overrun by)."""


@dataclass
class Eta:
    """A prediction from one snapshot: seconds from the snapshot, per quantile."""

    progress: Progress
    refit: Refit
    replications: int
    seed: int | None = None
    """The root seed of the simulation of what is left (the scenario's when None was given)."""
    node_left: dict[int, dict[str, float]] = field(default_factory=dict)
    """Each restarting or waiting node of the running wave: seconds until it ends."""
    wave_left: dict[str, float] = field(default_factory=dict)
    plan_left: dict[str, float] = field(default_factory=dict)
    later_waves: list[dict[str, float]] = field(default_factory=list)
    """Each wave after the running one: its simulated seconds (median)."""
    status: str = "ok"
    warnings: list[str] = field(default_factory=list)
    crash_left: dict[str, float] = field(default_factory=dict)
    """What is left of the plan over the replications alone (the crash moment's spread)."""

    @property
    def window(self) -> dict[str, float]:
        """The whole plan's length, from its start: the time spent and what is left."""
        spent = self.progress.spent
        return {k: spent + v for k, v in self.plan_left.items()}


def _spread(xs: list[float]) -> dict[str, float]:
    return {k: quantile(xs, q) for k, q in QUANTILES.items()}


def _centred(predictive: dict[str, float], spread: dict[str, float]) -> dict[str, float]:
    """``predictive`` moved to the replications' median (the median replication's decomposition
    gives the spread; an even count's median lies between two replications)."""
    shift = spread["p50"] - predictive["p50"]
    if not math.isfinite(shift):
        return spread
    return {k: max(v + shift, 0.0) for k, v in predictive.items()}


def _node_left(p: Any, cols: dict[str, float]) -> float:
    """Seconds until node ``p`` ends, with its simulated columns ``cols``."""
    if p.status == DONE:
        return 0.0
    if p.status != RESTARTING or p.phase is None:
        return sum(cols[c] for c in COLUMNS)
    i = COLUMNS.index(p.phase)
    return max(cols[p.phase] - p.in_phase, 0.0) + sum(cols[c] for c in COLUMNS[i + 1 :])


def predict(
    prog: Progress, fit: Refit, replications: int, seed: int | None, priors: dict[str, float] | None = None
) -> Eta:
    """The ends of the running node(s), their wave and the plan, simulated from the running wave;
    with ``priors`` (each phase's log sd before it is measured), their predictive intervals
    (``eta.window``), the replications' spread kept in ``crash_left``."""
    eta = Eta(prog, fit, replications, seed, warnings=list(prog.unused))
    if prog.current is None:
        zero = dict.fromkeys(QUANTILES, 0.0)
        eta.wave_left, eta.plan_left = zero, dict(zero)
        return eta
    left = prog.waves[prog.current :]
    raw = fit.raw if prog.current == 0 else plan_raw(fit.raw, left)
    loaded = load(raw)
    eta.seed = loaded.prepared.scenario.simulation.seed if seed is None else seed
    result = loaded.run(seed, replications, explained=False)
    eta.status = result.status
    eta.warnings += [w for w in result.warnings if "restart.nodes" not in w]
    running = [prog.nodes[n] for n in left[0]]
    per_node: dict[int, list[float]] = {p.node_id: [] for p in running if p.status != DONE}
    waves: list[float] = []
    plan: list[float] = []
    later: list[list[float]] = [[] for _ in left[1:]]
    for rep in result.replications:
        runs = {r.node_id: r for r in rep.nodes}
        ends = []
        for p in running:
            r = runs.get(p.node_id)
            if r is None or not math.isfinite(r.end):
                ends.append(math.inf)
                continue
            x = _node_left(p, node_columns(node_phases(r.spans), r.end - r.start))
            ends.append(x)
            if p.node_id in per_node:
                per_node[p.node_id].append(x)
        wave = max(ends)
        first_end = max((runs[n].end for n in left[0] if n in runs), default=math.inf)
        last_end = max((r.end for r in rep.nodes), default=math.inf)
        for k, w in enumerate(left[1:]):
            mine = [runs[n] for n in w if n in runs]
            later[k].append(max(r.end for r in mine) - min(r.start for r in mine) if mine else math.inf)
        waves.append(wave)
        plan.append(wave + (last_end - first_end))
    eta.node_left = {n: _spread(xs) for n, xs in per_node.items()}
    eta.wave_left, eta.plan_left = _spread(waves), _spread(plan)
    eta.later_waves = [{"wave": prog.current + 2 + k, "secs": quantile(xs, 0.5)} for k, xs in enumerate(later)]
    eta.crash_left = dict(eta.plan_left)
    if priors:
        from ndbsim.studies.eta.window import column_sds, predictive

        sds = column_sds(priors, fit.rows)
        found = predictive(list(result.replications), plan, running, left[1:], sds)
        if found is not None:
            nodes, wave_q, plan_q = found
            eta.node_left = {n: _centred(q, eta.node_left[n]) for n, q in nodes.items() if n in eta.node_left}
            eta.wave_left, eta.plan_left = _centred(wave_q, eta.wave_left), _centred(plan_q, eta.plan_left)
    return eta
