"""Loading a scenario: reading its file (or the built-in default), applying ``--set``
overrides, validating and resolving it; and re-validating variants of one scenario cheaply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.fields import StrictModel
from ndbsim.input.safe_load import load_yaml, read_yaml_file
from ndbsim.input.scenario.model import Resolved, Scenario
from ndbsim.input.scenario.overrides import copy_raw, set_override
from ndbsim.input.scenario.resolving import resolve
from ndbsim.input.scenario.validation import scenario_from_dict


def sections_of(raw: Any) -> dict[str, Any]:
    """The validated top-level sections of a scenario mapping, to reuse for variants of it
    that leave them alone (see ``scenario_reusing``); empty if it does not validate."""
    try:
        s = scenario_from_dict(copy_raw(raw))
    except InputError:
        return {}
    return {name: getattr(s, name) for name in raw if isinstance(getattr(s, name, None), StrictModel)}


def scenario_reusing(raw: dict[str, Any], sections: dict[str, Any], changed: set[str]) -> Scenario:
    """``scenario_from_dict(raw)``, but sections not in ``changed`` are taken already validated
    from ``sections``: pydantic accepts a model instance as is. A sweep point validates only
    what its factors touch."""
    mixed = {k: (sections[k] if k in sections and k not in changed else v) for k, v in raw.items()}
    return scenario_from_dict(mixed)


def read_yaml(path: str | Path) -> Any:
    """A scenario (or sweep, or case) file's data, bounded in size, depth and alias expansion."""
    return read_yaml_file(path, "scenario .yaml file")


def raw_from(scenario: Any) -> tuple[dict[str, Any], str | None]:
    """(an editable raw scenario, its source file) from a YAML path, a mapping, a
    ``Scenario`` or None (the built-in default)."""
    if isinstance(scenario, Scenario):
        return scenario.model_dump(mode="json"), None
    if isinstance(scenario, dict):
        return copy_raw(scenario), None
    return load_raw(scenario), (str(scenario) if scenario else None)


def load_raw(path: str | Path | None, overrides: list[str] | tuple[str, ...] = ()) -> dict[str, Any]:
    raw: Any = read_yaml(path) if path else copy_raw(DEFAULT_SCENARIO)
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise InputError("a scenario must be a YAML mapping of keys (name, version, cluster, ...)", source=str(path))
    for assignment in overrides:
        set_override(raw, assignment)
    return raw


def load(path: str | Path | None = None, overrides: list[str] | tuple[str, ...] = ()) -> Resolved:
    """Read, override, validate and resolve a scenario file (None: the built-in default)."""
    source = str(path) if path else None
    raw = load_raw(path, overrides)
    return resolve(scenario_from_dict(raw, source), source)


DEFAULT_FILE = Path(__file__).parent.parent / "data" / "default.yaml"
"""The built-in default scenario: seed 003's DBT2 600-warehouse node restart on 7.6.6
(the same case as scenarios/dbt2-600wh-7.6.6.yaml)."""

DEFAULT_SCENARIO: dict[str, Any] = load_yaml(DEFAULT_FILE.read_text(encoding="utf-8"))
"""The built-in default scenario as a raw mapping, read once from ``DEFAULT_FILE``
(ndbsim/input/data/default.yaml); ``load_raw(None)`` hands out deep copies."""
