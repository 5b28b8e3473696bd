"""The predictive interval of every answer (``sources``: the four sources and how they combine)."""

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
