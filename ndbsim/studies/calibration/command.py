"""``ndbsim calibrate`` from its options: every option checked first, then the fit in memory,
then the files, so bad input or a refused fit leaves nothing behind (``user_fit`` has the fits)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ndbsim.errors import InputError
from ndbsim.input.profiles import CALIBRATED_FILE
from ndbsim.output.io import check_not_inputs, check_output_path
from ndbsim.studies.calibration.calibrate import save_calibration
from ndbsim.studies.calibration.cases import DEFAULT_DIR
from ndbsim.studies.calibration.user_fit import (
    USER_CASES,
    Report,
    cases_for_constants,
    constants_fit,
    host_fit,
    import_rows,
    judge,
    write_case,
)

FIT_MODES = ("host", "constants")
"""``--fit``: the imported cluster's host figures (the default with ``--restart-info``), or the
shared model constants (the default without)."""


@dataclass
class Options:
    """``ndbsim calibrate``'s options, as given (None: not given)."""

    cases: Path | None
    restart_info: Path | None
    scenario: Path | None
    node: int | None
    output: Path | None
    replace_packaged: bool
    fit: str | None
    accept_worse: bool
    progress: bool
    user_constants: Path
    sets: tuple[str, ...] = ()
    """``--set`` assignments laid over ``--scenario`` before its rows are matched and fitted."""


def _check_import_options(o: Options) -> None:
    if o.restart_info is None:
        for given, name in ((o.scenario, "--scenario"), (o.node, "--node"), (o.sets or None, "--set")):
            if given is not None:
                raise InputError(
                    f"{name} is only used with --restart-info; add --restart-info CSV or drop {name}", field=name
                )
        if o.fit == "host":
            raise InputError(
                "--fit host fits an import's cluster; add --restart-info CSV --scenario FILE", field="--fit"
            )
    elif o.scenario is None:
        raise InputError("--restart-info needs --scenario: the scenario file of that cluster", field="--scenario")
    if o.node is not None and not 1 <= o.node <= 255:
        raise InputError(f"{o.node} is not a node id; give a data node id 1-255", field="--node")
    if o.fit is not None and o.fit not in FIT_MODES:
        raise InputError(f"{o.fit!r} is not a fit; use host or constants", field="--fit")


def _constants_target(o: Options, directory: Path) -> Path:
    if o.replace_packaged and o.output is not None:
        raise InputError(
            "--replace-packaged writes the packaged constants; drop --output, or drop --replace-packaged",
            field="--output",
        )
    target = CALIBRATED_FILE if o.replace_packaged else Path(o.output if o.output is not None else o.user_constants)
    if target.resolve() == CALIBRATED_FILE.resolve() and not o.replace_packaged:
        raise InputError(
            f"{str(target)!r} is the packaged constants file; add --replace-packaged to overwrite it", field="--output"
        )
    check_output_path(target, "--output")
    check_not_inputs({"--output": target}, {"--restart-info": o.restart_info, "--scenario": o.scenario})
    if target == CALIBRATED_FILE:  # the package's own files: models with their own constants write beside
        from ndbsim.models.registry import MODELS

        for model in MODELS.values():
            if model.constants_file is not None:
                check_output_path(model.constants_file, "--output")
    if target.suffix.lower() in (".yaml", ".yml") and target.resolve().parent == directory.resolve():
        raise InputError(
            f"{str(target)!r} is in the cases directory, where it would be read as a calibration case; write it "
            "elsewhere",
            field="--output",
        )
    return target


CALIBRATED_SUFFIX = ".calibrated"
"""What a host fit's scenario is called beside the scenario it fitted (``my.yaml`` →
``my.calibrated.yaml``): no command writes over one of its inputs."""


def calibrated_path(scenario: Path) -> Path:
    """The file a host fit writes unless ``--output`` names one: beside the scenario, never over it."""
    return scenario.with_name(f"{scenario.stem}{CALIBRATED_SUFFIX}{scenario.suffix or '.yaml'}")


def _cases_dir(o: Options, importing: bool) -> Path:
    if o.cases is not None:
        if o.cases.exists() and not o.cases.is_dir():
            raise InputError(
                f"{str(o.cases)!r} is not a directory of calibration cases; check the path", field="--cases"
            )
        if not o.cases.is_dir() and not importing:
            raise InputError(
                f"{str(o.cases)!r} is not a directory of calibration cases; check the path", field="--cases"
            )
        return o.cases
    if importing:
        return USER_CASES
    if not DEFAULT_DIR.is_dir():
        raise InputError(
            f"no calibration cases at {str(DEFAULT_DIR)!r}: they ship with the repository, not the package; run "
            "from a clone (pip install -e .) or pass --cases DIR",
            field="--cases",
        )
    return DEFAULT_DIR


def run(o: Options) -> Report:
    """Check the options, fit, write; the report says what happened (``refused``: exit 1)."""
    _check_import_options(o)
    importing = o.restart_info is not None
    mode = o.fit or ("host" if importing else "constants")
    directory = _cases_dir(o, importing)
    if importing and o.replace_packaged and mode == "host":
        raise InputError(
            "--replace-packaged writes constants; add --fit constants, or drop it", field="--replace-packaged"
        )
    imported = None
    if importing:
        assert o.restart_info is not None and o.scenario is not None
        if directory.resolve() == DEFAULT_DIR.resolve():
            raise InputError(
                f"{str(directory)!r} holds the published cases; import into a folder of yours (the default "
                f"{USER_CASES}/)",
                field="--cases",
            )
        if directory.is_dir():
            check_output_path(directory / "user-x.yaml", "--cases")
        imported = import_rows(o.restart_info, o.scenario, o.node, directory, o.sets)
    if mode == "host":
        assert imported is not None and o.scenario is not None
        out = Path(o.output) if o.output is not None else calibrated_path(o.scenario)
        check_output_path(out, "--output")
        check_not_inputs(
            {"--output": out, "--cases": imported.path}, {"--restart-info": o.restart_info, "--scenario": o.scenario}
        )
        return host_fit(imported, o.scenario, out, o.progress)
    target = _constants_target(o, directory)
    published = DEFAULT_DIR if importing else directory
    extra = [imported.case] if imported is not None else []
    cases = cases_for_constants(published, directory if importing else None, extra)
    innodb_dir = directory if any(directory.glob("innodb-*.yaml")) else DEFAULT_DIR
    result, changes = constants_fit(cases, o.progress, innodb_dir)
    report = judge(changes, o.accept_worse)
    if report.refused:
        return report
    if imported is not None:
        write_case(imported, report)
    save_calibration(result, target)
    for name, value in result.constants.__dict__.items():
        report.add(f"{name:22s} {value:.4g}")
    if target == CALIBRATED_FILE:
        report.wrote(f"wrote {CALIBRATED_FILE} (the packaged constants, used by default)")
    else:
        report.wrote(
            f"wrote {target}; use it with --constants {target} (run, check, sweep) or ndbsim.use_constants() in "
            "Python; --replace-packaged makes a fit the default"
        )
    return report
