"""Speed figures for ndbsim, run by hand: ``python benchmarks/bench.py [--quick] [--profile]``.

ndbsim is measured against two anchors of the same restart (``anchors.py``): a toy SimPy model
with ndbsim's process structure, and the closed-form arithmetic. Times are given as ratios to
them, each measured in alternation with ndbsim in one process, as the least CPU time of several
rounds (on a shared machine wall time drifts by tens of percent within a minute, and other
processes' load inflates it; the least CPU time is the cost of the work itself). Prints:
  * the default 2-node node restart through ``ndbsim.simulate``: ratio to the toy and to the
    closed form (and the engine alone, ``run_resolved`` on a resolved scenario)
  * rolling restarts of 4 to 144 nodes, idle and under 1M updates/s: ratio to the toy at each
    size, and the growth exponent of time and events in the node count (fit of log t on log N)
  * events per restart at 1 GB and at 16 TB
  * sweep throughput (scenario-runs/s) for 10,000 node restarts, serial and on 2 workers
  * whole-process medians of ``ndbsim --help`` and ``ndbsim run`` (cold start)
  * memory: of one restart, of the sweeps, of ``ndbsim run`` at a small and a large ``-n``
  * ``ndbsim eta``'s re-prediction of a 24-node rolling restart per snapshot (``eta_speed.py``)
  * what the predictive interval adds to ``run``'s default output (``interval_speed.py``)
against the targets of issue 18 (and issue 33's for eta). ``--profile`` adds a cProfile of the 144-node loaded restart.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np
import simpy
from anchors import closed_form, toy_restart
from eta_speed import line as eta_line
from eta_speed import measure as eta_measure
from interval_speed import line as interval_line
from interval_speed import measure as interval_measure

import ndbsim
from ndbsim.input import scenario as sc
from ndbsim.models.simulate import run_resolved
from ndbsim.studies.sweep import sweep

SWEEP_FACTORS = {"data.size": {"low": "1GB", "high": "60GB"}}
"""The sweep's one factor: data.size drawn uniformly from 1GB to 60GB (random mode; 60 GB is seed
003's size). A benchmark choice: 10,000 points (1,000 with --quick), each resolved and run once."""

SWEEP_BASE = {**sc.DEFAULT_SCENARIO, "data": {**sc.DEFAULT_SCENARIO["data"], "rows": None}}
"""The sweep's base: the default scenario (2-node node restart, seed 003 on 7.6.6) with
``data.rows`` cleared, so each point's row count follows its size (size / ``Data.row_size``)."""

NODE_COUNTS = (4, 8, 16, 36, 72, 144)
"""Cluster sizes of the growth fit (even: two replicas per node group)."""

LOADED_UPDATES = 1e6
"""Cluster-wide updates per second of the loaded rolling restarts (issue 18's figure)."""

TARGETS = {
    "default_vs_toy": 2.5,
    "rolling144_vs_toy": 2.0,
    "growth": 1.2,
    "sweep_runs_per_s": 2_500,
    "help_secs": 0.15,
    "cold_start_secs": 0.5,
}
"""Issue 18's done-when figures."""


def rolling(nodes: int, loaded: bool) -> list[str]:
    """A rolling restart of every node of an 8.0.30 cluster of ``nodes``, idle or under
    ``LOADED_UPDATES`` (a REDO log large enough that the small clusters do not overload)."""
    sets = [
        "version=8.0.30",
        "data.rows=null",
        "restart.type=rolling",
        "restart.nodes=null",
        f"cluster.data_nodes={nodes}",
        "workload.during_restart=null",
        "cluster.config.NoOfFragmentLogFiles=1000",
    ]
    if loaded:
        return [*sets, f"workload.updates_per_s={LOADED_UPDATES:g}"]
    return [
        *sets,
        "workload.updates_per_s=0",
        "workload.inserts_per_s=0",
        "workload.deletes_per_s=0",
        "workload.before_restart=null",
    ]


def alternate(work: dict[str, Callable[[int], object]], rounds: int, repeat: int = 1) -> dict[str, float]:
    """Least CPU seconds per call of each of ``work``, the callables run in turn ``rounds`` times
    (``repeat`` calls each, seeds 1, 2, ...), so that all see the same machine."""
    times: dict[str, list[float]] = {k: [] for k in work}
    for fn in work.values():  # warm caches and imports
        fn(0)
    seed = 0
    for _ in range(rounds):
        for k, fn in work.items():
            t = time.process_time()
            for i in range(repeat):
                fn(seed + i + 1)
            times[k].append((time.process_time() - t) / repeat)
        seed += repeat
    return {k: min(v) for k, v in times.items()}


def cpu_self_and_children() -> float:
    """CPU seconds (user + system) used so far by this process and its finished children."""
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def anchors_of(overrides: list[str] | None) -> dict[str, Callable[[int], object]]:
    """ndbsim through ``simulate``, its engine alone, the toy and the closed form, for one scenario."""
    resolved = sc.load(None, overrides or [])
    plan = closed_form(resolved)
    ov = overrides or []
    return {
        "ndbsim": lambda seed: ndbsim.simulate(overrides=ov, seed=seed, replications=1),
        "engine": lambda seed: run_resolved(resolved, seed=seed, replications=1),
        "toy": lambda seed: toy_restart(plan),
        "closed": lambda seed: closed_form(resolved),
    }


def growth(xs: list[float], ys: list[float]) -> float:
    """Exponent b of y ~ a x^b, least squares on the logs."""
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


def events_at(overrides: list[str]) -> tuple[int, str]:
    r = run_resolved(sc.load(None, overrides), seed=1, replications=1)
    return r.first.events, r.status


def sweep_rate(n: int, workers: int) -> tuple[float, float, float, int]:
    """(wall seconds, runs/s, CPU seconds per run over all processes, runs not ok)."""
    cpu = cpu_self_and_children()
    t = time.perf_counter()
    df = sweep(
        SWEEP_BASE, SWEEP_FACTORS, mode="random", samples=n, replications=1, seed=1, workers=workers, progress=False
    )
    dt = time.perf_counter() - t
    return dt, n / dt, (cpu_self_and_children() - cpu) / n, int((df["status"] != "ok").sum())


def whole_process(args: list[str], k: int = 7) -> tuple[float, float]:
    """Median wall time and median CPU time of ``ndbsim ARGS`` as a new process (the installed
    script, else -m), with ndbsim's compiled modules cached as Python does on any machine that does
    not set PYTHONDONTWRITEBYTECODE (one run first fills the cache). Where it is set, every start
    compiles ndbsim's source again: about 0.06-0.11 s more here."""
    import resource

    exe = shutil.which("ndbsim", path=os.path.dirname(sys.executable)) or shutil.which("ndbsim")
    cmd = [exe, *args] if exe else [sys.executable, "-m", "ndbsim", *args]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    wall, cpu = [], []
    for _ in range(k):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env=env)
        wall.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return statistics.median(wall), statistics.median(cpu)


def bare_python(k: int = 7) -> tuple[float, float]:
    """Median wall and CPU time of ``python -c pass``: the floor of any whole-process figure."""
    import resource

    wall, cpu = [], []
    for _ in range(k):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        wall.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return statistics.median(wall), statistics.median(cpu)


def restart_memory() -> float:
    """Peak bytes Python allocates while simulating one default restart (tracemalloc)."""
    import tracemalloc

    resolved = sc.load(None)
    run_resolved(resolved, seed=1, replications=1)  # imports and caches first
    tracemalloc.start()
    run_resolved(resolved, seed=2, replications=1)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def peak_rss_mib() -> tuple[float, float]:
    """Peak resident memory of this process and of its largest child (sweep worker), MiB."""
    import resource

    kib = 1024.0 if sys.platform != "darwin" else 1024.0 * 1024.0  # ru_maxrss: KiB on Linux, bytes on macOS
    return (
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / kib,
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / kib,
    )


RUN_MEMORY_N = (200, 20_000)
"""The ``-n`` of the two ``ndbsim run`` processes whose peak RSS the memory row compares (the
second 2,000 with --quick); issue 36's target: the larger within 1.5x the smaller + 50 MiB."""


RUN_RSS_PROBE = """
import sys
from pathlib import Path
from ndbsim.cli.app import main
try:
    main(["run", "-n", sys.argv[1], "-o", sys.argv[2]])
except SystemExit as e:
    assert not e.code, e.code
status = Path("/proc/self/status")
if status.exists():  # the high-water mark of this program, not of the process it was forked from
    print(next(line.split()[1] for line in status.read_text().splitlines() if line.startswith("VmHWM")))
else:
    import resource
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // (1024 if sys.platform == "darwin" else 1))
"""
"""Runs ``ndbsim run -n N`` and prints its peak resident memory in KiB."""


def run_rss_mib(n: int) -> float:
    """Peak resident memory of ``ndbsim run -n N`` (the default scenario) as a new process, MiB."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [sys.executable, "-c", RUN_RSS_PROBE, str(n), os.path.join(tmp, "r.json")],
            check=True,
            capture_output=True,
            text=True,
        )
    return int(out.stdout.split()[-1]) / 1024


def ok(flag: bool) -> str:
    return "met" if flag else "MISSED"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="1,000-run sweeps and fewer rounds")
    ap.add_argument("--profile", action="store_true", help="cProfile the 144-node loaded rolling restart")
    ap.add_argument("--eta", action="store_true", help="only the eta row (24-node rolling restart)")
    ap.add_argument("--interval", action="store_true", help="only the predictive interval's row (run's output)")
    a = ap.parse_args()
    if a.eta:
        print(eta_line(eta_measure()))
        return
    if a.interval:
        print(interval_line(interval_measure()))
        return
    n_sweep = 1_000 if a.quick else 10_000
    rounds = 5 if a.quick else 11

    print(f"ndbsim benchmark  python {sys.version.split()[0]}  simpy {simpy.__version__}  cores {os.cpu_count()}")

    # -- the default restart against its anchors --------------------------------------------
    work = anchors_of(None)
    m = alternate(work, rounds, repeat=20)
    ev = run_resolved(sc.load(None), seed=1, replications=1).first.events
    toy_ev = toy_restart(closed_form(sc.load(None)))[1]
    print(
        f"default 2-node node restart (CPU): ndbsim.simulate {m['ndbsim'] * 1e3:.3f} ms = "
        f"{m['ndbsim'] / m['toy']:.2f}x the toy ({m['toy'] * 1e3:.3f} ms), "
        f"{m['ndbsim'] / m['closed']:.0f}x the closed form "
        f"({m['closed'] * 1e6:.0f} us) [target <= {TARGETS['default_vs_toy']}x the toy: "
        f"{ok(m['ndbsim'] <= TARGETS['default_vs_toy'] * m['toy'])}]"
    )
    print(
        f"  engine alone (run_resolved): {m['engine'] * 1e3:.3f} ms = {m['engine'] / m['toy']:.2f}x the toy, so "
        f"resolving the scenario costs {(m['ndbsim'] - m['engine']) * 1e3:.3f} ms; events: ndbsim {ev}, toy {toy_ev}"
    )

    # -- rolling restarts, 4 to 144 nodes -----------------------------------------------------
    for loaded in (False, True):
        label = f"under {LOADED_UPDATES / 1e6:g}M updates/s" if loaded else "idle"
        rows = []
        for n in NODE_COUNTS:
            ov = rolling(n, loaded)
            w = anchors_of(ov)
            del w["engine"]
            med = alternate(w, 3 if n >= 72 else 5, repeat=1 if n >= 36 else 4)
            r = run_resolved(sc.load(None, ov), seed=1, replications=1)
            plan = closed_form(sc.load(None, ov))
            toy_secs, toy_ev = toy_restart(plan)
            rows.append((n, med, r, toy_ev, plan.total, toy_secs))
        print(f"rolling restart of N nodes (8.0.30), {label} (CPU ms):")
        print("      N   ndbsim ms   toy ms   ratio  closed us   events  toy events   restart s (ndbsim/toy/closed)")
        for n, med, r, toy_ev, total, toy_secs in rows:
            print(
                f"  {n:5d} {med['ndbsim'] * 1e3:11.2f} {med['toy'] * 1e3:8.2f} {med['ndbsim'] / med['toy']:6.2f}x "
                f"{med['closed'] * 1e6:9.0f} {r.first.events:8d} {toy_ev:11d}   "
                f"{r.first.total_restart_secs:.0f}/{toy_secs:.0f}/{total:.0f} ({r.status})"
            )
        ns = [float(x[0]) for x in rows]
        g_nd = growth(ns, [x[1]["ndbsim"] for x in rows])
        g_toy = growth(ns, [x[1]["toy"] for x in rows])
        g_ev = growth(ns, [float(x[2].first.events) for x in rows])
        print(
            f"  growth in N ({label}): ndbsim time N^{g_nd:.2f}, toy time N^{g_toy:.2f}, ndbsim events "
            f"N^{g_ev:.2f} [target time <= N^{TARGETS['growth']}: {ok(g_nd <= TARGETS['growth'])}]"
        )
        if loaded:
            big = rows[-1][1]
            ratio = big["ndbsim"] / big["toy"]
            print(
                f"  144-node rolling restart {label}: {ratio:.2f}x the toy "
                f"[target <= {TARGETS['rolling144_vs_toy']}x: {ok(ratio <= TARGETS['rolling144_vs_toy'])}]"
            )

    # -- events against data size -------------------------------------------------------------
    for load, extra in (("default load", []), ("idle cluster", ["workload.before_restart=null"])):
        sizes = (
            ["data.size=1GB", "data.rows=null"],
            ["data.size=16TB", "data.rows=null", "cluster.config.DataMemory=16T"],
        )
        counts = [events_at(size + extra) for size in sizes]
        print(
            f"events per default restart, {load}: 1 GB {counts[0][0]} ({counts[0][1]}), "
            f"16 TB {counts[1][0]} ({counts[1][1]})"
        )
    counts = [
        events_at([*rolling(4, True), f"data.size={s}", f"cluster.config.DataMemory={m}"])
        for s, m in (("1GB", "2G"), ("16TB", "16T"))
    ]
    print(
        f"events per 4-node rolling restart under {LOADED_UPDATES / 1e6:g}M updates/s: 1 GB {counts[0][0]} "
        f"({counts[0][1]}), 16 TB {counts[1][0]} ({counts[1][1]})"
    )

    # -- sweeps, the command line, memory ------------------------------------------------------
    for workers in (1, 2):
        dt, rate, cpu, bad = sweep_rate(n_sweep, workers)
        verdict = (
            f"target >= {TARGETS['sweep_runs_per_s']:,} runs/s on 2 workers: {ok(rate >= TARGETS['sweep_runs_per_s'])}"
            if workers == 2
            else "serial, for scale"
        )
        print(
            f"sweep of {n_sweep:,} node restarts, {workers} worker{'s' if workers > 1 else ''}: {dt:.2f} s, "
            f"{rate:,.0f} runs/s ({bad} not ok) [{verdict}]; {cpu * 1e3:.3f} CPU ms per run over all processes, "
            f"so {workers / cpu:,.0f} runs/s on {workers} idle core{'s' if workers > 1 else ''}"
        )
    print(eta_line(eta_measure()))
    main_mib, worker_mib = peak_rss_mib()
    print(
        f"memory: one restart allocates at most {restart_memory() / 1024:.0f} KiB; peak RSS over the sweeps: "
        f"{main_mib:.0f} MiB here, {worker_mib:.0f} MiB in the largest worker"
    )
    small, big = RUN_MEMORY_N[0], (2_000 if a.quick else RUN_MEMORY_N[1])
    small_mib, big_mib = run_rss_mib(small), run_rss_mib(big)
    print(
        f"memory of ndbsim run: peak RSS {small_mib:.0f} MiB at -n {small:,}, {big_mib:.0f} MiB at -n {big:,} "
        f"[target <= 1.5x + 50 MiB: {ok(big_mib <= 1.5 * small_mib + 50)}]"
    )
    floor, floor_cpu = bare_python()
    hs, hs_cpu = whole_process(["--help"])
    cs, cs_cpu = whole_process(["run"])
    print(
        f"ndbsim --help: median {hs:.3f} s of 7 (CPU {hs_cpu:.3f} s) "
        f"[target <= {TARGETS['help_secs']} s: {ok(hs <= TARGETS['help_secs'])}]"
    )
    print(
        f"ndbsim run (cold start): median {cs:.3f} s of 7 (CPU {cs_cpu:.3f} s) "
        f"[target <= {TARGETS['cold_start_secs']} s: {ok(cs <= TARGETS['cold_start_secs'])}]"
    )
    print(f"  python -c pass: median {floor:.3f} s (CPU {floor_cpu:.3f} s), the floor of both")

    if a.profile:
        import cProfile
        import pstats

        resolved = sc.load(None, rolling(144, True))
        prof = cProfile.Profile()
        prof.enable()
        run_resolved(resolved, seed=1, replications=1)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
