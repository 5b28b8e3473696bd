"""The model registry: NDB data-node restarts and InnoDB crash recovery behind one interface.

A raw scenario mapping names its model with ``kind`` (absent: NDB); ``model_of`` is the one
place that reads it. Every entry point (``ndbsim run``/``validate``, ``simulate()``,
``sweep()``, calibration cases) asks the model to prepare the scenario, seed and run its
replications, tabulate the result and describe itself, and never asks which model it has.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ndbsim.errors import InputError
from ndbsim.input import scenario as sc
from ndbsim.output.records import CHECKPOINT_FIGURES, Outcome
from ndbsim.output.result import Result

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ndbsim.innodb import InnodbResult, InnodbScenario
    from ndbsim.input.profiles import Constants
    from ndbsim.models.levers import Lever


class Model(Protocol):
    """What an entry point needs from a model. ``prepared`` is the model's validated scenario:
    a ``scenario.Resolved`` for NDB, an ``InnodbScenario`` for InnoDB."""

    @property
    def label(self) -> str:
        """The model's name in messages (``NDB``, ``InnoDB``)."""

    @property
    def phases(self) -> tuple[str, ...]:
        """The phase columns of its results and sweep rows, in order."""

    @property
    def phase_fix(self) -> str:
        """The fix an error about an unknown phase name suggests."""

    @property
    def factor_model(self) -> type[BaseModel] | None:
        """The pydantic model sweep factor keys are checked against; None for NDB's ``Scenario``,
        whose ``cluster.config`` keys are the config.ini parameters of ``config_params``."""

    @property
    def constants_file(self) -> Path | None:
        """A constants file of the model's own that ``ndbsim calibrate`` writes, or None when the
        model uses the profiles' shared constants (``profiles.CALIBRATED_FILE``)."""

    def check_config_ini(self, path: str | Path, source: str | None) -> None: ...

    def fit_constants(self, directory: Path) -> dict[str, Any]: ...

    def save_constants(self, fitted: dict[str, Any], path: Path | None) -> None: ...

    def prepare(self, raw: dict[str, Any], source: str | None = None) -> Any: ...

    def point_preparer(self, base_raw: dict[str, Any], keys: list[str]) -> Callable[[dict[str, Any]], Any]: ...

    def summary(self, prepared: Any) -> str: ...

    def with_constants(self, prepared: Any, constants: Constants) -> Any: ...

    def streams(self, seed: int, n: int) -> list[np.random.Generator]: ...

    def run(
        self, prepared: Any, seed: int | None = None, replications: int | None = None, *, explained: bool = True
    ) -> Any:
        """Run the replications; ``explained=False`` leaves the result's ``explained`` for
        ``annotate`` to fill (which describes the scenario with each value's origin)."""

    def outcomes(self, prepared: Any, seed: int, replications: int) -> Iterator[Outcome]: ...

    def table(
        self, result: Any, notes: list[str], overrides: list[str], config_ini: str | None, *, warnings: bool = True
    ) -> str:
        """The result as the terminal table; its warnings (and ``notes``) at the end unless
        ``warnings`` is False."""

    def annotate(self, result: Any, prepared: Any, where: dict[str, str], notes: list[str], changes: list[str]) -> None:
        """Give a result what it needs to explain itself: the simulated and defaulted fields with
        each value's origin (``where``, from ``load.read``), the input warnings and ``changes``
        (what made the run differ from its scenario file)."""

    def input_notes(self, prepared: Any, where: dict[str, str]) -> list[str]:
        """Warnings about the scenario's input (a run shows them; ``ndbsim validate`` prints them)."""

    @property
    def priced(self) -> bool:
        """Whether advise prices each lever in LCP and REDO terms (a model with NDB's checkpoints)."""

    @property
    def solves(self) -> bool:
        """Whether ``ndbsim solve``'s inverse questions (REDO log, LCP speed, ...) apply to it."""

    def levers(self, prepared: Any, only: list[str] | tuple[str, ...] = ()) -> list[Lever]:
        """The levers advise tries on this scenario (those named in ``only``, if given)."""

    def settings(self, prepared: Any) -> Any:
        """The validated scenario that carries ``name``, ``version`` and ``simulation``."""

    def restart_kind(self, prepared: Any) -> str:
        """What restarts, as advise names it (``rolling``, ``crash recovery``)."""

    def title(self, version: str, restart_kind: str) -> str:
        """The restart as advise's first line names it (``NDB 8.0.35, rolling restart``)."""


def streams(seed: int, n: int) -> list[np.random.Generator]:
    """NDB's generators, one independent stream per replication, all derived from the root
    seed: every path that runs NDB replications seeds here. Replication ``i``'s stream is the
    ``i``-th child of ``SeedSequence(seed)`` (what ``SeedSequence(seed).spawn(n)`` gives), made
    directly from its spawn key without building the parent."""
    return [np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(i,)))) for i in range(n)]


def run_resolved(
    resolved: sc.Resolved, seed: int | None = None, replications: int | None = None, *, explained: bool = True
) -> Result:
    """Run a resolved NDB scenario; ``seed`` and ``replications`` default to its own. With
    ``explained`` the result says what it simulated, counting the scenario's own keys as given;
    without, ``explained`` stays empty (``annotate`` fills it with each value's origin)."""
    from ndbsim.engine.run import simulate_once
    from ndbsim.input.budget import progress
    from ndbsim.output.explain import describe

    s = resolved.scenario
    seed = s.simulation.seed if seed is None else seed
    n = s.simulation.replications if replications is None else replications
    reps = [simulate_once(resolved, rng) for rng in progress(streams(seed, n), n, "replication")]
    if resolved.node_ids:  # the engine numbers data nodes 1..N; results name config.ini's NodeIds
        for r in reps:
            for node in r.nodes:
                node.node_id = resolved.node_id(node.node_id)
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
        """NDB's constants are the profiles' shared ones: ``ndbsim.studies.calibrate.fit`` fits them on
        the NDB cases, so there is nothing of NDB's own to fit."""
        raise NotImplementedError("NDB's constants are fitted by ndbsim.studies.calibrate.fit")

    def save_constants(self, fitted: dict[str, Any], path: Path | None) -> None:
        raise NotImplementedError("NDB's constants are written by ndbsim.studies.calibrate.write_calibration")

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

        blank = (math.nan,) * len(self.phases)
        for rng in streams(seed, replications):
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


class InnodbModel:
    """InnoDB crash recovery (seed 002, ``ndbsim.innodb``)."""

    label = "InnoDB"
    priced = False
    solves = False

    @property
    def phases(self) -> tuple[str, ...]:
        from ndbsim.innodb.model import PHASES

        return PHASES

    @property
    def phase_fix(self) -> str:
        return f"use one of the InnoDB phases {', '.join(self.phases)}"

    @property
    def factor_model(self) -> type[BaseModel]:
        from ndbsim.innodb import InnodbScenario

        return InnodbScenario

    @property
    def constants_file(self) -> Path:
        from ndbsim.innodb.constants import CALIBRATED

        return CALIBRATED

    def check_config_ini(self, path: str | Path, source: str | None) -> None:
        raise InputError(
            f"{str(path)!r} configures NDB data nodes, but the scenario is InnoDB; drop --config-ini",
            field="--config-ini",
            source=source,
        )

    def fit_constants(self, directory: Path) -> dict[str, Any]:
        """Fit the InnoDB constants on the ``innodb-*.yaml`` cases of ``directory``."""
        from ndbsim.innodb import calibrate, load_cases

        return calibrate(load_cases(directory))

    def save_constants(self, fitted: dict[str, Any], path: Path | None) -> None:
        """Write a fit to ``path``, or to the package's ``constants_file`` when None."""
        from ndbsim.innodb import save_calibrated

        save_calibrated(fitted, path)

    def prepare(self, raw: dict[str, Any], source: str | None = None) -> InnodbScenario:
        from ndbsim.innodb import scenario_from_dict

        return scenario_from_dict(raw, source)

    def point_preparer(self, base_raw: dict[str, Any], keys: list[str]) -> Callable[[dict[str, Any]], InnodbScenario]:
        return self.prepare

    def summary(self, prepared: InnodbScenario) -> str:
        return f"InnoDB crash recovery, {prepared.version}"

    def with_constants(self, prepared: InnodbScenario, constants: Constants) -> InnodbScenario:
        """The profiles' constants are NDB's; the InnoDB model keeps its own."""
        return prepared

    def streams(self, seed: int, n: int) -> list[np.random.Generator]:
        from ndbsim.innodb.model import streams as innodb_streams

        return innodb_streams(seed, n)

    def run(
        self,
        prepared: InnodbScenario,
        seed: int | None = None,
        replications: int | None = None,
        *,
        explained: bool = True,
    ) -> InnodbResult:
        from ndbsim.innodb import run_scenario

        return run_scenario(prepared, seed, replications, explained=explained)

    def outcomes(self, prepared: InnodbScenario, seed: int, replications: int) -> Iterator[Outcome]:
        """The sweep figures of each replication, yielded as it finishes."""
        from ndbsim.innodb import load_constants
        from ndbsim.innodb.model import replicate

        c = load_constants()
        blank_checkpoint = (math.nan,) * len(CHECKPOINT_FIGURES)
        for rng in self.streams(seed, replications):
            one = replicate(prepared, c, rng)
            phases = tuple(one.phases[p] for p in self.phases)
            yield Outcome(phases, one.total_restart_secs, blank_checkpoint, one.events, one.status, one.reason)

    def table(
        self,
        result: InnodbResult,
        notes: list[str],
        overrides: list[str],
        config_ini: str | None,
        *,
        warnings: bool = True,
    ) -> str:
        from ndbsim.innodb.table import innodb_table

        return innodb_table(result, overrides, warnings=warnings)

    def annotate(
        self,
        result: InnodbResult,
        prepared: InnodbScenario,
        where: dict[str, str],
        notes: list[str],
        changes: list[str],
    ) -> None:
        from ndbsim.innodb.explain import describe

        result.explained = describe(prepared, where)
        result.notes = [*notes, *self.input_notes(prepared, where)]
        result.changes = changes

    def input_notes(self, prepared: InnodbScenario, where: dict[str, str]) -> list[str]:
        """A section (server, storage) no input gave: its defaults were simulated."""
        return [
            f"{section}: not given, so ndbsim's defaults were simulated (listed under defaulted); "
            f"set {section}.* in the scenario or with --set"
            for section in ("server", "storage")
            if not any(k == section or k.startswith(section + ".") for k in where)
        ]

    def levers(self, prepared: InnodbScenario, only: list[str] | tuple[str, ...] = ()) -> list[Lever]:
        from ndbsim.models.levers import innodb_levers_for

        return innodb_levers_for(prepared, only)

    def settings(self, prepared: InnodbScenario) -> InnodbScenario:
        return prepared

    def restart_kind(self, prepared: InnodbScenario) -> str:
        return "crash recovery"

    def title(self, version: str, restart_kind: str) -> str:
        return f"{version}, InnoDB crash recovery"


NDB = NdbModel()
INNODB = InnodbModel()
MODELS: dict[str, Model] = {"ndb": NDB, "innodb": INNODB}
"""The models by their ``kind``; a scenario without ``kind`` is NDB."""


def model_of(raw: Any) -> Model:
    """The model a raw scenario mapping names with ``kind`` (NDB when it names none, or names one
    that is not registered: NDB's validation then reports the key)."""
    kind = raw.get("kind") if isinstance(raw, dict) else None
    return MODELS.get(kind, NDB) if isinstance(kind, str) else NDB
