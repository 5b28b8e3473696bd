"""The command line, thin: parse, call, print. Exit codes: 0 ok, 1 a check failed, 2 bad input."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ndbsim.errors import InputError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None, help="Simulate MySQL NDB Cluster data-node restarts.")

FORMATS = ("table", "json", "csv")


def _fail(message: str) -> None:
    typer.echo(f"ndbsim: error: {message}", err=True)
    raise typer.Exit(2)


@app.command()
def run(
    scenario: Path | None = typer.Argument(None, help="Scenario YAML; omit for the built-in default."),
    set_: list[str] = typer.Option([], "--set", "-s", help="Override a key: dotted.path=value (repeatable)."),
    format: str = typer.Option("table", "--format", "-f", help="table, json or csv."),
    gantt: Path | None = typer.Option(None, "--gantt", help="Write a Gantt chart (.png, .svg or .pdf)."),
    replications: int | None = typer.Option(None, "--replications", "-n", help="Replications (p5/p50/p95)."),
    seed: int | None = typer.Option(None, "--seed", help="Root seed; 0 draws one and prints it."),
    config_ini: Path | None = typer.Option(None, "--config-ini", help="Read [ndbd default] from a config.ini."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the output to a file."),
) -> None:
    """Simulate one restart scenario and print its phase table (or JSON/CSV)."""
    from ndbsim import scenario as sc
    from ndbsim.simulate import run_resolved

    if format not in FORMATS:
        raise InputError(f"{format!r} is not a format; use one of {', '.join(FORMATS)}", field="--format")
    if replications is not None and replications < 1:
        raise InputError(f"{replications} is not a replication count; use 1 or more", field="--replications")
    if seed is not None and seed < 0:
        raise InputError(f"{seed} is not a seed; use a whole number ≥ 0", field="--seed")
    source = str(scenario) if scenario else None
    raw = sc.load_raw(scenario)
    notes: list[str] = []
    if config_ini is not None:
        from ndbsim.config_ini import read_config_ini

        cluster, skipped = read_config_ini(config_ini)
        raw.setdefault("cluster", {})
        if not isinstance(raw["cluster"], dict):
            raise InputError("cluster must be a mapping", field="cluster", source=source)
        raw["cluster"].setdefault("config", {})
        raw["cluster"]["config"].update(cluster["config"])
        if "data_nodes" in cluster:
            raw["cluster"]["data_nodes"] = cluster["data_nodes"]
        if skipped:
            notes.append(f"config.ini: skipped {len(skipped)} parameters ndbsim does not model "
                         f"({', '.join(skipped[:6])}{'…' if len(skipped) > 6 else ''})")
    for a in set_:
        sc.set_override(raw, a)
    resolved = sc.resolve(sc.scenario_from_dict(raw, source), source)
    if seed == 0:
        import secrets

        seed = secrets.randbelow(2**31 - 1) + 1
        typer.echo(f"ndbsim: seed {seed}", err=True)
    result = run_resolved(resolved, seed=seed, replications=replications)
    if format == "json":
        text = result.to_json() + "\n"
    elif format == "csv":
        text = result.to_csv()
    else:
        from ndbsim.report import phase_table

        text = phase_table(result, notes)
    if gantt is not None:
        from ndbsim.plot import gantt as draw

        draw(result, gantt)
    if output is not None:
        from ndbsim.io import atomic_write_text

        atomic_write_text(output, text)
    else:
        sys.stdout.write(text)


@app.command()
def validate(scenario: Path = typer.Argument(..., help="Scenario YAML to check.")) -> None:
    """Check a scenario file; print what is wrong (exit 2) or that it is valid (exit 0)."""
    from ndbsim import scenario as sc

    resolved = sc.load(scenario)
    typer.echo(f"{scenario}: valid ({resolved.scenario.version}, profile {resolved.profile.name}, "
               f"{resolved.scenario.restart.type} restart)")


@app.command()
def params(version: str = typer.Option("7.6.6", "--version", help="NDB version.")) -> None:
    """List the config.ini parameters ndbsim models, with this version's defaults."""
    from ndbsim.config_params import PARAMS
    from ndbsim.profiles import profile_for

    prof = profile_for(version)
    for name in sorted(PARAMS):
        p = PARAMS[name]
        rng = f"{p.lo:g}–{p.hi:g}" if p.lo is not None else ""
        typer.echo(f"{name:38s} {str(prof.defaults.get(name, '')):>10s}  {p.kind:5s} {rng}")


def main(argv: list[str] | None = None) -> None:
    """Entry point: one-line errors, exit 2 on bad input; ``--debug`` shows the traceback."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        args = ["--help"]
    debug = "--debug" in args
    if debug:
        args.remove("--debug")
    try:
        app(args=args, prog_name="ndbsim", standalone_mode=False)
    except InputError as e:
        if debug:
            raise
        typer.echo(f"ndbsim: error: {e}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        typer.echo("ndbsim: interrupted", err=True)
        sys.exit(130)
    except Exception as e:
        code = getattr(e, "exit_code", None)
        if type(e).__name__ == "Exit":
            sys.exit(code or 0)
        if type(e).__name__ == "Abort":
            typer.echo("ndbsim: interrupted", err=True)
            sys.exit(130)
        if hasattr(e, "format_message") and not debug:  # click/typer usage errors
            typer.echo(f"ndbsim: error: {' '.join(e.format_message().split())}; see ndbsim --help", err=True)
            sys.exit(2)
        if debug:
            raise
        typer.echo(f"ndbsim: internal error: {type(e).__name__}: {e} (rerun with --debug for the traceback)",
                   err=True)
        sys.exit(3)
