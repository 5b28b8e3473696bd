"""The NDB config.ini parameters ndbsim models: kind and valid range of each.

Names, ranges and units follow the reference manual ([DOC-NDBD80], [CFG51], [CFG76];
reference §2.3, §3, §4, §6, §8). Defaults live in the version profiles.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ndbsim.errors import InputError, did_you_mean
from ndbsim.input.units import parse_byte_rate, parse_bytes, parse_count


@dataclass(frozen=True)
class Param:
    kind: str  # size | rate | int | bool | str | enum
    lo: float | None = None
    hi: float | None = None
    choices: tuple[str, ...] = ()


G = 2**30
"""Binary gigabyte, 2**30 bytes, as config.ini reads a ``G`` suffix; a unit for the ranges below."""
M = 2**20
"""Binary megabyte, 2**20 bytes, as config.ini reads an ``M`` suffix; a unit for the ranges below."""
PARAMS: dict[str, Param] = {
    "NoOfReplicas": Param("int", 1, 4),
    "DataMemory": Param("size", 1 * M, 16 * 2**40),
    "IndexMemory": Param("size", 0, 1 * 2**40),
    "MaxNoOfExecutionThreads": Param("int", 0, 72),
    "ThreadConfig": Param("str"),
    "AutomaticThreadConfig": Param("bool"),
    "NumCPUs": Param("int", 0, 1024),
    "NoOfFragmentLogParts": Param("int", 4, 32),
    "NoOfFragmentLogFiles": Param("int", 3, 2**31),
    "FragmentLogFileSize": Param("size", 4 * M, 1 * G),
    "InitFragmentLogFiles": Param("enum", choices=("SPARSE", "FULL")),
    "RedoBuffer": Param("size", 1 * M, 4 * G),
    "TimeBetweenLocalCheckpoints": Param("int", 0, 31),
    "TimeBetweenGlobalCheckpoints": Param("int", 20, 32000),
    "HeartbeatIntervalDbDb": Param("int", 10, 2**31),
    "BuildIndexThreads": Param("int", 0, 128),
    "TwoPassInitialNodeRestartCopy": Param("bool"),
    "MaxParallelCopyInstances": Param("int", 0, 64),
    "EnablePartialLcp": Param("bool"),
    "RecoveryWork": Param("int", 25, 100),
    "InsertRecoveryWork": Param("int", 0, 70),
    "EnableRedoControl": Param("bool"),
    "DiskCheckpointSpeed": Param("rate", 1 * M, 2**40),
    "DiskCheckpointSpeedInRestart": Param("rate", 1 * M, 2**40),
    "MinDiskWriteSpeed": Param("rate", 1 * M, 2**40),
    "MaxDiskWriteSpeed": Param("rate", 1 * M, 2**40),
    "MaxDiskWriteSpeedOtherNodeRestart": Param("rate", 1 * M, 2**40),
    "MaxDiskWriteSpeedOwnRestart": Param("rate", 1 * M, 2**40),
    "ClassicFragmentation": Param("bool"),
    "PartitionsPerNode": Param("int", 1, 32),
    "DiskPageBufferMemory": Param("size", 4 * M, 16 * 2**40),
    "SharedGlobalMemory": Param("size", 0, 64 * 2**40),
}
"""The config.ini parameters ndbsim models, by NDB's spelling: kind and the accepted range.

Bounds follow NDB's limits. The reference gives RecoveryWork 25–100 (§2.3), TimeBetweenLocalCheckpoints
0–31 (§3), NoOfFragmentLogParts 4–32, NoOfFragmentLogFiles ≥ 3, FragmentLogFileSize 4M–1G (§4),
MaxParallelCopyInstances 0–64 (§5), BuildIndexThreads 0–128 (§6), DataMemory ≤ 16T (§7) and at most 72
execution threads (§8); 5.1's ConfigInfo.cpp ([CFG51]) gives NoOfReplicas 1–4, the 1M minimums of
DataMemory and RedoBuffer, IndexMemory ≤ 1024G, HeartbeatIntervalDbDb ≥ 10 and
TimeBetweenGlobalCheckpoints ≤ 32000. The other bounds (the disk-speed limits, RedoBuffer's maximum,
the GCP interval's minimum, NoOfFragmentLogFiles' maximum) are in neither source. Two bounds admit
the version profiles' own defaults, which are parsed through this table: MaxNoOfExecutionThreads from
0 (the 5.1 profile: ndbd) and IndexMemory from 0 (7.6/8.0 fold it into DataMemory). InsertRecoveryWork
is NDB's 0–70 (reference §2.3); 7.6.4 counts inserts in full by mechanism, not by this value.
NumCPUs 0 lets NDB count the host's CPUs (thr_config.cpp, ``compute_automatic_thread_config``); its
maximum here is ndbsim's host.cpu_cores limit, NDB's own is not in the reference. PartitionsPerNode's
1–32 and DiskPageBufferMemory's 4M minimum are the 8.0 manual's data-node parameter pages; 16T, the
DataMemory ceiling, stands for the buffer's maximum, which the reference does not give.
SharedGlobalMemory's 0–64T is the 8.0 manual's."""
_LOWER = {name.lower(): name for name in PARAMS}
"""Lower-cased name -> NDB's spelling: config.ini names are case-insensitive (``canonical_name``)."""

_FIX = {
    "size": "write a size such as 64G or 512M",
    "rate": "write a rate such as 100M (bytes per second)",
    "int": "write a whole number",
    "bool": "write true or false (1/0)",
    "str": "write a string",
}
"""ndbsim's fix hint per parameter kind, appended to "is not valid" errors (wording ours; enum errors
list their choices instead)."""


def canonical_name(name: str) -> str | None:
    """config.ini names are case-insensitive; return NDB's spelling or None."""
    return _LOWER.get(str(name).lower())


def parse_value(name: str, raw: Any, field: str) -> Any:
    """One parameter's value, parsed and range-checked."""
    p = PARAMS[name]
    try:
        if p.kind == "size":
            value: Any = parse_bytes(raw)
        elif p.kind == "rate":
            value = parse_byte_rate(raw)
        elif p.kind == "int":
            value = parse_count(raw)
            if value != int(value):
                raise ValueError
            value = int(value)
        elif p.kind == "bool":
            text = str(raw).strip().lower()
            if isinstance(raw, bool):
                value = raw
            elif text in ("1", "true", "yes", "on", "y"):
                value = True
            elif text in ("0", "false", "no", "off", "n"):
                value = False
            else:
                raise ValueError
        elif p.kind == "enum":
            value = str(raw).strip().upper()
            if value not in p.choices:
                raise InputError(
                    f"{raw!r} is not one of {', '.join(p.choices)}; use {' or '.join(p.choices)}", field=field
                )
        else:
            if isinstance(raw, (list, dict, bool)):
                raise ValueError
            value = "" if raw is None else str(raw)
            if name == "ThreadConfig":
                from ndbsim.input.config.thread_config import check_thread_config
                from ndbsim.input.safe_load import check_line_length

                check_line_length(value, field)

                try:
                    check_thread_config(value)
                except ValueError as e:
                    raise InputError(f"{raw!r}: {e}", field=field) from None
    except InputError as e:
        if e.field:
            raise
        raise InputError(f"{raw!r} is not valid; {_FIX[p.kind]}", field=field) from None
    except (ValueError, TypeError, OverflowError):
        raise InputError(f"{raw!r} is not valid; {_FIX[p.kind]}", field=field) from None
    numeric = p.kind in ("size", "rate", "int")
    if numeric and ((p.lo is not None and value < p.lo) or (p.hi is not None and value > p.hi)):
        lo, hi = show(p.kind, p.lo), show(p.kind, p.hi)
        raise InputError(f"{raw!r} is out of range; use a value from {lo} to {hi} (NDB's limits)", field=field)
    return value


def show(kind: str, n: float | None) -> str:
    """A limit or default as config.ini would write it (sizes with units)."""
    if n is None:
        return "-"
    if kind in ("size", "rate"):
        from ndbsim.input.units import format_bytes

        return format_bytes(n)
    return f"{int(n)}" if n == int(n) else f"{n:g}"


_PARSED_DEFAULTS: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
"""Cache for ``_parsed``: id() of a profile's defaults dict -> (that dict, its parsed values). The dict
is kept to detect a reused id; starts empty, filled at run time."""


def _parsed(defaults: dict[str, Any], prefix: str) -> dict[str, Any]:
    """A profile's defaults parsed once (profiles are cached, so their dicts live on)."""
    hit = _PARSED_DEFAULTS.get(id(defaults))
    if hit is not None and hit[0] is defaults:
        return hit[1]
    parsed = {
        name: parse_value(name, raw, f"{prefix}.{name}") if name in PARAMS else raw for name, raw in defaults.items()
    }
    _PARSED_DEFAULTS[id(defaults)] = (defaults, parsed)
    return parsed


def resolve(defaults: dict[str, Any], given: dict[str, Any], prefix: str = "cluster.config") -> dict[str, Any]:
    """Defaults merged with the given parameters, every value parsed."""
    out: dict[str, Any] = dict(_parsed(defaults, prefix))
    spelled: dict[str, str] = {}
    for name, raw in (given or {}).items():
        canon = canonical_name(name)
        if canon is None:
            raise InputError(
                f"unknown NDB parameter{did_you_mean(str(name), PARAMS)}; run `ndbsim params` for the modelled ones",
                field=f"{prefix}.{name}",
            )
        if canon in spelled:  # config.ini names are case-insensitive: two spellings, one parameter
            raise InputError(f"set twice, as {spelled[canon]!r} and {name!r}; keep one", field=f"{prefix}.{canon}")
        spelled[canon] = str(name)
        out[canon] = parse_value(canon, raw, f"{prefix}.{canon}")
    return out
