"""What the commands share: the command class and how a command is added, options with one help
text, the exit code of a restart that would not finish, and the small steps every command takes
(load fitted constants, load the scenario, warn, write the output and say so)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperCommand

from ndbsim.cli.help import CONFIG_INI_HELP, EXAMPLES, RELEASE_HELP, STUDY_REPLICATIONS
from ndbsim.errors import InputError
from ndbsim.output.interval.modes import MODE_REPLICATIONS
from ndbsim.output.stdout import fit

EXIT_NOT_MADE_IT = 4
"""Exit code of ``run``, and of ``advise`` for its base, when the restart would not finish: status
redo-overload (error 410), non-converging or stuck. The table, JSON or CSV is still printed
(docs/CONTRACT.md)."""

CHART_SUFFIXES = (".png", ".svg", ".pdf")
"""Chart files matplotlib writes (``run --gantt``, ``advise --chart``)."""


def check_chart(chart: Path | None, flag: str, example: str) -> None:
    """A chart path is writable and names a format matplotlib writes (``CHART_SUFFIXES``)."""
    from ndbsim.output.io import check_output_path

    if chart is None:
        return
    check_output_path(chart, flag)
    if chart.suffix.lower() not in CHART_SUFFIXES:
        raise InputError(f"{str(chart)!r} has no .png, .svg or .pdf suffix; name the chart e.g. {example}", field=flag)


USER_CONSTANTS = "ndbsim-constants.yaml"
"""Where ``ndbsim calibrate`` writes its fit by default: a file of the user's, in the current
directory, so the packaged constants change only with ``--replace-packaged``."""

CONSTANTS_OPTION = typer.Option(
    None,
    "--constants",
    metavar="FILE.yaml",
    help="Fitted constants from `ndbsim calibrate` (default: the packaged ones).",
)
"""``--constants`` of run, check, sweep, advise and solve: one option, one help text."""


CONFIG_INI_OPTION = typer.Option(None, "--config-ini", metavar="config.ini", help=CONFIG_INI_HELP)
"""``--config-ini`` of every command that runs a scenario: one option, one help text."""

RELEASE_OPTION = typer.Option(None, "--version", metavar="X.Y.Z", help=RELEASE_HELP)
"""``--version`` of the commands that take ``--config-ini``: a config.ini alone names no release."""

SCENARIO_ARGUMENT = typer.Argument(
    None, metavar="SCENARIO.yaml", help="Scenario file; omit for the built-in default (seed 003's DBT2)."
)
"""The scenario of run, advise and solve."""

WORKERS_OPTION = typer.Option(None, "--workers", "-w", metavar="N", help="Local worker processes (default: all cores).")
"""``--workers`` of sweep and advise."""

STUDY_SET_OPTION = typer.Option(
    [], "--set", "-s", metavar="KEY=VALUE", help="Override a scenario key first (repeatable)."
)
"""``--set`` of advise and solve: applied to the scenario before any variant of theirs."""

STUDY_FORMAT_OPTION = typer.Option("table", "--format", "-f", metavar="[table|json]", help="Output format.")
"""``--format`` of advise and solve."""

STUDY_REPLICATIONS_OPTION = typer.Option(
    None,
    "--replications",
    "-n",
    metavar="N",
    help=(
        f"Replications of each run (default: the scenario's, at least {STUDY_REPLICATIONS}). When the base "
        f"run's totals fall in two modes (the crash's moment decides between one LCP wait and two), at least "
        f"{MODE_REPLICATIONS}, whatever -n says, so that both modes are seen."
    ),
)
"""``-n`` of advise and solve: each variant's runs use the same seed and this many replications."""

STUDY_SEED_OPTION = typer.Option(None, "--seed", metavar="N", help="Root seed (default: the scenario's, 1).")
"""``--seed`` of advise and solve."""

TYPE_PLACEHOLDER = re.compile(r" <[^>]*>$")
"""The ``<path>``/``<str>`` typer appends to an argument's name in help, whatever its metavar."""


class Command(TyperCommand):
    """An ndbsim command: its help names each argument by its metavar alone (``SCENARIO.yaml``,
    not typer's ``SCENARIO.yaml <path>``); options show their metavar as typer does."""

    def format_options(self, ctx: Any, formatter: Any) -> None:  # click's, typer's own copy in typer 0.2x
        args, opts = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                args.append((TYPE_PLACEHOLDER.sub("", record[0]), record[1]))
            else:
                opts.append(record)
        if args:
            with formatter.section("Arguments"):
                formatter.write_dl(args)
        if opts:
            with formatter.section("Options"):
                formatter.write_dl(opts)


def add_commands(app: typer.Typer, *commands: Callable[..., None]) -> None:
    """Add ``commands`` to ``app`` as ndbsim commands named after their functions, each with its
    examples (``help.EXAMPLES``, which must have them) after the options in its ``-h``."""
    for command in commands:
        app.command(cls=Command, epilog=EXAMPLES[command.__name__])(command)


def warn(messages: Iterable[str]) -> None:
    """Each warning once, on stderr, as every command prints them (JSON and CSV carry them too)."""
    for message in dict.fromkeys(messages):
        typer.echo(fit(f"ndbsim: warning: {message}", stream=sys.stderr), err=True)


def echo(text: str) -> None:
    """One line (or lines) of a command's text output on stdout, fitted to the terminal's width."""
    typer.echo(fit(text))


def wrote(path: str | Path, what: str = "") -> None:
    """Announce a file written, on stderr: ``wrote PATH`` and what it holds or how to use it."""
    typer.echo(fit(f"wrote {path}{what}", stream=sys.stderr), err=True)


def run_warnings(
    scenario: Path | None, config_ini: Path | None, sets: list[str], seed: int | None, release: str | None = None
) -> list[str]:
    """The warnings ``ndbsim run`` prints for this scenario (loaded as ``run`` loads it: config.ini
    over it, then ``--set``): the input's, and the simulation's of one replication at ``seed``
    (a few milliseconds; the studies keep only their runs' totals). A study (advise, solve)
    prints them with its answer, as ``run`` prints them with its table."""
    from ndbsim.models.load import load

    loaded = load(scenario, config_ini=config_ini, overrides=sets, rows_fix="add --set data.rows=null", version=release)
    result = loaded.run(seed, 1, explained=False)
    return [*loaded.notes, *loaded.model.input_notes(loaded.prepared, loaded.origins), *result.warnings]


def study_base(
    scenario: Any, config_ini: Path | None, release: str | None = None, sets: Iterable[str] = ()
) -> tuple[Any, list[str]]:
    """What a study (advise, solve, a sweep's base) is given as its scenario: the scenario as
    given (a file, a sweep's inline mapping, None: the built-in default), or with ``--config-ini``
    the scenario with the config.ini laid over it (a mapping; the study's ``--set`` come after,
    as in ``run``); and the config.ini's notes. ``release``: ``--version``, else a ``--set
    version=`` among ``sets``, the release a config.ini alone needs."""
    if config_ini is None and release is None:
        return scenario, []
    from ndbsim.input.scenario import override_key
    from ndbsim.models.load import read

    given = [a.split("=", 1)[1].strip() for a in sets if "=" in a and override_key(a) == "version"]
    loaded = read(scenario, config_ini=config_ini, version=release or (given[-1] if given else None))
    return loaded.raw, loaded.notes


def study_json(data: dict[str, Any], warnings: list[str], config_ini: Path | None) -> dict[str, Any]:
    """A study's JSON with the warnings about its input (as ``run``'s JSON has them) and, when
    given, the ``--config-ini`` its runs read."""
    out = data | {"warnings": list(dict.fromkeys(warnings))}
    if config_ini is not None:
        out["config_ini"] = str(config_ini)
    return out


def with_config_ini(text: str, config_ini: Path | None, release: str | None = None) -> str:
    """A study's text with ``--config-ini`` (and ``--version``) in the ``ndbsim run`` commands it
    prints to reproduce its runs, which were of the scenario with that config.ini over it."""
    import shlex

    words = [*(["--config-ini", str(config_ini)] if config_ini else []), *(["--version", release] if release else [])]
    if not words:
        return text
    return text.replace("ndbsim run ", f"ndbsim run {shlex.join(words)} ")


def use_constants(path: Path | None) -> None:
    """Make ``--constants FILE`` the constants of this command's runs (none given: the packaged)."""
    if path is not None:
        from ndbsim.input.profiles import use_constants as use

        use(path)


def check_workers(workers: int | None) -> None:
    """``--workers``: none (all cores) or a positive count."""
    if workers is not None and workers < 1:
        raise InputError(f"{workers} is not a worker count; use 1 or more", field="--workers")


def emit(text: str, output: Path | None, *, fitted: bool = False) -> None:
    """A command's whole output: into ``output`` atomically (never a partial file), announced,
    else stdout (also for ``-o -``), fitted to the terminal's width when ``fitted`` (text, never
    JSON or CSV: ``output.stdout.fit``)."""
    from ndbsim.output.io import stdout_if_dash

    output = stdout_if_dash(output)  # type: ignore[assignment]
    if output is None:
        sys.stdout.write(fit(text) if fitted else text)
        return
    from ndbsim.output.io import atomic_write_text

    atomic_write_text(output, text)
    wrote(output)


def repeated_options(command: object, args: list[str]) -> list[str]:
    """A note for each single-value option given more than once (``--seed 1 --seed 2``): the
    command line keeps the last, as click does, and says so. ``command``: the click group."""
    sub = (getattr(command, "commands", None) or {}).get(args[0]) if args else None
    if sub is None:
        return []
    names: dict[str, str] = {}  # every spelling of a single-value option -> its long name
    for p in sub.params:  # typer's own copy of click: its Option classes, so duck-typed
        if getattr(p, "param_type_name", "") == "option" and not (p.multiple or p.is_flag or p.count):
            for spelling in p.opts:
                names[spelling] = max(p.opts, key=len)
    given: dict[str, list[str]] = {}
    rest = args[1:]
    for i, arg in enumerate(rest):
        if arg == "--":
            break
        option, eq, value = arg.partition("=")
        if option in names and (eq or i + 1 < len(rest)):
            given.setdefault(names[option], []).append(value if eq else rest[i + 1])
    return [
        f"{name} is given {len(values)} times ({', '.join(values)}); the last, {values[-1]}, is used"
        for name, values in given.items()
        if len(values) > 1
    ]
