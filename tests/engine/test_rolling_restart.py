"""A rolling restart: every node in turn, and a warning when only some are restarted."""

from _helpers import sim


def test_rolling_restart_visits_every_node(root):
    r = sim(root / "scenarios/rolling-4-nodes-8.0.yaml", replications=1)
    assert sorted(r.node_ids()) == [1, 2, 3, 4]
    starts = {n.node_id: n.start for n in r.first.nodes}
    assert starts[2] > starts[1] and starts[4] > starts[3]


def test_a_rolling_restart_of_some_nodes_warns(root):
    path = root / "scenarios/rolling-4-nodes-8.0.yaml"
    some = sim(path, "restart.nodes=[1,2]")
    assert some.node_ids() == [1, 2]
    assert any("rolling restart of restart.nodes [1, 2] only" in w for w in some.warnings)
    assert not any("rolling restart of" in w for w in sim(path).warnings)
