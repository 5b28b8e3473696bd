"""The restart plans a rolling restart may take, as the replica count allows: a wave restarts
at most NoOfReplicas − 1 nodes of a node group (a whole node group down shuts the cluster
down, ``input.scenario.resolving._check_plan``). Besides the two named plans, three and four
replicas allow waves of k = 2 .. NoOfReplicas − 1 nodes of every node group at once, or of one
node group at a time; each plan is named by its safety: the fewest replicas it keeps up in any
node group, then the most nodes it takes down at once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PlanChoice:
    """One restart plan: what ``--set restart.plan=`` takes, the waves in NodeIds, and words."""

    value: str
    """``restart.plan``'s value: a named plan, or the waves of NodeIds."""
    waves: tuple[tuple[int, ...], ...]
    description: str
    replicas_kept: int
    """The fewest replicas any node group keeps up during a wave."""
    most_down: int
    """The most nodes down at once (the largest wave)."""

    @property
    def set(self) -> str:
        return f"restart.plan={self.value}"

    @property
    def safety(self) -> tuple[int, int]:
        """Sort key, safest first: more replicas kept up, then fewer nodes down at once."""
        return (-self.replicas_kept, self.most_down)


def enumerate_plans(resolved: Any) -> list[PlanChoice]:
    """Every plan the replica count allows for the rolling restart of ``resolved``, safest
    first (``PlanChoice.safety``), each once."""
    s = resolved.scenario
    replicas = int(resolved.config["NoOfReplicas"])
    chosen = set(s.restart.nodes or range(1, s.cluster.data_nodes + 1))
    groups = [
        [resolved.node_id(e) for e in range(first, first + replicas) if e in chosen]
        for first in range(1, s.cluster.data_nodes + 1, replicas)
    ]
    groups = [g for g in groups if g]
    candidates: list[tuple[str, list[list[int]], str]] = [
        ("one-at-a-time", [[n] for g in groups for n in g], "one node at a time"),
        ("per-node-group", _every_group(groups, 1), "one node of every node group per wave"),
    ]
    for k in range(2, replicas):
        candidates.append(("", _every_group(groups, k), f"{k} nodes of every node group per wave"))
        candidates.append(("", _group_by_group(groups, k), f"{k} nodes of one node group per wave, group by group"))
    out: list[PlanChoice] = []
    seen: set[tuple[tuple[int, ...], ...]] = set()
    for name, waves, words in candidates:
        key = tuple(tuple(sorted(w)) for w in waves)
        if key in seen:
            continue
        seen.add(key)
        down = max(sum(1 for n in w if n in g) for w in waves for g in groups)
        value = name or "[" + ", ".join("[" + ", ".join(map(str, w)) + "]" for w in waves) + "]"
        out.append(PlanChoice(value, key, words, replicas - down, max(len(w) for w in waves)))
    return sorted(out, key=lambda p: p.safety)


def _every_group(groups: list[list[int]], k: int) -> list[list[int]]:
    """Waves of ``k`` nodes of every node group at once (the last wave takes the rest)."""
    depth = max(len(g) for g in groups)
    return [[n for g in groups for n in g[i : i + k]] for i in range(0, depth, k)]


def _group_by_group(groups: list[list[int]], k: int) -> list[list[int]]:
    """Waves of ``k`` nodes of one node group, one node group after another."""
    return [g[i : i + k] for g in groups for i in range(0, len(g), k)]
