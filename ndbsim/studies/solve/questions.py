"""``solve()``: one inverse question checked, its scenario loaded, and the question's search run."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ndbsim.errors import InputError, did_you_mean
from ndbsim.studies.runs import resolve_variant
from ndbsim.studies.solve.answer import Answer
from ndbsim.studies.solve.data_size import data_size
from ndbsim.studies.solve.lcp_speed import lcp_speed
from ndbsim.studies.solve.plan import plan
from ndbsim.studies.solve.redo_log import redo_log
from ndbsim.studies.solve.search import Sim
from ndbsim.studies.solve.update_rate import update_rate

QUESTIONS = ("redo-log", "update-rate", "lcp-speed", "data-size", "plan")
"""The inverse questions ``ndbsim solve`` answers (see the package docstring)."""
WINDOW_QUESTIONS = ("lcp-speed", "data-size", "plan")
"""The questions that need a restart window (``--window``); update-rate takes one if given."""


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
    margin: float | str | None = None,
    grow_datamemory: bool = False,
) -> Answer:
    """Answer one inverse question (``QUESTIONS``) for a scenario; see the package docstring.

    ``window`` (seconds, or a duration such as ``"10m"``) is the restart window of the window
    questions; ``quantile`` says which total must fit it (0.5: the median, 0.95: p95).
    ``param`` picks FragmentLogFileSize instead of NoOfFragmentLogFiles for ``redo-log``, and
    ``margin`` (a fraction, or a percentage such as ``"33%"``) the recommended size's margin
    (default ``REDO_MARGIN``). ``grow_datamemory`` lets DataMemory grow with the data in
    ``data-size`` (default: it stays as configured).
    """
    from ndbsim.input import scenario as sc
    from ndbsim.studies.advise.study import ADVISE_REPLICATIONS

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
    secs = _window(question, window)
    _only(question, param=param, margin=margin, grow_datamemory=grow_datamemory)
    sim, n, two = _sim(raw, seed, n)
    ans = _ask(question, sim, resolved, secs, quantile, param, margin, grow_datamemory)
    for answer in (ans, ans.recommended):
        if answer is not None and two:
            answer.notes.append(f"the configured restart's {two}")
        if answer is not None:
            answer.runs, answer.overrides, answer.seed, answer.replications = len(sim.cache), tuple(overrides), seed, n
            answer.quantile = quantile
    return ans


def _sim(raw: dict[str, Any], seed: int, n: int) -> tuple[Sim, int, str]:
    """The runs of a question, with enough replications to see both modes of a crash-moment
    spread that has two (``output.interval.modes``), and the line that says so ('' for one)."""
    from ndbsim.output.interval.modes import enough_replications, modes_line

    sim = Sim(raw, seed, n)
    if enough_replications(sim(()).totals, n) > n:
        n = enough_replications(sim(()).totals, n)
        sim = Sim(raw, seed, n)
    return sim, n, modes_line(list(sim(()).totals))


def _ask(
    question: str,
    sim: Sim,
    resolved: Any,
    secs: float | None,
    quantile: float,
    param: str | None,
    margin: float | str | None,
    grow_datamemory: bool,
) -> Answer:
    """The question's search, with its options."""
    if question == "redo-log":
        return redo_log(sim, resolved, param or "NoOfFragmentLogFiles", _margin(margin))
    if question == "update-rate":
        return update_rate(sim, resolved, secs, quantile)
    assert secs is not None  # a window question has one (``_window``)
    if question == "lcp-speed":
        return lcp_speed(sim, resolved, secs, quantile)
    if question == "plan":
        return plan(sim, resolved, secs, quantile)
    return data_size(sim, resolved, secs, quantile, grow_datamemory)


def _window(question: str, window: float | str | None) -> float | None:
    """The restart window in seconds: required by the window questions, optional for update-rate,
    refused by redo-log."""
    from ndbsim.input.units import parse_duration

    if question not in WINDOW_QUESTIONS:
        if window is not None and question != "update-rate":
            raise InputError(f"{question} takes no window; remove --window", field="--window")
        if window is None:
            return None
    elif window is None:
        raise InputError(f"{question} needs a restart window; add e.g. --window 10m", field="--window")
    try:
        secs = parse_duration(window)
    except InputError as e:  # the unit parser knows no field: this value is --window's
        raise InputError(e.message, field="--window") from None
    if not secs > 0 or not math.isfinite(secs):
        raise InputError(f"{window!r} is not a window; give a duration such as 10m", field="--window")
    return secs


ONLY = {
    "param": ("redo-log", "--param"),
    "margin": ("redo-log", "--margin"),
    "grow_datamemory": ("data-size", "--grow-datamemory"),
}
"""Options that belong to one question: option -> (the question, its command-line name)."""


def _only(question: str, **given: Any) -> None:
    """An option given to a question it does not belong to is an error naming it."""
    for key, value in given.items():
        owner, flag = ONLY[key]
        if value not in (None, False) and question != owner:
            raise InputError(f"{question} takes no {flag} (it is {owner}'s); remove it", field=flag)


def _margin(margin: float | str | None) -> float:
    """The REDO margin as a fraction: a number, or text such as ``33%`` or ``0.33``."""
    from ndbsim.studies.solve.redo_log import REDO_MARGIN

    if margin is None:
        return REDO_MARGIN
    if isinstance(margin, str):
        text = margin.strip()
        try:
            return float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            raise InputError(f"{margin!r} is not a margin; give e.g. 33% or 0.33", field="--margin") from None
    return float(margin)
