"""InnoDB crash-recovery scenarios (``kind: innodb``): typed models, unknown keys rejected."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, cast

from pydantic import BeforeValidator, Field, ValidationError, model_validator

from ndbsim.errors import InputError
from ndbsim.input.fields import ByteRate, Count, Duration, PositiveBytes, PositivePerSecond, StrictModel
from ndbsim.input.units import parse_bytes

PerSecond = PositivePerSecond
"""The InnoDB rates (IOPS, tps) must be above 0, so here ``PerSecond`` is the shared
``PositivePerSecond`` type: a zero rate would stall the recovery."""
_Model = StrictModel
"""Short name for the shared base model (``ndbsim.input.fields.StrictModel``): unknown keys are errors."""


class Server(_Model):
    buffer_pool_size: PositiveBytes = parse_bytes("52G")
    """innodb_buffer_pool_size. Default 52G: seed 002's smaller buffer pool (its 144G cases set
    their own)."""
    innodb_log_file_size: PositiveBytes = parse_bytes("4G")
    """Size of one redo log file. Default 4G: seed 002's 8G of log as 2 × 4G files, as its scenarios
    write it."""
    innodb_log_files_in_group: int = Field(default=2, ge=2, le=100)
    """Redo log files in the group; capacity = files × file size. Default 2 (MySQL 5.5's default,
    range 2–100), which with 4G files gives seed 002's 8G."""


class Storage(_Model):
    kind: Literal["flash", "raid10"] = "flash"
    """What holds the data: ``flash`` or ``raid10``; sets the default read latency. Default flash:
    seed 002's Virident tachIOn PCIe card (two of its three cases)."""
    read_iops: PerSecond = 100_000.0
    """Random-read IOPS of the storage. Default 100,000: the figure the seed 002 flash scenarios
    assume for the tachIOn card (the post gives none)."""
    write_iops: PerSecond = 50_000.0
    """Random-write IOPS, for the flush of recovered pages. Default 50,000: the figure the seed 002
    flash scenarios assume (the post gives none)."""
    seq_read: ByteRate = parse_bytes("500M")
    """Sequential read rate for the redo scan. Default 500M: a modelling default with no source (the
    seed 002 scenarios assume 800MB/s flash, 400MB/s RAID10); the scan is normally limited by
    ``Constants.scan_parse_rate`` (150 MB/s) instead."""
    read_latency: Duration | None = None
    """Per random read. Default None: 0.1 ms for flash, 5 ms for raid10 (15k rpm disks), the figures
    the seed 002 scenarios assume (the post gives none)."""

    @property
    def latency(self) -> float:
        if self.read_latency is not None:
            return max(self.read_latency, 1e-6)
        return 1e-4 if self.kind == "flash" else 5e-3


class Workload(_Model):
    redo_rate: ByteRate | None = None
    """Redo generated per second; or give tps and redo_per_txn."""
    tps: PerSecond | None = None
    """Transactions per second; with ``redo_per_txn`` an alternative to ``redo_rate``. No default:
    seed 002 does not state it (its scenarios assume 1000/s and 1600/s)."""
    redo_per_txn: PositiveBytes | None = None
    """Redo bytes per transaction, used with ``tps``. No default (the seed 002 scenarios assume
    3KB for a tpcc-mysql transaction)."""
    run_time: Duration = 1800.0
    """Time the server ran before it was killed (seed 002: 30 min)."""
    dirty_pct: float = Field(default=75.0, gt=0, le=100)
    """Dirty pages at the crash, % of the cached data (5.5 innodb_max_dirty_pages_pct = 75)."""
    data_size: PositiveBytes | None = None
    """Size of the data set; the cached part is min(buffer pool, data). Default: the buffer pool."""
    uncommitted_txn_rows: Count = 0.0
    """Undo records of transactions open at the crash, rolled back after the server is up. Default
    0: none (the seed 002 scenarios assume 5000; comment 5: rollback took "just couple seconds")."""

    @model_validator(mode="after")
    def _rate(self) -> Workload:
        if self.redo_rate is None and (self.tps is None or self.redo_per_txn is None):
            raise ValueError("give workload.redo_rate, or both workload.tps and workload.redo_per_txn")
        return self

    @property
    def redo_bytes_per_sec(self) -> float:
        if self.redo_rate is not None:
            return self.redo_rate
        return float(cast(float, self.tps)) * float(cast(float, self.redo_per_txn))  # both given: _rate


class Simulation(_Model):
    seed: int = Field(default=1, ge=0)
    """Root seed of the replications' random streams. Default 1: any fixed value, for reproducible
    runs."""
    replications: int = Field(default=1, ge=1, le=100_000)
    """Replications to run (the redo rate varies by ``jitter`` between them). Default 1."""
    jitter: float = Field(default=0.05, ge=0, le=1)
    """Relative spread (lognormal sigma) of the redo rate between replications. Default 0.05: a
    modelling choice (seed 002 reports one run per case, so no spread is published)."""


def _version_text(v: Any) -> Any:
    return str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v


class InnodbScenario(_Model):
    name: str = "unnamed InnoDB scenario"
    """Label shown in reports; a placeholder by default."""
    kind: Literal["innodb"] = "innodb"
    """Must be ``innodb``: the key ``ndbsim.models.registry.model_of`` reads to tell these scenarios from NDB ones."""
    version: Annotated[str, BeforeValidator(_version_text)] = "5.5.7-percona"
    """Server version, a label for reports. Default 5.5.7-percona: seed 002's Percona Server 5.5.7."""
    server: Server = Field(default_factory=Server)
    """Server settings; defaults as in ``Server`` (seed 002's 52G pool, 2 × 4G log)."""
    storage: Storage = Field(default_factory=Storage)
    """Storage; defaults as in ``Storage`` (seed 002's flash card, assumed figures)."""
    workload: Workload
    """The workload before the crash. Required: a redo rate (or tps and redo_per_txn) is needed."""
    simulation: Simulation = Field(default_factory=Simulation)
    """Seed, replications and jitter; defaults as in ``Simulation``."""
    expect: dict[str, Any] | None = None
    """Expected outcomes written next to the scenario, checked by the test suite; none by default."""


def scenario_from_dict(raw: Any, source: str | None = None) -> InnodbScenario:
    if not isinstance(raw, dict):
        raise InputError("an InnoDB scenario must be a YAML mapping (name, kind, server, ...)", source=source)
    try:
        return InnodbScenario.model_validate(raw)
    except ValidationError as err:
        from ndbsim.input.scenario.validation import error_from_validation

        e = error_from_validation(err, InnodbScenario)
        raise (e.located(source) if source else e) from None


def load_raw(path: str | Path) -> dict[str, Any]:
    from ndbsim.input.scenario.loading import read_yaml

    raw = read_yaml(path)
    if not isinstance(raw, dict):
        raise InputError("an InnoDB scenario must be a YAML mapping", source=str(path))
    return raw
