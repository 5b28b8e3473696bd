"""The scenario's small sections: the host's hardware, the cluster, the restart and the
simulation's own settings (seed, replications, horizon), with the run-count checks."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from ndbsim.errors import InputError
from ndbsim.input.fields import ByteRate, Duration, StrictModel
from ndbsim.input.profiles import canonical_release
from ndbsim.input.units import parse_bytes


class Host(StrictModel):
    cpu_cores: int = Field(8, ge=1, le=1024)
    """Physical cores per data-node host. Default 8: the default scenario's reading of seed 003 (7.6
    rebuilt indexes on "16 CPUs" with hyperthreading, 7.5 on 8)."""
    threads_per_core: int = Field(2, ge=1, le=8)
    """Hardware threads per core. Default 2: seed 003's hyperthreading (16 CPUs on 8 cores), as in
    the default scenario."""
    core_speed: float = Field(1.0, gt=0, le=100)
    """Per-core speed relative to the calibration host, scaling every CPU-bound constant. Default
    1.0: the host the constants were fitted on (seed 003's, see ``profiles.Constants``)."""
    disk_read: ByteRate = parse_bytes("1G")
    """Disk read rate per host (LCP restore, UNDO, REDO). Default 1G/s: a modelling default with
    no source; the default scenario assumes 2GB/s (seed 003 does not state its disks)."""
    disk_write: ByteRate = parse_bytes("500M")
    """Disk write rate per host (LCP writes, REDO initialisation). Default 500M/s: a modelling
    default with no source; the default scenario assumes 1GB/s."""
    memory_touch_rate: ByteRate = 2.7e9
    """Bytes of DataMemory a data node allocates and touches per second at start. Bound by memory and
    the OS and multi-threaded (reference §1.4, §7), so it does not scale with ``core_speed``. Default
    2.7e9: seed 003's measured "roughly allocates 2.7 GByte per second" (reference §7)."""
    disk_latency: Duration = 0.0001
    """Seconds one synchronous file-system request waits on the disk (opening, first read, sync or close
    of an LCP file); a fragment's restore and LCP make a fixed number of them per data file
    (``engine.fixed_costs``). Default 0.1 ms: a named assumption, an SSD's access time, the class of
    disk the default 1 GB/s ``disk_read`` implies. An HDD (~150 MB/s) waits about 10 ms per access
    (≈8.5 ms seek plus 4.2 ms half rotation): set ``10ms`` for one. No published case states it."""
    network: ByteRate = 10e9 / 8
    """Network bandwidth per host, bytes/s, for the copy phase. Default 10 Gbit/s (10e9 / 8 bytes/s),
    as the default scenario assumes; seed 003 does not state its network."""


def version_text(v: Any) -> Any:
    """A release as the user wrote it (``ndb-8.4.3``, ``mysql-8.0.35 ndb-8.0.35``, ``8.4.3``, a YAML
    number ``8.0``), in the one form the rest of ndbsim reads (``8.4.3``): ``canonical_release``."""
    return canonical_release(v)


PLANS = ("per-node-group", "one-at-a-time")
"""The named restart plans (``Restart.plan``); explicit waves are the third form."""


def plan_value(v: Any) -> Any:
    """``restart.plan`` as written: a plan's name, or waves of NodeIds (a lone wave may be
    written flat, ``[11, 13]``)."""
    if isinstance(v, list) and v and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        return [v]
    if isinstance(v, str) and v not in PLANS:
        raise InputError(
            f"{v!r} is not a restart plan; use per-node-group, one-at-a-time or waves of NodeIds like [[1, 3], [2, 4]]",
            field="restart.plan",
        )
    return v


ROLLING_TYPES = ("rolling", "initial-rolling")
"""Restart types that restart the nodes wave by wave, one member of every node group at a time."""


class Restart(StrictModel):
    type: Literal["node", "initial", "system", "rolling", "initial-rolling"] = "node"
    """``node``, ``initial`` (--initial), ``system`` (all nodes), ``rolling`` (node restarts wave by
    wave) or ``initial-rolling`` (every node with --initial, wave by wave). Default node: seed 003's
    node restart, the default scenario."""
    nodes: list[int] | None = None
    """Node ids to restart. Default None: the highest-numbered node for node and initial restarts
    (the default scenario names node 2 of 2), every node for a rolling restart; a system restart
    takes all nodes."""
    downtime: Duration = 0.0
    """Time the node stays down before it starts again (counted in secs_to_allocate_node_id).
    Default 0: restarted at once, as seed 004 recommends ("restart the ndbd node as soon as possible")."""
    cause: Literal["planned", "crash", "host-failure", "network-failure"] = "planned"
    """Why the node went down. ``planned``: stopped by hand; ``crash``: the ndbmtd process died,
    the OS closed its sockets and the live nodes declare it failed at once (QmgrMain.cpp,
    execDISCONNECT_REP -> node_failed, handled "as if a heartbeat failure was discovered");
    ``host-failure`` or ``network-failure``: the sockets stay open until the live nodes miss 4
    heartbeats, 4–5 × HeartbeatIntervalDbDb (reference §9). Default planned: seed 003 performed
    its node restarts by hand."""
    upgrade_to: Annotated[str | None, BeforeValidator(version_text)] = None
    """The NDB release each restarted node comes back on (an online upgrade, ``ndbsim.upgrade``),
    written as ``version`` is. Default None: the nodes restart on ``version``."""
    plan: Annotated[Literal["per-node-group", "one-at-a-time"] | list[list[int]], BeforeValidator(plan_value)] = (
        "per-node-group"
    )
    """The waves of a rolling restart: ``per-node-group`` (one node of each node group per wave,
    as MCM's rolling restart does), ``one-at-a-time`` (one node per wave, in NodeId order: more
    replicas stay up), or explicit waves of NodeIds, ``[[11, 13], [12], [14]]``, each restarted
    node in exactly one wave and no wave taking a whole node group down (the cluster would shut
    down). Default per-node-group: the waves ndbsim has always run."""


MAX_REPLICATIONS = 100_000
"""Most replications one run accepts: about two minutes of simulation at ~1 ms each, far more
than p5/p95 need (a few hundred). A guard against typos like ``-n 1000000000``, not a model value."""


MAX_SEED = 2**63 - 1
"""Largest root seed (``simulation.seed``, ``--seed``): the largest signed 64-bit integer, so a seed
fits every place a run is recorded (JSON read by 64-bit tools, an int64 column, a SQL BIGINT).
NumPy's ``SeedSequence`` would take any size, but 63 bits already give far more distinct streams
than any study draws. A bound of ours, not a model value."""


def check_seed(seed: Any, field: str, source: str | None = None) -> int:
    """A root seed given outside a scenario (``--seed``, a sweep file's ``seed``): a whole number
    from 0 to ``MAX_SEED``, or a one-line error naming ``field``."""
    from ndbsim.input.units import shown

    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise InputError(
            f"{shown(seed)} is not a seed; use a whole number from 0 to 2^63-1 ({MAX_SEED})", field=field, source=source
        )
    return seed


def check_run_counts(seed: int | None, replications: int | None) -> None:
    """Raise an ``InputError`` unless ``seed`` (None: the scenario's) is a whole number from 0 to ``MAX_SEED`` and
    ``replications`` (None: the scenario's) lies in 1..``MAX_REPLICATIONS``."""
    if replications is not None and not 1 <= replications <= MAX_REPLICATIONS:
        raise InputError(
            f"{replications} is not a replication count; use 1 to {MAX_REPLICATIONS:,}", field="--replications"
        )
    if seed is not None:
        check_seed(seed, "--seed")


class Simulation(StrictModel):
    seed: int = Field(1, ge=0, le=MAX_SEED)
    """Root seed of the replications' random streams. Default 1: any fixed value, for reproducible
    runs (``ndbsim run --seed 0`` draws one)."""
    replications: int = Field(1, ge=1, le=MAX_REPLICATIONS)
    """Replications to run; p5/p50/p95 need more than one. Default 1."""
    lcp_phase: float | None = Field(None, ge=0, le=1)
    """Fraction of the running LCP done when the restart begins; random (seeded) if omitted."""
    horizon: Duration = 7 * 24 * 3600.0
    """Simulated time after which a restart that has not finished is reported as stuck. Default 7 days:
    a modelling choice, far beyond any published restart (minutes to hours)."""


class Cluster(StrictModel):
    data_nodes: int = Field(2, ge=1, le=144)
    """Data nodes in the cluster, a multiple of NoOfReplicas. Default 2: seed 003's (and seed 000's)
    two data nodes."""
    node_ids: list[Annotated[int, Field(ge=1, le=144)]] | None = None
    """The data nodes' NodeIds (config.ini's [ndbd] NodeId), node group by node group: the first
    NoOfReplicas form node group 0, and so on. ``restart.nodes``, tables and charts then use them.
    Default None: NodeIds 1..data_nodes, grouped in that order (NDB's assignment without NodeId)."""
    config: dict[str, Any] = Field(default_factory=dict)
    """config.ini [ndbd default] parameters, by NDB name. Default empty: every parameter at the
    version profile's default (``profiles.releases``: ``_COMMON`` and the family's overrides)."""
