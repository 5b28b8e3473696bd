"""InnoDB crash-recovery scenarios (``kind: innodb``): typed models, unknown keys rejected."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, ValidationError, model_validator

from ndbsim.errors import InputError, did_you_mean
from ndbsim.fields import ByteRate, Count, Duration, PositiveBytes, PositivePerSecond, StrictModel, keys_at
from ndbsim.units import parse_bytes

PerSecond = PositivePerSecond
_Model = StrictModel


class Server(_Model):
    buffer_pool_size: PositiveBytes = parse_bytes("52G")
    innodb_log_file_size: PositiveBytes = parse_bytes("4G")
    innodb_log_files_in_group: int = Field(2, ge=2, le=100)


class Storage(_Model):
    kind: Literal["flash", "raid10"] = "flash"
    read_iops: PerSecond = 100_000.0
    write_iops: PerSecond = 50_000.0
    seq_read: ByteRate = parse_bytes("500M")
    read_latency: Duration | None = None
    """Per random read; default 0.1 ms for flash, 5 ms for raid10 (15k rpm disks)."""

    @property
    def latency(self) -> float:
        if self.read_latency is not None:
            return max(self.read_latency, 1e-6)
        return 1e-4 if self.kind == "flash" else 5e-3


class Workload(_Model):
    redo_rate: ByteRate | None = None
    """Redo generated per second; or give tps and redo_per_txn."""
    tps: PerSecond | None = None
    redo_per_txn: PositiveBytes | None = None
    run_time: Duration = 1800.0
    """Time the server ran before it was killed (seed 002: 30 min)."""
    dirty_pct: float = Field(75.0, gt=0, le=100)
    """Dirty pages at the crash, % of the cached data (5.5 innodb_max_dirty_pages_pct = 75)."""
    data_size: PositiveBytes | None = None
    """Size of the data set; the cached part is min(buffer pool, data). Default: the buffer pool."""
    uncommitted_txn_rows: Count = 0.0

    @model_validator(mode="after")
    def _rate(self) -> Workload:
        if self.redo_rate is None and (self.tps is None or self.redo_per_txn is None):
            raise ValueError("give workload.redo_rate, or both workload.tps and workload.redo_per_txn")
        return self

    @property
    def redo_bytes_per_sec(self) -> float:
        if self.redo_rate is not None:
            return self.redo_rate
        return float(self.tps) * float(self.redo_per_txn)


class Simulation(_Model):
    seed: int = Field(1, ge=0)
    replications: int = Field(1, ge=1, le=100_000)
    jitter: float = Field(0.05, ge=0, le=1)
    """Relative spread (lognormal sigma) of the redo rate between replications."""


def _version_text(v: Any) -> Any:
    return str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v


class InnodbScenario(_Model):
    name: str = "unnamed InnoDB scenario"
    kind: Literal["innodb"] = "innodb"
    version: Annotated[str, BeforeValidator(_version_text)] = "5.5.7-percona"
    server: Server = Field(default_factory=Server)
    storage: Storage = Field(default_factory=Storage)
    workload: Workload
    simulation: Simulation = Field(default_factory=Simulation)
    expect: dict[str, Any] | None = None


def scenario_from_dict(raw: Any, source: str | None = None) -> InnodbScenario:
    if not isinstance(raw, dict):
        raise InputError("an InnoDB scenario must be a YAML mapping (name, kind, server, ...)", source=source)
    try:
        return InnodbScenario.model_validate(raw)
    except ValidationError as err:
        e = err.errors(include_url=False)[0]
        loc = tuple(e.get("loc", ()))
        field = ".".join(str(p) for p in loc if not str(p).startswith("function-")) or "scenario"
        if e.get("type") == "extra_forbidden":
            hint = did_you_mean(str(loc[-1]), keys_at(InnodbScenario, loc)) if loc else ""
            raise InputError(f"unknown key{hint}; remove it or fix its spelling", field=field, source=source) from None
        msg = e.get("msg", "invalid").removeprefix("Value error, ")
        value = e.get("input")
        shown = "a mapping" if isinstance(value, dict) else repr(value)
        raise InputError(f"{shown} is not valid: {msg}", field=field, source=source) from None


def load_raw(path: str | Path) -> dict[str, Any]:
    from ndbsim.scenario import read_yaml

    raw = read_yaml(path)
    if not isinstance(raw, dict):
        raise InputError("an InnoDB scenario must be a YAML mapping", source=str(path))
    return raw
