"""Read what ``ndbinfo.sql`` (package data; ``ndbsim ndbinfo-sql`` prints it) exports from a running
cluster through ``mysql --batch``.

``mysql --batch`` prints each result set as a tab-separated header line and rows, NULL as ``NULL``,
and escapes a tab, newline, backslash and NUL inside a value as ``\\t``, ``\\n``, ``\\\\`` and ``\\0``;
an empty result set prints nothing (the mysql client manual, ``--batch`` and ``--raw``). The script
starts each block with a one-row result ``ndbsim_table`` naming the ndbinfo table that follows, and
ends with ``ndbsim_table`` = ``end``, so a cut-off export is known. Column names follow NDB's
ndbinfo tables of 7.6, 8.0 and 8.4 (the manual's ndbinfo pages).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ndbsim.errors import InputError
from ndbsim.input.safe_load import MAX_TEXT_BYTES, read_text

SCRIPT = "ndbinfo.sql"
"""The SQL script's file name in ``ndbsim/input/data``."""

SNAPSHOT_SCRIPT = "ndbinfo-snapshot.sql"
"""The short script ``ndbsim eta`` reads during a restart (``ndbsim ndbinfo-sql --snapshot``): the
time, ``nodes`` and ``restart_info``, no sampling pause."""

MARKER = "ndbsim_table"
"""The column name of the one-row result that starts each block of the export."""

HEAD = "ndbsim_export"
"""The column name of the export's first line (the script's format and the SQL node's release)."""

END = "end"
"""The block name of the script's last marker: an export without it was cut off."""

ABSENT = "ndbsim_absent"
"""The column of the one-row result a block holds when this release has no such table (hwinfo
before 8.0.23)."""

REQUIRED: dict[str, tuple[str, ...]] = {
    "processes": ("node_id", "node_type", "node_version"),
    "nodes": ("node_id", "status"),
    "memoryusage": ("node_id", "memory_type", "used", "total"),
    "memory_per_fragment": ("node_id", "row_count"),
    "dict_obj_info": ("type_name", "objects"),
    "disk_data_files": ("file_type", "files", "bytes", "used_bytes"),
    "config_values": ("node_id", "param_name", "config_value"),
    "threads": ("node_id", "thread_name", "thread_count"),
    "threadblocks": ("node_id", "block_name", "instances"),
    "hwinfo": ("node_id", "cpu_cnt_max", "num_cpu_cores"),
    "disk_write_speed_aggregate": ("node_id", "lcp_bytes_per_sec", "redo_bytes_per_sec"),
    "operations_1": ("sampled_at", "inserts", "updates", "deletes"),
    "operations_2": ("sampled_at", "inserts", "updates", "deletes"),
    "restart_info": ("node_id", "total_restart_secs"),
    "snapshot": ("sampled_at",),
}
"""Every block the scripts export, with the columns ndbsim reads from it (the script's own aliases
for computed columns; NDB's column names otherwise)."""

SNAPSHOT_BLOCKS = ("snapshot", "nodes", "restart_info")
"""The blocks a snapshot taken during a restart must have (``ndbsim eta``): the time it was
taken, each data node's status, start phase and uptime, and restart_info with its status columns.
Its ``processes`` block (each node's release) is read when there: a snapshot taken with an earlier
ndbsim's script has none."""

LATER = ("disk_data_files",)
"""Blocks an export of an earlier ndbsim's script lacks: read when there, not required."""

INIT_BLOCKS = tuple(b for b in REQUIRED if b != "snapshot" and b not in LATER)
"""The blocks ``init --ndbinfo`` needs (an export of an earlier script has no ``snapshot`` and no
``disk_data_files``)."""

MAY_BE_EMPTY = (
    "memory_per_fragment",
    "dict_obj_info",
    "disk_data_files",
    "threadblocks",
    "restart_info",
    "disk_write_speed_aggregate",
)
"""Blocks that print no rows on a running cluster: no user table yet, no disk-data file, no restart
since the cluster started (an empty result prints not even its header under ``--batch``)."""

_RELEASE = re.compile(r"ndb-(\d+\.\d+\.\d+)|(\d+\.\d+\.\d+)")
"""A release as NDB prints it: ``ndb-8.4.3`` (``@@ndb_version_string``), ``8.4.3`` or
``mysql-8.0.35 ndb-8.0.35`` (``processes.node_version``); the ndb- one when both are there."""

DATA_NODE_TYPE = "NDB"
"""processes.node_type of a data node (the manual's ndbinfo processes page: NDB, MGM, API)."""


_PRINTED = re.compile(r"\s*(?:(?:mysql-\d+\.\d+\.\d+\s+)?ndb-)?(\d+\.\d+\.\d+)\s*")
"""The whole of a release as NDB prints it (the forms of ``_RELEASE``, nothing around them)."""


def release_of(text: str, whole: bool = False) -> str | None:
    """The release ``8.4.3`` a version text names, or None. ``whole``: only when the whole text is
    one of the forms NDB prints (a release a user gives), not a line that mentions one."""
    if whole:
        w = _PRINTED.fullmatch(text)
        return w.group(1) if w else None
    m = _RELEASE.search(text)
    return (m.group(1) or m.group(2)) if m else None


NUMBER_MAX = 2**32 - 1
"""The largest value of an ndbinfo column of type ``Ndbinfo::Number``, an unsigned 32-bit integer
(storage/ndb/src/kernel/vm/NdbinfoTables.cpp; ``INT UNSIGNED`` in SQL): every seconds column of
``restart_info`` (``secs_*``, ``total_restart_secs``), about 136 years. Not a restart's length:
``secs_to_allocate_node_id`` runs from the node's failure handling to its new start, so a node
stopped for a month of hardware repair shows a month there."""

NUMBER64_MAX = 2**64 - 1
"""The largest value of an ndbinfo column of type ``Ndbinfo::Number64``, an unsigned 64-bit integer
(NdbinfoTables.cpp; ``BIGINT UNSIGNED``): ``nodes.uptime``, "time in seconds that node has been
running", which on a production cluster is months or years."""

NUMBER64_SECONDS = frozenset({("nodes", "uptime")})
"""The seconds columns ndbsim reads that NDB declares ``Number64``; every other one is ``Number``."""


def seconds_max(table: str, column: str) -> int:
    """The most seconds NDB can write in ``table.column`` (``NUMBER_MAX`` or ``NUMBER64_MAX``): the one
    bound ``init --ndbinfo``, ``eta`` and ``calibrate --restart-info`` hold a seconds value to."""
    return NUMBER64_MAX if (table, column) in NUMBER64_SECONDS else NUMBER_MAX


def seconds_problem(x: float, table: str, column: str) -> str | None:
    """Why ``x`` cannot be a number of seconds NDB wrote in ``table.column``, or None when it can."""
    top = seconds_max(table, column)
    if math.isfinite(x) and 0 <= x <= float(top):
        return None
    bits = 64 if top == NUMBER64_MAX else 32
    return f"{column}={x:g} is not a number of seconds ndbinfo.{table} can hold (0-{top}, unsigned {bits}-bit)"


_ESCAPES = {"t": "\t", "n": "\n", "\\": "\\", "0": "\0", "r": "\r", "b": "\b", "Z": "\x1a"}
"""``mysql --batch``'s escapes inside a value (client/mysql.cc ``print_tab_data``, via
``mysql_real_escape_string``-style rules), backslash-letter -> character."""


@dataclass
class Export:
    """An ndbinfo export: the rows of each block by its name; values are text, NULL is None."""

    source: str
    sql_node_version: str = ""
    tables: dict[str, list[dict[str, str | None]]] = field(default_factory=dict)
    absent: set[str] = field(default_factory=set)
    """Blocks the cluster's release has no table for (exported as ``absent``)."""

    def rows(self, table: str) -> list[dict[str, str | None]]:
        return self.tables.get(table, [])

    def fail(self, table: str, message: str) -> InputError:
        """One line naming the ndbinfo table and the fix."""
        return InputError(message, field=f"ndbinfo.{table.removesuffix('_1').removesuffix('_2')}", source=self.source)


def script_text(name: str = SCRIPT) -> str:
    """The SQL script a DBA runs with ``mysql --batch`` (``ndbsim ndbinfo-sql`` prints it)."""
    return resources.files("ndbsim.input").joinpath("data").joinpath(name).read_text(encoding="utf-8")


def unescape(value: str) -> str | None:
    """A ``mysql --batch`` value as text: NULL -> None, ``\\t``/``\\n``/``\\\\``/``\\0`` -> the character."""
    if value == "NULL":
        return None
    if "\\" not in value:
        return value
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), value)


def read_export(path: str | Path, required: tuple[str, ...] = INIT_BLOCKS) -> Export:
    """Read and check an export: every ``required`` block present, in ``mysql --batch`` form, not cut off."""
    p = Path(path)
    text = read_text(p, MAX_TEXT_BYTES, field="--ndbinfo", what="ndbinfo export (mysql --batch output)")
    return parse_export(text, str(p), required)


def parse_export(text: str, source: str, required: tuple[str, ...] = INIT_BLOCKS) -> Export:
    lines = text.splitlines()
    ex = Export(source)
    if len(lines) < 2 or lines[0].split("\t")[0] != HEAD:
        raise InputError(
            "not an export of ndbsim's ndbinfo script (its first line is not ndbsim_export); run "
            "`ndbsim ndbinfo-sql > ndbinfo.sql` and `mysql --batch < ndbinfo.sql > export.tsv` against an SQL node",
            field="--ndbinfo",
            source=source,
        )
    head = dict(zip(lines[0].split("\t"), lines[1].split("\t"), strict=False))
    ex.sql_node_version = unescape(head.get("sql_node_ndb_version", "")) or ""
    blocks: list[tuple[str, list[str]]] = []
    i = 2
    while i < len(lines):
        if lines[i] == MARKER and i + 1 < len(lines):
            blocks.append((lines[i + 1], []))
            i += 2
            continue
        if not blocks:
            raise InputError(
                f"line {i + 1}: {lines[i][:40]!r} before the first ndbsim_table block; export again with the unchanged "
                "script",
                field="--ndbinfo",
                source=source,
            )
        blocks[-1][1].append(lines[i])
        i += 1
    names = [name for name, _ in blocks]
    if END not in names:
        last = names[-1] if names else "processes"
        raise ex.fail(
            last,
            "the export ends without the script's end marker (cut off during or after this table); run the whole "
            "script again and keep all of its output",
        )
    for name, body in blocks:
        if name != END:
            _read_block(ex, name, body)
    for name in required:
        if name not in ex.tables and name not in ex.absent:
            script = "ndbsim ndbinfo-sql --snapshot" if required == SNAPSHOT_BLOCKS else "ndbsim ndbinfo-sql"
            raise ex.fail(name, f"missing from the export; run the whole unchanged script (`{script}`) again")
    return ex


def _read_block(ex: Export, name: str, body: list[str]) -> None:
    if name not in REQUIRED:
        raise InputError(
            f"unknown block {name!r}; export with the script of this ndbsim (`ndbsim ndbinfo-sql`)",
            field="--ndbinfo",
            source=ex.source,
        )
    if not body:
        if name not in MAY_BE_EMPTY:
            raise ex.fail(name, "no rows; the cluster's data nodes must be running when the script runs")
        ex.tables[name] = []
        return
    header = body[0].split("\t")
    if header == [ABSENT]:
        ex.absent.add(name)
        return
    missing = [c for c in REQUIRED[name] if c not in header]
    if missing:
        raise ex.fail(
            name,
            f"has no column {', '.join(missing)} (columns: {', '.join(header)}); export with the unchanged script",
        )
    rows = []
    for k, line in enumerate(body[1:], 2):
        values = line.split("\t")
        if len(values) != len(header):
            raise ex.fail(
                name,
                f"row {k - 1} has {len(values)} values for {len(header)} columns (cut or edited); export again with "
                "mysql --batch",
            )
        rows.append({c: unescape(v) for c, v in zip(header, values, strict=True)})
    ex.tables[name] = rows


def seconds(ex: Export, table: str, row: dict[str, str | None], column: str, node: int) -> float:
    """A seconds value of the export (NaN for NULL), or one line naming the table, node, column and
    the range NDB's column holds."""
    x = number(ex, table, row, column)
    problem = None if math.isnan(x) else seconds_problem(x, table, column)
    if problem:
        raise ex.fail(table, f"node {node}: {problem}; export again")
    return x


def number(ex: Export, table: str, row: dict[str, str | None], column: str) -> float:
    """A numeric value of the export, or one line naming the table, column and fix."""
    raw = row.get(column)
    try:
        return float(raw) if raw is not None else float("nan")
    except ValueError:
        raise ex.fail(table, f"{column}={raw!r} is not a number; export again with mysql --batch") from None
