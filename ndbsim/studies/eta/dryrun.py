"""A dry run of ``ndbsim eta --watch`` (``--replay --speed N``): a simulated restart of the user's
own scenario, played on a clock ``N`` times as fast as this host's, cut into snapshots in the
form the ``mysql`` client prints them (``replay.snapshot_text``) and read through the same parser
and session as a real watch, so that the textfile and the dashboard can be wired and seen the
day before the window.

The restart played is one replication of the scenario (its seed, or ``--seed``): each node's
phase spans as the simulator records them, summed into restart_info's columns
(``restart_rows.node_columns``), the waves one after another from the moment the dry run starts.
The ETA then predicts it with the same model, so its forecasts are the model's own spread around
a restart the model made: a check of the wiring, not of the model (that is
``benchmarks/eta_coverage.py``'s, against restarts measured on real clusters).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.restart_info import node_phases
from ndbsim.input.snapshot.read import Snapshot, parse_snapshot
from ndbsim.studies.calibration.restart_rows import node_columns
from ndbsim.studies.eta.replay import snapshot_text, wave_starts

SPEED = 30.0
"""``--speed``'s default: a 40-minute rolling restart plays in 80 s, a snapshot every 30 s of its
time comes every second, and each re-prediction (about 0.6 s of CPU for 24 nodes, README) still
fits between two."""


@dataclass
class DryRun:
    """A simulated restart, played from ``origin`` (this host's Unix time) at ``speed``."""

    rows: dict[int, dict[str, Any]]
    """Each restarted node's columns as ``replay`` reads them (``total_restart_secs``, ``phases``)."""
    waves: list[list[int]]
    origin: float
    speed: float
    release: str
    seed: int

    @property
    def length(self) -> float:
        """The simulated restart's length in its own seconds: its waves' slowest nodes one after another."""
        starts = wave_starts(self.rows, self.waves, 0.0)
        return starts[-1] + max(self.rows[n]["total_restart_secs"] for n in self.waves[-1])

    @property
    def end(self) -> float:
        """When the simulated restart ends, on its own clock (Unix time)."""
        return self.origin + self.length

    def wall(self, at: float) -> float:
        """When the simulated clock shows ``at`` on this host's clock."""
        return self.origin + (at - self.origin) / self.speed

    def snapshot(self, at: float, n: int) -> Snapshot:
        """The snapshot the mysql client would print at ``at`` of the simulated restart."""
        text = snapshot_text(self.rows, self.waves, self.origin, at, release=self.release)
        return parse_snapshot(text, f"dry-run snapshot {n}")

    def taker(
        self, interval: float, clock: Callable[[], float] = time.time, sleep: Callable[[float], None] = time.sleep
    ) -> Callable[[int], Snapshot]:
        """Snapshot ``n`` (from 1) at ``(n - 1) × interval`` of the simulated restart, taken once this
        host's clock has reached that moment: one every ``interval`` of the restart's time, as the
        watch of a real one takes them, whatever the re-predictions cost (a slow host plays the
        restart slower than ``speed``, never skips a wave between two snapshots)."""

        def take(n: int) -> Snapshot:
            at = self.origin + (n - 1) * interval
            wait = self.wall(at) - clock()
            if wait > 0:
                sleep(wait)
            return self.snapshot(at, n)

        return take

    def describe(self, scenario: str) -> str:
        nodes = sum(len(w) for w in self.waves)
        return (
            f"dry run: a simulated restart of {scenario} (seed {self.seed}, one replication: {nodes} node(s) in "
            f"{len(self.waves)} wave(s), {self.length:.0f} s), played {self.speed:g} times as fast (about "
            f"{self.length / self.speed:.0f} s); no cluster is asked"
        )


def dry_run(session: Any, seed: int | None, speed: float, origin: float) -> DryRun:
    """One simulated restart of ``session``'s scenario, to be played from ``origin``."""
    from ndbsim.models.load import load

    loaded = load(session.raw)
    used = loaded.prepared.scenario.simulation.seed if seed is None else seed
    rep = loaded.run(used, 1, explained=False).replications[0]
    runs = {r.node_id: r for r in rep.nodes}
    rows = {}
    for n in (n for w in session.waves for n in w):
        r = runs.get(n)
        if r is None or not math.isfinite(r.end):
            raise InputError(
                f"the simulated restart (seed {used}) does not complete node {n} ({rep.status}: {rep.reason}), so "
                "there is no restart to play; run ndbsim run on the scenario to see why, or try another --seed",
                field="--replay",
            )
        cols = node_columns(node_phases(r.spans), r.end - r.start)
        total = cols.pop("total_restart_secs")
        rows[n] = {"node_id": n, "total_restart_secs": total, "phases": cols}
    return DryRun(rows, session.waves, origin, speed, session.version, used)
