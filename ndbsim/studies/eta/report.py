"""An ETA as text (one table per snapshot, or one line per snapshot on a pipe) and as JSON."""

from __future__ import annotations

import json
import math
import time
from typing import Any

from ndbsim.input.units import format_secs as format_duration
from ndbsim.output.result import json_clean
from ndbsim.studies.eta.predict import Eta
from ndbsim.studies.eta.progress import DONE, RESTARTING
from ndbsim.studies.eta.refit import Refit

UNKNOWNS = (
    "restart_info shows 0 for the phase in progress (DbdihMain.cpp, fill_row_with_node_restart_status); "
    "its time so far comes from nodes.uptime less the finished columns, each rounded down to whole seconds; "
    "the gaps between waves are not in restart_info"
)
"""What a snapshot cannot tell, printed under every table."""


def _d(x: float) -> str:
    return "never" if not math.isfinite(x) else format_duration(max(0.0, x))


def _clock(at: float, secs: float) -> str:
    return "never" if not math.isfinite(secs) else time.strftime("%H:%M:%S", time.gmtime(at + secs)) + "Z"


def _spread(at: float, s: dict[str, float]) -> str:
    return f"{_d(s['p50'])} (p5-p95 {_d(s['p5'])}-{_d(s['p95'])}), at {_clock(at, s['p50'])}"


def _node_line(eta: Eta, p: Any) -> str:
    if p.status == DONE:
        return f"  node {p.node_id:>3}  wave {p.wave}  done        {_d(p.total)} (total_restart_secs)"
    if p.status == RESTARTING:
        how = {"unknown": "time in it unknown, taken as 0"}.get(p.in_phase_from, f"{_d(p.in_phase)} so far")
        left = eta.node_left.get(p.node_id)
        ends = f"; ends in {_spread(eta.progress.sampled_at, left)}" if left else ""
        ndb = f"{p.row.status or 'no nodes row'}" + (f", start phase {p.row.start_phase}" if p.row.start_phase else "")
        return (
            f"  node {p.node_id:>3}  wave {p.wave}  restarting  in {p.phase} ({how}, from {p.in_phase_from}; "
            f"{ndb}); {_d(p.elapsed)} since its failure{ends}"
        )
    return f"  node {p.node_id:>3}  wave {p.wave}  waiting"


def _pct(x: float) -> str:
    return f"{x - 1:+.0%}"


def host_lines(fit: Refit) -> list[str]:
    """The refitted host figures the finished phases determine, each against the scenario's value
    with its p5-p95 (``refit.DETERMINED``); the others named once as not determined."""
    out = []
    for n in fit.determined:
        lo, hi = fit.span(n)
        s = fit.start[n]
        out.append(f"  {n} {_pct(fit.values[n] / s)} of the scenario's (p5-p95 {_pct(lo / s)} to {_pct(hi / s)})")
    if not fit.determined:
        out.append("  no host figure is determined by the finished phases")
    vague = [n for n in fit.fitted if n not in fit.determined]
    if vague:
        out.append(f"  not determined by the finished phases (not a finding): {', '.join(vague)}")
    return out


def format_text(eta: Eta, scenario: str) -> str:
    prog, fit = eta.progress, eta.refit
    at = prog.sampled_at
    lines = [f"ETA of {scenario} at {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(at))}Z (the snapshot's time)"]
    lines += [_node_line(eta, prog.nodes[n]) for w in prog.waves for n in w]
    lines += prog.unused
    if prog.complete:
        lines.append(f"the restart is complete: {_d(prog.spent)} as restart_info tells (the waves' slowest nodes)")
        return "\n".join(lines) + "\n"
    lines.append(f"time spent: {_d(prog.spent)} (earlier waves' slowest nodes, then the running wave so far)")
    lines.append(f"wave {prog.current + 1} ends in {_spread(at, eta.wave_left)}")  # type: ignore[operator]
    lines.append(f"the plan ends in {_spread(at, eta.plan_left)}")
    w = eta.window
    lines.append(
        f"whole window: {_d(w['p50'])} (predictive p5-p95 {_d(w['p5'])}-{_d(w['p95'])}) from the first node's stop"
    )
    if fit.nodes or fit.phases:
        lines.append(
            f"fitted on {fit.nodes} complete node row(s) and {fit.phases} finished phase(s) of nodes restarting; "
            f"{eta.replications} replications of what is left"
        )
        lines += host_lines(fit)
    else:
        lines.append(f"no phase finished yet: the scenario's host figures; {eta.replications} replications, as run's")
    first = (prog.current or 0) + 1
    span = f"wave {first}" if first == len(prog.waves) else f"waves {first}-{len(prog.waves)}"
    left = [n for w in prog.waves[first - 1 :] for n in w]
    lines.append(
        f"simulated: {span} of the plan (nodes {', '.join(map(str, left))}), with the host figures above, "
        f"{eta.replications} replications, seed {eta.seed}"
    )
    if eta.status != "ok":
        lines.append(f"status of the rest: {eta.status}")
    lines.append(f"cannot be known from a snapshot: {UNKNOWNS}")
    return "\n".join(lines) + "\n"


BAR_WIDTH = 40
"""Characters of the progress bar on a terminal."""


def bar(eta: Eta) -> str:
    """``[#####.....] 52%``: the time spent against the whole window's median (on a terminal)."""
    prog = eta.progress
    whole = prog.spent if prog.complete else eta.window["p50"]
    share = 1.0 if prog.complete else (min(1.0, prog.spent / whole) if whole > 0 and math.isfinite(whole) else 0.0)
    filled = round(share * BAR_WIDTH)
    return f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {100 * share:3.0f}%  {format_line(eta)}"


def format_line(eta: Eta) -> str:
    """One line per snapshot (``--watch`` on a pipe)."""
    prog = eta.progress
    stamp = time.strftime("%H:%M:%S", time.gmtime(prog.sampled_at)) + "Z"
    if prog.complete:
        return f"{stamp} complete after {_d(prog.spent)}"
    running = [p for p in prog.nodes.values() if p.status == RESTARTING]
    where = ", ".join(f"node {p.node_id} {p.phase}" for p in running) or "between waves"
    s = eta.plan_left
    return (
        f"{stamp} wave {prog.current + 1}/{len(prog.waves)} {where}; spent {_d(prog.spent)}; "  # type: ignore[operator]
        f"plan ends in {_d(s['p50'])} (p5-p95 {_d(s['p5'])}-{_d(s['p95'])}); fitted on {eta.refit.nodes} node(s), "
        f"{eta.refit.phases} phase(s)"
    )


def to_dict(eta: Eta) -> dict[str, Any]:
    prog, fit = eta.progress, eta.refit
    at = prog.sampled_at
    nodes = []
    for w in prog.waves:
        for n in w:
            p = prog.nodes[n]
            left = eta.node_left.get(n)
            nodes.append(
                {
                    "node_id": n,
                    "wave": p.wave,
                    "status": p.status,
                    "node_restart_status": p.row.state.text if p.row.state else None,
                    "phase": p.phase,
                    "ndbinfo_nodes_status": p.row.status,
                    "start_phase": p.row.start_phase,
                    "phase_secs_so_far": p.in_phase if p.status == RESTARTING else None,
                    "phase_secs_from": p.in_phase_from or None,
                    "elapsed_secs": p.elapsed if p.status != "waiting" else None,
                    "finished": p.finished,
                    "predicted_end": None if left is None else {k: at + v for k, v in left.items()},
                    "predicted_left_secs": left,
                }
            )
    return json_clean(
        {
            "sampled_at": at,
            "complete": prog.complete,
            "running_wave": None if prog.current is None else prog.current + 1,
            "spent_secs": prog.spent,
            "nodes": nodes,
            "wave_end": {k: at + v for k, v in eta.wave_left.items()},
            "plan_end": {k: at + v for k, v in eta.plan_left.items()},
            "plan_left_secs": eta.plan_left,
            "window_secs": eta.window,
            "crash_moment_plan_left_secs": eta.crash_left,
            "later_waves": eta.later_waves,
            "replications": eta.replications,
            "seed": eta.seed,
            "status": eta.status,
            "warnings": eta.warnings,
            "fit": {
                "nodes": fit.nodes,
                "phases": fit.phases,
                "fitted": list(fit.fitted),
                "determined": {
                    n: {"value": fit.values[n], "p5": fit.span(n)[0], "p95": fit.span(n)[1], "log_sd": fit.sd[n]}
                    for n in fit.determined
                },
                "not_determined": [n for n in fit.fitted if n not in fit.determined],
                "host": fit.values,
                "rows": fit.rows,
                "simulations": fit.simulations,
            },
            "unknowns": UNKNOWNS,
        }
    )


def to_json(eta: Eta, compact: bool = False) -> str:
    """The JSON of ``to_dict``; ``compact``: one line (``--watch`` on a pipe, JSON lines)."""
    if compact:
        return json.dumps(to_dict(eta), separators=(",", ":")) + "\n"
    return json.dumps(to_dict(eta), indent=2) + "\n"
