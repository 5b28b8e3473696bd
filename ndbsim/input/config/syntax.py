"""NDB's config.ini value syntax: numbers with at most one K/M/G suffix and booleans as NDB's
parser spells them (``InitConfigFileParser``), for every parameter, modelled or not."""

from __future__ import annotations

import re
from pathlib import Path

from ndbsim.errors import InputError
from ndbsim.input.config import params as config_params

NDB_NUMBER = re.compile(r"\s*(\d+)\s*([kKMG]?)\s*")
"""A number as NDB's config.ini parser reads it: decimal digits and at most a suffix k/K (2**10),
M (2**20) or G (2**30) (``InitConfigFileParser::convertStringToUint64``: ``strtoll`` then a
switch on the suffix's first letter over 'k', 'K', 'M' and 'G'; the manual: "K, M, or G as a
suffix to indicate units of 1024, 1024×1024, or 1024×1024×1024"). NDB looks only at the suffix's
first letter, so ``64GiB`` happens to read as 64G there; ndbsim asks for the documented form."""

_SHIFT = {"": 0, "k": 10, "K": 10, "M": 20, "G": 30}
"""config.ini suffix -> power of two it multiplies by (``convertStringToUint64``)."""

_NDB_BOOL = {
    **dict.fromkeys(("Y", "y", "Yes", "YES", "yes", "True", "TRUE", "true", "1"), "true"),
    **dict.fromkeys(("N", "n", "No", "NO", "no", "False", "FALSE", "false", "0"), "false"),
}
"""The spellings of a boolean NDB's config.ini parser accepts (``convertStringToBool``)."""


def ndb_value(name: str, value: str, field: str, path: Path) -> str:
    """``value`` of the modelled parameter ``name`` checked against NDB's config.ini syntax: numbers
    with at most one K/M/G suffix (k too), booleans as NDB spells them; returned in a form
    ``config_params.parse_value`` reads to the same number (sizes and rates keep their suffix,
    counts are written out)."""
    kind = config_params.PARAMS[name].kind
    if kind == "bool":
        if value not in _NDB_BOOL:
            raise InputError(
                f"{value!r} is not a boolean NDB reads; write 1 or 0 (or true/false, yes/no, Y/N)",
                field=field,
                source=str(path),
            )
        return _NDB_BOOL[value]
    if kind not in ("size", "rate", "int"):
        return value
    m = NDB_NUMBER.fullmatch(value)
    if not m:
        raise _not_a_number(value, field, path)
    number, suffix = m.groups()
    if kind == "int":
        return str(int(number) << _SHIFT[suffix])
    return f"{int(number)}{suffix.upper()}"


def _not_a_number(value: str, field: str, path: Path) -> InputError:
    """The one-line error for a number NDB's config.ini syntax does not have (``16GiB``, ``64MB``)."""
    digits = re.match(r"\s*\d+", value)
    hint = "write e.g. 64G"
    if digits:
        d, suffix = digits.group().strip(), _hint_suffix(value[digits.end() :])
        # an unknown suffix ('96X'): the digits alone would be bytes, so offer NDB's suffixes too
        hint = f"write {d}{suffix}" if suffix else f"write {d} (a plain number) or {d}K, {d}M or {d}G"
    return InputError(
        f"{value!r} is not a number NDB reads: config.ini takes digits and at most one suffix K, M or G "
        f"(1024-based); {hint}",
        field=field,
        source=str(path),
    )


_SUFFIXED = re.compile(r"\s*\d+\s*[A-Za-z]+\s*")
"""A number with a unit (``16GiB``, ``40M``): a shape none of NDB's string parameters take."""

_STRING_PARAMS = frozenset({"InitialLogfileGroup", "InitialTablespace", "Arbitration", "LockExecuteThreadToCPU"})
"""Unmodelled parameters whose values are strings (ConfigInfo.cpp ``CI_STRING``/``CI_ENUM``)."""


def check_unmodelled_value(name: str, value: str, field: str, path: Path) -> None:
    """NDB's number syntax on a parameter ndbsim does not model too (``16GiB`` refused everywhere)."""
    if name not in _STRING_PARAMS and _SUFFIXED.fullmatch(value) and not NDB_NUMBER.fullmatch(value):
        raise _not_a_number(value, field, path)


def _hint_suffix(rest: str) -> str:
    """The suffix NDB's syntax has for what followed the digits (``GiB`` -> ``G``), else ''."""
    first = rest.strip()[:1].upper()
    return first if first in ("K", "M", "G") else ""
