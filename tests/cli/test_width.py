"""Text that fits the terminal (issue 47 item 5): every command a new user runs on the
conf-daily-perf cluster (tests/data/daily-perf-8.0.40) prints no line wider than COLUMNS, on
standard output and standard error, at 80, 100 and 200 columns; JSON is the same at every width.
Where a line is too wide it wraps (``ndbsim.output.stdout``): the phase table puts the nodes that do
not fit in a block of their own, a why's figures go on continuation lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _helpers import ETA_START, eta_cluster

from ndbsim.studies.eta.replay import snapshot_text

DATA = Path(__file__).resolve().parents[1] / "data" / "daily-perf-8.0.40"
LINES = (DATA / "init-sets.txt").read_text().splitlines()
SETS = [a for ln in LINES if ln and not ln.startswith("#") for a in ("-s", ln)]
WIDTHS = (80, 100, 200)

COMMANDS = {
    "validate": ["validate", "my.yaml"],
    "run": ["run", "my.yaml"],
    "run --why": ["run", "my.yaml", "--why"],
    "run rolling": ["run", "my.yaml", "-s", "restart.type=rolling"],
    "compare": ["compare", "my.yaml", "--set", "host.disk_write=1G"],
    "advise": ["advise", "my.yaml", "-n", "2"],
    "solve": ["solve", "redo-log", "my.yaml"],
    "params": ["params", "--version", "8.0.40"],
    "report": ["report", "my.yaml", "-o", "r.html", "--no-advise", "-n", "2"],
}


def run(args: list[str], cwd: Path, columns: int | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = str(columns)
    return subprocess.run(
        [sys.executable, "-m", "ndbsim", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=600
    )


def wide(p: subprocess.CompletedProcess[str], columns: int) -> list[str]:
    return [ln for ln in (p.stdout + p.stderr).splitlines() if len(ln) > columns]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("width")
    p = run(["init", "--config-ini", str(DATA / "config.ini"), "--version", "8.0.40", *SETS, "-o", "my.yaml"], d, 80)
    assert p.returncode == 0, p.stderr
    assert not wide(p, 80), wide(p, 80)
    return d


@pytest.mark.parametrize("columns", WIDTHS)
@pytest.mark.parametrize("name", list(COMMANDS))
def test_no_line_is_wider_than_the_terminal(name, columns, cluster):
    p = run(COMMANDS[name], cluster, columns)
    assert p.returncode == 0, p.stderr
    assert p.stdout or name == "report"
    assert not wide(p, columns), "\n".join(wide(p, columns))


def test_without_columns_and_a_terminal_the_width_is_100(cluster):
    p = run(COMMANDS["run --why"], cluster, None)
    assert p.returncode == 0, p.stderr
    assert not wide(p, 100) and any(len(ln) > 80 for ln in p.stdout.splitlines())


def test_check_fits(tmp_path):
    p = run(["check"], tmp_path, 80)
    assert p.returncode in (0, 1), p.stderr
    assert not wide(p, 80), "\n".join(wide(p, 80))


@pytest.mark.parametrize("columns", WIDTHS)
def test_eta_fits(columns, tmp_path_factory):
    c = eta_cluster(tmp_path_factory, f"eta-width-{columns}")
    (c["dir"] / "now.tsv").write_text(snapshot_text(c["rows"], [[11, 13], [12, 14]], ETA_START, ETA_START + 400))
    p = run(["eta", "my.yaml", "--ndbinfo", "now.tsv"], c["dir"], columns)
    assert p.returncode == 0, p.stderr
    assert not wide(p, columns), "\n".join(wide(p, columns))


def test_json_is_the_same_at_every_width(cluster):
    outs = {json.dumps(json.loads(run([*COMMANDS["run"], "-f", "json"], cluster, w).stdout)) for w in (80, 200)}
    assert len(outs) == 1


def test_the_phase_table_splits_its_nodes_and_the_why_puts_figures_below(cluster):
    p = run(COMMANDS["run rolling"], cluster, 80)
    assert p.stdout.count("phase (ndbinfo.restart_info)") == 2  # four nodes: two blocks of two
    p = run(COMMANDS["run --why"], cluster, 80)
    restore = p.stdout.split("  secs_restore_fragments ", 1)[1].splitlines()
    assert not restore[0].rstrip().endswith(")") and any(ln.lstrip().startswith("(bytes=") for ln in restore[1:4])
