"""simulation.horizon: a restart past it is stuck and says where, and the planned downtime does not count against it."""

from _helpers import sim


def test_a_restart_past_the_horizon_names_the_last_phase_it_finished():
    r = sim(None, "simulation.horizon=100")
    assert r.status == "stuck"
    assert r.reason.endswith("the last phase it finished was secs_starting_node_to_request_local_recovery")


def test_a_long_planned_downtime_is_not_counted_against_the_horizon(root):
    r = sim(
        root / "scenarios/rolling-4-nodes-8.0.yaml", "restart.downtime=50h", "simulation.horizon=100h", replications=1
    )
    assert r.status == "ok", r.reason
