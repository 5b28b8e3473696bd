"""What the commands share: options with one help text, the exit code of a restart that would not
finish, and the small steps every command takes (load fitted constants, write the output)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ndbsim.errors import InputError

EXIT_NOT_MADE_IT = 4
"""Exit code of ``run``, and of ``advise`` for its base, when the restart would not finish: status
redo-overload (error 410), non-converging or stuck. The table, JSON or CSV is still printed
(docs/CONTRACT.md)."""

CHART_SUFFIXES = (".png", ".svg", ".pdf")
"""Chart files matplotlib writes (``run --gantt``, ``advise --chart``)."""

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


def use_constants(path: Path | None) -> None:
    """Make ``--constants FILE`` the constants of this command's runs (none given: the packaged)."""
    if path is not None:
        from ndbsim.input.profiles import use_constants as use

        use(path)


def check_workers(workers: int | None) -> None:
    """``--workers``: none (all cores) or a positive count."""
    if workers is not None and workers < 1:
        raise InputError(f"{workers} is not a worker count; use 1 or more", field="--workers")


def emit(text: str, output: Path | None) -> None:
    """A command's whole output: into ``output`` atomically (never a partial file), else stdout."""
    if output is None:
        sys.stdout.write(text)
        return
    from ndbsim.output.io import atomic_write_text

    atomic_write_text(output, text)


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
