"""A simulation's result: the replications' plain dataclasses (``Replication``, ``NodeRun``),
their medians and quantiles, one DataFrame row per replication, node and phase
(``to_frame``), and the JSON and CSV of CONTRACT §2. The fully resolved scenario travels
inside every result, so a result file can be re-run."""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ndbsim.engine.run import Replication
from ndbsim.output.replications import ReplicationLog

if TYPE_CHECKING:
    import pandas as pd

    from ndbsim.engine.restart.pipeline import NodeRun

from ndbsim.input.restart_info import LOCAL_RECOVERY, PHASES, node_phases, phase_bounds


def _phase_rows(i: int, r: Replication, n: NodeRun) -> list[dict[str, Any]]:
    """Node ``n``'s rows of ``to_frame``: one per phase, times relative to the start of the replication's first node."""
    t0 = min((a for _, a, _ in n.spans), default=n.start)
    base = r.nodes[0].start
    secs = node_phases(n.spans)
    firsts, lasts = phase_bounds(n.spans)
    return [
        {
            "replication": i,
            "node_id": n.node_id,
            "phase": p,
            "secs": secs[p],
            "start": firsts.get(p, t0) - base,
            "end": lasts.get(p, t0) - base,
            "status": r.status,
        }
        for p in PHASES
    ]


def _median(xs: list[float]) -> float:
    ys = sorted(xs)
    n = len(ys)
    if not n:
        return math.nan
    mid = n // 2
    return ys[mid] if n % 2 else 0.5 * (ys[mid - 1] + ys[mid])


def quantile(xs: list[float], q: float) -> float:
    """Linear-interpolated quantile (numpy's default), without importing numpy here."""
    ys = sorted(xs)
    if not ys:
        return math.nan
    pos = q * (len(ys) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ys) - 1)
    frac = pos - lo
    if frac == 0 or math.isinf(ys[lo]):
        return ys[lo]
    if math.isinf(ys[hi]):
        return ys[hi]  # between a finite total and a restart that never ends: inf, not nan
    return ys[lo] + (ys[hi] - ys[lo]) * frac


class ReplicatedSummary:
    """What every result with ``replications`` (each with a total, status, reason and
    warnings) and ``notes`` (warnings about its input) says about them together; NDB restarts
    and InnoDB recoveries share it."""

    replications: Sequence[Any]
    notes: list[str]

    @property
    def totals(self) -> list[float]:
        return [r.total_restart_secs for r in self.replications]

    @property
    def status(self) -> str:
        bad = [r.status for r in self.replications if r.status != "ok"]
        return bad[0] if bad else "ok"

    @property
    def reason(self) -> str:
        return next((r.reason for r in self.replications if r.status != "ok"), "")

    @property
    def warnings(self) -> list[str]:
        """The input's notes, then every replication's warnings, each once."""
        seen: dict[str, None] = dict.fromkeys(self.notes)
        for r in self.replications:
            for w in r.warnings:
                seen.setdefault(w)
        return list(seen)

    def spread(self) -> dict[str, float]:
        """How many replications, and the p5/p50/p95 of their totals (CONTRACT §2)."""
        t = self.totals
        return {"n": len(t), "p5": quantile(t, 0.05), "p50": quantile(t, 0.5), "p95": quantile(t, 0.95)}


@dataclass
class Result(ReplicatedSummary):
    name: str
    version: str
    restart_type: str
    seed: int
    scenario: dict[str, Any]
    replications: ReplicationLog = field(default_factory=ReplicationLog)
    """The replications, folded into what the outputs need (a list given here is kept whole)."""
    explained: dict[str, Any] = field(default_factory=dict)
    """What was simulated and what was defaulted (``explain.describe``): ``simulated``, ``defaulted``."""
    notes: list[str] = field(default_factory=list)
    """Warnings about the input (config.ini notes, defaulted sections, overridden rates), shown
    with the simulation's own in every format."""
    changes: list[str] = field(default_factory=list)
    """What made the run differ from its scenario file (``--config-ini FILE``, ``--set k=v``)."""

    def __post_init__(self) -> None:
        if not isinstance(self.replications, ReplicationLog):
            self.replications = ReplicationLog(self.replications)

    # -- summaries ----------------------------------------------------------------------
    @property
    def totals(self) -> list[float]:
        return list(self.replications.totals)

    @property
    def status(self) -> str:
        bad = self.replications.bad
        return bad[0] if bad else "ok"

    @property
    def reason(self) -> str:
        bad = self.replications.bad
        return bad[1] if bad else ""

    @property
    def warnings(self) -> list[str]:
        """The input's notes, then every replication's warnings, each once."""
        seen: dict[str, None] = dict.fromkeys(self.notes)
        for w in self.replications.warnings:
            seen.setdefault(w)
        return list(seen)

    @property
    def setting_flags(self) -> list[str]:
        """What any replication's configuration sits on that a run warns about, each once."""
        return list(self.replications.flags)

    def node_start_secs(self) -> list[float]:
        """Per replication, the slowest restarted node's time from its stop to its start completing."""
        return list(self.replications.slowest_secs)

    @property
    def title(self) -> str:
        """The scenario's name made to agree with the run (version, data nodes), with its changes."""
        from ndbsim.output.header import title_as_run

        return title_as_run(self.name, self.version, self.data_nodes, self.changes)

    @property
    def data_nodes(self) -> int:
        """The run's data nodes (from the resolved scenario it carries)."""
        return int((self.scenario.get("cluster") or {}).get("data_nodes", 0))

    @property
    def first(self) -> Replication:
        return self.replications[0]

    @property
    def checkpoint(self) -> dict[str, Any]:
        """The steady checkpoint's figures (the first replication's) with the REDO peak the
        highest of every replication's: the one figure the summary quotes, the peak the
        "error 410 is close" warnings reach."""
        cp = dict(self.first.checkpoint)
        peak = self.replications.redo_peak_bytes
        if cp.get("redo_peak_bytes") is not None and peak > cp["redo_peak_bytes"]:
            cp["redo_peak_bytes"] = peak
        return cp

    @property
    def total_restart_secs(self) -> float:
        """The replications' median total; infinite (null in JSON) when any replication did not
        complete: a restart that stops for some crash moments has no total a ranking may read
        as faster (``completed_secs`` is the median of those that did)."""
        totals = self.totals
        return _median(totals) if all(math.isfinite(t) for t in totals) else math.inf

    @property
    def stopped_count(self) -> int:
        """How many replications did not complete."""
        return sum(1 for t in self.totals if not math.isfinite(t))

    def completed_secs(self) -> float:
        """The median total of the replications that completed (nan: none did)."""
        return _median([t for t in self.totals if math.isfinite(t)])

    def stopped(self) -> dict[str, Any] | None:
        """Where the first replication that did not complete stopped: seconds after the crash,
        the phase a restarting node was in, and its status (None when every one completed)."""
        r = next((x for x in self.replications if x.status != "ok"), None)
        if r is None:
            return None
        return {
            "stopped_secs": r.stopped_secs,
            "stopped_in": r.stopped_in,
            "status": r.status,
            "stopped_replications": self.stopped_count,
            "completed_secs": self.completed_secs(),
        }

    def node_ids(self) -> list[int]:
        return [n.node_id for n in self.first.nodes]

    def phases(self, node_id: int | None = None) -> dict[str, float]:
        """Median seconds per phase over replications (the slowest node, or ``node_id``)."""
        return {p: _median(self.replications.phase_values(p, node_id)) for p in PHASES}

    def node_total(self, node_id: int) -> float:
        return _median(self.replications.node_secs(node_id))

    # -- the per-node schedule of a restart of several nodes --------------------------------
    @property
    def multi_node(self) -> bool:
        return len(self.first.nodes) > 1

    def schedule_replication(self) -> int:
        """The replication whose window is the median (the lower middle one for an even count):
        a schedule is one replication's, so that its waves and nodes add up to its window."""
        totals = self.totals
        order = sorted(range(len(totals)), key=totals.__getitem__)
        return order[(len(order) - 1) // 2]

    def schedule(self) -> dict[str, Any]:
        """Replication ``schedule_replication``'s waves and nodes: when each started and ended, in
        seconds from the first node's stop, and the release each node came back on. The waves
        follow one another, so their lengths add up to the window."""
        i = self.schedule_replication()
        rep = self.replications[i]
        t0 = rep.nodes[0].start if rep.nodes else 0.0
        release = self.scenario.get("restart", {}).get("upgrade_to") or self.version
        nodes = [
            {
                "node_id": n.node_id,
                "wave": n.wave,
                "release": release,
                "start_secs": n.start - t0,
                "end_secs": n.end - t0,
                "node_total_secs": n.end - n.start,
            }
            for n in rep.nodes
        ]
        waves = []
        single = getattr(rep, "single_replica", [])
        for w in sorted({n.wave for n in rep.nodes}):
            mine = [n for n in rep.nodes if n.wave == w]
            start, end = min(n.start for n in mine) - t0, max(n.end for n in mine) - t0
            waves.append(
                {
                    "wave": w,
                    "nodes": [n.node_id for n in mine],
                    "start_secs": start,
                    "end_secs": end,
                    "secs": end - start,
                    "single_replica": [
                        {k: e[k] for k in ("node_group", "live_node", "restarting", "secs")}
                        for e in single
                        if e["wave"] == w
                    ],
                }
            )
        plan = self.scenario.get("restart", {}).get("plan") or "per-node-group"
        plan = plan if isinstance(plan, str) else "explicit waves"
        return {
            "replication": i,
            "plan": plan,
            "window_secs": rep.total_restart_secs,
            "waves": waves,
            "nodes": nodes,
        }

    def to_frame(self) -> pd.DataFrame:
        """Per replication, node and phase: seconds, start and end (relative to the crash)."""
        import pandas as pd

        rows: list[dict[str, Any]] = []
        for i, r in enumerate(self.replications):
            for n in r.nodes:
                rows.extend(_phase_rows(i, r, n))
        return pd.DataFrame(rows)

    def accuracy(self) -> dict[str, Any]:
        """How right the model has been on restarts like this one, beside the replications'
        p5–p95 (``output.accuracy``): the calibration's error, or the published validations'."""
        from ndbsim.output.accuracy import accuracy

        return accuracy(self.version, self.scenario, self.changes)

    def interval(self) -> dict[str, Any]:
        """The predictive interval (``output.interval``): p5, p50, p95 of the total and its sources."""
        from ndbsim.output.interval import result_interval

        return result_interval(self)

    # -- serialisation ------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        nodes = []
        facts = {n.node_id: n.facts.as_dict() for n in self.first.nodes}
        runs = {n.node_id: n for n in self.first.nodes}
        sim = self.explained.get("simulated") or {}
        for nid in self.node_ids():
            ph = self.phases(nid)
            info = dict(ph)
            info["secs_for_local_recovery"] = sum(ph[p] for p in LOCAL_RECOVERY)
            info["total_restart_secs"] = self.node_total(nid)
            nodes.append(
                {
                    "node_id": nid,
                    "total_restart_secs": self.node_total(nid),
                    "phases": ph,
                    "restart_info": info,
                    "facts": facts[nid],
                    "release": runs[nid].release,
                    "release_from": _release_from(runs[nid].release, self.version, sim),
                    "threads": runs[nid].threads,
                    "why": runs[nid].why,
                }
            )
        return {
            "name": self.name,
            "title": self.title,
            "version": self.version,
            "restart_type": self.restart_type,
            "total_restart_secs": self.total_restart_secs,
            **(self.stopped() or {}),
            "phases": self.phases(),
            "nodes": nodes,
            **({"schedule": self.schedule()} if self.multi_node else {}),
            "checkpoint": self.checkpoint,
            "status": self.status,
            "reason": self.reason,
            "warnings": self.warnings,
            "replications": self.spread(),
            "crash_moment_modes": _modes(self.totals),
            "accuracy": self.accuracy(),
            "interval": self.interval(),
            "seed": self.seed,
            "events": self.first.events,
            "simulated": self.explained.get("simulated"),
            "defaulted": self.explained.get("defaulted"),
            "scenario": self.scenario,
        }

    def to_json(self) -> str:
        return json.dumps(json_clean(self.to_dict()), indent=2, sort_keys=False)

    def to_csv(self) -> str:
        """One row per node and phase (medians): the node's own total, and the restart's total
        (for several nodes, the whole window: a rolling restart's waves one after another) with
        its p5/p95 over the replications (the crash moment's spread), the status, and the predictive
        interval's p5/p95 (``interval``; empty for a restart that did not complete)."""
        from ndbsim.output.header import csv_fields

        extra = csv_fields(self.explained, self.warnings)
        lines = [
            "node_id,phase,secs,node_total_secs,total_restart_secs,total_p5,total_p95,status,"
            "interval_p5,interval_p95" + "".join(f",{k}" for k in extra)
        ]
        spread = self.spread()
        whole = f"{self.total_restart_secs:.3f},{spread['p5']:.3f},{spread['p95']:.3f}"
        iv = self.interval() if math.isfinite(self.total_restart_secs) else {}
        band = ",".join(_csv_cell(iv.get(k)) for k in ("p5", "p95"))
        tail = f",{band}" + "".join(f",{_csv_cell(v)}" for v in extra.values())
        for nid in self.node_ids():
            tot = self.node_total(nid)
            for p, v in self.phases(nid).items():
                lines.append(f"{nid},{p},{v:.3f},{tot:.3f},{whole},{self.status}{tail}")
        if self.multi_node:
            lines = _with_schedule_columns(lines, self.schedule())
        return "\n".join(lines) + "\n"


def _modes(totals: list[float]) -> dict[str, Any] | None:
    from ndbsim.output.interval.modes import modes

    return modes(totals)


def _csv_cell(value: Any) -> str:
    """One CSV cell: numbers as written, text quoted when it holds a comma, quote or newline."""
    text = "" if value is None else (f"{value:.12g}" if isinstance(value, float) else str(value))
    if any(c in text for c in ',"\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _with_schedule_columns(lines: list[str], schedule: dict[str, Any]) -> list[str]:
    """The CSV of several nodes: each row also gives its node's wave and, from the schedule's
    replication, when the node stopped and when it had started again."""
    by_node = {n["node_id"]: n for n in schedule["nodes"]}
    out = [lines[0] + ",wave,node_start_secs,node_end_secs"]
    for line in lines[1:]:
        n = by_node[int(line.split(",", 1)[0])]
        out.append(f"{line},{n['wave']},{n['start_secs']:.3f},{n['end_secs']:.3f}")
    return out


def json_clean(x: Any) -> Any:
    """JSON has no inf/nan: write them as null; round floats (numpy's too) for byte-stable output."""
    if isinstance(x, numbers.Integral) and not isinstance(x, bool):
        return int(x)
    if isinstance(x, numbers.Real) and not isinstance(x, bool):
        x = float(x)
        return float(f"{x:.12g}") if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: json_clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_clean(v) for v in x]
    return x


def _release_from(release: str, version: str, simulated: dict[str, Any]) -> str:
    """Where a node's release came from: restart.upgrade_to for an upgraded node, else the origin of
    the scenario's ``version`` (the scenario, --version, --set, an ndbinfo export, a default)."""
    if release and release != version:
        return "restart.upgrade_to"
    return str(simulated.get("version_from") or "scenario")
