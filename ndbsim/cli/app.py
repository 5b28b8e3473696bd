"""The command line, thin: parse, call, print. Exit codes: 0 ok, 1 a check failed, 2 bad input,
3 an internal error (a bug: rerun with --debug for the traceback), 4 the cluster would not make
it (a run, or advise's base, whose status is redo-overload, non-converging or stuck; the result is
still printed), 129 hung up (SIGHUP), 130 interrupted, 141 standard output's reader went away
(``| head``), 143 terminated (SIGTERM)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ndbsim.cli.help import CONFIG_INI_HELP, EXAMPLES, SET_HELP
from ndbsim.errors import InputError

if TYPE_CHECKING:
    from ndbsim.input.profiles import Profile

BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1"}
"""numpy's OpenBLAS starts a thread per core when numpy is imported, and those threads spin
waiting for work: 0.05-0.13 s of CPU per ``ndbsim run`` measured on 2 cores, for nothing, as a
command runs no matrix algebra worth a thread (the engine draws random numbers; ``calibrate``
fits a handful of constants) and a sweep already runs one worker per core. The command line sets
it before numpy loads, for itself and the worker processes it starts; a value the user set wins."""

EXIT_NOT_MADE_IT = 4
"""Exit code of ``run``, and of ``advise`` for its base, when the restart would not finish: status
redo-overload (error 410), non-converging or stuck. The table, JSON or CSV is still printed
(docs/CONTRACT.md)."""

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    help="Simulate MySQL NDB Cluster data-node restarts.",
    epilog=(
        "\b\nStart here:\n  ndbsim run                               the built-in default scenario (seed 003)\n"
        "  ndbsim init --config-ini config.ini -o my.yaml   a scenario for your cluster\n"
        "  ndbsim run my.yaml                       its phase table\n"
        "\b\nExit codes: 0 ok, 1 a check failed, 2 bad input, 3 internal error,\n"
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
) -> None:
    """Simulate MySQL NDB Cluster data-node restarts."""


USER_CONSTANTS = "ndbsim-constants.yaml"
"""Where ``ndbsim calibrate`` writes its fit by default: a file of the user's, in the current
directory, so the packaged constants change only with ``--replace-packaged``."""

FORMATS = ("table", "json", "csv")
"""Output formats of ``ndbsim run --format``: the phase table (report.py), JSON and CSV
(``Result.to_json`` / ``to_csv``). ``table`` is the default."""


CONSTANTS_OPTION = typer.Option(
    None,
    "--constants",
    metavar="FILE.yaml",
    help="Fitted constants from `ndbsim calibrate` (default: the packaged ones).",
)
"""``--constants`` of run, check and sweep: one option, one help text."""


@app.command(epilog=EXAMPLES["run"])
def run(
    scenario: Path | None = typer.Argument(
        None, metavar="SCENARIO.yaml", help="Scenario file; omit for the built-in default (seed 003's DBT2)."
    ),
    set_: list[str] = typer.Option([], "--set", "-s", metavar="KEY=VALUE", help=SET_HELP),
    format: str | None = typer.Option(
        None,
        "--format",
        "-f",
        metavar="[table|json|csv]",
        help="Output format (default: from --output's .json/.csv suffix, else table).",
    ),
    gantt: Path | None = typer.Option(
        None, "--gantt", metavar="CHART.png", help="Also draw a Gantt chart (.png, .svg or .pdf)."
    ),
    replications: int | None = typer.Option(
        None, "--replications", "-n", metavar="N", help="Replications, for p5/p50/p95 (default: the scenario's, 1)."
    ),
    seed: int | None = typer.Option(
        None, "--seed", metavar="N", help="Root seed; 0 draws one and prints it (default: the scenario's, 1)."
    ),
    config_ini: Path | None = typer.Option(None, "--config-ini", metavar="config.ini", help=CONFIG_INI_HELP),
    output: Path | None = typer.Option(
        None, "--output", "-o", metavar="FILE", help="Write the output to FILE (default: standard output)."
    ),
    constants: Path | None = CONSTANTS_OPTION,
) -> None:
    """Simulate one restart scenario and print its phase table (or JSON/CSV)."""
    from ndbsim.input.scenario import check_run_counts
    from ndbsim.models.load import load
    from ndbsim.output.io import check_not_inputs, check_output_path

    format = _run_format(format, output)
    _use_constants(constants)
    check_run_counts(seed, replications)
    _announce(replications)
    check_output_path(output, "--output")
    if gantt is not None:
        check_output_path(gantt, "--gantt")
        if gantt.suffix.lower() not in (".png", ".svg", ".pdf"):
            raise InputError(
                f"{str(gantt)!r} has no .png, .svg or .pdf suffix; name the chart e.g. restart.png", field="--gantt"
            )
    check_not_inputs(
        {"--output": output, "--gantt": gantt},
        {"scenario": scenario, "--config-ini": config_ini, "--constants": constants},
    )
    loaded = load(scenario, config_ini=config_ini, overrides=set_, rows_fix="add --set data.rows=null")
    if seed == 0:
        import secrets

        seed = secrets.randbelow(2**31 - 1) + 1
        typer.echo(f"ndbsim: seed {seed}", err=True)
    from ndbsim.input.budget import showing_progress

    with showing_progress(sys.stderr.isatty()):
        result = loaded.run(seed, replications, explained=False)
    loaded.model.annotate(result, loaded.prepared, loaded.origins, loaded.notes, _changes(config_ini, set_))
    if format == "json":
        text = result.to_json() + "\n"
    elif format == "csv":
        text = result.to_csv()
    else:
        ini = str(config_ini) if config_ini else None
        text = loaded.model.table(result, loaded.notes, set_, ini)
    if gantt is not None:
        from ndbsim.output.plot import gantt as draw

        draw(result, gantt)
    _emit(text, output)
    if result.status != "ok":
        raise typer.Exit(EXIT_NOT_MADE_IT)


def _emit(text: str, output: Path | None) -> None:
    """A command's whole output: into ``output`` atomically (never a partial file), else stdout."""
    if output is None:
        sys.stdout.write(text)
        return
    from ndbsim.output.io import atomic_write_text

    atomic_write_text(output, text)


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


@app.command(epilog=EXAMPLES["validate"])
def validate(
    scenario: Path = typer.Argument(..., metavar="SCENARIO.yaml", help="Scenario file to check."),
    set_: list[str] = typer.Option([], "--set", "-s", metavar="KEY=VALUE", help=SET_HELP),
    config_ini: Path | None = typer.Option(None, "--config-ini", metavar="config.ini", help=CONFIG_INI_HELP),
) -> None:
    """Check a scenario file, with the --set and --config-ini a run would use; print what is
    wrong (exit 2) or that it is valid (exit 0), and the warnings a run would print."""
    from ndbsim.models.load import load

    loaded = load(scenario, config_ini=config_ini, overrides=set_, rows_fix="add --set data.rows=null")
    typer.echo(f"{scenario}: valid ({loaded.model.summary(loaded.prepared)})")
    for w in dict.fromkeys([*loaded.notes, *loaded.model.input_notes(loaded.prepared, loaded.origins)]):
        typer.echo(f"warning: {w}")


@app.command(epilog=EXAMPLES["init"])
def init(
    config_ini: Path | None = typer.Option(None, "--config-ini", metavar="config.ini", help=CONFIG_INI_HELP),
    set_: list[str] = typer.Option([], "--set", "-s", metavar="KEY=VALUE", help=SET_HELP),
    output: Path | None = typer.Option(
        None, "--output", "-o", metavar="FILE.yaml", help="Write the scenario to FILE.yaml (default: stdout)."
    ),
) -> None:
    """Write a commented scenario for your cluster: every key with its meaning and default,
    filled from --config-ini (an idle cluster; data.size from DataMemory until you give it)."""
    from dataclasses import replace

    from ndbsim.input.init_scenario import init_text
    from ndbsim.models.load import prepare, read
    from ndbsim.models.registry import NDB
    from ndbsim.output.explain import FROM_DATAMEMORY

    if output is not None:
        from ndbsim.output.io import check_not_inputs, check_output_path

        check_output_path(output, "--output")
        check_not_inputs({"--output": output}, {"--config-ini": config_ini})
    loaded = read(config_ini=config_ini, overrides=set_, neutral=True)
    prepare(replace(loaded, model=NDB))  # what init writes must be a valid NDB scenario
    notes = [n for n in loaded.notes if "has no [ndbd] section" not in n]
    derived = frozenset(k for k, origin in loaded.origins.items() if origin == FROM_DATAMEMORY)
    text = init_text(loaded.raw, str(config_ini) if config_ini else None, notes, derived)
    if output is None:
        sys.stdout.write(text)
        return
    from ndbsim.output.io import atomic_write_text

    atomic_write_text(output, text)
    typer.echo(f"wrote {output}; check it with ndbsim validate {output}, run it with ndbsim run {output}", err=True)


@app.command(epilog=EXAMPLES["params"])
def params(
    version: str = typer.Option("7.6.6", "--version", metavar="X.Y.Z", help="NDB version.", show_default=True),
    diff: str | None = typer.Option(
        None, "--diff", metavar="X.Y.Z", help="Another NDB version: list what differs, with sources."
    ),
) -> None:
    """List the config.ini parameters ndbsim models, with this version's defaults and thread layout."""
    from ndbsim.input.config_params import PARAMS, show
    from ndbsim.input.profiles import parse_version, profile_for, unused_params

    prof = profile_for(version)
    if diff is not None:
        from ndbsim.input.profiles import differences

        other = profile_for(diff)
        (old_v, old), (new_v, new) = sorted(((version, prof), (diff, other)), key=lambda x: parse_version(x[0]))
        rows = differences(old, new)
        for note in (*prof.notes, *other.notes):
            typer.echo(f"note: {note}")
        if not rows:
            typer.echo(f"NDB {old_v} and {new_v}: no modelled default or mechanism differs")
            for key in ("line",):
                if key in new.sources:
                    typer.echo(f"  source: {new.sources[key]}")
            return
        typer.echo(f"{'parameter or mechanism':32s} {version:>10s} {diff:>10s}  source")
        for name, a_val, b_val, source in rows:
            mine, theirs = (a_val, b_val) if version == old_v else (b_val, a_val)
            typer.echo(f"{name:32s} {mine!s:>10s} {theirs!s:>10s}  {source or '-'}")
        return
    unused = unused_params(prof.mechanisms)
    typer.echo(f"{'parameter':38s} {'default':>10s}  {'kind':5s} range")
    for name in sorted(PARAMS):
        if name in unused:
            continue
        p = PARAMS[name]
        rng = f"{show(p.kind, p.lo)}–{show(p.kind, p.hi)}" if p.lo is not None else ""
        typer.echo(f"{name:38s} {prof.defaults.get(name, '')!s:>10s}  {p.kind:5s} {rng}")
    if unused:
        typer.echo(f"not in NDB {version}, ignored if set: {', '.join(unused)}")
    typer.echo(f"thread layout at these defaults: {_default_layout(prof)}")
    for note in prof.notes:
        typer.echo(f"note: {note}")


def _default_layout(prof: Profile) -> str:
    """The thread layout NDB derives from a profile's defaults (threads.layout), described."""
    from ndbsim.input.config_params import resolve
    from ndbsim.input.threads import layout

    cfg = resolve(prof.defaults, {})
    mech = prof.mechanisms
    lay = layout(cfg, mech.multithreaded, mech.query_threads, host_threads=1)
    return f"{lay.describe()} ({lay.source}; restore threads {lay.restore_threads})"


def _cases_dir(cases: Path | None) -> Path:
    """The calibration cases directory: ``--cases``, else the repository's ``calibration/``."""
    from ndbsim.studies.calibration import DEFAULT_DIR

    directory = Path(cases) if cases is not None else DEFAULT_DIR
    if directory.is_dir():
        return directory
    if cases is None:
        raise InputError(
            f"no calibration cases at {str(directory)!r}: they ship with the repository, not the "
            "package; run from a clone (pip install -e .) or pass --cases DIR",
            field="--cases",
        )
    raise InputError(f"{str(directory)!r} is not a directory of calibration cases; check the path", field="--cases")


def _use_constants(path: Path | None) -> None:
    if path is not None:
        from ndbsim.input.profiles import use_constants

        use_constants(path)


@app.command(epilog=EXAMPLES["check"])
def check(
    cases: Path | None = typer.Option(
        None, "--cases", metavar="DIR", help="Directory of calibration cases (default: calibration/)."
    ),
    no_claims: bool = typer.Option(False, "--no-claims", help="Skip the variance and qualitative checks."),
    constants: Path | None = CONSTANTS_OPTION,
) -> None:
    """Predicted vs published for every calibration case; exit 1 if any is outside tolerance."""
    from ndbsim.studies.check import format_check, run_check

    _use_constants(constants)
    rows, found = run_check(_cases_dir(cases), claims=not no_claims)
    typer.echo(format_check(rows, found), nl=False)
    if any(not r.ok for r in rows) or any(not c.ok for c in found):
        raise typer.Exit(1)


@app.command(epilog=EXAMPLES["calibrate"])
def calibrate(
    cases: Path | None = typer.Option(
        None, "--cases", metavar="DIR", help="Directory of calibration cases (default: calibration/)."
    ),
    restart_info: Path | None = typer.Option(
        None, "--restart-info", metavar="FILE.csv", help="CSV export of ndbinfo.restart_info to add as a fit case."
    ),
    scenario: Path | None = typer.Option(
        None, "--scenario", metavar="SCENARIO.yaml", help="The scenario of that cluster."
    ),
    node: int | None = typer.Option(
        None, "--node", metavar="NODEID", help="Which node's row of the CSV (default: the slowest)."
    ),
    output: Path | None = typer.Option(
        None,
        "--output",
        "-o",
        metavar="FILE.yaml",
        help=f"Where to write the fitted constants (default: ./{USER_CONSTANTS}).",
    ),
    replace_packaged: bool = typer.Option(
        False, "--replace-packaged", help="Write the packaged constants, which every run uses by default."
    ),
) -> None:
    """Refit the free constants on the fit cases and write them with their residuals (to a file
    of yours unless --replace-packaged); warn when the fit puts a published case out of tolerance."""
    import yaml

    from ndbsim.input.profiles import CALIBRATED_FILE
    from ndbsim.output.io import atomic_write_text, check_not_inputs, check_output_path
    from ndbsim.studies.calibrate import case_from_restart_info, run_calibration, save_calibration
    from ndbsim.studies.calibration import case_from_data

    # Every check of the options first, then the fit in memory, then the files: bad input or a
    # failed fit leaves nothing behind, not even the imported case.
    if restart_info is None:
        if scenario is not None:
            raise InputError(
                "--scenario is only used with --restart-info; add --restart-info CSV or drop --scenario",
                field="--scenario",
            )
        if node is not None:
            raise InputError(
                "--node is only used with --restart-info; add --restart-info CSV or drop --node", field="--node"
            )
    elif scenario is None:
        raise InputError("--restart-info needs --scenario: the scenario file of that cluster", field="--scenario")
    if node is not None and not 1 <= node <= 255:
        raise InputError(f"{node} is not a node id; give a data node id 1-255", field="--node")
    directory = _cases_dir(cases)
    if replace_packaged and output is not None:
        raise InputError(
            "--replace-packaged writes the packaged constants; drop --output, or drop --replace-packaged",
            field="--output",
        )
    target = CALIBRATED_FILE if replace_packaged else Path(output if output is not None else USER_CONSTANTS)
    if target.resolve() == CALIBRATED_FILE.resolve() and not replace_packaged:
        raise InputError(
            f"{str(target)!r} is the packaged constants file; add --replace-packaged to overwrite it",
            field="--output",
        )
    check_output_path(target, "--output")
    check_not_inputs({"--output": target}, {"--restart-info": restart_info, "--scenario": scenario})
    if target == CALIBRATED_FILE:  # the package's own files: models with their own constants write beside
        from ndbsim.models.registry import MODELS

        for model in MODELS.values():
            if model.constants_file is not None:
                check_output_path(model.constants_file, "--output")
    if target.suffix.lower() in (".yaml", ".yml") and target.resolve().parent == directory.resolve():
        raise InputError(
            f"{str(target)!r} is in the cases directory, where it would be read as a calibration "
            "case; write it elsewhere",
            field="--output",
        )
    case_file: Path | None = None
    extra = []
    if restart_info is not None and scenario is not None:  # --scenario was required above
        from ndbsim.input import scenario as sc

        case_file = directory / f"user-{Path(restart_info).stem}.yaml"
        check_output_path(case_file, "--cases")
        check_not_inputs(
            {"--output": target, "--cases": case_file}, {"--restart-info": restart_info, "--scenario": scenario}
        )
        sc.load(scenario)  # must be valid
        case = case_from_restart_info(restart_info, scenario, node)
        if case["source"].get("note"):  # which of two rows for one node was used
            typer.echo(f"ndbsim: note: {restart_info}: {case['source']['note']}", err=True)
        extra.append(case_from_data(case, case_file))
    result = run_calibration(directory, extra)
    if case_file is not None:
        atomic_write_text(case_file, yaml.safe_dump(case, sort_keys=False), "--cases")
        typer.echo(f"wrote calibration case {case_file}")
    save_calibration(result, target)
    if not replace_packaged:
        typer.echo(
            f"wrote {target}; use it with --constants {target} (run, check, sweep) or ndbsim.use_constants() in "
            "Python; --replace-packaged makes a fit the default"
        )
    else:
        typer.echo(f"wrote {CALIBRATED_FILE} (the packaged constants, used by default)")
    for name, value in result.constants.__dict__.items():
        typer.echo(f"{name:22s} {value:.4g}")
    typer.echo("residuals: relative error (+0.01 is 1% high), or seconds where the published figure is 0 s")
    for case_name, figs in result.residuals.items():
        typer.echo(f"{case_name}: " + ", ".join(f"{k.removeprefix('secs_')} {v:+.3g}" for k, v in figs.items()))
    from ndbsim.studies.check import broken_cases

    broken = broken_cases(target, directory)
    if broken:
        typer.echo(
            f"ndbsim: warning: with these constants {len(broken)} published figure(s) fall outside their tolerance "
            f"({', '.join(broken[:4])}{'…' if len(broken) > 4 else ''}); see ndbsim check --constants {target}",
            err=True,
        )


@app.command(epilog=EXAMPLES["sweep"])
def sweep(
    sweep_file: Path = typer.Argument(
        ..., metavar="SWEEP.yaml", help="Sweep file: base, factors, mode, samples, replications, seed."
    ),
    output: Path | None = typer.Option(
        None, "--output", "-o", metavar="FILE", help="Write rows to FILE.csv or FILE.parquet (default: CSV to stdout)."
    ),
    workers: int | None = typer.Option(
        None, "--workers", "-w", metavar="N", help="Local worker processes (default: all cores)."
    ),
    scheduler: str | None = typer.Option(
        None, "--scheduler", metavar="tcp://HOST:PORT", help="Run on a Dask scheduler (needs ndbsim[cluster])."
    ),
    shard: str | None = typer.Option(None, "--shard", metavar="I/N", help="Run only shard I of N (1-based)."),
    seed: int | None = typer.Option(None, "--seed", metavar="N", help="Root seed (default: the sweep file's)."),
    set_: list[str] = typer.Option(
        [], "--set", "-s", metavar="KEY=VALUE", help="Set a base key for every point (repeatable)."
    ),
    constants: Path | None = CONSTANTS_OPTION,
) -> None:
    """Run a parameter sweep: one row per point and replication (CSV to stdout, or --output)."""
    from ndbsim.input.scenario import check_run_counts
    from ndbsim.studies.sweep import load_sweep, parse_shard, write_frame
    from ndbsim.studies.sweep import sweep as run_sweep

    check_run_counts(seed, None)
    if workers is not None and workers < 1:
        raise InputError(f"{workers} is not a worker count; use 1 or more", field="--workers")
    from ndbsim.output.io import check_not_inputs, check_output_path
    from ndbsim.studies.sweep import check_scheduler

    parse_shard(shard)
    _use_constants(constants)
    if scheduler is not None:
        check_scheduler(scheduler)
    spec = load_sweep(sweep_file)
    target = output if output is not None else spec["output"]
    option = "--output" if output is not None else "output"
    in_file = None if output is not None else str(sweep_file)
    if target is not None and Path(target).suffix.lower() not in (".csv", ".parquet", ".pq"):
        raise InputError(f"{str(target)!r} has no known suffix; write .csv or .parquet", field=option, source=in_file)
    try:
        check_output_path(target, option)
        check_not_inputs(
            {option: target}, {"sweep": sweep_file, "base scenario": spec["base"], "--constants": constants}
        )
    except InputError as e:
        raise (e.located(in_file) if in_file else e) from None
    from ndbsim.extras import require

    if target is not None and Path(target).suffix.lower() != ".csv":
        require("pyarrow", option)
    if scheduler is not None:
        require("dask.distributed", "--scheduler")
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        df = run_sweep(
            spec["base"],
            spec["factors"],
            mode=spec["mode"],
            samples=spec["samples"],
            replications=spec["replications"],
            seed=spec["seed"] if seed is None else seed,
            workers=workers,
            scheduler=scheduler,
            shard=shard,
            progress=sys.stderr.isatty(),
            source=spec["source"],
            overrides=[*spec["overrides"], *set_],
        )
    for w in caught:
        if issubclass(w.category, UserWarning):
            typer.echo(f"ndbsim: warning: {w.message}", err=True)
    if target is not None:
        write_frame(df, target)
        bad = int((df["status"] != "ok").sum())
        typer.echo(f"ndbsim: {len(df)} rows ({bad} not ok) written to {target}", err=True)
    else:
        sys.stdout.write(df.to_csv(index=False))


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
    from ndbsim.output.stdout import guarded
    from ndbsim.studies import stop

    previous = stop.install()
    try:
        with guarded():
            _main(args, debug)
    finally:
        stop.restore(previous)


def _main(args: list[str], debug: bool) -> None:
    from ndbsim.output.stdout import PIPE_EXIT, StdoutGone, say
    from ndbsim.studies import stop

    try:
        from ndbsim.output.io import check_output_args

        check_output_args(args)
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


CHART_SUFFIXES = (".png", ".svg", ".pdf")
"""Chart files matplotlib writes for ``advise --chart`` (the Gantt chart's suffixes)."""


@app.command()
def advise(
    scenario: Path | None = typer.Argument(None, help="Scenario YAML; omit for the built-in default."),
    set_: list[str] = typer.Option([], "--set", "-s", help="Override a key first: dotted.path=value (repeatable)."),
    lever: list[str] = typer.Option([], "--lever", "-l", help="Try only this lever (repeatable); default: all."),
    format: str = typer.Option("table", "--format", "-f", help="table or json."),
    chart: Path | None = typer.Option(None, "--chart", help="Write a tornado chart (.png, .svg or .pdf)."),
    replications: int | None = typer.Option(None, "--replications", "-n", help="Replications per candidate."),
    seed: int | None = typer.Option(None, "--seed", help="Root seed (default: the scenario's)."),
    workers: int | None = typer.Option(None, "--workers", "-w", help="Local worker processes (default: all cores)."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the table or JSON to a file."),
    constants: Path | None = CONSTANTS_OPTION,
) -> None:
    """Rank what would make this restart faster, with each change's price and the best combination.
    Exit 4 when the restart as given would not finish (the ranking is still printed)."""
    import json

    from ndbsim.input.scenario import check_run_counts
    from ndbsim.output.io import check_not_inputs, check_output_path
    from ndbsim.studies.advise import advise_full
    from ndbsim.studies.advise_report import advice_table, tornado

    if format not in ("table", "json"):
        raise InputError(f"{format!r} is not a format; use table or json", field="--format")
    check_run_counts(seed, replications)
    if workers is not None and workers < 1:
        raise InputError(f"{workers} is not a worker count; use 1 or more", field="--workers")
    check_output_path(output, "--output")
    if chart is not None:
        check_output_path(chart, "--chart")
        if chart.suffix.lower() not in CHART_SUFFIXES:
            raise InputError(
                f"{str(chart)!r} has no .png, .svg or .pdf suffix; name the chart e.g. advise.png", field="--chart"
            )
    check_not_inputs({"--output": output, "--chart": chart}, {"scenario": scenario, "--constants": constants})
    _use_constants(constants)
    source = str(scenario) if scenario else None
    a = advise_full(
        scenario,
        overrides=set_,
        levers=lever,
        seed=seed,
        replications=replications,
        workers=workers,
        progress=sys.stderr.isatty(),
        source=source,
    )
    from ndbsim.output.result import json_clean

    text = json.dumps(json_clean(a.to_dict()), indent=2) + "\n" if format == "json" else advice_table(a)
    if chart is not None:
        tornado(a, chart)
    _emit(text, output)
    if a.base.status != "ok":
        raise typer.Exit(EXIT_NOT_MADE_IT)


@app.command()
def solve(
    question: str = typer.Argument(..., help="redo-log, update-rate, lcp-speed or data-size."),
    scenario: Path | None = typer.Argument(None, help="Scenario YAML; omit for the built-in default."),
    window: str | None = typer.Option(None, "--window", help="Restart window for lcp-speed and data-size, e.g. 10m."),
    param: str | None = typer.Option(
        None, "--param", help="redo-log: FragmentLogFileSize instead of NoOfFragmentLogFiles."
    ),
    quantile: float = typer.Option(0.5, "--quantile", help="Which total must fit the window: 0.5 median, 0.95 p95."),
    set_: list[str] = typer.Option([], "--set", "-s", help="Override a key first: dotted.path=value (repeatable)."),
    replications: int | None = typer.Option(None, "--replications", "-n", help="Replications per run."),
    seed: int | None = typer.Option(None, "--seed", help="Root seed (default: the scenario's)."),
    format: str = typer.Option("table", "--format", "-f", help="table or json."),
    constants: Path | None = CONSTANTS_OPTION,
) -> None:
    """Answer an inverse question by root finding on the simulation, verified by runs."""
    import json

    from ndbsim.input.scenario import check_run_counts
    from ndbsim.studies.solve import solve as answer

    if format not in ("table", "json"):
        raise InputError(f"{format!r} is not a format; use table or json", field="--format")
    check_run_counts(seed, replications)
    _use_constants(constants)
    source = str(scenario) if scenario else None
    a = answer(
        question,
        scenario,
        window=window,
        param=param,
        quantile=quantile,
        overrides=set_,
        seed=seed,
        replications=replications,
        source=source,
    )
    sys.stdout.write(json.dumps(a.to_dict(), indent=2) + "\n" if format == "json" else a.text(source))
