"""solve's answers carry their margin and are chosen with one: the check run's REDO peak stays at
most REDO_ANSWER_FILL of the log, a data-size answer at most DATA_MEMORY_ANSWER_FILL of
DataMemory; a run's summary quotes the same REDO peak its warnings reach; an answer below the
configured value says what it gives up."""

import re

from conftest import ROOT

import ndbsim
from ndbsim.studies.solve import solve
from ndbsim.studies.solve.search import DATA_MEMORY_ANSWER_FILL, REDO_ANSWER_FILL

ROLLING_80 = str(ROOT / "scenarios" / "rolling-4-nodes-8.0.yaml")


def _close_warnings(result) -> list[int]:
    return [int(m) for w in result.warnings for m in re.findall(r"REDO log reaches (\d+)% .*error 410 is close", w)]


def test_the_summary_quotes_the_redo_peak_the_warnings_reach():
    """Seed 2's first replication peaks at 54% of the log, another at 75%: the summary said 54%
    beside warnings up to 75%; it now quotes the highest, one figure."""
    r = ndbsim.simulate(ROLLING_80, overrides=["workload.during_restart.updates_per_s=520000"], seed=2, replications=10)
    from ndbsim.output.table import checkpoint_lines

    warned = _close_warnings(r)
    assert len(warned) >= 2 and max(warned) > min(warned)
    redo = checkpoint_lines(r.checkpoint)[1]
    assert f"({max(warned)}% at the peak)" in redo
    cp = r.to_dict()["checkpoint"]
    assert round(100 * cp["redo_peak_bytes"] / cp["redo_capacity_bytes"]) == max(warned)


def test_update_rate_answers_where_the_check_run_stays_under_the_redo_margin():
    """With a long window the REDO log, not the window, bounds the rate: the answer is the last
    rate whose peak stays at most 60% of the log, and its check run warns of no error 410."""
    a = solve("update-rate", ROLLING_80, window="60m")
    assert a.passed and a.short_passed is False
    assert a.outcome.redo_peak_fill <= REDO_ANSWER_FILL < a.short_outcome.redo_peak_fill
    assert not a.short_outcome.redo_overloaded  # the step more fails on the margin, not on error 410
    assert f"at most {REDO_ANSWER_FILL:.0%} of the log" in a.target
    check = ndbsim.simulate(ROLLING_80, overrides=list(a.sets), seed=a.seed, replications=a.replications)
    assert _close_warnings(check) == [] and "REDO peak" in a.text()


def test_redo_log_answer_keeps_the_margin_and_says_what_a_smaller_log_gives_up():
    a = solve("redo-log", ROLLING_80, overrides=["workload.updates_per_s=500000"])
    rec = a.recommended
    assert rec.label == "answer" and rec.outcome.redo_peak_fill <= REDO_ANSWER_FILL < rec.short_outcome.redo_peak_fill
    assert a.label == "least, no margin" and a.value < rec.value
    # an idle cluster needs far less than the configured 32 files: the answer says what it gives up
    small = solve("redo-log", ROLLING_80, overrides=["workload.updates_per_s=20000"]).recommended
    assert small.value < 32
    note = next(n for n in small.notes if n.startswith("below the configured"))
    assert "gives up" in note and "of REDO per node" in note and "error 410 sooner" in note


def test_data_size_states_and_keeps_datamemory_headroom():
    """A window long enough for any data: the answer is where the data fills 80% of DataMemory
    (not 100%), and it says how much DataMemory stays free."""
    a = solve("data-size", ROLLING_80, window="2h")
    memory = 64 * 2**30  # the scenario's DataMemory
    assert a.value <= DATA_MEMORY_ANSWER_FILL * memory < a.value + 2**30
    note = next(n for n in a.notes if n.startswith("DataMemory headroom"))
    assert "80% of DataMemory=64.0G" in note and "13.0G free" in note


def test_an_update_rate_below_the_scenarios_says_what_it_gives_up():
    a = solve("update-rate", ROLLING_80, window="7m40s", replications=2)
    assert a.value < 20000  # the scenario's rate during the restart
    note = next(n for n in a.notes if n.startswith("below the scenario's 20,000/s"))
    assert f"gives up {20000 - a.value:,.0f}/s of updates" in note
