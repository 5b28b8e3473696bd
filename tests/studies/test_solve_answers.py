"""Answers a DBA can act on, through the command line: solve on the base install (no SciPy), an
update rate whose restart ends within a printed bound, a REDO log with a recommended margin,
data sizes on the hardware as configured, and advise's chart showing its whole table."""

import json
import re
import subprocess
import sys

import pytest
from _helpers import ndbsim as ndbsim_cli
from conftest import ROOT

import ndbsim

ROLLING_80 = str(ROOT / "scenarios" / "rolling-4-nodes-8.0.yaml")
"""A 4-node NDB 8.0.35 cluster, the issue's kind of scenario."""
RATE_KEY = "workload.during_restart.updates_per_s"

NO_SCIPY = "import sys; sys.modules['scipy'] = None\nfrom ndbsim.cli.app import main\nmain(sys.argv[1:])\n"
"""The CLI with SciPy hidden (``import scipy`` raises ImportError), as on the base install."""


def cli_without_scipy(*args):
    return subprocess.run([sys.executable, "-c", NO_SCIPY, *args], capture_output=True, text=True, cwd=ROOT)


def simulated(sets, n, seed=1):
    return ndbsim.simulate(ROLLING_80, overrides=list(sets), seed=seed, replications=n)


def rate(text):
    return float(text.removesuffix("/s").replace(",", ""))


@pytest.mark.parametrize(
    "args",
    [
        ("solve", "data-size", ROLLING_80, "--window", "10m", "-n", "2"),
        ("solve", "update-rate", ROLLING_80, "-n", "2"),
        ("solve", "lcp-speed", ROLLING_80, "--window", "10m", "-n", "2"),
        ("solve", "redo-log", ROLLING_80, "-n", "2"),
    ],
    ids=["data-size", "update-rate", "lcp-speed", "redo-log"],
)
def test_solve_answers_without_scipy(args):
    p = cli_without_scipy(*args)
    assert p.returncode == 0, p.stderr
    assert "answer:" in p.stdout and "internal error" not in p.stderr


def test_update_rate_ends_within_its_printed_bound_and_the_note_agrees():
    p = ndbsim_cli("solve", "update-rate", ROLLING_80, "-n", "3", "-f", "json")
    assert p.returncode == 0, p.stderr
    a = json.loads(p.stdout)
    bound = re.search(r"within (\S+), 2× its (\S+) with no updates", a["target"])
    assert bound, a["target"]
    idle = simulated([f"{RATE_KEY}=0"], 3).total_restart_secs
    run = simulated(a["set"], 3)
    assert run.status == "ok" and run.total_restart_secs <= 2 * idle  # not a three-day restart
    assert a["answer_run"]["total_restart_secs"] == pytest.approx(run.total_restart_secs, abs=1e-9)
    more = simulated(a["one_step_short_run"]["set"], 3)
    assert more.status != "ok" or more.total_restart_secs > 2 * idle
    assert a["notes"][0].startswith(f"the restart meets the target up to {a['shown']} and not at {a['one_step_short']}")
    assert rate(a["shown"]) == a["value"] and rate(a["one_step_short"]) > a["value"]


def test_update_rate_within_a_window_keeps_the_redo_log():
    p = ndbsim_cli("solve", "update-rate", ROLLING_80, "--window", "9m", "-n", "3", "-f", "json")
    assert p.returncode == 0, p.stderr
    a = json.loads(p.stdout)
    assert "within the 9m00s window" in a["target"]
    run = simulated(a["set"], 3)
    assert run.status == "ok" and run.total_restart_secs <= 540
    assert all(r.checkpoint["redo_peak_bytes"] <= r.checkpoint["redo_capacity_bytes"] for r in run.replications)
    assert simulated(a["one_step_short_run"]["set"], 3).total_restart_secs > 540


def redo_fill(sets, n):
    r = simulated(sets, n)
    return max(x.checkpoint["redo_peak_bytes"] / x.checkpoint["redo_capacity_bytes"] for x in r.replications)


@pytest.mark.parametrize("margin, fill", [(None, 0.6), ("50%", 1 / 1.5)])
def test_redo_log_gives_the_minimum_and_a_recommended_size_with_a_margin(margin, fill):
    load = ["workload.updates_per_s=500000"]
    extra = ["--margin", margin] if margin else []
    p = ndbsim_cli("solve", "redo-log", ROLLING_80, "--set", load[0], "-n", "2", *extra)
    assert p.returncode == 0, p.stderr
    files = re.search(r"^least, no margin: NoOfFragmentLogFiles = (\d+)$", p.stdout, re.M)
    best = re.search(r"^answer: NoOfFragmentLogFiles = (\d+)$", p.stdout, re.M)
    assert files and best, p.stdout
    least, rec = int(files.group(1)), int(best.group(1))
    assert rec > least
    assert f"at most {fill:.0%} of the log (a {(1 / fill - 1):.0%} margin)" in p.stdout
    key = "cluster.config.NoOfFragmentLogFiles"
    assert redo_fill([*load, f"{key}={least}"], 2) <= 1 < redo_fill([*load, f"{key}={least - 1}"], 2)
    assert redo_fill([*load, f"{key}={rec}"], 2) <= fill < redo_fill([*load, f"{key}={rec - 1}"], 2)


def test_redo_log_says_when_its_recommendation_would_shrink_the_log_and_the_rate_it_sized_for():
    """The 8.0 rolling cluster keeps a 32-file log; at its own rate a few files would do: the answer
    says what taking it gives up beside the configured log, and the rate it was sized for."""
    p = ndbsim_cli("solve", "redo-log", ROLLING_80, "-n", "2", "-f", "json")
    assert p.returncode == 0, p.stderr
    rec = json.loads(p.stdout)["recommended"]
    assert rec["value"] < 32
    below, rate = rec["notes"]
    assert below.startswith("below the configured NoOfFragmentLogFiles = 32 (32.0G per node)")
    assert "gives up" in below and "where the configured one's fills" in below
    assert "20,000 updates/s, 2,000 inserts/s of 300B" in rate
    grown = ndbsim_cli(
        "solve", "redo-log", ROLLING_80, "--set", "workload.updates_per_s=700000", "-n", "2", "-f", "json"
    )
    notes = json.loads(grown.stdout)["recommended"]["notes"]
    assert len(notes) == 1 and "700,000 updates/s" in notes[0]  # above the configured log: no shrink note


def test_data_size_keeps_the_hardware_and_says_where_datamemory_runs_out():
    # no inserts during the restart: with them the answer leaves them room (tests/studies/test_dba_answers.py)
    no_inserts = ("--set", "workload.during_restart.inserts_per_s=0")
    p = ndbsim_cli("solve", "data-size", ROLLING_80, *no_inserts, "--window", "30m", "-n", "2", "-f", "json")
    assert p.returncode == 0, p.stderr
    a = json.loads(p.stdout)
    assert not any("DataMemory" in s for s in a["set"])  # the hardware as configured
    # DataMemory bounds the data at 80% full (search.DATA_MEMORY_ANSWER_FILL), not at 100%
    assert "DataMemory=64.0G reaches 80% at 51G of data per node" in a["notes"][0]
    assert a["shown"] == "51G" and "holds no more within 80%" in a["one_step_short"]
    grown = ndbsim_cli("solve", "data-size", ROLLING_80, "--window", "30m", "-n", "2", "--grow-datamemory")
    assert grown.returncode == 0, grown.stderr
    answer = re.search(r"^answer: data.size = (\d+)G$", grown.stdout, re.M)
    assert answer and int(answer.group(1)) > 64 and "cluster.config.DataMemory=" in grown.stdout


def test_data_size_under_datamemory_is_set_by_the_window():
    p = ndbsim_cli("solve", "data-size", ROLLING_80, "--window", "8m", "-n", "2", "-f", "json")
    assert p.returncode == 0, p.stderr
    a = json.loads(p.stdout)
    gb = int(a["shown"].removesuffix("G"))
    assert gb < 64 and "the window, not DataMemory, sets the answer" in a["notes"][0]
    assert (
        simulated(a["set"], 2).total_restart_secs
        <= 480
        < simulated(a["one_step_short_run"]["set"], 2).total_restart_secs
    )


def test_options_of_another_question_are_refused():
    for args, flag in (
        (("solve", "update-rate", "--margin", "20%"), "--margin"),
        (("solve", "redo-log", "--grow-datamemory"), "--grow-datamemory"),
        (("solve", "redo-log", "--window", "10m"), "--window"),
        (("solve", "redo-log", "--margin", "lots"), "--margin"),
    ):
        p = ndbsim_cli(*args)
        assert p.returncode == 2 and f"{flag}:" in p.stderr and p.stderr.count("\n") == 1, p.stderr


def test_advise_chart_shows_every_lever_of_its_table_and_a_legend_of_its_colours(tmp_path):
    from matplotlib.colors import to_hex

    from ndbsim.studies.advise.report import tornado
    from ndbsim.studies.advise.study import advise_full

    chart = tmp_path / "a.png"
    p = ndbsim_cli("advise", ROLLING_80, "-n", "2", "-w", "1", "--chart", str(chart))
    assert p.returncode == 0, p.stderr
    levers_table = p.stdout.split("prices per node")[0]  # the levers' table, not the prices'
    table = [line.split()[1] for line in levers_table.splitlines() if re.match(r"^\d+\s", line)]
    assert len(table) > 15 and "BuildIndexThreads" in table  # more levers than the old chart's 15
    a = advise_full(ROLLING_80, replications=2, workers=1)
    fig = tornado(a)
    ax = fig.axes[0]
    assert [t.get_text().split(" (now")[0] for t in ax.get_yticklabels()] == table
    assert f"all {len(table)} levers" in ax.get_title() and "red" not in ax.get_title()
    drawn = {to_hex(b.get_facecolor(), keep_alpha=False) for b in ax.patches if b.get_width() != 0}
    legend = {to_hex(h.get_facecolor(), keep_alpha=False) for h in ax.get_legend().legend_handles}
    assert drawn == legend
    assert "top 5 of" in tornado(a, limit=5).axes[0].get_title()
