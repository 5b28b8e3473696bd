"""Validating a raw scenario mapping into a ``Scenario``, with pydantic's errors reworded as
one ``InputError`` naming the field, the value and the fix."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from ndbsim.errors import InputError, did_you_mean
from ndbsim.input.fields import keys_at
from ndbsim.input.scenario.model import Scenario
from ndbsim.input.scenario.provenance import SECTION
from ndbsim.input.units import shown


def _loc(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc if not str(p).startswith(("function-", "union-")))


def shown_value(value: Any) -> str:
    """A bad value as an error message shows it: "a mapping", or its repr cut to 60 characters."""
    if isinstance(value, dict):
        return "a mapping"
    return shown(value)


def _describe(kind: str, ctx: dict[str, Any], value: Any, msg: str) -> str:
    """pydantic's error, reworded as 'VALUE is ...; FIX'."""
    v = shown_value(value)
    if kind == "value_error":
        return msg.removeprefix("Value error, ")
    if kind == "greater_than":
        return f"{v} is too small; use a value greater than {ctx.get('gt')}"
    if kind == "greater_than_equal":
        bound = ctx.get("ge")
        if bound == 0:
            return f"{v} is negative; use 0 or more"
        return f"{v} is too small; use {bound} or more"
    if kind in ("less_than", "less_than_equal"):
        bound = ctx.get("lt", ctx.get("le"))
        return f"{v} is too large; use at most {bound}"
    if kind in ("int_parsing", "int_type", "int_from_float", "int_parsing_size"):
        return f"{v} is not a whole number; write one such as 8"
    if kind in ("float_parsing", "float_type"):
        return f"{v} is not a number; write one such as 1.5"
    if kind == "finite_number":
        return f"{v} is not a finite number; write one such as 1.5"
    if kind == "literal_error":
        return f"{v} is not allowed; use one of {ctx.get('expected', 'the documented values')}"
    if kind in ("string_type", "string_unicode"):
        return f"{v} is not text; write a string (quote it)"
    if kind in ("list_type", "tuple_type"):
        return f"{v} is not a list; write a list such as [2]"
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return f"{v} is not a section; write a mapping of keys under it"
    if kind in ("bool_parsing", "bool_type"):
        return f"{v} is not true or false; write true or false"
    text = " ".join(str(msg).split()).rstrip(".")
    return f"{v} is not valid ({text[:1].lower() + text[1:]}); fix the value"


def error_from_validation(err: ValidationError, model: type[BaseModel] | None = None) -> InputError:
    """A pydantic error as one ``InputError`` naming the field, the value and the fix
    (``model``, default ``Scenario``, lists the keys for "did you mean")."""
    model = model or Scenario
    e = err.errors(include_url=False)[0]
    loc = tuple(e.get("loc", ()))
    field = _loc(loc) or "scenario"
    kind = e.get("type", "")
    if kind == "extra_forbidden":
        hint = did_you_mean(str(loc[-1]), keys_at(model, loc)) if loc else ""
        return InputError(f"unknown key{hint}; remove it or fix its spelling", field=field)
    if field == "data.tables" and kind.startswith("int_"):
        return InputError(
            f"{shown_value(e.get('input'))} is neither a table count nor a list of tables; write a count "
            "such as 9 or a list such as [{name: orders, rows: 10M, ordered_indexes: 2}]",
            field=field,
        )
    text = _describe(kind, dict(e.get("ctx") or {}), e.get("input"), e.get("msg", "invalid"))
    return InputError(text, field=field)


def scenario_from_dict(raw: Any, source: str | None = None) -> Scenario:
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise InputError("a scenario must be a YAML mapping of keys (name, version, cluster, ...)", source=source)
    if SECTION in raw:  # where the values came from: the load pipeline reads it (input.scenario.provenance)
        raw = {k: v for k, v in raw.items() if k != SECTION}
    try:
        return Scenario.model_validate(raw)
    except ValidationError as err:
        e = error_from_validation(err)
        raise (e.located(source) if source else e) from None
    except InputError as e:
        raise (e.located(source) if source else e) from None
