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
"""The questions that need a restart window (``--window``)."""


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
    """Answer one inverse question (``QUESTIONS``) for a scenario; see the package docstring.

    ``window`` (seconds, or a duration such as ``"10m"``) is the restart window of the window
    questions; ``quantile`` says which total must fit it (0.5: the median, 0.95: p95).
    ``param`` picks FragmentLogFileSize instead of NoOfFragmentLogFiles for ``redo-log``.
    """
    from ndbsim.input import scenario as sc
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
    secs = _window(question, window)
    if param is not None and question != "redo-log":
        raise InputError(f"{question} takes no --param; remove it", field="--param")
    sim = Sim(raw, seed, n)
    if question == "redo-log":
        ans = redo_log(sim, resolved, param or "NoOfFragmentLogFiles")
    elif question == "update-rate":
        ans = update_rate(sim, resolved)
    elif question == "lcp-speed":
        assert secs is not None  # a window question has one (checked above)
        ans = lcp_speed(sim, resolved, secs, quantile)
    elif question == "plan":
        assert secs is not None
        ans = plan(sim, resolved, secs, quantile)
    else:
        assert secs is not None
        ans = data_size(sim, resolved, secs, quantile)
    ans.runs = len(sim.cache)
    ans.overrides = tuple(overrides)
    ans.seed, ans.replications = seed, n
    return ans


def _window(question: str, window: float | str | None) -> float | None:
    """The restart window in seconds: required by the window questions, refused by the others."""
    from ndbsim.input.units import parse_duration

    if question not in WINDOW_QUESTIONS:
        if window is not None:
            raise InputError(f"{question} takes no window; remove --window", field="--window")
        return None
    if window is None:
        raise InputError(f"{question} needs a restart window; add e.g. --window 10m", field="--window")
    secs = parse_duration(window)
    if not secs > 0 or not math.isfinite(secs):
        raise InputError(f"{window!r} is not a window; give a duration such as 10m", field="--window")
    return secs
