"""ndbmtd thread layout and what hardware threads are worth.

LDM count from MaxNoOfExecutionThreads follows NDB's own table in mt_thr_config.cpp,
as printed in the reference manual ([DOC-NDBD80]; reference §8).
"""

from __future__ import annotations

import re

LDM_TABLE: tuple[tuple[int, int], ...] = (
    (2, 1), (4, 2), (8, 4), (12, 6), (16, 8), (24, 12), (32, 16), (48, 24), (64, 32), (72, 32),
)
"""MaxNoOfExecutionThreads -> LDM threads: the sample rows of NDB's table in mt_thr_config.cpp as the
manual prints it ([DOC-NDBD80]; reference §8). A value between two rows takes the lower row's count."""

_THREADCONFIG_LDM = re.compile(r"ldm\s*=\s*\{([^}]*)\}", re.IGNORECASE)
"""The ``ldm={...}`` entry of a ThreadConfig string (NDB's syntax, e.g. ``ldm={count=8,cpubind=1-8}``),
case-insensitive; group 1 is the body, where ``ldm_threads`` reads count= or cpubind=."""


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
        cpus = re.search(r"cpubind\s*=\s*([0-9,\-\s]+)", body)
        if cpus:
            n = 0
            for piece in cpus.group(1).split(","):
                lo, _, hi = piece.strip().partition("-")
                n += (int(hi) - int(lo) + 1) if hi else 1
            return max(1, n)
        return 1
    ldm = 1
    for threshold, count in LDM_TABLE:
        if max_execution_threads >= threshold:
            ldm = count
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
