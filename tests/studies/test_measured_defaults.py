"""The defaulted inputs' effects on the predictive interval are the model's own response at the
ends of each declared range, not elasticities assumed per phase (issue 49 item 3). On the built-in
DBT2 7.6.6 node restart the assumed line said host.disk_read moves restore and REDO (-0.125 on the
total) where the model does not move at all, data.rows +0.434 where the model gives +0.123 (and
not monotonically), and workload.bytes_per_change x4, inside its declared range, stops the
restart with error 410 while the interval assumed 453 s."""

from __future__ import annotations

import math

import pytest

import ndbsim
from ndbsim.output.interval.sources import default_ranges


@pytest.fixture(scope="module")
def default_run():
    r = ndbsim.simulate(None, seed=1, replications=1)
    return r, r.interval()


def test_an_input_the_model_does_not_respond_to_adds_no_width(default_run):
    _, iv = default_run
    assert iv["defaults_ends"]["host.disk_read"] == [0.0, 0.0]
    assert "host.disk_read" not in iv["sources"]["defaults"]["from"]


def test_each_end_is_the_runs_own_total_there(default_run):
    """data.rows at half its value: the end is the log ratio of the total a run with it gives."""
    r, iv = default_run
    lo, _ = default_ranges()["data.rows"]["range"]
    rows = r.scenario["data"]["rows"]
    there = ndbsim.simulate(None, overrides=[f"data.rows={rows * lo:.0f}"], seed=1, replications=1)
    assert iv["defaults_ends"]["data.rows"][0] == pytest.approx(math.log(there.totals[0] / r.totals[0]), abs=1e-9)


def test_a_range_end_that_stops_the_restart_makes_the_p95_not_complete(default_run):
    _, iv = default_run
    hi = default_ranges()["workload.bytes_per_change"]["range"][1]
    there = ndbsim.simulate(None, overrides=[f"workload.bytes_per_change={200 * hi:.0f}"], seed=1, replications=1)
    assert there.status == "redo-overload"  # error 410 inside the declared range
    assert iv["defaults_ends"]["workload.bytes_per_change"][1] is None
    assert math.isfinite(iv["p5"]) and iv["p95"] == math.inf
    assert "does not complete with workload.bytes_per_change at its high end" in iv["sources"]["defaults"]["from"]
