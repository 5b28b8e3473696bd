"""``ndbsim eta``: during a restart, how long still — from a snapshot of the cluster's ndbinfo, or
from the ``mysql`` client run every interval (``--watch``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from ndbsim.cli.help import SET_HELP
from ndbsim.cli.options import add_commands
from ndbsim.errors import InputError
from ndbsim.output.stdout import fit

FORMATS = ("table", "json")
"""Output formats of ``ndbsim eta --format``."""


TEXTFILE_OPTION = typer.Option(
    None,
    "--prometheus-textfile",
    metavar="FILE.prom",
    help="After every snapshot, replace FILE.prom (atomically) with the ETA as Prometheus metrics, for "
    "node_exporter's textfile collector. Needs ndbsim[prometheus].",
)

MAX_FAILURES_OPTION = typer.Option(
    None,
    "--max-failures",
    metavar="N",
    help="With --watch: stop (exit 2, the client's message) after N snapshots in a row the mysql client "
    "failed to take (default: 5); each failure is one line and the next interval tries again.",
)


def register(app: typer.Typer) -> None:
    """Add ``eta`` to the command line."""
    add_commands(app, eta)


def eta(
    scenario: Path = typer.Argument(..., metavar="SCENARIO.yaml", help="The restarting cluster's scenario."),
    mysql_args: list[str] = typer.Argument(
        None, metavar="[-- MYSQL OPTIONS]", help="With --watch: the mysql client's options (--defaults-file=FILE)."
    ),
    ndbinfo: Path | None = typer.Option(
        None, "--ndbinfo", metavar="SNAPSHOT.tsv", help="A snapshot: mysql --batch output of ndbinfo-sql --snapshot."
    ),
    watch_every: str | None = typer.Option(
        None, "--watch", metavar="INTERVAL", help="Take a snapshot through the mysql client every INTERVAL (30s)."
    ),
    client: str = typer.Option("mysql", "--mysql", metavar="PATH", help="The mysql client to run with --watch."),
    set_: list[str] = typer.Option([], "--set", "-s", metavar="KEY=VALUE", help=SET_HELP),
    replications: int | None = typer.Option(
        None, "--replications", "-n", metavar="N", help="Replications of what is left (default: 10, or the scenario's)."
    ),
    seed: int | None = typer.Option(None, "--seed", metavar="N", help="Root seed (default: the scenario's)."),
    format: str = typer.Option("table", "--format", "-f", metavar="[table|json]", help="Output format."),
    textfile: Path | None = TEXTFILE_OPTION,
    max_failures: int | None = MAX_FAILURES_OPTION,
) -> None:
    """How long the restart still takes: each node done, restarting (which phase, how long) or
    waiting; the ends of the restarting node, its wave and the plan with p5-p95, refitted on the
    phases the cluster has finished. Exit 0 (with --watch: when the restart completes), 2 on bad
    input, 4 with --watch when it runs past the predicted p99 window by run --timeouts' margin.
    Needs ndbsim[calibrate] (scipy) for the refit."""
    from ndbsim.extras import require
    from ndbsim.input.scenario import check_run_counts
    from ndbsim.studies.eta.session import open_session

    _check_args(format, ndbinfo, watch_every, bool(mysql_args), max_failures)
    check_run_counts(seed, replications)
    require("scipy")  # the refit's, before a --watch starts taking snapshots
    if textfile is not None:
        _check_textfile(textfile, scenario, ndbinfo)
    session = open_session(scenario, replications, seed, set_)
    if ndbinfo is not None:
        from ndbsim.input.snapshot.read import read_snapshot

        result = session.update(read_snapshot(ndbinfo))
        _show(result, format, str(scenario), tty=False)
        if textfile is not None:
            from ndbsim.studies.eta.metrics import restart_status, write_textfile

            write_textfile(textfile, result, restart_status(result, overrun=False))
        return
    _watch(session, watch_every or "", client, list(mysql_args or []), format, str(scenario), textfile, max_failures)


def _check_args(
    format: str, ndbinfo: Path | None, watch_every: str | None, mysql_args: bool, max_failures: int | None
) -> None:
    if format not in FORMATS:
        raise InputError(f"{format!r} is not a format of eta; use table or json", field="--format")
    if (ndbinfo is None) == (watch_every is None):
        raise InputError(
            "give a snapshot (--ndbinfo snapshot.tsv) or --watch INTERVAL, one of the two", field="--ndbinfo"
        )
    if mysql_args and watch_every is None:
        raise InputError("they go with --watch only; drop them or add --watch 30s", field="mysql options")
    if max_failures is not None and max_failures < 1:
        raise InputError(
            f"{max_failures} is not a number of failures; give 1 or more (default 5)", field="--max-failures"
        )


def _check_textfile(textfile: Path, scenario: Path, ndbinfo: Path | None) -> None:
    """Before any work: the extra, a writable path not an input, named as the collector reads it."""
    from ndbsim.extras import require
    from ndbsim.output.io import check_not_inputs, check_output_path
    from ndbsim.studies.eta.metrics import OPTION

    require("prometheus_client", field=OPTION)
    if textfile.suffix != ".prom":
        raise InputError(
            f"{str(textfile)!r} does not end in .prom, and node_exporter's textfile collector reads only *.prom "
            "files; name it e.g. ndbsim.prom",
            field=OPTION,
        )
    check_output_path(textfile, OPTION)
    check_not_inputs({OPTION: textfile}, {"scenario": scenario, "snapshot": ndbinfo})


def _show(result: object, format: str, scenario: str, tty: bool, line: bool = False) -> None:
    from ndbsim.studies.eta import report

    if format == "json":
        text = report.to_json(result, compact=line)  # type: ignore[arg-type]
    elif line:
        text = report.format_line(result) + "\n"  # type: ignore[arg-type]
    else:
        text = report.format_text(result, scenario)  # type: ignore[arg-type]
    if format != "json":
        text = fit(text)
    if tty and format != "json":
        text = "\x1b[2J\x1b[H" + report.bar(result) + "\n" + text  # type: ignore[arg-type]
    sys.stdout.write(text)
    sys.stdout.flush()


def _watch(
    session: object,
    every: str,
    client: str,
    args: list[str],
    format: str,
    scenario: str,
    textfile: Path | None,
    max_failures: int | None,
) -> None:
    from ndbsim.input.units import parse_duration
    from ndbsim.studies.eta.watch import MAX_FAILURES, check_client_args, take_snapshot, watch

    try:
        interval = parse_duration(every)
    except (InputError, ValueError):
        raise InputError(f"{every!r} is not a duration; give e.g. 30s or 1m", field="--watch") from None
    if not interval > 0:
        raise InputError(f"{every!r} is not a positive interval; give e.g. 30s", field="--watch")
    check_client_args(args)
    tty = sys.stdout.isatty()
    publish = None
    if textfile is not None:
        from ndbsim.studies.eta.metrics import restart_status, write_textfile

        def publish(eta: Any, overrun: bool, failures: int) -> None:
            write_textfile(textfile, eta, restart_status(eta, overrun), failures)

    outcome = watch(
        session,  # type: ignore[arg-type]
        lambda n: take_snapshot(client, args, max(interval, 30.0), n),
        interval,
        lambda e: _show(e, format, scenario, tty, line=not tty),
        max_failures=MAX_FAILURES if max_failures is None else max_failures,
        publish=publish,
    )
    sys.stderr.write(fit(f"ndbsim: {outcome.message}", stream=sys.stderr) + "\n")
    raise typer.Exit(outcome.code)
