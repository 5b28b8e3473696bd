"""Named constants of the InnoDB crash-recovery model, each with where its value comes from.

``Constants`` holds the defaults; ``FREE_CONSTANTS`` names the ones ``calibrate`` fits
(against all three timings of seed 002); ``calibrated.yaml`` next to this file stores the
fitted values and ``load_constants()`` applies them over the defaults.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

import yaml

from ndbsim.errors import InputError, did_you_mean

CALIBRATED = Path(__file__).with_name("calibrated.yaml")
"""``calibrated.yaml`` beside this file: the FREE_CONSTANTS fitted by ``ndbsim.innodb.calibrate`` on
the three seed 002 cases (calibration/innodb-*.yaml), written by ``save_calibrated``."""


@dataclass(frozen=True)
class Constants:
    page_size: float = 16384.0
    """Bytes per page: UNIV_PAGE_SIZE, 16 KiB, the only page size MySQL 5.5 supports."""

    log_fill_max: float = 0.7875
    """Largest checkpoint age as a fraction of the log capacity. log0log.c log_calc_max_ages():
    margin = 0.9 × capacity, max_modified_age_async = margin − margin/8 = 0.7875 × capacity, the
    point where InnoDB starts flushing to advance the checkpoint; a busy server sits there."""

    scan_parse_rate: float = 150.0 * 2**20
    """Redo bytes/s the single recovery thread can parse and hash while scanning
    (recv_scan_log_recs + recv_add_to_hash_table). Assumed: ~150 MB/s on 2010 Xeons; on both
    storages of seed 002 this, not the sequential read, limits the scan."""

    redo_bytes_per_page_touch: float = 256.0
    """Redo bytes per page modification (MLOG records of a TPC-C row change: header, page
    number, offsets, the changed bytes). Assumed; it sets how quickly a short log saturates
    the dirty-page set: distinct pages = D·(1 − exp(−age / (this × D)))."""

    read_area_pages: float = 32.0
    """RECV_READ_AREA: recv_read_in_area() reads the pages of a 32-page area that the redo
    references together, so the storage merges them into one request when they are dense."""

    read_queue_depth: float = 4.0
    """FREE. Random reads in flight during the apply; the start value is innodb_read_io_threads
    = 4 (5.5 default). With the per-read latency it bounds the read rate to depth / latency,
    below the device's IOPS on disks. Fitted on seed 002's RAID10 case (flash cases barely
    depend on it: 0.1 ms latency)."""

    rollback_rows_per_sec: float = 20000.0
    """Undo records rolled back per second by the background rollback thread (trx_rollback_or
    _clean_all_recovered). Assumed; comment 5 says it took 'just couple seconds' here."""

    apply_rate: float = 14.0 * 2**20
    """FREE. Redo bytes/s the recovery applies to pages in memory (recv_recover_page: parse
    each record again, apply it, LSN checks), single threaded in 5.5. Set by seed 002's two
    flash cases, where reads are fast and this CPU work dominates."""

    page_cpu_secs: float = 2e-6
    """CPU seconds per page recovered, independent of its redo: buffer-pool lookup and
    allocation, checksum on read, flush-list insertion (a red-black tree since InnoDB plugin
    1.0.7). Assumed ~2 µs; left fixed because fitting it with apply_rate on the two flash
    cases drives it to zero (the 52G→144G difference is explained by the extra redo)."""


FREE_CONSTANTS: list[str] = ["apply_rate", "read_queue_depth"]
"""The constants ``calibrate`` fits; the rest are documented engineering values."""

DEFAULTS = Constants()
"""The documented defaults (each field's docstring in ``Constants``), before ``calibrated.yaml``
is applied; ``load_constants`` starts from here."""


def load_constants(overrides: dict | None = None, use_calibrated: bool = True) -> Constants:
    """Defaults, then ``calibrated.yaml`` (if present), then ``overrides``."""
    c = DEFAULTS
    if use_calibrated and CALIBRATED.exists():
        stored = (yaml.safe_load(CALIBRATED.read_text(encoding="utf-8")) or {}).get("constants", {})
        c = replace(c, **{k: float(v) for k, v in stored.items()})
    if overrides:
        names = [f.name for f in fields(Constants)]
        for k in overrides:
            if k not in names:
                raise InputError(f"unknown InnoDB constant{did_you_mean(k, names)}", field=k)
        c = replace(c, **{k: float(v) for k, v in overrides.items()})
    return c


def as_dict(c: Constants) -> dict[str, float]:
    return asdict(c)
