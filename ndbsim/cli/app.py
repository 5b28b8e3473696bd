"""The command line, thin: parse, call, print. Exit codes: 0 ok, 1 a check failed, 2 bad input,
3 an internal error (a bug: rerun with --debug for the traceback), 4 the cluster would not make
it (a run, or advise's base, whose status is redo-overload, non-converging or stuck; the result is
still printed), 129 hung up (SIGHUP), 130 interrupted, 141 standard output's reader went away
(``| head``), 143 terminated (SIGTERM)."""

from __future__ import annotations

import os
import sys

import typer

from ndbsim.cli import advise, calibration, compare, eta, ndbinfo, report, run, scenario, solve, sweep
from ndbsim.cli.help import DEBUG_HELP
from ndbsim.errors import InputError

BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1"}
"""numpy's OpenBLAS starts a thread per core when numpy is imported, and those threads spin
waiting for work: 0.05-0.13 s of CPU per ``ndbsim run`` measured on 2 cores, for nothing, as a
command runs no matrix algebra worth a thread (the engine draws random numbers; ``calibrate``
fits a handful of constants) and a sweep already runs one worker per core. The command line sets
it before numpy loads, for itself and the worker processes it starts; a value the user set wins."""

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    help="Simulate MySQL NDB Cluster data-node restarts.",
    epilog=(
        "\b\nStart here:\n  ndbsim run                               the built-in default scenario (seed 003)\n"
        "  ndbsim init --config-ini config.ini --version 8.0.35 -o my.yaml   a scenario for your cluster\n"
        "  ndbsim init --ndbinfo export.tsv -o my.yaml   one from the running cluster (ndbsim ndbinfo-sql)\n"
        "  ndbsim run my.yaml                       its phase table\n"
        "\b\nExit codes: 0 ok, 1 a check failed, 2 bad input, 3 internal error (rerun with --debug),\n"
        "  4 the cluster would not make it (redo-overload, non-converging, stuck; result still printed)."
    ),
)


def _version(value: bool) -> None:
    if value:
        from ndbsim.cli.help import package_version

        typer.echo(f"ndbsim {package_version()}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", "-V", callback=_version, is_eager=True, help="Print ndbsim's version and exit."
    ),
    debug: bool = typer.Option(False, "--debug", help=DEBUG_HELP),
) -> None:
    """Simulate MySQL NDB Cluster data-node restarts."""
    # --debug is listed here for the help only: main takes it from anywhere on the command line
    # before click parses the rest, so that it works after the command as well.


COMMANDS = (
    run.register,
    compare.register,
    scenario.register,
    ndbinfo.register,
    calibration.register,
    eta.register,
    sweep.register,
    advise.register,
    solve.register,
    report.register,
)
"""The registration point: each command module's ``register(app)`` adds its commands, in the order
``ndbsim -h`` lists them. A new command goes in a module of its group (or a new one) with a
``register``, and that ``register`` here."""

for _register in COMMANDS:
    _register(app)


def main(argv: list[str] | None = None) -> None:
    """Entry point: one-line errors, exit 2 on bad input; ``--debug`` shows the traceback."""
    for name, value in BLAS_THREADS.items():
        os.environ.setdefault(name, value)
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        args = ["--help"]
    debug = "--debug" in args
    if debug:
        args.remove("--debug")
    from ndbsim import signals
    from ndbsim.output.stdout import guarded

    previous = signals.install()
    try:
        with guarded():
            _main(args, debug)
    finally:
        signals.restore(previous)


def _main(args: list[str], debug: bool) -> None:
    from ndbsim.output.stdout import PIPE_EXIT, StdoutGone, fit, say
    from ndbsim.studies import stop

    try:
        from ndbsim.output.io import check_output_args

        check_output_args(args)
        from ndbsim.cli.options import repeated_options

        for note in repeated_options(typer.main.get_command(app), args):
            say(fit(f"ndbsim: warning: {note}", stream=sys.stderr))
        rc = app(args=args, prog_name="ndbsim", standalone_mode=False)
        sys.stdout.flush()  # a full or broken standard output fails here, not at exit
        if rc == 130:  # click turns a KeyboardInterrupt into this return code, silently
            say("ndbsim: interrupted")
        if isinstance(rc, int) and rc:
            sys.exit(rc)
    except InputError as e:
        if debug:
            raise
        say(f"ndbsim: error: {e}")
        sys.exit(2)
    except StdoutGone:  # the reader went away (| head): stop quietly, as Unix tools do
        sys.exit(PIPE_EXIT)
    except KeyboardInterrupt:
        say("ndbsim: interrupted")
        sys.exit(130)
    except stop.Terminated as t:
        say(f"ndbsim: {t.word}")
        sys.exit(t.exit_code)
    except Exception as e:
        code = getattr(e, "exit_code", None)
        if type(e).__name__ == "Exit":
            sys.exit(code or 0)
        if type(e).__name__ == "Abort":
            typer.echo("ndbsim: interrupted", err=True)
            sys.exit(130)
        if hasattr(e, "format_message") and not debug:  # click/typer usage errors
            text = " ".join(e.format_message().split()).rstrip(".")
            text = text.replace(
                "Input should be a valid integer, unable to parse string as an integer", "not a whole number"
            )
            typer.echo(f"ndbsim: error: {text}; see ndbsim --help", err=True)
            sys.exit(2)
        if debug:
            raise
        typer.echo(f"ndbsim: internal error: {type(e).__name__}: {e} (rerun with --debug for the traceback)", err=True)
        sys.exit(3)
