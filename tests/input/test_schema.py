"""data.tables as a count (even tables) or a list of tables with their own amounts."""

from __future__ import annotations

import pytest

from ndbsim.errors import InputError
from ndbsim.input.scenario import scenario_from_dict

SKEWED = [
    {"name": "order_line", "rows": "180M", "row_size": "200B", "ordered_indexes": 1},
    {"name": "stock", "rows": "60M", "size": "18G", "ordered_indexes": 1},
    {"name": "customer", "size": "6G", "row_size": "600B", "ordered_indexes": 2, "disk_data": "1G"},
    {"name": "item", "rows": "100k"},
]


def data(**kw):
    return scenario_from_dict({"data": kw}).data


def test_a_list_of_tables_sets_the_totals():
    d = data(tables=SKEWED)
    gib = 2**30
    assert d.table_count == 4
    assert d.rows == pytest.approx(180e6 + 60e6 + 6 * gib / 600 + 100e3)
    assert d.size == pytest.approx(180e6 * 200 + 18 * gib + 6 * gib + 100e3 * 200)
    assert d.ordered_indexes == 5 and d.disk_data_size == gib
    assert d.index_entries == pytest.approx(180e6 + 60e6 + 2 * 6 * gib / 600 + 100e3)


def test_the_count_shorthand_spreads_rows_and_indexes_evenly():
    d = data(size="60G", rows="300M", tables=9, ordered_indexes=10)
    assert d.table_count == 9 and d.lcp_tables == 9
    assert d.index_entries == pytest.approx(300e6 * 10 / 9)
    assert d.table_groups(32) == [(1 / 9, 10 / 9)] * 9
    assert len(d.table_groups(4)) == 4


def test_a_skewed_schema_looks_like_fewer_tables_to_the_lcp_formula():
    d = data(tables=SKEWED)
    assert 1.0 < d.lcp_tables < 3.0  # two big tables hold nearly all the data


def test_table_groups_bound_the_steps_whatever_the_table_count():
    many = [{"name": f"t{i}", "rows": "1M"} for i in range(2000)]
    groups = data(tables=many).table_groups(32)
    assert len(groups) <= 32
    assert sum(share for share, _ in groups) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("tables", "extra", "needle"),
    [
        ([], {}, "data.tables: an empty list"),
        ([{"name": "a"}], {}, "data.tables.0: table 'a' has neither rows nor size"),
        ([{"name": "a", "rows": 1}, {"name": "a", "rows": 2}], {}, "data.tables.1.name: 'a' is listed twice"),
        ([{"name": "a", "rows": 10, "size": "1K", "row_size": "10B"}], {}, "give two of them"),
        ([{"name": "a", "rows": 0, "size": "1K"}], {}, "data.tables.0.rows"),
        ([{"name": "a", "rows": "1M"}], {"size": "1T"}, "data.size: 1.0T differs from the tables' sum"),
        ([{"name": "a", "rows": "1M"}], {"rows": "2M"}, "data.rows"),
        ([{"name": "a", "rows": "1M", "ordered_indexes": -1}], {}, "data.tables.0.ordered_indexes"),
        (0, {}, "data.tables: 0 is not a table count"),
        ("many", {}, "data.tables: 'many' is neither a table count nor a list of tables"),
        ({"a": 1}, {}, "data.tables: a mapping is neither a table count nor a list of tables"),
    ],
)
def test_schema_errors_name_the_field(tables, extra, needle):
    with pytest.raises(InputError) as err:
        data(tables=tables, **extra)
    assert needle in str(err.value)


def test_given_totals_that_agree_with_the_tables_are_accepted():
    d = data(tables=[{"name": "a", "rows": "1M", "row_size": "100B"}], rows="1M", ordered_indexes=1)
    assert d.rows == 1e6
