"""Online upgrades (``restart.upgrade_to``): which release paths NDB supports, and which need
every data node restarted with --initial.

In a mixed-release cluster the restarted node's own work (its threads, restore, index build and
copy) follows its new release, while the cluster-wide protocols (the DIH master's LCP and its
decisions) stay at the old release's until every node runs the new one (``engine.restart.pipeline``).

Sources: the manual's upgrade notes, [UPG75] mysql-cluster-upgrade-downgrade-7-5.html, [UPG76]
mysql-cluster-upgrade-downgrade-7-6.html (MySQL 5.7 manual), [UPG80] and [UPG84]
mysql-cluster-upgrade-downgrade.html (MySQL 8.0 and 8.4 manuals); [RN764] the NDB 7.6.4
release notes; seed 000 ("online version upgrades from versions prior to the new partial
checkpoint require an initial rolling restart of all data nodes").
"""

from __future__ import annotations

from ndbsim.errors import InputError
from ndbsim.input.profiles import parse_version, profile_for

Version = tuple[int, int, int]

UPGRADE_FROM: dict[tuple[int, int], dict[tuple[int, int], int]] = {
    (7, 5): {(7, 3): 2, (7, 4): 4, (7, 5): 0},
    (7, 6): {(7, 3): 2, (7, 4): 4, (7, 5): 4, (7, 6): 0},
    (8, 0): {(7, 4): 6, (7, 5): 4, (7, 6): 4, (8, 0): 0},
}
"""Release line upgraded to -> {release line upgraded from: its first supported patch}: "versions
supported for upgrades" of [UPG75] (7.3.2+, 7.4.4+), [UPG76] (7.3.2+, 7.4.4+, 7.5.4+) and
[UPG80] (7.4.6+, 7.5.4+, 7.6.4+; "to upgrade from a release series previous to NDB 7.4, you must
upgrade in stages"); within a line every minor release upgrades online ([UPG80]). Lines after 8.0
take 8.0.19 and later (``LATER_FROM``); lines before 7.5 have no table and are not checked."""

LATER_FROM: Version = (8, 0, 19)
"""8.1 to 9.0 support upgrades from NDB 8.0.19 and later and from the 8.x lines between ([UPG84])."""

INITIAL_ACROSS: tuple[Version, ...] = ((7, 6, 2), (7, 6, 4))
"""Upgrading to or past these releases needs an initial restart of each data node: "due to
changes in disk format, upgrading to or downgrading from either of the versions listed here
requires an initial node restart of each data node: NDB 7.6.2, NDB 7.6.4" ([UPG76]; [RN764] with
the partial LCP's new file format). [UPG80] repeats it for 8.0: "it is necessary to restart all
data nodes with --initial when upgrading any release prior to NDB 7.6 to any NDB 8.0 release"."""

INITIAL_TYPES = ("initial", "initial-rolling")
"""Restart types whose nodes start with --initial."""

ONLINE_TYPES = ("node", "initial", "rolling", "initial-rolling")
"""Restart types that keep the cluster running, as an online upgrade does ([UPG80]: the rolling
restart procedure)."""


def needs_initial(old: Version, new: Version) -> list[Version]:
    """The file-format releases (``INITIAL_ACROSS``) an upgrade from ``old`` to ``new`` crosses."""
    return [b for b in INITIAL_ACROSS if old < b <= new]


def _supported_from(new: Version) -> dict[tuple[int, int], int] | None:
    line = new[:2]
    if line in UPGRADE_FROM:
        return UPGRADE_FROM[line]
    if new >= (8, 1, 0):
        lines = {(8, 0): LATER_FROM[2]}
        lines.update({(8, m): 0 for m in range(1, 5) if (8, m) < line})
        lines[line] = 0
        return lines
    return None


def check_upgrade(version: str, target: str, restart_type: str) -> None:
    """Raise ``InputError`` unless NDB can upgrade ``version`` to ``target`` online with a
    ``restart_type`` restart."""
    field = "restart.upgrade_to"
    try:
        new = parse_version(target)
        profile_for(target)
    except InputError as e:
        raise InputError(e.message, field=field) from None
    old = parse_version(version)
    if new <= old:
        raise InputError(
            f"{target!r} is not newer than version {version}; an upgrade goes to a later release "
            "(downgrades are not modelled): raise restart.upgrade_to or drop it",
            field=field,
        )
    if restart_type not in ONLINE_TYPES:
        raise InputError(
            f"a {restart_type} restart cannot upgrade: an online upgrade restarts the nodes while the "
            "cluster runs; use restart.type=rolling or initial-rolling with restart.upgrade_to",
            field="restart.type",
        )
    lines = _supported_from(new)
    if lines is not None and (old[:2] not in lines or old[2] < lines[old[:2]]):
        froms = ", ".join(f"{a}.{b}.{p}" for (a, b), p in sorted(lines.items()) if (a, b) != new[:2])
        raise InputError(
            f"NDB supports upgrades to {target} from {froms} and later (and within its own line), not "
            f"from {version}; upgrade in stages, first to one of those",
            field=field,
        )
    crossed = " and ".join(".".join(map(str, b)) for b in needs_initial(old, new))
    if crossed and restart_type not in INITIAL_TYPES:
        raise InputError(
            f"a {restart_type} restart cannot upgrade {version} to {target}: NDB {crossed} changed the data "
            "nodes' file formats (disk data; the partial LCP in 7.6.4), so every data node must restart "
            "with --initial; use restart.type=initial-rolling",
            field="restart.type",
        )
