"""``ndbsim sweep``: a sweep file's points run locally, on a Dask scheduler or one shard at a time,
one row per point and replication as CSV or Parquet."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from ndbsim.cli.options import (
    CONFIG_INI_OPTION,
    CONSTANTS_OPTION,
    RELEASE_OPTION,
    WORKERS_OPTION,
    add_commands,
    check_workers,
    study_base,
    use_constants,
    warn,
    wrote,
)
from ndbsim.errors import InputError


def register(app: typer.Typer) -> None:
    """Add ``sweep`` to the command line."""
    add_commands(app, sweep)


def sweep(
    sweep_file: Path = typer.Argument(
        ..., metavar="SWEEP.yaml", help="Sweep file: base, factors, mode, samples, replications, seed."
    ),
    output: Path | None = typer.Option(
        None, "--output", "-o", metavar="FILE", help="Write rows to FILE.csv or FILE.parquet (default: CSV to stdout)."
    ),
    workers: int | None = WORKERS_OPTION,
    scheduler: str | None = typer.Option(
        None, "--scheduler", metavar="tcp://HOST:PORT", help="Run on a Dask scheduler (needs ndbsim[cluster])."
    ),
    shard: str | None = typer.Option(None, "--shard", metavar="I/N", help="Run only shard I of N (1-based)."),
    seed: int | None = typer.Option(None, "--seed", metavar="N", help="Root seed (default: the sweep file's)."),
    set_: list[str] = typer.Option(
        [], "--set", "-s", metavar="KEY=VALUE", help="Set a base key for every point (repeatable)."
    ),
    config_ini: Path | None = CONFIG_INI_OPTION,
    release: str | None = RELEASE_OPTION,
    constants: Path | None = CONSTANTS_OPTION,
    resume: bool = typer.Option(
        False,
        "--resume",
        help="Continue an interrupted sweep: run only the points whose chunks it kept beside the output.",
    ),
) -> None:
    """Run a parameter sweep: one row per point and replication (CSV to stdout, or --output).
    With an output file the finished chunks are kept beside it as they come, so an interrupted
    sweep continues with --resume; they are removed once the output is written."""
    from ndbsim.input.scenario import check_run_counts
    from ndbsim.studies.sweep import check_scheduler, load_sweep, parse_shard
    from ndbsim.studies.sweep.resume import ChunkStore

    check_run_counts(seed, None)
    check_workers(workers)
    parse_shard(shard)
    use_constants(constants)
    if scheduler is not None:
        check_scheduler(scheduler)
    spec = load_sweep(sweep_file)
    for option, value in (("--seed", seed), ("--output", output)):
        key = option.removeprefix("--")
        if value is not None and key in spec["given"]:  # the command line wins; say so
            typer.echo(
                f"ndbsim: warning: {option} {value} is used, not the sweep file's {key}: {spec['given'][key]}", err=True
            )
    target = _sweep_target(sweep_file, output, spec, {"--config-ini": config_ini, "--constants": constants}, scheduler)
    if resume and target is None:
        raise InputError("--resume continues a sweep written to a file; give --output FILE", field="--resume")
    spec["base"], notes = study_base(spec["base"], config_ini, release, set_)
    warn(notes)
    keep = ChunkStore(target) if target is not None else None
    df = _run_points(spec, set_, seed, workers, scheduler, shard, keep, resume)
    if target is not None:
        _write(df, target, keep)
        bad = int((df["status"] != "ok").sum())
        wrote(target, f" ({len(df)} rows, {bad} not ok)")
    else:
        sys.stdout.write(df.to_csv(index=False))


def _write(df: Any, target: Path, keep: Any) -> None:
    """The sweep's rows to ``target``, then its kept chunks removed; a file system that refuses the
    file (full, over quota, read-only) leaves the chunks for ``--resume`` and says so."""
    from ndbsim.output.io import WriteError
    from ndbsim.studies.sweep import write_frame

    try:
        write_frame(df, target)
    except WriteError as e:
        if keep is None or not keep.points_kept:
            raise
        raise InputError(
            f"cannot write {e.path!r}: {e.reason}; nothing was written there; {keep.kept_text('', all_done=True)}",
            field=e.field,
        ) from None
    if keep is not None:
        keep.discard()


def _sweep_target(
    sweep_file: Path, output: Path | None, spec: dict[str, Any], inputs: dict[str, Path | None], scheduler: str | None
) -> Any:
    """Where the rows go (``--output``, else the sweep file's ``output``, else None: stdout),
    checked before any point runs, with the extras it and ``--scheduler`` need."""
    from ndbsim.extras import require
    from ndbsim.output.io import check_not_inputs, check_output_path, stdout_if_dash

    target = stdout_if_dash(output if output is not None else spec["output"])  # -o - wins over the file's
    if target is None:
        if scheduler is not None:
            require("dask.distributed", "--scheduler")
        return None
    option = "--output" if output is not None else "output"
    in_file = None if output is not None else str(sweep_file)
    if target is not None and Path(target).suffix.lower() not in (".csv", ".parquet", ".pq"):
        raise InputError(f"{str(target)!r} has no known suffix; write .csv or .parquet", field=option, source=in_file)
    try:
        check_output_path(target, option)
        check_not_inputs({option: target}, {"sweep": sweep_file, "base scenario": spec["base"], **inputs})
    except InputError as e:
        raise (e.located(in_file) if in_file else e) from None
    if target is not None and Path(target).suffix.lower() != ".csv":
        require("pyarrow", option)
    if scheduler is not None:
        require("dask.distributed", "--scheduler")
    return target


def _run_points(
    spec: dict[str, Any],
    sets: list[str],
    seed: int | None,
    workers: int | None,
    scheduler: str | None,
    shard: str | None,
    keep: Any,
    resume: bool,
) -> Any:
    """The sweep's rows (a DataFrame); each warning its runs raise printed on stderr."""
    import warnings

    from ndbsim.studies.sweep import sweep as run_sweep

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
            overrides=[*spec["overrides"], *sets],
            keep=keep,
            resume=resume,
        )
    for w in caught:
        if issubclass(w.category, UserWarning):
            typer.echo(f"ndbsim: warning: {w.message}", err=True)
    return df
