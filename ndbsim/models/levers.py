"""The levers ``ndbsim advise`` tries: what an operator can change about one restart, and the
candidate values of each, as ``--set`` strings.

A lever is a config.ini parameter that acts on this restart (by NDB's name), the release
(``version``), a host resource (``host.*``) or an operational choice (the update rate while the
node restarts, the downtime before it starts again). Candidates stay inside NDB's ranges
(``config_params.PARAMS``) and the scenario model's field limits; LCP write speeds stop at the
host's disk write rate, as no checkpoint writes faster than the disk. Parameters the version does
not have (``profiles.unused_params``) are no levers there, nor are those that cannot act on this
restart type (TwoPassInitialNodeRestartCopy outside an initial restart, HeartbeatIntervalDbDb
without a crash to detect).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ndbsim.errors import InputError, did_you_mean
from ndbsim.input.config.params import PARAMS, G, M
from ndbsim.input.config.thread_config import with_count
from ndbsim.input.profiles import parse_version, unused_params
from ndbsim.input.scenario.model import Resolved
from ndbsim.input.threads import LDM_TABLE, from_thread_config, ldm_threads
from ndbsim.input.units import exact_size_text, format_count

SPEED_FACTORS = (0.5, 2.0, 4.0)
"""Multiples of the current value tried for write speeds, REDO sizes and host resources: half,
double and four times, the steps an operator would try first (ndbsim's choice, not NDB's)."""
NEWER_RELEASES = ("7.6.7", "8.0.35")
"""Releases offered as the "newer release" lever when newer than the scenario's: 7.6.7, the first
7.6 with EnableRedoControl and RecoveryWork 60 ([RN767], reference §2.3), and 8.0.35, the
8.0 release of the upgrade plan in this project's issue list."""
RECOVERY_WORK_VALUES = (25, 40, 60, 80, 100)
"""RecoveryWork values tried: NDB's range ends (25–100, reference §2.3) and three between, 40
and 60 being the two the manual discusses ([DOC-NDBD80])."""
BUILD_INDEX_THREADS_VALUES = (0, 8, 16, 128)
"""BuildIndexThreads values tried: 0 (rebuild on the LDM threads, 7.5's default), two fixed
pool sizes and 128 (7.6's default, reference §6)."""
WRITE_SPEED_LEVERS = (
    "MinDiskWriteSpeed",
    "MaxDiskWriteSpeed",
    "MaxDiskWriteSpeedOtherNodeRestart",
    "MaxDiskWriteSpeedOwnRestart",
    "DiskCheckpointSpeed",
    "DiskCheckpointSpeedInRestart",
)
"""The LCP write-speed parameters advise tries, 7.4+ (adaptive speed) and older
(DiskCheckpointSpeed): each at ``SPEED_FACTORS`` of its value, within its bounds and the disk."""


CONFIG_INI_KINDS = ("config",)
"""Lever kinds a DBA changes in config.ini (a parameter of [ndbd default], thread settings
included) and applies with a rolling restart; the others (``release``, ``host``,
``operations``) need new software, new hardware or the applications' cooperation, so advise
ranks them in a list of their own and leaves them out of the best combination unless asked."""


def in_config_ini(kind: str) -> bool:
    """Whether a lever of ``kind`` is a config.ini parameter (``CONFIG_INI_KINDS``)."""
    return kind in CONFIG_INI_KINDS


@dataclass(frozen=True)
class Candidate:
    """One value of a lever: how it is shown and the ``--set`` strings that apply it."""

    lever: str
    value: str
    sets: tuple[str, ...]


@dataclass(frozen=True)
class Lever:
    """A lever: its name, its kind (config, release, host, operations) and its candidates."""

    name: str
    kind: str
    current: str
    candidates: tuple[Candidate, ...]


def _bits_text(x: float) -> str:
    """A network rate (bytes/s) as decimal bits per second, as scenarios write it."""
    return f"{x * 8 / 1e9:g}Gbit/s"


def _count_text(x: float) -> str:
    """A count or an event rate as advise shows it: ``1.5M``, ``200K``, ``500`` (``format_count``)."""
    return format_count(x)


def _exact_count(x: float) -> str:
    """A count or an event rate as a ``--set`` value that reads back exactly (``1500000``; a
    shown ``1.5M`` is rounded to three figures)."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _scaled(current: float, lo: float, hi: float, step: float = M) -> list[float]:
    """``SPEED_FACTORS`` × current, kept inside [lo, hi] and rounded to ``step``."""
    out: list[float] = []
    for f in SPEED_FACTORS:
        v = max(lo, min(hi, round(current * f / step) * step))
        if v != current and v not in out:
            out.append(v)
    return out


def _param_levers(r: Resolved) -> list[Lever]:
    """The config.ini levers of this version and restart."""
    cfg, s, mech = r.config, r.scenario, r.profile.mechanisms
    lacking = set(unused_params(mech))
    if not mech.partial_lcp_available or not cfg["EnablePartialLcp"]:
        lacking |= {"RecoveryWork", "InsertRecoveryWork"}
    if s.restart.type != "initial":
        lacking.add("TwoPassInitialNodeRestartCopy")
    if s.restart.cause != "crash":
        lacking.add("HeartbeatIntervalDbDb")
    if not mech.multithreaded or cfg["ThreadConfig"] or (mech.query_threads and cfg["AutomaticThreadConfig"]):
        lacking.add("MaxNoOfExecutionThreads")  # AutomaticThreadConfig overrides it (8.0.23 manual)
    disk = s.host.disk_write
    ldm = ldm_threads(cfg["MaxNoOfExecutionThreads"], cfg["ThreadConfig"], mech.multithreaded)
    hw = s.host.cpu_cores * s.host.threads_per_core
    values: dict[str, list[str]] = {}
    for name in WRITE_SPEED_LEVERS:
        lo, hi = PARAMS[name].lo or M, min(disk, PARAMS[name].hi or disk)
        if name == "MinDiskWriteSpeed":  # the adaptive speed moves between Min and Max (reference §2.4)
            hi = min(hi, cfg["MaxDiskWriteSpeed"])
        elif name == "MaxDiskWriteSpeed":
            lo = max(lo, cfg["MinDiskWriteSpeed"])
        values[name] = [exact_size_text(v) for v in _scaled(cfg[name], lo, hi)]
    values["RecoveryWork"] = [str(v) for v in RECOVERY_WORK_VALUES if v != cfg["RecoveryWork"]]
    values["BuildIndexThreads"] = [str(v) for v in BUILD_INDEX_THREADS_VALUES if v != cfg["BuildIndexThreads"]]
    copy_now = min(ldm, cfg["MaxParallelCopyInstances"]) if cfg["MaxParallelCopyInstances"] else ldm
    values["MaxParallelCopyInstances"] = [
        str(v) for v in dict.fromkeys((1, max(1, ldm // 2), 0)) if (min(ldm, v) if v else ldm) != copy_now
    ]
    rows = [t for t, n in LDM_TABLE if n <= hw]
    lower = [t for t, n in LDM_TABLE if n < ldm]
    higher = [t for t in rows if ldm_threads(t, "", True) > ldm]
    values["MaxNoOfExecutionThreads"] = [str(t) for t in dict.fromkeys([*lower[-1:], *higher[:1], *higher[-1:]])]
    files = cfg["NoOfFragmentLogFiles"]
    values["NoOfFragmentLogFiles"] = [
        _exact_count(v) for v in _scaled(files, PARAMS["NoOfFragmentLogFiles"].lo or 3, 2**31, 1)
    ]
    p = PARAMS["FragmentLogFileSize"]
    values["FragmentLogFileSize"] = [
        exact_size_text(v) for v in _scaled(cfg["FragmentLogFileSize"], p.lo or M, p.hi or G)
    ]
    tblcp = cfg["TimeBetweenLocalCheckpoints"]
    values["TimeBetweenLocalCheckpoints"] = [str(v) for v in (tblcp - 4, tblcp - 2, tblcp + 2) if 0 <= v <= 31]
    values["EnableRedoControl"] = ["false" if cfg["EnableRedoControl"] else "true"]
    values["TwoPassInitialNodeRestartCopy"] = ["false" if cfg["TwoPassInitialNodeRestartCopy"] else "true"]
    hb = cfg["HeartbeatIntervalDbDb"]
    values["HeartbeatIntervalDbDb"] = [str(v) for v in dict.fromkeys((max(10, hb // 2), max(10, hb // 4))) if v != hb]
    out = []
    for name, vals in values.items():
        if name in lacking or not vals:
            continue
        current = cfg[name]
        shown = exact_size_text(current) if PARAMS[name].kind in ("size", "rate") else str(current).lower()
        cands = tuple(Candidate(name, v, (f"cluster.config.{name}={v}",)) for v in vals)
        out.append(Lever(name, "config", shown, cands))
    return out


def _thread_levers(r: Resolved) -> list[Lever]:
    """AutomaticThreadConfig on or off (8.0.23+), NumCPUs while it is on (the host's hardware
    threads, its cores, half of them), and the LDM count of a ThreadConfig the cluster uses (half
    and double). MaxNoOfExecutionThreads is a config lever of its own (``_param_levers``)."""
    cfg, s, mech = r.config, r.scenario, r.profile.mechanisms
    if not mech.multithreaded:
        return []
    hw = s.host.cpu_cores * s.host.threads_per_core
    out = []
    auto = bool(mech.query_threads and cfg["AutomaticThreadConfig"])
    if mech.query_threads:
        v = "false" if auto else "true"
        switch = Candidate("AutomaticThreadConfig", v, (f"cluster.config.AutomaticThreadConfig={v}",))
        out.append(Lever("AutomaticThreadConfig", "config", str(auto).lower(), (switch,)))
    if auto:
        now = cfg["NumCPUs"] or hw  # 0: NDB counts the host's CPUs (thr_config.cpp)
        vals = [n for n in dict.fromkeys((hw, s.host.cpu_cores, max(1, hw // 2))) if n != now]
        cands = tuple(Candidate("NumCPUs", str(n), (f"cluster.config.NumCPUs={n}",)) for n in vals)
        if cands:
            out.append(Lever("NumCPUs", "config", str(cfg["NumCPUs"]), cands))
    text = str(cfg["ThreadConfig"] or "")
    if text.strip() and not auto:
        ldm = from_thread_config(text).ldm
        vals = [n for n in dict.fromkeys((max(1, ldm // 2), 2 * ldm)) if n != ldm]
        cands = tuple(
            Candidate("ThreadConfig", f"ldm {n}", (f"cluster.config.ThreadConfig={with_count(text, 'ldm', n)}",))
            for n in vals
        )
        out.append(Lever("ThreadConfig", "config", f"ldm {ldm}", cands))
    return out


def _release_lever(r: Resolved) -> list[Lever]:
    now = parse_version(r.scenario.version)
    newer = [v for v in NEWER_RELEASES if parse_version(v) > now]
    if not newer:
        return []
    cands = tuple(Candidate("version", v, (f"version={v}",)) for v in newer)
    return [Lever("version", "release", r.scenario.version, cands)]


def _host_levers(r: Resolved) -> list[Lever]:
    h = r.scenario.host
    out = []
    cores = [c for c in dict.fromkeys(min(1024, int(h.cpu_cores * f)) for f in SPEED_FACTORS[1:]) if c != h.cpu_cores]
    if cores:
        cands = tuple(Candidate("host.cpu_cores", str(c), (f"host.cpu_cores={c}",)) for c in cores)
        out.append(Lever("host.cpu_cores", "host", str(h.cpu_cores), cands))
    for key, now in (("disk_read", h.disk_read), ("disk_write", h.disk_write)):
        vals = [exact_size_text(now * f) for f in SPEED_FACTORS[1:]]
        cands = tuple(Candidate(f"host.{key}", v, (f"host.{key}={v}",)) for v in vals)
        out.append(Lever(f"host.{key}", "host", exact_size_text(now), cands))
    vals = [_bits_text(h.network * f) for f in SPEED_FACTORS[1:]]
    cands = tuple(Candidate("host.network", v, (f"host.network={v}",)) for v in vals)
    out.append(Lever("host.network", "host", _bits_text(h.network), cands))
    return out


def restart_update_rate(r: Resolved) -> float:
    """Updates per second (cluster-wide) while the node restarts: ``during_restart`` or the steady rate."""
    w = r.scenario.workload
    during = w.during_restart.updates_per_s if w.during_restart else None
    return w.updates_per_s if during is None else during


def _operations_levers(r: Resolved) -> list[Lever]:
    s = r.scenario
    out = []
    ups = restart_update_rate(r)
    if ups > 0 and s.restart.type != "system":
        key = "workload.during_restart.updates_per_s"
        cands = tuple(Candidate(key, _count_text(v), (f"{key}={_exact_count(v)}",)) for v in (ups / 2, 0.0))
        out.append(Lever(key, "operations", _count_text(ups), cands))
    if s.restart.downtime > 0:
        key = "restart.downtime"
        vals = dict.fromkeys((s.restart.downtime / 2, 0.0))
        cands = tuple(Candidate(key, f"{v:g}s", (f"{key}={v:g}s",)) for v in vals)
        out.append(Lever(key, "operations", f"{s.restart.downtime:g}s", cands))
    return out


LEVER_KINDS: tuple[tuple[str, Callable[[Resolved], list[Lever]]], ...] = (
    ("config", _param_levers),
    ("threads", _thread_levers),
    ("release", _release_lever),
    ("host", _host_levers),
    ("operations", _operations_levers),
)
"""The lever families, in the order advise lists levers with equal savings."""

ALL_LEVERS = (
    "RecoveryWork",
    *WRITE_SPEED_LEVERS,
    "BuildIndexThreads",
    "MaxParallelCopyInstances",
    "MaxNoOfExecutionThreads",
    "AutomaticThreadConfig",
    "NumCPUs",
    "ThreadConfig",
    "NoOfFragmentLogFiles",
    "FragmentLogFileSize",
    "TimeBetweenLocalCheckpoints",
    "EnableRedoControl",
    "TwoPassInitialNodeRestartCopy",
    "HeartbeatIntervalDbDb",
    "version",
    "host.cpu_cores",
    "host.disk_read",
    "host.disk_write",
    "host.network",
    "workload.during_restart.updates_per_s",
    "restart.downtime",
)
"""Every lever advise knows, by name (``--lever`` takes these)."""


INNODB_LEVERS = (
    "server.innodb_log_file_size",
    "server.buffer_pool_size",
    "storage.read_iops",
    "storage.write_iops",
    "storage.seq_read",
)
"""The levers of an InnoDB crash recovery (``kind: innodb``, seed 002): the redo log's size
(less log to scan and apply), the buffer pool, and the storage's random and sequential rates."""


def innodb_levers(s: Any) -> list[Lever]:
    """The InnoDB recovery levers of a scenario (an ``InnodbScenario``): half and double the
    redo log file and the buffer pool (my.cnf settings: kind ``config``), double and four times
    the storage's rates (hardware: kind ``host``)."""
    out = []
    sv, st = s.server, s.storage
    for key, now, factors, text in (
        ("server.innodb_log_file_size", sv.innodb_log_file_size, (0.5, 2.0), exact_size_text),
        ("server.buffer_pool_size", sv.buffer_pool_size, (0.5, 2.0), exact_size_text),
        ("storage.read_iops", st.read_iops, SPEED_FACTORS[1:], _count_text),
        ("storage.write_iops", st.write_iops, SPEED_FACTORS[1:], _count_text),
        ("storage.seq_read", st.seq_read, SPEED_FACTORS[1:], exact_size_text),
    ):
        exact = exact_size_text if text is exact_size_text else _exact_count
        vals = {
            text(v): exact(v)
            for v in (round(now * f / M) * M if exact is exact_size_text else now * f for f in factors)
        }
        cands = tuple(Candidate(key, v, (f"{key}={x}",)) for v, x in vals.items() if v != text(now))
        if cands:
            out.append(Lever(key, "config" if key.startswith("server.") else "host", text(now), cands))
    return out


def _pick(found: list[Lever], only: list[str] | tuple[str, ...], known: tuple[str, ...], what: str) -> list[Lever]:
    """The levers named in ``only`` (all of ``found`` if none), or a one-line error."""
    wanted: list[str] = []
    for name in only:
        canon = next((x for x in known if x.lower() == str(name).lower()), None)
        if canon is None:
            raise InputError(
                f"{name!r} is not a lever{did_you_mean(str(name), known)}; use one of {', '.join(known)}",
                field="--lever",
            )
        wanted.append(canon)
    if not wanted:
        return found
    by_name = {lv.name: lv for lv in found}
    for name in wanted:
        if name not in by_name:
            raise InputError(f"{name} does not act on this scenario ({what}); choose another lever", field="--lever")
    return [by_name[n] for n in dict.fromkeys(wanted)]


def innodb_levers_for(s: Any, only: list[str] | tuple[str, ...] = ()) -> list[Lever]:
    """``innodb_levers``, limited to ``only`` (names from ``INNODB_LEVERS``)."""
    return _pick(innodb_levers(s), only, INNODB_LEVERS, "an InnoDB recovery")


def levers_for(r: Resolved, only: list[str] | tuple[str, ...] = ()) -> list[Lever]:
    """The levers of this scenario (those named in ``only``, if given), each with its candidates.

    A name advise does not know is an input error; a known lever this scenario lacks (its
    version has no such parameter, or it cannot act on this restart) is one too when named.
    """
    found = [lever for _, make in LEVER_KINDS for lever in make(r)]
    what = f"{r.scenario.version}, {r.scenario.restart.type} restart, or no value to try"
    return _pick(found, only, ALL_LEVERS, what)
