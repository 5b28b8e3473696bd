"""Scenario files: typed, validated models (CONTRACT §1), ``--set`` overrides, loading.

A scenario is validated once into a ``Scenario``; ``resolve()`` then fills in the version
profile's config.ini defaults. Every error is an ``InputError`` naming field, value and fix.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Discriminator, Field, Tag, ValidationError, model_validator

from ndbsim.errors import InputError, did_you_mean
from ndbsim.input import config_params
from ndbsim.input.fields import (
    ByteRate,
    Bytes,
    Count,
    Duration,
    PerSecond,
    PositiveBytes,
    RowCount,
    StrictModel,
    keys_at,
)
from ndbsim.input.profiles import Profile, parse_version, profile_for
from ndbsim.input.safe_load import MalformedYaml, load_yaml, read_yaml_file
from ndbsim.input.units import format_bytes, parse_bytes, shown
from ndbsim.input.units import format_secs as secs_text

_Model = StrictModel
"""Short name for the shared base model (``ndbsim.input.fields.StrictModel``): unknown keys are errors."""


class Host(_Model):
    cpu_cores: int = Field(8, ge=1, le=1024)
    """Physical cores per data-node host. Default 8: the default scenario's reading of seed 003 (7.6
    rebuilt indexes on "16 CPUs" with hyperthreading, 7.5 on 8)."""
    threads_per_core: int = Field(2, ge=1, le=8)
    """Hardware threads per core. Default 2: seed 003's hyperthreading (16 CPUs on 8 cores), as in
    the default scenario."""
    core_speed: float = Field(1.0, gt=0, le=100)
    """Per-core speed relative to the calibration host, scaling every CPU-bound constant. Default
    1.0: the host the constants were fitted on (seed 003's, see ``profiles.Constants``)."""
    disk_read: ByteRate = parse_bytes("1G")
    """Disk read rate per host (LCP restore, UNDO, REDO). Default 1G/s: a modelling default with
    no source; the default scenario assumes 2GB/s (seed 003 does not state its disks)."""
    disk_write: ByteRate = parse_bytes("500M")
    """Disk write rate per host (LCP writes, REDO initialisation). Default 500M/s: a modelling
    default with no source; the default scenario assumes 1GB/s."""
    memory_touch_rate: ByteRate = 2.7e9
    """Bytes of DataMemory a data node allocates and touches per second at start. Bound by memory and
    the OS and multi-threaded (reference §1.4, §7), so it does not scale with ``core_speed``. Default
    2.7e9: seed 003's measured "roughly allocates 2.7 GByte per second" (reference §7)."""
    disk_latency: Duration = 0.0001
    """Seconds one synchronous file-system request waits on the disk (opening, first read, sync or close
    of an LCP file); a fragment's restore and LCP make a fixed number of them per data file
    (``engine.fixed_costs``). Default 0.1 ms: a named assumption, an SSD's access time, the class of
    disk the default 1 GB/s ``disk_read`` implies. An HDD (~150 MB/s) waits about 10 ms per access
    (≈8.5 ms seek plus 4.2 ms half rotation): set ``10ms`` for one. No published case states it."""
    network: ByteRate = 10e9 / 8
    """Network bandwidth per host, bytes/s, for the copy phase. Default 10 Gbit/s (10e9 / 8 bytes/s),
    as the default scenario assumes; seed 003 does not state its network."""


MAX_TABLES = 20320
"""Most tables (and ordered indexes) a cluster holds: MaxNoOfTables' ceiling (reference §9)."""

SCHEMA_AGREEMENT = 0.005
"""How far data.size, data.rows, data.ordered_indexes or data.disk_data_size may differ from
the sums of a per-table schema and still count as the same figure (rounding in a hand-written
scenario), as a share of the sum."""


_TABLE_COUNT, _TABLE_LIST = "union-count", "union-list"
"""Tags of the two forms of ``data.tables``; error locations leave them out."""


class Table(_Model):
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


class Data(_Model):
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
    """Disk-data (tablespace) bytes per node, whose UNDO log runs at restart. Default 0: in-memory
    tables only, as in seed 003 ("this particular benchmark has no disk data")."""

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


class WorkloadRates(_Model):
    """The steady transaction stream of a scenario, cluster-wide (``workload:``)."""

    updates_per_s: PerSecond = 0.0
    """Row updates per second, cluster-wide (split over the node groups). Default 0: no traffic
    unless given."""
    inserts_per_s: PerSecond = 0.0
    """Row inserts per second, cluster-wide. Default 0: no traffic unless given."""
    deletes_per_s: PerSecond = 0.0
    """Row deletes per second, cluster-wide. Default 0: no traffic unless given."""
    bytes_per_change: PositiveBytes = 512.0
    """REDO/copy bytes per changed row. Default 512 B: seed 004's updates "each updating 512B" (the
    default scenario sets 200B)."""


class PartialRates(_Model):
    updates_per_s: PerSecond | None = None
    """Updates per second in this period; None keeps the steady workload's value."""
    inserts_per_s: PerSecond | None = None
    """Inserts per second in this period; None keeps the steady workload's value."""
    deletes_per_s: PerSecond | None = None
    """Deletes per second in this period; None keeps the steady workload's value."""
    bytes_per_change: PositiveBytes | None = None
    """Bytes per changed row in this period; None keeps the steady workload's value."""


class Burst(PartialRates):
    duration: Duration = 0.0
    """Length of the burst, ending when the restart begins. Default 0: no burst (the default
    scenario assumes 20 min at 100,000 inserts/s for seed 003's "heavy insert activity")."""


class Workload(WorkloadRates):
    during_restart: PartialRates | None = None
    """Rates while the node restarts. Default None: the steady rates continue (the default scenario
    sets 0: seed 003 "didn't perform any updates during the restart")."""
    before_restart: Burst | None = None
    """A burst in the last ``duration`` before the restart (e.g. a bulk load). Default None: no burst
    (the default scenario gives one for seed 003's "heavy insert activity right before the restart")."""


def _version_text(v: Any) -> Any:
    return str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v


ROLLING_TYPES = ("rolling", "initial-rolling")
"""Restart types that restart the nodes wave by wave, one member of every node group at a time."""


class Restart(_Model):
    type: Literal["node", "initial", "system", "rolling", "initial-rolling"] = "node"
    """``node``, ``initial`` (--initial), ``system`` (all nodes), ``rolling`` (node restarts wave by
    wave) or ``initial-rolling`` (every node with --initial, wave by wave). Default node: seed 003's
    node restart, the default scenario."""
    nodes: list[int] | None = None
    """Node ids to restart. Default None: the highest-numbered node for node and initial restarts
    (the default scenario names node 2 of 2), every node for a rolling restart; a system restart
    takes all nodes."""
    downtime: Duration = 0.0
    """Time the node stays down before it starts again (counted in secs_to_allocate_node_id).
    Default 0: restarted at once, as seed 004 recommends ("restart the ndbd node as soon as possible")."""
    cause: Literal["planned", "crash", "host-failure", "network-failure"] = "planned"
    """Why the node went down. ``planned``: stopped by hand; ``crash``: the ndbmtd process died,
    the OS closed its sockets and the live nodes declare it failed at once (QmgrMain.cpp,
    execDISCONNECT_REP -> node_failed, handled "as if a heartbeat failure was discovered");
    ``host-failure`` or ``network-failure``: the sockets stay open until the live nodes miss 4
    heartbeats, 4–5 × HeartbeatIntervalDbDb (reference §9). Default planned: seed 003 performed
    its node restarts by hand."""
    upgrade_to: Annotated[str | None, BeforeValidator(_version_text)] = None
    """The NDB release each restarted node comes back on (an online upgrade, ``ndbsim.upgrade``).
    Default None: the nodes restart on ``version``."""


MAX_REPLICATIONS = 100_000
"""Most replications one run accepts: about two minutes of simulation at ~1 ms each, far more
than p5/p95 need (a few hundred). A guard against typos like ``-n 1000000000``, not a model value."""


MAX_SEED = 2**63 - 1
"""Largest root seed (``simulation.seed``, ``--seed``): the largest signed 64-bit integer, so a seed
fits every place a run is recorded (JSON read by 64-bit tools, an int64 column, a SQL BIGINT).
NumPy's ``SeedSequence`` would take any size, but 63 bits already give far more distinct streams
than any study draws. A bound of ours, not a model value."""


def check_seed(seed: Any, field: str, source: str | None = None) -> int:
    """A root seed given outside a scenario (``--seed``, a sweep file's ``seed``): a whole number
    from 0 to ``MAX_SEED``, or a one-line error naming ``field``."""
    from ndbsim.input.units import shown

    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise InputError(
            f"{shown(seed)} is not a seed; use a whole number from 0 to 2^63-1 ({MAX_SEED})", field=field, source=source
        )
    return seed


def check_run_counts(seed: int | None, replications: int | None) -> None:
    """Raise an ``InputError`` unless ``seed`` (None: the scenario's) is a whole number from 0 to ``MAX_SEED`` and
    ``replications`` (None: the scenario's) lies in 1..``MAX_REPLICATIONS``."""
    if replications is not None and not 1 <= replications <= MAX_REPLICATIONS:
        raise InputError(
            f"{replications} is not a replication count; use 1 to {MAX_REPLICATIONS:,}", field="--replications"
        )
    if seed is not None:
        check_seed(seed, "--seed")


class Simulation(_Model):
    seed: int = Field(1, ge=0, le=MAX_SEED)
    """Root seed of the replications' random streams. Default 1: any fixed value, for reproducible
    runs (``ndbsim run --seed 0`` draws one)."""
    replications: int = Field(1, ge=1, le=MAX_REPLICATIONS)
    """Replications to run; p5/p50/p95 need more than one. Default 1."""
    lcp_phase: float | None = Field(None, ge=0, le=1)
    """Fraction of the running LCP done when the restart begins; random (seeded) if omitted."""
    horizon: Duration = 7 * 24 * 3600.0
    """Simulated time after which a restart that has not finished is reported as stuck. Default 7 days:
    a modelling choice, far beyond any published restart (minutes to hours)."""


class Cluster(_Model):
    data_nodes: int = Field(2, ge=1, le=144)
    """Data nodes in the cluster, a multiple of NoOfReplicas. Default 2: seed 003's (and seed 000's)
    two data nodes."""
    node_ids: list[Annotated[int, Field(ge=1, le=144)]] | None = None
    """The data nodes' NodeIds (config.ini's [ndbd] NodeId), node group by node group: the first
    NoOfReplicas form node group 0, and so on. ``restart.nodes``, tables and charts then use them.
    Default None: NodeIds 1..data_nodes, grouped in that order (NDB's assignment without NodeId)."""
    config: dict[str, Any] = Field(default_factory=dict)
    """config.ini [ndbd default] parameters, by NDB name. Default empty: every parameter at the
    version profile's default (``profiles._COMMON`` and the family's overrides)."""


class Scenario(_Model):
    name: str = "unnamed scenario"
    """Label shown in reports; a placeholder by default."""
    version: Annotated[str, BeforeValidator(_version_text)] = "7.6.6"
    """NDB version; picks the profile (defaults and mechanisms). Default 7.6.6: seed 003's 7.6.6, the
    default scenario's version."""
    cluster: Cluster = Field(default_factory=Cluster)
    """Data nodes and config.ini parameters; defaults as in ``Cluster``."""
    host: Host = Field(default_factory=Host)
    """Host hardware; defaults as in ``Host`` (seed 003's 8 cores × 2 threads)."""
    data: Data = Field(default_factory=Data)
    """Data per node; defaults as in ``Data`` (seed 003's 60 GB DBT2 schema)."""
    workload: Workload = Field(default_factory=Workload)
    """Traffic before and during the restart; defaults as in ``Workload`` (idle, no burst)."""
    restart: Restart = Field(default_factory=Restart)
    """What restarts and how; defaults as in ``Restart`` (a planned node restart)."""
    simulation: Simulation = Field(default_factory=Simulation)
    """Seed, replications, LCP phase and horizon; defaults as in ``Simulation``."""
    expect: dict[str, Any] | None = None
    """Expected outcomes written next to the scenario, checked by the test suite."""

    @model_validator(mode="after")
    def _version_known(self) -> Scenario:
        profile_for(self.version)
        return self


class Resolved:
    """A scenario with its profile and fully resolved config.ini parameters."""

    __slots__ = ("config", "node_ids", "profile", "scenario", "upgrade")

    def __init__(
        self,
        scenario: Scenario,
        profile: Profile,
        config: dict[str, Any],
        node_ids: list[int] | None = None,
        upgrade: Resolved | None = None,
    ):
        self.scenario = scenario
        """The scenario as the engine reads it: data nodes numbered 1..data_nodes."""
        self.profile = profile
        self.config = config
        self.node_ids = node_ids
        """``cluster.node_ids``: engine node i is NDB NodeId ``node_ids[i - 1]``; None when 1..N."""
        self.upgrade = upgrade
        """The release the restarted nodes come back on (restart.upgrade_to), resolved; None: no upgrade."""

    def node_id(self, index: int) -> int:
        """The NDB NodeId of the engine's data node ``index`` (1-based)."""
        return self.node_ids[index - 1] if self.node_ids else index

    def to_dict(self) -> dict[str, Any]:
        d = self.scenario.model_dump(mode="json")
        d["cluster"]["config"] = dict(self.config)
        if self.node_ids:
            d["cluster"]["node_ids"] = list(self.node_ids)
            if d["restart"]["nodes"]:
                d["restart"]["nodes"] = [self.node_id(i) for i in d["restart"]["nodes"]]
        if d["restart"].get("upgrade_to") is None:
            del d["restart"]["upgrade_to"]  # a scenario without an upgrade is written as it was given
        return d


# ---------------------------------------------------------------------------------------
# Loading and errors


def _loc(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc if not str(p).startswith(("function-", "union-")))


def shown_value(value: Any) -> str:
    """A bad value as an error message shows it: "a mapping", or its repr cut to 60 characters."""
    if isinstance(value, dict):
        return "a mapping"
    return shown(value)


def _describe(kind: str, ctx: dict[str, Any], value: Any, msg: str) -> str:
    """pydantic's error, reworded as 'VALUE is ...; FIX'."""
    v = shown_value(value)
    if kind == "value_error":
        return msg.removeprefix("Value error, ")
    if kind == "greater_than":
        return f"{v} is too small; use a value greater than {ctx.get('gt')}"
    if kind == "greater_than_equal":
        bound = ctx.get("ge")
        if bound == 0:
            return f"{v} is negative; use 0 or more"
        return f"{v} is too small; use {bound} or more"
    if kind in ("less_than", "less_than_equal"):
        bound = ctx.get("lt", ctx.get("le"))
        return f"{v} is too large; use at most {bound}"
    if kind in ("int_parsing", "int_type", "int_from_float", "int_parsing_size"):
        return f"{v} is not a whole number; write one such as 8"
    if kind in ("float_parsing", "float_type"):
        return f"{v} is not a number; write one such as 1.5"
    if kind == "finite_number":
        return f"{v} is not a finite number; write one such as 1.5"
    if kind == "literal_error":
        return f"{v} is not allowed; use one of {ctx.get('expected', 'the documented values')}"
    if kind in ("string_type", "string_unicode"):
        return f"{v} is not text; write a string (quote it)"
    if kind in ("list_type", "tuple_type"):
        return f"{v} is not a list; write a list such as [2]"
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return f"{v} is not a section; write a mapping of keys under it"
    if kind in ("bool_parsing", "bool_type"):
        return f"{v} is not true or false; write true or false"
    text = " ".join(str(msg).split()).rstrip(".")
    return f"{v} is not valid ({text[:1].lower() + text[1:]}); fix the value"


def error_from_validation(err: ValidationError, model: type[BaseModel] | None = None) -> InputError:
    """A pydantic error as one ``InputError`` naming the field, the value and the fix
    (``model``, default ``Scenario``, lists the keys for "did you mean")."""
    model = model or Scenario
    e = err.errors(include_url=False)[0]
    loc = tuple(e.get("loc", ()))
    field = _loc(loc) or "scenario"
    kind = e.get("type", "")
    if kind == "extra_forbidden":
        hint = did_you_mean(str(loc[-1]), keys_at(model, loc)) if loc else ""
        return InputError(f"unknown key{hint}; remove it or fix its spelling", field=field)
    if field == "data.tables" and kind.startswith("int_"):
        return InputError(
            f"{shown_value(e.get('input'))} is neither a table count nor a list of tables; write a count "
            "such as 9 or a list such as [{name: orders, rows: 10M, ordered_indexes: 2}]",
            field=field,
        )
    text = _describe(kind, dict(e.get("ctx") or {}), e.get("input"), e.get("msg", "invalid"))
    return InputError(text, field=field)


def scenario_from_dict(raw: Any, source: str | None = None) -> Scenario:
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise InputError("a scenario must be a YAML mapping of keys (name, version, cluster, ...)", source=source)
    try:
        return Scenario.model_validate(raw)
    except ValidationError as err:
        e = error_from_validation(err)
        raise (e.located(source) if source else e) from None
    except InputError as e:
        raise (e.located(source) if source else e) from None


def sections_of(raw: Any) -> dict[str, Any]:
    """The validated top-level sections of a scenario mapping, to reuse for variants of it
    that leave them alone (see ``scenario_reusing``); empty if it does not validate."""
    try:
        s = scenario_from_dict(copy_raw(raw))
    except InputError:
        return {}
    return {name: getattr(s, name) for name in raw if isinstance(getattr(s, name, None), StrictModel)}


def scenario_reusing(raw: dict[str, Any], sections: dict[str, Any], changed: set[str]) -> Scenario:
    """``scenario_from_dict(raw)``, but sections not in ``changed`` are taken already validated
    from ``sections``: pydantic accepts a model instance as is. A sweep point validates only
    what its factors touch."""
    mixed = {k: (sections[k] if k in sections and k not in changed else v) for k, v in raw.items()}
    return scenario_from_dict(mixed)


def read_yaml(path: str | Path) -> Any:
    """A scenario (or sweep, or case) file's data, bounded in size, depth and alias expansion."""
    return read_yaml_file(path, "scenario .yaml file")


def override_key(assignment: str) -> str:
    """The dotted key a ``dotted.path=value`` assignment sets."""
    return assignment.split("=", 1)[0].strip()


def fixed_rows_note(raw: dict[str, Any], changed: set[str] | dict[str, Any], fix: str) -> str | None:
    """A warning when ``changed`` keys move data.size but not data.rows while ``raw`` fixes
    data.rows: the row size then changes with the size, which is rarely what was meant."""
    data = raw.get("data")
    if not (isinstance(data, dict) and data.get("rows") is not None):
        return None
    if "data.size" not in changed or "data.rows" in changed:
        return None
    return (
        f"data.rows stays {data['rows']} while data.size changes, so the row size changes with it; "
        f"{fix} to derive the rows from data.row_size"
    )


def set_override(raw: dict[str, Any], assignment: str) -> None:
    """Apply one ``dotted.path=value`` to a raw scenario dict (value read as a YAML scalar)."""
    if "=" not in assignment:
        raise InputError(f"{assignment!r} has no '='; write it like data.size=1TB", field="--set")
    path, _, text = assignment.partition("=")
    path = path.strip()
    if not path or any(not p for p in path.split(".")):
        raise InputError(f"{assignment!r} has an empty key; write it like data.size=1TB", field="--set")
    try:
        value = load_yaml(text) if text.strip() else ""
    except MalformedYaml:
        value = text
    except InputError as e:
        why = e.message.removeprefix("line 1, column 1: ") if "\n" not in text else e.message
        raise InputError(f"{shown_value(text)}: {why}", field=f"--set {path}") from None
    if value is None and text.strip() not in ("null", "Null", "NULL", "~"):
        value = text  # e.g. '#x' is a YAML comment, not null: keep what the user typed
    set_path(raw, path, value)


def set_path(raw: dict[str, Any], path: str, value: Any) -> None:
    parts = path.split(".")
    cur: Any = raw
    for i, part in enumerate(parts[:-1]):
        nxt = cur.get(part)
        if nxt is None:
            nxt = cur[part] = {}
        if not isinstance(nxt, dict):
            raise InputError(
                f"{'.'.join(parts[: i + 1])} is the value {nxt!r}, not a section; "
                f"set {'.'.join(parts[: i + 1])} itself or fix the key",
                field=path,
            )
        cur = nxt
    cur[parts[-1]] = value


_ATOMS = frozenset((str, int, float, bool, type(None)))
"""The types of the immutable scalars of parsed YAML and JSON, which a copy shares."""


def copy_raw(value: Any, memo: dict[int, Any] | None = None) -> Any:
    """``copy.deepcopy`` of a raw scenario, a few times faster on its plain dicts, lists and
    scalars; like deepcopy it keeps shared parts (YAML aliases) shared and copies any other
    value with deepcopy."""
    if type(value) in _ATOMS:
        return value
    if memo is None:
        memo = {}
    done = memo.get(id(value))
    if done is not None:
        return done
    if type(value) is dict:
        mapping: dict[Any, Any] = {}
        memo[id(value)] = mapping
        for k, v in value.items():
            mapping[k] = v if type(v) in _ATOMS else copy_raw(v, memo)
        return mapping
    if type(value) is list:
        items: list[Any] = []
        memo[id(value)] = items
        items.extend(v if type(v) in _ATOMS else copy_raw(v, memo) for v in value)
        return items
    return copy.deepcopy(value, memo)


def raw_from(scenario: Any) -> tuple[dict[str, Any], str | None]:
    """(an editable raw scenario, its source file) from a YAML path, a mapping, a
    ``Scenario`` or None (the built-in default)."""
    if isinstance(scenario, Scenario):
        return scenario.model_dump(mode="json"), None
    if isinstance(scenario, dict):
        return copy_raw(scenario), None
    return load_raw(scenario), (str(scenario) if scenario else None)


def load_raw(path: str | Path | None, overrides: list[str] | tuple[str, ...] = ()) -> dict[str, Any]:
    raw: Any = read_yaml(path) if path else copy_raw(DEFAULT_SCENARIO)
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise InputError("a scenario must be a YAML mapping of keys (name, version, cluster, ...)", source=str(path))
    for assignment in overrides:
        set_override(raw, assignment)
    return raw


def resolve(scenario: Scenario, source: str | None = None) -> Resolved:
    """Attach the version profile and resolve every config.ini parameter."""
    profile = profile_for(scenario.version)
    node_ids = scenario.cluster.node_ids
    try:
        config = config_params.resolve(profile.defaults, scenario.cluster.config)
        if node_ids is not None:
            scenario = _engine_numbering(scenario, node_ids)
        _check_consistency(scenario, profile, config, node_ids)
        upgrade = _resolve_upgrade(scenario, node_ids) if scenario.restart.upgrade_to is not None else None
    except InputError as e:
        raise (e.located(source) if source else e) from None
    return Resolved(scenario, profile, config, list(node_ids) if node_ids else None, upgrade)


def _resolve_upgrade(s: Scenario, node_ids: list[int] | None) -> Resolved:
    """The release ``restart.upgrade_to`` names, resolved with the scenario's own config.ini: a
    restarted node reads the same config.ini, with the new release's defaults where it sets
    nothing (``ndbsim.upgrade`` checks the path)."""
    from ndbsim.input.upgrade import check_upgrade

    target = str(s.restart.upgrade_to)
    check_upgrade(s.version, target, s.restart.type)
    new = s.model_copy(update={"version": target, "restart": s.restart.model_copy(update={"upgrade_to": None})})
    profile = profile_for(target)
    config = config_params.resolve(profile.defaults, s.cluster.config)
    try:
        _check_consistency(new, profile, config, node_ids)
    except InputError as e:
        raise InputError(f"on the upgrade's release {target}: {e.message}", field=e.field) from None
    return Resolved(new, profile, config, list(node_ids) if node_ids else None)


def _engine_numbering(s: Scenario, node_ids: list[int]) -> Scenario:
    """The scenario with ``restart.nodes`` as the engine numbers data nodes (1..data_nodes in
    ``cluster.node_ids``' order), after checking the NodeIds."""
    if len(node_ids) != s.cluster.data_nodes:
        raise InputError(
            f"{len(node_ids)} NodeIds for {s.cluster.data_nodes} data nodes; list one NodeId per data node",
            field="cluster.node_ids",
        )
    if len(set(node_ids)) != len(node_ids):
        dup = next(x for x in node_ids if node_ids.count(x) > 1)
        raise InputError(f"NodeId {dup} is listed twice; list each data node once", field="cluster.node_ids")
    index = {nid: i + 1 for i, nid in enumerate(node_ids)}
    if not s.restart.nodes:
        return s
    for n in s.restart.nodes:
        if n not in index:
            raise InputError(
                f"node {n} is not a data node; use NodeIds {', '.join(map(str, node_ids))} (cluster.node_ids)",
                field="restart.nodes",
            )
    restart = s.restart.model_copy(update={"nodes": [index[n] for n in s.restart.nodes]})
    return s.model_copy(update={"restart": restart})


def _check_live_replica(s: Scenario, replicas: int, nodes: int, node_ids: list[int] | None = None) -> None:
    """Node, initial and rolling restarts copy from a live replica of the same node group
    (nodes 1..NoOfReplicas form group 0, and so on); a group with no live node shuts the
    cluster down, so such a restart is not a node restart (reference §5)."""

    def name(n: int) -> int:  # the NodeId a message shows for engine node n
        return node_ids[n - 1] if node_ids else n

    kind = s.restart.type
    if kind == "system":
        return
    if replicas == 1:
        raise InputError(
            f"NoOfReplicas=1 leaves a restarting node no replica to copy from, so a {kind} restart "
            "is impossible; use restart.type=system or raise NoOfReplicas",
            field="cluster.config.NoOfReplicas",
        )
    if kind in ROLLING_TYPES:
        return  # one member of each node group at a time
    chosen = set(s.restart.nodes or [nodes])
    for first in range(1, nodes + 1, replicas):
        group = list(range(first, first + replicas))
        if chosen.issuperset(group):
            raise InputError(
                f"{sorted(name(n) for n in chosen)} includes every node of node group {(first - 1) // replicas} "
                f"(nodes {[name(n) for n in group]}), which then has no live replica to copy from; restart fewer "
                "nodes at once, or use restart.type=system or rolling",
                field="restart.nodes",
            )


def _check_consistency(s: Scenario, profile: Profile, cfg: dict[str, Any], node_ids: list[int] | None = None) -> None:
    from ndbsim.input.threads import check_layout
    from ndbsim.input.threads import layout as thread_layout

    replicas = cfg["NoOfReplicas"]
    nodes = s.cluster.data_nodes
    if nodes % replicas:
        up = (nodes // replicas + 1) * replicas
        raise InputError(
            f"{nodes} is not a multiple of NoOfReplicas={replicas}; use {up} data nodes "
            "or change cluster.config.NoOfReplicas",
            field="cluster.data_nodes",
        )
    seen: set[int] = set()
    for n in s.restart.nodes or []:
        if not 1 <= n <= nodes:
            raise InputError(
                f"node {n} does not exist; use node ids 1..{nodes} or raise cluster.data_nodes", field="restart.nodes"
            )
        if n in seen:
            raise InputError(f"node {n} is listed twice; list each node once", field="restart.nodes")
        seen.add(n)
    _check_live_replica(s, replicas, nodes, node_ids)
    check_within_horizon(s)
    per_row = s.data.size / s.data.row_count
    if per_row < MIN_ROW_BYTES:
        key, fix = (
            ("data.rows", "lower data.rows or raise data.size")
            if s.data.rows
            else ("data.row_size", f"raise data.row_size to {MIN_ROW_BYTES:.0f}B or more")
        )
        raise InputError(
            f"{format_bytes(s.data.size)} over {s.data.row_count:,.0f} rows is {per_row:.3g} bytes per "
            f"row, but an NDB row takes at least {MIN_ROW_BYTES:.0f} bytes (its record overhead); "
            f"{fix}",
            field=key,
        )
    if s.data.size > cfg["DataMemory"]:
        size = format_bytes(s.data.size)
        said = "" if "size" in s.data.model_fields_set else f" (not set: ndbsim's default {size})"
        memory = (
            ""
            if any(config_params.canonical_name(k) == "DataMemory" for k in s.cluster.config)
            else f" (not set: NDB {s.version}'s default {format_bytes(cfg['DataMemory'])})"
        )
        raise InputError(
            f"{size} of data{said} does not fit in DataMemory={format_bytes(cfg['DataMemory'])}"
            f"{memory}; raise cluster.config.DataMemory or lower data.size",
            field="data.size",
        )
    mech = profile.mechanisms
    threads = thread_layout(cfg, mech.multithreaded, mech.query_threads, s.host.cpu_cores * s.host.threads_per_core)
    refused = check_layout(threads, mech.query_threads)
    if refused:
        key = "ThreadConfig" if threads.source == "ThreadConfig" else "MaxNoOfExecutionThreads"
        raise InputError(
            f"{cfg[key]!r} {refused} (NDB {s.version}); set a count NDB accepts", field=f"cluster.config.{key}"
        )
    _check_log_parts(s, cfg["NoOfFragmentLogParts"], threads.ldm)


def check_within_horizon(s: Scenario) -> None:
    """The node's downtime is part of its restart, which must fit in the horizon: a restart that
    cannot even start before the horizon is a typo, not a stuck restart."""
    horizon = s.simulation.horizon
    if s.restart.downtime >= horizon:
        raise InputError(
            f"{s.restart.downtime:.6g} s is not within simulation.horizon ({secs_text(horizon)}); "
            "shorten it or raise simulation.horizon",
            field="restart.downtime",
        )


MIN_ROW_BYTES = 16.0
"""The least a row can take in DataMemory: NDB's record overhead is 16 bytes (reference §7,
[DOC-NDBD80])."""
LOG_PARTS_80 = (4, 6, 8, 10, 12, 16, 20, 24, 32)
"""NoOfFragmentLogParts values NDB 8.0 accepts (reference §4, [DOC-NDBD80])."""
LOG_PARTS_PER_LDM = 4
""""More than 4 redo log parts per LDM is disallowed" (reference §4, [DOC-NDBD80])."""


def _check_log_parts(s: Scenario, parts: int, ldm: int) -> None:
    field = "cluster.config.NoOfFragmentLogParts"
    if parse_version(s.version) >= (8, 0, 0) and parts not in LOG_PARTS_80:
        raise InputError(
            f"{parts} is not a value NDB {s.version} accepts; use one of "
            f"{', '.join(map(str, LOG_PARTS_80))} (best: the number of LDM threads)",
            field=field,
        )
    if parts > LOG_PARTS_PER_LDM * max(1, ldm):
        raise InputError(
            f"{parts} REDO log parts for {ldm} LDM thread{'s' if ldm != 1 else ''}: NDB allows at most "
            f"{LOG_PARTS_PER_LDM} per LDM thread; use at most {LOG_PARTS_PER_LDM * max(1, ldm)} or "
            "more LDM threads (MaxNoOfExecutionThreads)",
            field=field,
        )


def load(path: str | Path | None = None, overrides: list[str] | tuple[str, ...] = ()) -> Resolved:
    """Read, override, validate and resolve a scenario file (None: the built-in default)."""
    source = str(path) if path else None
    raw = load_raw(path, overrides)
    return resolve(scenario_from_dict(raw, source), source)


DEFAULT_FILE = Path(__file__).with_name("data") / "default.yaml"
"""The built-in default scenario: seed 003's DBT2 600-warehouse node restart on 7.6.6
(the same case as scenarios/dbt2-600wh-7.6.6.yaml)."""

DEFAULT_SCENARIO: dict[str, Any] = load_yaml(DEFAULT_FILE.read_text(encoding="utf-8"))
"""The built-in default scenario as a raw mapping, read once from ``DEFAULT_FILE``
(ndbsim/data/default.yaml); ``load_raw(None)`` hands out deep copies."""
