"""``ndbsim solve``: inverse questions, answered by root finding on the simulation.

- ``redo-log``: the smallest NoOfFragmentLogFiles (or FragmentLogFileSize) that avoids error 410
  at the scenario's write rate;
- ``update-rate``: the highest update rate during the restart at which the copy still converges;
- ``lcp-speed``: the restart LCP write speed (MaxDiskWriteSpeedOtherNodeRestart and
  MaxDiskWriteSpeedOwnRestart together, or DiskCheckpointSpeedInRestart before 7.4) that a
  restart window needs;
- ``data-size``: the most data per node whose restart fits a window (rows and DataMemory scale
  with it, keeping the scenario's row size and memory headroom).

Every run uses the scenario's seed and replications, so the answer is what ``ndbsim run
--set ...`` prints. A pass/fail question is bisected (``scipy.optimize.bisect`` on a ±1 sign;
whole-number parameters by bisection on the integers); a window question is ``brentq`` on
``total − window``, then moved to the parameter's step (a megabyte, a gigabyte). Either way the
answer ends verified by runs: the answer passes, one step short of it fails.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ndbsim.errors import InputError, did_you_mean
from ndbsim.input.config_params import G, M
from ndbsim.input.units import format_bytes, format_secs
from ndbsim.studies.runs import VariantRun, evaluate, resolve_variant

QUESTIONS = ("redo-log", "update-rate", "lcp-speed", "data-size")
"""The inverse questions ``ndbsim solve`` answers (see the module docstring)."""
WINDOW_QUESTIONS = ("lcp-speed", "data-size")
"""The questions that need a restart window (``--window``)."""
RATE_TOLERANCE = 0.005
"""Relative width of the final bracket for the update rate (0.5%): finer than any operator's
rate limit needs, in about 20 bisection steps (ndbsim's choice)."""
MAX_UPDATE_RATE = 1e9
"""Highest update rate tried (per second, cluster-wide): far beyond any NDB cluster's, so a copy
that converges there converges at any real rate (ndbsim's bound, not NDB's)."""
MAX_LOG_FILES = 2**20
"""Most NoOfFragmentLogFiles tried; NDB's bound is 2³¹ (``config_params``), but 2²⁰ files of
the smallest size already hold 4 TB per log part (ndbsim's search bound)."""


@dataclass
class Answer:
    """An inverse question's answer and the runs that verify it."""

    question: str
    parameter: str
    value: float
    shown: str
    sets: tuple[str, ...]
    outcome: VariantRun
    short: str
    short_outcome: VariantRun | None
    target: str
    runs: int
    seed: int
    replications: int
    notes: list[str] = field(default_factory=list)
    passed: bool = True
    """Whether the answer's run meets the target (always, once solved)."""
    short_passed: bool | None = None
    """Whether the run one step short meets it (False once solved; None when there is no step)."""
    short_label: str = "one step short"
    overrides: tuple[str, ...] = ()
    """The ``--set`` strings applied to the scenario before the question (for the check command)."""

    def to_dict(self) -> dict[str, Any]:
        from ndbsim.output.result import json_clean

        def o(x: VariantRun | None) -> dict[str, Any] | None:
            if x is None:
                return None
            return {"set": list(x.sets), "total_restart_secs": x.median, "status": x.status, "reason": x.reason}

        return json_clean(
            {
                "question": self.question,
                "target": self.target,
                "parameter": self.parameter,
                "value": self.value,
                "shown": self.shown,
                "set": list(self.sets),
                "answer_run": o(self.outcome),
                "passed": self.passed,
                "one_step_short": self.short,
                "one_step_short_run": o(self.short_outcome),
                "one_step_short_passed": self.short_passed,
                "runs": self.runs,
                "seed": self.seed,
                "replications": self.replications,
                "notes": self.notes,
            }
        )

    def text(self, source: str | None = None) -> str:
        import shlex

        scen = f"{shlex.quote(source)} " if source else ""
        lines = [f"{self.question}: {self.target}", f"answer: {self.parameter} = {self.shown}"]
        verdict = {True: "meets the target", False: "misses it", None: ""}
        lines.append(f"  run with it: {_describe(self.outcome)} -> {verdict[self.passed]}")
        if self.short_outcome is not None:
            lines.append(
                f"  {self.short_label} ({self.short}): {_describe(self.short_outcome)} -> {verdict[self.short_passed]}"
            )
        else:
            lines.append(f"  {self.short_label}: {self.short}")
        lines += [f"  note: {n}" for n in self.notes]
        sets = " ".join(f"--set {shlex.quote(x)}" for x in (*self.overrides, *self.sets))
        lines.append(
            f"  ({self.runs} run{'s' if self.runs != 1 else ''} of {self.replications} replications; "
            f"check: ndbsim run {scen}-n {self.replications} --seed {self.seed} {sets})"
        )
        return "\n".join(lines) + "\n"


def _describe(o: VariantRun) -> str:
    also = ", and error 410" if o.redo_overloaded and o.status != "redo-overload" else ""
    if o.status == "ok":
        return f"{format_secs(o.median)}, ok{also}"
    return f"{format_secs(o.median)}, {o.status_flag or o.status}{also}"


class _Sim:
    """Runs of one scenario under ``--set`` variants, counted and cached by variant."""

    def __init__(self, raw: dict[str, Any], seed: int, n: int):
        self.raw, self.seed, self.n = raw, seed, n
        self.cache: dict[tuple[str, ...], VariantRun] = {}

    def __call__(self, sets: tuple[str, ...]) -> VariantRun:
        if sets not in self.cache:
            self.cache[sets] = evaluate(self.raw, sets, self.seed, self.n)
        o = self.cache[sets]
        if o.invalid:
            raise InputError(o.invalid)
        return o


def _int_bisect(passes: Callable[[int], bool], lo: int, hi: int) -> int:
    """The smallest integer in (lo, hi] that passes, given ``lo`` fails and ``hi`` passes
    (a monotone question)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if passes(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _quantile_total(o: VariantRun, q: float) -> float:
    from ndbsim.output.result import quantile

    if o.status in ("non-converging", "stuck"):
        return math.inf
    return quantile(list(o.totals), q)


def solve(
    question: str,
    scenario: str | Path | dict[str, Any] | None = None,
    *,
    window: float | str | None = None,
    param: str | None = None,
    quantile: float = 0.5,
    overrides: list[str] | tuple[str, ...] = (),
    seed: int | None = None,
    replications: int | None = None,
    source: str | None = None,
) -> Answer:
    """Answer one inverse question (``QUESTIONS``) for a scenario; see the module docstring.

    ``window`` (seconds, or a duration such as ``"10m"``) is the restart window of the window
    questions; ``quantile`` says which total must fit it (0.5: the median, 0.95: p95).
    ``param`` picks FragmentLogFileSize instead of NoOfFragmentLogFiles for ``redo-log``.
    """
    from ndbsim.input import scenario as sc
    from ndbsim.input.units import parse_duration
    from ndbsim.studies.advise import ADVISE_REPLICATIONS

    if question not in QUESTIONS:
        raise InputError(
            f"{question!r} is not a question{did_you_mean(str(question), QUESTIONS)}; "
            f"use one of {', '.join(QUESTIONS)}",
            field="question",
        )
    raw, src = sc.raw_from(scenario)
    src = src or source
    for a in overrides:
        sc.set_override(raw, a)
    loaded = resolve_variant(raw, (), src)
    if not loaded.model.solves:
        raise InputError(
            f"solve answers NDB restart questions; this is an {loaded.model.label} scenario", field="kind", source=src
        )
    resolved = loaded.prepared
    s = resolved.scenario
    seed = s.simulation.seed if seed is None else seed
    n = max(s.simulation.replications, ADVISE_REPLICATIONS) if replications is None else replications
    if not 0 < quantile < 1:
        raise InputError(f"{quantile!r} is not a quantile; use a number between 0 and 1, e.g. 0.95", field="--quantile")
    secs = None
    if question in WINDOW_QUESTIONS:
        if window is None:
            raise InputError(f"{question} needs a restart window; add e.g. --window 10m", field="--window")
        secs = parse_duration(window)
        if not secs > 0 or not math.isfinite(secs):
            raise InputError(f"{window!r} is not a window; give a duration such as 10m", field="--window")
    elif window is not None:
        raise InputError(f"{question} takes no window; remove --window", field="--window")
    if param is not None and question != "redo-log":
        raise InputError(f"{question} takes no --param; remove it", field="--param")
    sim = _Sim(raw, seed, n)
    if question == "redo-log":
        ans = _redo_log(sim, resolved, param or "NoOfFragmentLogFiles")
    elif question == "update-rate":
        ans = _update_rate(sim, resolved)
    elif question == "lcp-speed":
        assert secs is not None  # a window question has one (checked above)
        ans = _lcp_speed(sim, resolved, secs, quantile)
    else:
        assert secs is not None
        ans = _data_size(sim, resolved, secs, quantile)
    ans.runs = len(sim.cache)
    ans.overrides = tuple(overrides)
    ans.seed, ans.replications = seed, n
    return ans


# ---------------------------------------------------------------------------------------
# redo-log: the smallest REDO log that avoids error 410


def _redo_log(sim: _Sim, resolved: Any, param: str) -> Answer:
    from ndbsim.input.config_params import PARAMS, canonical_name

    name = canonical_name(param)
    if name not in ("NoOfFragmentLogFiles", "FragmentLogFileSize"):
        raise InputError(
            f"{param!r} is not a REDO log size; use NoOfFragmentLogFiles or FragmentLogFileSize", field="--param"
        )
    key = f"cluster.config.{name}"
    least, most = PARAMS[name].lo or 0.0, PARAMS[name].hi or 0.0
    if name == "NoOfFragmentLogFiles":
        unit, lo, top = 1, int(least), MAX_LOG_FILES

        def text(v: int) -> str:
            return str(v)
    else:
        unit, lo, top = M, int(least // M), int(most // M)

        def text(v: int) -> str:
            return f"{v}M"

    def run(v: int) -> VariantRun:
        return sim((f"{key}={text(v)}",))

    def passes(v: int) -> bool:
        return not run(v).redo_overloaded

    target = (
        f"the smallest {name} that avoids error 410 (REDO log overloaded) at the scenario's write rate "
        f"(NoOfFragmentLogParts {resolved.config['NoOfFragmentLogParts']}"
        + (
            f", FragmentLogFileSize {format_bytes(resolved.config['FragmentLogFileSize'])})"
            if name == "NoOfFragmentLogFiles"
            else f", NoOfFragmentLogFiles {resolved.config['NoOfFragmentLogFiles']})"
        )
    )
    if passes(lo):
        answer = lo
    else:
        hi = max(lo + 1, int(resolved.config[name] // unit))
        while not passes(hi):
            if hi >= top:
                other = "FragmentLogFileSize" if name == "NoOfFragmentLogFiles" else "NoOfFragmentLogFiles"
                raise InputError(
                    f"no {name} up to {text(top)} avoids error 410 at this write rate; raise {other}, or "
                    "make the LCPs faster (see ndbsim advise)",
                    field="--param" if name != "NoOfFragmentLogFiles" else "question",
                )
            lo, hi = hi, min(top, hi * 2)
        answer = _int_bisect(passes, lo, hi)
    ans = Answer(
        question="redo-log",
        parameter=name,
        value=float(answer * unit),
        shown=text(answer),
        sets=(f"{key}={text(answer)}",),
        outcome=run(answer),
        short="",
        short_outcome=None,
        target=target,
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


# ---------------------------------------------------------------------------------------
# update-rate: the highest update rate at which the copy converges


def _sign_bisect(passes: Callable[[float], bool], lo: float, hi: float, rtol: float) -> tuple[float, float]:
    """(largest passing, smallest failing) x after ``scipy.optimize.bisect`` on a ±1 sign,
    given ``lo`` passes and ``hi`` fails."""
    from scipy.optimize import bisect

    seen: dict[float, bool] = {lo: True, hi: False}

    def sign(x: float) -> float:
        if x not in seen:
            seen[x] = passes(x)
        return 1.0 if seen[x] else -1.0

    bisect(sign, lo, hi, xtol=1e-9, rtol=rtol, maxiter=200)
    good = max(x for x, ok in seen.items() if ok)
    bad = min(x for x, ok in seen.items() if not ok and x > good)
    return good, bad


def _update_rate(sim: _Sim, resolved: Any) -> Answer:
    key = "workload.during_restart.updates_per_s"
    if resolved.scenario.restart.type == "system":
        raise InputError(
            "a system restart runs no transactions and copies nothing; ask update-rate of a node, initial or "
            "rolling restart",
            field="restart.type",
        )

    def run(x: float) -> VariantRun:
        return sim((f"{key}={_rate_text(x)}",))

    def passes(x: float) -> bool:
        return run(x).status not in ("non-converging", "stuck")

    if not passes(0.0):
        raise InputError(
            f"the copy does not converge even with no updates during the restart ({run(0.0).reason}); "
            "lower the inserts and deletes during the restart",
            field="workload.during_restart",
        )
    from ndbsim.models.levers import restart_update_rate

    hi = max(1000.0, 2 * restart_update_rate(resolved))
    lo = 0.0
    while passes(hi):
        if hi >= MAX_UPDATE_RATE:
            raise InputError(
                f"the copy converges at every update rate up to {MAX_UPDATE_RATE:.0e}/s; no limit to find",
                field="question",
            )
        lo, hi = hi, min(MAX_UPDATE_RATE, hi * 4)
    good, bad = _sign_bisect(passes, lo, hi, RATE_TOLERANCE)
    # The answer as printed: three significant figures, rounded down so that it still passes.
    shown = _round_down(good)
    if shown > good or not passes(shown):
        shown = good
    notes = [f"the copy converges up to {good:,.0f}/s and not at {bad:,.0f}/s (bisection)"]
    if run(shown).status_flag:
        notes.append(f"at this rate the restart ends {run(shown).status_flag}: {run(shown).reason}")
    return Answer(
        question="update-rate",
        parameter=key,
        value=shown,
        shown=f"{shown:,.0f}/s",
        sets=(f"{key}={_rate_text(shown)}",),
        outcome=run(shown),
        short=f"{bad:,.0f}/s",
        short_outcome=run(bad),
        target="the highest update rate (cluster-wide) during the restart at which the copy still converges",
        runs=0,
        seed=0,
        replications=0,
        notes=notes,
        passed=passes(shown),
        short_passed=passes(bad),
        short_label="one step more",
    )


def _round_down(x: float, digits: int = 3) -> float:
    if x <= 0:
        return x
    scale = 10 ** (digits - 1 - math.floor(math.log10(x)))
    return math.floor(x * scale) / scale


def _rate_text(x: float) -> str:
    return f"{x:.0f}" if x >= 1 else f"{x:.6g}"


# ---------------------------------------------------------------------------------------
# window questions: brentq on total - window, then the parameter's step


def _step_search(
    run: Callable[[int], VariantRun], fits: Callable[[VariantRun], bool], guess: int, lo: int, hi: int, smallest: bool
) -> int:
    """From ``guess``, walk in steps to the boundary: the smallest step count that fits
    (``smallest``) or the largest, within [lo, hi]."""
    v = min(hi, max(lo, guess))
    if smallest:
        while v < hi and not fits(run(v)):
            v += 1
        while v > lo and fits(run(v - 1)):
            v -= 1
    else:
        while v > lo and not fits(run(v)):
            v -= 1
        while v < hi and fits(run(v + 1)):
            v += 1
    return v


def _brent_steps(f: Callable[[float], float], a: float, b: float) -> float:
    """A root of ``f`` in [a, b] (signs differ at the ends), to within a step."""
    from scipy.optimize import brentq

    return brentq(f, a, b, xtol=0.5, maxiter=100)


def _restart_speed_keys(resolved: Any) -> tuple[str, ...]:
    if resolved.profile.mechanisms.legacy_speed_parameters:
        return ("DiskCheckpointSpeedInRestart",)
    return ("MaxDiskWriteSpeedOtherNodeRestart", "MaxDiskWriteSpeedOwnRestart")


def _lcp_speed(sim: _Sim, resolved: Any, window: float, q: float) -> Answer:
    keys = _restart_speed_keys(resolved)
    disk = resolved.scenario.host.disk_write
    lo, hi = 1, max(1, int(disk // M))

    def sets(mb: int) -> tuple[str, ...]:
        return tuple(f"cluster.config.{k}={mb}M" for k in keys)

    def run(mb: int) -> VariantRun:
        return sim(sets(mb))

    def fits(o: VariantRun) -> bool:
        return _quantile_total(o, q) <= window

    def f(x: float) -> float:
        t = _quantile_total(run(max(lo, round(x))), q)
        return (min(t, 10 * window) - window) / window

    which = "median" if q == 0.5 else f"p{100 * q:g}"
    target = (
        f"the restart LCP write speed ({' and '.join(keys)}) at which the {which} restart fits {format_secs(window)}"
    )
    if not fits(run(hi)):
        raise InputError(
            f"no LCP write speed up to the disk's {format_bytes(disk)}/s (host.disk_write) brings the {which} "
            f"restart within {format_secs(window)} (at that speed: {format_secs(_quantile_total(run(hi), q))}); "
            "give a longer --window or see ndbsim advise for other levers",
            field="--window",
        )
    if fits(run(lo)):
        mb = lo
    else:
        guess = _brent_steps(f, lo, hi) if f(lo) * f(hi) < 0 else hi
        mb = _step_search(run, fits, math.ceil(guess), lo, hi, smallest=True)
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
    )


def _data_size(sim: _Sim, resolved: Any, window: float, q: float) -> Answer:
    from ndbsim.input.config_params import PARAMS

    s, cfg = resolved.scenario, resolved.config
    size0 = s.data.size
    rows0 = s.data.row_count
    headroom = cfg["DataMemory"] / size0
    top = int(PARAMS["DataMemory"].hi / headroom // G)

    def sets(gb: int) -> tuple[str, ...]:
        size = gb * G
        dm = math.ceil(size * headroom / M)
        return (f"data.size={gb}G", f"data.rows={rows0 * size / size0:.0f}", f"cluster.config.DataMemory={dm}M")

    def run(gb: int) -> VariantRun:
        return sim(sets(gb))

    def fits(o: VariantRun) -> bool:
        return _quantile_total(o, q) <= window

    def f(x: float) -> float:
        t = _quantile_total(run(max(1, round(x))), q)
        return (min(t, 10 * window) - window) / window

    which = "median" if q == 0.5 else f"p{100 * q:g}"
    target = (
        f"the most data per node whose {which} restart fits {format_secs(window)} "
        f"(rows and DataMemory scale with it: {size0 / rows0:.0f} B per row, DataMemory {headroom:.2f} × data)"
    )
    if not fits(run(1)):
        raise InputError(
            f"even 1G of data per node misses a {format_secs(window)} window "
            f"({format_secs(_quantile_total(run(1), q))}); give a longer --window",
            field="--window",
        )
    lo, hi = 1, max(2, int(size0 // G))
    while fits(run(hi)):
        if hi >= top:
            break
        lo, hi = hi, min(top, hi * 2)
    if fits(run(hi)):
        gb = hi
    else:
        guess = _brent_steps(f, lo, hi) if f(lo) * f(hi) < 0 else lo
        gb = _step_search(run, fits, math.floor(guess), lo, hi, smallest=False)
    up = gb + 1 if gb < top else None
    return Answer(
        question="data-size",
        parameter="data.size",
        value=float(gb * G),
        shown=f"{gb}G",
        sets=sets(gb),
        outcome=run(gb),
        short=f"{up}G" if up else "none: DataMemory's limit",
        short_outcome=run(up) if up else None,
        target=target,
        runs=0,
        seed=0,
        replications=0,
        passed=fits(run(gb)),
        short_passed=fits(run(up)) if up else None,
        short_label="one step more",
    )
