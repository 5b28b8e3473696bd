"""Is the snapshot of the release the scenario simulates? The SQL node's ``@@ndb_version_string``
(``sql_node_ndb_version``, ``ndb-8.4.3``) and each data node's ``processes.node_version``, where
the export has them, against the scenario's ``version``, or either end of its
``restart.upgrade_to``: during an online upgrade the nodes not yet restarted run the old release
and the restarted ones the new (the manual's rolling restart for an upgrade: management nodes,
then data nodes one by one, then SQL nodes, so an SQL node may show either).

A release written with its patch (``8.0.35``) must match to the patch; a release line (``8.0``)
matches any patch of it.
"""

from __future__ import annotations

import re

from ndbsim.errors import InputError
from ndbsim.input.ndbinfo import release_of
from ndbsim.input.profiles import parse_version
from ndbsim.input.snapshot.read import Snapshot


def _same(release: str, version: str) -> bool:
    """Whether ``release`` (``8.4.3``) is the scenario's ``version`` (``8.4.3`` or the line ``8.4``)."""
    mine, theirs = parse_version(release), parse_version(version)
    with_patch = re.match(r"\s*\d+\.\d+\.\d+", version) is not None
    return mine == theirs if with_patch else mine[:2] == theirs[:2]


def _simulated(version: str, upgrade_to: str | None) -> str:
    return f"upgrades {version} to {upgrade_to}" if upgrade_to else f"simulates {version}"


def _fix(release: str, upgrade_to: str | None) -> str:
    if upgrade_to:
        return (
            "give the scenario of the upgrade under way (version and restart.upgrade_to), or take the snapshot "
            "from an SQL node of this cluster"
        )
    return (
        f"give the scenario of the running release (--set version={release}, or ndbsim init --ndbinfo on an export "
        "of this cluster), or take the snapshot from an SQL node of this cluster"
    )


def check_release(snap: Snapshot, version: str, upgrade_to: str | None, data_nodes: list[int]) -> None:
    """One line naming both releases when the snapshot's SQL node or one of the scenario's data
    nodes runs a release the scenario does not simulate."""
    allowed = [version, *([upgrade_to] if upgrade_to else [])]
    sql = release_of(snap.sql_node_version)
    runs = [(f"the snapshot's SQL node runs NDB {sql} ({snap.sql_node_version!r})", sql, "sql_node_ndb_version")]
    for n in data_nodes:
        release = snap.node_releases.get(n)
        runs.append((f"data node {n} runs NDB {release}", release, "processes.node_version"))
    for who, release, field in runs:
        if release is not None and not any(_same(release, v) for v in allowed):
            raise InputError(
                f"{who} but the scenario {_simulated(version, upgrade_to)}; {_fix(release, upgrade_to)}",
                field=field,
                source=snap.source,
            )
