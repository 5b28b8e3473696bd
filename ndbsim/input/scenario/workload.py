"""The scenario's ``workload:`` section: steady rates, and those before and during the restart."""

from __future__ import annotations

from pydantic import Field

from ndbsim.input.fields import Duration, PerSecond, PositiveBytes, StrictModel


class WorkloadRates(StrictModel):
    """The steady transaction stream of a scenario, cluster-wide (``workload:``)."""

    updates_per_s: PerSecond = 0.0
    """Row updates per second, cluster-wide (split over the node groups). Default 0: no traffic
    unless given."""
    inserts_per_s: PerSecond = 0.0
    """Row inserts per second, cluster-wide. Default 0: no traffic unless given."""
    deletes_per_s: PerSecond = 0.0
    """Row deletes per second, cluster-wide. Default 0: no traffic unless given."""
    bytes_per_change: PositiveBytes = 512.0
    """REDO/copy bytes per changed row. Default 512 B: seed 004's updates "each updating 512B" (the
    default scenario sets 200B)."""


class PartialRates(StrictModel):
    updates_per_s: PerSecond | None = None
    """Updates per second in this period; None keeps the steady workload's value."""
    inserts_per_s: PerSecond | None = None
    """Inserts per second in this period; None keeps the steady workload's value."""
    deletes_per_s: PerSecond | None = None
    """Deletes per second in this period; None keeps the steady workload's value."""
    bytes_per_change: PositiveBytes | None = None
    """Bytes per changed row in this period; None keeps the steady workload's value."""


class Burst(PartialRates):
    duration: Duration = 0.0
    """Length of the burst, ending when the restart begins. Default 0: no burst (the default
    scenario assumes 20 min at 100,000 inserts/s for seed 003's "heavy insert activity")."""


class Workload(WorkloadRates):
    during_restart: PartialRates | None = None
    """Rates while the node restarts. Default None: the steady rates continue (the default scenario
    sets 0: seed 003 "didn't perform any updates during the restart")."""
    disk_update_share: float | None = Field(None, ge=0, le=1)
    """Share of the changed rows (updates, inserts, deletes) that change a disk column: each writes
    an UNDO record of the row's disk part and dirties a disk page. Default None: the disk columns'
    share of a row's bytes, data.disk_data_size / (data.size + data.disk_data_size) (changes touch
    columns in proportion to their bytes; 0 without disk data)."""
    before_restart: Burst | None = None
    """A burst in the last ``duration`` before the restart (e.g. a bulk load). Default None: no burst
    (the default scenario gives one for seed 003's "heavy insert activity right before the restart")."""
