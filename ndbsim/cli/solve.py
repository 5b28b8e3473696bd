"""``ndbsim solve``: an inverse question (the REDO log, update rate, LCP speed or data size that
fits) answered by root finding on the simulation and verified by runs."""

from __future__ import annotations

from pathlib import Path

import typer

from ndbsim.cli.options import (
    CONFIG_INI_OPTION,
    CONSTANTS_OPTION,
    RELEASE_OPTION,
    SCENARIO_ARGUMENT,
    STUDY_FORMAT_OPTION,
    STUDY_REPLICATIONS_OPTION,
    STUDY_SEED_OPTION,
    STUDY_SET_OPTION,
    add_commands,
    emit,
    run_warnings,
    study_base,
    study_json,
    use_constants,
    warn,
    with_config_ini,
)
from ndbsim.errors import InputError


def register(app: typer.Typer) -> None:
    """Add ``solve`` to the command line."""
    add_commands(app, solve)


WINDOW_OPTION = typer.Option(
    None,
    "--window",
    metavar="DURATION",
    help="Restart window for lcp-speed, data-size and plan (update-rate: optional), e.g. 10m.",
)
"""The restart window a window question fits."""

PARAM_OPTION = typer.Option(
    None,
    "--param",
    metavar="FragmentLogFileSize",
    help="redo-log: size FragmentLogFileSize instead of NoOfFragmentLogFiles.",
)
"""Which REDO parameter redo-log sizes."""

MARGIN_OPTION = typer.Option(
    None,
    "--margin",
    metavar="PCT",
    help="redo-log: the answer's margin over the REDO peak [default: 67%, the peak at most 60% of the log].",
)
"""redo-log's margin over the REDO peak (the study's default when absent)."""

GROW_DATAMEMORY_OPTION = typer.Option(
    False, "--grow-datamemory", help="data-size: grow DataMemory with the data (default: as configured)."
)
"""data-size: whether DataMemory grows with the data."""

QUANTILE_OPTION = typer.Option(
    0.5,
    "--quantile",
    metavar="Q",
    help=(
        "Which total must fit the window: 0.5 the median (run's restart total), any other the predictive "
        "distribution's quantile (0.95: the p95 of run's predictive p5–p95; a restart that stops in any "
        "replication never fits)."
    ),
    show_default=True,
)
"""Which quantile of the total must fit the window."""

OUTPUT_OPTION = typer.Option(
    None, "--output", "-o", metavar="FILE", help="Write the answer to FILE (default: standard output)."
)
"""Where the answer goes."""


def solve(
    question: str = typer.Argument(..., metavar="QUESTION", help="redo-log, update-rate, lcp-speed, data-size, plan."),
    scenario: Path | None = SCENARIO_ARGUMENT,
    window: str | None = WINDOW_OPTION,
    param: str | None = PARAM_OPTION,
    margin: str | None = MARGIN_OPTION,
    grow_datamemory: bool = GROW_DATAMEMORY_OPTION,
    quantile: float = QUANTILE_OPTION,
    set_: list[str] = STUDY_SET_OPTION,
    replications: int | None = STUDY_REPLICATIONS_OPTION,
    seed: int | None = STUDY_SEED_OPTION,
    format: str = STUDY_FORMAT_OPTION,
    config_ini: Path | None = CONFIG_INI_OPTION,
    release: str | None = RELEASE_OPTION,
    output: Path | None = OUTPUT_OPTION,
    constants: Path | None = CONSTANTS_OPTION,
) -> None:
    """Answer an inverse question by root finding on the simulation, verified by runs. Every answer
    keeps its check run's REDO peak at most 60% of the log (where run warns error 410 is close),
    and data-size's data at most 80% of DataMemory; an answer below the configured value says
    what it gives up."""
    import json

    from ndbsim.studies.solve import solve as answer

    _check_solve(scenario, format, replications, seed, config_ini, output, constants)
    use_constants(constants)
    notes = run_warnings(scenario, config_ini, set_, seed, release)
    source = str(scenario) if scenario else None
    a = answer(
        question,
        study_base(scenario, config_ini, release, set_)[0],
        window=window,
        param=param,
        quantile=quantile,
        overrides=set_,
        seed=seed,
        replications=replications,
        source=source,
        margin=margin,
        grow_datamemory=grow_datamemory,
    )
    warn(notes)
    if format == "json":
        data = study_json(a.to_dict(), notes, config_ini)
        text = json.dumps(data, indent=2) + "\n"
    else:
        text = with_config_ini(a.text(source), config_ini, release)
    emit(text, output, fitted=format != "json")


def _check_solve(
    scenario: Path | None,
    format: str,
    replications: int | None,
    seed: int | None,
    config_ini: Path | None,
    output: Path | None,
    constants: Path | None,
) -> None:
    """The options of ``solve`` the command line checks before any run (the question and its
    window and parameter are the study's to check)."""
    from ndbsim.input.scenario import check_run_counts
    from ndbsim.output.io import check_not_inputs, check_output_path, stdout_if_dash

    if format not in ("table", "json"):
        raise InputError(f"{format!r} is not a format; use table or json", field="--format")
    check_run_counts(seed, replications)
    output = stdout_if_dash(output)  # type: ignore[assignment]
    check_output_path(output, "--output")
    check_not_inputs({"--output": output}, {"scenario": scenario, "--config-ini": config_ini, "--constants": constants})
