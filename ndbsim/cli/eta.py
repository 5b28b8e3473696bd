"""``ndbsim eta``: during a restart, how long still — from a snapshot of the cluster's ndbinfo, or
from the ``mysql`` client run every interval (``--watch``)."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
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


CLUSTER_OPTION = typer.Option(
    None,
    "--cluster",
    metavar="NAME",
    help="The cluster label of every --prometheus-textfile series (default: the scenario's name:), so that "
    "two watches into one textfile folder never collide.",
)

REPLAY_OPTION = typer.Option(
    False,
    "--replay",
    help="A dry run: watch a simulated restart of SCENARIO.yaml (one replication) through the same --watch "
    "path, snapshots and --prometheus-textfile, without a cluster; for wiring the dashboard before the window.",
)

SPEED_OPTION = typer.Option(
    None,
    "--speed",
    metavar="N",
    help="With --replay: play the simulated restart N times as fast as the clock (default: 30).",
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
    cluster: str | None = CLUSTER_OPTION,
    replay: bool = REPLAY_OPTION,
    speed: float | None = SPEED_OPTION,
) -> None:
    """How long the restart still takes: each node done, restarting (which phase, how long) or
    waiting; the ends of the restarting node, its wave and the plan with p5-p95, refitted on the
    phases the cluster has finished. Exit 0 (with --watch: when the restart completes), 2 on bad
    input, 4 with --watch when it runs past the predicted p99 window by run --timeouts' margin.
    --replay [--speed N]: a dry run on a simulated restart of the scenario. Needs ndbsim[calibrate]
    (scipy) for the refit."""
    from ndbsim.extras import require
    from ndbsim.input.scenario import check_run_counts
    from ndbsim.studies.eta.session import open_session

    _check_args(format, ndbinfo, watch_every, bool(mysql_args), max_failures, replay)
    _check_replay(replay, speed, ndbinfo, bool(mysql_args), cluster)
    check_run_counts(seed, replications)
    require("scipy")  # the refit's, before a --watch starts taking snapshots
    if textfile is not None:
        _check_textfile(textfile, scenario, ndbinfo)
    session = open_session(scenario, replications, seed, set_)
    label = cluster if cluster is not None else _cluster_name(session, scenario)
    if textfile is not None:
        from ndbsim.studies.eta.metrics import check_cluster_free

        check_cluster_free(textfile, label)
    if ndbinfo is not None:
        from ndbsim.input.snapshot.read import read_snapshot

        result = session.update(read_snapshot(ndbinfo))
        _show(result, format, str(scenario), tty=False)
        if textfile is not None:
            from ndbsim.studies.eta.metrics import single, write_textfile

            write_textfile(textfile, result, single(label))
        return
    watching = Watching(watch_every or ("30s" if replay else ""), client, list(mysql_args or []), max_failures)
    from ndbsim.studies.eta.dryrun import SPEED

    _watch(session, watching, format, str(scenario), textfile, label, (speed or SPEED) if replay else None, seed)


@dataclass
class Watching:
    """How to watch: every ``every``, through ``client`` with ``args``."""

    every: str
    client: str
    args: list[str]
    max_failures: int | None


def _cluster_name(session: Any, scenario: Path) -> str:
    """The scenario's ``name:``; its file's stem when it has none (the model's default name)."""
    from ndbsim.input.scenario.model import Scenario

    name = str(session.raw.get("name") or "")
    default = Scenario.model_fields["name"].default
    return name if name and name != default else scenario.stem


def _check_replay(
    replay: bool, speed: float | None, ndbinfo: Path | None, mysql_args: bool, cluster: str | None
) -> None:
    if cluster is not None and not cluster.strip():
        raise InputError(
            "an empty cluster label cannot tell clusters apart; give a name, e.g. --cluster prod-eu", field="--cluster"
        )
    if speed is not None and not replay:
        raise InputError("it plays a dry run's clock; add --replay, or drop --speed", field="--speed")
    if speed is not None and not (math.isfinite(speed) and speed > 0):
        raise InputError(f"{speed!r} is not a clock speed; give a number above 0, e.g. --speed 30", field="--speed")
    if replay and (ndbinfo is not None or mysql_args):
        raise InputError(
            "a dry run simulates the restart and asks no cluster; drop --ndbinfo and the mysql options",
            field="--replay",
        )


def _check_args(
    format: str,
    ndbinfo: Path | None,
    watch_every: str | None,
    mysql_args: bool,
    max_failures: int | None,
    replay: bool = False,
) -> None:
    if format not in FORMATS:
        raise InputError(f"{format!r} is not a format of eta; use table or json", field="--format")
    if (ndbinfo is None) == (watch_every is None) and not (replay and ndbinfo is None):
        raise InputError(
            "give a snapshot (--ndbinfo snapshot.tsv) or --watch INTERVAL, one of the two", field="--ndbinfo"
        )
    if mysql_args and watch_every is None and not replay:
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
    session: Any,
    how: Watching,
    format: str,
    scenario: str,
    textfile: Path | None,
    cluster: str,
    speed: float | None,
    seed: int | None,
) -> None:
    """``--watch`` through the mysql client, or (``speed`` given) a dry run's simulated restart."""
    import time

    from ndbsim.input.units import parse_duration
    from ndbsim.studies.eta.metrics import WatchState
    from ndbsim.studies.eta.watch import MAX_FAILURES, check_client_args, take_snapshot, watch

    try:
        interval = parse_duration(how.every)
    except (InputError, ValueError):
        raise InputError(f"{how.every!r} is not a duration; give e.g. 30s or 1m", field="--watch") from None
    if not interval > 0:
        raise InputError(f"{how.every!r} is not a positive interval; give e.g. 30s", field="--watch")
    check_client_args(how.args)
    tty = sys.stdout.isatty()
    state = WatchState(cluster, time.time())
    take = lambda n: take_snapshot(how.client, how.args, max(interval, 30.0), n)  # noqa: E731
    sleep: Callable[[float], None] = time.sleep
    if speed is not None:
        from ndbsim.studies.eta.dryrun import SPEED, dry_run

        run = dry_run(session, seed, speed or SPEED, state.started)
        state.speed = run.speed
        take, sleep = run.taker(interval), lambda secs: None
        sys.stderr.write(f"ndbsim: {run.describe(scenario)}\n")
    publish = None
    if textfile is not None:
        from ndbsim.studies.eta.metrics import write_textfile

        def publish(eta: Any, st: WatchState) -> None:
            write_textfile(textfile, eta, st)

    outcome = watch(
        session,
        take,
        interval,
        lambda e: _show(e, format, scenario, tty, line=not tty),
        sleep=sleep,
        max_failures=MAX_FAILURES if how.max_failures is None else how.max_failures,
        publish=publish,
        state=state,
    )
    sys.stderr.write(fit(f"ndbsim: {outcome.message}", stream=sys.stderr) + "\n")
    raise typer.Exit(outcome.code)
