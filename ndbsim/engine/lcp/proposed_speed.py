"""EnableRedoControl's proposed LCP write speed (7.6.7+, on by default in 8.0): the speed at
which an LCP keeps pace with the changes, worked out with the same parts formula that sizes
each fragment's LCP, plus a margin (Backup.cpp measure_change_speed ->
calculate_checkpoint_rate -> set_proposed_disk_write_speed; reference §2.4).

Backup.cpp takes the rows changed since the last LCP's cut, scales them to the last LCP's
execution time, sizes the checkpoint of those changes (ALL-ROWS parts of the memory plus the
CHANGE rows of the other parts) and divides by that time: the write rate the changes call for.
It adds 25% ("the proposed disk write speed is not always achieved"), and 20% or 40% at the
high and critical REDO alert levels. The proposal raises the maximum the CPU feedback
(calculate_disk_write_speed) moves the speed up to, so an LCP writes at the larger of its
configured maximum and the proposal. Not modelled: the up-to-20% boost while the REDO speed
is above its mean and the lag and timing factors, which act on the way to the steady state and
cancel in it (an LCP that keeps pace has no lag).
"""

from __future__ import annotations

import math

from ndbsim.engine.lcp.checkpoint import CheckpointPolicy, LcpRecord
from ndbsim.engine.workload import Changes

PROPOSAL_MARGIN = 1.25
"""set_proposed_disk_write_speed: "we increase the proposed disk write speed by 25%" over the
change-implied rate."""

ALERT_RAISE = (1.0, 1.2, 1.4)
"""The proposal's extra at EnableRedoControl's alert levels none, high (REDO > 40%) and
critical (REDO > 60%): "Add another 20%" / "Add another 40%" (set_proposed_disk_write_speed)."""

SHORTEST_MEASURED_LCP = 3.0
"""calculate_change_rate: LCPs shorter than 3 s are ignored ("it is hard to see how we could
run out of REDO log"): no proposal below it."""


def proposed_speed(sizer: CheckpointPolicy, data_bytes: float, rows: float, size: float, lcp_secs: float) -> float:
    """The proposal when the changes of one LCP's time, ``lcp_secs``, checkpoint to ``size``
    bytes (``sizer`` is unused but names the formula's owner in tracebacks)."""
    if not math.isfinite(lcp_secs) or lcp_secs < SHORTEST_MEASURED_LCP:
        return 0.0
    return PROPOSAL_MARGIN * size / lcp_secs


def proposing_cycle(
    policy: CheckpointPolicy,
    data_bytes: float,
    rows: float,
    node_rates: Changes,
    configured: float,
    ceiling: float,
    overhead_secs: float,
    trigger_secs: float,
) -> tuple[LcpRecord, float, float]:
    """The steady LCP cycle when each LCP writes at the larger of the ``configured`` speed and
    the proposal of its own cycle, never beyond ``ceiling`` (what the disk has left): (one
    LCP's record, the cycle, the speed). Where the proposal leads, an LCP spends 1/1.25 of its
    time writing, so the cycle settles at 5 × the per-LCP overhead."""

    def speed(size: float, cycle: float) -> float:
        return min(ceiling, max(configured, proposed_speed(policy, data_bytes, rows, size, cycle)))

    rec, cycle = policy.steady_state(data_bytes, rows, node_rates, speed, overhead_secs, trigger_secs)
    return rec, cycle, speed(rec.bytes, cycle)
