"""Reading where each scenario value came from: the dotted keys of a scenario model, the keys
its input set, the origin of one key and its value.

A run names every value no input gave (``defaulted``); the map of origins it reads is built once,
by ``input.scenario.provenance.origins``, as ``models.load`` reads, overlays and overrides a scenario.
"""

from __future__ import annotations

from functools import cache
from operator import attrgetter
from typing import Any

from pydantic import BaseModel

from ndbsim.input.scenario.provenance import NDBSIM_DEFAULT, OVERRIDES, SCENARIO


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


def origin_of(key: str, given: set[str], where: dict[str, str] | None) -> str:
    """Where ``key``'s value came from: its own origin in ``where``; else an override's that set
    part of it (``--set workload.during_restart.updates_per_s=0`` gives workload.during_restart)
    or set a section holding it as a whole (``--set 'host={cpu_cores: 4}'``); else ndbsim's
    default. Without ``where``: the scenario's when ``given`` holds it."""
    if where is not None:
        if key in where:
            return where[key]
        below = key + "."
        for k, origin in where.items():
            if origin in OVERRIDES and k.startswith(below):
                return origin
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
