"""``ndbsim advise``: what would make a restart faster, ranked, with each change's price."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ndbsim.cli.options import CHART_SUFFIXES, CONSTANTS_OPTION, EXIT_NOT_MADE_IT, check_workers, emit, use_constants
from ndbsim.errors import InputError


def register(app: typer.Typer) -> None:
    """Add ``advise`` to the command line."""
    app.command()(advise)


def advise(
    scenario: Path | None = typer.Argument(None, help="Scenario YAML; omit for the built-in default."),
    set_: list[str] = typer.Option([], "--set", "-s", help="Override a key first: dotted.path=value (repeatable)."),
    lever: list[str] = typer.Option([], "--lever", "-l", help="Try only this lever (repeatable); default: all."),
    format: str = typer.Option("table", "--format", "-f", help="table or json."),
    chart: Path | None = typer.Option(None, "--chart", help="Write a tornado chart (.png, .svg or .pdf)."),
    replications: int | None = typer.Option(None, "--replications", "-n", help="Replications per candidate."),
    seed: int | None = typer.Option(None, "--seed", help="Root seed (default: the scenario's)."),
    workers: int | None = typer.Option(None, "--workers", "-w", help="Local worker processes (default: all cores)."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the table or JSON to a file."),
    constants: Path | None = CONSTANTS_OPTION,
) -> None:
    """Rank what would make this restart faster, with each change's price and the best combination.
    Exit 4 when the restart as given would not finish (the ranking is still printed)."""
    import json

    from ndbsim.output.result import json_clean
    from ndbsim.studies.advise import advise_full
    from ndbsim.studies.advise_report import advice_table, tornado

    _check_advise(scenario, format, chart, replications, seed, workers, output, constants)
    use_constants(constants)
    source = str(scenario) if scenario else None
    a = advise_full(
        scenario,
        overrides=set_,
        levers=lever,
        seed=seed,
        replications=replications,
        workers=workers,
        progress=sys.stderr.isatty(),
        source=source,
    )
    text = json.dumps(json_clean(a.to_dict()), indent=2) + "\n" if format == "json" else advice_table(a)
    if chart is not None:
        tornado(a, chart)
    emit(text, output)
    if a.base.status != "ok":
        raise typer.Exit(EXIT_NOT_MADE_IT)


def _check_advise(
    scenario: Path | None,
    format: str,
    chart: Path | None,
    replications: int | None,
    seed: int | None,
    workers: int | None,
    output: Path | None,
    constants: Path | None,
) -> None:
    """Every option of ``advise`` checked before any run (bad ones exit 2, nothing written)."""
    from ndbsim.input.scenario import check_run_counts
    from ndbsim.output.io import check_not_inputs, check_output_path

    if format not in ("table", "json"):
        raise InputError(f"{format!r} is not a format; use table or json", field="--format")
    check_run_counts(seed, replications)
    check_workers(workers)
    check_output_path(output, "--output")
    if chart is not None:
        check_output_path(chart, "--chart")
        if chart.suffix.lower() not in CHART_SUFFIXES:
            raise InputError(
                f"{str(chart)!r} has no .png, .svg or .pdf suffix; name the chart e.g. advise.png", field="--chart"
            )
    check_not_inputs({"--output": output, "--chart": chart}, {"scenario": scenario, "--constants": constants})
