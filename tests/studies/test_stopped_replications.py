"""A restart that stops in some of its replications (issue 48 item 6): the rolling 8.0 restart at
500k updates/s with 600-byte changes overloads the REDO log (error 410) in one replication of
three. It used to print ``restart total: 32m27s`` and a finite predictive range, and compare read
it as 86 s faster than the same load with 300-byte changes, which completes.

Since DIH holds an LCP start for a restarting node (engine/lcp/stall.py), 600-byte changes complete
in all three replications (seed 1), so these tests use 630-byte changes: at seed 1 that stops in 1
of 3 (620-640 bytes all stop in exactly 1 of 3; 650 stops in 2, 690 in all 3), which puts the
restart back into the regime the tests need: some, but not all, replications stop."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml
from _helpers import ndbsim as cli
from conftest import ROOT

import ndbsim
from ndbsim.output.table import phase_table
from ndbsim.studies.runs import evaluate

ROLLING = str(ROOT / "scenarios" / "rolling-4-nodes-8.0.yaml")
LOAD = ("workload.updates_per_s=500000",)


@pytest.fixture(scope="module")
def stopped_once():
    return ndbsim.simulate(ROLLING, overrides=[*LOAD, "workload.bytes_per_change=630"], seed=1, replications=3)


def test_a_restart_that_stops_in_one_replication_has_no_total(stopped_once):
    r = stopped_once
    assert r.status == "redo-overload" and r.stopped_count == 1
    assert r.total_restart_secs == math.inf and math.isfinite(r.completed_secs())
    iv = r.interval()
    assert math.isfinite(iv["p5"]) and iv["p95"] == math.inf and iv["replications_stopped"] == pytest.approx(1 / 3)
    text = phase_table(r)
    assert "restart total: does not complete in 1 of 3 replications (redo-overload" in text
    assert "predictive p5–p95: " in text and "–does not complete (33% of the replications stopped" in text


def test_no_ranking_reads_it_as_faster(tmp_path):
    """advise, solve and sweep rank a variant by its median: infinite when any replication stops."""
    raw = yaml.safe_load(Path(ROLLING).read_text())
    stopped = evaluate(raw, (*LOAD, "workload.bytes_per_change=630"), 1, 3)
    completes = evaluate(raw, (*LOAD, "workload.bytes_per_change=300"), 1, 3)
    assert math.isfinite(completes.median) and stopped.median == math.inf > completes.median
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    for path, size in ((a, 300), (b, 630)):
        raw["workload"] = {**raw.get("workload", {}), "updates_per_s": 500000, "bytes_per_change": size}
        path.write_text(yaml.safe_dump(raw))
    p = cli("compare", str(a), str(b), "-n", "3", "--seed", "1")
    line = next(x for x in p.stdout.splitlines() if x.startswith("restart total:"))
    assert "B does not complete in 1 of 3 replications" in line and line.endswith("B − A n/a"), line
    rng = next(x for x in p.stdout.splitlines() if x.startswith("predictive p5–p95:"))
    assert "· B " in rng and "–does not complete (33% of the replications stopped" in rng, rng
