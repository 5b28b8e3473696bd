"""The predictive interval of every answer (``sources``: the four sources and how they combine).

The names are loaded on first use (PEP 562), so that importing a light module of this package
(``modes``'s constants, read by the CLI's option help) does not load the sources' release
profiles and YAML: ``ndbsim --help`` stays free of the simulation's libraries."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ndbsim.output.interval.sources import (
        combine,
        interval_lines,
        phase_sds,
        range_text,
        result_interval,
        result_priors,
        sd_of,
    )

__all__ = ["combine", "interval_lines", "phase_sds", "range_text", "result_interval", "result_priors", "sd_of"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(import_module("ndbsim.output.interval.sources"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
