"""Parameter sweeps: many scenario variants, each replicated, one row per point and replication.

A sweep file (YAML)::

    base: ../dbt2-600wh-7.6.6.yaml      # a scenario file (relative to this file) or a mapping
    set: {data.rows: null}              # optional; dotted keys set in the base for every point
    factors:                            # dotted scenario keys -> values
      data.size: [10GB, 30GB, 60GB]
      cluster.config.RecoveryWork: [25, 50, 80]
    mode: grid                          # grid (cartesian), zip (lists zipped), random
    samples: 100                        # random only; factors are then {low: , high: } ranges
    replications: 3
    seed: 7
    output: results.parquet             # optional; .csv or .parquet

Every point runs with the sweep's seed (common random numbers): replication ``r`` of every
point draws the stream replication ``r`` of ``ndbsim run --seed SEED`` draws, so a difference
between points is the factors' alone (a paired comparison, as advise's and solve's), a
one-point sweep is ``ndbsim run``'s figure, and the rows do not depend on the number of
workers, the chunking, the scheduler or the shard. Independent noise across points comes from
a seed per sweep (several sweeps, or shards with seeds of their own), not per point. A point
that is invalid or raises becomes rows with status ``error`` and the message; it never stops
the sweep.

The package, one job per module: ``files`` (the sweep file in, the rows out), ``checks`` (the
values' checks), ``points`` (the factors as points), ``work`` (running a chunk of points, the
hot path), ``chunks`` (the chunk plan), ``local`` and ``cluster`` (where the chunks run) and
``run`` (``sweep()`` itself).
"""

from __future__ import annotations

from ndbsim.studies.sweep.checks import parse_shard
from ndbsim.studies.sweep.chunks import IN_FLIGHT, MIN_CHUNK, TAIL_SPLIT
from ndbsim.studies.sweep.cluster import SCHEDULER_TIMEOUT, check_scheduler
from ndbsim.studies.sweep.files import SWEEP_KEYS, load_sweep, write_frame
from ndbsim.studies.sweep.points import MAX_SWEEP_POINTS, MODES, Points, make_points, point_space
from ndbsim.studies.sweep.run import BASE_RESCUE_POINTS, sweep
from ndbsim.studies.sweep.work import run_chunk, with_values

__all__ = [
    "BASE_RESCUE_POINTS",
    "IN_FLIGHT",
    "MAX_SWEEP_POINTS",
    "MIN_CHUNK",
    "MODES",
    "SCHEDULER_TIMEOUT",
    "SWEEP_KEYS",
    "TAIL_SPLIT",
    "Points",
    "check_scheduler",
    "load_sweep",
    "make_points",
    "parse_shard",
    "point_space",
    "run_chunk",
    "sweep",
    "with_values",
    "write_frame",
]
