"""workload.before_restart: a burst inserting more rows than the table holds is warned about."""

from _helpers import sim


def test_a_burst_that_inserts_more_rows_than_the_table_holds_warns():
    """The default burst inserts 120M rows: 40% of the default 300M (no warning), 400% of 30M."""
    assert not any("before_restart inserts" in w for w in sim(None).warnings)
    small = sim(None, "data.rows=30M")
    assert any("before_restart inserts 120,000,000 rows net, 400% of data.rows" in w for w in small.warnings)
