"""Which node groups a restart leaves on a single replica, wave by wave, and for how long: while
a node group has one live node, that node's failure takes the group's data down and NDB shuts
the cluster down (reference §5). A wave restarts at most NoOfReplicas − 1 nodes of a node group
(checked on input); with three or four replicas, a plan may keep two of them up, so a wave
that does not is named in the run's warnings."""

from __future__ import annotations

from typing import Any

from ndbsim.engine.records import NodeRun
from ndbsim.engine.runtime import Runtime


def single_replica(rt: Runtime, runs: list[NodeRun]) -> list[dict[str, Any]]:
    """Per wave and node group left with one live node: the wave, the node group, the NodeIds of
    the live node and of the restarting ones, and the seconds from the wave's start until the
    first of them is back (``NodeRun.end``; infinite if none ends). ``runs`` carry engine ids."""
    replicas = rt.sz.replicas
    down: dict[tuple[int, int], list[NodeRun]] = {}
    for x in runs:
        down.setdefault((x.wave, rt.nodes[x.node_id - 1].group), []).append(x)
    out: list[dict[str, Any]] = []
    for (wave, g), gone in sorted(down.items(), key=lambda kv: kv[0]):
        if replicas - len(gone) != 1:
            continue
        ids = {x.node_id for x in gone}
        live = next(n for n in rt.groups[g] if n.id not in ids)
        out.append(
            {
                "wave": wave,
                "node_group": g,
                "live_node": rt.node_id(live),
                "restarting": [rt.node_id(rt.nodes[x.node_id - 1]) for x in gone],
                "secs": min(x.end for x in gone) - min(x.start for x in gone),
            }
        )
    return out


def warnings(replicas: int, exposure: list[dict[str, Any]]) -> list[str]:
    """One warning per wave that leaves node groups on a single replica although NoOfReplicas
    would let it keep two (three or four replicas); with two replicas every restarting node
    leaves its group on one, which the schedule states. The words are the same in every
    replication (the seconds are the schedule's), so that replications share one warning."""
    if replicas < 3:
        return []
    out = []
    for wave in sorted({e["wave"] for e in exposure}):
        mine = [e for e in exposure if e["wave"] == wave]
        groups = "; ".join(
            f"node group {e['node_group']} (restarting {', '.join(map(str, e['restarting']))}) runs on node "
            f"{e['live_node']} alone"
            for e in mine
        )
        out.append(
            f"single replica in wave {wave}: {groups}, until one of its restarting nodes is back (the schedule "
            "says for how long); a failure of that node then shuts the cluster down. Restart at most "
            f"{replicas - 2} node{'s' if replicas > 3 else ''} of a node group per wave (restart.plan) to keep "
            "two replicas up"
        )
    return out
