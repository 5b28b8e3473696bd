"""One command line: every command announces each file it writes on stderr, prints its warnings on
stderr (JSON and CSV carry them as fields), shows real metavars, defaults and examples in its
help, and the studies take ``--config-ini`` as ``run`` does. Through the CLI, as a user runs it."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from _helpers import ndbsim
from conftest import ROOT

TINY = str(ROOT / "scenarios" / "lab-2node-7.5.4-tiny.yaml")
COMMANDS = (
    "run",
    "compare",
    "validate",
    "init",
    "params",
    "ndbinfo-sql",
    "check",
    "calibrate",
    "eta",
    "sweep",
    "advise",
    "solve",
    "report",
)
CROWDED_INI = "[ndbd default]\nNoOfReplicas=2\nMaxNoOfExecutionThreads=16\n[ndbd]\n[ndbd]\n"
"""A config.ini that changes the tiny scenario's total (16 execution threads on its 2 hardware
threads) and makes a run warn that the threads crowd the host."""
CROWDED = "asks for more threads than the host's 2 hardware threads"
QUICK_ADVICE = ("-n", "2", "-w", "1", "-l", "BuildIndexThreads")


def test_the_commands_listed_are_every_command():
    from typer.main import get_command

    from ndbsim.cli.app import app

    assert tuple(get_command(app).commands) == COMMANDS


@pytest.mark.parametrize("command", COMMANDS)
def test_every_help_shows_real_metavars_defaults_and_an_example(command):
    p = ndbsim(command, "-h")
    assert p.returncode == 0, p.stderr
    assert not re.search(r"<[a-z][a-z\[\]]*>", p.stdout), p.stdout  # typer's <path>, <str>, <list[str]>
    assert re.search(r"\n  Examples:\n +ndbsim ", p.stdout)
    for line in p.stdout.split("Options:")[1].split("Examples:")[0].split("\n  -"):
        if line.startswith("n, --replications"):
            assert "default:" in " ".join(line.split()), line


def test_the_study_replications_help_states_the_studies_default():
    from ndbsim.cli.help import STUDY_REPLICATIONS
    from ndbsim.studies.advise.study import ADVISE_REPLICATIONS

    assert STUDY_REPLICATIONS == ADVISE_REPLICATIONS


def test_debug_is_in_the_help_and_works_after_the_command():
    assert "--debug" in ndbsim("-h").stdout
    p = ndbsim("run", TINY, "--set", "data.size=x", "--debug")
    assert p.returncode != 0 and "Traceback" in p.stderr and "InputError" in p.stderr


def _announced(p, *paths):
    assert p.returncode == 0, p.stderr
    for path in paths:
        assert path.exists(), path
        assert any(line.startswith(f"wrote {path}") for line in p.stderr.splitlines()), p.stderr


def test_run_announces_its_output_and_chart(tmp_path):
    out, chart = tmp_path / "r.json", tmp_path / "r.svg"
    p = ndbsim("run", TINY, "-o", str(out), "--gantt", str(chart))
    _announced(p, out, chart)
    assert p.stdout == "" and json.loads(out.read_text())["status"] == "ok"


def test_advise_announces_its_output_and_chart(tmp_path):
    out, chart = tmp_path / "a.txt", tmp_path / "a.svg"
    p = ndbsim("advise", TINY, *QUICK_ADVICE, "-o", str(out), "--chart", str(chart))
    _announced(p, out, chart)
    assert p.stdout == "" and "BuildIndexThreads" in out.read_text()


def test_solve_writes_and_announces_its_output(tmp_path):
    out = tmp_path / "answer.json"
    p = ndbsim("solve", "redo-log", TINY, "-n", "2", "-f", "json", "-o", str(out))
    _announced(p, out)
    assert p.stdout == "" and json.loads(out.read_text())["parameter"] == "NoOfFragmentLogFiles"


def test_init_and_sweep_announce_their_files(tmp_path):
    scenario = tmp_path / "my.yaml"
    _announced(ndbsim("init", "-o", str(scenario)), scenario)
    sweep = tmp_path / "s.yaml"
    sweep.write_text(f"base: {TINY}\nfactors: {{data.size: [5MB, 10MB]}}\n")
    rows = tmp_path / "rows.csv"
    p = ndbsim("sweep", str(sweep), "-w", "1", "-o", str(rows))
    _announced(p, rows)
    assert f"wrote {rows} (2 rows, 0 not ok)" in p.stderr


def test_run_warns_on_stderr_in_every_format_and_keeps_them_in_json_and_csv():
    args = ("run", TINY, "--set", "cluster.config.MaxNoOfExecutionThreads=16")
    table = ndbsim(*args)
    assert f"ndbsim: warning: the thread layout (MaxNoOfExecutionThreads=16: 16 execution threads) {CROWDED}" in (
        table.stderr
    )
    assert "warning" not in table.stdout and "restart total:" in table.stdout
    as_json = ndbsim(*args, "-f", "json")
    assert CROWDED in as_json.stderr and any(CROWDED in w for w in json.loads(as_json.stdout)["warnings"])
    as_csv = ndbsim(*args, "-f", "csv")
    assert CROWDED in as_csv.stderr and CROWDED in next(csv.DictReader(io.StringIO(as_csv.stdout)))["warnings"]


def test_validate_advise_and_solve_warn_on_stderr(tmp_path):
    ini = tmp_path / "odirect.ini"
    ini.write_text("[ndbd default]\nNoOfReplicas=2\nMaxNoOfExecutionThreads=2\nODirect=1\n[ndbd]\n[ndbd]\n")
    given = (TINY, "--config-ini", str(ini))
    no_nodes = "ndbsim: warning: odirect.ini: ODirect is not simulated"
    v = ndbsim("validate", *given)
    assert v.returncode == 0 and no_nodes in v.stderr and "warning" not in v.stdout
    a = ndbsim("advise", *given, *QUICK_ADVICE, "-f", "json")
    assert a.returncode == 0 and no_nodes in a.stderr
    assert any(w.startswith("odirect.ini: ODirect is not simulated") for w in json.loads(a.stdout)["warnings"])
    s = ndbsim("solve", "redo-log", *given, "-n", "2")
    assert s.returncode == 0 and no_nodes in s.stderr and "warning" not in s.stdout


@pytest.fixture
def crowded_ini(tmp_path):
    ini = tmp_path / "config.ini"
    ini.write_text(CROWDED_INI)
    return str(ini)


def _total(*args):
    p = ndbsim(*args, "-f", "json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_advise_reads_a_config_ini_as_run_does(crowded_ini):
    run = _total("run", TINY, "--config-ini", crowded_ini, "-n", "2")["total_restart_secs"]
    plain = _total("run", TINY, "-n", "2")["total_restart_secs"]
    assert run != plain  # the config.ini changes this restart
    advice = _total("advise", TINY, "--config-ini", crowded_ini, *QUICK_ADVICE)
    assert advice["base"]["total_restart_secs"] == pytest.approx(run, rel=1e-12)
    assert advice["config_ini"] == crowded_ini and any(CROWDED in w for w in advice["warnings"])


def test_solve_reads_a_config_ini_and_its_check_command_reproduces_the_answer(crowded_ini):
    p = ndbsim("solve", "redo-log", TINY, "--config-ini", crowded_ini, "-n", "2")
    assert p.returncode == 0, p.stderr
    check = re.search(r"check: (ndbsim run .*)\)$", p.stdout, re.M)
    assert check and "--config-ini" in check.group(1)
    answer = _total("solve", "redo-log", TINY, "--config-ini", crowded_ini, "-n", "2")
    args = check.group(1).split()[1:]
    assert _total(*args)["total_restart_secs"] == pytest.approx(answer["answer_run"]["total_restart_secs"], rel=1e-12)


def test_sweep_reads_a_config_ini_as_its_set_would(tmp_path, crowded_ini):
    sweep = tmp_path / "s.yaml"
    sweep.write_text(f"base: {TINY}\nfactors: {{data.size: [5MB, 10MB]}}\n")

    def totals(*args):
        p = ndbsim("sweep", str(sweep), "-w", "1", *args)
        assert p.returncode == 0, p.stderr
        return [float(r["total_restart_secs"]) for r in csv.DictReader(io.StringIO(p.stdout))]

    with_ini = totals("--config-ini", crowded_ini)
    assert with_ini == totals("--set", "cluster.config.MaxNoOfExecutionThreads=16")
    assert with_ini != totals()


def test_validate_takes_the_release_options_and_no_scenario_as_run_does(tmp_path):
    """validate checks what run would simulate: no scenario (the built-in default), and a
    config.ini with --version, refused without it exactly as run refuses it."""
    ini = tmp_path / "mine.ini"
    ini.write_text("[ndbd default]\nNoOfReplicas=2\nDataMemory=8G\n[ndbd]\nNodeId=21\n[ndbd]\nNodeId=31\n")
    plain = ndbsim("validate")
    assert plain.returncode == 0 and "valid (7.6.6" in plain.stdout
    v = ndbsim("validate", "--config-ini", str(ini), "--version", "8.4.3")
    assert v.returncode == 0 and "valid (8.4.3" in v.stdout, v.stderr
    for command in ("validate", "run"):
        p = ndbsim(command, "--config-ini", str(ini))
        assert p.returncode == 2 and "--version" in p.stderr and "Traceback" not in p.stderr


def test_every_command_that_reads_a_scenario_takes_set_as_run_does():
    """A command given a scenario or a config.ini (params, calibrate too) takes ``--set``/``-s``:
    the restart type of a calibration's rows is a --set, not an edited copy of the scenario."""
    import typer

    from ndbsim.cli.app import app

    readers = {}
    for name, command in typer.main.get_command(app).commands.items():
        params = {p.name: p for p in command.params}
        if {"scenario", "scenarios", "config_ini", "sweep_file"} & set(params):
            readers[name] = params.get("set_")
    assert {"params", "calibrate", "run", "init", "sweep"} <= set(readers)
    lacking = sorted(name for name, option in readers.items() if option is None or "-s" not in option.opts)
    assert lacking == []
