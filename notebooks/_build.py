"""Write the operator notebooks (clean, without outputs): ``python notebooks/_build.py``.

The notebooks are the deliverable; this script only keeps their source in one reviewable
place. Edit here and re-run, or edit the .ipynb files directly.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

PARAMS = '''import os

# Parameters: NDBSIM_NOTEBOOK_SMALL=1 (the test suite) shrinks grids and replications so the
# whole notebook runs in a few seconds; leave it unset for the full figures.
SMALL = os.environ.get("NDBSIM_NOTEBOOK_SMALL") == "1"'''

IMPORTS = '''import matplotlib.pyplot as plt
from _common import GiB, MiB, PHASE_GROUPS, GROUP_COLORS, SCENARIOS, default_scenario, \\
    grouped_phases, pct, size_overrides, files_per_unit, ndbsim, np, pd

pd.set_option("display.width", 140)
pd.set_option("display.precision", 1)'''

CAVEATS = '''**Caveats.** ndbsim is a model, calibrated against a handful of published blog timings
(seeds 000–004; see `calibration/` and the scenario files' comments), not measurements of your
hardware. Trust the *shape* of the curves and the ratios between versions and settings more
than the absolute seconds; re-run with your own host, data and `config.ini`
(`ndbsim run --config-ini`) before planning a maintenance window on these numbers.'''


def nb(cells):
    book = new_notebook(cells=cells)
    book.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    book.metadata["language_info"] = {"name": "python"}
    return book


NOTEBOOKS = {}

# ---------------------------------------------------------------------------------------
NOTEBOOKS["01_restart_time_vs_data_size.ipynb"] = nb([
    new_markdown_cell('''# How long does a node restart take as my data grows — and what did 7.6 change?

**Question.** An operator with a 2-node, 2-replica cluster asks how long a node restart takes
for 10 GB … 2 TB of data per data node, on 7.5 (full LCP), 7.6 and 8.0 (partial LCP), and
which phase dominates.

**Set-up.** The built-in default scenario (DBT2-like schema, 200-byte rows, 8 cores with
hyperthreading, 16 execution threads, 1 GB/s read / 500 MB/s write disk, 10 Gbit/s,
`MaxDiskWriteSpeed=100M`, 64 × 256M REDO files) with a steady 5,000 updates/s of 200 B. Data
per node is varied with `data.size` (rows derived from the size, `DataMemory` = 1.25 × data).
Each point is many replications: where the restart lands in the live node's LCP cycle is
random, which is what the p5–p95 band shows.'''),
    new_code_cell(PARAMS),
    new_code_cell(IMPORTS),
    new_code_cell('''VERSIONS = ["7.5.10", "7.6.6", "8.0.35"]
SIZES_GB = [10, 100, 500, 2048] if SMALL else [10, 25, 50, 100, 200, 300, 500, 750, 1024, 1536, 2048]
REPS = 5 if SMALL else 40
UPDATES_PER_S = 5000

base = default_scenario()
rows = []
for version in VERSIONS:
    for gb in SIZES_GB:
        r = ndbsim.simulate(base, overrides=[f"version={version}", *size_overrides(gb),
                                             f"workload.updates_per_s={UPDATES_PER_S}"],
                            replications=REPS, seed=42)
        row = {"version": version, "data_gb": gb, "status": r.status,
               "total_s": r.total_restart_secs, "p5_s": pct(r.totals, 5), "p95_s": pct(r.totals, 95)}
        row.update(grouped_phases(r))
        rows.append(row)
df = pd.DataFrame(rows)
df[["version", "data_gb", "status", "total_s", "p5_s", "p95_s"]]'''),
    new_code_cell('''fig, axes = plt.subplots(1, len(VERSIONS), figsize=(16, 5.5))
groups = list(PHASE_GROUPS)
for ax, version in zip(axes, VERSIONS):
    d = df[df.version == version].sort_values("data_gb")
    x = d.data_gb.to_numpy()
    ax.stackplot(x, *[d[g].to_numpy() / 3600 for g in groups], labels=groups,
                 colors=[GROUP_COLORS[g] for g in groups], alpha=0.85)
    ax.fill_between(x, d.p5_s / 3600, d.p95_s / 3600, color="black", alpha=0.15,
                    label="total, p5–p95 over replications")
    ax.plot(x, d.total_s / 3600, color="black", lw=1.5, label="total (median)")
    bad = d[d.status != "ok"]
    if len(bad):
        ax.scatter(bad.data_gb, bad.total_s / 3600, marker="x", color="red", s=80, zorder=5,
                   label="status ≠ ok (e.g. redo-overload)")
    ax.set_xscale("log")
    ax.set_title(f"NDB {version}")
    ax.set_xlabel("data per data node (GiB, log scale)")
    ax.grid(alpha=0.3)
axes[0].set_ylabel("node restart time (hours)")
handles, labels = axes[0].get_legend_handles_labels()
for ax in axes[1:]:
    for h, l in zip(*ax.get_legend_handles_labels()):
        if l not in labels:
            handles.append(h); labels.append(l)
fig.suptitle(f"Node restart time by phase vs data per node ({UPDATES_PER_S:,} updates/s of 200 B, "
             "2 nodes, 2 replicas; note the different y scales)")
fig.tight_layout(rect=(0, 0.14, 1, 1))
fig.legend(handles, labels, loc="lower center", ncol=5, frameon=False, bbox_to_anchor=(0.5, 0.0))
plt.show()'''),
    new_code_cell('''fig, ax = plt.subplots(figsize=(8, 5))
for version, marker in zip(VERSIONS, "osD"):
    d = df[df.version == version].sort_values("data_gb")
    ax.plot(d.data_gb, d.total_s / 60, marker=marker, label=f"{version} median")
    ax.fill_between(d.data_gb, d.p5_s / 60, d.p95_s / 60, alpha=0.2, label=f"{version} p5–p95")
ax.set_xscale("log"); ax.set_yscale("log")
ax.set_xlabel("data per data node (GiB, log scale)")
ax.set_ylabel("total node restart time (minutes, log scale)")
ax.set_title("Total node restart time vs data size, by version")
ax.grid(alpha=0.3, which="both")
ax.legend()
plt.show()

wide = df.pivot(index="data_gb", columns="version", values="total_s") / 60
wide["7.5 / 7.6 ratio"] = wide["7.5.10"] / wide["7.6.6"]
print("median total, minutes")
wide.round(1)'''),
    new_code_cell('''# Which phase dominates at the largest size?
big = df[df.data_gb == max(SIZES_GB)].set_index("version")[groups] / 60
print(f"minutes per phase group at {max(SIZES_GB)} GiB per node")
big.T.round(1)'''),
    new_code_cell('''w = df.pivot(index="data_gb", columns="version", values="total_s") / 60
for gb in [10, 100, 500, 2048]:
    if gb in w.index:
        print(f"{gb:>5} GiB: " + ", ".join(f"{v} {w.loc[gb, v]:.1f} min" for v in VERSIONS)
              + f"  (7.5 is {w.loc[gb, VERSIONS[0]] / w.loc[gb, VERSIONS[1]]:.1f}x 7.6)")
bad = df[df.status != "ok"]
print("not ok:", ", ".join(f"{r.version} at {r.data_gb} GiB: {r.status}" for r in bad.itertuples()) or "none")'''),
    new_markdown_cell('''**Answer** (numbers from the full grid when this notebook was written; the printed summary above is recomputed on every run and wins if the model has changed). Restart time grows linearly with data. On 7.5 the wait for the
local checkpoint dominates (a full LCP of all data at the write speed, then another): ~3.5 min
at 10 GiB, ~33 min at 100 GiB, ~2.7 h at 500 GiB and ~11 h at 2 TiB, with a wide p5–p95 band
because the wait depends on where the restart lands in the running LCP. On 7.6/8.0 the partial
LCP removes most of that wait: ~1 min at 10 GiB, ~8 min at 100 GiB, ~38 min at 500 GiB and
~2.5 h at 2 TiB (≈4× faster than 7.5 from 100 GiB up), now dominated by the LCP restore and
the ordered-index rebuild, with a narrow band. 7.6.6 and 8.0.35 come out identical: the model
gives them the same mechanisms. At 2 TiB the 7.5 run is flagged `redo-overload`: 64 × 256M
REDO files cannot cover several multi-hour full LCPs (see notebook 03).

''' + CAVEATS + ''' The memory-touch phase scales with `DataMemory`, which is set here to
1.25 × data; the 2 TiB points assume a host with that much RAM and the same 8 cores.'''),
])

# ---------------------------------------------------------------------------------------
NOTEBOOKS["02_recovery_work_tradeoff.ipynb"] = nb([
    new_markdown_cell('''# RecoveryWork: faster restore, or less checkpoint writing and disk?

**Question.** In 7.6+ the partial LCP keeps several generations of LCP files per fragment.
`RecoveryWork` (25–100, default 50) sets how much extra: a high value writes fewer/smaller
checkpoints (less disk write load during normal operation) but keeps more LCP files, so a
restart reads more data and the files need more disk space — roughly
**(1 + RecoveryWork/100) × DataMemory** (reference manual). What is the trade-off?

**Set-up.** The default scenario (60 GB per node, `DataMemory=100G`, 10 Gbit/s,
`MaxDiskWriteSpeed=100M`) under a steady 20,000 updates/s of 200 B, node restart, for 7.6.6
and 8.0.35. `lcp_bytes`/`lcp_secs` are one steady-state LCP on a live node; the write volume
per hour is `lcp_bytes / lcp_cycle_secs`.'''),
    new_code_cell(PARAMS),
    new_code_cell(IMPORTS),
    new_code_cell('''VERSIONS = ["7.6.6", "8.0.35"]
RECOVERY_WORK = [25, 50, 75, 100] if SMALL else list(range(25, 101, 5))
REPS = 3 if SMALL else 20
UPDATES_PER_S = 20000
DATA_MEMORY_GIB = 100

base = default_scenario()
rows = []
for version in VERSIONS:
    for rw in RECOVERY_WORK:
        r = ndbsim.simulate(base, overrides=[f"version={version}", f"cluster.config.RecoveryWork={rw}",
                                             f"cluster.config.DataMemory={DATA_MEMORY_GIB}G",
                                             f"workload.updates_per_s={UPDATES_PER_S}"],
                            replications=REPS, seed=7)
        ph = r.phases()
        cps = [rep.checkpoint for rep in r.replications]
        lcp_bytes = np.median([c["lcp_bytes"] for c in cps])
        cycle = np.median([c["lcp_cycle_secs"] for c in cps])
        rows.append({
            "version": version, "RecoveryWork": rw, "status": r.status,
            "total_s": r.total_restart_secs, "p5_s": pct(r.totals, 5), "p95_s": pct(r.totals, 95),
            "restore_s": ph["secs_restore_fragments"], "redo_s": ph["secs_exec_redo_log"],
            "wait_lcp_s": ph["secs_wait_lcp_for_restart"],
            "lcp_secs": np.median([c["lcp_secs"] for c in cps]),
            "lcp_gib": lcp_bytes / GiB,
            "lcp_write_gib_per_h": lcp_bytes / cycle * 3600 / GiB if cycle else np.nan,
            "lcp_disk_gib": (1 + rw / 100) * DATA_MEMORY_GIB,
        })
df = pd.DataFrame(rows)
df'''),
    new_code_cell('''fig, axes = plt.subplots(2, 2, figsize=(13, 9))
styles = {"7.6.6": dict(marker="o", ls="-"), "8.0.35": dict(marker="x", ls="--")}
ax2 = axes[0, 1].twinx()
for version in VERSIONS:
    d = df[df.version == version]
    st = styles[version]
    ax = axes[0, 0]
    ax.plot(d.RecoveryWork, d.restore_s / 60, label=f"{version} restore LCP", color="C0", **st)
    ax.plot(d.RecoveryWork, d.wait_lcp_s / 60, label=f"{version} wait for LCP", color="C3", **st)
    ax.plot(d.RecoveryWork, d.total_s / 60, label=f"{version} total (median)", color="k", **st)
    ax.fill_between(d.RecoveryWork, d.p5_s / 60, d.p95_s / 60, color="k", alpha=0.08)
    ax = axes[0, 1]
    ax.plot(d.RecoveryWork, d.lcp_gib, label=f"{version} bytes per LCP", color="C2", **st)
    ax2.plot(d.RecoveryWork, d.lcp_secs, label=f"{version} seconds per LCP", color="C1", **st)
    axes[1, 0].plot(d.RecoveryWork, d.lcp_write_gib_per_h, label=version, color="C4", **st)
    axes[1, 1].plot(d.lcp_disk_gib, d.restore_s / 60, label=version, color="C0", **st)
axes[0, 0].set(title="Restart time vs RecoveryWork", xlabel="RecoveryWork (%)", ylabel="minutes")
axes[0, 0].legend(fontsize=8)
axes[0, 1].set(title="One steady-state LCP on a live node\\n(duration = size ÷ write speed: the curves overlap)",
               xlabel="RecoveryWork (%)",
               ylabel="LCP size (GiB written per LCP)")
ax2.set_ylabel("LCP duration (seconds)")
h1, l1 = axes[0, 1].get_legend_handles_labels(); h2, l2 = ax2.get_legend_handles_labels()
axes[0, 1].legend(h1 + h2, l1 + l2, fontsize=8)
axes[1, 0].set(title="Checkpoint write volume during normal operation", xlabel="RecoveryWork (%)",
               ylabel="LCP writes (GiB per hour)")
axes[1, 0].legend()
ax = axes[1, 1]
d = df[df.version == VERSIONS[0]]
for _, row in d.iterrows():
    ax.annotate(f"{row.RecoveryWork:g}", (row.lcp_disk_gib, row.restore_s / 60), fontsize=8,
                xytext=(3, 3), textcoords="offset points")
ax.set(title="Trade-off: restore time vs LCP disk space (labels: RecoveryWork)",
       xlabel=f"disk space for LCP files ≈ (1 + RecoveryWork/100) × DataMemory (GiB, DataMemory={DATA_MEMORY_GIB}G)",
       ylabel="LCP restore time (minutes)")
ax.legend()
for a in axes.flat:
    a.grid(alpha=0.3)
fig.suptitle(f"RecoveryWork trade-off ({UPDATES_PER_S:,} updates/s of 200 B, 60 GB per node)")
fig.tight_layout()
plt.show()'''),
    new_code_cell('''d = df[df.version == "7.6.6"].set_index("RecoveryWork")
a, b = d.index.min(), d.index.max()
print(f"RecoveryWork {a} -> {b}: restore {d.restore_s[a]:.0f} s -> {d.restore_s[b]:.0f} s "
      f"({d.restore_s[b] / d.restore_s[a] - 1:+.0%}), LCP writes {d.lcp_write_gib_per_h[a]:.0f} -> "
      f"{d.lcp_write_gib_per_h[b]:.0f} GiB/h ({d.lcp_write_gib_per_h[b] / d.lcp_write_gib_per_h[a] - 1:+.0%}), "
      f"LCP disk {d.lcp_disk_gib[a]:.0f} -> {d.lcp_disk_gib[b]:.0f} GiB, total restart "
      f"{d.total_s[a] / 60:.1f} -> {d.total_s[b] / 60:.1f} min")'''),
    new_markdown_cell('''**Answer** (numbers from the full grid when this notebook was written; the printed summary above is recomputed on every run and wins if the model has changed). Raising RecoveryWork from 25 to 100 makes the LCP restore ~30%
slower (≈2.1 → 2.8 min here) and needs 1.6× the disk for LCP files (125 → 200 GiB for
`DataMemory=100G`), in exchange for writing ~60% less checkpoint data during normal operation
(≈83 → 31 GiB/hour at this load). The total restart time is almost flat (≈5.3–5.7 min) and not
monotonic: a low RecoveryWork restores faster, but the node then waits longer for its own LCP
at the end. The model's LCP size moves in steps (e.g. 55–95 give the same LCP), so
intermediate values buy nothing there. 7.6.6 and 8.0.35 give the same numbers.

''' + CAVEATS + ''' The disk-space line is the manual's rule of thumb, not a simulated
figure; the REDO apply is near zero because LCPs are short at this load.'''),
])

# ---------------------------------------------------------------------------------------
NOTEBOOKS["03_redo_log_sizing.ipynb"] = nb([
    new_markdown_cell('''# How many REDO log files do I need?

**Question.** The REDO log must hold every change made since the start of the oldest LCP
still needed for recovery; if it fills, NDB aborts transactions with error 410 (REDO log
overloaded). How large must `NoOfFragmentLogFiles` be for a given write rate and checkpoint
disk write speed (`DiskCheckpointSpeed` on 5.1, `MaxDiskWriteSpeed` on 7.4+)?

**Seed 004's rule of thumb** (Johan Andersson, 2007, section “Configuring the disk”): the log
must cover ~3 LCPs, 4 with headroom, so

> NoOfFragmentLogFiles = write rate × 4 × LCP time / 64 MB

with LCP time ≈ data in `DataMemory` / `DiskCheckpointSpeed` (8 GB at 10 MB/s ≈ 820 s; 1 MB/s
gives 52 files). One “file” there is 4 × `FragmentLogFileSize` (16M) = 64 MB; below the rule
is converted to each case's actual bytes per `NoOfFragmentLogFiles` step (all log parts).

**Set-up.** (a) 5.1, seed 004's hardware, 8 GB of data, full LCPs; (b) 8.0.35, default
scenario (60 GB per node, partial LCP, 64 × 256M files). The write rate is
`workload.updates_per_s × bytes_per_change` (512 B). The model's REDO figure is
`redo_bytes_needed` (steady state) and `redo_peak_bytes` (including a node restart). Points
marked ✕ overload the configured log (status `redo-overload` or needed > capacity).'''),
    new_code_cell(PARAMS),
    new_code_cell(IMPORTS),
    new_code_cell('''RATES_MB = [0.5, 2, 8, 32] if SMALL else [0.25, 0.5, 1, 2, 4, 8, 16, 32, 64]
BYTES_PER_CHANGE = 512
CASES = {
    "5.1, 8 GB, DiskCheckpointSpeed": dict(
        base=str(SCENARIOS / "mysql51-1gb-onr-idle.yaml"),
        extra=["data.size=8G", "data.rows=null", "cluster.config.DataMemory=10G"],
        key="DiskCheckpointSpeed", speeds=[5, 10, 40] if SMALL else [5, 10, 20, 40]),
    "8.0.35, 60 GB, MaxDiskWriteSpeed": dict(
        base=default_scenario(), extra=["version=8.0.35"],
        key="MaxDiskWriteSpeed", speeds=[20, 100] if SMALL else [20, 50, 100, 200]),
}
rows = []
for case, c in CASES.items():
    for speed in c["speeds"]:
        for mb in RATES_MB:
            ups = mb * MiB / BYTES_PER_CHANGE
            r = ndbsim.simulate(c["base"], overrides=[*c["extra"], f"cluster.config.{c['key']}={speed}M",
                                                      f"workload.updates_per_s={ups:.0f}",
                                                      f"workload.bytes_per_change={BYTES_PER_CHANGE}B"],
                                replications=1, seed=3)
            cp = r.first.checkpoint
            n_files = r.scenario["cluster"]["config"]["NoOfFragmentLogFiles"]
            unit = files_per_unit(cp, n_files)
            data = r.scenario["data"]["size"]
            lcp_time_seed = data / (speed * MiB)            # seed 004: data / write speed
            rows.append({
                "case": case, "speed_mb": speed, "rate_mb": mb, "status": r.status,
                "lcp_secs": cp["lcp_secs"], "lcp_gib": cp["lcp_bytes"] / GiB,
                "files_configured": n_files, "mib_per_file": unit / MiB,
                "files_needed": cp["redo_bytes_needed"] / unit,
                "files_needed_peak": cp["redo_peak_bytes"] / unit,
                "overload": r.status == "redo-overload" or cp["redo_bytes_needed"] > cp["redo_capacity_bytes"],
                "files_rule_seed": mb * MiB * 4 * lcp_time_seed / unit,
                "files_rule_sim_lcp": mb * MiB * 4 * cp["lcp_secs"] / unit,
            })
df = pd.DataFrame(rows)
df'''),
    new_code_cell('''fig, axes = plt.subplots(1, 2, figsize=(15, 6))
for ax, (case, c) in zip(axes, CASES.items()):
    d = df[df.case == case]
    for i, speed in enumerate(c["speeds"]):
        s = d[d.speed_mb == speed].sort_values("rate_mb")
        color = f"C{i}"
        ax.plot(s.rate_mb, s.files_needed, marker="o", color=color, label=f"{c['key']}={speed}M")
        ax.plot(s.rate_mb, s.files_needed_peak, ls=":", color=color)
        ax.plot(s.rate_mb, s.files_rule_seed, ls="--", color=color, alpha=0.7)
        o = s[s.overload]
        ax.scatter(o.rate_mb, o.files_needed, marker="X", s=120, color="red", zorder=5,
                   label="overloads the configured log" if i == 0 else None)
    ax.plot([], [], color="grey", marker="o", label="model: steady state (redo_bytes_needed)")
    ax.plot([], [], color="grey", ls=":", label="model: peak incl. a node restart (redo_peak_bytes)")
    ax.plot([], [], color="grey", ls="--", label="seed 004 rule: rate × 4 × (data / speed)")
    cfg = d.files_configured.iloc[0]
    ax.axhline(cfg, color="k", lw=1)
    ax.text(d.rate_mb.max(), cfg * 0.8, f"configured NoOfFragmentLogFiles={cfg}", fontsize=8, ha="right", va="top")
    ax.set_xscale("log"); ax.set_yscale("log")
    ax.set_xlabel(f"write rate = updates/s × {BYTES_PER_CHANGE} B (MiB/s per node group, log)")
    ax.set_ylabel(f"NoOfFragmentLogFiles needed (1 file = {d.mib_per_file.iloc[0]:.0f} MiB, log)")
    ax.set_title(case)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="upper left")
fig.suptitle("REDO log sizing: files needed vs write rate and checkpoint write speed")
fig.tight_layout()
plt.show()'''),
    new_code_cell('''# Seed 004's worked example: 1 MB/s, DiskCheckpointSpeed 10M (the 5.1 default).
ex = df[(df.case.str.startswith("5.1")) & (df.speed_mb == 10)].set_index("rate_mb")
print(ex[["status", "lcp_secs", "files_needed", "files_needed_peak", "files_rule_seed", "files_rule_sim_lcp"]].round(1))

# Where does the configured log (64 files) first overload, per write speed?
for (case, speed), d in df.groupby(["case", "speed_mb"], sort=False):
    o = d[d.overload]
    print(f"{case}, {speed}M: " + (f"overloads from {o.rate_mb.min():g} MiB/s "
          f"(LCP {o.lcp_secs.iloc[0]:.0f} s there)" if len(o) else "never overloads on this grid"))'''),
    new_markdown_cell('''**Answer** (numbers from the full grid when this notebook was written; the printed summary above is recomputed on every run and wins if the model has changed). On 5.1 (full LCPs) the model's steady-state need is the seed's rule
almost exactly (it also keeps ~4 LCP durations of REDO): at 1 MiB/s and the default 10M it needs
52 files (seed: 52). A node restart pushes the peak ~1.5–2.5× higher (~77 files at 1 MiB/s), so
the configured 64 files overload from 1 MiB/s at 10M, 0.5 MiB/s at 5M and 4 MiB/s at 40M —
the rule's “headroom” LCP is not quite enough during a restart. On 8.0 the partial LCP keeps
the need tiny (well under one 1-GiB file up to ~8 MiB/s, ~2–4 files at 64 MiB/s with ≥100M)
as long as `MaxDiskWriteSpeed` keeps up with the change rate; once it does not (32 MiB/s at 20M,
64 MiB/s at 50M) the model's LCP grows to the full data set, the LCP time jumps from seconds to
~40 min and the need jumps by 2–3 orders of magnitude (the cliff on the right). There the fix
is disk write speed, not REDO size; the seed rule, applied with data/speed, over-sizes 8.0 by
~100× below the cliff.

''' + CAVEATS + ''' The rule of thumb uses the *data* size for the LCP time; with the
partial LCP of 7.6+ use the measured LCP time instead (dashed line vs `files_rule_sim_lcp`).'''),
])

# ---------------------------------------------------------------------------------------
NOTEBOOKS["04_copy_fragment_convergence.ipynb"] = nb([
    new_markdown_cell('''# Will the restarting node catch up under my write load?

**Question.** After local recovery the starting node copies every row changed since its
checkpoint from the live node (copy-fragment, `secs_to_synchronize_starting_node`), while
the application keeps writing. If the change rate approaches what the network or the starting
node's LDM threads can apply, catch-up takes very long or never finishes. How much write load
can a restart absorb, on 1, 10 and 25 Gbit/s?

**Set-up.** Default scenario on 8.0.35 (60 GB per node, 8 cores/16 threads), steady
10,000 updates/s of 200 B before the restart, the node down for 5 minutes
(`restart.downtime=5m`, so there is something to copy), and the update rate *during* the
restart varied with `workload.during_restart.updates_per_s`.'''),
    new_code_cell(PARAMS),
    new_code_cell(IMPORTS),
    new_code_cell('''NETWORKS = ["1Gbit/s", "10Gbit/s"] if SMALL else ["1Gbit/s", "10Gbit/s", "25Gbit/s"]
UPDATES = ([0, 100_000, 400_000, 800_000, 1_600_000] if SMALL else
           [0, 25_000, 50_000, 100_000, 200_000, 300_000, 400_000, 500_000, 550_000, 600_000,
            650_000, 700_000, 800_000, 1_000_000, 1_200_000, 1_400_000, 1_600_000])
REPS = 1 if SMALL else 3
BYTES_PER_CHANGE = 200

base = default_scenario()
rows = []
for net in NETWORKS:
    for ups in UPDATES:
        r = ndbsim.simulate(base, overrides=["version=8.0.35", "restart.downtime=5m", f"host.network={net}",
                                             "workload.updates_per_s=10000",
                                             f"workload.bytes_per_change={BYTES_PER_CHANGE}B",
                                             f"workload.during_restart.updates_per_s={ups}"],
                            replications=REPS, seed=11)
        rows.append({"network": net, "updates_per_s": ups, "change_mb_s": ups * BYTES_PER_CHANGE / 1e6,
                     "status": r.status, "reason": r.reason,
                     "sync_s": r.phases()["secs_to_synchronize_starting_node"],
                     "total_s": r.total_restart_secs})
df = pd.DataFrame(rows)
df.drop(columns="reason")'''),
    new_code_cell('''fig, axes = plt.subplots(1, 2, figsize=(15, 5.5))
for i, net in enumerate(NETWORKS):
    d = df[df.network == net].sort_values("updates_per_s")
    color = f"C{i}"
    conv = d[d.status != "non-converging"]
    for ax, col in zip(axes, ["sync_s", "total_s"]):
        ax.plot(conv.updates_per_s / 1000, conv[col] / 60, marker="o", color=color, label=f"{net}")
        ov = d[d.status == "redo-overload"]
        ax.scatter(ov.updates_per_s / 1000, ov[col] / 60, marker="s", facecolors="none", edgecolors="red",
                   s=110, zorder=5, label="redo-overload (error 410 on the live node)" if i == 0 else None)
        nc = d[d.status == "non-converging"]
        if len(nc):
            ax.axvspan(nc.updates_per_s.min() / 1000, d.updates_per_s.max() / 1000, color=color, alpha=0.08)
            ax.scatter(nc.updates_per_s / 1000, np.full(len(nc), 0.96 - 0.04 * i), marker="x", color=color,
                       s=90, zorder=5, transform=ax.get_xaxis_transform(),
                       label=f"{net}: never converges (shaded)")
    line_rate = float(net.split("Gbit")[0]) * 1e9 / 8 / BYTES_PER_CHANGE / 1000
    if line_rate <= max(UPDATES) / 1000:
        axes[0].axvline(line_rate, color=color, ls=":", lw=1)
axes[0].set(title="Copy-fragment catch-up (secs_to_synchronize_starting_node)",
            ylabel="catch-up time (minutes, log)", yscale="log")
axes[1].set(title="Total node restart time", ylabel="minutes")
for ax in axes:
    ax.set_xlabel(f"updates/s during the restart (thousands, {BYTES_PER_CHANGE} B each)")
    ax.grid(alpha=0.3, which="both")
handles, labels = axes[0].get_legend_handles_labels()  # the same entries on both panels: one legend
fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8, frameon=False)
axes[0].text(0.01, 0.02, "dotted: network line rate ÷ bytes per change; 10 and 25 Gbit/s overlap",
             transform=axes[0].transAxes, fontsize=8)
fig.suptitle("Catch-up vs write load during the restart (8.0.35, 60 GB per node, 5 min down)")
fig.tight_layout(rect=(0, 0.1, 1, 1))
plt.show()'''),
    new_code_cell('''for net in NETWORKS:
    d = df[df.network == net]
    ok = d[d.status != "non-converging"]
    nc = d[d.status == "non-converging"]
    first_nc = nc.updates_per_s.min() if len(nc) else None
    print(f"{net}: catch-up {ok.sync_s.iloc[0]:.0f} s idle, up to {ok.sync_s.max() / 60:.0f} min at "
          f"{ok.updates_per_s.max():,} updates/s; never converges from "
          f"{first_nc:,} updates/s" if first_nc else f"{net}: converges on the whole grid")
    if len(nc):
        print("   reason:", nc.reason.iloc[0])'''),
    new_markdown_cell('''**Answer** (numbers from the full grid when this notebook was written; the printed summary above is recomputed on every run and wins if the model has changed). Catch-up is seconds when idle (~4 s) and about 1 minute per
25,000 updates/s of 200 B with the node down 5 minutes (≈4 min at 100k/s, ≈8 min at 200k/s),
the same on every network up to ~200k/s. On 1 Gbit/s it diverges as the change stream nears
the line rate: ~1 h at 550k/s, ~3.4 h at 600k/s (120 MB/s) and it never converges from
650k/s (130 MB/s > 125 MB/s). On 10 and 25 Gbit/s the starting node's LDM threads are the
limit: catch-up levels off around 15–20 min and stops converging at 1.4M updates/s. Long
before either wall, from 300k updates/s, the live node's REDO log (64 × 256M) overloads while
it keeps REDO for the whole restart — in practice error 410 is the first wall.

''' + CAVEATS + ''' **Model oddities:** on 1 Gbit/s the `non-converging` reason blames the
cores ("needs 4 cores … which has 8.0") although the network is the binding limit at that
rate; on 10/25 Gbit/s the catch-up time does not grow as the core limit approaches and then
jumps to non-converging; non-converging runs report a *shorter* total (the run stops early),
which is why they are drawn as crosses, not on the curves.'''),
])

# ---------------------------------------------------------------------------------------
NOTEBOOKS["05_rolling_restart_window.ipynb"] = nb([
    new_markdown_cell('''# How long a maintenance window does a rolling restart need?

**Question.** A rolling restart (config change, upgrade) restarts every data node while the
cluster stays up. With `NoOfReplicas=2`, how does the window grow with the number of data
nodes (2, 4, 6, 8)?

**Set-up.** `scenarios/rolling-4-nodes-8.0.yaml` (8.0.35, 40 GB per node, 20,000 updates/s
+ 2,000 inserts/s of 300 B cluster-wide) with `cluster.data_nodes=N`, `restart.type=rolling`.
The model restarts one member of every node group at a time (as `ndb_mgm` / MCM do when
restarting node groups in parallel), so N=8 is two waves of four nodes. Two ways to grow:

* **scale-out** — each node keeps 40 GB (the cluster holds more data);
* **same data** — the 80 GB of the 4-node cluster spread over N/2 node groups.

For comparison, a strictly **serial** rolling restart (one node at a time) takes about N × one
node restart; that line is N × a single `restart.type=node` run.'''),
    new_code_cell(PARAMS),
    new_code_cell(IMPORTS),
    new_code_cell('''NODES = [2, 4, 8] if SMALL else [2, 4, 6, 8]
REPS = 3 if SMALL else 20
BASE = str(SCENARIOS / "rolling-4-nodes-8.0.yaml")
TOTAL_DATA_GB = 80  # 40 GB per node × 2 node groups in the base scenario

rows, frames = [], {}
for n in NODES:
    groups = n // 2
    variants = {"scale-out (40 GB per node)": size_overrides(40, headroom=1.6),
                "same data (80 GB total)": size_overrides(TOTAL_DATA_GB / groups, headroom=1.6)}
    for label, sizes in variants.items():
        common = [f"cluster.data_nodes={n}", *sizes]
        r = ndbsim.simulate(BASE, overrides=[*common, "restart.type=rolling"], replications=REPS, seed=5)
        one = ndbsim.simulate(BASE, overrides=[*common, "restart.type=node", "restart.nodes=[1]"],
                              replications=REPS, seed=5)
        rows.append({"data_nodes": n, "variant": label, "status": r.status,
                     "window_s": r.total_restart_secs, "p5_s": pct(r.totals, 5), "p95_s": pct(r.totals, 95),
                     "one_node_s": one.total_restart_secs, "serial_estimate_s": n * one.total_restart_secs})
        if label.startswith("scale-out"):
            frames[n] = r.to_frame()
df = pd.DataFrame(rows)
df'''),
    new_code_cell('''fig, axes = plt.subplots(1, 2, figsize=(15, 5.5))
ax = axes[0]
for i, (label, d) in enumerate(df.groupby("variant", sort=False)):
    d = d.sort_values("data_nodes")
    ax.errorbar(d.data_nodes, d.window_s / 60,
                yerr=[(d.window_s - d.p5_s) / 60, (d.p95_s - d.window_s) / 60],
                marker="o", capsize=4, color=f"C{i}", label=f"rolling, node groups in parallel — {label}")
    ax.plot(d.data_nodes, d.serial_estimate_s / 60, ls="--", marker=".", color=f"C{i}",
            label=f"serial, one node at a time (≈ N × one node restart) — {label}")
ax.set(title="Rolling-restart maintenance window vs cluster size (NoOfReplicas=2)",
       xlabel="number of data nodes", ylabel="window: first stop to last node started (minutes)")
ax.set_xticks(NODES)
ax.set_ylim(bottom=0)
ax.grid(alpha=0.3)
ax.legend(fontsize=8)

# Timeline of the largest cluster (replication 0): which node restarts when.
n = max(NODES)
f = frames[n]
f = f[(f.replication == 0) & (f.secs > 0)]
ax = axes[1]
for grp, phases in PHASE_GROUPS.items():
    g = f[f.phase.isin(phases)]
    ax.barh(g.node_id, (g.end - g.start) / 60, left=g.start / 60, color=GROUP_COLORS[grp], label=grp, height=0.6)
ax.set(title=f"Timeline, {n} data nodes (scale-out, replication 0)", xlabel="minutes since the first node stopped",
       ylabel="data node id")
ax.set_yticks(sorted(f.node_id.unique()))
ax.invert_yaxis()
ax.grid(alpha=0.3, axis="x")
fig.tight_layout(rect=(0, 0.1, 1, 1))
ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=4, frameon=False)
plt.show()'''),
    new_code_cell('''summary = df.pivot(index="data_nodes", columns="variant", values="window_s") / 60
summary["serial, scale-out"] = df[df.variant.str.startswith("scale")].set_index("data_nodes").serial_estimate_s / 60
print("minutes")
summary.round(1)'''),
    new_code_cell('''s = summary
lo, hi = min(NODES), max(NODES)
print(f"parallel rolling restart: {s.iloc[0, 1]:.1f} min ({lo} nodes) -> {s.iloc[-1, 1]:.1f} min ({hi} nodes) "
      f"at 40 GB per node; {s.iloc[0, 0]:.1f} -> {s.iloc[-1, 0]:.1f} min for 80 GB in total; "
      f"serial: {s.iloc[-1, 2]:.1f} min for {hi} nodes")'''),
    new_markdown_cell('''**Answer** (numbers from the full grid when this notebook was written; the printed summary above is recomputed on every run and wins if the model has changed). Restarting one member of each node group at a time, the window is
two waves of one node restart, so it barely depends on the number of nodes: ≈7.3 min for 2
nodes down to ≈6.5 min for 8 when each node keeps 40 GB (slightly *shorter* with more nodes
because the cluster-wide write load is split across more node groups). Spreading a fixed
80 GB over more node groups shrinks it further (≈14 → 3.6 min from 2 to 8 nodes: less data
per node). A strictly serial rolling restart grows linearly instead, ≈N × one node restart:
~25 min for 8 nodes at 40 GB each.

''' + CAVEATS + ''' The parallel mode assumes the node groups do not contend with each other
(separate hosts); the metadata gate they pass in turn adds only seconds here. Upgrades that
also restart management and API nodes, or `--initial` restarts, take longer than shown.'''),
])


def main() -> None:
    for name, book in NOTEBOOKS.items():
        nbformat.validate(book)
        nbformat.write(book, HERE / name)
        print("wrote", name)


if __name__ == "__main__":
    main()
