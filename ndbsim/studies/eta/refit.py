"""The host figures refitted on what the cluster has shown so far: the complete rows of the nodes
already restarted and the finished phases of the nodes restarting, each compared with that
node's own simulated restart, as ``ndbsim calibrate``'s host fit does (``host_fit``: the same
figures, residuals, bounds and pull towards the scenario's values).

Two things make it fast enough to follow a restart. The fit simulates only the waves that hold
a fitted row (those before the running wave, and the running one). And a refit starts from the
last snapshot's answer, with the figures the rows were found sensitive to then, so that one
finished phase more moves it a step or two rather than a fit from the scenario's values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ndbsim.input import scenario as sc
from ndbsim.input.restart_info import COLUMNS
from ndbsim.studies.calibration.cases import Case, case_from_data
from ndbsim.studies.calibration.fit_progress import Steps
from ndbsim.studies.calibration.host_fit import SPAN, LogProblem, _sensitive, host_values, with_host
from ndbsim.studies.eta.progress import DONE, RESTARTING, Progress

FIT_REPLICATIONS = 3
"""Replications per simulation of the fit (the median of their landing points in the LCP cycle):
restart_info does not say where in the cycle each node stopped; 3 keeps one simulation of a
24-node cluster's waves near a tenth of a second, and the phases the rows fit (restore, index
rebuild, memory touch) do not depend on the landing point."""

MAX_STEPS = 12
"""Least-squares evaluations at most in one refit: a warm start moves a figure or two."""

PRIOR_SD = math.log(SPAN) / math.sqrt(3.0)
"""The log sd of a figure before the rows: the fit holds each figure within ×/÷``host_fit.SPAN``
of the scenario's value, a uniform prior over ±log(SPAN) in log space, whose sd this is
(``host_fit.PRIOR``'s pull, a sd of 1/PRIOR = 20, is only a tie-breaker inside that box)."""

DETERMINED = 0.5
"""A refitted figure is a finding only when the finished phases shrank its sd to at most this share
of ``PRIOR_SD``. The posterior sd is the fit's own: the diagonal of ``(J^T J)^-1`` at the answer,
``J`` the Jacobian of the residuals (each row's error in units of its tolerance, taken as one sd,
and ``host_fit.PRIOR``'s rows, which keep ``J^T J`` invertible). Two figures the rows
tell only together (disk read against core speed in a restore) each keep a sd near the prior's,
however far the least-squares answer moved them: eta names them as not determined instead of
printing the move as a finding (the prediction still uses the answer, which fits the rows)."""

Z90 = 1.6448536269514722
"""The standard normal's 95th percentile: a figure's p5-p95 is its value ×/÷ exp(Z90 · sd)."""


@dataclass
class Refit:
    """The host figures the prediction uses and what they were fitted on."""

    values: dict[str, float]
    """Every host figure (the fitted ones moved, the others the scenario's)."""
    fitted: tuple[str, ...]
    raw: dict[str, Any]
    """The scenario with these figures."""
    nodes: int
    """Nodes with complete rows in the fit."""
    phases: int
    """Finished phases of restarting nodes in the fit."""
    rows: list[dict[str, Any]]
    """Each fitted figure: node, column, measured, simulated before → after."""
    simulations: int
    key: tuple
    columns: frozenset
    """The restart_info columns the rows hold: the figures sensitive to them are probed again when
    a new column joins (a phase of a kind not finished before)."""
    start: dict[str, float]
    """The scenario's host figures, before the fit."""
    sd: dict[str, float] = field(default_factory=dict)
    """Each fitted figure's posterior log sd (``DETERMINED``)."""

    @property
    def determined(self) -> tuple[str, ...]:
        """The fitted figures the finished phases determine (``DETERMINED``)."""
        return tuple(n for n in self.fitted if self.sd.get(n, math.inf) <= DETERMINED * PRIOR_SD)

    def span(self, name: str) -> tuple[float, float]:
        """A figure's p5 and p95 from its posterior log sd."""
        k = math.exp(Z90 * self.sd[name])
        return self.values[name] / k, self.values[name] * k


def plan_raw(raw: dict[str, Any], waves: list[list[int]]) -> dict[str, Any]:
    """``raw`` restarting only ``waves``, in that order (a node or initial restart, one wave of
    all its nodes at once, has no ``restart.plan``)."""
    out = sc.copy_raw(raw)
    restart = dict(out.get("restart") or {})
    restart["nodes"] = sorted(n for w in waves for n in w)
    if restart.get("type", "node") in ("rolling", "initial-rolling"):
        restart["plan"] = [list(w) for w in waves]
    out["restart"] = restart
    return out


def _published(prog: Progress) -> tuple[list[dict[str, Any]], int, int]:
    """The case's ``published.nodes``: done nodes' rows whole, restarting nodes' finished columns."""
    out, nodes, phases = [], 0, 0
    for p in sorted(prog.nodes.values(), key=lambda p: (p.wave, p.node_id)):
        if p.status == DONE and p.total > 0:
            cols = {c: {"value": v} for c, v in p.finished.items()}
            out.append({"node_id": p.node_id, "total_restart_secs": {"value": p.total}, "phases": cols})
            nodes += 1
        elif p.status == RESTARTING and p.finished:
            cols = {c: {"value": v} for c, v in p.finished.items()}
            # its total is not known yet: carried for the table only, never fitted
            total = {"value": max(1.0, sum(p.finished.values())), "info": True}
            out.append({"node_id": p.node_id, "total_restart_secs": total, "phases": cols})
            phases += len(p.finished)
    return out, nodes, phases


def _shown_waves(prog: Progress) -> list[list[int]]:
    """The waves the rows can show: those done and the one running."""
    return prog.waves[: len(prog.waves) if prog.current is None else prog.current + 1]


def fit_case(raw: dict[str, Any], prog: Progress) -> tuple[Case | None, int, int]:
    """The case of the rows shown so far (None: nothing finished yet)."""
    published, nodes, phases = _published(prog)
    if not published:
        return None, 0, 0
    data = {
        "role": "fit",
        "replications": FIT_REPLICATIONS,
        "scenario": plan_raw(raw, _shown_waves(prog)),
        "published": {"nodes": published},
    }
    return case_from_data(data, "eta-snapshot"), nodes, phases


def _key(case: Case) -> tuple:
    return tuple(sorted((f.key, f.value, f.info) for f in case.figures))


def refit(raw: dict[str, Any], prog: Progress, last: Refit | None) -> Refit:
    """The host figures fitted on ``prog``'s rows, from ``last``'s answer when there is one; the
    same rows as ``last`` give ``last`` back without simulating."""
    case, nodes, phases = fit_case(raw, prog)
    start = host_values(raw)
    if case is None:
        return Refit(start, (), raw, 0, 0, [], 0, (), frozenset(), start)
    key = _key(case)
    if last is not None and last.key == key:
        return last
    steps = Steps(False, "")
    columns = frozenset(f.name for f in case.figures if not f.info and f.value > 0)
    same = last is not None and last.key and last.columns == columns
    names = last.fitted if same and last is not None else _sensitive(case, case.raw, start, steps)
    x0 = np.array([math.log((last.values if last else start)[n] / start[n]) for n in names])
    values, sd = _solve(case, start, names, x0, steps) if names else (start, {})
    fitted_raw = with_host(raw, {n: values[n] for n in names})
    rows = _rows(case, fitted_raw, prog, start, values)
    return Refit(host_values(fitted_raw), names, fitted_raw, nodes, phases, rows, steps.count, key, columns, start, sd)


def posterior_sd(jac: np.ndarray, names: tuple[str, ...]) -> dict[str, float]:
    """Each figure's log sd from the Jacobian of the residuals (the prior's rows included, so
    ``J^T J`` is never singular): the square root of the diagonal of ``(J^T J)^-1``."""
    cov = np.linalg.pinv(jac.T @ jac)
    return {n: float(math.sqrt(max(cov[i, i], 0.0))) for i, n in enumerate(names)}


def _solve(
    case: Case, start: dict[str, float], names: tuple[str, ...], x0: np.ndarray, steps: Steps
) -> tuple[dict[str, float], dict[str, float]]:
    from ndbsim.extras import require

    require("scipy")
    from scipy.optimize import least_squares

    problem = LogProblem(case, start, names, steps)
    x0 = np.clip(x0, problem.lo, problem.hi)
    sol = least_squares(
        problem.residuals,
        x0,
        jac=problem.jacobian,
        bounds=(problem.lo, problem.hi),
        method="trf",
        max_nfev=MAX_STEPS,
        xtol=1e-3,
        ftol=1e-4,
    )
    return {**start, **problem.values_at(sol.x)}, posterior_sd(np.asarray(sol.jac), names)


def _rows(
    case: Case, fitted_raw: dict[str, Any], prog: Progress, start: dict[str, float], values: dict[str, float]
) -> list[dict[str, Any]]:
    """Each fitted figure, measured against simulated with the scenario's and the fitted host."""
    from ndbsim.studies.calibration.cases import predict

    before = predict(case, raw=case.raw)
    after = predict(case, raw=plan_raw(fitted_raw, _shown_waves(prog)))
    out = []
    for f in case.figures:
        if f.info or (f.name in COLUMNS and f.value == 0 and before.get(f.key, 0) < 0.5):
            continue
        out.append(
            {
                "node_id": f.node,
                "column": f.name,
                "measured_secs": f.value,
                "before_secs": before.get(f.key, math.nan),
                "after_secs": after.get(f.key, math.nan),
            }
        )
    return out
