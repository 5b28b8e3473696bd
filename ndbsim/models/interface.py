"""What every entry point asks of a model (``Model``): prepare a scenario, seed and run its
replications, tabulate the result and describe itself. ``registry`` holds the models."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np
    from pydantic import BaseModel

    from ndbsim.input.profiles import Constants
    from ndbsim.models.levers import Lever
    from ndbsim.output.records import Outcome


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

    def hold_out(self, directory: Path) -> list[dict[str, Any]]: ...

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
