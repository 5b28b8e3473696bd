"""The Python API: ``ndbsim.simulate(...)``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ndbsim import scenario as sc
from ndbsim.engine.run import simulate_once
from ndbsim.explain import describe
from ndbsim.result import Result


def streams(seed: int, n: int) -> list[np.random.Generator]:
    """One independent generator per replication, all derived from the root seed."""
    return [np.random.Generator(np.random.PCG64(s)) for s in np.random.SeedSequence(seed).spawn(n)]


def run_resolved(resolved: sc.Resolved, seed: int | None = None, replications: int | None = None) -> Result:
    s = resolved.scenario
    seed = s.simulation.seed if seed is None else seed
    n = s.simulation.replications if replications is None else replications
    reps = [simulate_once(resolved, rng) for rng in streams(seed, n)]
    if resolved.node_ids:
        for r in reps:
            for node in r.nodes:
                node.node_id = resolved.node_id(node.node_id)
    return Result(
        name=s.name,
        version=s.version,
        restart_type=s.restart.type,
        seed=seed,
        scenario=resolved.to_dict(),
        replications=reps,
        explained=describe(resolved, node_ids=resolved.node_ids),
    )


def simulate(
    scenario: str | Path | dict[str, Any] | sc.Scenario | None = None,
    *,
    overrides: list[str] | tuple[str, ...] = (),
    seed: int | None = None,
    replications: int | None = None,
    **sets: Any,
) -> Result:
    """Simulate a restart.

    ``scenario`` is a YAML path, a dict, a ``Scenario`` or None (the built-in default).
    ``overrides`` are ``--set``-style ``"dotted.path=value"`` strings; keyword arguments with
    ``__`` for dots do the same (``data__size="1TB"``).
    """
    raw, source = sc.raw_from(scenario)
    for a in overrides:
        sc.set_override(raw, a)
    for key, value in sets.items():
        sc.set_path(raw, key.replace("__", "."), value)
    resolved = sc.resolve(sc.scenario_from_dict(raw, source), source)
    return run_resolved(resolved, seed, replications)
