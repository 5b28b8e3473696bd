"""``ndbsim advise``: what would make this restart faster, and what each change costs.

Every candidate of every lever (``levers.py``) runs with the base's seed and replications, so
its saving is a paired difference: ``saving_secs`` is the base's median total minus the
candidate's (what two ``ndbsim run`` calls print), ``saving_p5``/``saving_p95`` the spread of
the per-replication savings. Each lever keeps its best candidate; a candidate that ends in
error 410 or a copy that never converges is flagged and is a lever's best only if all its
candidates are. Beside the saving stand the candidate's prices, read from its run's steady
checkpoint: the LCP write rate and volume, the LCP files' disk space, the REDO headroom and the
CPU the LCP writes take. The levers a DBA changes in config.ini are ranked first and on their
own; hardware, workload and release levers follow in a list of their own (``list`` column). The
best combination is greedy over the top config.ini levers (all levers with ``combine_all``),
each step a run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ndbsim.input.profiles import LCP_CPU_SECS_PER_BYTE
from ndbsim.models.levers import Lever, in_config_ini
from ndbsim.studies.runs import VariantRun, evaluate, evaluate_many, resolve_variant

if TYPE_CHECKING:
    import pandas as pd

ADVISE_REPLICATIONS = 10
"""Replications per candidate unless ``replications`` (or a scenario asking for more) says
otherwise: enough for a p5–p95 of the savings at a few milliseconds per run, and the whole
advice within seconds (ndbsim's choice)."""
TOP_LEVERS = 5
"""Levers the greedy combination draws from: the best-ranked ones that save time and end
without a flag (ndbsim's choice; each step runs one variant per remaining lever)."""
PRICE_COLUMNS = ("lcp_write_rate", "lcp_bytes", "lcp_secs", "lcp_disk_bytes", "redo_headroom", "lcp_cpu_cores")
"""The prices ``prices`` gives beside each saving, per node, from the run's steady checkpoint."""
CONFIG_LIST, OTHER_LIST = "config.ini", "hardware, workload, release"
"""The two lists advise ranks levers in: what a DBA changes in config.ini, and the rest."""
COLUMNS = (
    "rank",
    "list",
    "lever",
    "kind",
    "current",
    "value",
    "set",
    "saving_secs",
    "saving_p5",
    "saving_p95",
    "total_secs",
    "total_interval_p5",
    "total_interval_p95",
    "flag",
    *PRICE_COLUMNS,
    "worst_value",
    "worst_saving_secs",
    "flagged",
)
"""advise's DataFrame columns, one row per lever (its best candidate); ``list`` is
``CONFIG_LIST`` or ``OTHER_LIST`` (config.ini levers ranked first); ``set`` is the
``--set`` text, ``total_interval_p5``/``_p95`` the total's predictive interval (``output.interval``),
prices are the candidate's steady checkpoint figures per node; ``flagged``
lists the lever's other candidates that end flagged (``value: flag``) where the base does not."""


def _diff(a: float, b: float) -> float:
    """Seconds saved going from total ``a`` to ``b``; two restarts that never end save nothing."""
    if a == b:
        return 0.0
    return a - b


def _savings(base: VariantRun, o: VariantRun) -> tuple[float, float, float]:
    from ndbsim.output.result import quantile

    paired = [_diff(a, b) for a, b in zip(base.totals, o.totals)]
    return _diff(base.median, o.median), quantile(paired, 0.05), quantile(paired, 0.95)


def prices(o: VariantRun) -> dict[str, float]:
    """The steady-state prices of a variant, per node."""
    ck = o.checkpoint
    if not ck:
        return dict.fromkeys(PRICE_COLUMNS, math.nan)
    cap = ck["redo_capacity_bytes"]
    return {
        "lcp_write_rate": ck["lcp_write_speed"],
        "lcp_bytes": ck["lcp_bytes"],
        "lcp_secs": ck["lcp_secs"],
        "lcp_disk_bytes": o.lcp_disk_bytes,
        "redo_headroom": 1.0 - ck["redo_peak_bytes"] / cap if cap > 0 else math.nan,
        "lcp_cpu_cores": ck["lcp_write_speed"] * LCP_CPU_SECS_PER_BYTE,
    }


def added_flag(base: VariantRun, o: VariantRun) -> str:
    """What flags ``o`` beyond the base: its status's flag, else each configuration warning the
    base does not have. A host the base already oversubscribes stays oversubscribed under most
    levers; that flag tells the candidates nothing, so it neither ranks them down nor keeps them
    out of the best combination (the base's warning says it once)."""
    if o.status_flag:
        return o.status_flag
    had = set(base.warned.split(", "))
    return ", ".join(f for f in o.warned.split(", ") if f and f not in had)


def _order_key(base: VariantRun, o: VariantRun) -> tuple[int, float]:
    """Unflagged (beyond the base) before flagged, then the larger saving."""
    return (0 if not added_flag(base, o) else 1, -_savings(base, o)[0])


@dataclass
class Advice:
    """advise's answer: the ranked levers, the base run and the best combination."""

    frame: pd.DataFrame
    base: VariantRun
    combination: VariantRun | None
    combination_levers: list[str]
    seed: int
    replications: int
    name: str
    version: str
    restart_type: str
    source: str | None
    overrides: tuple[str, ...] = ()
    product: str = "NDB"
    """What restarts: ``NDB`` (a data node) or ``InnoDB`` (mysqld's crash recovery, no LCP prices)."""
    title: str = ""
    """The restart as the table's first line names it (the model's ``title``)."""
    priced: bool = True
    """Whether the levers carry LCP and REDO prices (the model's ``priced``)."""
    combine_all: bool = False
    """Whether the best combination drew from every lever, not only config.ini's."""

    def to_dict(self) -> dict[str, Any]:
        from ndbsim.output.result import json_clean, quantile

        combo = None
        if self.combination is not None:
            s, p5, p95 = _savings(self.base, self.combination)
            combo = {
                "levers": self.combination_levers,
                "from": "all levers" if self.combine_all else CONFIG_LIST,
                "set": list(self.combination.sets),
                "total_restart_secs": self.combination.median,
                "interval": self.combination.interval or None,
                "saving_secs": s,
                "saving_p5": p5,
                "saving_p95": p95,
                "status": self.combination.status,
                **prices(self.combination),
            }
        t = list(self.base.totals)
        return json_clean(
            {
                "name": self.name,
                "version": self.version,
                "restart_type": self.restart_type,
                "seed": self.seed,
                "replications": self.replications,
                "base": {
                    "total_restart_secs": self.base.median,
                    "p5": quantile(t, 0.05),
                    "p95": quantile(t, 0.95),
                    "interval": self.base.interval or None,
                    "status": self.base.status,
                    **prices(self.base),
                },
                "levers": self.frame.to_dict(orient="records"),
                "combination": combo,
            }
        )


def _combination(
    raw: dict[str, Any],
    base: VariantRun,
    rows: list[dict[str, Any]],
    outcome_of: dict[tuple[str, ...], VariantRun] | VariantRun | None,
    seed: int,
    n: int,
    combine_all: bool = False,
) -> tuple[VariantRun | None, list[str]]:
    """Greedy over the top levers in rank order (config.ini's only, unless ``combine_all``): take
    the best, then add each next one if the run with it is faster than without; each step is one
    run of the combination so far. ``outcome_of`` holds each candidate's run by its ``--set``
    strings (or is the first top lever's run itself)."""
    pool = [r for r in rows if combine_all or r.get("list", CONFIG_LIST) == CONFIG_LIST]
    if combine_all:  # both lists as one ranking: the larger saving first, whichever list
        pool.sort(key=lambda r: (1 if r["added_flag"] else 0, -r["saving_secs"]))
    top = [r for r in pool if r["saving_secs"] > 0 and not r["added_flag"]][:TOP_LEVERS]
    if isinstance(outcome_of, VariantRun) or outcome_of is None:
        first = outcome_of
    else:
        first = outcome_of.get(top[0]["sets"]) if top else None
    if not top or first is None:
        return None, []
    chosen, best = [top[0]], first
    for r in top[1:]:
        sets = tuple(x for c in [*chosen, r] for x in c["sets"])
        o = evaluate(raw, sets, seed, n)
        if not o.invalid and not added_flag(base, o) and not _sets_ignored(o) and o.median < best.median:
            chosen.append(r)
            best = o
    return best, [r["lever"] for r in chosen]


def _sets_ignored(o: VariantRun) -> list[str]:
    """The parameters ``o``'s own ``--set`` strings give that NDB ignores in its configuration
    (ThreadConfig beside AutomaticThreadConfig=true, …): a combination never sets a lever NDB ignores."""
    return [k for k in o.ignored if any(x.startswith(f"cluster.config.{k}=") for x in o.sets)]


def advise(
    scenario: str | Path | dict[str, Any] | None = None,
    *,
    overrides: list[str] | tuple[str, ...] = (),
    levers: list[str] | tuple[str, ...] = (),
    seed: int | None = None,
    replications: int | None = None,
    workers: int | None = None,
    progress: bool = False,
    combine_all: bool = False,
) -> pd.DataFrame:
    """Rank the levers of a restart by the median time they save; one row per lever.

    ``overrides`` are ``--set`` strings applied to the scenario first; ``levers`` limits the
    levers tried (names as ``ndbsim.models.levers.ALL_LEVERS``). The DataFrame's ``attrs["advice"]``
    holds the whole answer (base run, best combination) as ``advise_full`` returns it;
    ``combine_all`` lets the combination draw from hardware, workload and release levers too.
    """
    return advise_full(
        scenario,
        overrides=overrides,
        levers=levers,
        seed=seed,
        replications=replications,
        workers=workers,
        progress=progress,
        combine_all=combine_all,
    ).frame


def advise_full(
    scenario: str | Path | dict[str, Any] | None = None,
    *,
    overrides: list[str] | tuple[str, ...] = (),
    levers: list[str] | tuple[str, ...] = (),
    seed: int | None = None,
    replications: int | None = None,
    workers: int | None = None,
    progress: bool = False,
    source: str | None = None,
    combine_all: bool = False,
) -> Advice:
    """advise, with the base run and the combination (``Advice``)."""
    import pandas as pd

    from ndbsim.input import scenario as sc

    raw, src = sc.raw_from(scenario)
    src = src or source
    for a in overrides:
        sc.set_override(raw, a)
    loaded = resolve_variant(raw, (), src)
    model = loaded.model
    s = model.settings(loaded.prepared)
    found: list[Lever] = model.levers(loaded.prepared, levers)
    kind = model.restart_kind(loaded.prepared)
    seed = s.simulation.seed if seed is None else seed
    n = max(s.simulation.replications, ADVISE_REPLICATIONS) if replications is None else replications
    sc.check_run_counts(seed, n)
    base = evaluate(raw, (), seed, n)
    from ndbsim.output.interval.modes import enough_replications

    if enough_replications(base.totals, n) > n:  # two modes: enough replications to see both
        n = enough_replications(base.totals, n)
        base = evaluate(raw, (), seed, n)
    cands = [c for lv in found for c in lv.candidates]
    outs = evaluate_many(raw, [c.sets for c in cands], seed, n, workers=workers, progress=progress, desc="advise")
    rows = _ranked(found, cands, outs, base)
    outcome_of = {c.sets: o for c, o in zip(cands, outs)}
    combo, combo_levers = _combination(raw, base, rows, outcome_of, seed, n, combine_all)
    frame = pd.DataFrame([{k: r[k] for k in COLUMNS} for r in rows], columns=list(COLUMNS))
    advice = Advice(
        frame=frame,
        base=base,
        combination=combo,
        combination_levers=combo_levers,
        seed=seed,
        replications=n,
        name=s.name,
        version=s.version,
        restart_type=kind,
        source=src,
        overrides=tuple(overrides),
        product=model.label,
        title=model.title(s.version, kind),
        priced=model.priced,
        combine_all=combine_all,
    )
    frame.attrs["advice"] = advice.to_dict()
    return advice


def _ranked(found: list[Lever], cands: list[Any], outs: list[VariantRun], base: VariantRun) -> list[dict[str, Any]]:
    """One row per lever with a valid candidate, ranked: config.ini levers before the others, then
    unflagged before flagged, then the larger saving (``rank`` from 1, on through both lists)."""
    by_lever: dict[str, list[tuple[Any, VariantRun]]] = {}
    for c, o in zip(cands, outs):
        if not o.invalid and not _sets_ignored(o):  # a lever NDB ignores is never ranked
            by_lever.setdefault(c.lever, []).append((c, o))
    rows = [_row(lv, by_lever[lv.name], base) for lv in found if by_lever.get(lv.name)]
    rows.sort(key=lambda r: (r["list"] != CONFIG_LIST, 1 if r["added_flag"] else 0, -r["saving_secs"]))
    for i, r in enumerate(rows, 1):
        r["rank"] = i
    return rows


def _row(lv: Lever, tried: list[tuple[Any, VariantRun]], base: VariantRun) -> dict[str, Any]:
    """A lever's table row: its best candidate (``_order_key``), the saving's spread, the prices,
    its worst candidate and the other candidates that end flagged."""
    c, o = min(tried, key=lambda x: _order_key(base, x[1]))
    wc, wo = min(tried, key=lambda x: _savings(base, x[1])[0])
    saving, p5, p95 = _savings(base, o)
    return {
        "list": CONFIG_LIST if in_config_ini(lv.kind) else OTHER_LIST,
        "lever": lv.name,
        "kind": lv.kind,
        "current": lv.current,
        "value": c.value,
        "set": " ".join(c.sets),
        "sets": c.sets,
        "saving_secs": saving,
        "saving_p5": p5,
        "saving_p95": p95,
        "total_secs": o.median,
        "total_interval_p5": o.interval.get("p5"),
        "total_interval_p95": o.interval.get("p95"),
        "flag": o.flag,
        "added_flag": added_flag(base, o),
        **prices(o),
        "worst_value": wc.value,
        "worst_saving_secs": _savings(base, wo)[0],
        "flagged": "; ".join(f"{x.value}: {y.flag}" for x, y in tried if y.flag and y.flag != base.flag and x is not c),
    }
