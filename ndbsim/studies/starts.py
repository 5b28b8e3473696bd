"""The restart types a cluster can start a data node with besides the one a scenario runs (a node
restart, an initial node restart), each run as ``ndbsim run --set restart.type=…`` would with the
same seed and replications: one config.ini timeout serves every start of a node, so
``run --timeouts`` and ``report`` size it on all of them (``output.timeouts``)."""

from __future__ import annotations

import copy
from typing import Any

from ndbsim.errors import InputError
from ndbsim.output.timeouts import NODE_STARTS, START_TIMEOUTS, other_start_types
from ndbsim.studies.runs import resolve_variant


def other_starts(loaded: Any, restart_type: str, seed: int, replications: int) -> dict[str, list[float] | str]:
    """Per other restart type, its slowest node's start per replication, or why it cannot run (the
    input error of the scenario with that type). A multi-node run's variants restart one node (the
    default, the highest NodeId); a node or initial restart's keep its nodes. An upgrade's variants
    restart the cluster at the release it runs (each start of an upgrade is the run's own)."""
    out: dict[str, list[float] | str] = {}
    for kind in other_start_types(restart_type):
        sets = [f"restart.type={kind}", "restart.upgrade_to=null"]
        sets += [] if restart_type in NODE_STARTS else ["restart.nodes=null"]
        try:
            variant = resolve_variant(copy.deepcopy(loaded.raw), sets, loaded.source)
        except InputError as e:
            out[kind] = e.message
            continue
        out[kind] = variant.run(seed, replications, explained=False).node_start_secs()
    return out


def configured_timeouts(loaded: Any) -> dict[str, float]:
    """The start timeouts the config.ini (or an ndbinfo export) sets, in milliseconds: ndbsim does not
    simulate them, so they are among the load's ``not_simulated`` parameters."""
    names = {name.lower(): name for name, _, _ in START_TIMEOUTS}
    out: dict[str, float] = {}
    for params in (loaded.not_simulated or {}).values():
        for label, value in params.items():
            name = names.get(str(label).lower())
            try:
                ms = float(value)
            except (TypeError, ValueError):  # values that differ between nodes: no one figure to check
                continue
            if name is not None:
                out[name] = ms
    return out
