"""The timeouts to set from a prediction: what a supervisor (the NDB Operator's startup probe,
``ndb_waiter``) or NDB itself (``StartFailureTimeout``) should allow a data node's start, from
the run's p95/p99 with a stated margin.

Each timeout watches one data node's start (the probe is per data-node pod, ``ndb_waiter``
is run after each node's restart, ``StartFailureTimeout`` is each node's own limit), so the
figures come from the slowest restarted node of every replication, from its stop to its
start completing. A rolling restart's whole window is given beside them for a script that
waits once for all of it."""

from __future__ import annotations

import math
from typing import Any

from ndbsim.input.units import format_secs
from ndbsim.output.result import Result, quantile

MARGIN = 1.5
"""Factor over the p99 of the simulated node start: ndbsim's choice. The p99 covers only the
variation the simulation draws (where the restart lands in the live nodes' LCP cycle); the
model itself is held to ±15% of the published totals it was not fitted on (calibration/README.md,
validation cases), so 1.15 is the least margin for model error, and the rest (1.5 / 1.15 ≈ 1.3)
is for what a scenario does not carry (data grown since it was written, a disk slower than
stated, other processes on the host). The costs are uneven: a timeout that fires on a healthy
start kills it and the next attempt starts from the beginning (at least doubling the outage),
while one set too long only delays noticing a start that has hung, so the margin leans long."""

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
        "node",
        "bounds each data node's whole start, a node restart's included (Ndbcntr::execCONTINUEB, "
        "ZSTARTUP: past it the node shuts down with error 6100, total restart time too long); "
        "default 0, no limit",
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
)
"""The NDB start timeouts (config.ini, [ndbd default]) and which restarts they bound, from the
MySQL NDB Cluster manual's data node parameters (StartPartialTimeout, StartPartitionedTimeout,
StartFailureTimeout) and NDB's source (storage/ndb/src/kernel/blocks/ndbcntr/NdbcntrMain.cpp,
Ndbcntr::execCONTINUEB)."""


def node_start_secs(result: Result) -> list[float]:
    """Per replication, the slowest restarted node's time from its stop to its start completing."""
    return result.node_start_secs()


def _round_up(secs: float, step: float) -> float:
    return math.ceil(secs / step) * step


def timeouts(result: Result) -> dict[str, Any]:
    """The values to set, as plain figures (JSON-ready): the run's p95/p99 of a node's start,
    the margin, and per timeout the value and the default it replaces."""
    if not hasattr(result, "first") or not hasattr(result.first, "nodes"):
        from ndbsim.errors import InputError

        raise InputError("the timeouts are a data node's (NDB); this is an InnoDB scenario", field="--timeouts")
    node = node_start_secs(result)
    p95, p99 = quantile(node, 0.95), quantile(node, 0.99)
    finite = math.isfinite(p99)
    bound = _round_up(p99 * MARGIN, 60.0) if finite else math.inf
    threshold = math.ceil(bound / PROBE_PERIOD_SECS) if finite else None
    window = result.totals
    return {
        "restart_type": result.restart_type,
        "replications": len(node),
        "node_start_p95_secs": p95,
        "node_start_p99_secs": p99,
        "window_p99_secs": quantile(window, 0.99) if result.multi_node else None,
        "margin": MARGIN,
        "bound_secs": bound,
        "startup_probe": {
            "periodSeconds": PROBE_PERIOD_SECS,
            "failureThreshold": threshold,
            "default_failureThreshold": PROBE_DEFAULT_THRESHOLD,
            "default_secs": PROBE_DEFAULT_THRESHOLD * PROBE_PERIOD_SECS,
        },
        "ndb_waiter_timeout_secs": bound if finite else None,
        "ndb_waiter_default_secs": NDB_WAITER_DEFAULT_SECS,
        "config_ini": [
            {
                "parameter": name,
                "applies_to": applies,
                "value_ms": int(bound * 1000) if applies == "node" and finite else None,
                "why": why,
            }
            for name, applies, why in START_TIMEOUTS
        ],
    }


def timeout_lines(t: dict[str, Any]) -> list[str]:
    """The timeouts as the lines under a phase table (``ndbsim run --timeouts``)."""
    n = t["replications"]
    out = [
        f"timeouts (slowest node's start over {n} replication{'s' if n > 1 else ''}: "
        f"p95 {format_secs(t['node_start_p95_secs'])}, p99 {format_secs(t['node_start_p99_secs'])}; "
        f"margin ×{t['margin']:g} over p99, rounded up to a minute: {format_secs(t['bound_secs'])})",
    ]
    if n < FEW_REPLICATIONS:
        out.append(f"  few replications: the p99 of {n} is about its largest; rerun with -n 100 for a steadier p99")
    if not math.isfinite(t["bound_secs"]):
        out.append("  the restart would not finish: no timeout makes it; fix the cause first (see status)")
        return out
    probe = t["startup_probe"]
    enough = ", which already covers it" if probe["failureThreshold"] <= probe["default_failureThreshold"] else ""
    out.append(
        f"  NDB Operator data-node startupProbe: failureThreshold {probe['failureThreshold']} × periodSeconds "
        f"{probe['periodSeconds']} (default {probe['default_failureThreshold']} × {probe['periodSeconds']} s = "
        f"{format_secs(probe['default_secs'])}{enough})"
    )
    out.append(
        f"  ndb_waiter --timeout={t['ndb_waiter_timeout_secs']:.0f} after each node's restart "
        f"(default {t['ndb_waiter_default_secs']} s)"
    )
    if t["window_p99_secs"] is not None:
        whole = _round_up(t["window_p99_secs"] * t["margin"], 60.0)
        p99 = format_secs(t["window_p99_secs"])
        out.append(f"  the whole window, waited for once: {whole:.0f} s (p99 {p99} × margin)")
    for c in t["config_ini"]:
        value = f"{c['parameter']}={c['value_ms']}" if c["value_ms"] is not None else c["parameter"]
        out.append(f"  config.ini {value}: {c['why']}")
    return out
