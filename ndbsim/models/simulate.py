"""The Python API: ``ndbsim.simulate(...)``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ndbsim.models.load import load
from ndbsim.models.ndb import run_resolved, streams

if TYPE_CHECKING:
    from ndbsim.innodb import InnodbResult
    from ndbsim.input.scenario.model import Scenario
    from ndbsim.output.result import Result

__all__ = ["run_resolved", "simulate", "streams"]


def simulate(
    scenario: str | Path | dict[str, Any] | Scenario | None = None,
    *,
    overrides: list[str] | tuple[str, ...] = (),
    seed: int | None = None,
    replications: int | None = None,
    **sets: Any,
) -> Result | InnodbResult:
    """Simulate a restart (or, for a ``kind: innodb`` scenario, an InnoDB crash recovery).

    ``scenario`` is a YAML path, a dict, a ``Scenario`` or None (the built-in default).
    ``overrides`` are ``--set``-style ``"dotted.path=value"`` strings; keyword arguments with
    ``__`` for dots do the same (``data__size="1TB"``).
    """
    dotted = {k.replace("__", "."): v for k, v in sets.items()}
    from ndbsim.input.scenario.provenance import PYTHON_ARG

    loaded = load(scenario, overrides=overrides, sets=dotted, set_origin=PYTHON_ARG)
    result = loaded.run(seed, replications, explained=False)  # annotate describes it, with origins
    changes = [a.strip() for a in overrides] + [f"{k}={v}" for k, v in dotted.items()]
    loaded.model.annotate(result, loaded.prepared, loaded.origins, loaded.notes, changes)
    return result
