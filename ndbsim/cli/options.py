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
