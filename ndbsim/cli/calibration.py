"""``ndbsim check`` and ``calibrate``: the model against the published restarts (a gate: exit 0
or 1), how far a fit carries (``--cross``), and the fits (``ndbsim.studies.calibration.command``):
an import's host figures, or the shared constants under the refusal rule."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ndbsim.cli.help import SET_HELP
from ndbsim.cli.options import CONSTANTS_OPTION, USER_CONSTANTS, add_commands, use_constants
from ndbsim.errors import InputError
from ndbsim.output.stdout import fit as fit_width


def register(app: typer.Typer) -> None:
    """Add ``check`` and ``calibrate`` to the command line."""
    _calibrate_help()
    add_commands(app, check, calibrate)


def _cases_dir(cases: Path | None) -> Path:
    """The calibration cases directory: ``--cases``, else the repository's ``calibration/``."""
    from ndbsim.studies.calibration.cases import DEFAULT_DIR

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


def check(
    cases: Path | None = typer.Option(
        None, "--cases", metavar="DIR", help="Directory of calibration cases (default: calibration/)."
    ),
    no_claims: bool = typer.Option(False, "--no-claims", help="Skip the variance and qualitative checks."),
    cross: bool = typer.Option(
        False,
        "--cross",
        help="Also refit the constants without each fit case's release family and predict it "
        "(leave-one-family-out; InnoDB's cases one at a time); ends with 'held-out coverage: K of N', "
        "the held-out totals (InnoDB's too) inside their predictive p5–p95, the median width, and what "
        "each model error rests on.",
    ),
    constants: Path | None = CONSTANTS_OPTION,
) -> None:
    """Predicted vs published for every calibration case, judged by a stated rule (printed under
    the table, and in calibration/README.md). A figure passes on its point: the case's assumptions
    at the values its file fixed beforehand (the median over the crash's landing points in the LCP
    cycle) within the figure's tolerance of the published one. A fit figure whose p5-p95 over the
    landing points reaches beyond that tolerance was published from one run, one draw of the
    spread: it passes when the published figure lies inside the p5-p95. Validation figures are
    always judged on their point. The column `rule` says which rule judged each row; the interval
    over the assumptions' ranges is shown as a sensitivity, not a pass band, beside the prediction
    at NDB's defaults. Exit 0 when every fit and validation figure and every claim passes, 1
    otherwise; info and reference cases are printed with their reason and not counted."""
    from ndbsim.studies.calibration.check import failed, format_check, run_check

    use_constants(constants)
    checked, found = run_check(_cases_dir(cases), claims=not no_claims)
    typer.echo(fit_width(format_check(checked, found)), nl=False)
    if cross:
        from ndbsim.studies.calibration.cross import (
            coverage_lines,
            format_cross,
            format_own_held_out,
            own_as_held,
            own_held_out,
        )
        from ndbsim.studies.calibration.cross import cross as leave_one_out

        typer.echo("\nleave-one-out: each fit case predicted by constants fitted without its release family")
        found_ndb = leave_one_out(_cases_dir(cases), sys.stderr.isatty())
        typer.echo(fit_width(format_cross(found_ndb)), nl=False)
        held = own_held_out(_cases_dir(cases))
        if held:
            typer.echo("\nleave-one-out, models with constants of their own (InnoDB, seed 002)")
            typer.echo(fit_width(format_own_held_out(held)), nl=False)
        typer.echo(fit_width("\n".join(coverage_lines(found_ndb + own_as_held(held)))))
    if failed(checked, found):
        raise typer.Exit(1)


def calibrate(
    cases: Path | None = typer.Option(
        None,
        "--cases",
        metavar="DIR",
        help="Directory of calibration cases (default: calibration/; with --restart-info, ./ndbsim-cases/).",
    ),
    restart_info: Path | None = typer.Option(
        None, "--restart-info", metavar="FILE.csv", help="CSV export of ndbinfo.restart_info: your own restarts."
    ),
    scenario: Path | None = typer.Option(
        None, "--scenario", metavar="SCENARIO.yaml", help="The scenario of that cluster (its NodeIds, its hosts)."
    ),
    node: int | None = typer.Option(None, "--node", metavar="NODEID", help="Only this node's rows (default: all)."),
    fit: str | None = typer.Option(
        None,
        "--fit",
        metavar="host|constants",
        help="What to fit: the imported cluster's host figures (default with --restart-info) or the shared "
        "model constants (default without).",
    ),
    output: Path | None = typer.Option(
        None,
        "--output",
        "-o",
        metavar="FILE.yaml",
        help=f"Where to write the fit: the scenario with its fitted host figures (default: beside --scenario, "
        f"my.yaml -> my.calibrated.yaml; never over an input), "
        f"or the constants (default: ./{USER_CONSTANTS}).",
    ),
    replace_packaged: bool = typer.Option(
        False, "--replace-packaged", help="Write the packaged constants, which every run uses by default."
    ),
    accept_worse: bool = typer.Option(
        False, "--accept-worse", help="Write a constants fit even when it puts a published case out of tolerance."
    ),
    set_: list[str] = typer.Option(
        [], "--set", "-s", metavar="KEY=VALUE", help=f"With --scenario: {SET_HELP[0].lower()}{SET_HELP[1:]}"
    ),
) -> None:
    """With --restart-info: your rows, node by node, fit your cluster's host figures (core speed,
    disks, latency, network, memory touch), written beside your scenario (my.yaml ->
    my.calibrated.yaml; your scenario stays as it is). Otherwise (or --fit
    constants): refit the shared model constants; a fit that puts a published case out of
    tolerance is refused (exit 1) unless --accept-worse. restart_info's columns hold:

    \b
    {mapping}
    """
    from ndbsim.studies.calibration.command import Options, run

    tty = sys.stderr.isatty()
    args = (cases, restart_info, scenario, node, output, replace_packaged, fit, accept_worse, tty, Path(USER_CONSTANTS))
    report = run(Options(*args, sets=tuple(set_)))
    typer.echo(fit_width(report.text), nl=False)
    for line in report.files:
        typer.echo(fit_width(line, stream=sys.stderr), err=True)
    if report.refused:
        raise typer.Exit(1)


def _calibrate_help() -> None:
    """``calibrate -h`` shows restart_info's columns and the phases they hold (one table, shared
    with calibration/README.md)."""
    from ndbsim.input.restart_info import mapping_table

    doc = calibrate.__doc__ or ""
    calibrate.__doc__ = doc.replace("{mapping}", mapping_table().replace("\n", "\n    "))
