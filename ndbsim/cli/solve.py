"""``ndbsim solve``: an inverse question (the REDO log, update rate, LCP speed or data size that
fits) answered by root finding on the simulation and verified by runs."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ndbsim.cli.options import CONSTANTS_OPTION, use_constants
from ndbsim.errors import InputError


def register(app: typer.Typer) -> None:
    """Add ``solve`` to the command line."""
    app.command()(solve)


def solve(
    question: str = typer.Argument(..., help="redo-log, update-rate, lcp-speed, data-size or plan."),
    scenario: Path | None = typer.Argument(None, help="Scenario YAML; omit for the built-in default."),
    window: str | None = typer.Option(
        None, "--window", help="Restart window for lcp-speed, data-size and plan, e.g. 10m."
    ),
    param: str | None = typer.Option(
        None, "--param", help="redo-log: FragmentLogFileSize instead of NoOfFragmentLogFiles."
    ),
    quantile: float = typer.Option(0.5, "--quantile", help="Which total must fit the window: 0.5 median, 0.95 p95."),
    set_: list[str] = typer.Option([], "--set", "-s", help="Override a key first: dotted.path=value (repeatable)."),
    replications: int | None = typer.Option(None, "--replications", "-n", help="Replications per run."),
    seed: int | None = typer.Option(None, "--seed", help="Root seed (default: the scenario's)."),
    format: str = typer.Option("table", "--format", "-f", help="table or json."),
    constants: Path | None = CONSTANTS_OPTION,
) -> None:
    """Answer an inverse question by root finding on the simulation, verified by runs."""
    import json

    from ndbsim.input.scenario import check_run_counts
    from ndbsim.studies.solve import solve as answer

    if format not in ("table", "json"):
        raise InputError(f"{format!r} is not a format; use table or json", field="--format")
    check_run_counts(seed, replications)
    use_constants(constants)
    source = str(scenario) if scenario else None
    a = answer(
        question,
        scenario,
        window=window,
        param=param,
        quantile=quantile,
        overrides=set_,
        seed=seed,
        replications=replications,
        source=source,
    )
    sys.stdout.write(json.dumps(a.to_dict(), indent=2) + "\n" if format == "json" else a.text(source))
