"""``solve redo-log``: the smallest REDO log (NoOfFragmentLogFiles or FragmentLogFileSize) that
avoids error 410 at the scenario's write rate."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.config_params import M
from ndbsim.input.units import format_bytes
from ndbsim.studies.runs import VariantRun
from ndbsim.studies.solve.answer import Answer
from ndbsim.studies.solve.search import Sim, int_bisect

MAX_LOG_FILES = 2**20
"""Most NoOfFragmentLogFiles tried; NDB's bound is 2³¹ (``config_params``), but 2²⁰ files of
the smallest size already hold 4 TB per log part (ndbsim's search bound)."""


def redo_log(sim: Sim, resolved: Any, param: str) -> Answer:
    """The smallest value of ``param`` whose runs keep the REDO log within its size, verified
    by a run with it and one a step short."""
    from ndbsim.input.config_params import PARAMS, canonical_name

    name = canonical_name(param)
    if name not in ("NoOfFragmentLogFiles", "FragmentLogFileSize"):
        raise InputError(
            f"{param!r} is not a REDO log size; use NoOfFragmentLogFiles or FragmentLogFileSize", field="--param"
        )
    key = f"cluster.config.{name}"
    least = PARAMS[name].lo or 0.0
    unit, lo, top, text = _steps(name)

    def run(v: int) -> VariantRun:
        return sim((f"{key}={text(v)}",))

    def passes(v: int) -> bool:
        return not run(v).redo_overloaded

    answer = lo if passes(lo) else _least_passing(passes, lo, top, int(resolved.config[name] // unit), name, text)
    ans = Answer(
        question="redo-log",
        parameter=name,
        value=float(answer * unit),
        shown=text(answer),
        sets=(f"{key}={text(answer)}",),
        outcome=run(answer),
        short="",
        short_outcome=None,
        target=_target(name, resolved.config),
        runs=0,
        seed=0,
        replications=0,
    )
    ans.passed = passes(answer)
    if answer > int(least // unit):
        ans.short, ans.short_outcome = text(answer - 1), run(answer - 1)
        ans.short_passed = passes(answer - 1)
    else:
        ans.short = f"none: {text(answer)} is the least NDB allows"
    return ans


def _steps(name: str) -> tuple[int, int, int, Callable[[int], str]]:
    """The search's step in bytes (or files), its least and most step counts, and a step count as
    ``--set`` text."""
    from ndbsim.input.config_params import PARAMS

    least, most = PARAMS[name].lo or 0.0, PARAMS[name].hi or 0.0
    if name == "NoOfFragmentLogFiles":
        return 1, int(least), MAX_LOG_FILES, str
    return M, int(least // M), int(most // M), lambda v: f"{v}M"


def _least_passing(
    passes: Callable[[int], bool], lo: int, top: int, now: int, name: str, text: Callable[[int], str]
) -> int:
    """The least passing step count above ``lo`` (which fails): doubling from the configured
    value ``now`` to a passing bound, then bisection."""
    hi = max(lo + 1, now)
    while not passes(hi):
        if hi >= top:
            other = "FragmentLogFileSize" if name == "NoOfFragmentLogFiles" else "NoOfFragmentLogFiles"
            raise InputError(
                f"no {name} up to {text(top)} avoids error 410 at this write rate; raise {other}, or "
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
