"""Paired runs of one scenario under ``--set`` variants, in parallel with a progress bar.

advise and solve compare variants of one scenario, so every variant runs with the same root
seed and replication count: replication ``i`` of each variant draws the same random stream
(the crash lands at the same point of the LCP cycle), which makes a saving a paired
difference, and each variant is exactly what ``ndbsim run --seed S -n N --set ...`` prints
(a sweep's points run the same way). Worker processes are started as the sweep's are.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ndbsim.errors import InputError
from ndbsim.studies.stop import WAIT_POLL, check, pool_context, stop_pool, worker_init

STATUS_FLAGS = {"redo-overload": "error 410", "non-converging": "non-converging", "stuck": "stuck"}
"""A run's status -> the flag advise and solve print beside it (error 410 is NDB's "REDO log
files overloaded", reference §4)."""
IN_PROCESS_RUNS = 40
"""Below this many simulated replications a batch runs in this process: starting worker
processes costs more than the runs (each takes a few milliseconds). ndbsim's choice."""


@dataclass
class VariantRun:
    """One variant's replications: totals, status, the steady checkpoint figures and prices."""

    sets: tuple[str, ...]
    totals: tuple[float, ...] = ()
    status: str = "ok"
    reason: str = ""
    checkpoint: dict[str, Any] = field(default_factory=dict)
    lcp_disk_bytes: float = math.nan
    redo_overloaded: bool = False
    """Whether any replication's REDO must keep more than the log holds (error 410), also when
    the restart fails otherwise first (a copy that never converges)."""
    data_memory_full: bool = False
    """Whether the inserts during any replication's restart fill DataMemory (NDB error 827)."""
    redo_peak_fill: float = math.nan
    """The largest REDO peak over the log's size in any replication (above 1: error 410)."""
    invalid: str = ""
    """The input error that makes this variant no scenario (then nothing ran)."""
    warned: str = ""
    """What ``run`` warns this variant's configuration sits on (an oversubscribed host, a cliff)."""
    ignored: tuple[str, ...] = ()
    """The thread settings of its configuration that NDB ignores for another one it sets
    (``threads.ignored_settings``: ThreadConfig under AutomaticThreadConfig, …)."""
    single_replica: tuple[dict[str, Any], ...] = ()
    """The node groups its median-window replication left on one live node, per wave and for
    how long (``Replication.single_replica``; NDB rolling and node restarts)."""
    interval: dict[str, Any] = field(default_factory=dict)
    """The total's predictive interval (``output.interval``; NDB restarts)."""

    @property
    def status_flag(self) -> str:
        """The status's flag: error 410, non-converging, stuck; '' when the restart finishes."""
        return STATUS_FLAGS.get(self.status, "" if self.status == "ok" else self.status)

    @property
    def flag(self) -> str:
        """advise's flag: the status's, else what ``run`` would warn about the configuration."""
        return self.status_flag or self.warned

    @property
    def median(self) -> float:
        """The replications' median total, infinite when any did not complete (as ``Result``'s)."""
        from ndbsim.output.result import quantile

        if not all(math.isfinite(t) for t in self.totals):
            return math.inf
        return quantile(list(self.totals), 0.5)


def resolve_variant(raw: dict[str, Any], sets: Sequence[str], source: str | None = None) -> Any:
    """The base mapping with ``sets`` applied, through the load pipeline: a ``load.Loaded``
    whose ``prepared`` scenario is ready to run (raises InputError)."""
    from ndbsim.models.load import prepare, read

    return prepare(read(raw, source=source, overrides=list(sets)))


def lcp_disk_bytes(resolved: Any, policy: str) -> float:
    """Disk the LCP files take per node: ``(1 + RecoveryWork/100) × data`` for a partial LCP
    (reference §2.2, [DOC-NDBD80]); for a full LCP, every LCP the REDO still reaches back to
    (``redo_lcps_kept``) must stay restorable, so that many copies of the data."""
    size = resolved.scenario.data.size
    if policy == "partial":
        return (1.0 + resolved.config["RecoveryWork"] / 100.0) * size
    return resolved.profile.mechanisms.redo_lcps_kept * size


def evaluate(raw: dict[str, Any], sets: Sequence[str], seed: int, replications: int) -> VariantRun:
    """Run one variant (in whatever process calls it). NDB results carry the steady checkpoint
    figures; other models' (InnoDB's crash recovery) have none."""
    from ndbsim.input.scenario import Resolved
    from ndbsim.input.threads import ignored_settings

    try:
        loaded = resolve_variant(raw, sets)
    except InputError as e:
        return VariantRun(tuple(sets), invalid=str(e))
    res = loaded.run(seed, replications, explained=False)  # a variant's figures, never its header
    out = VariantRun(sets=tuple(sets), totals=tuple(res.totals), status=res.status, reason=res.reason)
    out.warned = ", ".join(getattr(res, "setting_flags", ()))  # InnoDB recoveries have no such settings
    if isinstance(loaded.prepared, Resolved):
        out.checkpoint = res.checkpoint
        out.redo_overloaded = out.status == "redo-overload" or res.replications.redo_overloaded
        out.redo_peak_fill = res.replications.redo_peak_fill
        out.data_memory_full = res.replications.data_memory_full
        out.lcp_disk_bytes = lcp_disk_bytes(loaded.prepared, str(out.checkpoint.get("policy", "")))
        out.single_replica = tuple(res.replications[res.schedule_replication()].single_replica)
        r = loaded.prepared
        out.ignored = tuple(ignored_settings(r.scenario.cluster.config, r.profile.mechanisms.query_threads))
        from ndbsim.output.interval.sources import defaulted_of, result_interval

        defaulted = defaulted_of(loaded.prepared.scenario, loaded.origins)
        ends = None if not sets else base_ends(raw, seed, defaulted)
        out.interval = result_interval(res, defaulted, ends=ends)
    return out


_BASE_ENDS: dict[str, dict[str, list[float | None]]] = {}


def base_ends(raw: dict[str, Any], seed: int, defaulted: list[dict[str, Any]]) -> dict[str, list[float | None]]:
    """The defaulted inputs' measured range ends of the unchanged scenario ``raw``
    (``output.interval.measured``), which every variant's interval takes as its own: a variant
    changes a setting, not what the user left at its defaults, and measuring each variant's
    ends would cost every study two runs per input and variant. Kept per process."""
    import json

    from ndbsim.output.interval.measured import range_ends
    from ndbsim.output.interval.sources import measured_inputs

    inputs = measured_inputs(defaulted)
    key = json.dumps([raw, seed, inputs], sort_keys=True, default=str)
    if key not in _BASE_ENDS:
        loaded = resolve_variant(raw, ())
        res = loaded.run(seed, 1, explained=False)
        _BASE_ENDS[key] = range_ends(res.scenario, seed, res.totals[0], inputs)
    return _BASE_ENDS[key]


def _batch(raw: dict[str, Any], seed: int, replications: int, items: list[tuple[str, ...]]) -> list[VariantRun]:
    return [evaluate(raw, sets, seed, replications) for sets in items]


def evaluate_many(
    raw: dict[str, Any],
    variants: Sequence[Sequence[str]],
    seed: int,
    replications: int,
    *,
    workers: int | None = None,
    progress: bool = False,
    desc: str = "runs",
) -> list[VariantRun]:
    """Run every variant (in order of ``variants``); worker processes when it pays."""
    from tqdm import tqdm

    items = [tuple(v) for v in variants]
    if not items:
        return []
    n_workers = min(workers or os.cpu_count() or 1, len(items))
    total = len(items) * replications
    bar = tqdm(total=total, unit="run", desc=desc, disable=not progress, dynamic_ncols=True, leave=False)
    try:
        if n_workers <= 1 or total < IN_PROCESS_RUNS:
            out = []
            for sets in items:
                out.append(evaluate(raw, sets, seed, replications))
                bar.update(replications)
            return out
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        size = max(1, math.ceil(len(items) / (4 * n_workers)))
        chunks = [items[i : i + size] for i in range(0, len(items), size)]
        results: list[list[VariantRun]] = [[] for _ in chunks]
        with ProcessPoolExecutor(max_workers=n_workers, mp_context=pool_context(), initializer=worker_init) as ex:
            futs = {ex.submit(_batch, raw, seed, replications, c): i for i, c in enumerate(chunks)}
            try:
                pending = set(futs)
                while pending:
                    done, pending = wait(pending, timeout=WAIT_POLL, return_when=FIRST_COMPLETED)
                    check()
                    for f in done:
                        results[futs[f]] = f.result()
                        bar.update(len(results[futs[f]]) * replications)
            except BaseException:
                stop_pool(ex)
                raise
        return [o for chunk in results for o in chunk]
    finally:
        bar.close()
