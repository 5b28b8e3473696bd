"""Bad calibration input (`ndbsim check`, `ndbsim calibrate`): one line on stderr naming the file,
field and value, exit 2, no traceback, nothing on stdout and no file written or left behind."""

from __future__ import annotations

import math
import os
import shutil
from pathlib import Path

import pytest
import yaml

from ndbsim.cli.app import main
from ndbsim.studies.calibration.cases import DEFAULT_DIR

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "dbt2-600wh-7.6.6.yaml"
CASE = "seed003-dbt2-7.6.6.yaml"
HEADER = "node_id,total_restart_secs,secs_restore_fragments,secs_exec_redo_log\n"


@pytest.fixture
def cases(tmp_path) -> Path:
    """A copy of calibration/ (its cases name ../scenarios/...)."""
    d = tmp_path / "calibration"
    shutil.copytree(DEFAULT_DIR, d)
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    return d


def files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*")}


def fails(args: list[str], capsys, root: Path) -> str:
    """Run the CLI in-process; assert exit 2, one line, no traceback, no output, no new files."""
    before = files(root)
    with pytest.raises(SystemExit) as exc:
        main(args)
    out, err = capsys.readouterr()
    assert exc.value.code == 2, err
    assert err.count("\n") == 1 and err.endswith("\n") and err.startswith("ndbsim: error: "), err
    assert "Traceback" not in err and "internal error" not in err
    assert out == ""
    assert files(root) == before, sorted(map(str, files(root) - before))
    return err


def edit_case(cases: Path, change) -> Path:
    f = cases / CASE
    data = yaml.safe_load(f.read_text())
    change(data)
    f.write_text(yaml.safe_dump(data, sort_keys=False))
    return f


def _set(path: str, value):
    def change(data):
        *parents, last = path.split(".")
        cur = data
        for p in parents:
            cur = cur[p]
        cur[last] = value

    return change


def _assume(spec):
    """Set the case's host.core_speed assumption to ``spec`` (its key has a dot: not for ``_set``)."""

    def change(data):
        data.setdefault("assumptions", {})["host.core_speed"] = spec

    return change


def _rename_phase(data):
    ph = data["published"]["phases"]
    ph["secs_bogus"] = ph.pop("secs_exec_redo_log")


def _no_fit(*args, **kwargs):
    raise AssertionError("a simulation or fit ran although the input was bad")


# (id, change to seed003-dbt2-7.6.6.yaml, texts the error line must contain)
CASE_ERRORS = [
    ("total-scalar", _set("published.total_restart_secs", 409), ["published.total_restart_secs:", "409"]),
    (
        "total-no-value",
        _set("published.total_restart_secs", {"tolerance": 0.1}),
        ["published.total_restart_secs.value", "missing"],
    ),
    ("value-word", _set("published.total_restart_secs.value", "abc"), ["total_restart_secs.value", "'abc'"]),
    (
        "tolerance-word",
        _set("published.total_restart_secs.tolerance", "lots"),
        ["total_restart_secs.tolerance", "'lots'"],
    ),
    ("phases-list", _set("published.phases", [1]), ["published.phases", "[1]"]),
    ("phase-number", _set("published.phases.secs_exec_redo_log", 35), ["phases.secs_exec_redo_log", "35"]),
    ("phase-unknown", _rename_phase, ["published.phases.secs_bogus", "secs_bogus"]),
    ("phase-nan", _set("published.phases.secs_exec_redo_log.value", math.nan), ["secs_exec_redo_log.value", "nan"]),
    ("total-zero", _set("published.total_restart_secs.value", 0), ["total_restart_secs.value", "0"]),
    ("total-negative", _set("published.total_restart_secs.value", -400), ["total_restart_secs.value", "-400"]),
    (
        "no-room",
        _set("published.phases.secs_undo_disk_data.abs_tolerance", 0),
        ["secs_undo_disk_data.tolerance", "abs_tolerance 0"],
    ),
    ("phase-key-typo", _set("published.phases.secs_exec_redo_log.tolerence", 0.2), ["did you mean 'tolerance'"]),
    ("replications-word", _set("replications", "x"), ["replications", "'x'"]),
    ("replications-negative", _set("replications", -3), ["replications", "-3"]),
    ("replications-zero", _set("replications", 0), ["replications", "0"]),
    ("replications-huge", _set("replications", 100_000_000), ["replications", "100000000", "1000"]),
    ("seed-negative", _set("seed", -1), ["seed", "-1"]),
    ("overrides-string", _set("overrides", "data.size=1G"), ["overrides", "'data.size=1G'", "list"]),
    ("override-no-equals", _set("overrides", ["data.size"]), ["overrides[0]", "'data.size'"]),
    ("scenario-missing", _set("scenario", "../scenarios/nope.yaml"), ["scenario", "nope.yaml"]),
    ("published-scalar", _set("published", 409), ["published:", "409"]),
    ("role-unknown", _set("role", "check"), ["role", "'check'", "fit, validate, info or reference"]),
    ("info-without-reason", _set("role", "info"), ["reason", "missing", "say why"]),
    (
        "assumption-key-typo",
        _assume({"value": 1.0, "rnage": [0.8, 1.2], "why": "x"}),
        ["did you mean 'range'"],
    ),
    (
        "assumption-without-why",
        _assume({"value": 1.0}),
        ["assumptions.host.core_speed.why", "missing"],
    ),
    (
        "assumption-range-of-three",
        _assume({"value": 1.0, "range": [1, 2, 3], "why": "x"}),
        ["assumptions.host.core_speed.range"],
    ),
    ("assumption-bad-value", _assume({"value": "fast", "why": "x"}), ["core_speed", "fast"]),
    (
        "assumption-bad-range-end",
        _assume({"value": 1.0, "range": [0.8, "fast"], "why": "x"}),
        ["assumptions.host.core_speed.range", "'fast'"],
    ),
]


@pytest.mark.parametrize("change,needles", [c[1:] for c in CASE_ERRORS], ids=[c[0] for c in CASE_ERRORS])
@pytest.mark.parametrize("command", ["check", "calibrate"])
def test_case_file_errors(command, change, needles, cases, capsys, tmp_path, monkeypatch):
    """Every case is checked when it is loaded, before anything is simulated."""
    import ndbsim.studies.calibration.calibrate
    import ndbsim.studies.calibration.check

    monkeypatch.setattr(ndbsim.studies.calibration.check, "run_case", _no_fit)
    monkeypatch.setattr(ndbsim.studies.calibration.calibrate, "fit", _no_fit)
    f = edit_case(cases, change)
    args = [command, "--cases", str(cases)]
    args += ["--no-claims"] if command == "check" else ["--output", str(tmp_path / "k.yaml")]
    err = fails(args, capsys, tmp_path)
    assert f"{f}: " in err, err
    for needle in needles:
        assert needle in err, err


@pytest.mark.parametrize("command", ["check", "calibrate"])
def test_empty_cases_directory(command, capsys, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    args = [command, "--cases", str(empty)]
    args += ["--no-claims"] if command == "check" else ["--output", str(tmp_path / "k.yaml")]
    err = fails(args, capsys, tmp_path)
    assert "no calibration cases (*.yaml)" in err and str(empty) in err


# (id, CSV bytes, texts the error line must contain)
CSV_ERRORS = [
    ("total-word", HEADER + "2,abc,140,30\n", ["total_restart_secs", "'abc'", "line 2"]),
    ("node-word", HEADER + "x,415,140,30\n", ["node_id", "'x'", "line 2"]),
    ("total-nan", HEADER + "2,nan,140,30\n", ["total_restart_secs", "'nan'", "finite"]),
    ("phase-inf", HEADER + "2,415,inf,30\n", ["secs_restore_fragments", "'inf'", "finite"]),
    ("total-negative", HEADER + "2,-400,140,30\n", ["total_restart_secs", "'-400'", "negative"]),
    ("total-absurd", HEADER + "2,1e308,140,30\n", ["total_restart_secs", "'1e308'"]),
    ("total-zero", HEADER + "2,0,0,0\n", ["total_restart_secs", "'0'"]),
    ("space-delimited", HEADER.replace(",", " ") + "2 415 140 30\n", ["node_id", "spaces"]),
    ("extra-values", HEADER + "2,415,140,30,99\n", ["line 2", "5 values"]),
    ("binary", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", ["not a UTF-8 text file"]),
]


def calibrate_args(cases: Path, csv: Path, tmp_path: Path, *extra: str) -> list[str]:
    return [
        "calibrate",
        "--cases",
        str(cases),
        "--restart-info",
        str(csv),
        "--scenario",
        str(SCENARIO),
        "--output",
        str(tmp_path / "k.yaml"),
        *extra,
    ]


@pytest.mark.parametrize("content,needles", [c[1:] for c in CSV_ERRORS], ids=[c[0] for c in CSV_ERRORS])
def test_restart_info_errors(content, needles, cases, capsys, tmp_path):
    csv = tmp_path / "ri.csv"
    if isinstance(content, bytes):
        csv.write_bytes(content)
    else:
        csv.write_text(content)
    err = fails(calibrate_args(cases, csv, tmp_path), capsys, tmp_path)
    assert str(csv) in err
    for needle in needles:
        assert needle in err, err
    assert not (cases / "user-ri.yaml").exists()


def test_restart_info_is_a_directory(cases, capsys, tmp_path):
    err = fails(calibrate_args(cases, tmp_path, tmp_path), capsys, tmp_path)
    assert "--restart-info" in err and "directory" in err and str(tmp_path) in err


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--scenario", str(SCENARIO)], "--scenario"),
        (["--node", "2"], "--node"),
    ],
    ids=["scenario-alone", "node-alone"],
)
def test_restart_info_options_alone(args, needle, cases, capsys, tmp_path, monkeypatch):
    import ndbsim.studies.calibration.calibrate

    monkeypatch.setattr(ndbsim.studies.calibration.calibrate, "fit", _no_fit)
    err = fails(["calibrate", "--cases", str(cases), "--output", str(tmp_path / "k.yaml"), *args], capsys, tmp_path)
    assert needle in err and "--restart-info" in err


def test_case_not_written_when_output_directory_is_missing(cases, capsys, tmp_path, monkeypatch):
    """The imported case is written only after the fit and the output check succeeded."""
    import ndbsim.studies.calibration.calibrate

    monkeypatch.setattr(ndbsim.studies.calibration.calibrate, "fit", _no_fit)
    csv = tmp_path / "ri.csv"
    csv.write_text(HEADER + "2,415,140,30\n")
    args = calibrate_args(cases, csv, tmp_path)
    args[args.index("--output") + 1] = str(tmp_path / "nodir" / "x.yaml")
    err = fails(args, capsys, tmp_path)
    assert "--output" in err and "nodir" in err
    assert not (cases / "user-ri.yaml").exists()


def test_case_not_written_when_another_case_is_bad(cases, capsys, tmp_path):
    edit_case(cases, _set("replications", "x"))
    csv = tmp_path / "ri.csv"
    csv.write_text(HEADER + "2,415,140,30\n")
    err = fails(calibrate_args(cases, csv, tmp_path, "--fit", "constants"), capsys, tmp_path)
    assert CASE in err and "replications" in err
    assert not (cases / "user-ri.yaml").exists()


def output_targets(tmp_path: Path) -> list[tuple[str, str]]:
    out = [("directory", str(tmp_path)), ("missing-directory", str(tmp_path / "nodir" / "x.yaml"))]
    if os.path.isdir("/proc"):
        out.append(("proc", "/proc/x.yaml"))
    if os.path.exists("/dev/null"):
        out.append(("device", "/dev/null"))
    return out


@pytest.mark.parametrize("which", ["directory", "missing-directory", "proc", "device"])
def test_bad_output_is_refused_before_the_fit(which, capsys, tmp_path, monkeypatch):
    import ndbsim.studies.calibration.calibrate

    targets = dict(output_targets(tmp_path))
    if which not in targets:
        pytest.skip(f"no {which} target on this system")
    monkeypatch.setattr(ndbsim.studies.calibration.calibrate, "fit", _no_fit)
    err = fails(["calibrate", "--output", targets[which]], capsys, tmp_path)
    assert "--output" in err and targets[which] in err


def test_output_inside_cases_directory_is_refused(cases, capsys, tmp_path, monkeypatch):
    import ndbsim.studies.calibration.calibrate

    monkeypatch.setattr(ndbsim.studies.calibration.calibrate, "fit", _no_fit)
    err = fails(["calibrate", "--cases", str(cases), "--output", str(cases / "k.yaml")], capsys, tmp_path)
    assert "--output" in err and "calibration case" in err
