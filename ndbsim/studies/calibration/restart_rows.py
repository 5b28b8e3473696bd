"""A user's own restarts, as ``SELECT * FROM ndbinfo.restart_info`` exports them: the CSV reader,
the one mapping from restart_info's columns to ndbsim's simulated phases, and the ``fit`` case an
export becomes (every finished row, node by node, with the scenario carried inside the case).

Where NDB counts memory allocation and touch: DIH's node recovery status module stamps
``secs_to_allocate_node_id`` when QMGR reports the node id allocated (ALLOC_NODEID_REP, which
the management server asks for before the data node process reads its configuration) and
``secs_to_include_in_heartbeat_protocol`` when QMGR has included it in the heartbeat protocol
(INCL_NODE_HB_PROTOCOL_REP; DbdihMain.cpp, ``execALLOC_NODEID_REP`` and
``execINCL_NODE_HB_PROTOCOL_REP``; NdbinfoTables.cpp: "Seconds from allocation of node id to
inclusion in HB protocol"). In between, CMVMI allocates and touches the global memory pools in
READ_CONFIG_REQ (with LateAlloc, the rest in STTOR phase 1, before QMGR's phase 1 runs the
inclusion): NdbcntrMain.cpp's "Restart Phases" comment, "CMVMI ... installs the normal watchdog
timeout since now all large memory allocations are performed". So ndbsim's own
``secs_memory_touch`` row is part of restart_info's ``secs_to_include_in_heartbeat_protocol``.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ndbsim.errors import InputError
from ndbsim.input import restart_info as ri
from ndbsim.input.ndbinfo import NUMBER_MAX
from ndbsim.input.restart_info import COLUMN_PHASES, COLUMNS, check_header, check_row, column_name, without_comments
from ndbsim.input.safe_load import MAX_TEXT_BYTES, read_limited

MAX_SECS = NUMBER_MAX
"""The largest published or measured time ndbsim accepts, in seconds: what restart_info's columns
hold (``ndbsim.input.ndbinfo.NUMBER_MAX``, about 136 years), the bound ``init --ndbinfo`` and
``eta`` hold the same columns to. A node down for weeks before its restart shows those weeks in
``secs_to_allocate_node_id``."""

COMPARED: tuple[str, ...] = ri.COLUMNS
"""The columns an imported row is compared on, with ``total_restart_secs`` (that node's own restart,
from its node failure to its start; never a multi-node window). ``secs_for_local_recovery`` is
read but compared through its four parts, so that no second counts twice."""

NULLS = ("", "NULL", "null", "\\N")
"""How an export writes a missing value (empty, or mysql's NULL and \\N): such a phase is left out."""
DELIMITERS = (",", "\t", ";")
"""The separators ``--restart-info`` reads: CSV, ``mysql -B`` (tab) and spreadsheet (semicolon) exports."""
IMPORTED_REPLICATIONS = 21
"""Replications of a case imported from restart_info, whose landing point in the LCP cycle is
unknown: the median of 21 (the most any published case uses) is steady to a few percent."""

FIX = "export SELECT * FROM ndbinfo.restart_info again and check this value"
"""The fix every bad seconds value of an export names."""


def node_columns(phases: dict[str, float], total: float) -> dict[str, float]:
    """A simulated node's restart as restart_info's columns (``COLUMN_PHASES``) and its total."""
    out = {col: sum(phases.get(p, 0.0) for p in parts) for col, parts in COLUMN_PHASES.items()}
    out["total_restart_secs"] = total
    return out


def _seconds(text: str, col: str, line: int, src: str) -> float:
    """A restart_info seconds value: a finite number, 0 ≤ x ≤ ``MAX_SECS``."""
    try:
        x = float(text)
    except ValueError:
        raise InputError(f"{text!r} on line {line} is not a number of seconds; {FIX}", field=col, source=src) from None
    if not math.isfinite(x):
        raise InputError(f"{text!r} on line {line} is not a finite number of seconds; {FIX}", field=col, source=src)
    if x < 0:
        raise InputError(f"{text!r} on line {line} is negative; a duration is 0 or more: {FIX}", field=col, source=src)
    if x > MAX_SECS:
        raise InputError(
            f"{text!r} on line {line} is more than {MAX_SECS:.0f} s, the most restart_info's unsigned 32-bit "
            f"column holds; {FIX}",
            field=col,
            source=src,
        )
    return x


def _node_id(text: str, line: int, src: str) -> int:
    try:
        n = int(text)
    except ValueError:
        try:
            x = float(text)
        except ValueError:
            x = math.nan
        n = int(x) if math.isfinite(x) and x.is_integer() else -1
    if not 1 <= n <= 255:
        raise InputError(
            f"{text!r} on line {line} is not a node id; a data node id is a whole number 1-255",
            field="node_id",
            source=src,
        )
    return n


def _csv_text(p: Path) -> str:
    """The text of the export at ``p``, or an ``InputError`` saying why it cannot be read."""
    src = str(p)
    what = "give the CSV file of SELECT * FROM ndbinfo.restart_info"
    if not p.exists():
        raise InputError(f"file not found: {src!r}; check the path", field="--restart-info")
    if p.is_dir():
        raise InputError(f"{src!r} is a directory; {what}", field="--restart-info")
    if not p.is_file():
        raise InputError(f"{src!r} is not a regular file; {what}", field="--restart-info")
    try:
        data = read_limited(p, MAX_TEXT_BYTES, what="restart_info CSV export")
    except OSError as err:
        raise InputError(
            f"cannot read {src!r} ({err.strerror}); check its permissions", field="--restart-info"
        ) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = None
    if text is None or "\x00" in text:
        raise InputError("not a UTF-8 text file; export SELECT * FROM ndbinfo.restart_info as CSV text", source=src)
    return without_comments(text)


def _delimiter(text: str, src: str) -> str:
    """The separator of the header line: the first of ``DELIMITERS`` that splits out ``node_id``."""
    head = next((ln for ln in text.splitlines() if ln.strip()), None)
    if head is None:
        raise InputError("no rows; export SELECT * FROM ndbinfo.restart_info with a header line", source=src)
    found = next(
        (d for d in DELIMITERS if "node_id" in [column_name(c) for c in next(csv.reader([head], delimiter=d))]), ""
    )
    if not found:
        spaced = "node_id" in head.lower().split()
        raise InputError(
            "the header line has no node_id column"
            + (" (its columns are separated by spaces)" if spaced else "")
            + "; export SELECT * FROM ndbinfo.restart_info with its header line, "
            "separated by commas, tabs or semicolons",
            source=src,
        )
    return found


def _read_csv(csv_path: Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """The header and the (line number, row) pairs of a restart_info export, or an ``InputError``.
    A row maps each header column to its stripped text (missing trailing values are "")."""
    p = Path(csv_path)
    src = str(p)
    text = _csv_text(p)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(text, src))
    header: list[str] | None = None
    rows: list[tuple[int, dict[str, str]]] = []
    try:
        for fields_ in reader:
            if not any(f.strip() for f in fields_):
                continue
            if header is None:
                header = [column_name(f) for f in fields_]
                check_header(header, src)
                continue
            if len(fields_) > len(header) and any(f.strip() for f in fields_[len(header) :]):
                raise InputError(
                    f"line {reader.line_num} has {len(fields_)} values but the header has "
                    f"{len(header)} columns; export with one header line and quote values "
                    "that contain the separator",
                    source=src,
                )
            fields_ = fields_ + [""] * (len(header) - len(fields_))
            rows.append((reader.line_num, {h: f.strip() for h, f in zip(header, fields_)}))
    except csv.Error as err:
        fix = f"malformed CSV at line {reader.line_num} ({err}); fix the quoting there"
        raise InputError(fix, source=src) from None
    assert header is not None
    if "total_restart_secs" not in header:
        raise InputError(
            "column 'total_restart_secs' is missing; export all restart_info columns with a header", source=src
        )
    if not rows:
        raise InputError("no rows; export SELECT * FROM ndbinfo.restart_info with a header line", source=src)
    return header, rows


def observations(csv_path: Path, node_id: int | None = None) -> list[dict[str, Any]]:
    """Every finished restart in an export (or only ``node_id``'s), in file order, as
    ``{node_id, line, total_restart_secs, phases}``: each row is its own observation, several rows
    of one node included. A row whose total is 0 or NULL is a node not restarted (restart_info
    keeps a row per node) and is left out; no finished row at all is an error."""
    src = str(csv_path)
    header, rows = _read_csv(Path(csv_path))
    out: list[dict[str, Any]] = []
    seen: list[tuple[int, int, str]] = []
    for line, row in rows:
        node = _node_id(row["node_id"], line, src)
        cell = row["total_restart_secs"]
        total = None if cell in NULLS else _seconds(cell, "total_restart_secs", line, src)
        seen.append((node, line, cell))
        if (node_id is not None and node != node_id) or not total:
            continue
        _check_row(row, header, total, line, node, src)
        phases = {c: _seconds(row[c], c, line, src) for c in COMPARED if c in header and row[c] not in NULLS}
        out.append({"node_id": node, "line": line, "total_restart_secs": total, "phases": phases})
    if out:
        return out
    nodes = ", ".join(str(n) for n in sorted({s[0] for s in seen}))
    if node_id is not None and all(s[0] != node_id for s in seen):
        raise InputError(f"no row for node {node_id}; the file has node {nodes}", field="--node", source=src)
    node, line, cell = next(s for s in seen if node_id is None or s[0] == node_id)
    raise InputError(
        f"{cell!r} on line {line} (node {node}) is not a finished restart; "
        "export restart_info after the restart has completed, or choose another node with --node",
        field="total_restart_secs",
        source=src,
    )


def _check_row(row: dict[str, str], header: list[str], total: float, line: int, node: int, src: str) -> None:
    """Refuse a row that contradicts itself (``restart_info.check_row``), naming its line and node."""
    phases = {c: _seconds(row[c], c, line, src) for c in COLUMNS if c in header and row[c] not in NULLS}
    lr = row.get("secs_for_local_recovery", "")
    local = None if lr in NULLS else _seconds(lr, "secs_for_local_recovery", line, src)
    try:
        check_row(phases, total, local, f"line {line} (node {node})")
    except InputError as e:
        raise e.located(src) from None


def check_nodes(rows: list[dict[str, Any]], restarted: list[int], src: str, scenario: str) -> None:
    """Every row's node must be one the scenario restarts (its NodeIds, ``cluster.node_ids``)."""
    missing = sorted({r["node_id"] for r in rows} - set(restarted))
    if missing:
        have = ", ".join(str(n) for n in sorted(restarted))
        rows_have = ", ".join(str(n) for n in sorted({r["node_id"] for r in rows}))
        raise InputError(
            f"restart_info has rows for node(s) {rows_have} but the scenario {scenario!r} restarts "
            f"node(s) {have}: node {', '.join(map(str, missing))} is not among them; give the scenario "
            "that cluster's NodeIds (cluster.node_ids, or ndbsim init --config-ini) and restart "
            "(restart.type, restart.nodes), or choose a row with --node",
            field="node_id",
            source=src,
        )


def case_from_rows(rows: list[dict[str, Any]], csv_path: Path, scenario_path: Path, raw: dict[str, Any]) -> dict:
    """A ``fit`` case from the observations of an export: the scenario carried inside it (so the
    case works wherever its folder is copied), one entry per row under ``published.nodes``."""
    nodes = [
        {
            "node_id": r["node_id"],
            "line": r["line"],
            "total_restart_secs": {"value": r["total_restart_secs"]},
            "phases": {c: {"value": v} for c, v in r["phases"].items()},
        }
        for r in rows
    ]
    source = {"restart_info": str(csv_path), "scenario": str(scenario_path)}
    note = _several_rows_note(rows)
    if note:
        source["note"] = note
    return {
        "source": source,
        "role": "fit",
        # restart_info does not say where in the LCP cycle the node stopped: compare the median
        # over landing points spread by the seed, as the published cases without a pinned phase do
        "replications": IMPORTED_REPLICATIONS,
        "stated": {"origin": "ndbinfo.restart_info export", "rows": len(rows)},
        "assumed": {"lcp_phase": f"unknown: the median of {IMPORTED_REPLICATIONS} landing points in the LCP cycle"},
        "scenario": raw,
        "published": {"nodes": nodes},
    }


def _several_rows_note(rows: list[dict[str, Any]]) -> str:
    """What is done with several rows of one node (restart_info keeps the last restart per node;
    exports taken over time hold more): each is used, as an observation of its own restart."""
    lines: dict[int, list[int]] = {}
    for r in rows:
        lines.setdefault(r["node_id"], []).append(r["line"])
    twice = [f"node {n} (lines {', '.join(map(str, ls))})" for n, ls in sorted(lines.items()) if len(ls) > 1]
    if not twice:
        return ""
    return f"{'; '.join(twice)}: several rows of one node, each used as an observation of its own restart"


def restarted_nodes(raw: dict[str, Any], source: str) -> list[int]:
    """The NodeIds a scenario restarts (one replication of it: restart.type and restart.nodes as
    the engine reads them, in config.ini's NodeIds)."""
    from ndbsim.models.load import load

    try:
        loaded = load(raw)
    except InputError as e:  # the scenario's own error: say it is that file's, not the CSV's
        raise (e if e.source else e.located(source)) from None
    if not set(ri.COLUMNS) <= set(loaded.model.phases):
        raise InputError(
            f"restart_info rows are NDB data node restarts but the scenario is {loaded.model.label}'s; "
            "give the scenario of that NDB cluster",
            field="--scenario",
            source=source,
        )
    return sorted(set(loaded.run(None, 1, explained=False).node_ids()))


def case_from_restart_info(
    csv_path: Path, scenario_path: Path, node_id: int | None = None, sets: Sequence[str] = ()
) -> dict[str, Any]:
    """A ``fit`` case from a CSV export of ``SELECT * FROM ndbinfo.restart_info``: every finished
    row (or ``node_id``'s), each matched to that node of the scenario by NodeId; the scenario, with
    the ``--set`` assignments ``sets`` laid over it as ``run`` does, is carried inside the case.
    Every value used is a finite number of seconds ≥ 0."""
    from ndbsim.input import scenario as sc

    rows = observations(Path(csv_path), node_id)
    raw, _ = sc.raw_from(Path(scenario_path))
    for i, assignment in enumerate(sets):
        try:
            sc.set_override(raw, assignment)
        except InputError as e:
            raise InputError(e.message, field=f"--set[{i}]") from None
    check_nodes(rows, restarted_nodes(sc.copy_raw(raw), str(scenario_path)), str(csv_path), str(scenario_path))
    case = case_from_rows(rows, Path(csv_path), Path(scenario_path), raw)
    if sets:
        case["source"]["set"] = [a.strip() for a in sets]
    return case
