"""The defaulted inputs' effects on the total, measured on the model: the run's own response at
the ends of each input's declared range (``input/data/default_ranges.yaml``), not an elasticity
assumed per phase.

For each defaulted input with a range, the scenario is resolved again with the input at the
range's low and high end (the value the run used times the end's factor) and replication 0 of the
run's seed simulated there: the crash lands at the same moment of the LCP cycle as in the run's
own replication 0, so the difference of the two totals is the input's alone (a paired difference,
as advise's savings are). An end is the log ratio of its total to replication 0's, or ``None``
when the restart does not complete there (error 410, a copy that never converges, error 827): the
interval then says so and gives that end's mass to "does not complete" (``sources.defaults_sd``).

Two runs per input is the price; they are kept (``cache``) by the resolved scenario, the seed and
the code that simulated them, in this process and in ndbsim's cache directory (``CACHE_ENV``),
so a scenario run again, and every variant of a study after its base, costs nothing more.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import os
from functools import cache
from pathlib import Path
from typing import Any

CACHE_ENV = "NDBSIM_CACHE_DIR"
"""Where the measured ends are kept between processes: this variable's directory, else
``$XDG_CACHE_HOME/ndbsim`` (``~/.cache/ndbsim``); an empty value keeps them in the process only."""

_MEMO: dict[str, dict[str, list[float | None]]] = {}


@cache
def _code_fingerprint() -> str:
    """What the cached figures depend on besides the scenario: ndbsim's sources and data files."""
    root = Path(__file__).resolve().parents[2]
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.suffix in (".py", ".yaml") and p.is_file():
            st = p.stat()
            h.update(f"{p.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()[:16]


def _cache_dir() -> Path | None:
    env = os.environ.get(CACHE_ENV)
    if env is not None:
        return Path(env) if env else None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ndbsim"


def _get(path: list[str], d: dict[str, Any]) -> Any:
    for k in path:
        if not isinstance(d, dict):
            return None
        d = d.get(k)  # type: ignore[assignment]
    return d


def scaled(scenario: dict[str, Any], key: str, factor: float) -> dict[str, Any] | None:
    """The resolved scenario with input ``key`` times ``factor`` (None when it has no value to
    scale: a burst before the restart scales its duration; counts stay whole)."""
    path = key.split(".")
    value = _get(path, scenario)
    out = copy.deepcopy(scenario)
    parent = _get(path[:-1], out)
    if isinstance(value, dict) and isinstance(value.get("duration"), (int, float)) and value["duration"] > 0:
        parent[path[-1]]["duration"] = value["duration"] * factor
        return out
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
        return None
    parent[path[-1]] = max(round(value * factor), 1) if isinstance(value, int) else value * factor
    return out


def _simulate(scenario: dict[str, Any], seed: int) -> float:
    """Replication 0 of ``scenario`` under root seed ``seed`` (its stream as ``models.ndb.stream``
    makes it); infinite when the restart does not complete or the scaled input is no scenario."""
    import numpy as np

    from ndbsim.engine.run import simulate_once
    from ndbsim.errors import InputError
    from ndbsim.input import scenario as sc

    try:
        resolved = sc.resolve(sc.scenario_from_dict(scenario), None)
    except InputError:
        return math.inf
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(0,))))
    return float(simulate_once(resolved, rng).total_restart_secs)


def _key(scenario: dict[str, Any], seed: int, inputs: list[tuple[str, float, float]]) -> str:
    """The cache key: the scenario, the seed, the inputs, the code, and the fitted constants in use
    (``--constants`` or a user's fit give other totals at the same scenario)."""
    from ndbsim.input.profiles.calibrated import calibrated_data

    used = (scenario, seed, inputs, _code_fingerprint(), calibrated_data())
    text = json.dumps(used, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _load(key: str) -> dict[str, list[float | None]] | None:
    d = _cache_dir()
    if d is None:
        return None
    try:
        return dict(json.loads((d / f"ends-{key[:32]}.json").read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def _store(key: str, ends: dict[str, list[float | None]]) -> None:
    d = _cache_dir()
    if d is None:
        return
    try:
        d.mkdir(parents=True, exist_ok=True)
        tmp = d / f".ends-{key[:32]}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(ends), encoding="utf-8")
        os.replace(tmp, d / f"ends-{key[:32]}.json")
    except OSError:
        pass  # a cache that cannot be written only costs the runs again


def range_ends(
    scenario: dict[str, Any], seed: int, base_total: float, inputs: list[tuple[str, float, float]]
) -> dict[str, list[float | None]]:
    """Per input ``(key, low factor, high factor)``: the log ratio of the total at each end to
    ``base_total`` (replication 0's), None for an end where the restart does not complete."""
    if not inputs or not (math.isfinite(base_total) and base_total > 0):
        return {}
    key = _key(scenario, seed, inputs)
    got = _MEMO.get(key) or _load(key)
    if got is None:
        got = {}
        for name, lo, hi in inputs:
            ends: list[float | None] = []
            for f in (lo, hi):
                s = scaled(scenario, name, f)
                t = base_total if s is None else _simulate(s, seed)
                ends.append(math.log(t / base_total) if math.isfinite(t) and t > 0 else None)
            got[name] = ends
        _store(key, got)
    _MEMO[key] = got
    return got
