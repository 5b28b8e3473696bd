"""``ndbsim run``: one scenario, simulated, as a phase table, JSON or CSV (and a Gantt chart)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from ndbsim.cli.help import RELEASE_HELP, SET_HELP
from ndbsim.cli.options import (
    CONFIG_INI_OPTION,
    CONSTANTS_OPTION,
    EXIT_NOT_MADE_IT,
    SCENARIO_ARGUMENT,
    add_commands,
    check_chart,
    emit,
    use_constants,
    warn,
    wrote,
)
from ndbsim.errors import InputError

if TYPE_CHECKING:
    from ndbsim.models.load import Loaded

FORMATS = ("table", "json", "csv")
"""Output formats of ``ndbsim run --format``: the phase table (output/table.py), JSON and CSV
(``Result.to_json`` / ``to_csv``). ``table`` is the default."""


WHY_OPTION = typer.Option(
    False, "--why", help="Under the table, why each phase took its time: bottleneck, quantity, figures."
)
"""``--why``: each phase's why (``output.why``) under the phase table."""


FORMAT_OPTION = typer.Option(
    None,
    "--format",
    "-f",
    metavar="[table|json|csv]",
    help="Output format (default: from --output's .json/.csv suffix, else table).",
)
"""``--format``: table, JSON or CSV."""

GANTT_OPTION = typer.Option(None, "--gantt", metavar="CHART.png", help="Also draw a Gantt chart (.png, .svg or .pdf).")
"""``--gantt``: where the Gantt chart goes."""

REPLICATIONS_OPTION = typer.Option(
    None, "--replications", "-n", metavar="N", help="Replications, for p5/p50/p95 (default: the scenario's, 1)."
)
"""``-n``: replications of the run."""

SEED_OPTION = typer.Option(
    None, "--seed", metavar="N", help="Root seed; 0 draws one and prints it (default: the scenario's, 1)."
)
"""``--seed``: the run's root seed."""

OUTPUT_OPTION = typer.Option(
    None, "--output", "-o", metavar="FILE", help="Write the output to FILE (default: standard output)."
)
"""``-o``: where the result goes."""

TIMEOUTS_OPTION = typer.Option(
    False, "--timeouts", help="Also print the timeouts to set (startup probe, ndb_waiter, config.ini) from p95/p99."
)
"""``--timeouts``: the timeouts to set, from the run's p95/p99."""


def _with_why(text: str, result: Any) -> str:
    """The table with each node's why per phase under it (an NDB result; InnoDB's has none)."""
    if not hasattr(result, "node_ids"):
        return text
    from ndbsim.output.why import why_lines

    nodes = result.to_dict()["nodes"]
    return text + "\n" + "\n".join(why_lines(nodes, {n["node_id"]: n["phases"] for n in nodes}))


def register(app: typer.Typer) -> None:
    """Add ``run`` to the command line."""
    add_commands(app, run)


def run(
    scenario: Path | None = SCENARIO_ARGUMENT,
    set_: list[str] = typer.Option([], "--set", "-s", metavar="KEY=VALUE", help=SET_HELP),
    format: str | None = FORMAT_OPTION,
    gantt: Path | None = GANTT_OPTION,
    replications: int | None = REPLICATIONS_OPTION,
    seed: int | None = SEED_OPTION,
    config_ini: Path | None = CONFIG_INI_OPTION,
    release: str | None = typer.Option(None, "--version", metavar="X.Y.Z", help=RELEASE_HELP),
    output: Path | None = OUTPUT_OPTION,
    constants: Path | None = CONSTANTS_OPTION,
    why: bool = WHY_OPTION,
    timeouts: bool = TIMEOUTS_OPTION,
) -> None:
    """Simulate one restart scenario and print its phase table (or JSON/CSV).

    The predictive p5–p95 under the total (JSON `interval`, each source's `from`) rests on: the
    crash moment (the replications); the constants (the fit's covariance, each constant's prior the
    physical range of its cost from NDB's source); the inputs left at defaults (ranges declared in
    input/data/default_ranges.yaml); the model's error on published restarts it was not fitted on
    (for a release family with none, the leave-one-family-out error). calibration/README.md derives
    each."""
    from ndbsim.models.load import load
    from ndbsim.output.io import stdout_if_dash

    output = stdout_if_dash(output)  # type: ignore[assignment]
    format = _check_run(scenario, format, gantt, replications, seed, config_ini, output, constants)
    if timeouts and format == "csv":
        raise InputError("goes with the table or JSON, not CSV; use --format json", field="--timeouts")
    loaded = load(scenario, config_ini=config_ini, overrides=set_, rows_fix="add --set data.rows=null", version=release)
    if seed == 0:
        import secrets

        seed = secrets.randbelow(2**31 - 1) + 1
        typer.echo(f"ndbsim: seed {seed}", err=True)
    from ndbsim.input.budget import showing_progress

    with showing_progress(sys.stderr.isatty()):
        result = loaded.run(seed, replications, explained=False)
    changes = ([f"--version {release}"] if release else []) + _changes(config_ini, set_)
    loaded.model.annotate(result, loaded.prepared, loaded.origins, loaded.notes, changes)
    text = _render(result, loaded, format, config_ini, set_)
    text = _with_why(text, result) if why and format == "table" else text
    if timeouts:
        text = _with_timeouts(text, result, format, loaded)
    warn([*result.warnings, *loaded.notes, *_start_timeout_warning(result, loaded)])
    if gantt is not None:
        from ndbsim.output.plot import gantt as draw

        draw(result, gantt)
        wrote(gantt)
    emit(text, output, fitted=format == "table")
    if result.status != "ok":
        raise typer.Exit(EXIT_NOT_MADE_IT)


def _check_run(
    scenario: Path | None,
    format: str | None,
    gantt: Path | None,
    replications: int | None,
    seed: int | None,
    config_ini: Path | None,
    output: Path | None,
    constants: Path | None,
) -> str:
    """Every option of ``run`` checked before any work (bad ones exit 2, nothing written); the
    output format it will write."""
    from ndbsim.input.scenario import check_run_counts
    from ndbsim.output.io import check_not_inputs, check_output_path

    format = _run_format(format, output)
    use_constants(constants)
    check_run_counts(seed, replications)
    _announce(replications)
    check_output_path(output, "--output")
    check_chart(gantt, "--gantt", "restart.png")
    check_not_inputs(
        {"--output": output, "--gantt": gantt},
        {"scenario": scenario, "--config-ini": config_ini, "--constants": constants},
    )
    return format


def _render(result: Any, loaded: Loaded, format: str, config_ini: Path | None, sets: list[str]) -> str:
    """The run's output text in ``format`` (``result``: the model's, an NDB or an InnoDB result);
    the table leaves its warnings to stderr, JSON and CSV carry them as fields."""
    if format == "json":
        return result.to_json() + "\n"
    if format == "csv":
        return result.to_csv()
    ini = str(config_ini) if config_ini else None
    return loaded.model.table(result, loaded.notes, sets, ini, warnings=False)


def _with_timeouts(text: str, result: Any, format: str, loaded: Loaded) -> str:
    """The run's output with the timeouts to set: lines under the table, or a ``timeouts`` field;
    they cover every restart type a node can start with (the others run with the same seed)."""
    from ndbsim.input.budget import showing_progress
    from ndbsim.output.timeouts import timeout_lines
    from ndbsim.output.timeouts import timeouts as figures
    from ndbsim.studies.starts import configured_timeouts, other_starts

    figures(result)  # an InnoDB scenario has no data node start: refused before the other runs
    with showing_progress(sys.stderr.isatty()):
        starts = other_starts(loaded, result.restart_type, result.seed, len(result.node_start_secs()))
    t = figures(result, starts, configured_timeouts(loaded))
    if format == "json":
        import json

        from ndbsim.output.result import json_clean

        return json.dumps({**json.loads(text), "timeouts": json_clean(t)}, indent=2) + "\n"
    return text + "\n".join(timeout_lines(t)) + "\n"


def _start_timeout_warning(result: Any, loaded: Loaded) -> list[str]:
    """A StartFailureTimeout from the config.ini that this run's start outlasts (error 6100)."""
    from ndbsim.output.timeouts import stopped_by_start_failure_timeout
    from ndbsim.studies.starts import configured_timeouts

    warning = stopped_by_start_failure_timeout(result, configured_timeouts(loaded))
    return [warning] if warning else []


def _changes(config_ini: Path | None, sets: list[str]) -> list[str]:
    """What changed the scenario in this run, as a title shows it."""
    return ([f"--config-ini {config_ini}"] if config_ini else []) + [f"--set {a.strip()}" for a in sets]


def _announce(replications: int | None) -> None:
    from ndbsim.input.budget import announcement

    notice = announcement(replications or 1, 1, "replications")
    if notice:
        typer.echo(notice, err=True)


def _run_format(format: str | None, output: Path | None) -> str:
    """--format, or the one --output's suffix names (.json, .csv); binary suffixes are refused."""
    by_suffix = {".json": "json", ".csv": "csv"}
    suffix = output.suffix.lower() if output is not None else ""
    if format is not None and format not in FORMATS:
        raise InputError(f"{format!r} is not a format; use one of {', '.join(FORMATS)}", field="--format")
    if suffix in (".xlsx", ".xls", ".parquet", ".pq", ".png", ".svg", ".pdf"):
        raise InputError(
            f"{str(output)!r}: ndbsim run writes text (a table, JSON or CSV); name it .txt, .json or "
            ".csv (charts: --gantt; Parquet: ndbsim sweep)",
            field="--output",
        )
    if format is None:
        return by_suffix.get(suffix, "table")
    if suffix in by_suffix and by_suffix[suffix] != format:
        raise InputError(
            f"{str(output)!r} names {by_suffix[suffix]} but --format is {format}; make them agree", field="--output"
        )
    return format
