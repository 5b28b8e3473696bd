"""The scenario's ``data:`` section: the data per node, as totals or a per-table schema."""

from __future__ import annotations

import math
from typing import Annotated

from pydantic import Discriminator, Field, Tag, model_validator

from ndbsim.errors import InputError
from ndbsim.input.fields import Bytes, Count, PositiveBytes, RowCount, StrictModel
from ndbsim.input.units import format_bytes, parse_bytes

MAX_TABLES = 20320
"""Most tables (and ordered indexes) a cluster holds: MaxNoOfTables' ceiling (reference §9)."""

SCHEMA_AGREEMENT = 0.005
"""How far data.size, data.rows, data.ordered_indexes or data.disk_data_size may differ from
the sums of a per-table schema and still count as the same figure (rounding in a hand-written
scenario), as a share of the sum."""


_TABLE_COUNT, _TABLE_LIST = "union-count", "union-list"
"""Tags of the two forms of ``data.tables``; error locations leave them out."""


class Table(StrictModel):
    """One table of a per-table schema (``data.tables`` as a list), per data node."""

    name: str
    """The table's name, unique in the schema; errors and reports use it."""
    rows: Count | None = None
    """Rows of the table per data node. Default None: size / row_size."""
    size: PositiveBytes | None = None
    """In-memory bytes of the table per data node. Default None: rows × row_size."""
    row_size: PositiveBytes | None = None
    """Bytes per row when only one of rows and size is given. Default None: data.row_size."""
    ordered_indexes: int = Field(1, ge=0, le=MAX_TABLES)
    """Ordered indexes on the table (rebuilt at restart, maintained by the copy). Default 1: NDB
    gives every table an ordered index on its primary key unless it is declared USING HASH."""
    disk_data: Bytes = 0.0
    """Disk-data (tablespace) bytes of the table per data node, whose UNDO log runs at restart.
    Default 0: an in-memory table."""


class TableAmounts:
    """A table's resolved amounts per data node: rows, bytes, ordered indexes, disk data."""

    __slots__ = ("bytes", "disk_data", "name", "ordered_indexes", "rows")

    def __init__(self, name: str, rows: float, nbytes: float, ordered_indexes: float, disk_data: float):
        self.name, self.rows, self.bytes = name, rows, nbytes
        self.ordered_indexes, self.disk_data = ordered_indexes, disk_data


class Data(StrictModel):
    size: PositiveBytes = parse_bytes("60G")
    """In-memory data per data node. Default 60G: seed 003's "about 60 GByte of data inserted into
    NDB in each data node" (DBT2, 600 warehouses). With ``tables`` as a list: their sum."""
    rows: RowCount | None = None
    """Rows per data node. Default None: derived as size / row_size (``row_count``); the default
    scenario gives 300M (its assumption: DBT2 has ~500k rows per warehouse)."""
    row_size: PositiveBytes = 200.0
    """Bytes per row, used only when ``rows`` is not given. Default 200 B: about the default
    scenario's 60 GB / 300M rows."""
    tables: Annotated[
        Annotated[int, Tag(_TABLE_COUNT)] | Annotated[list[Table], Tag(_TABLE_LIST)],
        Discriminator(lambda v: _TABLE_LIST if isinstance(v, list) else _TABLE_COUNT),
    ] = 9
    """Tables in the cluster: a count, over which rows and ordered indexes are spread evenly, or
    a list of tables (name, rows or size, row_size, ordered_indexes, disk_data) for a skewed
    schema. Default 9: the DBT2/TPC-C schema of the default scenario (seed 003)."""
    ordered_indexes: int = Field(10, ge=0, le=MAX_TABLES)
    """Ordered indexes over all tables (rebuilt at restart). Default 10: the default scenario's
    assumption of each DBT2 table's primary key plus one secondary index."""
    disk_data_size: Bytes = 0.0
    """Disk-data bytes in use per node: the disk columns of the disk-data tables, in the
    tablespace's data files (their UNDO runs at restart, an initial restart ships them). Default 0:
    in-memory tables only, as in seed 003 ("this particular benchmark has no disk data")."""
    tablespace_size: Bytes | None = None
    """Size of the tablespace's data files per node (config.ini's InitialTablespace, or
    INFORMATION_SCHEMA.FILES): an initial restart creates them in full. Default None: as large as
    ``disk_data_size`` (files just holding the data)."""
    undo_log_size: Bytes = 0.0
    """Size of the log file group's UNDO files per node (config.ini's InitialLogFileGroup, or
    INFORMATION_SCHEMA.FILES): an initial restart creates them in full. Default 0: none given."""

    @property
    def data_files_size(self) -> float:
        """Bytes of data files per node: ``tablespace_size``, or ``disk_data_size`` when not given."""
        return self.disk_data_size if self.tablespace_size is None else max(self.tablespace_size, self.disk_data_size)

    @property
    def row_count(self) -> float:
        return self.rows if self.rows else self.size / self.row_size

    @property
    def table_count(self) -> int:
        """How many tables the schema has."""
        return len(self.tables) if isinstance(self.tables, list) else self.tables

    def table_amounts(self) -> list[TableAmounts]:
        """Each table's amounts (the count shorthand: equal tables sharing rows and indexes)."""
        if isinstance(self.tables, list):
            return [_amounts(t, self.row_size) for t in self.tables]
        n = self.tables
        even = TableAmounts(
            "table", self.row_count / n, self.size / n, self.ordered_indexes / n, self.disk_data_size / n
        )
        return [even] * n

    @property
    def index_entries(self) -> float:
        """Ordered-index entries per node: Σ rows × ordered indexes over the tables."""
        if isinstance(self.tables, list):
            return sum(a.rows * a.ordered_indexes for a in self.table_amounts())
        return self.row_count * self.ordered_indexes / self.tables

    @property
    def index_entries_per_row(self) -> float:
        """Ordered-index entries per row, over all rows: what a copied row costs in index
        maintenance on average."""
        if isinstance(self.tables, list):
            rows = sum(a.rows for a in self.table_amounts())
            return self.index_entries / rows if rows else 0.0
        return self.ordered_indexes / self.tables

    @property
    def lcp_tables(self) -> float:
        """The table count the partial-LCP parts formula sees: a fragment's share of its LDM's
        memory is its table's share of the data (z = y × share, Backup.cpp
        calculate_number_of_parts), so the byte-weighted mean share is 1 / Σ share²; the count
        itself for equal tables."""
        if not isinstance(self.tables, list):
            return float(self.tables)
        total = self.size
        return 1.0 / sum((a.bytes / total) ** 2 for a in self.table_amounts())

    def table_groups(self, most: int) -> list[tuple[float, float]]:
        """The tables in schema order, in at most ``most`` groups of consecutive tables: per
        group (share of the rows, ordered-index entries per row). Groups bound the events of
        a table-by-table phase whatever the table count."""
        if not isinstance(self.tables, list):
            steps = min(self.tables, most)
            return [(1.0 / steps, self.ordered_indexes / self.tables)] * steps
        amounts = self.table_amounts()
        total = sum(a.rows for a in amounts) or 1.0
        size = math.ceil(len(amounts) / most)
        groups = []
        for i in range(0, len(amounts), size):
            part = amounts[i : i + size]
            rows = sum(a.rows for a in part)
            entries = sum(a.rows * a.ordered_indexes for a in part)
            groups.append((rows / total, entries / rows if rows else 0.0))
        return groups

    @model_validator(mode="after")
    def _schema(self) -> Data:
        if not isinstance(self.tables, list):
            if not 1 <= self.tables <= MAX_TABLES:
                raise InputError(
                    f"{self.tables} is not a table count NDB allows; use 1 to {MAX_TABLES}, or a list of tables",
                    field="data.tables",
                )
            return self
        _check_tables(self.tables)
        amounts = [_amounts(t, self.row_size) for t in self.tables]
        sums = {
            "size": sum(a.bytes for a in amounts),
            "rows": sum(a.rows for a in amounts),
            "ordered_indexes": sum(t.ordered_indexes for t in self.tables),
            "disk_data_size": sum(a.disk_data for a in amounts),
        }
        for key, total in sums.items():
            given = getattr(self, key)
            if key in self.model_fields_set and given is not None and abs(given - total) > SCHEMA_AGREEMENT * total:
                show = format_bytes if key in ("size", "disk_data_size") else (lambda v: f"{v:,.0f}")
                raise InputError(
                    f"{show(given)} differs from the tables' sum, {show(total)}; remove data.{key} "
                    "(a list of tables sets it) or make the tables add up to it",
                    field=f"data.{key}",
                )
        if sums["size"] <= 0:
            raise InputError("the tables hold no data; give at least one table rows or size", field="data.tables")
        if sums["ordered_indexes"] > MAX_TABLES:
            raise InputError(
                f"the tables have {sums['ordered_indexes']} ordered indexes in all; NDB allows at most {MAX_TABLES}",
                field="data.tables",
            )
        self.size, self.rows = sums["size"], sums["rows"]
        self.ordered_indexes, self.disk_data_size = int(sums["ordered_indexes"]), sums["disk_data_size"]
        return self


def _check_tables(tables: list[Table]) -> None:
    if not tables:
        raise InputError("an empty list has no tables; list at least one, or give a count", field="data.tables")
    if len(tables) > MAX_TABLES:
        raise InputError(f"{len(tables)} tables; NDB allows at most {MAX_TABLES}", field="data.tables")
    seen: set[str] = set()
    for i, t in enumerate(tables):
        if t.name in seen:
            raise InputError(f"{t.name!r} is listed twice; give each table once", field=f"data.tables.{i}.name")
        seen.add(t.name)
        if t.rows is None and t.size is None:
            raise InputError(
                f"table {t.name!r} has neither rows nor size; give one (or both)", field=f"data.tables.{i}"
            )
        if t.rows is not None and t.size is not None and t.row_size is not None:
            raise InputError(
                f"table {t.name!r} gives rows, size and row_size; give two of them", field=f"data.tables.{i}.row_size"
            )
        if t.rows == 0 and t.size:
            raise InputError(
                f"table {t.name!r} has {t.size:,.0f} bytes in 0 rows; give its rows", field=f"data.tables.{i}.rows"
            )


def _amounts(t: Table, row_size: float) -> TableAmounts:
    size = t.row_size or row_size
    if t.rows is not None and t.size is not None:
        rows, nbytes = t.rows, t.size
    elif t.rows is not None:
        rows, nbytes = t.rows, t.rows * size
    else:
        assert t.size is not None
        rows, nbytes = t.size / size, t.size
    return TableAmounts(t.name, rows, nbytes, float(t.ordered_indexes), t.disk_data)
