"""``ndbsim advise``: what would make a restart faster, ranked, with each change's price."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ndbsim.cli.options import (
    CONFIG_INI_OPTION,
    CONSTANTS_OPTION,
    EXIT_NOT_MADE_IT,
    RELEASE_OPTION,
    SCENARIO_ARGUMENT,
    STUDY_FORMAT_OPTION,
    STUDY_REPLICATIONS_OPTION,
    STUDY_SEED_OPTION,
    STUDY_SET_OPTION,
    WORKERS_OPTION,
    add_commands,
    check_chart,
    check_workers,
    emit,
    run_warnings,
    study_base,
    study_json,
    use_constants,
    warn,
    with_config_ini,
    wrote,
)
from ndbsim.errors import InputError

COMBINE_ALL_OPTION = typer.Option(
    False,
    "--combine-all",
    help="Let the best combination take hardware, workload and release levers too (default: config.ini's only).",
)
"""Whether the best combination draws from both lists of levers."""


def register(app: typer.Typer) -> None:
    """Add ``advise`` to the command line."""
    add_commands(app, advise)


def advise(
    scenario: Path | None = SCENARIO_ARGUMENT,
    set_: list[str] = STUDY_SET_OPTION,
    lever: list[str] = typer.Option(
        [], "--lever", "-l", metavar="NAME", help="Try only this lever (repeatable; default: all)."
    ),
    combine_all: bool = COMBINE_ALL_OPTION,
    format: str = STUDY_FORMAT_OPTION,
    chart: Path | None = typer.Option(
        None, "--chart", metavar="CHART.png", help="Also draw a tornado chart (.png, .svg or .pdf)."
    ),
    replications: int | None = STUDY_REPLICATIONS_OPTION,
    seed: int | None = STUDY_SEED_OPTION,
    workers: int | None = WORKERS_OPTION,
    config_ini: Path | None = CONFIG_INI_OPTION,
    release: str | None = RELEASE_OPTION,
    output: Path | None = typer.Option(
        None, "--output", "-o", metavar="FILE", help="Write the table or JSON to FILE (default: standard output)."
    ),
    constants: Path | None = CONSTANTS_OPTION,
) -> None:
    """Rank what would make this restart faster, with each change's price and the best combination.
    Exit 4 when the restart as given would not finish (the ranking is still printed)."""
    import json

    from ndbsim.output.io import stdout_if_dash
    from ndbsim.output.result import json_clean
    from ndbsim.studies.advise.report import advice_table, tornado
    from ndbsim.studies.advise.study import advise_full

    output = stdout_if_dash(output)  # type: ignore[assignment]
    _check_advise(scenario, format, chart, replications, seed, workers, config_ini, output, constants)
    use_constants(constants)
    notes = run_warnings(scenario, config_ini, set_, seed, release)
    source = str(scenario) if scenario else None
    a = advise_full(
        study_base(scenario, config_ini, release, set_)[0],
        overrides=set_,
        levers=lever,
        seed=seed,
        replications=replications,
        workers=workers,
        progress=sys.stderr.isatty(),
        source=source,
        combine_all=combine_all,
    )
    warn(notes)
    if format == "json":
        data = study_json(a.to_dict(), notes, config_ini)
        text = json.dumps(json_clean(data), indent=2) + "\n"
    else:
        text = with_config_ini(advice_table(a), config_ini, release)
    if chart is not None:
        tornado(a, chart)
        wrote(chart)
    emit(text, output, fitted=format != "json")
    if a.base.status != "ok":
        raise typer.Exit(EXIT_NOT_MADE_IT)


def _check_advise(
    scenario: Path | None,
    format: str,
    chart: Path | None,
    replications: int | None,
    seed: int | None,
    workers: int | None,
    config_ini: Path | None,
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
    check_chart(chart, "--chart", "advise.png")
    check_not_inputs(
        {"--output": output, "--chart": chart},
        {"scenario": scenario, "--config-ini": config_ini, "--constants": constants},
    )
