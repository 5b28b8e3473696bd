"""Read a real NDB config.ini into a scenario's ``cluster`` section.

``[ndbd default]`` parameters become ``cluster.config``; the number of ``[ndbd]`` sections
gives ``cluster.data_nodes``. Where a node runs and keeps its files (HostName, DataDir, ...)
is read without a note; other parameters ndbsim does not model are skipped and listed.
Section names are case-insensitive, and ``[DB DEFAULT]``/``[DB]`` are NDB's older spellings.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ndbsim.errors import InputError, did_you_mean
from ndbsim.input.config import ndb_params
from ndbsim.input.config import params as config_params
from ndbsim.input.config.syntax import check_unmodelled_value, ndb_value
from ndbsim.input.safe_load import MAX_LINE_LENGTH, MAX_TEXT_BYTES, read_text
from ndbsim.input.scenario import disk_files
from ndbsim.input.scenario.provenance import not_simulated_notes, value_or_values

_SECTION = re.compile(r"\[\s*([A-Za-z _]+?)\s*\]\s*$")
"""A config.ini section header such as ``[ndbd default]`` or ``[DB]``: letters, spaces and
underscores in square brackets (the line's comment already stripped); group 1 is the name."""
_DATA_NODE = {"ndbd", "db"}
"""Section names of one data node, normalised to lower case: ``[ndbd]`` and NDB's older
spelling ``[db]``. Each such section counts as one data node."""
_DATA_DEFAULT = {"ndbd default", "db default"}
"""Section names of the data-node defaults, normalised: ``[ndbd default]`` and NDB's older
spelling ``[db default]``; their parameters become ``cluster.config``."""

_SECTIONS = {"ndbd", "db", "ndb mgmd", "mgm", "mysqld", "api", "tcp", "shm", "sci", "system", "computer"}
"""config.ini's section names, lower case with spaces for underscores, as NDB knows them
(ConfigInfo.cpp ``m_sectionNames`` and ``m_sectionNameAliases``); each may also be ``[NAME DEFAULT]``."""

_PLACEMENT = {
    "nodeid",
    "id",
    "hostname",
    "executeoncomputer",
    "datadir",
    "backupdatadir",
    "filesystempath",
    "filesystempathdd",
    "filesystempathdatafiles",
    "filesystempathundofiles",
    "serverport",
}
"""Parameters that say where a data node runs and keeps its files (NDB's data-node parameter
list, "Identifying data nodes" and "Data node directories"), lower case. Every config.ini has
them and none bears on restart time, so they are read without a note."""


_PLACEMENT_NAMES = [
    "NodeId",
    "HostName",
    "ExecuteOnComputer",
    "DataDir",
    "BackupDataDir",
    "FileSystemPath",
    "FileSystemPathDD",
    "FileSystemPathDataFiles",
    "FileSystemPathUndoFiles",
    "ServerPort",
    "NodeGroup",
]
"""NDB's spelling of the placement and identity parameters, for did-you-mean hints."""

_ALL_NAMES = sorted(
    {*config_params.PARAMS, *ndb_params.IMPACT, *_PLACEMENT_NAMES, "InitialTablespace", "InitialLogFileGroup"}
)
"""Every data-node parameter name NDB knows, for the did-you-mean of an unknown one."""


def read_config_ini(path: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(``cluster`` mapping, each skipped parameter's label -> its value, or values where they differ)."""
    p = Path(path)
    text = read_text(p, MAX_TEXT_BYTES, field="--config-ini", what="NDB config.ini")
    section: str | None = None
    defaults: dict[str, Any] = {}
    node_sections: list[dict[str, Any]] = []
    node_ids: dict[int, dict[str, int]] = {}
    skipped: list[str] = []
    values: dict[str, list[str]] = {}
    disk: dict[str, float] = {}
    seen: set[str] = set()
    paths: dict[str, list[str]] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = _content(line, lineno, p)
        if not stripped:
            continue
        m = _SECTION.match(stripped)
        if m:
            section = _section_name(m.group(1), lineno, p)
            seen = set()  # the parameters of this one section
            if section in _DATA_NODE:
                node_sections.append({})
                node_ids[len(node_sections) - 1] = {}
            continue
        name, value = _name_value(stripped, lineno, p)
        if section is None:
            raise InputError(
                f"line {lineno}, column 1: parameter before any [section]; put it under [ndbd default]", source=str(p)
            )
        if section not in _DATA_NODE and section not in _DATA_DEFAULT:
            continue
        if section in _DATA_NODE and name.lower() in _IDENTITY:
            node_ids[len(node_sections) - 1][_IDENTITY[name.lower()]] = _whole(
                value, f"[{section}] {name} (line {lineno})", p
            )
            continue
        if name.lower() in _PLACEMENT:
            paths.setdefault(name.lower(), []).append(value)
            continue
        if disk_files.is_file_spec(name):  # the disk-data files an initial start creates
            disk[disk_files.SCENARIO_KEY[name.lower()]] = disk_files.files_bytes(value, f"{name} (line {lineno})", p)
            continue
        canon = _modelled_name(name, f"[{section}] {name} (line {lineno})", p, skipped)
        if canon is None:
            unused = ndb_params.known(name) or name
            check_unmodelled_value(unused, value, f"[{section}] {unused} (line {lineno})", p)
            values.setdefault(unused, []).append(value)
            continue
        field = f"[{section}] {canon} (line {lineno})"
        value = _checked_value(canon, value, field, p)
        target = node_sections[-1] if section in _DATA_NODE else defaults
        if canon in seen:
            raise InputError(f"{canon} is given twice in one [{section}] section; keep one", field=field, source=str(p))
        seen.add(canon)
        target[canon] = value
    _merge_node_values(node_sections, defaults, skipped, values)
    _separate_disk_data_paths(paths, skipped, values)
    cluster = _cluster(defaults, node_sections, node_ids, p)
    if disk:
        cluster["disk_files"] = disk
    return cluster, {k: value_or_values(values.get(k, [])) for k in skipped}


_DISK_DATA_PATHS = {
    "filesystempathdd": "FileSystemPathDD",
    "filesystempathdatafiles": "FileSystemPathDataFiles",
    "filesystempathundofiles": "FileSystemPathUndoFiles",
}
"""Where a data node keeps its disk-data files, apart from its LCP and REDO files (NDB manual, "Data
node directories": each defaults to the one before it, FileSystemPathDD to FileSystemPath, that to
DataDir)."""


def _separate_disk_data_paths(paths: dict[str, list[str]], skipped: list[str], values: dict[str, list[str]]) -> None:
    """A disk-data path away from FileSystemPath (or DataDir) puts those files on a directory of their
    own, often a device of their own; ndbsim has one device per host, so it is a parameter it does
    not simulate (``ndb_params.CHANGES_RESTART``), with its values."""
    base = set(paths.get("filesystempath") or paths.get("datadir") or [])
    for key, name in _DISK_DATA_PATHS.items():
        given = paths.get(key, [])
        if any(v.rstrip("/") not in {b.rstrip("/") for b in base} for v in given):
            skipped.append(name)
            values[name] = given


def _content(line: str, lineno: int, p: Path) -> str:
    """The line without its comment and surrounding blanks; an error for a line NDB cannot read.
    A comment starts at ``#`` (InitConfigFileParser.cpp, ``isEmptyLine`` and ``parseNameValuePair``:
    "Remove all after #"); ``;`` is no comment there, it separates InitialTablespace's items."""
    if len(line) >= MAX_LINE_LENGTH:
        raise InputError(
            f"line {lineno}, column 1: {len(line):,} characters long; NDB reads at most "
            f"{MAX_LINE_LENGTH - 1:,} per line, so shorten it",
            source=str(p),
        )
    return line.split("#", 1)[0].strip()


def _section_name(header: str, lineno: int, p: Path) -> str:
    """``[NDBD_default]`` -> ``ndbd default``; an error for a section NDB does not know."""
    section = " ".join(header.lower().replace("_", " ").split())
    if section.removesuffix(" default") not in _SECTIONS:
        raise InputError(
            f"line {lineno}, column 1: [{header}] is not a config.ini section"
            f"{did_you_mean(section, sorted(_SECTIONS))}; NDB knows {', '.join(sorted(_SECTIONS))}",
            source=str(p),
        )
    return section


def _name_value(stripped: str, lineno: int, p: Path) -> tuple[str, str]:
    """``name=value`` or ``name: value`` -> (name, value); an error for any other line."""
    if "=" not in stripped and ":" not in stripped:
        raise InputError(
            f"line {lineno}, column 1: {stripped!r} is neither [section] nor name=value; fix or remove the line",
            source=str(p),
        )
    name, _, value = re.split(r"([=:])", stripped, maxsplit=1)
    return name.strip(), value.strip()


def _modelled_name(name: str, field: str, p: Path, skipped: list[str]) -> str | None:
    """The canonical name of a parameter ndbsim models; None for one NDB knows but ndbsim does not
    use (added to ``skipped``); an error for one NDB does not know."""
    canon = config_params.canonical_name(name)
    if canon is None:
        unused = ndb_params.known(name)
        if unused is None:
            raise InputError(
                f"unknown data-node parameter{did_you_mean(name, _ALL_NAMES)}; NDB refuses a config.ini "
                "with it, so correct or remove it",
                field=field,
                source=str(p),
            )
        if unused not in skipped:
            skipped.append(unused)
    return canon


def _checked_value(canon: str, value: str, field: str, p: Path) -> str:
    """The value as NDB reads it (K/M/G numbers), checked against the parameter's range."""
    value = ndb_value(canon, value, field, p)
    try:
        config_params.parse_value(canon, value, field)
    except InputError as e:
        raise e.located(str(p)) from None
    return value


def _merge_node_values(
    node_sections: list[dict[str, Any]], defaults: dict[str, Any], skipped: list[str], values: dict[str, list[str]]
) -> None:
    """Node-specific values apply to all nodes only when every [ndbd] agrees (``values``: theirs if not)."""
    for name in sorted({k for s in node_sections for k in s}):
        given = {s.get(name) for s in node_sections}
        if len(given) == 1 and None not in given:
            defaults[name] = given.pop()
        else:  # ndbsim gives every data node the same configuration
            label = f"{name} (differs between [ndbd] sections)"
            skipped.append(label)
            values[label] = [str(s.get(name, defaults.get(name, "NDB's default"))) for s in node_sections]


def _cluster(
    defaults: dict[str, Any], node_sections: list[dict[str, Any]], node_ids: dict[int, dict[str, int]], p: Path
) -> dict[str, Any]:
    """The ``cluster`` mapping: the data nodes' config, their number and ids."""
    if not node_sections:  # without them the cluster would be invented: 2 nodes, NDB's defaults
        raise InputError(
            "no [ndbd] section, so no data node; a cluster's config.ini has one per data node: "
            "give the whole file (or set parameters with --set cluster.config.NAME=VALUE)",
            source=str(p),
        )
    cluster: dict[str, Any] = {"config": defaults}
    if node_sections:
        cluster["data_nodes"] = len(node_sections)
        ordered = _node_order([node_ids[i] for i in range(len(node_sections))], p)
        if ordered is not None:
            cluster["node_ids"] = ordered
    return cluster


_IDENTITY = {"nodeid": "NodeId", "id": "NodeId", "nodegroup": "NodeGroup"}
"""A data node's identity in its [ndbd] section, lower case → NDB's name: NodeId (``Id`` is the
older spelling) and NodeGroup."""

MAX_DATA_NODE_ID = 144
"""Highest NodeId a data node may have (NDB 8.0: 1–144; reference §5, [DOC-NDBD80])."""

NO_NODE_GROUP = 65536
"""NodeGroup=65536 leaves a data node out of every node group (a spare for a later
ALTER ONLINE; NDB manual, NodeGroup); ndbsim has no such nodes."""


def _whole(value: str, field: str, path: Path) -> int:
    try:
        return int(value)
    except ValueError:
        raise InputError(
            f"{value!r} is not a whole number; write one such as 11", field=field, source=str(path)
        ) from None


def _node_order(nodes: list[dict[str, int]], path: Path) -> list[int] | None:
    """The data nodes' NodeIds in node-group order (node group 0's first, each group's by
    NodeId), as ``cluster.node_ids`` lists them; None when no [ndbd] section names a NodeId.
    NDB gives a section without NodeId the lowest free id, and forms node groups in NodeId
    order when NodeGroup is not set (Dbdih's node-group assignment at initial start)."""
    if not any("NodeId" in n for n in nodes):
        return None
    taken = [n["NodeId"] for n in nodes if "NodeId" in n]
    for nid in taken:
        if not 1 <= nid <= MAX_DATA_NODE_ID:
            raise InputError(
                f"{nid} is not a data node id; use 1..{MAX_DATA_NODE_ID}", field="[ndbd] NodeId", source=str(path)
            )
    if len(set(taken)) != len(taken):
        dup = next(x for x in taken if taken.count(x) > 1)
        raise InputError(
            f"{dup} is given to two [ndbd] sections; give each its own NodeId", field="[ndbd] NodeId", source=str(path)
        )
    free = (i for i in range(1, MAX_DATA_NODE_ID + 1) if i not in taken)
    ids = [n.get("NodeId") or next(free) for n in nodes]
    groups = [n.get("NodeGroup") for n in nodes]
    if any(g == NO_NODE_GROUP for g in groups):
        raise InputError(
            f"NodeGroup={NO_NODE_GROUP} (a node in no node group) is not modelled; drop that [ndbd] section",
            field="[ndbd] NodeGroup",
            source=str(path),
        )
    if any(g is not None for g in groups):
        if any(g is None for g in groups):
            raise InputError(
                "NodeGroup is set in some [ndbd] sections but not all; set it in every one or in none",
                field="[ndbd] NodeGroup",
                source=str(path),
            )
        sizes = {g: groups.count(g) for g in groups}
        if len(set(sizes.values())) > 1:
            raise InputError(
                f"node groups of unequal size ({', '.join(f'group {g}: {c}' for g, c in sorted(sizes.items()))}); "
                "give every node group NoOfReplicas data nodes",
                field="[ndbd] NodeGroup",
                source=str(path),
            )
        return [nid for _, nid in sorted(zip(groups, ids))]
    return sorted(ids)


def merge_config_ini(
    raw: dict[str, Any], path: str | Path, source: str | None, notes: list[str], found: dict[str, Any]
) -> dict[str, Any]:
    """Put a config.ini's [ndbd default] parameters and data-node count into the scenario mapping
    ``raw`` (they win over the file's), note what was skipped (and put it, with its values, in
    ``found``), and return what was read. ``models.load.read`` asks the scenario's model first."""
    cluster, skipped = read_config_ini(path)
    found.update(skipped)
    raw.setdefault("cluster", {})
    if not isinstance(raw["cluster"], dict):
        raise InputError(
            f"{raw['cluster']!r} is not a section; write cluster: as a mapping (data_nodes, config)",
            field="cluster",
            source=source,
        )
    if raw["cluster"].get("config") is None:
        raw["cluster"]["config"] = {}
    if not isinstance(raw["cluster"]["config"], dict):
        raise InputError(
            f"{raw['cluster']['config']!r} is not a section; write a mapping of config.ini parameters",
            field="cluster.config",
            source=source,
        )
    scenario_config = dict(raw["cluster"]["config"])
    for key in scenario_config:  # config.ini wins over the scenario's spelling of the same name too
        if key not in cluster["config"] and (config_params.canonical_name(key) or key) in cluster["config"]:
            del raw["cluster"]["config"][key]
    raw["cluster"]["config"].update(cluster["config"])
    if "data_nodes" in cluster:
        raw["cluster"]["data_nodes"] = cluster["data_nodes"]
    if "node_ids" in cluster:
        raw["cluster"]["node_ids"] = cluster["node_ids"]
    disk_files.merge(raw, cluster.get("disk_files", {}))
    notes.extend(not_simulated_notes(Path(path).name, skipped))
    kept = sorted(k for k in scenario_config if (config_params.canonical_name(k) or k) not in cluster["config"])
    if kept:
        notes.append(
            f"{Path(path).name} does not set {', '.join(kept)}: the scenario's "
            f"value{'s' if len(kept) != 1 else ''} kept, not NDB's default"
        )
    return cluster
