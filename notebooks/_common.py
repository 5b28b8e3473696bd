"""Small helpers shared by the operator notebooks (not part of the ndbsim package).

Each notebook sets ``SMALL`` from ``NDBSIM_NOTEBOOK_SMALL=1`` (used by the test suite) to
shrink its grid; everything else here is plotting and bookkeeping.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np
import pandas as pd

import ndbsim
from ndbsim.errors import InputError
from ndbsim.input.scenario import DEFAULT_SCENARIO
from ndbsim.input.units import exact_size_text

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios"

GiB = 2.0**30
MiB = 2.0**20

# The 18 restart_info phases grouped into what an operator can act on.
PHASE_GROUPS: dict[str, tuple[str, ...]] = {
    "failure handling & start-up": (
        "secs_to_complete_node_failure",
        "secs_to_allocate_node_id",
        "secs_to_include_in_heartbeat_protocol",
        "secs_until_wait_for_ndbcntr_master",
        "secs_wait_for_ndbcntr_master",
        "secs_to_get_start_permitted",
        "secs_to_wait_for_lcp_for_copy_meta_data",
        "secs_to_copy_meta_data",
        "secs_to_include_node",
        "secs_starting_node_to_request_local_recovery",
    ),
    "memory allocation/touch": ("secs_memory_touch",),
    "restore LCP": ("secs_restore_fragments",),
    "UNDO + REDO apply": ("secs_undo_disk_data", "secs_exec_redo_log"),
    "ordered-index rebuild": ("secs_index_rebuild",),
    "copy-fragment sync": ("secs_to_synchronize_starting_node",),
    "wait for LCP": ("secs_wait_lcp_for_restart",),
    "subscription handover": ("secs_wait_subscription_handover",),
}
GROUP_COLORS = dict(
    zip(PHASE_GROUPS, ["#9e9e9e", "#8c564b", "#1f77b4", "#17becf", "#2ca02c", "#ff7f0e", "#d62728", "#9467bd"])
)


def scenario_path(name: str | Path) -> str:
    """A notebook's ``SCENARIO``: an absolute path, a path from the current directory, or one
    from the repository's root (``scenarios/...``), in that order."""
    p = Path(name).expanduser()
    if p.is_absolute() or p.exists():
        return str(p)
    if (ROOT / p).exists():
        return str(ROOT / p)
    raise FileNotFoundError(f"SCENARIO {str(name)!r}: no such file here or under {ROOT}")


def scenario_facts(path: str) -> dict:
    """What the scenario simulates, as ``Result.explained["simulated"]`` gives it (one short run)."""
    return ndbsim.simulate(path, replications=1).explained["simulated"]


def default_scenario() -> dict:
    """The built-in default scenario (DBT2 600 warehouses, 60 GB per node, 7.6.6)."""
    return copy.deepcopy(DEFAULT_SCENARIO)


def grouped_phases(result: ndbsim.Result) -> dict[str, float]:
    ph = result.phases()
    return {g: sum(ph[p] for p in ps) for g, ps in PHASE_GROUPS.items()}


def pct(xs, q: float) -> float:
    xs = [x for x in xs if math.isfinite(x)]
    return float(np.percentile(xs, q)) if xs else math.nan


def size_overrides(gb: float, headroom: float = 1.25) -> list[str]:
    """Data per node of ``gb`` GiB, DataMemory with some headroom, rows derived from size."""
    dm = max(1, math.ceil(gb * headroom))
    return [f"data.size={gb:g}G", "data.rows=null", f"cluster.config.DataMemory={dm}G"]


def data_overrides(facts: dict, gb: float) -> list[str]:
    """The scenario's data at ``gb`` GiB per node, changed no more than that needs: nothing at its
    own size (``PER_NODE_GB`` rounds to 0.1 GiB); else ``data.size``, ``data.rows`` scaled with it
    (the row size kept) unless the rows already come from ``data.row_size``, and DataMemory grown
    in proportion only when the data grows (the scenario's own headroom kept; less data fits the
    DataMemory configured)."""
    d = facts["data"]
    ratio = gb * GiB / d["size"]
    if abs(gb * GiB - d["size"]) < 0.05 * GiB:
        return []
    out = [f"data.size={gb:g}G"]
    if not d["rows_from_row_size"]:
        out.append(f"data.rows={round(d['rows'] * ratio)}")
    if ratio > 1:
        out.append(f"cluster.config.DataMemory={exact_size_text(math.ceil(d['DataMemory'] * ratio / MiB) * MiB)}")
    return out


def sets_text(overrides: list[str]) -> str:
    """Overrides as the ``--set`` options of ``ndbsim run`` that make the same run."""
    return " ".join(f"--set {o}" for o in overrides)


MAX_NODE_ID = 144
"""NDB's largest data-node NodeId (config.ini [ndbd] NodeId: 1-144)."""

NODE_RESTART = ["restart.type=node", "restart.nodes=null"]
"""A node restart of the scenario's cluster, whatever restart it describes: one node, the
highest NodeId (``restart.nodes`` null)."""


def node_ids_for(node_ids: list[int] | None, replicas: int, n: int) -> list[int]:
    """NodeIds for ``n`` data nodes (whole node groups) in the cluster's own pattern.

    ``node_ids`` lists the cluster's NodeIds node group by node group (``cluster.node_ids``).
    Where they follow a pattern — a step between the members of a group and a step between
    groups, e.g. 21-23, 31-33 (1 and 10) or 11-14 with 2 replicas (1 and 2) — the groups go
    on in it (41-43, 51-53); otherwise the cluster's own NodeIds come first and the lowest
    unused ones follow. Without NodeIds: 1..n, NDB's own assignment.
    """
    if not node_ids:
        return list(range(1, n + 1))
    groups = [node_ids[i : i + replicas] for i in range(0, len(node_ids), replicas)]
    member = groups[0][1] - groups[0][0] if replicas > 1 else 1
    between = groups[1][0] - groups[0][0] if len(groups) > 1 else member * replicas
    pattern = [groups[0][0] + g * between + k * member for g in range(n // replicas) for k in range(replicas)]
    known = [groups[0][0] + g * between + k * member for g in range(len(groups)) for k in range(replicas)]
    if (
        member > 0
        and known == list(node_ids)
        and len(set(pattern)) == n
        and 1 <= min(pattern) <= max(pattern) <= MAX_NODE_ID
    ):
        return pattern
    free = [i for i in range(1, MAX_NODE_ID + 1) if i not in node_ids]
    return (list(node_ids) + free)[:n]


def cluster_overrides(facts: dict, n: int) -> list[str]:
    """``cluster.data_nodes=n`` and NodeIds for them in the cluster's pattern (``node_ids_for``)."""
    ids = node_ids_for(facts.get("node_ids"), facts["NoOfReplicas"], n)
    return [f"cluster.data_nodes={n}", f"cluster.node_ids=[{', '.join(map(str, ids))}]"]


def no_answer(question: str, error: InputError) -> None:
    """A question the scenario cannot answer, said in a sentence (never a traceback)."""
    print(f"{question}: no answer for this scenario — {error}")


def files_per_unit(checkpoint: dict, no_of_fragment_log_files: int) -> float:
    """Bytes of REDO capacity that one NoOfFragmentLogFiles step buys (all log parts)."""
    return checkpoint["redo_capacity_bytes"] / no_of_fragment_log_files


__all__ = [
    "GROUP_COLORS",
    "NODE_RESTART",
    "PHASE_GROUPS",
    "ROOT",
    "SCENARIOS",
    "GiB",
    "InputError",
    "MiB",
    "cluster_overrides",
    "data_overrides",
    "default_scenario",
    "files_per_unit",
    "grouped_phases",
    "ndbsim",
    "no_answer",
    "node_ids_for",
    "np",
    "pct",
    "pd",
    "scenario_facts",
    "scenario_path",
    "sets_text",
    "size_overrides",
]
