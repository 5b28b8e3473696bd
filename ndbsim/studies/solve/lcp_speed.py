"""``solve lcp-speed``: the restart LCP write speed (MaxDiskWriteSpeedOtherNodeRestart and
MaxDiskWriteSpeedOwnRestart together, or DiskCheckpointSpeedInRestart before 7.4) that a restart
window needs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.config.params import M
from ndbsim.input.units import format_bytes, format_secs
from ndbsim.studies.runs import VariantRun
from ndbsim.studies.solve.answer import Answer
from ndbsim.studies.solve.search import Sim, fits_window, int_bisect, quantile_total


def _restart_speed_keys(resolved: Any) -> tuple[str, ...]:
    """The parameters that set the LCP write speed during a restart in this version."""
    if resolved.profile.mechanisms.legacy_speed_parameters:
        return ("DiskCheckpointSpeedInRestart",)
    return ("MaxDiskWriteSpeedOtherNodeRestart", "MaxDiskWriteSpeedOwnRestart")


def lcp_speed(sim: Sim, resolved: Any, window: float, q: float) -> Answer:
    """The least restart LCP write speed, in whole megabytes per second up to the disk's, whose
    ``q`` quantile restart fits ``window``."""
    keys = _restart_speed_keys(resolved)
    disk = resolved.scenario.host.disk_write
    lo, hi = 1, max(1, int(disk // M))

    def sets(mb: int) -> tuple[str, ...]:
        return tuple(f"cluster.config.{k}={mb}M" for k in keys)

    def run(mb: int) -> VariantRun:
        return sim(sets(mb))

    def fits(o: VariantRun) -> bool:
        return fits_window(o, q, window)

    which = "median" if q == 0.5 else f"p{100 * q:g}"
    target = (
        f"the restart LCP write speed ({' and '.join(keys)}) at which the {which} restart fits {format_secs(window)}"
    )
    if not fits(run(hi)):
        raise InputError(
            f"no LCP write speed up to the disk's {format_bytes(disk)}/s (host.disk_write) brings the {which} "
            f"restart within {format_secs(window)} (at that speed: {format_secs(quantile_total(run(hi), q))}); "
            "give a longer --window or see ndbsim advise for other levers",
            field="--window",
        )
    mb = lo if fits(run(lo)) else int_bisect(lambda v: fits(run(v)), lo, hi)
    return Answer(
        question="lcp-speed",
        parameter=" and ".join(keys),
        value=float(mb * M),
        shown=f"{mb}M",
        sets=sets(mb),
        outcome=run(mb),
        short=f"{mb - 1}M" if mb > lo else "none: 1M is the least the search tries",
        short_outcome=run(mb - 1) if mb > lo else None,
        target=target,
        runs=0,
        seed=0,
        replications=0,
        passed=fits(run(mb)),
        short_passed=fits(run(mb - 1)) if mb > lo else None,
        notes=_against_configured(sim, resolved, keys, mb, fits, which, q),
    )


def _against_configured(
    sim: Sim,
    resolved: Any,
    keys: tuple[str, ...],
    mb: int,
    fits: Callable[[VariantRun], bool],
    which: str,
    q: float,
) -> list[str]:
    """What the answer means beside the speeds the cluster has, as ``solve redo-log`` says of a
    log below the configured one: each configured speed above the answer, that taking the answer
    would lower it, and whether the configured speeds already meet the target."""
    above = [k for k in keys if resolved.config[k] > mb * M]
    if not above:
        return []
    now = sim(())
    configured = ", ".join(f"{k} = {format_bytes(resolved.config[k])}" for k in keys)
    verdict = "meet the target" if fits(now) else "miss it"
    lowered = " and ".join(f"{k} = {format_bytes(resolved.config[k])}" for k in above)
    return [
        f"below the configured {lowered}: taking {mb}M for {'it' if len(above) == 1 else 'them'} would lower "
        f"{'it' if len(above) == 1 else 'them'}; the configured speeds ({configured}) {verdict}: "
        f"{which} restart {format_secs(quantile_total(now, q))}"
    ]
