"""An InnoDB run as every entry point answers it: the recovery simulated (``model.run_scenario``)
with its predictive interval (``held_interval.run_interval``). The fit and the interval's own
sensitivities simulate through ``model`` directly, without an interval of their own."""

from __future__ import annotations

from pathlib import Path

from ndbsim.innodb import model
from ndbsim.innodb.held_interval import run_interval
from ndbsim.innodb.model import InnodbResult
from ndbsim.innodb.scenario import InnodbScenario, load_raw, scenario_from_dict


def run_scenario(
    s: InnodbScenario,
    seed: int | None = None,
    replications: int | None = None,
    constants: dict | None = None,
    *,
    explained: bool = True,
) -> InnodbResult:
    """``model.run_scenario``, with the result's predictive interval."""
    result = model.run_scenario(s, seed, replications, constants, explained=explained)
    result.predictive = run_interval(result)
    return result


def simulate_innodb(
    raw: dict | str | Path, seed: int | None = None, replications: int | None = None, constants: dict | None = None
) -> InnodbResult:
    """Simulate the crash recovery of an InnoDB scenario (a raw dict, or a path to its YAML), with
    its predictive interval."""
    source = None
    if isinstance(raw, (str, Path)):
        source = str(raw)
        raw = load_raw(raw)
    return run_scenario(scenario_from_dict(raw, source), seed, replications, constants)
