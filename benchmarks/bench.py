"""Speed figures for ndbsim, run by hand: ``python benchmarks/bench.py [--quick] [--profile]``.

Prints, for this machine:
  * median wall time of one 2-node node restart (default scenario, resolved once, run_resolved)
  * events per restart at 1 GB and at 16 TB
  * bare SimPy event rate, and ndbsim's event rate as a share of it; SimPy's own share of
    ndbsim's time (sampled), and the rate ndbsim could reach with no model work at all
  * sweep throughput (scenario-runs/s) for 10,000 node restarts, serial and on 2 workers
  * CLI cold start of ``ndbsim run`` (subprocess, median of 5)
against the targets of issue 4. ``--profile`` adds a cProfile of a serial 2,000-run sweep.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

import simpy

from ndbsim import scenario as sc
from ndbsim.simulate import run_resolved
from ndbsim.sweep import sweep

SWEEP_FACTORS = {"data.size": {"low": "1GB", "high": "60GB"}}
"""The sweep's one factor: data.size drawn uniformly from 1GB to 60GB (random mode; 60 GB is seed
003's size). A benchmark choice: 10,000 points (1,000 with --quick), each resolved and run once."""

ROLLING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenarios", "rolling-4-nodes-8.0.yaml")
"""The shipped 4-node 8.0 rolling restart under load, for the events-vs-data-size line."""

SWEEP_BASE = {**sc.DEFAULT_SCENARIO, "data": {**sc.DEFAULT_SCENARIO["data"], "rows": None}}
"""The sweep's base: the default scenario (2-node node restart, seed 003 on 7.6.6) with
``data.rows`` cleared, so each point's row count follows its size (size / ``Data.row_size``)."""


def per_restart(n: int) -> tuple[float, int]:
    resolved = sc.load(None)
    run_resolved(resolved, seed=1, replications=1)  # warm caches
    times = []
    events = 0
    for i in range(n):
        t = time.perf_counter()
        r = run_resolved(resolved, seed=i + 1, replications=1)
        times.append(time.perf_counter() - t)
        events = r.first.events
    return statistics.median(times), events


def events_at(overrides: list[str]) -> tuple[int, float, str]:
    resolved = sc.load(None, overrides)
    t = time.perf_counter()
    r = run_resolved(resolved, seed=1, replications=1)
    return r.first.events, time.perf_counter() - t, r.status


def bare_simpy_rate(n: int = 300_000) -> float:
    env = simpy.Environment()

    def loop():
        for _ in range(n):
            yield env.timeout(1.0)

    env.process(loop())
    t = time.perf_counter()
    env.run()
    dt = time.perf_counter() - t
    return next(env._eid) / dt


def event_rates(rounds: int = 7) -> tuple[float, float]:
    """Median bare SimPy and ndbsim event rates, measured in alternation so that both see the
    same machine (a shared VM's speed drifts by tens of percent within a minute)."""
    bare, mine = [], []
    for _ in range(rounds):
        bare.append(bare_simpy_rate(100_000))
        med, ev = per_restart(100)
        mine.append(ev / med)
    return statistics.median(bare), statistics.median(mine)


SAMPLE_PERIOD = 1e-3
"""Seconds between samples of the running frame in ``simpy_share`` (a 1 kHz wall-clock timer;
a benchmark choice: fine enough for a few thousand samples in two seconds, cheap enough not to
slow the run it samples)."""


def simpy_share(work) -> float | None:
    """Share of ``work()``'s time spent in SimPy's own code, found by sampling the running Python
    frame every ``SAMPLE_PERIOD`` (SIGALRM; None where there is no ``setitimer``, e.g. Windows).
    C calls count towards the Python frame that made them. A rough figure: on a loop with known
    model work it reads a few points high, and py-spy puts ndbsim's SimPy share a few points lower."""
    import signal

    if not hasattr(signal, "setitimer"):
        return None
    simpy_dir = os.path.dirname(os.path.abspath(simpy.__file__)) + os.sep
    hits = [0, 0]

    def sample(signum, frame) -> None:
        hits[frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(simpy_dir)] += 1

    old = signal.signal(signal.SIGALRM, sample)
    signal.setitimer(signal.ITIMER_REAL, SAMPLE_PERIOD, SAMPLE_PERIOD)
    try:
        work()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
        signal.signal(signal.SIGALRM, old)
    return hits[1] / sum(hits) if sum(hits) else None


def simpy_shares() -> tuple[float | None, float | None]:
    """SimPy's share of the bare loop (a check of the sampler) and of ndbsim's restarts."""
    resolved = sc.load(None)
    run_resolved(resolved, seed=1, replications=1)

    def restarts() -> None:
        for i in range(1_000):
            run_resolved(resolved, seed=i + 1, replications=1)

    return simpy_share(lambda: bare_simpy_rate(1_000_000)), simpy_share(restarts)


def sweep_rate(n: int, workers: int) -> tuple[float, float, int]:
    t = time.perf_counter()
    df = sweep(
        SWEEP_BASE, SWEEP_FACTORS, mode="random", samples=n, replications=1, seed=1, workers=workers, progress=False
    )
    dt = time.perf_counter() - t
    return dt, n / dt, int((df["status"] != "ok").sum())


def cold_start(k: int = 5) -> float:
    exe = shutil.which("ndbsim", path=os.path.dirname(sys.executable)) or shutil.which("ndbsim")
    cmd = [exe, "run"] if exe else [sys.executable, "-m", "ndbsim", "run"]
    times = []
    for _ in range(k):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def restart_memory() -> float:
    """Peak bytes Python allocates while simulating one restart (tracemalloc)."""
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


def ok(flag: bool) -> str:
    return "met" if flag else "MISSED"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="1,000-run sweeps instead of 10,000")
    ap.add_argument("--profile", action="store_true", help="cProfile a serial 2,000-run sweep")
    a = ap.parse_args()
    n_sweep = 1_000 if a.quick else 10_000

    print(f"ndbsim benchmark  python {sys.version.split()[0]}  simpy {simpy.__version__}  cores {os.cpu_count()}")
    med, ev = per_restart(500)
    print(
        f"one 2-node node restart (default scenario): median {med * 1e3:.3f} ms, {ev} events "
        f"[target <= 2 ms: {ok(med <= 2e-3)}]"
    )
    for load, extra in (("default load", []), ("idle cluster", ["workload.before_restart=null"])):
        for label, ov in (
            ("1 GB", ["data.size=1GB", "data.rows=null"]),
            ("16 TB", ["data.size=16TB", "data.rows=null", "cluster.config.DataMemory=16T"]),
        ):
            e, dt, status = events_at(ov + extra)
            print(f"events per restart at {label:>5}, {load}: {e} ({dt * 1e3:.2f} ms, status {status})")
    print(
        "  (no event per row, page or byte; identical LCP cycles are skipped by arithmetic, so under load "
        "the count follows the restart's steps, and fewer LCPs fit in the pre-restart burst as they lengthen)"
    )
    rolling = []
    for size, mem in (("1GB", "2G"), ("16TB", "16T")):
        r = run_resolved(
            sc.load(
                ROLLING,
                [f"data.size={size}", f"cluster.config.DataMemory={mem}", "cluster.config.NoOfFragmentLogFiles=1000"],
            ),
            seed=1,
            replications=1,
        )
        rolling.append((r.first.events, int(r.first.checkpoint["lcps_simulated"])))
    print(
        f"events per 4-node rolling restart under load: 1 GB {rolling[0][0]} ({rolling[0][1]} LCPs), "
        f"16 TB {rolling[1][0]} ({rolling[1][1]} LCPs)"
    )
    big = [
        "version=8.0.30",
        "data.rows=null",
        "restart.type=rolling",
        "restart.nodes=null",
        "cluster.data_nodes=64",
        "workload.updates_per_s=1e6",
        "workload.during_restart=null",
    ]
    e, dt, status = events_at(big)
    print(
        f"a 64-node rolling restart under load (8.0, 1M updates/s): {e:,} events, {dt * 1e3:.0f} ms, status {status} "
        "(events grow with the nodes restarted, not with data)"
    )
    bare, mine = event_rates()
    print(
        f"bare SimPy event rate: {bare:,.0f} events/s; ndbsim: {mine:,.0f} events/s = {100 * mine / bare:.0f}% "
        f"of bare [target >= 50%: {ok(mine >= 0.5 * bare)}]"
    )
    print(f"  per event: ndbsim {1e6 / mine:.2f} us, bare SimPy {1e6 / bare:.2f} us")
    bare_share, own_share = simpy_shares()
    if own_share and bare_share:
        simpy_us = 1e6 * own_share / mine
        print(
            f"  SimPy's own code per event (sampled): ndbsim {simpy_us:.2f} us ({100 * own_share:.0f}% of its time), "
            f"bare loop {1e6 * bare_share / bare:.2f} us ({100 * bare_share:.0f}%); so with no model work at all "
            f"ndbsim would reach at most about {100 * (mine / bare) / own_share:.0f}% of bare"
        )
    limit = 10 * n_sweep / 10_000
    for workers in (1, 2):
        dt, rate, bad = sweep_rate(n_sweep, workers)
        # the target is for this machine, i.e. both cores; one worker is shown for scale
        verdict = f"target < {limit:g} s on 2 cores: {ok(dt < limit)}" if workers == 2 else "serial, for scale"
        print(
            f"sweep of {n_sweep:,} node restarts, {workers} worker{'s' if workers > 1 else ''}: {dt:.2f} s, "
            f"{rate:,.0f} runs/s ({bad} not ok) [{verdict}]"
        )
    main_mib, worker_mib = peak_rss_mib()
    print(
        f"memory: one restart allocates at most {restart_memory() / 1024:.0f} KiB; peak RSS over the sweeps: "
        f"{main_mib:.0f} MiB here, {worker_mib:.0f} MiB in the largest worker"
    )
    cs = cold_start()
    print(f"CLI cold start, ndbsim run: median {cs:.3f} s of 5 [target <= 1 s: {ok(cs <= 1.0)}]")

    if a.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
        sweep(SWEEP_BASE, SWEEP_FACTORS, mode="random", samples=2_000, seed=2, workers=1, progress=False)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
