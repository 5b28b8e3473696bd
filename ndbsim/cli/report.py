"""``ndbsim report``: a scenario's run, its advice and its timeouts as one self-contained HTML
file to hand over (ndbsim/output/report.py)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from ndbsim.cli.help import SET_HELP
from ndbsim.cli.options import (
    CONFIG_INI_OPTION,
    CONSTANTS_OPTION,
    EXIT_NOT_MADE_IT,
    RELEASE_OPTION,
    SCENARIO_ARGUMENT,
    WORKERS_OPTION,
    add_commands,
    check_workers,
    use_constants,
    warn,
    wrote,
)
from ndbsim.errors import InputError

if TYPE_CHECKING:
    from ndbsim.models.load import Loaded

REPORT_REPLICATIONS = 20
"""Replications of the report's run unless ``-n`` or the scenario asks for more: enough for a
p95 and a p99 between real runs (the timeouts read them), in about a second (ndbsim's choice)."""
ADVISE_REPLICATIONS = 3
"""Replications per advise candidate in the report unless ``--advise-replications``: the
ranking's order is settled by the paired seeds, and 3 keeps the whole report within seconds
(``ndbsim advise`` defaults to 10 for a steadier p5..p95 of each saving)."""


def register(app: typer.Typer) -> None:
    """Add ``report`` to the command line."""
    add_commands(app, report)


def report(
    scenario: Path | None = SCENARIO_ARGUMENT,
    output: Path = typer.Option(..., "--output", "-o", metavar="REPORT.html", help="The HTML file to write."),
    set_: list[str] = typer.Option([], "--set", "-s", metavar="KEY=VALUE", help=SET_HELP),
    config_ini: Path | None = CONFIG_INI_OPTION,
    release: str | None = RELEASE_OPTION,
    replications: int | None = typer.Option(
        None,
        "--replications",
        "-n",
        metavar="N",
        help=f"Replications of the run (default: {REPORT_REPLICATIONS}, or the scenario's if more).",
    ),
    seed: int | None = typer.Option(None, "--seed", metavar="N", help="Root seed (default: the scenario's)."),
    advise_replications: int = typer.Option(
        ADVISE_REPLICATIONS, "--advise-replications", metavar="N", help="Replications per advise candidate."
    ),
    lever: list[str] = typer.Option(
        [], "--lever", "-l", metavar="NAME", help="Advise only this lever (repeatable; default: all)."
    ),
    no_advise: bool = typer.Option(False, "--no-advise", help="Leave out the advise section (faster)."),
    workers: int | None = WORKERS_OPTION,
    constants: Path | None = CONSTANTS_OPTION,
) -> None:
    """Write one self-contained HTML report: what was simulated and defaulted, the phases, the
    Gantt chart, the schedule, the top advise levers with their prices, the timeouts to set and
    the warnings. Exit 4 when the restart would not finish (the report is still written)."""
    _check_report(scenario, output, replications, seed, advise_replications, workers, config_ini, constants)
    use_constants(constants)
    from ndbsim.models.load import load

    loaded = load(scenario, config_ini=config_ini, overrides=set_, rows_fix="add --set data.rows=null", version=release)
    n = replications or max(REPORT_REPLICATIONS, loaded.model.settings(loaded.prepared).simulation.replications)
    result = loaded.run(seed, n, explained=False)
    from ndbsim.output.result import Result

    if not isinstance(result, Result):  # the page shows restart_info phases of data nodes
        raise InputError("ndbsim report is for NDB data-node restarts; use ndbsim run for InnoDB", field="scenario")
    changes = [f"--version {release}"] if release else []
    changes += ([f"--config-ini {config_ini}"] if config_ini else []) + [f"--set {a.strip()}" for a in set_]
    loaded.model.annotate(result, loaded.prepared, loaded.origins, loaded.notes, changes)
    advice = None if no_advise else _advice(loaded, lever, result.seed, advise_replications, workers)
    _write(
        result,
        advice,
        _timeouts(loaded, result),
        _command(scenario, config_ini, release, set_, n, result.seed, output),
        output,
    )
    warn([*result.warnings, *loaded.notes])
    if result.status != "ok":
        raise typer.Exit(EXIT_NOT_MADE_IT)


def _advice(loaded: Loaded, levers: list[str], seed: int, n: int, workers: int | None) -> dict[str, Any]:
    """advise on the report's scenario as run (its config.ini and --set already laid over it)
    and seed, as plain figures."""
    import copy

    from ndbsim.studies.advise.study import advise_full

    a = advise_full(
        copy.deepcopy(loaded.raw),
        levers=levers,
        seed=seed,
        replications=n,
        workers=workers,
        progress=sys.stderr.isatty(),
        source=loaded.source,
    )
    return a.to_dict()


def _timeouts(loaded: Loaded, result: Any) -> dict[str, Any]:
    """The timeouts to set, covering every restart type a node can start with (as run --timeouts)."""
    from ndbsim.output.timeouts import timeouts
    from ndbsim.studies.starts import configured_timeouts, other_starts

    starts = other_starts(loaded, result.restart_type, result.seed, len(result.node_start_secs()))
    return timeouts(result, starts, configured_timeouts(loaded))


def _write(result: Any, advice: dict[str, Any] | None, timeouts: dict[str, Any], command: str, output: Path) -> None:
    from ndbsim.cli.help import package_version
    from ndbsim.output.io import atomic_write_text
    from ndbsim.output.report import chart_uri, render

    page = render(result, advice, timeouts, chart_uri(result), command, package_version())
    atomic_write_text(output, page)
    wrote(output)


def _command(
    scenario: Path | None,
    config_ini: Path | None,
    release: str | None,
    sets: list[str],
    n: int,
    seed: int,
    output: Path,
) -> str:
    """The command that writes this report again."""
    words = ["ndbsim", "report"]
    words += [str(scenario)] if scenario else []
    words += ["--config-ini", str(config_ini)] if config_ini else []
    words += ["--version", release] if release else []
    for s in sets:
        words += ["--set", s.strip()]
    words += ["-n", str(n), "--seed", str(seed), "-o", Path(output).name]
    return shlex.join(words)


def _check_report(
    scenario: Path | None,
    output: Path,
    replications: int | None,
    seed: int | None,
    advise_replications: int,
    workers: int | None,
    config_ini: Path | None,
    constants: Path | None,
) -> None:
    """Every option checked before any work (bad ones exit 2, nothing written)."""
    from ndbsim.input.scenario import check_run_counts
    from ndbsim.output.io import check_not_inputs, check_output_path

    check_run_counts(seed, replications)
    check_run_counts(None, advise_replications)
    check_workers(workers)
    check_output_path(output, "--output")
    if output.suffix.lower() not in (".html", ".htm"):
        raise InputError(f"{str(output)!r} is not an .html file; name it e.g. report.html", field="--output")
    check_not_inputs({"--output": output}, {"scenario": scenario, "--config-ini": config_ini, "--constants": constants})
