"""The InnoDB model: InnoDB crash recovery (seed 002), simulated by ``ndbsim.innodb`` behind
the interface every entry point uses (``interface.Model``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ndbsim.errors import InputError
from ndbsim.output.records import CHECKPOINT_FIGURES, Outcome

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ndbsim.innodb import InnodbResult, InnodbScenario
    from ndbsim.input.profiles import Constants
    from ndbsim.models.levers import Lever


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

    def hold_out(self, directory: Path) -> list[dict[str, Any]]:
        """Leave-one-out on the ``innodb-*.yaml`` cases of ``directory``: each predicted by the
        constants fitted on the others, with its predictive interval
        (``ndbsim.innodb.held_interval.with_intervals``)."""
        from ndbsim.innodb.fit import load_cases
        from ndbsim.innodb.held_interval import with_intervals

        return with_intervals(load_cases(directory))

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
        from ndbsim.innodb.held_interval import run_interval

        result.explained = describe(prepared, where)
        result.predictive = run_interval(result)  # its defaults source names the defaulted inputs
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
