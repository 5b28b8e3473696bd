"""A system restart: no copy, no transactions, no node-failure handling or subscription handover."""

from _helpers import phases, sim


def test_system_restart_has_no_copy_and_warns_above_80_percent():
    r = sim(None, "restart.type=system", "cluster.config.DataMemory=70G")
    assert phases(r)["secs_to_synchronize_starting_node"] == 0
    assert any("80%" in w for w in r.warnings)
    assert len(r.node_ids()) == 2


def test_a_system_restart_runs_no_transactions(root):
    path = root / "scenarios/system-restart-7.6.yaml"
    idle = sim(path, "workload.during_restart.updates_per_s=0")
    busy = sim(path, "workload.during_restart.updates_per_s=50000", "restart.downtime=24h")
    assert busy.status == "ok"
    assert busy.first.checkpoint["lcps_simulated"] == idle.first.checkpoint["lcps_simulated"]
    assert busy.first.events <= idle.first.events + 2
    assert any("ignored for a system restart" in w for w in busy.warnings)


def test_a_system_restart_has_no_failure_handling_or_handover(root):
    r = sim(root / "scenarios/system-restart-7.6.yaml", "restart.cause=crash")
    for node in r.node_ids():
        ph = r.phases(node)
        assert ph["secs_to_complete_node_failure"] == 0.0
        assert ph["secs_wait_subscription_handover"] == 0.0
    node = sim(None, "restart.cause=crash").phases()
    assert node["secs_to_complete_node_failure"] > 0 and node["secs_wait_subscription_handover"] > 0
