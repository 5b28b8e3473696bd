"""The ETA as Prometheus metrics (``ndbsim eta --prometheus-textfile FILE.prom``): the text
exposition format that node_exporter's textfile collector reads, written with the
``prometheus-client`` library (the ``prometheus`` extra) and replaced atomically after every
snapshot (a temporary file beside it, then a rename: ``ndbsim.output.io.atomic_write``), so the
collector never reads half a file.

Names start ``ndbsim_eta_`` and end in their unit (``_seconds``, ``_timestamp_seconds`` for
Unix times); labels are ``node_id`` (NDB's NodeId), ``phase`` (restart_info's column of the phase
in progress, ``secs_restore_fragments``), ``quantile`` and ``status``. A predicted end or time
left is a summary over the simulated replications: one sample per quantile the prediction
carries (its ``pN`` keys; ``quantile="0.5"`` is the median), as Prometheus writes a summary's
quantiles, and ``_count`` the replications. A status is one sample per possible value, 1 for
the one that holds (the state-set form).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ndbsim.output.io import atomic_write
from ndbsim.studies.eta.predict import Eta
from ndbsim.studies.eta.progress import DONE, RESTARTING, WAITING

PREFIX = "ndbsim_eta_"
"""The start of every metric's name."""

OPTION = "--prometheus-textfile"
"""The command-line option that names the file."""

NODE_STATUSES = (WAITING, RESTARTING, DONE)
"""``ndbsim_eta_node_status``'s ``status`` values: each node of the plan waits, restarts or is done."""

RUNNING, COMPLETE, OVERRUN = "running", "complete", "overrun"
RESTART_STATUSES = (RUNNING, COMPLETE, OVERRUN)
"""``ndbsim_eta_restart_status``'s ``status`` values: running, complete, or run past the p99 window
by run --timeouts' margin (what ends ``--watch`` with exit 4)."""

_P = re.compile(r"p(\d+(?:\.\d+)?)")


def quantiles(spread: dict[str, float]) -> list[tuple[str, float]]:
    """The ``pN`` entries of a prediction's spread as Prometheus quantiles (``p5`` -> ``0.05``), in order."""
    out = []
    for key, value in spread.items():
        m = _P.fullmatch(key)
        if m:
            out.append((f"{float(m.group(1)) / 100:g}", value))
    return sorted(out, key=lambda kv: float(kv[0]))


def restart_status(eta: Eta, overrun: bool) -> str:
    """The restart's status in ``RESTART_STATUSES``."""
    return COMPLETE if eta.progress.complete else OVERRUN if overrun else RUNNING


class _Family:
    """The metrics of one snapshot, as ``prometheus_client`` families."""

    def __init__(self, eta: Eta, status: str, failures: int):
        self.eta, self.status, self.failures = eta, status, failures

    def _summary(self, name: str, doc: str, spread: dict[str, float], offset: float, **labels: str) -> Any:
        from prometheus_client.core import Metric

        m = Metric(PREFIX + name, doc, "summary")
        for q, v in quantiles(spread):
            m.add_sample(PREFIX + name, {**labels, "quantile": q}, offset + v)
        m.add_sample(PREFIX + name + "_count", dict(labels), float(self.eta.replications))
        return m

    def _nodes_summary(self, name: str, doc: str, offset: float) -> Any:
        from prometheus_client.core import Metric

        m = Metric(PREFIX + name, doc, "summary")
        for n, spread in sorted(self.eta.node_left.items()):
            for q, v in quantiles(spread):
                m.add_sample(PREFIX + name, {"node_id": str(n), "quantile": q}, offset + v)
            m.add_sample(PREFIX + name + "_count", {"node_id": str(n)}, float(self.eta.replications))
        return m

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        eta, prog = self.eta, self.eta.progress
        at = prog.sampled_at
        yield self._summary(
            "plan_end_timestamp_seconds",
            "Predicted end of the whole restart plan, Unix time (the snapshot's time once complete).",
            eta.plan_left,
            at,
        )
        yield self._summary("plan_left_seconds", "Predicted seconds until the restart plan ends.", eta.plan_left, 0.0)
        yield self._summary(
            "wave_end_timestamp_seconds", "Predicted end of the wave running now, Unix time.", eta.wave_left, at
        )
        yield self._nodes_summary(
            "node_end_timestamp_seconds", "Predicted end of each node of the running wave not done, Unix time.", at
        )
        g = GaugeMetricFamily(
            PREFIX + "node_phase_elapsed_seconds",
            "Seconds the phase in progress (restart_info's column) has run on each restarting node.",
            labels=["node_id", "phase"],
        )
        for n in sorted(prog.nodes):
            p = prog.nodes[n]
            if p.status == RESTARTING and p.phase is not None:
                g.add_metric([str(n), p.phase], p.in_phase)
        yield g
        g = GaugeMetricFamily(
            PREFIX + "node_status",
            f"Each node of the plan: 1 for its status ({', '.join(NODE_STATUSES)}), 0 for the others.",
            labels=["node_id", "status"],
        )
        for n in sorted(prog.nodes):
            for s in NODE_STATUSES:
                g.add_metric([str(n), s], float(prog.nodes[n].status == s))
        yield g
        g = GaugeMetricFamily(
            PREFIX + "restart_status",
            f"The restart: 1 for its status ({', '.join(RESTART_STATUSES)}), 0 for the others.",
            labels=["status"],
        )
        for s in RESTART_STATUSES:
            g.add_metric([s], float(self.status == s))
        yield g
        wave = 0 if prog.current is None else prog.current + 1
        yield GaugeMetricFamily(PREFIX + "running_wave", "The wave running now, from 1 (0: complete).", value=wave)
        yield GaugeMetricFamily(
            PREFIX + "spent_seconds", "Seconds the restart plan has run, as restart_info tells.", value=prog.spent
        )
        yield GaugeMetricFamily(
            PREFIX + "snapshot_timestamp_seconds", "When the snapshot was taken, Unix time (the SQL node's clock).", at
        )
        yield GaugeMetricFamily(
            PREFIX + "snapshot_failures",
            "Snapshots in a row the mysql client failed to take since this one (0: the figures are current).",
            value=self.failures,
        )


def exposition(eta: Eta, status: str, failures: int = 0) -> bytes:
    """The text exposition format of one snapshot's metrics."""
    from prometheus_client import CollectorRegistry, generate_latest

    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Family(eta, status, failures))
    return generate_latest(registry)


def write_textfile(path: str | Path, eta: Eta, status: str, failures: int = 0) -> None:
    """Replace ``path`` atomically with the metrics of ``eta``."""
    text = exposition(eta, status, failures)

    def write(tmp: str) -> None:
        with open(tmp, "wb") as f:
            f.write(text)

    atomic_write(path, write, OPTION)
