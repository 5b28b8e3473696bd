"""Sweep rows as flat records: one ``SweepRow`` per point and replication, built in the hot path
without pandas, and the DataFrame made from a list of them in one call (``frame``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

CHECKPOINT_FIGURES = ("lcp_secs", "lcp_bytes", "redo_bytes_needed", "redo_capacity_bytes")
"""Steady-state checkpoint figures copied into every NDB sweep row, named as in
``engine.run.checkpoint_figures`` (NaN for InnoDB and failed points)."""
INT_COLUMNS = ("point", "replication", "seed", "events")
"""Columns stored as int64 whatever the rows hold (an empty shard would otherwise give object)."""


@dataclass(slots=True)
class Outcome:
    """What one replication contributes to a sweep row: the model's phases in its own order, the
    total, the checkpoint figures (``CHECKPOINT_FIGURES``), events, status and reason."""

    phases: tuple[float, ...]
    total_restart_secs: float
    checkpoint: tuple[float, ...]
    events: int
    status: str
    reason: str


@dataclass(slots=True)
class SweepRow:
    """One point and replication of a sweep. ``factors`` are the point's values in the order of
    the sweep's keys; ``outcome`` what the replication gave."""

    point: int
    replication: int
    seed: int
    factors: tuple[Any, ...]
    outcome: Outcome

    def flat(self) -> tuple[Any, ...]:
        """The row's cells in the order of ``columns``."""
        o = self.outcome
        return (
            self.point,
            self.replication,
            self.seed,
            *self.factors,
            *o.phases,
            o.total_restart_secs,
            *o.checkpoint,
            o.events,
            o.status,
            o.reason,
        )


def columns(keys: Sequence[str], phases: Sequence[str]) -> list[str]:
    """The column names of a sweep's rows: ``SweepRow.flat``'s order."""
    return [
        "point",
        "replication",
        "seed",
        *keys,
        *phases,
        "total_restart_secs",
        *CHECKPOINT_FIGURES,
        "events",
        "status",
        "reason",
    ]


def frame(rows: Iterable[SweepRow], keys: Sequence[str], phases: Sequence[str]) -> pd.DataFrame:
    """The rows as a DataFrame, one column per ``columns`` entry."""
    import pandas as pd

    df = pd.DataFrame.from_records([r.flat() for r in rows], columns=columns(keys, phases))
    return df.astype(dict.fromkeys(INT_COLUMNS, "int64"))
