"""``solve redo-log``: the smallest REDO log (NoOfFragmentLogFiles or FragmentLogFileSize) whose
peak stays within the answers' margin (at most ``REDO_ANSWER_FILL`` of the log, or ``--margin``)
at the scenario's write rate, beside the least that merely avoids error 410."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.config.params import M
from ndbsim.input.units import format_bytes, format_secs
from ndbsim.studies.solve.answer import Answer
from ndbsim.studies.solve.search import REDO_ANSWER_FILL, Sim, int_bisect

REDO_MARGIN = 1 / REDO_ANSWER_FILL - 1
"""The answer's default margin over the REDO the restart must keep at its peak: the log at least
1/``REDO_ANSWER_FILL`` (1/0.6, two thirds more) × the peak, so the peak stays at most 60% of the
log, where ``ndbsim run`` warns "error 410 is close" and every solve answer stops. (Seed 004's
four LCPs where three must fit, a third more, would leave the peak at 75%, inside that warning.)
``--margin`` sets another."""
MAX_LOG_FILES = 2**20
"""Most NoOfFragmentLogFiles tried; NDB's bound is 2³¹ (``config_params``), but 2²⁰ files of
the smallest size already hold 4 TB per log part (ndbsim's search bound)."""


def redo_log(sim: Sim, resolved: Any, param: str, margin: float = REDO_MARGIN) -> Answer:
    """The smallest value of ``param`` whose runs keep the REDO log within its size and, as the
    recommended size, the smallest whose REDO peak leaves ``margin`` (the log at least
    ``1 + margin`` times the peak); each verified by a run with it and one a step short."""
    from ndbsim.input.config.params import canonical_name

    name = canonical_name(param)
    if name not in ("NoOfFragmentLogFiles", "FragmentLogFileSize"):
        raise InputError(
            f"{param!r} is not a REDO log size; use NoOfFragmentLogFiles or FragmentLogFileSize", field="--param"
        )
    if math.isnan(margin) or not 0 <= margin <= 10:
        raise InputError(f"{margin!r} is not a margin; give e.g. 33% or 0.33 (at most 1000%)", field="--margin")
    unit, lo, top, text = _steps(name)

    def passes(v: int) -> bool:
        return not sim(_sets(name, text(v))).redo_overloaded

    def holds_margin(v: int) -> bool:
        o = sim(_sets(name, text(v)))
        return not o.redo_overloaded and o.redo_peak_fill * (1 + margin) <= 1

    now = int(resolved.config[name] // unit)
    least = lo if passes(lo) else _least_passing(passes, lo, top, now, name, text, "avoids error 410")
    ans = _answer(sim, name, (least, lo, f"none: {text(least)} is the least NDB allows"), unit, text, passes)
    ans.target = _target(name, resolved.config)
    ans.label = "least, no margin"
    guess = max(least + 1, math.ceil(least * (1 + margin)))
    best = (
        least
        if holds_margin(least)
        else _least_passing(holds_margin, least, top, guess, name, text, f"leaves a {margin:.0%} margin")
    )
    ans.recommended = _answer(
        sim, name, (best, least, "none: the minimum already leaves the margin"), unit, text, holds_margin
    )
    ans.recommended.target = (
        f"the smallest {name} whose REDO peak stays at most {1 / (1 + margin):.0%} of the log (a {margin:.0%} "
        f"margin); the default, {REDO_ANSWER_FILL:.0%}, is where ndbsim run warns error 410 is close "
        "(--margin sets yours)"
    )
    ans.recommended.label = "answer"
    ans.recommended.notes += _against_configured(sim, name, resolved, best, now, text)
    return ans


def _rates(r: Any) -> str:
    """A workload's (or a burst's) change rates in words; a burst's unset rates are the base's."""
    parts = [(r.updates_per_s, "updates"), (r.inserts_per_s, "inserts"), (r.deletes_per_s, "deletes")]
    shown = ", ".join(f"{v:,.0f} {what}/s" for v, what in parts if v)
    size = getattr(r, "bytes_per_change", None)
    return shown + (f" of {format_bytes(size)}" if size else "") if shown else "no changes"


def _log_bytes(config: dict[str, Any], name: str, value: float) -> float:
    """The REDO log per node with ``name`` at ``value`` and the other dimensions as configured:
    NoOfFragmentLogParts × NoOfFragmentLogFiles × FragmentLogFileSize (``Sizing.redo_capacity``)."""
    sizes = {k: float(config[k]) for k in ("NoOfFragmentLogParts", "NoOfFragmentLogFiles", "FragmentLogFileSize")}
    sizes[name] = value
    return sizes["NoOfFragmentLogParts"] * sizes["NoOfFragmentLogFiles"] * sizes["FragmentLogFileSize"]


def _against_configured(
    sim: Sim, name: str, resolved: Any, best: int, now: int, text: Callable[[int], str]
) -> list[str]:
    """What the recommendation means beside the log the cluster has: the write rate it was sized
    for, and, when it is smaller than the configured log, that it would shrink it and what the
    configured log leaves free at this rate's REDO peak."""
    cfg, w = resolved.config, resolved.scenario.workload
    unit = M if name == "FragmentLogFileSize" else 1
    rate = f"sized for the scenario's write rates: {_rates(w)} (workload.*)"
    burst = w.before_restart
    if burst is not None and burst.duration > 0:
        rate += f", and {_rates(burst)} for {format_secs(burst.duration)} before the restart (workload.before_restart)"
    rate += "; a higher rate needs more: solve again with --set workload.updates_per_s=…"
    if best >= now:
        return [rate]
    configured, taken = sim(_sets(name, text(now))), sim(_sets(name, text(best)))
    now_bytes, best_bytes = _log_bytes(cfg, name, now * unit), _log_bytes(cfg, name, best * unit)
    return [
        f"below the configured {name} = {text(now)} ({format_bytes(now_bytes)} per node): taking {text(best)} "
        f"({format_bytes(best_bytes)}) gives up {format_bytes(now_bytes - best_bytes)} of REDO per node; its peak "
        f"fills {taken.redo_peak_fill:.1%} of the log where the configured one's fills "
        f"{configured.redo_peak_fill:.1%}, so a write burst reaches error 410 sooner; keeping {text(now)} costs "
        "only disk",
        rate,
    ]


def _sets(name: str, value: str) -> tuple[str, ...]:
    return (f"cluster.config.{name}={value}",)


def _answer(
    sim: Sim,
    name: str,
    found: tuple[int, int, str],
    unit: int,
    text: Callable[[int], str],
    passes: Callable[[int], bool],
) -> Answer:
    """The answer ``v`` of ``found = (v, floor, why)`` with its run and the run one step short;
    at the search's ``floor`` there is no step short, for the reason ``why``."""
    v, floor, why = found
    ans = Answer(
        question="redo-log",
        parameter=name,
        value=float(v * unit),
        shown=text(v),
        sets=_sets(name, text(v)),
        outcome=sim(_sets(name, text(v))),
        short="",
        short_outcome=None,
        target="",
        runs=0,
        seed=0,
        replications=0,
        redo_fill=True,
    )
    ans.passed = passes(v)
    if v > floor:
        ans.short, ans.short_outcome = text(v - 1), sim(_sets(name, text(v - 1)))
        ans.short_passed = passes(v - 1)
    else:
        ans.short = why
    return ans


def _steps(name: str) -> tuple[int, int, int, Callable[[int], str]]:
    """The search's step in bytes (or files), its least and most step counts, and a step count as
    ``--set`` text."""
    from ndbsim.input.config.params import PARAMS

    least, most = PARAMS[name].lo or 0.0, PARAMS[name].hi or 0.0
    if name == "NoOfFragmentLogFiles":
        return 1, int(least), MAX_LOG_FILES, str
    return M, int(least // M), int(most // M), lambda v: f"{v}M"


def _least_passing(
    passes: Callable[[int], bool], lo: int, top: int, now: int, name: str, text: Callable[[int], str], what: str
) -> int:
    """The least passing step count above ``lo`` (which fails): doubling from the configured
    value ``now`` to a passing bound, then bisection."""
    hi = max(lo + 1, now)
    while not passes(hi):
        if hi >= top:
            other = "FragmentLogFileSize" if name == "NoOfFragmentLogFiles" else "NoOfFragmentLogFiles"
            raise InputError(
                f"no {name} up to {text(top)} {what} at this write rate; raise {other}, or "
                "make the LCPs faster (see ndbsim advise)",
                field="--param" if name != "NoOfFragmentLogFiles" else "question",
            )
        lo, hi = hi, min(top, hi * 2)
    return int_bisect(passes, lo, hi)


def _target(name: str, config: dict[str, Any]) -> str:
    """The question as the answer states it, with the other REDO dimensions as configured."""
    other = (
        f", FragmentLogFileSize {format_bytes(config['FragmentLogFileSize'])})"
        if name == "NoOfFragmentLogFiles"
        else f", NoOfFragmentLogFiles {config['NoOfFragmentLogFiles']})"
    )
    return (
        f"the smallest {name} that avoids error 410 (REDO log overloaded) at the scenario's write rate "
        f"(NoOfFragmentLogParts {config['NoOfFragmentLogParts']}" + other
    )
