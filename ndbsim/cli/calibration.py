"""``ndbsim check`` and ``calibrate``: the model against the published restarts, and the refit of
its free constants on them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from ndbsim.cli.options import CONSTANTS_OPTION, USER_CONSTANTS, add_commands, use_constants, warn, wrote
from ndbsim.errors import InputError

if TYPE_CHECKING:
    from ndbsim.studies.calibrate import Calibration


def register(app: typer.Typer) -> None:
    """Add ``check`` and ``calibrate`` to the command line."""
    add_commands(app, check, calibrate)


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


def check(
    cases: Path | None = typer.Option(
        None, "--cases", metavar="DIR", help="Directory of calibration cases (default: calibration/)."
    ),
    no_claims: bool = typer.Option(False, "--no-claims", help="Skip the variance and qualitative checks."),
    constants: Path | None = CONSTANTS_OPTION,
) -> None:
    """Predicted vs published for every calibration case; exit 1 if any is outside tolerance."""
    from ndbsim.studies.check import format_check, run_check

    use_constants(constants)
    rows, found = run_check(_cases_dir(cases), claims=not no_claims)
    typer.echo(format_check(rows, found), nl=False)
    if any(not r.ok for r in rows) or any(not c.ok for c in found):
        raise typer.Exit(1)


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
    from ndbsim.output.io import atomic_write_text
    from ndbsim.studies.calibrate import run_calibration, save_calibration

    # Every check of the options first, then the fit in memory, then the files: bad input or a
    # failed fit leaves nothing behind, not even the imported case.
    _check_restart_info_options(restart_info, scenario, node)
    directory = _cases_dir(cases)
    target = _constants_target(output, replace_packaged, directory, restart_info, scenario)
    case_file, case = _imported_case(directory, target, restart_info, scenario, node)
    extra = []
    if case_file is not None:
        from ndbsim.studies.calibration import case_from_data

        extra.append(case_from_data(case, case_file))
    result = run_calibration(directory, extra)
    if case_file is not None:
        import yaml

        atomic_write_text(case_file, yaml.safe_dump(case, sort_keys=False), "--cases")
        wrote(case_file, " (a calibration case)")
    save_calibration(result, target)
    _report_fit(result, target, replace_packaged, directory)


def _check_restart_info_options(restart_info: Path | None, scenario: Path | None, node: int | None) -> None:
    """--scenario and --node belong to --restart-info, which needs --scenario."""
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


def _constants_target(
    output: Path | None, replace_packaged: bool, directory: Path, restart_info: Path | None, scenario: Path | None
) -> Path:
    """The file the fit goes to, checked: the user's (``--output``, else ./ndbsim-constants.yaml),
    or with ``--replace-packaged`` the packaged constants (and those of every model beside them)."""
    from ndbsim.input.profiles import CALIBRATED_FILE
    from ndbsim.output.io import check_not_inputs, check_output_path

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
    return target


def _imported_case(
    directory: Path, target: Path, restart_info: Path | None, scenario: Path | None, node: int | None
) -> tuple[Path | None, Any]:
    """With ``--restart-info``: the case file it will become in the cases directory, and the case
    read from the CSV and its scenario (both checked, nothing written yet); else (None, None)."""
    if restart_info is None or scenario is None:  # --scenario was required with --restart-info
        return None, None
    from ndbsim.input import scenario as sc
    from ndbsim.output.io import check_not_inputs, check_output_path
    from ndbsim.studies.calibrate import case_from_restart_info

    case_file = directory / f"user-{Path(restart_info).stem}.yaml"
    check_output_path(case_file, "--cases")
    check_not_inputs(
        {"--output": target, "--cases": case_file}, {"--restart-info": restart_info, "--scenario": scenario}
    )
    sc.load(scenario)  # must be valid
    return case_file, case_from_restart_info(restart_info, scenario, node)


def _report_fit(result: Calibration, target: Path, replace_packaged: bool, directory: Path) -> None:
    """Where the fit went, its constants and residuals, and a warning for each published figure
    it puts outside its tolerance."""
    from ndbsim.input.profiles import CALIBRATED_FILE
    from ndbsim.studies.check import broken_cases

    if not replace_packaged:
        wrote(
            target,
            f"; use it with --constants {target} (run, check, sweep, advise, solve) or ndbsim.use_constants() in "
            "Python; --replace-packaged makes a fit the default",
        )
    else:
        wrote(CALIBRATED_FILE, " (the packaged constants, used by default)")
    for name, value in result.constants.__dict__.items():
        typer.echo(f"{name:22s} {value:.4g}")
    typer.echo("residuals: relative error (+0.01 is 1% high), or seconds where the published figure is 0 s")
    for case_name, figs in result.residuals.items():
        typer.echo(f"{case_name}: " + ", ".join(f"{k.removeprefix('secs_')} {v:+.3g}" for k, v in figs.items()))
    broken = broken_cases(target, directory)
    if broken:
        warn(
            [
                f"with these constants {len(broken)} published figure(s) fall outside their tolerance "
                f"({', '.join(broken[:4])}{'…' if len(broken) > 4 else ''}); see ndbsim check --constants {target}"
            ]
        )
