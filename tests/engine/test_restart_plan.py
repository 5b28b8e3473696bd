"""restart.plan: the waves of a rolling restart, checked against the node groups."""

import json

from _helpers import ndbsim

ROLLING = "scenarios/rolling-4-nodes-8.0.yaml"


def _schedule(*sets):
    args = ["run", ROLLING, "-n", "1", "-f", "json"]
    for s in sets:
        args += ["--set", s]
    out = ndbsim(*args)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["schedule"]


def test_per_node_group_is_the_default_and_one_at_a_time_runs_a_wave_per_node():
    group = _schedule()
    single = _schedule("restart.plan=one-at-a-time")
    assert group["plan"] == "per-node-group" and [w["nodes"] for w in group["waves"]] == [[1, 3], [2, 4]]
    assert single["plan"] == "one-at-a-time" and [w["nodes"] for w in single["waves"]] == [[1], [2], [3], [4]]
    # one node down at a time keeps more replicas up, and takes longer
    assert single["window_secs"] > 1.5 * group["window_secs"]
    assert abs(sum(w["secs"] for w in single["waves"]) - single["window_secs"]) < 1e-6


def test_explicit_waves_run_in_their_order():
    sch = _schedule("restart.plan=[[1, 4], [2], [3]]")
    assert sch["plan"] == "explicit waves"
    assert [w["nodes"] for w in sch["waves"]] == [[1, 4], [2], [3]]


def test_a_wave_that_takes_a_node_group_down_is_refused():
    out = ndbsim("run", ROLLING, "--set", "restart.plan=[[1, 2], [3], [4]]")
    assert out.returncode == 2 and out.stdout == ""
    err = out.stderr.strip()
    assert len(err.splitlines()) == 1
    assert "restart.plan" in err and "wave [1, 2]" in err and "node group 0" in err and "shut down" in err


def test_every_restarted_node_exactly_once():
    missing = ndbsim("run", ROLLING, "--set", "restart.plan=[[1, 3], [2]]")
    assert missing.returncode == 2 and "leave out [4]" in missing.stderr
    twice = ndbsim("run", ROLLING, "--set", "restart.plan=[[1, 3], [2, 3], [4]]")
    assert twice.returncode == 2 and "node 3 is in two waves" in twice.stderr


def test_a_plan_on_a_node_restart_is_an_input_error():
    out = ndbsim("run", "scenarios/dbt2-600wh-7.6.6.yaml", "--set", "restart.plan=one-at-a-time")
    assert out.returncode == 2 and "restart.type=rolling" in out.stderr


def test_solve_plan_picks_the_plan_that_keeps_more_replicas_up_when_it_fits():
    tight = json.loads(ndbsim("solve", "plan", ROLLING, "--window", "10m", "-n", "1", "-f", "json").stdout)
    loose = json.loads(ndbsim("solve", "plan", ROLLING, "--window", "60m", "-n", "1", "-f", "json").stdout)
    assert tight["shown"] == "per-node-group" and tight["answer_run"]["total_restart_secs"] <= 600
    assert loose["shown"] == "one-at-a-time" and loose["answer_run"]["total_restart_secs"] <= 3600
