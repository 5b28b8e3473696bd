"""InnoDB crash recovery (seed 002) as a handful of SimPy fluid flows.

Phases as the InnoDB error log shows them:

1. **redo scan** — read the log from the checkpoint LSN to its end (bytes = checkpoint age at
   the crash), sequentially, parsing and hashing every record (one thread).
2. **redo apply** — in ``APPLY_CHUNKS`` chunks: read the pages the redo references (random
   reads, merged per 32-page area when dense, limited by IOPS and by queue depth / latency),
   then apply their records (CPU); at the end flush the recovered pages. The server is
   "ready for connections" here: downtime = scan + apply (comment 4).
3. **rollback** — uncommitted transactions, in the background; reported, not in the total.

Checkpoint age = min(redo rate × run time, log_fill_max × log capacity); distinct pages
referenced = D·(1 − exp(−age/(r·D))) with D the dirty-page ceiling of the buffer pool. The
number of events is fixed (a few per chunk), independent of bytes, pages and log size.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import simpy

if TYPE_CHECKING:
    import pandas as pd

from ndbsim.engine.clock import events_scheduled
from ndbsim.engine.fluid.system import FluidSystem
from ndbsim.innodb.constants import Constants, as_dict, load_constants
from ndbsim.innodb.scenario import InnodbScenario, load_raw, scenario_from_dict
from ndbsim.input.restart_info import node_phases, phase_bounds
from ndbsim.input.units import format_bytes
from ndbsim.output.result import ReplicatedSummary, json_clean

APPLY_CHUNKS = 4
"""Chunks the apply is split into (progress granularity only; never per page or record)."""

PHASES = ("secs_redo_scan", "secs_redo_apply", "secs_rollback")
"""The InnoDB recovery phases as its error log shows them (module docstring), named in
restart_info's ``secs_`` style so results line up with NDB's; the names are ndbsim's own."""
DOWNTIME_PHASES = ("secs_redo_scan", "secs_redo_apply")
"""The phases before "ready for connections": redo scan and apply. Rollback runs in the
background afterwards and is not downtime (seed 002, comment 4)."""


@dataclass
class InnodbReplication:
    total_restart_secs: float
    phases: dict[str, float]
    spans: list[tuple[str, float, float]]
    facts: dict[str, float]
    events: int
    status: str = "ok"
    reason: str = ""
    warnings: list[str] = field(default_factory=list)


@dataclass
class InnodbResult(ReplicatedSummary):
    name: str
    version: str
    seed: int
    scenario: dict[str, Any]
    constants: dict[str, float]
    replications: list[InnodbReplication] = field(default_factory=list)
    kind: str = "innodb"
    explained: dict[str, Any] = field(default_factory=dict)
    """What was simulated and what was defaulted (``innodb.explain.describe``): ``simulated``, ``defaulted``."""
    notes: list[str] = field(default_factory=list)
    """Warnings about the input, shown with the simulation's own in every format."""
    changes: list[str] = field(default_factory=list)
    """What made the run differ from its scenario file (``--set k=v``)."""
    predictive: dict[str, Any] = field(default_factory=dict)
    """The predictive interval (``held_interval.run_interval``), given by ``answer.run_scenario``."""

    @property
    def title(self) -> str:
        """The scenario's name, with the changes that made the run differ from it."""
        return self.name + (f" [as run: {', '.join(self.changes)}]" if self.changes else "")

    @property
    def total_restart_secs(self) -> float:
        """Median downtime: until the redo apply completes (scan + apply)."""
        return float(np.median(self.totals))

    @property
    def events(self) -> int:
        return self.replications[0].events

    @property
    def facts(self) -> dict[str, float]:
        return self.replications[0].facts

    def phases(self) -> dict[str, float]:
        """Median seconds per phase; ``secs_rollback`` runs after the server is up."""
        return {p: float(np.median([r.phases[p] for r in self.replications])) for p in PHASES}

    def interval(self) -> dict[str, Any]:
        """The predictive interval (``predictive``): p5, p50, p95 of the downtime and its sources,
        in the shape of an NDB result's; empty for a run made without it (``model.run_scenario``)."""
        return self.predictive

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "kind": self.kind,
            "version": self.version,
            "total_restart_secs": self.total_restart_secs,
            "phases": self.phases(),
            "status": self.status,
            "reason": self.reason,
            "warnings": self.warnings,
            "replications": self.spread(),
            "interval": self.interval(),
            "seed": self.seed,
            "events": self.events,
            "facts": self.facts,
            "constants": self.constants,
            "simulated": self.explained.get("simulated"),
            "defaulted": self.explained.get("defaulted"),
            "scenario": self.scenario,
        }

    def to_json(self) -> str:
        return json.dumps(json_clean(self.to_dict()), indent=2)

    def to_csv(self) -> str:
        """One row per phase (medians) and one for the total, each with the predictive interval's
        p5/p95 (``interval``) and what was simulated."""
        from ndbsim.innodb.explain import csv_fields
        from ndbsim.output.result import _csv_cell

        extra = csv_fields(self.explained, self.warnings)
        iv = self.interval()
        band = "".join(f",{_csv_cell(iv.get(k))}" for k in ("p5", "p95"))
        tail = band + "".join(f",{_csv_cell(v)}" for v in extra.values())
        lines = ["phase,secs,interval_p5,interval_p95" + "".join(f",{k}" for k in extra)]
        lines += [f"{p},{v:.3f}{tail}" for p, v in self.phases().items()]
        lines.append(f"total_restart_secs,{self.total_restart_secs:.3f}{tail}")
        return "\n".join(lines) + "\n"

    def to_frame(self) -> pd.DataFrame:
        """One row per replication and phase: secs, start, end (relative to the start of mysqld)."""
        import pandas as pd

        rows = [
            {
                "replication": i,
                "phase": p,
                "secs": r.phases[p],
                "start": first.get(p, 0.0),
                "end": last.get(p, 0.0),
                "in_downtime": p in DOWNTIME_PHASES,
                "status": r.status,
            }
            for i, r in enumerate(self.replications)
            for first, last in [phase_bounds(r.spans)]
            for p in PHASES
        ]
        return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------
# One replication


def recovery_work(s: InnodbScenario, c: Constants, redo_rate: float) -> dict[str, float]:
    """Bytes, pages and IO sizes the recovery has to handle (plain arithmetic, no time)."""
    capacity = s.server.innodb_log_file_size * s.server.innodb_log_files_in_group
    generated = redo_rate * s.workload.run_time
    age = min(generated, c.log_fill_max * capacity)
    data = s.workload.data_size or s.server.buffer_pool_size
    cached_pages = min(s.server.buffer_pool_size, data) / c.page_size
    ceiling = s.workload.dirty_pct / 100.0 * cached_pages
    touches = age / c.redo_bytes_per_page_touch
    pages = ceiling * -math.expm1(-touches / ceiling) if ceiling > 0 else 0.0
    density = pages / max(data / c.page_size, 1.0)
    pages_per_io = max(1.0, c.read_area_pages * min(density, 1.0))
    read_io_rate = min(s.storage.read_iops, c.read_queue_depth / s.storage.latency)
    return {
        "log_capacity": capacity,
        "redo_generated": generated,
        "checkpoint_age": age,
        "dirty_page_ceiling": ceiling,
        "pages_recovered": pages,
        "pages_per_io": pages_per_io,
        "read_io_rate": read_io_rate,
        "redo_rate": redo_rate,
    }


def _replicate(s: InnodbScenario, c: Constants, redo_rate: float) -> InnodbReplication:
    w = recovery_work(s, c, redo_rate)
    env = simpy.Environment()
    fs = FluidSystem(env)
    fs.add_resource("cpu", 1.0)  # the single recovery thread, CPU-seconds per second
    fs.add_resource("seq_read", s.storage.seq_read)
    fs.add_resource("read_io", w["read_io_rate"])
    fs.add_resource("write_io", s.storage.write_iops)
    spans: list[tuple[str, float, float]] = []
    age, pages, ppio = w["checkpoint_age"], w["pages_recovered"], w["pages_per_io"]
    cpu_per_page = (age / max(pages, 1.0)) / c.apply_rate + c.page_cpu_secs
    marks: dict[str, float] = {}

    def recovery():
        t0 = env.now
        yield fs.transfer(age, {"seq_read": 1.0, "cpu": 1.0 / c.scan_parse_rate}, name="scan").done
        spans.append(("secs_redo_scan", t0, env.now))
        t1 = env.now
        for k in range(APPLY_CHUNKS):
            chunk = pages / APPLY_CHUNKS
            yield fs.transfer(chunk, {"read_io": 1.0 / ppio}, name=f"read{k}").done
            yield fs.transfer(chunk, {"cpu": cpu_per_page}, name=f"apply{k}").done
        yield fs.transfer(pages, {"write_io": 1.0 / ppio}, name="flush").done
        spans.append(("secs_redo_apply", t1, env.now))
        marks["up"] = env.now
        t2 = env.now
        rows = s.workload.uncommitted_txn_rows
        yield fs.transfer(rows, {"cpu": 1.0 / c.rollback_rows_per_sec}, name="rollback").done
        spans.append(("secs_rollback", t2, env.now))

    env.process(recovery())
    env.run()
    events = events_scheduled(env)  # counted as for NDB restarts
    phases = node_phases(spans, PHASES)
    warnings = []
    if w["redo_generated"] > c.log_fill_max * w["log_capacity"]:
        warnings.append(
            f"the log filled to the checkpoint-age limit ({format_bytes(w['checkpoint_age'])} of "
            f"{format_bytes(w['log_capacity'])}): a longer run would not lengthen recovery"
        )
    if 2.0 * age > 0.9 * s.server.buffer_pool_size:
        warnings.append(
            "the parsed redo may not fit the recovery heap in the buffer pool: InnoDB will apply "
            "it in several batches, which this model does not slow down"
        )
    return InnodbReplication(
        total_restart_secs=marks["up"], phases=phases, spans=spans, facts=w, events=events, warnings=warnings
    )


def streams(seed: int, n: int) -> list[np.random.Generator]:
    """One generator per replication, replication ``i`` seeded with ``[seed, i]``: every path
    that runs InnoDB replications (``ndbsim run``, ``simulate``, sweeps, calibration) seeds here."""
    return [np.random.default_rng([seed, i]) for i in range(n)]


def replicate(s: InnodbScenario, c: Constants, rng: np.random.Generator) -> InnodbReplication:
    """One replication: the redo rate drawn with ``s.simulation.jitter`` from ``rng``, then the
    recovery."""
    factor = math.exp(rng.normal(0.0, s.simulation.jitter)) if s.simulation.jitter > 0 else 1.0
    return _replicate(s, c, s.workload.redo_bytes_per_sec * factor)


def run_scenario(
    s: InnodbScenario,
    seed: int | None = None,
    replications: int | None = None,
    constants: dict | None = None,
    *,
    explained: bool = True,
) -> InnodbResult:
    """Simulate a validated InnoDB scenario; ``seed`` and ``replications`` default to its own.
    ``explained=False`` leaves ``explained`` empty for a caller that describes the result itself."""
    from ndbsim.innodb.explain import describe
    from ndbsim.input.budget import progress

    c = load_constants(constants)
    seed = s.simulation.seed if seed is None else seed
    n = s.simulation.replications if replications is None else replications
    return InnodbResult(
        name=s.name,
        version=s.version,
        seed=seed,
        scenario=s.model_dump(mode="json"),
        constants=as_dict(c),
        replications=[replicate(s, c, rng) for rng in progress(streams(seed, n), n, "replication")],
        explained=describe(s) if explained else {},
    )


def simulate_innodb(
    raw: dict | str | Path, seed: int | None = None, replications: int | None = None, constants: dict | None = None
) -> InnodbResult:
    """Simulate the crash recovery of an InnoDB scenario (a raw dict, or a path to its YAML)."""
    source = None
    if isinstance(raw, (str, Path)):
        source = str(raw)
        raw = load_raw(raw)
    return run_scenario(scenario_from_dict(raw, source), seed, replications, constants)
