"""``ndbsim eta``: during a restart, how long still — from a snapshot of the cluster's ndbinfo, or
from the ``mysql`` client run every interval (``--watch``)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ndbsim.cli.help import SET_HELP
from ndbsim.cli.options import add_commands
from ndbsim.errors import InputError

FORMATS = ("table", "json")
"""Output formats of ``ndbsim eta --format``."""


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
) -> None:
    """How long the restart still takes: each node done, restarting (which phase, how long) or
    waiting; the ends of the restarting node, its wave and the plan with p5-p95, refitted on the
    phases the cluster has finished. Exit 0 (with --watch: when the restart completes), 2 on bad
    input, 4 with --watch when it runs past the predicted p99 window by run --timeouts' margin.
    Needs ndbsim[calibrate] (scipy) for the refit."""
    from ndbsim.extras import require
    from ndbsim.input.scenario import check_run_counts
    from ndbsim.studies.eta.session import open_session

    if format not in FORMATS:
        raise InputError(f"{format!r} is not a format of eta; use table or json", field="--format")
    if (ndbinfo is None) == (watch_every is None):
        raise InputError(
            "give a snapshot (--ndbinfo snapshot.tsv) or --watch INTERVAL, one of the two", field="--ndbinfo"
        )
    if mysql_args and watch_every is None:
        raise InputError("they go with --watch only; drop them or add --watch 30s", field="mysql options")
    check_run_counts(seed, replications)
    require("scipy")  # the refit's, before a --watch starts taking snapshots
    session = open_session(scenario, replications, seed, set_)
    if ndbinfo is not None:
        from ndbsim.input.snapshot.read import read_snapshot

        _show(session.update(read_snapshot(ndbinfo)), format, str(scenario), tty=False)
        return
    _watch(session, watch_every or "", client, list(mysql_args or []), format, str(scenario))


def _show(result: object, format: str, scenario: str, tty: bool, line: bool = False) -> None:
    from ndbsim.studies.eta import report

    if format == "json":
        text = report.to_json(result, compact=line)  # type: ignore[arg-type]
    elif line:
        text = report.format_line(result) + "\n"  # type: ignore[arg-type]
    else:
        text = report.format_text(result, scenario)  # type: ignore[arg-type]
    if tty and format != "json":
        text = "\x1b[2J\x1b[H" + report.bar(result) + "\n" + text  # type: ignore[arg-type]
    sys.stdout.write(text)
    sys.stdout.flush()


def _watch(session: object, every: str, client: str, args: list[str], format: str, scenario: str) -> None:
    from ndbsim.input.units import parse_duration
    from ndbsim.studies.eta.watch import check_client_args, take_snapshot, watch

    try:
        interval = parse_duration(every)
    except (InputError, ValueError):
        raise InputError(f"{every!r} is not a duration; give e.g. 30s or 1m", field="--watch") from None
    if not interval > 0:
        raise InputError(f"{every!r} is not a positive interval; give e.g. 30s", field="--watch")
    check_client_args(args)
    tty = sys.stdout.isatty()
    outcome = watch(
        session,  # type: ignore[arg-type]
        lambda n: take_snapshot(client, args, max(interval, 30.0), n),
        interval,
        lambda e: _show(e, format, scenario, tty, line=not tty),
    )
    sys.stderr.write(f"ndbsim: {outcome.message}\n")
    raise typer.Exit(outcome.code)
