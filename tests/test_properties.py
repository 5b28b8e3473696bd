"""Property tests: phases add up, and the model moves the right way when one input changes."""

from __future__ import annotations

import copy
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ndbsim
from ndbsim.cli.app import main
from ndbsim.engine.lcp.checkpoint import FullLcp, PartialLcp
from ndbsim.engine.workload import Changes
from ndbsim.input.scenario import DEFAULT_SCENARIO

SETTINGS = settings(
    max_examples=int(os.environ.get("NDBSIM_PROPERTY_EXAMPLES", "30")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
    database=None,
)
TOL = 1e-6


@st.composite
def scenarios(draw):
    s = copy.deepcopy(DEFAULT_SCENARIO)
    size_gb = draw(st.integers(1, 500))
    version = draw(st.sampled_from(["7.5.10", "7.6.6", "8.0.35"]))
    threads = draw(st.sampled_from([4, 8, 16, 32]))
    cfg = s["cluster"]["config"]
    cfg["DataMemory"] = f"{size_gb + draw(st.integers(0, 100))}G"
    cfg["MaxNoOfExecutionThreads"] = threads
    if version != "7.5.10":
        cfg["RecoveryWork"] = draw(st.integers(25, 100))
    s["version"] = version
    s["host"].update(
        cpu_cores=16,
        threads_per_core=2,
        disk_read=f"{draw(st.integers(100, 4000))}MB/s",
        disk_write=f"{draw(st.integers(50, 2000))}MB/s",
        network=f"{draw(st.sampled_from([1, 10, 25, 40]))}Gbit/s",
    )
    s["data"]["size"] = f"{size_gb}G"
    s["data"].pop("rows", None)
    s["workload"]["updates_per_s"] = draw(st.integers(0, 50_000))
    s.setdefault("simulation", {})["lcp_phase"] = draw(st.floats(0, 1))
    return s


def run(s, seed=7):
    return ndbsim.simulate(s, seed=seed, replications=1)


def le(a, b):
    return a <= b * (1 + 1e-9) + TOL


@SETTINGS
@given(scenarios())
def test_phases_non_negative_and_sum_to_total(s):
    r = run(s)
    for nid in r.node_ids():
        ph = r.phases(nid)
        assert all(v >= -TOL for v in ph.values()), ph
        assert sum(ph.values()) == pytest.approx(r.node_total(nid), rel=1e-9, abs=TOL)


@SETTINGS
@given(scenarios(), st.integers(1, 200))
def test_more_data_never_restarts_faster(s, extra_gb):
    """In expectation over where the restart lands in the LCP cycle. For one landing point it
    need not hold: a bigger database can let one more LCP complete before the crash, which
    cuts the REDO to apply (real NDB has the same step). The mean over evenly spaced landing
    points must not fall by more than the LCP granularity (2%)."""

    def expected(scenario):
        total = 0.0
        for k in range(10):
            t = copy.deepcopy(scenario)
            t["simulation"]["lcp_phase"] = 0.05 + 0.1 * k
            total += run(t).total_restart_secs
        return total / 10

    small = copy.deepcopy(s)
    big = copy.deepcopy(s)
    size = int(s["data"]["size"].removesuffix("G")) + extra_gb
    big["data"]["size"] = f"{size}G"
    dm = int(s["cluster"]["config"]["DataMemory"].removesuffix("G"))
    big["cluster"]["config"]["DataMemory"] = f"{max(dm, size)}G"  # DataMemory itself sets the memory touch
    assert le(expected(small), expected(big) * 1.02)


@SETTINGS
@given(scenarios())
def test_more_ldm_threads_never_slow_restore_or_redo(s):
    """Per unit of work: the LDM count also changes how fast LCP scans run before the restart,
    so the checkpoint history (and the bytes a restore must read) may differ a little; what
    more LDM threads must never do is restore or apply REDO more slowly."""
    few = copy.deepcopy(s)
    many = copy.deepcopy(s)
    few["cluster"]["config"]["MaxNoOfExecutionThreads"] = 4
    many["cluster"]["config"]["MaxNoOfExecutionThreads"] = 32
    ra, rb = run(few), run(many)
    a, b = ra.phases(), rb.phases()
    fa, fb = ra.first.nodes[0].facts.as_dict(), rb.first.nodes[0].facts.as_dict()
    for phase, work in (("secs_restore_fragments", "restore_bytes"), ("secs_exec_redo_log", "redo_bytes")):
        if fa[work] > 0 and fb[work] > 0:
            assert le(b[phase] / fb[work], a[phase] / fa[work]), (phase, a[phase], fa[work], b[phase], fb[work])


@SETTINGS
@given(scenarios(), st.sampled_from(["disk_read", "disk_write", "network"]), st.integers(2, 10))
def test_faster_hardware_never_slows_the_restart(s, what, factor):
    fast = copy.deepcopy(s)
    text = s["host"][what]
    num = int("".join(c for c in text if c.isdigit()))
    fast["host"][what] = text.replace(str(num), str(num * factor), 1)
    assert le(run(fast).total_restart_secs, run(s).total_restart_secs)


@SETTINGS
@given(scenarios(), st.integers(1, 50_000))
def test_more_updates_never_speed_the_copy_phase(s, extra):
    busy = copy.deepcopy(s)
    busy["workload"]["updates_per_s"] = s["workload"]["updates_per_s"] + extra
    phase = "secs_to_synchronize_starting_node"
    assert le(run(s).phases()[phase], run(busy).phases()[phase])


@settings(max_examples=40, deadline=None)
@given(
    st.floats(1e6, 1e12),
    st.floats(1, 1e9),
    st.floats(0, 1e9),
    st.floats(0, 1e9),
    st.floats(0, 1e9),
    st.integers(25, 100),
    st.integers(0, 100),
    st.integers(1, 100),
    st.booleans(),
)
def test_partial_lcp_never_writes_more_than_full(size, rows, upd, ins, dele, rw, irw, tables, first):
    changes = Changes(upd, ins, dele, (upd + ins) * 200.0)
    partial, _ = PartialLcp(rw, irw, tables).lcp_size(size, rows, changes, first=first)
    full, _ = FullLcp().lcp_size(size, rows, changes, first=first)
    assert partial <= full * (1 + 1e-9)


KEYS = [
    "version",
    "cluster",
    "cluster.data_nodes",
    "cluster.config",
    "cluster.config.DataMemory",
    "cluster.config.NoOfReplicas",
    "cluster.config.RecoveryWork",
    "cluster.config.MaxNoOfExecutionThreads",
    "cluster.config.EnablePartialLcp",
    "cluster.config.NoOfFragmentLogFiles",
    "host",
    "host.cpu_cores",
    "host.core_speed",
    "host.disk_read",
    "host.network",
    "data",
    "data.size",
    "data.rows",
    "data.tables",
    "workload.updates_per_s",
    "workload.during_restart",
    "restart",
    "restart.type",
    "restart.nodes",
    "restart.downtime",
    "simulation.seed",
    "simulation.lcp_phase",
    "simulation.replications",
    "hots",
    "data.sise",
    "cluster.config.Bogus",
]
JUNK = ["@@", "'x y z'", "-7", ".nan", "-.inf", "1e999", "[[1], 2]", "{zz: 1}", "'-3G'", "'12 parsecs'"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(KEYS), st.sampled_from(JUNK) | st.text(alphabet="!@#%^&*qxz", min_size=1, max_size=6))
def test_junk_input_is_one_line_exit_2(capsys, key, junk):
    with pytest.raises(SystemExit) as exc:
        main(["run", "--set", f"{key}={junk}", "--format", "json"])
    captured = capsys.readouterr()
    assert exc.value.code == 2, (key, junk, captured.err)
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert captured.out == ""


def test_tiny_update_rate_finishes():
    import subprocess
    import sys

    for rate in ("0.001", "1e-300"):  # LCP cycles far longer than the horizon: an idle cluster
        p = subprocess.run(
            [sys.executable, "-m", "ndbsim", "run", "--set", f"workload.updates_per_s={rate}", "--format", "csv"],
            capture_output=True,
            text=True,
            timeout=20,
        )
        assert p.returncode == 0, p.stderr
        import csv
        import io

        assert {row["status"] for row in csv.DictReader(io.StringIO(p.stdout))} == {"ok"}
