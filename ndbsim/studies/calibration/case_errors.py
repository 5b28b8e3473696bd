"""pydantic's errors in a calibration case file, reworded as 'FIELD: VALUE is ...; FIX'
(the case format of calibration/README.md, ``case_spec.CaseSpec``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ndbsim.errors import InputError, did_you_mean
from ndbsim.input import scenario as sc

MISSING_FIXES = {
    "role": "add role: fit, validate, info or reference (calibration/README.md says which)",
    "scenario": "give a scenario file path (relative to the case file) or an inline scenario mapping",
    "published": "give the published figures, e.g. published: {total_restart_secs: {value: 409}}",
    "total_restart_secs": "give the published total, e.g. total_restart_secs: {value: 409}",
    "node_id": "give the data node's NodeId, e.g. node_id: 11",
    "why": "say where the value and its range come from (a release default, the hardware of its year, the source)",
    "value": "give the published seconds, e.g. {value: 35}; for an assumption, the value the case uses",
}
"""The fix for each required key of a case file, by its name."""


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _is_figure(loc: tuple[Any, ...]) -> bool:
    if loc == ("published", "total_restart_secs") or (len(loc) == 3 and loc[:2] == ("published", "phases")):
        return True
    return len(loc) >= 4 and loc[:2] == ("published", "nodes") and (loc[3] == "total_restart_secs" or len(loc) == 5)


def _fix_for_number(loc: tuple[Any, ...]) -> str:
    last = loc[-1] if loc else ""
    if last == "tolerance":
        return "write a fraction such as 0.1 (±10%)"
    if last in ("replications", "seed", "node_id", "line"):
        return "write a whole number such as 9"
    return "write seconds such as 35"


def _not_a_mapping(loc: tuple[Any, ...], value: Any, v: str, fld: str) -> InputError:
    if _is_figure(loc):
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        example = f"{{value: {value}}}" if number else "{value: SECONDS}"
        return InputError(f"{v} is not a mapping; write it as {example}", field=fld)
    if loc == ("published", "phases"):
        return InputError(f"{v} is not a mapping; write one phase a line, as NAME: {{value: SECONDS}}", field=fld)
    if loc == ("published",):
        return InputError(
            f"{v} is not a mapping; write total_restart_secs: {{value: SECONDS}} (and phases) under it", field=fld
        )
    return InputError(f"{v} is not a mapping; write a mapping of keys under it", field=fld)


def _shape_error(kind: str, loc: tuple[Any, ...], value: Any, v: str, fld: str) -> InputError | None:
    """Errors of a value's type or form (mapping, list, text, role, boolean); None for others."""
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return _not_a_mapping(loc, value, v, fld)
    if kind in ("list_type", "tuple_type"):
        if loc == ("published", "nodes"):
            return InputError(f"{v} is not a list; write one restart a line, as - {{node_id: 11, ...}}", field=fld)
        example = f"[{value}]" if isinstance(value, str) else "[data.size=1TB]"
        return InputError(f"{v} is not a list; write a list of dotted.path=value overrides, e.g. {example}", field=fld)
    if kind in ("string_type", "string_unicode"):
        return InputError(f"{v} is not text; write an override as dotted.path=value, e.g. data.size=1TB", field=fld)
    if kind in ("too_long", "too_short") and loc[-1:] == ("range",):
        return InputError(f"{v} is not a range; give two values, [LOW, HIGH], e.g. [0.25, 0.5]", field=fld)
    if kind == "literal_error":
        return InputError(f"{v} is not a role; use fit, validate, info or reference", field=fld)
    if kind in ("bool_parsing", "bool_type"):
        return InputError(f"{v} is not true or false; write true or false", field=fld)
    return None


def _number_error(kind: str, loc: tuple[Any, ...], ctx: dict[str, Any], v: str, fld: str) -> InputError | None:
    """Errors of a number: not one, not whole, not finite, out of bounds; None for others."""
    last = loc[-1] if loc else ""
    whole = last in ("replications", "seed", "node_id", "line")
    if kind in ("float_parsing", "float_type", "bool_not_number"):
        return InputError(f"{v} is not {'a whole number' if whole else 'a number'}; {_fix_for_number(loc)}", field=fld)
    if kind == "finite_number":
        return InputError(f"{v} is not a finite number; {_fix_for_number(loc)}", field=fld)
    if kind in ("int_parsing", "int_type", "int_from_float", "int_parsing_size"):
        return InputError(f"{v} is not a whole number; {_fix_for_number(loc)}", field=fld)
    if kind == "greater_than_equal":
        bound = ctx.get("ge")
        if bound == 0:
            return InputError(f"{v} is negative; use 0 or more", field=fld)
        return InputError(f"{v} is too small; use {bound} or more", field=fld)
    if kind == "less_than_equal":
        bound = ctx.get("le")
        if last == "replications":
            return InputError(
                f"{v} is too many: every check and every fit step would simulate the case that "
                f"often; use at most {bound}",
                field=fld,
            )
        return InputError(f"{v} is too large; use at most {bound:.0f}{'' if whole else ' s'}", field=fld)
    return None


def describe(e: Mapping[str, Any], keys_at: Callable[[tuple[Any, ...]], Iterable[str]]) -> InputError:
    """pydantic's first error in a case file, as 'FIELD: VALUE is ...; FIX'; ``keys_at(loc)`` lists
    the keys allowed beside an unknown one at ``loc`` (for "did you mean")."""
    loc = tuple(e.get("loc", ()))
    fld = _path(loc) or "case"
    kind = e.get("type", "")
    value = e.get("input")
    v = sc.shown_value(value)
    last = loc[-1] if loc else ""
    if kind == "missing":
        return InputError(f"missing; {MISSING_FIXES.get(str(last), 'add it')}", field=fld)
    if kind == "extra_forbidden":
        hint = did_you_mean(str(last), list(keys_at(loc)))
        return InputError(f"unknown key{hint}; remove it or fix its spelling", field=fld)
    found = _shape_error(kind, loc, value, v, fld) or _number_error(kind, loc, dict(e.get("ctx") or {}), v, fld)
    if found is not None:
        return found
    text = " ".join(str(e.get("msg", "invalid")).split()).rstrip(".")
    return InputError(f"{v} is not valid ({text[:1].lower() + text[1:]}); fix the value", field=fld)
