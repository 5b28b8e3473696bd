"""config.ini's disk-data files: InitialTablespace and InitialLogFileGroup, which an initial start
creates, read into ``data.tablespace_size`` and ``data.undo_log_size``.

Their syntax (the manual's data-node parameter pages, "Disk Data parameters") is a list of
``;``-separated items: ``name=…``, a size parameter (``extent_size=8M``, ``undo_buffer_size=64M``),
and one ``FILE:SIZE`` item per file, e.g. ``name=LG1; undo_buffer_size=128M; undo1.log:250M;
undo2.log:200M`` and ``name=TS1; extent_size=8M; data1.dat:2G; data2.dat:4G``. Every data node
creates each file at its full size, so the sum of the files' sizes is a node's.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.ndbinfo import Export, number

SCENARIO_KEY = {"initialtablespace": "tablespace_size", "initiallogfilegroup": "undo_log_size"}
"""config.ini parameter (lower case) -> the ``data`` key its files' total size sets."""

_FILE = re.compile(r"^\s*([^=:;]+?)\s*:\s*(\d+)\s*([kKMG]?)\s*$")
"""One ``FILE:SIZE`` item: a file name, a colon, a number with config.ini's K/M/G suffix."""

_SHIFT = {"": 0, "k": 10, "K": 10, "M": 20, "G": 30}
"""Size suffix -> power of two (config.ini's own, ``config_ini._SHIFT``)."""


def is_file_spec(name: str) -> bool:
    """Whether ``name`` is InitialTablespace or InitialLogFileGroup (any case)."""
    return name.lower() in SCENARIO_KEY


def files_bytes(value: str, field: str, path: Path) -> float:
    """The total size of the files a specification lists; an error naming the item to fix."""
    total = 0.0
    files = 0
    for item in value.split(";"):
        item = item.strip()
        if not item or "=" in item:  # name=…, extent_size=…, undo_buffer_size=…
            continue
        m = _FILE.match(item)
        if m is None:
            raise InputError(
                f"{item!r} is not FILE:SIZE; list each file as name:size, e.g. data1.dat:2G",
                field=field,
                source=str(path),
            )
        total += int(m.group(2)) * 2 ** _SHIFT[m.group(3)]
        files += 1
    if not files:
        raise InputError(
            f"{value!r} names no file; add one as name:size, e.g. data1.dat:2G", field=field, source=str(path)
        )
    return total


def merge(raw: dict[str, Any], disk: dict[str, float]) -> set[str]:
    """Put the files' sizes into ``raw``'s ``data`` section; the dotted keys set."""
    if not disk:
        return set()
    data = raw.setdefault("data", {})
    if not isinstance(data, dict):
        raise InputError(f"{data!r} is not a section; write data: as a mapping", field="data")
    data.update(disk)
    return {f"data.{k}" for k in disk}


DATAFILE, UNDO_LOG = "DATAFILE", "UNDO LOG"
"""INFORMATION_SCHEMA.FILES.FILE_TYPE of a tablespace's data file and of an UNDO file (the manual's
INFORMATION_SCHEMA FILES page, NDB notes)."""

DICT_FILE_TYPES = ("Tablespace", "Data file", "Undo file")
"""dict_obj_types.type_name of the disk-data objects ndbinfo.dict_obj_info lists."""


def from_export(ex: Export) -> tuple[dict[str, float], dict[str, str], list[str]]:
    """(``data`` keys, their sources, notes) from an export's ``disk_data_files`` block: the data
    files' size and the extents in use as ``tablespace_size`` and ``disk_data_size``, the UNDO files'
    size as ``undo_log_size``. An export without the block (an earlier script) that lists disk-data
    objects in dict_obj_info gets a note instead."""
    data: dict[str, float] = {}
    sources: dict[str, str] = {}
    if "disk_data_files" not in ex.tables:
        kinds = {r.get("type_name"): r.get("objects") for r in ex.rows("dict_obj_info")}
        listed = [f"{kinds[k]} × {k.lower()}" for k in DICT_FILE_TYPES if kinds.get(k)]
        if listed:
            return (
                data,
                sources,
                [
                    f"ndbinfo.dict_obj_info lists {', '.join(listed)} but the export has no file sizes (an earlier "
                    "script); export again with `ndbsim ndbinfo-sql`, or give data.disk_data_size"
                ],
            )
        return data, sources, []
    for r in ex.rows("disk_data_files"):
        kind = r.get("file_type")
        size = number(ex, "disk_data_files", r, "bytes")
        files = int(number(ex, "disk_data_files", r, "files"))
        where = f"INFORMATION_SCHEMA.FILES: INITIAL_SIZE of {files} {kind} file{'s' if files != 1 else ''}"
        if kind == DATAFILE:
            used = number(ex, "disk_data_files", r, "used_bytes")
            data["tablespace_size"] = size
            data["disk_data_size"] = min(size, used) if used == used else size
            sources["data.tablespace_size"] = where
            sources["data.disk_data_size"] = "INFORMATION_SCHEMA.FILES: (TOTAL_EXTENTS - FREE_EXTENTS) × EXTENT_SIZE"
        elif kind == UNDO_LOG:
            data["undo_log_size"] = size
            sources["data.undo_log_size"] = where
    return data, sources, []
