"""``solve data-size``: the most data per node whose restart fits a window, on the hardware as
configured (DataMemory stays; the answer says where it runs out), or with DataMemory grown with
the data on request (``--grow-datamemory``). Either way the data fills at most
``DATA_MEMORY_ANSWER_FILL`` of DataMemory, and the answer states the headroom it leaves."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.config.params import G, M
from ndbsim.input.units import clean_size_text, format_bytes, format_secs
from ndbsim.studies.runs import VariantRun
from ndbsim.studies.solve.answer import Answer
from ndbsim.studies.solve.search import (
    DATA_MEMORY_ANSWER_FILL,
    Sim,
    fits_window,
    largest_passing,
    quantile_total,
)


def data_size(sim: Sim, resolved: Any, window: float, q: float, grow_datamemory: bool = False) -> Answer:
    """The most whole gigabytes of data per node whose ``q`` quantile restart fits ``window``;
    rows scale with the data (the scenario's row size). DataMemory stays as configured, which
    bounds the data (a scenario's data must fit in it), unless ``grow_datamemory``: then it
    scales with the data, keeping the scenario's memory headroom."""
    s, cfg = resolved.scenario, resolved.config
    size0, rows0, memory = s.data.size, s.data.row_count, cfg["DataMemory"]
    sets, top, how = _variants(size0, rows0, memory, grow_datamemory)

    def run(gb: int) -> VariantRun:
        return sim(sets(gb))

    def fits(o: VariantRun) -> bool:
        return fits_window(o, q, window)

    which = "median" if q == 0.5 else f"p{100 * q:g}"
    if top < 1:
        raise InputError(
            f"DataMemory={format_bytes(memory)} holds less than 1G of data at {DATA_MEMORY_ANSWER_FILL:.0%} full; "
            "raise cluster.config.DataMemory "
            "or add --grow-datamemory",
            field="cluster.config.DataMemory",
        )
    if not fits(run(1)):
        raise InputError(
            f"even 1G of data per node misses a {format_secs(window)} window "
            f"({format_secs(quantile_total(run(1), q))}); give a longer --window",
            field="--window",
        )
    gb = _largest_fitting(run, fits, max(2, int(size0 // G)), top)
    up = gb + 1 if gb < top else None
    filled = up is not None and run(up).data_memory_full and quantile_total(run(up), q) <= window
    notes = [_inserts_note(resolved, up)] if filled else []
    if not grow_datamemory:
        notes.append(_memory_note(memory, top, gb, fits(run(gb)) and up is None, filled))
    notes += _headroom_notes(memory, size0, gb, sets(gb), grow_datamemory)
    return Answer(
        question="data-size",
        parameter="data.size",
        value=float(gb * G),
        shown=f"{gb}G",
        sets=sets(gb),
        outcome=run(gb),
        short=f"{up}G"
        if up
        else f"none: DataMemory={format_bytes(memory)} holds no more within {DATA_MEMORY_ANSWER_FILL:.0%}",
        short_outcome=run(up) if up else None,
        target=(
            f"the most data per node whose {which} restart fits {format_secs(window)}, filling at most "
            f"{DATA_MEMORY_ANSWER_FILL:.0%} of DataMemory ({how})"
        ),
        runs=0,
        seed=0,
        replications=0,
        notes=notes,
        passed=fits(run(gb)),
        short_passed=fits(run(up)) if up else None,
        short_label="one step more",
    )


def _variants(
    size0: float, rows0: float, memory: float, grow: bool
) -> tuple[Callable[[int], tuple[str, ...]], int, str]:
    """The ``--set`` strings of ``gb`` gigabytes of data per node, the most gigabytes tried, and
    what scales with the data, in words."""
    from ndbsim.input.config.params import PARAMS

    per_row = size0 / rows0
    if not grow:
        return (
            lambda gb: (f"data.size={gb}G", f"data.rows={rows0 * gb * G / size0:.0f}"),
            int(memory * DATA_MEMORY_ANSWER_FILL // G),
            f"rows scale with it at {per_row:.0f} B per row; DataMemory stays {format_bytes(memory)}",
        )
    headroom = max(memory / size0, 1 / DATA_MEMORY_ANSWER_FILL)

    def sets(gb: int) -> tuple[str, ...]:
        size = gb * G
        dm = clean_size_text(math.ceil(size * headroom / M) * M)
        return (f"data.size={gb}G", f"data.rows={rows0 * size / size0:.0f}", f"cluster.config.DataMemory={dm}")

    top = int((PARAMS["DataMemory"].hi or 0.0) / headroom // G)
    return sets, top, f"rows and DataMemory scale with it: {per_row:.0f} B per row, DataMemory {headroom:.2f} × data"


def _headroom_notes(memory: float, size0: float, gb: int, sets: tuple[str, ...], grown: bool) -> list[str]:
    """The DataMemory headroom the answer leaves (its data's share of DataMemory and what is
    free) and, below the scenario's data, what the answer gives up."""
    if grown:
        memory = float(next(x for x in sets if x.startswith("cluster.config.DataMemory=")).split("=")[1][:-1]) * M
    fill = gb * G / memory
    notes = [
        f"DataMemory headroom: {gb}G is {fill:.0%} of DataMemory={format_bytes(memory)}, "
        f"{format_bytes(memory - gb * G)} free (answers fill at most {DATA_MEMORY_ANSWER_FILL:.0%}: seed 004's best "
        "practice)"
    ]
    if gb * G < size0:
        notes.append(
            f"below the scenario's {format_bytes(size0)} per node: fitting the window gives up "
            f"{format_bytes(size0 - gb * G)} of data per node (or a longer window, or see ndbsim advise)"
        )
    return notes


def _inserts_note(resolved: Any, up: int | None) -> str:
    """Why the step more misses though its restart fits the window: the inserts during the restart
    fill DataMemory before it ends, as its run warns (error 827)."""
    w = resolved.scenario.workload
    during = w.during_restart
    inserts = during.inserts_per_s if during is not None and during.inserts_per_s is not None else w.inserts_per_s
    deletes = during.deletes_per_s if during is not None and during.deletes_per_s is not None else w.deletes_per_s
    return (
        f"at {up}G the inserts during the restart ({inserts:,.0f}/s, {deletes:,.0f} deletes/s cluster-wide) fill "
        "DataMemory before it ends (NDB error 827, as its run warns): the answer leaves them room"
    )


def _memory_note(memory: float, top: int, gb: int, memory_bound: bool, filled: bool = False) -> str:
    """Where DataMemory runs out, and whether it (or the inserts filling it), not the window, sets
    the answer."""
    where = f"DataMemory={format_bytes(memory)} reaches {DATA_MEMORY_ANSWER_FILL:.0%} at {top}G of data per node"
    if filled:
        return f"{where} with no inserts during the restart"
    if memory_bound:
        return (
            f"{where}: the window would allow more, so the answer is DataMemory's headroom; raise DataMemory "
            "(host RAM permitting: ndbsim models none) or ask with --grow-datamemory"
        )
    return f"{where}; the window, not DataMemory, sets the answer (DataMemory holds {top - gb}G more)"


def _largest_fitting(run: Callable[[int], VariantRun], fits: Callable[[VariantRun], bool], hi: int, top: int) -> int:
    """The largest gigabyte count up to ``top`` that fits (1 fits): doubling from ``hi`` to a
    count that does not (or ``top``), then bisection."""
    lo, hi = 1, min(hi, top)
    while fits(run(hi)):
        if hi >= top:
            return hi
        lo, hi = hi, min(top, hi * 2)
    return largest_passing(lambda v: fits(run(v)), lo, hi)
