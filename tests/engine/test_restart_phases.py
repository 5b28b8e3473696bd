"""The restart_info phases a result carries: every one present, summing to the total, as a data
frame, and their spread."""

import math

import pytest
from _helpers import BASE, sim

from ndbsim.input.restart_info import PHASES


def test_every_restart_info_phase_present_and_summing_to_total(root):
    r = sim(root / BASE)
    d = r.to_dict()
    for node in d["nodes"]:
        assert set(PHASES) <= set(node["phases"])
        assert math.isclose(sum(node["phases"].values()), node["total_restart_secs"], rel_tol=1e-9)
        assert "secs_for_local_recovery" in node["restart_info"]
        assert "total_restart_secs" in node["restart_info"]


def test_dataframe_api():
    df = sim(None, replications=2).to_frame()
    assert set(df.columns) >= {"replication", "node_id", "phase", "secs", "start", "end"}
    assert len(df) == 2 * len(PHASES)


def test_spread_of_restarts_that_never_end_is_inf_not_nan():
    from ndbsim.output.result import quantile

    assert quantile([1.0, 2.0, math.inf], 0.5) == 2.0
    assert quantile([1.0, 2.0, math.inf], 0.95) == math.inf
    assert quantile([1.0, 2.0, 4.0], 0.25) == pytest.approx(1.5)
    spread = sim(None, "workload.during_restart.updates_per_s=3000000", replications=3).spread()
    assert spread["p5"] == spread["p50"] == spread["p95"] == math.inf
