"""One ETA session: the scenario loaded once, then each snapshot checked against it and against
the snapshots before it, and predicted from the last refit's answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.snapshot.read import Snapshot
from ndbsim.studies.eta.predict import Eta, predict
from ndbsim.studies.eta.progress import RESTARTING, check_nodes, check_plan, progress
from ndbsim.studies.eta.refit import Refit, refit
from ndbsim.studies.eta.release import check_release

ETA_REPLICATIONS = 10
"""Replications of what is left when neither ``-n`` nor the scenario asks for more: enough for a
p5-p95 over the LCP cycle's landing points, few enough to re-predict a 24-node cluster within
a couple of seconds."""


@dataclass
class Session:
    raw: dict[str, Any]
    name: str
    waves: list[list[int]]
    data_nodes: list[int]
    replications: int
    seed: int | None
    version: str = ""
    """The scenario's release (``version``)."""
    upgrade_to: str | None = None
    """The release its restart upgrades to (``restart.upgrade_to``; None: no upgrade)."""
    last: Refit | None = None
    last_at: float | None = None
    first_seen: dict[tuple[int, str], float] = field(default_factory=dict)
    seen: set[int] = field(default_factory=set)
    """The nodes this session has seen restarting."""
    priors: dict[str, float] = field(default_factory=dict)
    """Each phase's log sd before the cluster shows it (``output.interval.phase_sds``)."""

    @property
    def seen_running(self) -> bool:
        return bool(self.seen)

    def update(self, snap: Snapshot) -> Eta:
        """The ETA of one more snapshot; one line (``InputError``) for a snapshot that cannot be this
        restart's next one."""
        check_nodes(snap, self.data_nodes, self.name)
        check_release(snap, self.version, self.upgrade_to, self.data_nodes)
        check_plan(snap, self.waves, self.name)
        if self.last_at is not None and snap.sampled_at < self.last_at:
            raise InputError(
                f"sampled_at {snap.sampled_at:.0f} is older than the previous snapshot's ({self.last_at:.0f}); "
                "snapshots must come in the order they were taken (check the SQL node's clock)",
                field="snapshot.sampled_at",
                source=snap.source,
            )
        self.last_at = snap.sampled_at
        for n, row in snap.nodes.items():
            if row.state is not None:
                self.first_seen.setdefault((n, row.state.name), snap.sampled_at)
        prog = progress(snap, self.waves, self.first_seen if self.seen else None, self.seen)
        self.seen |= {n for n, p in prog.nodes.items() if p.status == RESTARTING}
        self.last = refit(self.raw, prog, self.last)
        return predict(prog, self.last, self.replications, self.seed, self.priors)


def open_session(scenario: Path, replications: int | None, seed: int | None, sets: list[str]) -> Session:
    """Load the scenario once: its plan's waves (NodeIds) and its cluster's data nodes."""
    from ndbsim.models.load import load
    from ndbsim.models.registry import NDB

    loaded = load(str(scenario), overrides=sets)
    if loaded.model is not NDB:
        raise InputError(
            f"ndbsim eta follows an NDB restart but the scenario is {loaded.model.label}'s; give an NDB scenario",
            field="SCENARIO",
            source=str(scenario),
        )
    s = loaded.prepared.scenario
    if s.restart.type == "system":
        raise InputError(
            "a system restart restarts every node at once, and restart_info reports node restarts; "
            "ndbsim eta follows node, initial and rolling restarts",
            field="restart.type",
            source=str(scenario),
        )
    first = loaded.run(None, 1, explained=False)
    loaded.model.annotate(first, loaded.prepared, loaded.origins, loaded.notes, [])
    schedule = first.schedule()
    waves = [list(w["nodes"]) for w in schedule["waves"]]
    n = replications or max(s.simulation.replications, ETA_REPLICATIONS)
    ids = list(s.cluster.node_ids or range(1, s.cluster.data_nodes + 1))
    from ndbsim.output.interval import result_priors

    return Session(
        loaded.raw, str(scenario), waves, ids, n, seed, s.version, s.restart.upgrade_to, priors=result_priors(first)
    )
