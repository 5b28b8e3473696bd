"""Where each scenario value came from, built in one place: the origins (the scenario file, the
built-in default scenario, the config.ini, an ndbinfo export, ``--set``, ``--version``, a
``simulate()`` argument, DataMemory for a derived data.size, ndbsim's default), the one function
that maps every given dotted key to its origin once the load pipeline (``models.load.read``) has
read, overlaid and overridden a scenario, and a scenario's own ``provenance`` section.

The ``provenance`` section is what ``ndbsim init`` writes so that a later run still knows where
each value came from: under each origin (config.ini, ndbinfo export, ndbsim default, derived from
DataMemory) the dotted keys it gave, each with the value written then. A key counts as coming
from there while the scenario still holds that value; a value the user changed is the user's.
Under ``not simulated``, by where they were set (the config.ini's file name, or
``ndbinfo.config_values``), the parameters ndbsim does not model, so every run warns about
them as a run on the config.ini does.

A run names every value no input gave (``defaulted``, ``output.explain``); ``output.origins``
reads this map, and nothing else builds it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.config import ndb_params

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
NDBINFO = "ndbinfo export"
"""Origin of a value ``ndbsim init --ndbinfo`` read from a running cluster's ndbinfo export."""
GIVEN = (SCENARIO, CONFIG_INI, NDBINFO, VERSION_OPTION, *OVERRIDES)
"""The origins of a value the user gave; any other origin is listed under ``defaulted``."""
FROM_DATAMEMORY = "derived from DataMemory"
"""Origin of ``data.size`` when a config.ini alone gave no data size (``init_scenario``)."""
NDBSIM_DEFAULT = "ndbsim default"
"""Origin of a value no input gave: the scenario model's default (``ndbsim init`` lists them)."""


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
    scenario_keys: Iterable[str],
    *,
    builtin: bool = False,
    config_ini: Iterable[str] = (),
    sets: Iterable[str] = (),
    set_origin: str = SET,
    version_option: bool = False,
    from_datamemory: bool = False,
    marked: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Where each given key came from, the later winning: the scenario's own keys (from the
    built-in default scenario when ``builtin``; ``marked``: the origins its provenance section
    still holds, ``Marks.held``), the keys the config.ini set, the keys ``sets`` set with the
    origin ``set_origin``, the release when ``--version`` gave
    it, and data.size when it was taken from DataMemory."""
    out = dict.fromkeys(scenario_keys, DEFAULT_SCENARIO if builtin else SCENARIO)
    _mark(out, marked or {})
    out.update(dict.fromkeys(config_ini, CONFIG_INI))
    out.update(dict.fromkeys(sets, set_origin))  # its sections stay as they were: a sibling is not set
    if version_option:
        out["version"] = VERSION_OPTION
    if from_datamemory:
        out["data.size"] = FROM_DATAMEMORY
    return out


def _mark(out: dict[str, str], marked: Mapping[str, str]) -> None:
    """The provenance section's origins over the scenario's: a key still at ndbsim's default
    is no longer given, nor is a section all of whose given keys were."""
    emptied: set[str] = set()
    for key, origin in marked.items():
        if key not in out:
            continue
        if origin == NDBSIM_DEFAULT:
            del out[key]
            emptied.add(key.split(".", 1)[0])
        else:
            out[key] = origin
    for section in emptied:
        if not any(k.startswith(section + ".") for k in out):
            out.pop(section, None)


SECTION = "provenance"
"""The scenario's top-level key that holds its provenance (``ndbsim init`` writes it)."""

NOT_SIMULATED = "not simulated"
"""The provenance section's key of the parameters ndbsim does not model, by origin."""

MARKED = (CONFIG_INI, NDBINFO, NDBSIM_DEFAULT, FROM_DATAMEMORY)
"""The origins a provenance section may give a key."""

NDBINFO_TABLE = "ndbinfo.config_values"
"""Where an export's parameters ndbsim does not model were read, as their warnings name it."""

DIFFERS = " (differs between "
"""What a ``not simulated`` label holds after a modelled parameter's name when the data nodes
give it different values (``DataMemory (differs between [ndbd] sections)``)."""


def not_simulated_note(where: str, label: str) -> str:
    """The warning for one parameter that ``where`` (the config.ini's file name, or
    ``ndbinfo.config_values``) sets and ndbsim does not simulate: what it would do to a restart
    (``ndb_params.IMPACT``), or that the data nodes differ in it and every node keeps NDB's default."""
    if DIFFERS in label:
        name, _, rest = label.partition(DIFFERS)
        return (
            f"{where}: {name} differs between {rest.removesuffix(')')}; ndbsim gives every data node the same "
            "value, so it keeps NDB's default"
        )
    return f"{where}: {label} is not simulated: {ndb_params.restart_impact(label)}"


NO_EFFECT_LINE = "not simulated, and cannot change a restart: "
"""What the one line listing a file's parameters that leave a restart alone says after the file's name."""


def not_simulated_notes(where: str, labels: Iterable[str]) -> list[str]:
    """The warnings for the parameters ``where`` sets and ndbsim does not simulate: one for each
    that could change a restart (``ndb_params.can_change_restart``) or that the data nodes differ
    in, and one line listing the rest, grouped by why they cannot (``ndb_params.why_not``)."""
    out: list[str] = []
    quiet: dict[str, list[str]] = {}
    for label in labels:
        if DIFFERS in label or ndb_params.can_change_restart(label) or label not in ndb_params.IMPACT:
            out.append(not_simulated_note(where, label))
        else:
            quiet.setdefault(ndb_params.why_not(label), []).append(label)
    if quiet:
        groups = [", ".join(names) + (f" ({why})" if why else "") for why, names in sorted(quiet.items())]
        out.insert(0, f"{where}: {NO_EFFECT_LINE}{'; '.join(groups)}")
    return out


def value_or_values(values: Iterable[Any]) -> Any:
    """The one value a parameter is set to, or its distinct values (in order) when they differ."""
    distinct = list(dict.fromkeys(values))
    return distinct[0] if len(distinct) == 1 else distinct


@dataclass
class Marks:
    """A scenario's provenance section, read: each marked key's origin and the value written
    with it, and the parameters ndbsim does not model by where they were set (the config.ini's
    file name or ``ndbinfo.config_values``; label -> value as set)."""

    values: dict[str, tuple[str, Any]] = field(default_factory=dict)
    not_simulated: dict[str, dict[str, Any]] = field(default_factory=dict)

    def held(self, raw: dict[str, Any]) -> dict[str, str]:
        """The marked keys whose value ``raw`` still holds, with their origins."""
        return {k: origin for k, (origin, value) in self.values.items() if _at(raw, k) == (True, value)}

    def notes(self, held: Mapping[str, str], dropped: Iterable[str] = ()) -> list[str]:
        """The warnings a run of this scenario gives: each parameter ndbsim does not model (but
        those ``dropped``, which a config.ini given to the run sets again), and a data.size still
        DataMemory's."""
        gone = set(dropped)
        out = [
            note
            for where, params in self.not_simulated.items()
            for note in not_simulated_notes(where, [p for p in params if p.partition(DIFFERS)[0] not in gone])
        ]
        if held.get("data.size") == FROM_DATAMEMORY:
            out.append(
                f"data.size={self.values['data.size'][1]} is DataMemory's, as ndbsim init wrote it (a full "
                "DataMemory, the longest restart); give the real size in the scenario (ndbinfo.memoryusage's "
                "used bytes)"
            )
        return out


def _at(raw: Any, key: str) -> tuple[bool, Any]:
    """(whether ``raw`` has the dotted ``key``, its value)."""
    cur = raw
    for part in key.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return False, None
        cur = cur[part]
    return True, cur


def take(raw: dict[str, Any], source: str | None) -> Marks:
    """Remove ``raw``'s provenance section and read it (an empty ``Marks`` when there is none);
    an error naming the entry and the fix when it is not as ``ndbsim init`` writes it."""
    section = raw.pop(SECTION, None)
    marks = Marks()
    if section is None:
        return marks
    for origin, entries in _mapping(section, SECTION, source).items():
        where = f"{SECTION}.{origin}"
        if origin == NOT_SIMULATED:
            marks.not_simulated = _not_simulated(entries, where, source)
            continue
        if origin not in MARKED:
            raise InputError(
                f"{origin!r} is not an origin ndbsim records; use one of {', '.join(MARKED)} or {NOT_SIMULATED}",
                field=where,
                source=source,
            )
        for key, value in _mapping(entries, where, source).items():
            marks.values[str(key)] = (origin, value)
    return marks


def _not_simulated(entries: Any, where: str, source: str | None) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for origin, params in _mapping(entries, where, source).items():
        for label in _mapping(params, f"{where}.{origin}", source):
            if DIFFERS not in str(label) and ndb_params.known(str(label)) != label:
                raise InputError(
                    "not a data-node parameter ndbsim leaves unmodelled (ndbsim params lists the modelled ones); "
                    "remove the line",
                    field=f"{where}.{origin}.{label}",
                    source=source,
                )
        out[str(origin)] = {str(k): v for k, v in params.items()}
    return out


def _mapping(value: Any, where: str, source: str | None) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(
            "is not a mapping; keep the section as ndbsim init wrote it, or delete it (every value then counts as "
            "yours)",
            field=where,
            source=source,
        )
    return value


def record(raw: dict[str, Any], origin: str, keys: Iterable[str]) -> None:
    """Mark ``keys`` of ``raw`` (each with its current value) as coming from ``origin``, in
    ``raw``'s provenance section (``init --ndbinfo`` marks what the export gave)."""
    section = raw.setdefault(SECTION, {}).setdefault(origin, {})
    for key in keys:
        found, value = _at(raw, key)
        if found:
            section[key] = value


def record_not_simulated(raw: dict[str, Any], where: str, params: Mapping[str, Any]) -> None:
    """Carry the parameters ``where`` set that ndbsim does not model in ``raw``'s provenance section."""
    if params:
        raw.setdefault(SECTION, {}).setdefault(NOT_SIMULATED, {}).setdefault(where, {}).update(params)
