"""The ETA as Prometheus metrics (``ndbsim eta --prometheus-textfile FILE.prom``): the text
exposition format that node_exporter's textfile collector reads, written with the
``prometheus-client`` library (the ``prometheus`` extra) and replaced atomically (a temporary file
beside it, then a rename: ``ndbsim.output.io.atomic_write``), so the collector never reads half a
file.

Names start ``ndbsim_eta_`` and end in their unit (``_seconds``, ``_timestamp_seconds`` for Unix
times), as Prometheus's naming practice asks. Every series carries ``cluster`` (the scenario's
``name:``, or ``--cluster``), so two watches into one textfile folder never collide. A forecast
is a gauge per percentile (``percentile="5"``, ``"50"``, ``"95"``, ``"99"``; p99 is what an
overrun is judged by): quantiles of a prediction, not a summary of observations. The predicted
ends are Unix times, so that time left is ``end - time()`` in PromQL and keeps counting while
snapshots fail. A status is one sample per possible value, 1 for the one that holds (the
state-set form).

The series (``cluster`` on each):

- ``ndbsim_eta_plan_end_timestamp_seconds{percentile}``: the plan's predicted end;
- ``ndbsim_eta_wave_end_timestamp_seconds{wave, percentile}``: the running wave's;
- ``ndbsim_eta_node_end_timestamp_seconds{node_id, percentile}``: each node of the running wave
  not done (these three only while the watch runs and the restart is running);
- ``ndbsim_eta_overrun_deadline_timestamp_seconds``: when the watch will call it an overrun;
- ``ndbsim_eta_node_phase_elapsed_seconds{node_id, phase}``: the phase in progress, its time so far;
- ``ndbsim_eta_node_status{node_id, status}``, ``ndbsim_eta_restart_status{status}``,
  ``ndbsim_eta_running_wave``, ``ndbsim_eta_spent_seconds``, ``ndbsim_eta_snapshot_timestamp_seconds``;
- ``ndbsim_eta_watch_up`` (1 while the watch runs, 0 once it stopped),
  ``ndbsim_eta_watch_stop_reason{reason}``, ``ndbsim_eta_watch_start_timestamp_seconds``,
  ``ndbsim_eta_last_success_timestamp_seconds`` (this host's clock), ``ndbsim_eta_snapshot_failures_total``
  (a counter), ``ndbsim_eta_consecutive_snapshot_failures``, ``ndbsim_eta_clock_speed`` (1; a dry
  run's ``--speed``).

Once the watch stops the file says so (``watch_up`` 0 and the reason) and holds no forecast: a
forecast nobody updates would go on counting down. An overrun is such a stop (exit 4), so its
file shows the overrun and no time left.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
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

STOP_COMPLETE, STOP_OVERRUN, STOP_FAILURES, STOP_SIGNAL, STOP_ERROR = (
    "complete",
    "overrun",
    "max_failures",
    "signal",
    "error",
)
STOP_REASONS = (STOP_COMPLETE, STOP_OVERRUN, STOP_FAILURES, STOP_SIGNAL, STOP_ERROR)
"""``ndbsim_eta_watch_stop_reason``'s ``reason`` values: the restart completed (exit 0), overran
(exit 4), ``--max-failures`` snapshots in a row failed (exit 2), a signal (SIGINT, SIGTERM,
SIGHUP) or another error (a snapshot that cannot be this restart's, exit 2). All 0 while the
watch runs. A SIGKILL leaves the file as it was: ``ndbsim_eta_last_success_timestamp_seconds``
then stops moving, and node_exporter's ``node_textfile_mtime_seconds`` with it."""

_P = re.compile(r"p(\d+(?:\.\d+)?)")


def percentiles(spread: dict[str, float]) -> list[tuple[str, float]]:
    """The ``pN`` entries of a prediction's spread as ``percentile`` label values (``p5`` -> ``5``), in order."""
    out = []
    for key, value in spread.items():
        m = _P.fullmatch(key)
        if m:
            out.append((f"{float(m.group(1)):g}", value))
    return sorted(out, key=lambda kv: float(kv[0]))


def restart_status(eta: Eta, overrun: bool) -> str:
    """The restart's status in ``RESTART_STATUSES``."""
    return COMPLETE if eta.progress.complete else OVERRUN if overrun else RUNNING


@dataclass
class WatchState:
    """What the file says besides the last snapshot's ETA: whose cluster, whether the watch still
    runs (and why it stopped), its failures, and the clock it runs on."""

    cluster: str
    started: float
    """When the watch began, this host's Unix time."""
    up: bool = True
    stop_reason: str | None = None
    failures: int = 0
    """Snapshots failed in a row (0: the figures are current)."""
    failures_total: int = 0
    last_success: float | None = None
    """When the last snapshot came, this host's Unix time (None: none yet)."""
    overrun: bool = False
    deadline: float | None = None
    """The overrun deadline, the snapshots' Unix time (None: not set yet)."""
    speed: float = 1.0
    """A dry run's clock speed (``--replay --speed``): its snapshot times run ``speed`` times as
    fast as this host's clock from ``started``; the file maps them back onto it, and its
    durations with them, so that ``end - time()`` counts down on the dashboard as the dry run
    goes. 1 for a real restart."""

    def stop(self, reason: str) -> None:
        self.up, self.stop_reason = False, reason

    def ts(self, t: float) -> float:
        """A snapshot-clock time on this file's clock."""
        return t if self.speed == 1.0 else self.started + (t - self.started) / self.speed

    def secs(self, d: float) -> float:
        """A duration on this file's clock."""
        return d / self.speed


class _Families:
    """The metrics of one file, as ``prometheus_client`` families."""

    def __init__(self, eta: Eta | None, state: WatchState):
        self.eta, self.state = eta, state

    def _gauge(self, name: str, doc: str, labels: list[str]) -> Any:
        from prometheus_client.core import GaugeMetricFamily

        return GaugeMetricFamily(PREFIX + name, doc, labels=["cluster", *labels])

    def _one(self, name: str, doc: str, value: float) -> Any:
        g = self._gauge(name, doc, [])
        g.add_metric([self.state.cluster], value)
        return g

    def _ends(self, eta: Eta) -> Iterator[Any]:
        st, at = self.state, eta.progress.sampled_at
        c = st.cluster
        g = self._gauge(
            "plan_end_timestamp_seconds", "Predicted end of the whole restart plan, Unix time.", ["percentile"]
        )
        for p, v in percentiles(eta.plan_left):
            g.add_metric([c, p], st.ts(at + v))
        yield g
        wave = str((eta.progress.current or 0) + 1)
        g = self._gauge(
            "wave_end_timestamp_seconds", "Predicted end of the wave running now, Unix time.", ["wave", "percentile"]
        )
        for p, v in percentiles(eta.wave_left):
            g.add_metric([c, wave, p], st.ts(at + v))
        yield g
        g = self._gauge(
            "node_end_timestamp_seconds",
            "Predicted end of each node of the running wave not done, Unix time.",
            ["node_id", "percentile"],
        )
        for n, spread in sorted(eta.node_left.items()):
            for p, v in percentiles(spread):
                g.add_metric([c, str(n), p], st.ts(at + v))
        yield g

    def _restart(self, eta: Eta) -> Iterator[Any]:
        st, prog, c = self.state, eta.progress, self.state.cluster
        forecast = st.up and not prog.complete and not st.overrun
        if forecast:
            yield from self._ends(eta)
        if st.deadline is not None and math.isfinite(st.deadline) and not prog.complete:
            yield self._one(
                "overrun_deadline_timestamp_seconds",
                "When the watch calls the restart overrun (exit 4): the predicted p99 window times run --timeouts' "
                "margin from the plan's start, Unix time.",
                st.ts(st.deadline),
            )
        g = self._gauge(
            "node_phase_elapsed_seconds",
            "Seconds the phase in progress (restart_info's column) has run on each restarting node.",
            ["node_id", "phase"],
        )
        for n in sorted(prog.nodes):
            p = prog.nodes[n]
            if forecast and p.status == RESTARTING and p.phase is not None:
                g.add_metric([c, str(n), p.phase], st.secs(p.in_phase))
        yield g
        g = self._gauge(
            "node_status",
            f"Each node of the plan: 1 for its status ({', '.join(NODE_STATUSES)}), 0 for the others.",
            ["node_id", "status"],
        )
        for n in sorted(prog.nodes):
            for s in NODE_STATUSES:
                g.add_metric([c, str(n), s], float(prog.nodes[n].status == s))
        yield g
        status = restart_status(eta, st.overrun)
        g = self._gauge(
            "restart_status",
            f"The restart: 1 for its status ({', '.join(RESTART_STATUSES)}), 0 for the others.",
            ["status"],
        )
        for s in RESTART_STATUSES:
            g.add_metric([c, s], float(status == s))
        yield g
        wave = 0 if prog.current is None else prog.current + 1
        yield self._one("running_wave", "The wave running now, from 1 (0: complete).", wave)
        yield self._one(
            "spent_seconds", "Seconds the restart plan has run, as restart_info tells.", st.secs(prog.spent)
        )
        yield self._one(
            "snapshot_timestamp_seconds",
            "When the last snapshot was taken, Unix time (the SQL node's clock).",
            st.ts(prog.sampled_at),
        )

    def _watch(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily

        st, c = self.state, self.state.cluster
        yield self._one("watch_up", "1 while ndbsim eta --watch runs, 0 once it stopped.", float(st.up))
        g = self._gauge(
            "watch_stop_reason",
            f"Why the watch stopped: 1 for the reason ({', '.join(STOP_REASONS)}), 0 for the others (all 0: running).",
            ["reason"],
        )
        for r in STOP_REASONS:
            g.add_metric([c, r], float(st.stop_reason == r))
        yield g
        yield self._one(
            "watch_start_timestamp_seconds", "When the watch began, Unix time (this host's clock).", st.started
        )
        if st.last_success is not None:
            yield self._one(
                "last_success_timestamp_seconds",
                "When the last snapshot was taken successfully, Unix time (this host's clock).",
                st.last_success,
            )
        counter = CounterMetricFamily(
            PREFIX + "snapshot_failures",
            "Snapshots the mysql client failed to take since the watch began.",
            labels=["cluster"],
        )
        counter.add_metric([c], float(st.failures_total))
        yield counter
        yield self._one(
            "consecutive_snapshot_failures",
            "Snapshots in a row the mysql client failed to take since its last one (0: the figures are current).",
            float(st.failures),
        )
        yield self._one(
            "clock_speed",
            "How many times faster than this host's clock the watched restart runs: 1, or a dry run's --speed "
            "(its times and durations are shown on this host's clock).",
            st.speed,
        )

    def collect(self) -> Iterator[Any]:
        if self.eta is not None:
            yield from self._restart(self.eta)
        yield from self._watch()


def exposition(eta: Eta | None, state: WatchState) -> bytes:
    """The text exposition format of the watch's state and its last ETA (None: no snapshot yet)."""
    from prometheus_client import CollectorRegistry, generate_latest

    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Families(eta, state))
    return generate_latest(registry)


def write_textfile(path: str | Path, eta: Eta | None, state: WatchState) -> None:
    """Replace ``path`` atomically with the metrics of ``state`` and ``eta``."""
    text = exposition(eta, state)

    def write(tmp: str) -> None:
        with open(tmp, "wb") as f:
            f.write(text)

    atomic_write(path, write, OPTION)


def single(cluster: str) -> WatchState:
    """The state of one snapshot's file (``--ndbinfo``, run e.g. from cron): taken now, current
    until the next run replaces it (``ndbsim_eta_last_success_timestamp_seconds`` tells its age)."""
    now = time.time()
    return WatchState(cluster, now, last_success=now)


_CLUSTER = re.compile(r'^ndbsim_eta_watch_up\{cluster="((?:[^"\\]|\\.)*)"\}', re.M)


def _unescape(value: str) -> str:
    """A label value as the exposition format escapes it (backslash, double quote, newline), read back."""
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), value)


def check_cluster_free(path: Path, cluster: str) -> None:
    """Refuse a cluster label another ``.prom`` file of the folder already carries: node_exporter
    would drop the colliding series and the scrape would still answer 200."""
    from ndbsim.errors import InputError

    folder = path.parent if str(path.parent) else Path(".")
    for other in sorted(folder.glob("*.prom")):
        if other.resolve() == path.resolve():
            continue
        try:
            text = other.read_text(errors="replace")
        except OSError:
            continue
        names = {_unescape(m) for m in _CLUSTER.findall(text)}
        if cluster in names:
            raise InputError(
                f'{str(other)!r} in the same textfile folder already holds cluster="{cluster}"\'s series, and '
                "node_exporter drops series that collide; give this watch its own name with --cluster NAME "
                "(or remove that file if its watch has ended)",
                field="--cluster",
            )
