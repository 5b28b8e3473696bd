"""What ``ndbsim solve`` answers: an ``Answer`` (the value, the runs that verify it) and its
table and JSON forms."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ndbsim.input.units import format_secs
from ndbsim.studies.runs import VariantRun


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
