"""Every why names, as its bottleneck, the resource whose change moves the phase most, with the
others' shares beside it (issue 48): on four bases of the shapes production clusters have, each
phase's named resource made twice as good shortens the phase at least as much as any other
modelled resource made twice as good (``benchmarks/direction_audit.py``: ``resource_sets``,
``misses``). One replication at one seed per run: a handful of runs per base."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ndbsim.engine.fluid import gains
from ndbsim.engine.fluid.gains import Part, Segment

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import direction_audit as audit  # noqa: E402 (the audit lives with the benchmarks)

MIN_CHECKED = {
    "rolling-4-nodes-8.0": 12,
    "dbt2-600wh-7.6.6": 4,
    "3-replica 8.4.3, 250G disk data": 20,
    "8.0.35, 900G disk data, 64G page buffer": 12,
}
"""Phases of at least ``MIN_PHASE_SECS`` whose why names a resource, per base (all nodes): the
test must judge that many, so that it cannot pass by naming nothing."""


@pytest.mark.parametrize("name", list(audit.BASES))
def test_the_named_bottleneck_twice_as_good_shortens_its_phase_most(name):
    base = audit.BASES[name]
    phases, whys, after = audit.bottleneck_gains(base)
    checked = [
        (n, p)
        for n, ph in phases.items()
        for p, secs in ph.items()
        if secs >= audit.MIN_PHASE_SECS and whys[n].get(p, {}).get("resource") in after
    ]
    assert len(checked) >= MIN_CHECKED[name], checked
    assert audit.misses(phases, whys, after) == []


def test_the_copy_names_the_page_wait_and_the_cpu_beside_it():
    """The 3-replica copy with 20G/s disks waits for each page its cache misses, one at a time per
    scan (reference §14.3), and runs the scan's LDM CPU: the why carries both parts' seconds and
    what each resource twice as good would save, and names the one that saves the most."""
    base = audit.Base(
        "fast disks",
        ROOT / "tests" / "data" / "three-replicas-8.4.3.yaml",
        ("data.disk_data_size=250G", "host.disk_read=20G", "host.disk_write=20G"),
    )
    _, whys, _ = audit.run(base)
    why = whys[33]["secs_to_synchronize_starting_node"]
    parts = why["bound_secs"]
    wait = next(k for k in parts if k.startswith("page-read latency (live nodes"))
    cpu = next(k for k in parts if k.startswith("LDM threads of live nodes"))
    assert why["resources"][wait] == gains.LATENCY and why["resources"][cpu] == gains.CPU
    assert parts[wait] > 0.3 * sum(parts.values()) and parts[cpu] > 0.2 * sum(parts.values())
    assert why["gains"][gains.LATENCY] > 0.2 * sum(parts.values())
    best = max(why["gains"], key=why["gains"].get)
    assert why["resource"] == best


def test_a_sum_under_a_slower_floor_saves_nothing():
    """A pipeline side that is not the slower one saves nothing when it halves; the slower side's
    parts save up to where the other side binds."""
    seg = Segment(
        10.0,
        (
            (Part("scan cpu", gains.CPU, 4.0), Part("scan wait", gains.LATENCY, 6.0)),
            (Part("apply cpu", gains.CPU, 7.0),),
        ),
    )
    saved = gains.gains([seg])
    assert saved[gains.LATENCY] == pytest.approx(3.0)  # 4 + 3 = 7, then the apply binds at 7
    assert saved[gains.CPU] == pytest.approx(10.0 - 6.0 - 2.0)  # 2 + 6 = 8 > 3.5
    assert gains.shares([seg]) == {"scan wait": 6.0, "scan cpu": 4.0}


def test_work_that_grows_with_the_downtime_shrinks_with_the_phases_before():
    seg = Segment(10.0, ((Part("disk write", gains.DISK_WRITE, 10.0, fixed=False),),))
    saved = gains.gains([seg], gains.shrinks({gains.CPU: 30.0}, 100.0))
    assert saved[gains.CPU] == pytest.approx(3.0)
    assert saved[gains.DISK_WRITE] == pytest.approx(5.0)


def test_cpu_shared_with_the_live_load_gains_more_than_half():
    """Twice the core speed halves the work and the live load beside it on the same threads."""
    assert gains.busy_twice(0.0) == pytest.approx(0.5)
    assert gains.busy_twice(0.5) == pytest.approx(1 / 3)


def test_the_audit_runs_on_a_small_base():
    """The direction audit's core on the tiny lab cluster: its levers run, its findings come back
    by kind, and the expected signs come from the response table."""
    signs = audit.expected_signs()
    assert signs["host.disk_write"][0] == -1 and signs["data.size"] == (1, audit.TOTAL)
    lines: list[str] = []
    base = audit.Base("lab", ROOT / "scenarios" / "lab-2node-7.5.4-tiny.yaml")
    found = audit.audit(base, {k: v for k, v in signs.items() if k.startswith("host.")}, lines.append)
    assert set(found) == {"inversions", "dead", "bottlenecks"}
    assert any("host.disk_read=" in x for x in lines), lines
    assert audit.moved(100.0, 101.0) == 0 and audit.moved(100.0, 90.0) == -1
