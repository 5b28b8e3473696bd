"""Pydantic field types for values with units, shared by the NDB and InnoDB scenario models:
each parses with ``ndbsim.units`` and reports a bad value as that field's validation error."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from ndbsim.errors import InputError
from ndbsim.units import parse_byte_rate, parse_bytes, parse_count, parse_duration, parse_per_second


def parsed(parser) -> BeforeValidator:
    """A validator that runs a ``ndbsim.units`` parser before the type check."""

    def run(v: Any) -> Any:
        try:
            return parser(v)
        except InputError as e:
            raise ValueError(e.message) from None

    return BeforeValidator(run)


Bytes = Annotated[float, parsed(parse_bytes), Field(ge=0)]
PositiveBytes = Annotated[float, parsed(parse_bytes), Field(gt=0)]
ByteRate = Annotated[float, parsed(parse_byte_rate), Field(gt=0)]
Count = Annotated[float, parsed(parse_count), Field(ge=0)]
PerSecond = Annotated[float, parsed(parse_per_second), Field(ge=0)]
PositivePerSecond = Annotated[float, parsed(parse_per_second), Field(gt=0)]
Duration = Annotated[float, parsed(parse_duration), Field(ge=0)]


class StrictModel(BaseModel):
    """Unknown keys are errors; infinities and NaN are not values."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


def keys_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The keys a model accepts at the section holding ``loc``'s last part (for "did you mean")."""
    cur: Any = model
    for part in loc[:-1]:
        fld = getattr(cur, "model_fields", {}).get(part)
        if fld is None:
            return []
        ann = fld.annotation
        for cand in getattr(ann, "__args__", (ann,)):
            if isinstance(cand, type) and issubclass(cand, BaseModel):
                cur = cand
                break
        else:
            return []
    return list(getattr(cur, "model_fields", {}))
