"""Where each scenario value came from: the origins (the scenario file, the built-in default,
the config.ini, ``--set``, a ``simulate()`` argument, ndbsim's default), the dotted keys of a
scenario model and of a raw mapping, and the origin of one key.

A run names every value no input gave (``defaulted``); ``models.load`` records the origins as
it reads, overlays and overrides a scenario.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from operator import attrgetter
from typing import Any

from pydantic import BaseModel

SCENARIO = "scenario"
"""Origin of a value written in the scenario file (or mapping) the user gave."""
DEFAULT_SCENARIO = "built-in default scenario"
"""Origin of a value taken from the built-in default scenario (``ndbsim run`` with no file)."""
CONFIG_INI = "config.ini"
"""Origin of a value read from ``--config-ini``."""
SET = "--set"
"""Origin of a value given with ``--set``."""
VERSION_OPTION = "--version"
"""Origin of the NDB release given with ``--version`` (a config.ini names no release)."""
PYTHON_ARG = "simulate() argument"
"""Origin of a value given to ``ndbsim.simulate()``: in ``overrides=`` or as a keyword argument."""
OVERRIDES = (SET, PYTHON_ARG)
"""The origins of a value set on top of the scenario (and of the sections it creates)."""
GIVEN = (SCENARIO, CONFIG_INI, VERSION_OPTION, *OVERRIDES)
"""The origins of a value the user gave; any other origin is listed under ``defaulted``."""
FROM_DATAMEMORY = "derived from DataMemory"
"""Origin of ``data.size`` when a config.ini alone gave no data size (``init_scenario``)."""
NDBSIM_DEFAULT = "ndbsim default"
"""Origin of a value no input gave: the scenario model's default (``ndbsim init`` lists them)."""


@cache
def leaf_keys(model: type[BaseModel], prefix: str = "") -> tuple[str, ...]:
    """Every dotted scenario key below ``model`` that holds a value (sections recursed into;
    ``cluster.config`` is config.ini's and is reported by parameter, not here). A function of
    the class alone, so walked once per class."""
    keys: list[str] = []
    for name, info in model.model_fields.items():
        key = f"{prefix}{name}"
        if key == "cluster.config":
            continue
        sub = _model_of(info.annotation)
        if sub is not None and key not in ("workload.during_restart", "workload.before_restart"):
            keys.extend(leaf_keys(sub, key + "."))
        else:
            keys.append(key)
    return tuple(keys)


@cache
def explained_keys(model: type[BaseModel], sections: tuple[str, ...]) -> tuple[str, ...]:
    """The keys of ``leaf_keys(model)`` whose defaults a run names: ``version`` and those in
    ``sections``."""
    return tuple(k for k in leaf_keys(model) if k == "version" or k.startswith(sections))


def _model_of(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def given_keys(model: BaseModel, prefix: str = "") -> set[str]:
    """Dotted keys the input set explicitly (pydantic's ``model_fields_set``, recursively)."""
    out: set[str] = set()
    _given_into(model, prefix, out)
    return out


def _given_into(model: BaseModel, prefix: str, out: set[str]) -> None:
    for name in model.model_fields_set:
        value = getattr(model, name)
        key = f"{prefix}{name}"
        out.add(key)
        if isinstance(value, BaseModel):
            _given_into(value, key + ".", out)


def flat_keys(raw: Any, prefix: str = "") -> set[str]:
    """Dotted keys of a raw scenario mapping, sections included (``{"a": {"b": 1}}`` →
    ``{"a", "a.b"}``); ``cluster.config``'s parameters keep NDB's names after the prefix."""
    out: set[str] = set()
    if isinstance(raw, dict):
        _flat_into(raw, prefix, out)
    return out


def _flat_into(raw: dict[Any, Any], prefix: str, out: set[str]) -> None:
    for k, v in raw.items():
        key = f"{prefix}{k}"
        out.add(key)
        if isinstance(v, dict):
            _flat_into(v, key + ".", out)


def origins(
    raw: dict[str, Any],
    builtin: bool,
    config_ini: Iterable[str] = (),
    sets: Iterable[str] = (),
    base: dict[str, str] | None = None,
    set_origin: str = SET,
) -> dict[str, str]:
    """Where each given key came from: ``base``, the keys of the scenario ``raw`` (from the
    built-in default scenario when ``builtin``), then ``config_ini``'s keys, then ``sets``'
    keys (and the sections they set) with the origin ``set_origin``, the later winning."""
    out = dict(base or {})
    out.update(dict.fromkeys(flat_keys(raw), DEFAULT_SCENARIO if builtin else SCENARIO))
    out.update(dict.fromkeys(config_ini, CONFIG_INI))
    for key in sets:
        parts = key.split(".")
        for i in range(1, len(parts) + 1):
            out[".".join(parts[:i])] = set_origin
    return out


def origin_of(key: str, given: set[str], where: dict[str, str] | None) -> str:
    if where is not None:
        if key in where:
            return where[key]
        for k in _parents(key):
            if where.get(k) in OVERRIDES:
                return where[k]
        return NDBSIM_DEFAULT
    return SCENARIO if key in given else NDBSIM_DEFAULT


@cache
def _parents(key: str) -> tuple[str, ...]:
    """The sections holding ``key``, innermost first (called with the model's own keys only)."""
    parts = key.split(".")
    return tuple(".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1))


def value_at(s: BaseModel, key: str) -> Any:
    cur = _getter(key)(s)
    if isinstance(cur, BaseModel):
        return cur.model_dump(mode="json", exclude_none=True)
    return cur


@cache
def _getter(key: str) -> attrgetter[Any]:
    """Reads a dotted key's value off a scenario (called with the models' own keys only)."""
    return attrgetter(key)
