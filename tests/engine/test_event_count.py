"""The simulation's cost: events follow a restart's steps, not its data size, its tables or its load."""

from _helpers import sim


def test_events_do_not_depend_on_data_size():
    idle = ("workload.before_restart=null", "cluster.config.DataMemory=16T", "data.rows=null")
    small = sim(None, "data.size=1GB", *idle)
    big = sim(None, "data.size=16TB", *idle)
    assert small.first.events == big.first.events
    # both restarts complete, and 16 000 times the data takes far longer in simulated time
    assert small.status == big.status == "ok"
    assert big.total_restart_secs > 5 * small.total_restart_secs


def test_events_bounded_under_load_from_1gb_to_16tb(root):
    path = root / "scenarios/rolling-4-nodes-8.0.yaml"
    ev = []
    for size, mem in (("1GB", "2G"), ("16TB", "16T")):
        r = sim(
            path,
            f"data.size={size}",
            f"cluster.config.DataMemory={mem}",
            "cluster.config.NoOfFragmentLogFiles=1000",
            replications=1,
        )
        ev.append(r.first.events)
    # No event per row or page, and identical LCP cycles are skipped by arithmetic: 16,000
    # times the data (and ten times the LCPs) gives about the same events.
    assert ev[1] < 1.3 * ev[0]


def test_copy_events_do_not_grow_with_the_number_of_tables(root):
    path = root / "scenarios/rolling-4-nodes-8.0.yaml"
    few = sim(path, "data.tables=32", replications=1)
    many = sim(path, "data.tables=2000", replications=1)
    assert many.first.events <= few.first.events * 1.1


def _schema(tables: int) -> str:
    """``tables`` tables as a list, a tenth of them holding 90% of 40G (a skewed schema)."""
    big = max(1, tables // 10)
    sizes = [(0.9 if i < big else 0.1) * 40 * 2**30 / (big if i < big else tables - big) for i in range(tables)]
    listed = ", ".join(f"{{name: t{i}, size: {b!r}, ordered_indexes: 2}}" for i, b in enumerate(sizes))
    return f"data.tables=[{listed}]"


def test_a_per_table_schema_of_2000_tables_costs_no_more_events_than_32(root):
    path = root / "scenarios/rolling-4-nodes-8.0.yaml"
    few = sim(path, "data.size=40G", "data.ordered_indexes=64", _schema(32), replications=1)
    many = sim(path, "data.size=40G", "data.ordered_indexes=4000", _schema(2000), replications=1)
    assert few.status == many.status == "ok"
    assert many.first.events <= few.first.events


def test_events_of_a_loaded_rolling_restart_bounded_while_the_copy_competes_with_the_lcps():
    # Four 8.0.30 nodes under 1M updates/s: at 16 TB each starting node's copy runs for days,
    # scanning on the live node's cores at a constant rate while that node's LCPs write beside
    # it, squeezed below their cap. The copy is held by its own pipeline, so its rate is the same
    # with or without the LCP: identical cycles are skipped, and after each copy step the
    # cycles converging to their new length are computed ahead, not simulated.
    sets = (
        "version=8.0.30",
        "restart.type=rolling",
        "restart.nodes=null",
        "cluster.data_nodes=4",
        "data.rows=null",
        "workload.updates_per_s=1000000",
        "workload.during_restart=null",
        "cluster.config.NoOfFragmentLogFiles=1000",
    )
    small = sim(None, *sets, "data.size=1GB", "cluster.config.DataMemory=2G", replications=1)
    big = sim(None, *sets, "data.size=16TB", "cluster.config.DataMemory=16T", replications=1)
    assert big.total_restart_secs > 1000 * small.total_restart_secs
    assert big.first.checkpoint["lcps_simulated"] > 10 * small.first.checkpoint["lcps_simulated"]
    assert big.first.events <= 1.5 * small.first.events
