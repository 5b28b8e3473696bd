"""The timeouts to set from a prediction: what a supervisor (the NDB Operator's startup probe,
``ndb_waiter``) or NDB itself (``StartFailureTimeout``) should allow a data node's start, from
the run's predictive p95/p99 (``output.interval.predictive``: the range ``run`` prints, not the
crash moment's spread alone, which stays a separate figure) with a stated margin.

Each timeout watches one data node's start (the probe is per data-node pod, ``ndb_waiter``
is run after each node's restart, ``StartFailureTimeout`` is each node's own limit), so the
figures come from the slowest restarted node of every replication, from its stop to its
start completing. A rolling restart's whole window is given beside them for a script that
waits once for all of it.

One config.ini value and one probe serve every start of a node, so they cover each restart type
the cluster can start a node with (the run's own, a node restart and an initial node restart: the
caller runs the others, ``starts``) and name the one that needs the most; ``ndb_waiter``, run after
a restart of a known type, gets a value per type. A StartFailureTimeout already configured below
what a type needs is said: NDB stops that start with error 6100."""

from __future__ import annotations

import math
from typing import Any

from ndbsim.input.units import format_secs
from ndbsim.output.result import Result, quantile

MARGIN = 1.5
"""Factor over the predictive p99 of the node start: ndbsim's choice. The p99 holds where the
restart lands in the live nodes' LCP cycle, the constants' and the model's error and the defaulted
inputs' ranges (``output.interval``); the margin is for what a scenario does not carry at all (data
grown since it was written, other processes on the host). The costs are uneven: a timeout that
fires on a healthy start kills it and the next attempt starts from the beginning (at least
doubling the outage), while one set too long only delays noticing a start that has hung, so the
margin leans long."""

FEW_REPLICATIONS = 20
"""Below this many replications the p99 is the largest or second-largest run: say so and
suggest more (``-n 100`` gives a p99 between the 99th and 100th of 100 runs)."""

PROBE_PERIOD_SECS = 2
"""The NDB Operator's data-node startup probe period (periodSeconds 2, failureThreshold 450:
15 minutes), kept: the threshold is what changes."""
PROBE_DEFAULT_THRESHOLD = 450
"""The NDB Operator's data-node startup probe failureThreshold (450 × 2 s = 15 minutes)."""
NDB_WAITER_DEFAULT_SECS = 120
"""``ndb_waiter --timeout``'s default in seconds (MySQL manual, ndb_waiter)."""

START_TIMEOUTS = (
    (
        "StartFailureTimeout",
        "every start",
        "bounds each data node's whole start, of every restart type (Ndbcntr::execCONTINUEB, ZSTARTUP: "
        "past it the node shuts down with error 6100, total restart time too long); default 0, no limit",
    ),
    (
        "StartPartialTimeout",
        "system",
        "a system (cluster) start only: how long the starting nodes wait for every data node "
        "before starting without some (default 30000 ms; not used by an initial start); a node "
        "restart joins a running cluster and never waits on it. It bounds a wait for the other "
        "nodes, not how long a start takes: keep it",
    ),
    (
        "StartPartitionedTimeout",
        "system",
        "a system (cluster) start only: the further wait when the nodes that came up may be a "
        "partition; like StartPartialTimeout it bounds a wait for the other nodes, not how long a "
        "start takes, and a node restart never reaches it: keep it",
    ),
    (
        "StartNoNodeGroupTimeout",
        "system",
        "a system (cluster) start only: the wait for data nodes configured with NodeGroup=65536 before "
        "starting without them (default 15000 ms; Qmgr::check_startup); a node restart never waits on "
        "it: keep it",
    ),
)
"""The NDB start timeouts (config.ini, [ndbd default]) and which restarts they bound, from the
MySQL NDB Cluster manual's data node parameters (StartPartialTimeout, StartPartitionedTimeout,
StartFailureTimeout, StartNoNodeGroupTimeout) and NDB's source (NdbcntrMain.cpp,
Ndbcntr::execCONTINUEB; QmgrMain.cpp, Qmgr::check_startup)."""

RESTART_NAMES = {
    "node": "node restart",
    "initial": "initial node restart",
    "system": "system restart",
    "rolling": "rolling restart",
    "initial-rolling": "initial rolling restart",
}
"""A restart type as the timeouts name it (``restart.type`` -> NDB's words)."""

NODE_STARTS = ("node", "initial")
"""The restart types every cluster can start a data node with, whatever the scenario runs: a node
restart and an initial node restart (``ndbmtd --initial``, after a disk loss or an upgrade that
needs it). A config.ini timeout must cover both."""


def other_start_types(restart_type: str) -> list[str]:
    """The restart types the timeouts need besides a run of ``restart_type``."""
    return [t for t in NODE_STARTS if t != restart_type]


def node_start_secs(result: Result) -> list[float]:
    """Per replication, the slowest restarted node's time from its stop to its start completing."""
    return result.node_start_secs()


def _round_up(secs: float, step: float) -> float:
    return math.ceil(secs / step) * step


def _bound(p99: float) -> float:
    return _round_up(p99 * MARGIN, 60.0) if math.isfinite(p99) else math.inf


def start_figures(
    restart_type: str, secs: list[float], this_run: bool, iv: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One restart type's node start: its p50/p95/p99 and the bound. With the run's predictive
    interval ``iv``, the quantiles are the predictive distribution's (``figure_quantile``); the
    crash moment's own p99 over the replications stays beside them (``node_start_crash_p99_secs``)."""
    from ndbsim.output.interval.predictive import figure_quantile

    def q(x: float) -> float:
        return figure_quantile(secs, iv, x) if iv and iv.get("sources") else quantile(secs, x)

    p99 = q(0.99)
    return {
        "type": restart_type,
        "name": RESTART_NAMES.get(restart_type, restart_type),
        "this_run": this_run,
        "node_start_p50_secs": q(0.5),
        "node_start_p95_secs": q(0.95),
        "node_start_p99_secs": p99,
        "node_start_crash_p99_secs": quantile(secs, 0.99),
        "bound_secs": _bound(p99),
    }


def timeouts(
    result: Result,
    starts: dict[str, list[float] | str] | None = None,
    configured: dict[str, float] | None = None,
) -> dict[str, Any]:
    """The values to set, as plain figures (JSON-ready): the run's p95/p99 of a node's start,
    the margin, each restart type's start (``starts``: type -> its slowest node's start per
    replication, run by the caller with the same seed and replications, or why it could not run),
    and per timeout the value, the types it covers, and against a ``configured`` value (parameter
    -> milliseconds, from the config.ini) the types it would stop."""
    if not hasattr(result, "first") or not hasattr(result.first, "nodes"):
        from ndbsim.errors import InputError

        raise InputError("the timeouts are a data node's (NDB); this is an InnoDB scenario", field="--timeouts")
    from ndbsim.output.interval.predictive import predictive_quantile

    node = node_start_secs(result)
    iv = result.interval()
    own = start_figures(result.restart_type, node, this_run=True, iv=iv)
    types = [own]
    not_run: dict[str, str] = {}
    for kind, secs in (starts or {}).items():
        if isinstance(secs, str):
            not_run[RESTART_NAMES.get(kind, kind)] = secs
        else:
            types.append(start_figures(kind, secs, this_run=False, iv=iv))
    # the longest start that finishes; one that never does is said, no timeout makes it
    finishing = [t for t in types if math.isfinite(t["bound_secs"])]
    longest = max(finishing, key=lambda t: t["bound_secs"]) if finishing else own
    cover = longest["bound_secs"]
    finite = math.isfinite(cover)
    threshold = math.ceil(cover / PROBE_PERIOD_SECS) if finite else None
    window = result.totals
    return {
        "restart_type": result.restart_type,
        "replications": len(node),
        "node_start_p95_secs": own["node_start_p95_secs"],
        "node_start_p99_secs": own["node_start_p99_secs"],
        "window_p99_secs": (
            (predictive_quantile(iv, 0.99) if iv.get("sources") else quantile(window, 0.99))
            if result.multi_node
            else None
        ),
        "margin": MARGIN,
        "bound_secs": own["bound_secs"],
        "restart_types": types,
        "not_run": not_run,
        "covering_bound_secs": cover,
        "covering_type": longest["name"],
        "startup_probe": {
            "periodSeconds": PROBE_PERIOD_SECS,
            "failureThreshold": threshold,
            "default_failureThreshold": PROBE_DEFAULT_THRESHOLD,
            "default_secs": PROBE_DEFAULT_THRESHOLD * PROBE_PERIOD_SECS,
            "covers": longest["name"],
        },
        "ndb_waiter_timeout_secs": own["bound_secs"] if math.isfinite(own["bound_secs"]) else None,
        "ndb_waiter_default_secs": NDB_WAITER_DEFAULT_SECS,
        "config_ini": [
            _config_entry(name, applies, why, types, longest, configured or {}) for name, applies, why in START_TIMEOUTS
        ],
    }


def _config_entry(
    name: str,
    applies: str,
    why: str,
    types: list[dict[str, Any]],
    longest: dict[str, Any],
    configured: dict[str, float],
) -> dict[str, Any]:
    """One config.ini timeout: its value (StartFailureTimeout: the longest type's bound), the types it
    covers, and the types a configured value would stop (error 6100)."""
    bounds_starts = applies == "every start"
    finite = math.isfinite(longest["bound_secs"])
    have = configured.get(name)
    stops = [
        {"type": t["type"], "name": t["name"], "node_start_p99_secs": t["node_start_p99_secs"]}
        for t in types
        if bounds_starts and have and have / 1000 < t["node_start_p99_secs"]
    ]
    return {
        "parameter": name,
        "applies_to": applies,
        "value_ms": int(longest["bound_secs"] * 1000) if bounds_starts and finite else None,
        "covers": [t["name"] for t in types] if bounds_starts else [],
        "configured_ms": have,
        "stops": stops,
        "why": why,
    }


def timeout_lines(t: dict[str, Any]) -> list[str]:
    """The timeouts as the lines under a phase table (``ndbsim run --timeouts``)."""
    n = t["replications"]
    out = [
        f"timeouts (slowest node's start over {n} replication{'s' if n > 1 else ''} of each restart type; "
        f"margin ×{t['margin']:g} over the predictive p99, rounded up to a minute):",
    ]
    for r in t["restart_types"]:
        here = " (this run)" if r["this_run"] else ""
        crash = r.get("node_start_crash_p99_secs", r["node_start_p99_secs"])
        out.append(
            f"  {r['name']}{here}: predictive p95 {format_secs(r['node_start_p95_secs'])}, "
            f"p99 {format_secs(r['node_start_p99_secs'])} -> {format_secs(r['bound_secs'])} "
            f"(crash-moment p99 {format_secs(crash)})"
        )
    for name, why in t.get("not_run", {}).items():
        out.append(f"  {name}: not simulated ({why}); the values below do not cover it")
    out.extend(
        f"  the {r['name']} would not finish: no timeout makes it (ndbsim run --set restart.type={r['type']})"
        for r in t["restart_types"]
        if not math.isfinite(r["bound_secs"]) and math.isfinite(t["covering_bound_secs"])
    )
    if n < FEW_REPLICATIONS:
        out.append(f"  few replications: the p99 of {n} is about its largest; rerun with -n 100 for a steadier p99")
    if not math.isfinite(t["covering_bound_secs"]):
        out.append(
            f"  the {t['covering_type']} would not finish: no timeout makes it; fix the cause first (see status)"
        )
        return out
    probe = t["startup_probe"]
    enough = ", which already covers it" if probe["failureThreshold"] <= probe["default_failureThreshold"] else ""
    out.append(
        f"  NDB Operator data-node startupProbe: failureThreshold {probe['failureThreshold']} × periodSeconds "
        f"{probe['periodSeconds']}, for the {probe['covers']}, the longest start (default "
        f"{probe['default_failureThreshold']} × {probe['periodSeconds']} s = "
        f"{format_secs(probe['default_secs'])}{enough})"
    )
    waits = ", ".join(
        f"--timeout={r['bound_secs']:.0f} after a{'n' if r['name'][0] in 'aeiou' else ''} {r['name']}"
        for r in t["restart_types"]
        if math.isfinite(r["bound_secs"])
    )
    out.append(f"  ndb_waiter {waits} (default {format_secs(t['ndb_waiter_default_secs'])})")
    if t["window_p99_secs"] is not None:
        whole = _round_up(t["window_p99_secs"] * t["margin"], 60.0)
        p99 = format_secs(t["window_p99_secs"])
        out.append(f"  the whole window, waited for once: {format_secs(whole)} (p99 {p99} × margin)")
    for c in t["config_ini"]:
        out.extend(_config_lines(c, t["covering_type"]))
    return out


def names_text(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else "".join(names)


def _config_lines(c: dict[str, Any], covering: str) -> list[str]:
    if c["value_ms"] is None:
        return [f"  config.ini {c['parameter']}: {c['why']}"]
    covers = names_text(c["covers"])
    out = [f"  config.ini {c['parameter']}={c['value_ms']}: covers the {covers} (the {covering} needs the most)"]
    out[0] += f"; {c['why']}"
    if not c["stops"]:
        return out
    now = f"{c['configured_ms']:.0f} ({format_secs((c['configured_ms'] or 0) / 1000)})"
    out.extend(
        f"  config.ini {c['parameter']} is {now} now: the {s['name']} takes "
        f"{format_secs(s['node_start_p99_secs'])} at p99, so NDB would stop it with error 6100 (total restart "
        f"time exceeds StartFailureTimeout); raise it to {c['value_ms']}"
        for s in c["stops"]
    )
    return out


def stopped_by_start_failure_timeout(result: Result, configured: dict[str, float]) -> str | None:
    """The warning a run gives when the StartFailureTimeout configured is shorter than its slowest
    node's start in some replication: NDB would stop that start (error 6100, Ndbcntr's ZSTARTUP check)."""
    limit = configured.get("StartFailureTimeout")
    if not limit or not hasattr(result, "node_start_secs"):
        return None
    secs = node_start_secs(result)
    over = sum(s > limit / 1000 for s in secs)
    if not over:
        return None
    name = RESTART_NAMES.get(result.restart_type, result.restart_type)
    return (
        f"StartFailureTimeout={limit:.0f} ({format_secs(limit / 1000)}) is shorter than this {name}'s slowest node "
        f"start in {over} of {len(secs)} replications (p50 {format_secs(quantile(secs, 0.5))}): NDB would stop that "
        "start with error 6100 (total restart time exceeds StartFailureTimeout); run --timeouts says what covers "
        "every restart type"
    )
