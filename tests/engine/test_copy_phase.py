"""The copy phase (secs_to_synchronize_starting_node): what it ships, when it never converges,
and when it copies everything."""

import math

from _helpers import phases, sim


def test_update_rate_above_copy_rate_is_non_converging():
    r = sim(None, "workload.during_restart.updates_per_s=50M", "restart.downtime=1m")
    assert r.status == "non-converging"
    assert "never converges" in r.reason


def test_updates_during_restart_lengthen_the_copy():
    idle = phases(sim(None, "restart.downtime=5m"))
    busy = phases(sim(None, "restart.downtime=5m", "workload.during_restart.updates_per_s=50000"))
    assert busy["secs_to_synchronize_starting_node"] > idle["secs_to_synchronize_starting_node"]


def test_inserts_faster_than_the_copy_ships_are_non_converging_at_once():
    r = sim(None, "workload.during_restart.inserts_per_s=1e6")
    assert r.status == "non-converging"
    assert "inserts and deletes" in r.reason
    assert r.first.events < 200  # found before the copy starts, not at the horizon


def test_a_copy_that_never_converges_has_no_end_and_the_table_says_never():
    r = sim(None, "workload.during_restart.updates_per_s=3000000")
    assert r.status == "non-converging"
    assert math.isinf(r.phases()["secs_to_synchronize_starting_node"])
    from ndbsim.output.table import phase_table

    table = phase_table(r)
    assert "secs_to_synchronize_starting_node" in table
    row = next(line for line in table.splitlines() if line.startswith("secs_to_synchronize_starting_node"))
    assert row.split()[-1] == "never" and "restart total: did not complete (non-converging): stopped " in table


def test_deletes_cannot_ship_more_rows_than_the_table_holds():
    r = sim(
        None,
        "workload.during_restart.deletes_per_s=100000",
        "restart.downtime=1h",
        "cluster.config.NoOfFragmentLogFiles=1000",
    )
    assert r.status == "ok"
    assert r.first.nodes[0].facts.copied_rows <= 300e6 * (1 + 1e-9)


def test_inserts_during_a_restart_are_copied_only_as_far_as_datamemory_holds():
    r = sim(
        None,
        "data.size=1G",
        "cluster.config.DataMemory=2G",
        "data.rows=2M",
        "restart.downtime=24h",
        "workload.inserts_per_s=20000",
        "workload.during_restart=null",
        "workload.before_restart=null",
    )
    assert r.status == "ok"
    assert r.first.nodes[0].facts.copied_rows <= 4e6 * (1 + 1e-9)  # 2G of DataMemory at 512 B a row
    assert any("error 827" in w for w in r.warnings)


def test_initial_restart_copies_everything_and_is_slower(root):
    normal = sim(root / "scenarios/mysql70-6gb-normal.yaml")
    initial = sim(root / "scenarios/mysql70-6gb-initial.yaml")
    assert phases(initial)["secs_restore_fragments"] == 0
    assert initial.first.nodes[0].facts.copied_rows >= 30e6 * 0.999
    assert initial.total_restart_secs > normal.total_restart_secs


def test_a_two_pass_initial_restart_counts_both_copies():
    r = sim(None, "restart.type=initial", "workload.during_restart.updates_per_s=1000")
    assert r.first.nodes[0].facts.copied_rows > 300e6  # the full first pass plus the changes


def test_51_node_down_three_lcps_falls_back_to_full_copy(root):
    path = root / "scenarios/mysql51-1gb-onr-2000ups.yaml"
    quick = sim(path, "restart.downtime=0s")
    long = sim(path, "restart.downtime=30m")
    assert quick.first.nodes[0].facts.full_copy_fallback is None
    assert long.first.nodes[0].facts.full_copy_fallback == 1.0


def test_a_node_down_for_three_lcps_in_51_warns_that_it_copies_everything(root):
    """Seed 004: a 5.1 node down for 3 LCPs falls back to a full copy; the run says so."""
    short = sim(root / "scenarios/mysql51-1gb-onr-2000ups.yaml")
    long = sim(root / "scenarios/mysql51-1gb-onr-2000ups.yaml", "restart.downtime=5m")
    assert not any("copying every row" in w for w in short.warnings)
    assert any("down for 3 LCPs or more" in w and "copying every row" in w for w in long.warnings)
    assert long.phases()["secs_restore_fragments"] == 0.0
