"""The direction audit, run by hand: ``python benchmarks/direction_audit.py [--base NAME ...]``.

Varies every user-settable lever one at a time on bases of the shapes production clusters have
(the shipped rolling 8.0 and DBT2 7.6.6 scenarios, a 3-replica 8.4.3 cluster with 250G of disk
data, an 8.0.35 cluster with 900G of disk data behind a 64G page buffer) and prints:
  * inversions: a lever that moves the restart against the sign the response table expects for
    its key (tests/engine/test_response_table.py: the row's expect, per unit of the key)
  * dead levers: a lever whose change moves no phase of any node where the response table gives
    it an effect
  * named bottlenecks that are not the best lever: for each phase, the resource its why names
    (``why["resource"]``) against every resource made twice as good (``RESOURCE_SETS``)
The levers: those ``ndbsim advise`` tries (``models.levers.levers_for``: x0.5 and x2 or the
lever's natural steps; x4 left out), the host's other resources, and the response table's keys
at x0.5 and x2 of the base's value. Each run is one replication at a fixed seed.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ndbsim.input.config.thread_config import with_count
from ndbsim.input.threads import from_thread_config
from ndbsim.input.units import exact_size_text
from ndbsim.models.levers import levers_for
from ndbsim.models.load import Loaded, load

ROOT = Path(__file__).resolve().parents[1]
DISK_DATA = ROOT / "tests" / "data" / "disk-data-8.0.35"
SEED = 1
"""The one seed every run uses (a run's phases move with the seed; a lever's effect is read at one)."""


def _init_sets(path: Path) -> list[str]:
    return [ln.strip() for ln in path.read_text().splitlines() if ln.strip() and not ln.startswith("#")]


@dataclass(frozen=True)
class Base:
    """A base: a scenario file (or none, with a config.ini), its overrides and release."""

    name: str
    scenario: Path | None
    sets: tuple[str, ...] = ()
    config_ini: Path | None = None
    version: str | None = None

    def load(self, extra: list[str] | tuple[str, ...] = ()) -> Loaded:
        return load(self.scenario, config_ini=self.config_ini, version=self.version, overrides=[*self.sets, *extra])


BASES = {
    "rolling-4-nodes-8.0": Base("rolling-4-nodes-8.0", ROOT / "scenarios" / "rolling-4-nodes-8.0.yaml"),
    "dbt2-600wh-7.6.6": Base("dbt2-600wh-7.6.6", ROOT / "scenarios" / "dbt2-600wh-7.6.6.yaml"),
    "3-replica 8.4.3, 250G disk data": Base(
        "3-replica 8.4.3, 250G disk data",
        ROOT / "tests" / "data" / "three-replicas-8.4.3.yaml",
        ("data.disk_data_size=250G",),
    ),
    "8.0.35, 900G disk data, 64G page buffer": Base(
        "8.0.35, 900G disk data, 64G page buffer",
        None,
        tuple(_init_sets(DISK_DATA / "init-sets.txt")),
        DISK_DATA / "config.ini",
        "8.0.35",
    ),
}
"""The four bases of the audit (issue 48's)."""

Phases = dict[int, dict[str, float]]


def run(base: Base, extra: list[str] | tuple[str, ...] = ()) -> tuple[Phases, dict[int, dict[str, Any]], float]:
    """One replication at ``SEED``: each node's phase seconds, each node's why, the total."""
    loaded = base.load(extra)
    result = loaded.run(SEED, 1, explained=False)
    rep = result.first
    phases = {n.node_id: result.phases(n.node_id) for n in rep.nodes}
    whys = {n.node_id: n.why for n in rep.nodes}
    return phases, whys, float(result.total_restart_secs)


def _half_and_double(key: str, value: Any, text: Callable[[float], str]) -> list[tuple[str, str]]:
    return [(f"x{f:g}", f"{key}={text(value * f)}") for f in (0.5, 2.0)]


def resource_sets(loaded: Loaded) -> dict[str, list[str]]:
    """Each modelled resource made twice as good, by the key a why names it by
    (``engine.fluid.gains.RESOURCES``): twice the core speed, disk rates, link and memory touch
    rate, half the disk latency, twice the LDM threads (``threads``: the ThreadConfig's ldm count,
    or the next MaxNoOfExecutionThreads row), twice each config write speed a why may name."""
    r = loaded.prepared
    h, cfg = r.scenario.host, r.config
    out = {
        "host.core_speed": [f"host.core_speed={h.core_speed * 2:g}"],
        "host.disk_read": [f"host.disk_read={exact_size_text(h.disk_read * 2)}"],
        "host.disk_write": [f"host.disk_write={exact_size_text(h.disk_write * 2)}"],
        "host.disk_latency": [f"host.disk_latency={h.disk_latency / 2!r}"],
        "host.network": [f"host.network={h.network * 2 * 8 / 1e9:g}Gbit/s"],
        "host.memory_touch_rate": [f"host.memory_touch_rate={exact_size_text(h.memory_touch_rate * 2)}"],
    }
    text = str(cfg.get("ThreadConfig") or "")
    if text.strip():
        ldm = from_thread_config(text).ldm
        out["threads"] = [f"cluster.config.ThreadConfig={with_count(text, 'ldm', 2 * ldm)}"]
    for name in ("MaxDiskWriteSpeedOwnRestart", "DiskCheckpointSpeedInRestart", "MaxDiskWriteSpeed"):
        if cfg.get(name):
            out[f"cluster.config.{name}"] = [f"cluster.config.{name}={exact_size_text(float(cfg[name]) * 2)}"]
    return out


def _response_rows() -> list[Any]:
    """The response table's rows (tests/engine/test_response_table.py)."""
    sys.path.insert(0, str(ROOT / "tests" / "engine"))
    try:
        import test_response_table as table
    finally:
        sys.path.pop(0)
    return list(table.ROWS)


def _number(text: str) -> float | None:
    """A value's magnitude: a number, a size, a rate (bytes or bits per second) or a duration; None
    for a value with none (a restart cause, a plan)."""
    from ndbsim.input.units import parse_byte_rate, parse_bytes, parse_duration

    for parse in (float, parse_bytes, parse_byte_rate, parse_duration):
        try:
            return float(parse(text))
        except Exception:
            continue
    return None


TOTAL = "total_restart_secs"
"""The response table's metric for the whole restart (else a phase of the slowest node)."""


def expected_signs(rows: list[Any] | None = None) -> dict[str, tuple[int, str]]:
    """Each key's expected sign per unit of the key (+1: more of the key, longer) and the metric it
    holds on, from the response table's up/down rows on numbers: the total where a row gives it,
    else the phase its rows name; a key whose rows disagree on one metric (the sign depends on
    the base) has none."""
    out: dict[tuple[str, str], set[int]] = {}
    for row in rows if rows is not None else _response_rows():
        if row.expect not in ("up", "down"):
            continue
        old, new = _number(str(row.old)), _number(str(row.new))
        if old is None or new is None or old == new:
            continue
        sign = (1 if new > old else -1) * (1 if row.expect == "up" else -1)
        out.setdefault((row.key, row.metric), set()).add(sign)
    signs: dict[str, tuple[int, str]] = {}
    for (key, metric), found in sorted(out.items(), key=lambda kv: kv[0][1] != TOTAL):
        if len(found) == 1 and key not in signs:
            signs[key] = (next(iter(found)), metric)
    return signs


def metric_of(metric: str, phases: Phases, total: float) -> float:
    """A response-table metric of a run: the total, or the phase's seconds on the slowest node."""
    if metric == TOTAL:
        return total
    return max((ph.get(metric, 0.0) for ph in phases.values()), default=0.0)


def audit_levers(loaded: Loaded, keys: list[str]) -> list[tuple[str, str, list[str], float]]:
    """(lever, value, sets, direction): advise's levers (x4 left out), the host's other
    resources, and ``keys`` (the response table's) at x0.5 and x2; ``direction``: the sign of the
    change of the lever's number (0: not a number)."""
    r = loaded.prepared
    out: list[tuple[str, str, list[str], float]] = []
    seen: set[str] = set()
    for lever in levers_for(r):
        for c in lever.candidates:
            if c.value.startswith(("4x",)):
                continue
            now, new = _number(lever.current.split()[-1]), _number(c.value.split()[-1])
            if lever.name in ZERO_IS_UNBOUNDED:
                now, new = (math.inf if x == 0 else x for x in (now, new))
            d = 0.0 if now is None or new is None else math.copysign(1.0, new - now) if new != now else 0.0
            if d > 0 and now and new and new / now > 2.5:
                continue  # advise's x4: the audit keeps x0.5 and x2
            out.append((lever.name, c.value, list(c.sets), d))
        seen.add(lever.name if "." in lever.name else f"cluster.config.{lever.name}")
    h = r.scenario.host
    extra: dict[str, tuple[float, Callable[[float], str]]] = {
        "host.core_speed": (h.core_speed, lambda x: f"{x:g}"),
        "host.disk_latency": (h.disk_latency, lambda x: f"{x!r}"),
        "host.memory_touch_rate": (h.memory_touch_rate, exact_size_text),
    }
    for key in keys:
        if key in seen or key in extra:
            continue
        now = _lookup(loaded, key)
        if isinstance(now, (int, float)) and not isinstance(now, bool) and now > 0:
            extra[key] = (float(now), _text_of(now))
    for key, (now, text) in extra.items():
        for label, s in _half_and_double(key, now, text):
            sets = [s]
            with_it = COUPLED.get(key)
            if with_it is not None and isinstance(_lookup(loaded, with_it), int):
                sets += [
                    v for lab, v in _half_and_double(with_it, _lookup(loaded, with_it), _text_of(1)) if lab == label
                ]
            out.append((key, label, sets, -1.0 if label == "x0.5" else 1.0))
    return out


ZERO_IS_UNBOUNDED = {"MaxParallelCopyInstances"}
"""Parameters whose 0 means no cap of their own (NDB manual: MaxParallelCopyInstances "0 means
default", the starting node's LDM threads): 0 is the largest value, not the smallest."""

COUPLED = {"data.tables": "data.ordered_indexes"}
"""A key scaled together with another: more tables of the same schema bring their ordered
indexes along (holding the indexes fixed would put more of them on each row, a schema change)."""


def _text_of(now: float) -> Callable[[float], str]:
    """How a value of the kind of ``now`` is written in a ``--set``: a count, a size, a number."""
    if isinstance(now, int):
        return lambda x: str(int(x))
    return exact_size_text if now >= 1e6 else (lambda x: f"{x:g}")


def _lookup(loaded: Loaded, key: str) -> Any:
    """A dotted key's value in the resolved scenario (``cluster.config.X`` from the config)."""
    r = loaded.prepared
    if key.startswith("cluster.config."):
        return r.config.get(key.split(".", 2)[2])
    obj: Any = r.scenario
    for part in key.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


TOLERANCE = 0.02
"""A move smaller than this share of the base (and than ``ABS_SECS``) is no move: one seed's noise
(a GCP's alignment, an LCP's start) moves phases by about this much."""
ABS_SECS = 1.0
"""Seconds below which a phase's move is no move."""


def moved(before: float, after: float) -> int:
    """+1 / -1 / 0: ``after`` longer, shorter, or within the tolerance of ``before``."""
    if math.isinf(before) or math.isinf(after):
        return 0 if before == after else (1 if after > before else -1)
    if abs(after - before) <= max(ABS_SECS, TOLERANCE * abs(before)):
        return 0
    return 1 if after > before else -1


def audit(base: Base, signs: dict[str, tuple[int, str]], out: Callable[[str], None] = print) -> dict[str, list[str]]:
    """Run ``base`` and every lever on it; print and return its findings by kind."""
    loaded = base.load()
    phases0, whys0, total0 = run(base)
    findings: dict[str, list[str]] = {"inversions": [], "dead": [], "bottlenecks": []}
    out(f"== {base.name}: total {total0:,.0f} s")
    for lever, value, sets, direction in audit_levers(loaded, list(signs)):
        try:
            phases, _, total = run(base, sets)
        except Exception as e:
            out(f"   {lever}={value}: not run ({str(e).splitlines()[0][:100]})")
            continue
        key = lever if "." in lever else f"cluster.config.{lever}"
        sign, metric = signs.get(key, (0, TOTAL))
        expect = sign * direction
        m = moved(metric_of(metric, phases0, total0), metric_of(metric, phases, total))
        any_phase = any(moved(phases0[n][p], phases[n].get(p, 0.0)) for n in phases0 if n in phases for p in phases0[n])
        line = f"   {lever}={value}: total {total0:,.0f} -> {total:,.0f} s ({100 * (total / total0 - 1):+.1f}%)"
        if expect and m == -expect:
            a, b = metric_of(metric, phases0, total0), metric_of(metric, phases, total)
            findings["inversions"].append(f"{base.name}: {lever}={value} ({metric} {a:,.0f} -> {b:,.0f} s)")
            line += f"  INVERSION ({metric})"
        if expect and not any_phase and m == 0:
            findings["dead"].append(f"{base.name}: {lever}={value}")
            line += "  DEAD"
        out(line)
    findings["bottlenecks"] = bottleneck_misses(base, phases0, whys0, loaded)
    for kind, items in findings.items():
        for it in items:
            out(f"   {kind}: {it}")
    return findings


MIN_PHASE_SECS = 10.0
"""Phases shorter than this are left out of the bottleneck check (a GCP wait's alignment moves
them by whole seconds)."""


Whys = dict[int, dict[str, Any]]


def bottleneck_gains(base: Base, loaded: Loaded | None = None) -> tuple[Phases, Whys, dict[str, Phases]]:
    """The base's phases and whys, and its phases with each resource twice as good (``resource_sets``)."""
    loaded = loaded or base.load()
    phases0, whys0, _ = run(base)
    after = {key: run(base, sets)[0] for key, sets in resource_sets(loaded).items()}
    return phases0, whys0, after


def misses(phases0: Phases, whys0: dict[int, dict[str, Any]], after: dict[str, Phases]) -> list[str]:
    """Each phase (of ``MIN_PHASE_SECS`` or more) whose why names a resource that, twice as good,
    shortens it less than another resource twice as good does (beyond ``moved``'s tolerance)."""
    out = []
    for nid, ph in phases0.items():
        for phase, secs in ph.items():
            entry = whys0[nid].get(phase) or {}
            named = entry.get("resource")
            if secs < MIN_PHASE_SECS or named not in after:
                continue
            mine = after[named][nid][phase]
            slack = alignment_slack(secs, entry.get("figures", {}))
            for key, other in after.items():
                if key != named and moved(mine, other[nid][phase] + slack) < 0:
                    out.append(
                        f"node {nid} {phase} {secs:.0f} s names {named} ({entry['bottleneck']}): x2 -> "
                        f"{mine:.0f} s, but {key} x2 -> {other[nid][phase]:.0f} s"
                    )
    return out


def alignment_slack(secs: float, figures: dict[str, Any]) -> float:
    """Seconds a phase tied to the LCP cycle moves by at one seed with where it falls in the cycle:
    a wait for a distributed LCP by up to one LCP, and work that grows with the restored LCP's age
    (REDO, UNDO, the local LCP) by the share of that age one LCP is (a faster LCP can make a later
    one the restored one)."""
    slack = float(figures.get("distributed_lcp_secs", 0.0))
    age = figures.get("lcp_age_at_crash_secs") or figures.get("restored_lcp_age_at_crash_secs") or 0.0
    one = figures.get("restored_lcp_secs", 0.0)
    if age > 0 and one > 0:
        slack += secs * min(1.0, one / age)
    return slack


def bottleneck_misses(base: Base, phases0: Phases, whys0: dict[int, dict[str, Any]], loaded: Loaded) -> list[str]:
    after = {key: run(base, sets)[0] for key, sets in resource_sets(loaded).items()}
    return misses(phases0, whys0, after)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", action="append", choices=list(BASES), help="a base (default: all four)")
    args = ap.parse_args(argv)
    signs = expected_signs()
    total: dict[str, list[str]] = {"inversions": [], "dead": [], "bottlenecks": []}
    for name in args.base or list(BASES):
        for kind, items in audit(BASES[name], signs).items():
            total[kind] += items
    print(
        f"\n{len(total['inversions'])} inversions, {len(total['dead'])} dead levers, "
        f"{len(total['bottlenecks'])} named bottlenecks not the best lever"
    )
    for kind, items in total.items():
        for it in items:
            print(f"{kind}: {it}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
