"""The gate's power: which counted ``ndbsim check`` figures fail when one fitted constant is off by a
factor of two. A check that passes whatever a constant is says nothing of it; calibration/README
quotes the table this writes (between ``BEGIN`` and ``END``):

    python -m ndbsim.studies.uncertainty.gate_power            # print the table
    python -m ndbsim.studies.uncertainty.gate_power --write    # rewrite calibration/README's table
    python -m ndbsim.studies.uncertainty.gate_power --check    # exit 1 when README's table is stale

Each row runs the counted (fit and validate) NDB cases once with the packaged constants and that
one constant scaled, and judges each figure by ``check``'s rule (its point, or the published run
inside the spread over the LCP cycle); the sensitivity columns and the claims are not re-run (they
never gate on the constants). InnoDB's two constants are fitted and checked apart (its own cases)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from ndbsim.input.profiles import Constants
from ndbsim.input.profiles.calibrated import calibrated_constants
from ndbsim.studies.calibration.calibrate import FITTED
from ndbsim.studies.calibration.cases import DEFAULT_DIR, Case, compare, figures_of, load_cases, run_case
from ndbsim.studies.calibration.check import Checked, _spread

FACTORS = (0.5, 2.0)
"""Each constant is scaled by these, one at a time."""

README = DEFAULT_DIR / "README.md"
BEGIN = "<!-- gate-power: python -m ndbsim.studies.uncertainty.gate_power --write -->"
END = "<!-- /gate-power -->"


def _judged(case: Case, constants: Constants) -> list[Checked]:
    """``check_case``'s judgments of the counted figures, without the sensitivity runs."""
    result = run_case(case, constants)
    out = []
    for row in compare(case, figures_of(case, result)):
        if row.info:
            continue
        p5, p95, pct = _spread(result, row)
        out.append(Checked(row, row.predicted, row.predicted, 1, None, p5, p95, pct, True))
    return out


def failing(cases: list[Case], constants: Constants) -> list[str]:
    """The counted figures (``case: figure``) outside ``check``'s rule with ``constants``."""
    return [f"{c.row.case}: {c.row.label}" for case in cases for c in _judged(case, constants) if not c.ok]


def counted(directory: Path | str = DEFAULT_DIR) -> list[Case]:
    """The NDB cases ``check`` counts (fit and validate, not the imported or InnoDB ones)."""
    return [c for c in load_cases(directory) if c.gates and c.model.constants_file is None]


def power(directory: Path | str = DEFAULT_DIR) -> dict[str, dict[float, list[str]]]:
    """Per fitted constant and factor, the counted figures that fail."""
    cases = counted(directory)
    base = calibrated_constants("")
    return {n: {f: failing(cases, replace(base, **{n: getattr(base, n) * f})) for f in FACTORS} for n in FITTED}


def _cell(fails: list[str]) -> str:
    if not fails:
        return "**none**"
    shown = ", ".join(f.replace("secs_", "").replace("_restart_secs", "") for f in fails[:3])
    return shown + (f" (+{len(fails) - 3})" if len(fails) > 3 else "")


def table(found: dict[str, dict[float, list[str]]]) -> str:
    """The markdown table README quotes: per constant, the failing figures at each factor."""
    lines = [
        "| constant | " + " | ".join(f"×{f:g}: figures failing" for f in FACTORS) + " |",
        "|---|" + "---|" * len(FACTORS),
    ]
    for n, by in found.items():
        lines.append(f"| {n} | " + " | ".join(f"{len(by[f])}: {_cell(by[f])}" for f in FACTORS) + " |")
    return "\n".join(lines) + "\n"


def with_table(text: str, tab: str) -> str:
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[:start] + "\n" + tab + text[end:]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    tab = table(power())
    text = README.read_text(encoding="utf-8")
    if "--write" in argv:
        README.write_text(with_table(text, tab), encoding="utf-8")
        print(f"wrote {README}'s gate-power table", file=sys.stderr)
        return 0
    if "--check" in argv:
        stale = with_table(text, tab) != text
        state = "stale: run with --write" if stale else "up to date"
        print(f"{README.name}'s gate-power table is {state}", file=sys.stderr)
        return 1 if stale else 0
    sys.stdout.write(tab)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
