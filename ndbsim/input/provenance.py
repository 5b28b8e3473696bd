"""Where each scenario value came from, built in one place: the origins (the scenario file, the
built-in default scenario, the config.ini, ``--set``, ``--version``, a ``simulate()`` argument,
DataMemory for a derived data.size, ndbsim's default) and the one function that maps every given
dotted key to its origin once the load pipeline (``models.load.read``) has read, overlaid and
overridden a scenario.

A run names every value no input gave (``defaulted``, ``output.explain``); ``output.origins``
reads this map, and nothing else builds it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

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
) -> dict[str, str]:
    """Where each given key came from, the later winning: the scenario's own keys (from the
    built-in default scenario when ``builtin``), the keys the config.ini set, the keys ``sets``
    set (and the sections they create) with the origin ``set_origin``, the release when
    ``--version`` gave it, and data.size when it was taken from DataMemory."""
    out = dict.fromkeys(scenario_keys, DEFAULT_SCENARIO if builtin else SCENARIO)
    out.update(dict.fromkeys(config_ini, CONFIG_INI))
    for key in sets:
        parts = key.split(".")
        for i in range(1, len(parts) + 1):
            out[".".join(parts[:i])] = set_origin
    if version_option:
        out["version"] = VERSION_OPTION
    if from_datamemory:
        out["data.size"] = FROM_DATAMEMORY
    return out
