"""Pydantic field types for values with units, shared by the NDB and InnoDB scenario models:
each parses with ``ndbsim.units`` and reports a bad value as that field's validation error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from ndbsim.errors import InputError
from ndbsim.input.units import parse_byte_rate, parse_bytes, parse_count, parse_duration, parse_per_second


def parsed(parser: Callable[[Any], Any]) -> BeforeValidator:
    """A validator that runs a ``ndbsim.units`` parser before the type check."""

    def run(v: Any) -> Any:
        try:
            return parser(v)
        except InputError as e:
            raise ValueError(e.message) from None

    return BeforeValidator(run)


Bytes = Annotated[float, parsed(parse_bytes), Field(ge=0)]
"""A size in bytes, ≥ 0, written like config.ini (``60G`` = 60×2³⁰; ``ndbsim.input.units.parse_bytes``)."""
PositiveBytes = Annotated[float, parsed(parse_bytes), Field(gt=0)]
"""A size in bytes, > 0 (``parse_bytes``)."""
ByteRate = Annotated[float, parsed(parse_byte_rate), Field(gt=0)]
"""Bytes per second, > 0: ``100M``/``100MB/s`` binary, ``10Gbit/s`` decimal bits (``parse_byte_rate``)."""
Count = Annotated[float, parsed(parse_count), Field(ge=0)]
"""A count, ≥ 0, with SI suffixes: ``300M`` = 3×10⁸ (``parse_count``)."""
PerSecond = Annotated[float, parsed(parse_per_second), Field(ge=0)]
"""Events per second, ≥ 0: ``20000/s``, ``20k/s`` or a number (``parse_per_second``)."""
PositivePerSecond = Annotated[float, parsed(parse_per_second), Field(gt=0)]
"""Events per second, > 0 (``parse_per_second``)."""


def _rows(x: float) -> float:
    if 0 < x < 1:
        raise ValueError(f"{x!r} is less than one row; give 1 or more, or null to derive the rows from data.row_size")
    return x


RowCount = Annotated[float, parsed(parse_count), Field(ge=0), AfterValidator(_rows)]
"""A row count: 0 (derive it) or at least 1, with SI suffixes (``parse_count``); a fraction of a
row would divide the data into rows of unbounded size."""
Duration = Annotated[float, parsed(parse_duration), Field(ge=0)]
"""Seconds, ≥ 0: ``90s``, ``2m4s``, ``1h``, ``500ms`` or a number (``parse_duration``)."""


class StrictModel(BaseModel):
    """Unknown keys are errors; infinities and NaN are not values."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    """Unknown keys are errors (extra="forbid") and inf/NaN are refused: ndbsim's input rules."""


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
