"""What ``ndbsim solve`` answers: an ``Answer`` (the value, the runs that verify it) and its
table and JSON forms."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ndbsim.input.units import format_secs
from ndbsim.studies.runs import VariantRun
from ndbsim.studies.solve.search import quantile_total


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
    label: str = "answer"
    """How the text names the value: ``answer``, or ``recommended`` for a size with a margin."""
    redo_fill: bool = True
    """Whether each run's description gives its REDO peak as a share of the log: every answer's
    margin (``search.REDO_ANSWER_FILL``)."""
    recommended: Answer | None = None
    """A second answer with a margin over this one (redo-log's recommended size)."""
    plans: list[dict[str, Any]] = field(default_factory=list)
    """plan: every plan run, safest first, with its window and single-replica exposure."""
    quantile: float = 0.5
    """The quantile of the total the question was asked for (``--quantile``): every run's line
    shows its total at it."""

    def to_dict(self) -> dict[str, Any]:
        from ndbsim.output.result import json_clean

        def o(x: VariantRun | None) -> dict[str, Any] | None:
            if x is None:
                return None
            return {
                "set": list(x.sets),
                "total_restart_secs": x.median,
                "quantile_total_secs": quantile_total(x, self.quantile),
                "interval": x.interval or None,
                "status": x.status,
                "reason": x.reason,
            }

        return json_clean(
            {
                "question": self.question,
                "target": self.target,
                "quantile": self.quantile,
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
                **({"recommended": self.recommended.to_dict()} if self.recommended is not None else {}),
                **({"plans": self.plans} if self.plans else {}),
            }
        )

    def text(self, source: str | None = None) -> str:
        import shlex

        scen = f"{shlex.quote(source)} " if source else ""
        lines = [f"{self.question}: {self.target}", *self._lines()]
        sets = " ".join(f"--set {shlex.quote(x)}" for x in (*self.overrides, *self.sets))
        lines.append(
            f"  ({self.runs} run{'s' if self.runs != 1 else ''} of {self.replications} replications; "
            f"check: ndbsim run {scen}-n {self.replications} --seed {self.seed} {sets})"
        )
        if self.recommended is not None:
            rec = self.recommended
            lines += [f"margin: {rec.target}", *rec._lines()]
            sets = " ".join(f"--set {shlex.quote(x)}" for x in (*self.overrides, *rec.sets))
            lines.append(f"  (check: ndbsim run {scen}-n {self.replications} --seed {self.seed} {sets})")
        return "\n".join(lines) + "\n"

    def _lines(self) -> list[str]:
        """The value, its run, the run a step away and the notes."""
        verdict = {True: "meets the target", False: "misses it", None: ""}
        lines = [
            f"{self.label}: {self.parameter} = {self.shown}",
            f"  run with it: {_describe(self.outcome, self.quantile, self.redo_fill)} -> {verdict[self.passed]}",
        ]
        if self.short_outcome is not None:
            lines.append(
                f"  {self.short_label} ({self.short}): {_describe(self.short_outcome, self.quantile, self.redo_fill)} "
                f"-> {verdict[self.short_passed]}"
            )
        else:
            lines.append(f"  {self.short_label}: {self.short}")
        if self.plans:
            lines.append("  plans run (safest first):")
            at = "" if self.quantile == 0.5 else f"p{100 * self.quantile:g} "
            lines.extend(
                f"    {p['plan']}: {at}{format_secs(p['window_secs'])}, {p['status']}"
                + ("" if p["plan"] in ("one-at-a-time", "per-node-group") else f" ({p['description']})")
                + f"; {p['exposure']} -> {'fits' if p['fits'] else 'misses'}"
                for p in self.plans
            )
        return lines + [f"  note: {n}" for n in self.notes]


def _fill_text(fill: float) -> str:
    """A REDO peak's share of the log to a tenth of a percent, or to a hundredth where the tenth
    would read as the answers' limit (``REDO_ANSWER_FILL``) on the wrong side of it."""
    from ndbsim.studies.solve.search import REDO_ANSWER_FILL

    text = f"{fill:.1%}"
    if text == f"{REDO_ANSWER_FILL:.1%}" and fill != REDO_ANSWER_FILL:
        text = f"{fill:.2%}"
    return text


def _describe(o: VariantRun, q: float = 0.5, redo_fill: bool = True) -> str:
    """A run as an answer's line shows it: its total at the quantile asked for (``p95 19m16s``;
    the median bare), its status and what its run warns that bears on the answer."""
    also = ", and error 410" if o.redo_overloaded and o.status != "redo-overload" else ""
    if o.data_memory_full:
        also += ", inserts fill DataMemory (error 827)"
    if redo_fill and math.isfinite(o.redo_peak_fill):
        also += f", REDO peak {_fill_text(o.redo_peak_fill)} of the log"
    total = format_secs(quantile_total(o, q))
    if q != 0.5:
        total = f"p{100 * q:g} {total}"
    if o.status == "ok":
        return f"{total}, ok{also}"
    return f"{total}, {o.status_flag or o.status}{also}"
