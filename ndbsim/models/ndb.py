"""The NDB model: MySQL NDB Cluster data-node restarts, simulated by ``ndbsim.engine`` on a
resolved scenario (``ndbsim.input.scenario``) and explained by ``ndbsim.output``."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ndbsim.input import scenario as sc
from ndbsim.output.records import CHECKPOINT_FIGURES, Outcome
from ndbsim.output.result import Result

if TYPE_CHECKING:
    from ndbsim.engine.records import Replication
    from ndbsim.input.profiles import Constants
    from ndbsim.models.levers import Lever


def streams(seed: int, n: int) -> list[np.random.Generator]:
    """NDB's generators, one independent stream per replication, all derived from the root
    seed: every path that runs NDB replications seeds here. Replication ``i``'s stream is the
    ``i``-th child of ``SeedSequence(seed)`` (what ``SeedSequence(seed).spawn(n)`` gives), made
    directly from its spawn key without building the parent."""
    return [stream(seed, i) for i in range(n)]


def stream(seed: int, i: int) -> np.random.Generator:
    """Replication ``i``'s generator of ``streams(seed, n)``, alone."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(i,))))


class Rerun:
    """Replication ``i`` of a resolved scenario and root seed, simulated from its own stream (the
    same record every time: a result simulates again the few replications it shows in full)."""

    def __init__(self, resolved: sc.Resolved, seed: int) -> None:
        self.resolved, self.seed = resolved, seed

    def __call__(self, i: int) -> Replication:
        from ndbsim.engine.run import simulate_once

        resolved = self.resolved
        r = simulate_once(resolved, stream(self.seed, i))
        if resolved.node_ids:  # the engine numbers data nodes 1..N; results name config.ini's NodeIds
            for node in r.nodes:
                node.node_id = resolved.node_id(node.node_id)
        return r


def run_resolved(
    resolved: sc.Resolved, seed: int | None = None, replications: int | None = None, *, explained: bool = True
) -> Result:
    """Run a resolved NDB scenario; ``seed`` and ``replications`` default to its own. With
    ``explained`` the result says what it simulated, counting the scenario's own keys as given;
    without, ``explained`` stays empty (``annotate`` fills it with each value's origin)."""
    from ndbsim.input.budget import progress
    from ndbsim.output.explain import describe
    from ndbsim.output.replications import ReplicationLog

    s = resolved.scenario
    seed = s.simulation.seed if seed is None else seed
    n = s.simulation.replications if replications is None else replications
    replication = Rerun(resolved, seed)
    reps = ReplicationLog(rerun=replication)
    for i in progress(range(n), n, "replication"):
        reps.add(replication(i))
    return Result(
        name=s.name,
        version=s.version,
        restart_type=s.restart.type,
        seed=seed,
        scenario=resolved.to_dict(),
        replications=reps,
        explained=describe(resolved, node_ids=resolved.node_ids) if explained else {},
    )


class NdbModel:
    """MySQL NDB Cluster data-node restarts (``ndbsim.engine``)."""

    label = "NDB"
    priced = True
    solves = True
    phase_fix = "use a restart_info phase column (ndbsim.input.restart_info.PHASES), e.g. secs_exec_redo_log"
    factor_model = None
    constants_file = None

    @property
    def phases(self) -> tuple[str, ...]:
        from ndbsim.input.restart_info import PHASES

        return PHASES

    def check_config_ini(self, path: str | Path, source: str | None) -> None:
        return None

    def fit_constants(self, directory: Path) -> dict[str, Any]:
        """NDB's constants are the profiles' shared ones: ``ndbsim.studies.calibration.calibrate.fit`` fits them on
        the NDB cases, so there is nothing of NDB's own to fit."""
        raise NotImplementedError("NDB's constants are fitted by ndbsim.studies.calibration.calibrate.fit")

    def hold_out(self, directory: Path) -> list[dict[str, Any]]:
        """NDB's leave-one-out refits the shared constants: ``ndbsim.studies.calibration.cross``."""
        raise NotImplementedError("NDB's leave-one-out is ndbsim.studies.calibration.cross.cross")

    def save_constants(self, fitted: dict[str, Any], path: Path | None) -> None:
        raise NotImplementedError(
            "NDB's constants are written by ndbsim.studies.calibration.calibrate.write_calibration"
        )

    def prepare(self, raw: dict[str, Any], source: str | None = None) -> sc.Resolved:
        return sc.resolve(sc.scenario_from_dict(raw, source), source)

    def point_preparer(self, base_raw: dict[str, Any], keys: list[str]) -> Callable[[dict[str, Any]], sc.Resolved]:
        """Resolve a sweep point, validating only the top-level sections its factors change."""
        sections = sc.sections_of(base_raw)
        changed = {k.split(".")[0] for k in keys}
        return lambda raw: sc.resolve(sc.scenario_reusing(raw, sections, changed))

    def summary(self, prepared: sc.Resolved) -> str:
        s, up = prepared.scenario, prepared.upgrade
        upgrade = f", upgrade to {up.scenario.version} (profile {up.profile.name})" if up else ""
        return f"{s.version}, profile {prepared.profile.name}, {s.restart.type} restart{upgrade}"

    def with_constants(self, prepared: sc.Resolved, constants: Constants) -> sc.Resolved:
        return sc.Resolved(
            prepared.scenario,
            replace(prepared.profile, constants=constants),
            prepared.config,
            prepared.node_ids,
            prepared.upgrade,
        )

    def streams(self, seed: int, n: int) -> list[np.random.Generator]:
        return streams(seed, n)

    def run(
        self, prepared: sc.Resolved, seed: int | None = None, replications: int | None = None, *, explained: bool = True
    ) -> Result:
        return run_resolved(prepared, seed, replications, explained=explained)

    def outcomes(self, prepared: sc.Resolved, seed: int, replications: int) -> Iterator[Outcome]:
        """The sweep figures of each replication, yielded as it finishes."""
        from ndbsim.engine.run import simulate_once
        from ndbsim.input.restart_info import node_phases
        from ndbsim.signals import check

        blank = (math.nan,) * len(self.phases)
        for rng in streams(seed, replications):
            check()
            r = simulate_once(prepared, rng)
            if r.nodes:
                node = max(r.nodes, key=lambda n: n.end - n.start)
                phases = tuple(node_phases(node.spans).values())
            else:
                phases = blank
            checkpoint = tuple(r.checkpoint[k] for k in CHECKPOINT_FIGURES)
            yield Outcome(phases, r.total_restart_secs, checkpoint, r.events, r.status, r.reason)

    def table(
        self, result: Result, notes: list[str], overrides: list[str], config_ini: str | None, *, warnings: bool = True
    ) -> str:
        from ndbsim.output.table import phase_table

        return phase_table(result, notes, overrides, config_ini, warnings=warnings)

    def annotate(
        self, result: Result, prepared: sc.Resolved, where: dict[str, str], notes: list[str], changes: list[str]
    ) -> None:
        from ndbsim.output.explain import annotate

        annotate(result, prepared, where, notes, changes)

    def input_notes(self, prepared: sc.Resolved, where: dict[str, str]) -> list[str]:
        from ndbsim.output.explain import input_notes

        return input_notes(prepared, where)

    def levers(self, prepared: sc.Resolved, only: list[str] | tuple[str, ...] = ()) -> list[Lever]:
        from ndbsim.models.levers import levers_for

        return levers_for(prepared, only)

    def settings(self, prepared: sc.Resolved) -> sc.Scenario:
        return prepared.scenario

    def restart_kind(self, prepared: sc.Resolved) -> str:
        return prepared.scenario.restart.type

    def title(self, version: str, restart_kind: str) -> str:
        return f"NDB {version}, {restart_kind} restart"
