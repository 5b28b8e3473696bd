"""Checks of a sweep's values: whole numbers, shards, factor keys, range bounds and flags, each
failing with a one-line error naming the field."""

from __future__ import annotations

import math
from typing import Any

from ndbsim.errors import InputError, did_you_mean


def whole(value: Any, field: str, source: str | None, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise InputError(f"{value!r} is not valid; write a whole number ≥ {least}", field=field, source=source)
    return value


def parse_shard(shard: str | tuple[int, int] | None, source: str | None = None) -> tuple[int, int] | None:
    """``"I/N"`` (1-based) -> (I, N); None stays None."""
    if shard is None:
        return None
    if isinstance(shard, str):
        a, sep, b = shard.partition("/")
        try:
            if not sep:
                raise ValueError
            i, n = int(a), int(b)
        except ValueError:
            raise InputError(
                f"{shard!r} is not a shard; write I/N, e.g. 2/4 for the second of four", field="--shard", source=source
            ) from None
    else:
        try:
            i, n = (int(x) for x in shard)
        except (TypeError, ValueError):
            raise InputError(f"{shard!r} is not a shard; write I/N, e.g. 2/4", field="--shard", source=source) from None
    if n < 1 or not 1 <= i <= n:
        raise InputError(
            f"{shard!r} is not a shard; I must be 1..N and N ≥ 1, e.g. 2/4", field="--shard", source=source
        )
    return i, n


def check_key(key: Any, source: str | None, model: Any = None) -> str:
    """A factor key must name a scenario key (``cluster.config.<NDB parameter>`` included);
    ``model`` is the scenario model to check against (InnoDB's for ``kind: innodb``)."""
    from pydantic import BaseModel

    from ndbsim.input.config.params import PARAMS, canonical_name
    from ndbsim.input.scenario import Scenario

    field = f"factors.{key}"
    if not isinstance(key, str) or not key or any(not p for p in key.split(".")):
        raise InputError(
            f"{key!r} is not a scenario key; write a dotted key like data.size", field=field, source=source
        )
    parts = key.split(".")
    if model is None and parts[:2] == ["cluster", "config"]:
        if len(parts) != 3 or canonical_name(parts[2]) is None:
            name = parts[2] if len(parts) > 2 else ""
            raise InputError(
                f"unknown NDB parameter{did_you_mean(name, PARAMS)}; use one ndbsim models (see ndbsim params)",
                field=field,
                source=source,
            )
        return key
    model = model or Scenario
    for i, part in enumerate(parts):
        fields = getattr(model, "model_fields", None)
        if fields is None or part not in fields:
            where = ".".join(parts[:i]) or "the scenario"
            hint = did_you_mean(part, fields or ())
            raise InputError(
                f"{key!r} is not a scenario key: {where} has no {part!r}{hint}; fix the key", field=field, source=source
            )
        ann = fields[part].annotation
        model = None
        for cand in getattr(ann, "__args__", (ann,)):
            if isinstance(cand, type) and issubclass(cand, BaseModel):
                model = cand
                break
        if model is None and i < len(parts) - 1:
            raise InputError(
                f"{'.'.join(parts[: i + 1])} is a value, not a section; fix the key", field=field, source=source
            )
    if model is not None:
        raise InputError(
            f"{key!r} is a section; sweep one of its keys, e.g. {key}.{next(iter(model.model_fields))}",
            field=field,
            source=source,
        )
    return key


def sized(v: Any, field: str, source: str | None) -> float:
    from ndbsim.input.units import parse_bytes, parse_count

    if isinstance(v, bool):
        raise InputError(f"{v!r} is not a number; write e.g. 10 or 10GB", field=field, source=source)
    if isinstance(v, (int, float)):
        return bounded(v, field, source)
    for parse in (parse_bytes, parse_count):
        try:
            return float(parse(v))
        except InputError:
            continue
    raise InputError(f"{v!r} is not a number or size; write e.g. 10, 2.5 or 10GB", field=field, source=source)


def bounded(v: float, field: str, source: str | None) -> float:
    """A range bound as a float within ``units.MAX_MAGNITUDE`` (so ``high - low`` stays finite)."""
    from ndbsim.input.units import MAX_MAGNITUDE, shown

    if isinstance(v, float) and not math.isfinite(v):
        return v  # the range check names it "not a finite number"
    if abs(v) > MAX_MAGNITUDE:
        raise InputError(
            f"{shown(v)} is beyond any scenario value (at most 2^64 in size); give a realistic bound",
            field=field,
            source=source,
        )
    return float(v)


def flag(v: Any, field: str, source: str | None) -> bool:
    """A yes/no key: YAML's true or false only (a quoted 'false' is text, and text is true in Python)."""
    if not isinstance(v, bool):
        raise InputError(f"{v!r} is not true or false; write true or false, unquoted", field=field, source=source)
    return v
