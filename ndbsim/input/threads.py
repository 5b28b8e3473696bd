"""ndbmtd's thread layout and what hardware threads are worth.

A data node's threads come from one of three settings, as NDB reads them (thr_config.cpp,
``THRConfig::do_parse``; reference §8, §11): ``AutomaticThreadConfig`` (8.0.23+; sizes every
thread type from ``NumCPUs``), else ``ThreadConfig`` (each thread type named with its count), else
``MaxNoOfExecutionThreads`` (NDB's table of LDM/TC/send/recv counts). From 8.0.23 query threads
and recover threads restore LCP fragments beside the LDM threads (QRESTORE; reference §11).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from ndbsim.input.config.thread_config import CPU_KEYS, THREAD_TYPES, cpu_count, parse_thread_config

DEFAULT_COUNTS: dict[str, int] = {
    "main": 1,
    "ldm": 1,
    "recv": 1,
    "rep": 1,
    "io": 1,
    "watchdog": 1,
    "tc": 0,
    "send": 0,
    "idxbld": 0,
    "query": 0,
    "recover": 0,
}
"""Threads of a type ThreadConfig does not name: ``default_count`` of thr_config.cpp's ``m_entries``
(main, ldm, recv, rep, io and watchdog 1; tc, send, idxbld, query and recover 0)."""

MAX_COUNTS: dict[str, int] = {"main": 1, "rep": 1, "io": 1, "watchdog": 1, "idxbld": 1}
"""Thread types NDB allows at most one of (``m_entries`` max 1); io and watchdog threads ignore count."""

LDM_MAX = 332
"""LDM threads from 8.0.23: "1–332" (reference §8, [DOC-NDBD80]); also the query maximum there."""

LDM_COUNTS_CLASSIC = (1, 2, 4, 6, 8, 12, 16, 24, 32)
"""LDM counts NDB accepts before 8.0.23 (reference §8, [DOC-NDBD80])."""

EXEC_SMALL: tuple[tuple[int, int], ...] = ((0, 1), (4, 2), (7, 4))
"""MaxNoOfExecutionThreads below 9 -> LDM threads: 0–3 give 1, 4–6 give 2, 7–8 give 4, with no TC or
send thread and one receive thread (mt_thr_config.cpp; reference §8 rows 2–8, §11)."""

EXEC_TABLE_CLASSIC: tuple[tuple[int, int, int, int, int], ...] = (
    (12, 6, 2, 1, 1),
    (16, 8, 3, 1, 2),
    (24, 12, 5, 2, 3),
    (32, 16, 8, 3, 3),
    (48, 24, 12, 5, 5),
    (64, 32, 16, 7, 7),
    (72, 32, 20, 8, 10),
)
"""MaxNoOfExecutionThreads -> (LDM, TC, send, recv) before 8.0.23: the manual's table of
mt_thr_config.cpp's rows ([DOC-NDBD80]; reference §8). A value between two rows takes the lower row;
9–11 keep 8's 4 LDM threads (reference §11: 9 -> 4/2/0/1)."""

LDM_TABLE: tuple[tuple[int, int], ...] = ((2, 1), (4, 2), (8, 4), *((v, row[0]) for v, *row in EXEC_TABLE_CLASSIC))
"""MaxNoOfExecutionThreads -> LDM threads at the manual's sample rows (reference §8): the values a
lever tries (``levers``); ``from_max_execution_threads`` maps every value."""

EXEC_TABLE_9_ON = (
    (4, 2, 0, 1), (4, 2, 1, 1), (4, 3, 1, 1), (6, 2, 1, 1), (6, 3, 1, 1), (6, 3, 1, 2),
    (6, 3, 2, 2), (8, 3, 1, 2), (8, 4, 1, 2), (8, 4, 2, 2), (8, 5, 2, 2), (10, 4, 2, 2),
    (10, 5, 2, 2), (10, 5, 2, 3), (10, 6, 2, 3), (12, 5, 2, 3), (12, 6, 2, 3), (12, 6, 3, 3),
    (12, 7, 3, 3), (12, 7, 3, 4), (12, 8, 3, 4), (12, 8, 4, 4), (12, 9, 4, 4), (16, 7, 4, 3),
    (16, 7, 4, 4), (16, 8, 4, 4), (16, 9, 4, 4), (16, 10, 4, 4), (16, 10, 4, 5), (16, 11, 4, 5),
    (16, 12, 4, 5), (20, 10, 4, 4), (20, 10, 4, 5), (20, 11, 4, 5), (20, 11, 5, 5), (20, 12, 5, 5),
    (20, 12, 5, 6), (20, 13, 5, 6), (20, 14, 5, 6), (24, 11, 6, 5), (24, 11, 6, 6), (24, 12, 6, 6),
    (24, 13, 6, 6), (24, 14, 6, 6), (24, 14, 6, 7), (24, 15, 6, 7), (24, 16, 6, 7), (24, 17, 6, 7),
    (24, 18, 6, 8), (24, 19, 6, 8), (24, 17, 8, 8), (24, 18, 8, 8), (24, 18, 8, 9), (24, 19, 8, 9),
    (24, 19, 9, 9), (32, 15, 8, 7), (32, 15, 8, 8), (32, 16, 8, 8), (32, 17, 8, 8), (32, 18, 8, 8),
    (32, 18, 8, 9), (32, 19, 8, 9), (32, 20, 8, 9), (32, 20, 8, 10),
)  # fmt: skip
"""MaxNoOfExecutionThreads 9, 10, … 72 -> (LDM, TC, send, recv) from 8.0.23: every row of
``computeThreadConfig`` in thr_config.cpp (the file of the 1–332 LDM range; reference §11). It differs
from the older table at 20 (10 LDM), 32 (7 TC, 4 send), 40 (20 LDM), 48 and 64."""

AUTO_TABLE = (
    (0, 0, 0, 0, 0, 0, 1), (1, 0, 0, 0, 0, 0, 1), (1, 0, 1, 1, 0, 0, 1), (1, 0, 2, 2, 0, 0, 1),
    (1, 0, 2, 2, 1, 1, 1), (1, 0, 3, 3, 1, 1, 1), (1, 1, 3, 3, 2, 1, 1), (1, 1, 4, 4, 2, 1, 1),
    (1, 1, 4, 4, 2, 2, 2), (1, 1, 5, 5, 2, 2, 2), (1, 1, 5, 5, 3, 2, 3), (1, 1, 6, 6, 3, 2, 3),
    (1, 1, 6, 6, 4, 3, 3), (1, 1, 7, 7, 4, 3, 3), (1, 1, 8, 8, 4, 3, 3), (1, 1, 8, 8, 5, 3, 4),
    (1, 1, 9, 9, 5, 3, 4), (1, 1, 10, 10, 6, 4, 4), (1, 1, 12, 12, 6, 4, 4), (1, 1, 13, 13, 8, 4, 4),
    (1, 1, 14, 14, 8, 5, 5), (1, 1, 16, 16, 8, 5, 5), (1, 1, 17, 17, 9, 5, 6), (1, 1, 19, 19, 9, 5, 6),
    (1, 1, 20, 20, 10, 6, 6), (1, 1, 22, 22, 12, 7, 7), (1, 1, 25, 25, 12, 8, 8), (1, 1, 27, 27, 14, 9, 9),
    (1, 1, 30, 30, 15, 9, 10), (1, 1, 33, 33, 16, 10, 10), (1, 1, 36, 36, 17, 10, 11),
    (1, 1, 39, 39, 18, 11, 11), (1, 1, 42, 42, 19, 11, 12), (1, 1, 46, 46, 21, 12, 13),
    (1, 1, 50, 50, 23, 13, 14), (1, 1, 54, 54, 25, 14, 15), (1, 1, 58, 58, 27, 15, 16),
    (1, 1, 62, 62, 29, 16, 17), (1, 1, 66, 66, 31, 17, 18), (1, 1, 70, 70, 33, 18, 19),
    (1, 1, 74, 74, 35, 19, 20), (1, 1, 80, 80, 37, 20, 21),
)  # fmt: skip
"""AutomaticThreadConfig's table, map ids 0–41 (up to 255 used CPUs): (main, rep, ldm, query, tc,
send, recv) per row of ``compute_automatic_thread_config`` in thr_config.cpp (reference §11). From 256
used CPUs NDB's rows go on by 6 LDM and query threads per 16 CPUs (``AUTO_STEP``) up to 332."""

AUTO_MAP = (0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15)
"""Used CPUs 1–31 -> row of ``AUTO_TABLE`` (thr_config.cpp ``map_table``): a row per two CPUs."""

AUTO_MAP_FROM_32 = ((32, 16), (36, 17), (40, 18), (44, 19), (48, 20), (52, 21), (56, 22), (60, 23), (64, 24))
"""Used CPUs from 32 -> row: a row per four CPUs up to 63, then 64–71 -> 24 (``map_table``)."""

AUTO_MAP_FROM_72 = ((72, 25), (80, 26), (88, 27), (96, 28), (104, 29), (112, 30), (120, 31), (128, 32))
"""Used CPUs 72–139 -> rows 25–32, a row per eight CPUs, 128–139 -> 32 (``map_table``)."""

AUTO_MAP_FROM_140 = 140
"""From 140 used CPUs ``map_table`` gives a row per twelve CPUs (140 -> 33, … 240–255 -> 41)."""

AUTO_OVERHEAD_SHARE = 10
"""AutomaticThreadConfig leaves ``cpu_cnt / 10`` CPUs (integer division) for interrupts, the OS and the
I/O threads (thr_config.cpp: "we avoid using about 10% of the CPUs")."""


@dataclass(frozen=True)
class ThreadLayout:
    """The threads of one ndbmtd, by NDB's thread type (``ndbinfo.threads`` names them so)."""

    ldm: int = 1
    query: int = 0
    recover: int = 0
    """Recover-only threads: they exist while the node restores and restore LCP fragments."""
    tc: int = 0
    main: int = 1
    rep: int = 1
    recv: int = 1
    send: int = 0
    io: int = 1
    idxbld: int = 0
    watchdog: int = 1
    source: str = "MaxNoOfExecutionThreads"
    """Which setting gave the layout (for ``ndbsim params`` and warnings)."""
    requested: int = 0
    """Threads the setting asks for: MaxNoOfExecutionThreads' own value (its small rows fold main and
    rep into the others), else 0 for ``execution_threads``."""

    @property
    def ldm_workers(self) -> int:
        """LDM block instances (DBLQH, DBTUP, BACKUP, RESTORE, … workers): one per LDM thread, and with
        no LDM thread one, run in the receive thread ("One worker instance of ldm blocks run in main
        or recv thread", thr_config.cpp ``compute_automatic_thread_config``; ``threads == 0`` gives
        ``workers = 1`` in Configuration.cpp ``setupConfiguration``). AutomaticThreadConfig gives no
        LDM thread on 1–3 CPUs."""
        return max(1, self.ldm)

    @property
    def restore_threads(self) -> int:
        """Threads that restore LCP fragments, one fragment each at a time: the LDM workers, and from
        8.0.23 the query threads (QRESTORE) and recover threads ("the LDM threads is also used as
        recover thread", thr_config.cpp; NDB internals manual, RESTORE block; reference §11)."""
        return self.ldm_workers + self.query + self.recover

    @property
    def execution_threads(self) -> int:
        """Threads that run all the time: main, rep, ldm, query, tc, recv and send (``m_entries``'
        exec-thread column; io, watchdog, idxbld and recover threads are not)."""
        return self.main + self.rep + self.ldm + self.query + self.tc + self.recv + self.send

    def counts(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "source"}

    def describe(self) -> str:
        """``ldm 8, query 0, …`` in NDB's type order."""
        c = self.counts()
        return ", ".join(f"{t} {c[t]}" for t in THREAD_TYPES)


# -- layouts --------------------------------------------------------------------------------


def from_thread_config(text: str) -> ThreadLayout:
    """The layout a ThreadConfig string asks for: each entry adds ``count`` threads of its type (else
    as many as its cpubind/cpuset list names, else one); types not named keep ``DEFAULT_COUNTS``."""
    named: dict[str, int] = {}
    for kind, props in parse_thread_config(text):
        if "count" in props:
            n = int(props["count"])
        else:
            cpus = next((props[k] for k in CPU_KEYS if k in props and k.startswith("cpubind")), None)
            n = cpu_count(cpus) if cpus is not None else 1
        named[kind] = named.get(kind, 0) + n
    counts = {**DEFAULT_COUNTS, **named}
    for kind, most in MAX_COUNTS.items():
        counts[kind] = min(counts[kind], most)
    counts["io"] = counts["watchdog"] = 1  # NDB ignores their count (thr_config.cpp m_entries)
    return ThreadLayout(**counts, source="ThreadConfig")


def from_max_execution_threads(value: int, any_ldm_count: bool) -> ThreadLayout:
    """MaxNoOfExecutionThreads -> LDM, TC, send and recv threads, one main and one rep thread."""
    if value < 9:
        ldm = max(n for lo, n in EXEC_SMALL if value >= lo)
        tc, send, recv = 0, 0, 1
    elif any_ldm_count:
        ldm, tc, send, recv = EXEC_TABLE_9_ON[min(value, 72) - 9]
    else:
        ldm, tc, send, recv = 4, 2, 0, 1
        for threshold, *row in EXEC_TABLE_CLASSIC:
            if value >= threshold:
                ldm, tc, send, recv = row
    return ThreadLayout(
        ldm=ldm, tc=tc, send=send, recv=recv, source=f"MaxNoOfExecutionThreads={value}", requested=value
    )


def _auto_row(used: int) -> tuple[int, ...]:
    if used <= 31:
        return AUTO_TABLE[AUTO_MAP[used - 1]]
    if used < 72:
        return AUTO_TABLE[max(r for lo, r in AUTO_MAP_FROM_32 if used >= lo)]
    if used < AUTO_MAP_FROM_140:
        return AUTO_TABLE[max(r for lo, r in AUTO_MAP_FROM_72 if used >= lo)]
    if used < 256:
        return AUTO_TABLE[min(41, 33 + (used - AUTO_MAP_FROM_140) // 12)]
    step = min(83, 42 + (used - 256) // 16) - 42
    main, rep, ldm, query, tc, send, recv = 1, 1, 86 + 6 * step, 86 + 6 * step, 39 + 2 * step, 21 + step, 22 + step
    return main, rep, ldm, query, tc, send, recv


def automatic(num_cpus: int) -> ThreadLayout:
    """AutomaticThreadConfig with ``NumCPUs`` CPUs: leave a tenth for the OS, read the row for the
    rest, and add recover-only threads so that LDM, query and recover threads make one per CPU
    (``compute_automatic_thread_config`` and ``do_parse`` in thr_config.cpp; reference §11)."""
    cpus = max(1, num_cpus)
    used = max(1, cpus - cpus // AUTO_OVERHEAD_SHARE)
    main, rep, ldm, query, tc, send, recv = _auto_row(used)
    recover_total = cpus - (ldm + query) - (1 if ldm == 0 else 0)
    recover_only = max(0, recover_total - query)
    return ThreadLayout(
        ldm=ldm,
        query=query,
        recover=recover_only,
        tc=tc,
        main=main,
        rep=rep,
        recv=recv,
        send=send,
        idxbld=1,  # "We add an index build thread" (do_parse)
        source=f"AutomaticThreadConfig, NumCPUs={num_cpus}",
    )


def ignored_settings(given: Mapping[str, Any], query_threads: bool) -> dict[str, str]:
    """The thread settings among ``given`` (the config.ini parameters a scenario sets) that NDB
    ignores, each with the setting that overrides it, in ``layout``'s order: AutomaticThreadConfig
    (8.0.23+) "overrides any settings for ThreadConfig and MaxNoOfExecutionThreads" (manual, NDB 8.0
    parameters added; ``THRConfig::do_parse(realtime, spintime, num_cpus, …)`` computes every count
    from the CPUs), and a ThreadConfig overrides MaxNoOfExecutionThreads."""
    out: dict[str, str] = {}
    auto = query_threads and bool(given.get("AutomaticThreadConfig"))
    text = str(given.get("ThreadConfig") or "").strip()
    if auto and text:
        out["ThreadConfig"] = "AutomaticThreadConfig=true"
    if "MaxNoOfExecutionThreads" in given and (auto or text):
        out["MaxNoOfExecutionThreads"] = "AutomaticThreadConfig=true" if auto else "ThreadConfig"
    return out


def single_threaded() -> ThreadLayout:
    """ndbd (5.1, 6.2/6.3): one thread runs every block."""
    return ThreadLayout(ldm=1, main=0, rep=0, recv=0, source="ndbd (single-threaded)")


def layout(cfg: dict, multithreaded: bool, query_threads: bool, host_threads: int) -> ThreadLayout:
    """The layout NDB derives from a node's resolved config.ini parameters. ``query_threads``: the release
    has 8.0.23's thread model (AutomaticThreadConfig, query and recover threads, any LDM count).
    ``host_threads`` stands for NumCPUs=0, where NDB counts the host's CPUs itself."""
    if not multithreaded:
        return single_threaded()
    if query_threads and cfg.get("AutomaticThreadConfig"):
        return automatic(cfg.get("NumCPUs") or host_threads)
    text = cfg.get("ThreadConfig") or ""
    if text.strip():
        t = from_thread_config(text)
        if not query_threads:  # before 8.0.23 no query or recover thread restores anything
            t = ThreadLayout(**{**t.counts(), "query": 0, "recover": 0}, source=t.source)
        return t
    return from_max_execution_threads(int(cfg.get("MaxNoOfExecutionThreads") or 0), query_threads)


NEW_IN_8023 = ("query", "recover")
"""Thread types NDB's ThreadConfig parser knows only from 8.0.23 (thr_config.cpp ``m_parse_entries``;
the 8.0.23 release notes): an older data node refuses an entry naming them as an unknown type."""


def refused_types(text: str, query_threads: bool) -> str | None:
    """Why a release without 8.0.23's thread model refuses this ThreadConfig string, or None."""
    if query_threads or not text.strip():
        return None
    named = sorted({kind for kind, _ in parse_thread_config(text)} & set(NEW_IN_8023))
    if not named:
        return None
    return (
        f"names {' and '.join(named)} threads, which NDB has only from 8.0.23 (older data nodes refuse the "
        "entry as an unknown thread type)"
    )


def check_layout(t: ThreadLayout, query_threads: bool) -> str | None:
    """Why NDB would refuse this layout, with the fix; None if it starts."""
    if not query_threads and t.ldm not in LDM_COUNTS_CLASSIC:
        counts = ", ".join(map(str, LDM_COUNTS_CLASSIC))
        return f"gives {t.ldm} LDM threads; before NDB 8.0.23 the count must be one of {counts}"
    if t.ldm == 0 and not (t.tc == 0 and t.query == 0 and t.recv == 1 and t.main + t.rep <= 1):
        return (
            "gives no LDM thread, which NDB allows only with no query, tc or rep thread, at most one main and "
            "one recv thread (the LDM worker then runs in the receive thread; Configuration.cpp); name "
            "ldm={count=1} or more, or drop the others (rep={count=0})"
        )
    if t.ldm > LDM_MAX:
        return f"gives {t.ldm} LDM threads; NDB allows 0 to {LDM_MAX}"
    if t.query > LDM_MAX:
        return f"gives {t.query} query threads; NDB allows 0 to {LDM_MAX}"
    return None


def oversubscribed(t: ThreadLayout, hw_threads: int) -> str | None:
    """A warning when the always-running threads outnumber the host's hardware threads: NDB starts, but
    the threads share cores (ndbsim counts what the cores give, ``core_equivalents``)."""
    asked = t.requested or t.execution_threads
    if asked > hw_threads:
        return (
            f"the thread layout ({t.source}: {threads_text(t)}) asks for more threads "
            f"than the host's {hw_threads} hardware threads; they share cores, so fewer threads or a larger "
            "host (host.cpu_cores) would restart no slower"
        )
    return None


def threads_text(t: ThreadLayout) -> str:
    """A layout's threads as a DBA counts a ThreadConfig's entries: ``52 threads of which 4 recover,
    running only while the node restores``; io, watchdog and index-build threads are not counted
    (NDB gives each type one thread whatever its count, thr_config.cpp ``m_entries``)."""
    if t.requested:
        return f"{t.requested} execution threads"
    if not t.recover:
        return f"{t.execution_threads} execution threads"
    total = t.execution_threads + t.recover
    return f"{total} threads of which {t.recover} recover, running only while the node restores"


def ldm_threads(max_execution_threads: int, thread_config: str = "", multithreaded: bool = True) -> int:
    """LDM instances for a data node before 8.0.23 (``layout`` gives the whole layout)."""
    cfg = {"MaxNoOfExecutionThreads": max_execution_threads, "ThreadConfig": thread_config}
    return layout(cfg, multithreaded, query_threads=False, host_threads=1).ldm


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
