"""ndbmtd thread layout and what hardware threads are worth.

LDM count from MaxNoOfExecutionThreads follows NDB's own table in mt_thr_config.cpp,
as printed in the reference manual ([DOC-NDBD80]; reference §8).
"""

from __future__ import annotations

import re

LDM_TABLE: tuple[tuple[int, int], ...] = (
    (2, 1),
    (4, 2),
    (8, 4),
    (12, 6),
    (16, 8),
    (24, 12),
    (32, 16),
    (48, 24),
    (64, 32),
    (72, 32),
)
"""MaxNoOfExecutionThreads -> LDM threads: the sample rows of NDB's table in mt_thr_config.cpp as the
manual prints it ([DOC-NDBD80]; reference §8). A value between two rows takes the lower row's count."""

_THREADCONFIG_LDM = re.compile(r"ldm\s*=\s*\{([^}]*)\}", re.IGNORECASE)
"""The ``ldm={...}`` entry of a ThreadConfig string (NDB's syntax, e.g. ``ldm={count=8,cpubind=1-8}``),
case-insensitive; group 1 is the body, where ``ldm_threads`` reads count= or cpubind=."""


THREAD_TYPES = ("main", "ldm", "recv", "send", "rep", "io", "watchdog", "tc", "idxbld", "query", "recover")
"""Thread types a ThreadConfig entry may name (NDB 7.x–8.0 manual, ThreadConfig)."""

THREAD_KEYS = (
    "count",
    "cpubind",
    "cpubind_exclusive",
    "cpuset",
    "cpuset_exclusive",
    "realtime",
    "spintime",
    "thread_prio",
    "nosend",
)
"""Properties a ThreadConfig entry may set inside its braces (NDB manual, ThreadConfig)."""

_ENTRY = re.compile(r"\s*([A-Za-z_]+)\s*(?:=\s*\{([^{}]*)\})?\s*")
"""One ThreadConfig entry: ``type`` or ``type={key=value,...}``."""


def check_thread_config(text: str) -> None:
    """Raise ``ValueError`` (with what is wrong and how to write it) unless ``text`` follows
    ThreadConfig's syntax: comma-separated ``type={key=value,...}`` entries, cpu lists of
    numbers and ``lo-hi`` ranges, whole-number counts."""
    rest = text.strip()
    while rest:
        m = _ENTRY.match(rest)
        if not m or not m.group(0).strip():
            raise ValueError(f"cannot read {rest[:30]!r}; write entries like ldm={{count=8}},main,io")
        kind, body = m.group(1).lower(), m.group(2)
        if kind not in THREAD_TYPES:
            raise ValueError(f"{m.group(1)!r} is not a thread type; use {', '.join(THREAD_TYPES)}")
        for prop in filter(None, (x.strip() for x in _split_props(body or ""))):
            key, eq, value = (x.strip() for x in prop.partition("="))
            if key.lower() not in THREAD_KEYS or not eq:
                raise ValueError(
                    f"{prop!r} is not a {kind} property; use key=value with one of {', '.join(THREAD_KEYS)}"
                )
            if key.lower() == "count" and not value.isdigit():
                raise ValueError(f"count={value!r} is not a whole number")
            if key.lower() in ("cpubind", "cpubind_exclusive", "cpuset", "cpuset_exclusive"):
                _cpu_count(value)
        rest = rest[m.end() :]
        if rest.startswith(","):
            rest = rest[1:]
            if not rest.strip():
                raise ValueError("trailing comma; remove it")
        elif rest:
            raise ValueError(f"cannot read {rest[:30]!r}; separate entries with commas")


def _split_props(body: str) -> list[str]:
    """``count=2,cpubind=1,2-4`` -> ["count=2", "cpubind=1,2-4"]: a comma followed by a number
    or range continues a cpu list."""
    out: list[str] = []
    for piece in body.split(","):
        if out and re.fullmatch(r"\s*\d+(\s*-\s*\d+)?\s*", piece) and "=" in out[-1]:
            out[-1] += "," + piece
        else:
            out.append(piece)
    return out


def _cpu_count(value: str) -> int:
    """CPUs in a list such as ``1,2-4``; ``ValueError`` for anything else (``1-2-3``, ``9-1``)."""
    n = 0
    for piece in value.split(","):
        m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+))?\s*", piece)
        if not m:
            raise ValueError(f"{value!r} is not a cpu list; write e.g. 1-8 or 0,2,4")
        lo, hi = int(m.group(1)), int(m.group(2)) if m.group(2) else int(m.group(1))
        if hi < lo:
            raise ValueError(f"{piece.strip()!r} runs backwards; write {hi}-{lo}")
        n += hi - lo + 1
    return n


def ldm_threads(max_execution_threads: int, thread_config: str = "", multithreaded: bool = True) -> int:
    """LDM instances for a data node.

    ``multithreaded=False`` is ndbd (5.1 and earlier): one thread does all the work.
    A ThreadConfig ``ldm={count=N}`` (or a cpubind list) overrides the table.
    """
    if not multithreaded:
        return 1
    m = _THREADCONFIG_LDM.search(thread_config or "")
    if m:
        body = m.group(1)
        count = re.search(r"count\s*=\s*(\d+)", body)
        if count:
            return max(1, int(count.group(1)))
        cpus = re.search(r"cpubind\s*=\s*([0-9,\-\s]+?)\s*(?:,\s*[A-Za-z_]|$)", body)
        if cpus:
            return max(1, _cpu_count(cpus.group(1)))
        return 1
    ldm = 1
    for threshold, ldm_threads in LDM_TABLE:
        if max_execution_threads >= threshold:
            ldm = ldm_threads
    return ldm


def core_equivalents(threads: float, cores: int, threads_per_core: int, hyperthread_gain: float) -> float:
    """Throughput of ``threads`` busy threads, in cores.

    Up to one thread per core each counts 1; the further hardware threads of a core
    add ``hyperthread_gain`` of a core between them (seed 003: 16 hyperthreads rebuilt
    indexes 124/77 = 1.6× faster than 8 cores).
    """
    threads = max(0.0, threads)
    if threads <= cores:
        return threads
    extra_slots = cores * (threads_per_core - 1)
    if extra_slots <= 0:
        return float(cores)
    extra = min(threads - cores, extra_slots)
    return cores + hyperthread_gain * cores * extra / extra_slots
