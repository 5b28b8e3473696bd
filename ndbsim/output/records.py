"""Sweep rows as flat records: one ``SweepRow`` tuple per point and replication, built in the hot
path without pandas, and the DataFrame made from a list of them in one call (``frame``)."""

from __future__ import annotations

from collections.abc import Sequence
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

    def cells(self) -> tuple[Any, ...]:
        """The outcome's cells of a sweep row, in ``columns`` order."""
        return (*self.phases, self.total_restart_secs, *self.checkpoint, self.events, self.status, self.reason)


SweepRow = tuple[Any, ...]
"""One point and replication of a sweep, as its cells in ``columns`` order: point, replication,
seed, the factor values in the order of the sweep's keys, then ``Outcome.cells``. A plain tuple:
the rows cross from the workers to the main process in bulk, and a tuple pickles and unpickles
several times faster than a dataclass (measured: about 4 µs less per row)."""


def sweep_row(point: int, replication: int, seed: int, factors: tuple[Any, ...], outcome: Outcome) -> SweepRow:
    """The row of one point's ``replication``: ``factors`` are the point's values in the order of
    the sweep's keys, ``outcome`` what the replication gave."""
    return (point, replication, seed, *factors, *outcome.cells())


def columns(keys: Sequence[str], phases: Sequence[str]) -> list[str]:
    """The column names of a sweep's rows, in the order of their cells (``SweepRow``)."""
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


def frame(rows: Sequence[SweepRow], keys: Sequence[str], phases: Sequence[str]) -> pd.DataFrame:
    """The rows as a DataFrame, one column per ``columns`` entry."""
    import pandas as pd

    df = pd.DataFrame.from_records(rows, columns=columns(keys, phases))
    return df.astype(dict.fromkeys(INT_COLUMNS, "int64"))
