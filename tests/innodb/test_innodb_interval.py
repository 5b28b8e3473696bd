"""An InnoDB answer carries a predictive interval like an NDB one's (``innodb.held_interval``)."""

from __future__ import annotations

import json
import re

import pytest

from ndbsim.cli.app import main
from ndbsim.innodb import load_cases, simulate_innodb
from ndbsim.innodb.fit import _case_scenario
from ndbsim.input.units import parse_duration
from tests.conftest import ROOT

SCENARIO = str(ROOT / "scenarios" / "innodb-tpcc1000-bp52g-flash.yaml")
SOURCES = ["crash_moment", "constants", "defaults", "model"]


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    main(["run", SCENARIO, *args])
    return capsys.readouterr().out


def test_run_table_prints_the_predictive_range_around_the_total(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys)
    m = re.search(r"predictive p5–p95: (\S+)–(\S+) \(of its variance: crash moment \d+%, constants \d+%", out)
    assert m, out
    total = re.search(r"downtime \(total_restart_secs\)\s+(\S+)", out)
    assert total
    lo, hi, t = (parse_duration(x) for x in (m[1], m[2], total[1]))
    assert lo < t < hi
    assert hi / lo > 1.5  # the model's measured error is tens of percent, not a rounding


def test_run_json_carries_the_interval_with_its_sources(capsys: pytest.CaptureFixture[str]) -> None:
    iv = json.loads(_run(capsys, "--format", "json"))["interval"]
    assert iv["p5"] < iv["p50"] < iv["p95"]
    assert list(iv["sources"]) == SOURCES
    assert sum(s["share"] for s in iv["sources"].values()) == pytest.approx(1.0)
    assert "InnoDB model's error on 3 case(s)" in iv["sources"]["model"]["from"]
    assert "apply_rate, read_queue_depth" in iv["sources"]["constants"]["from"]
    assert "simulation.jitter" in iv["sources"]["defaults"]["from"]


def test_run_csv_carries_the_interval_ends() -> None:
    res = simulate_innodb(SCENARIO)
    head, total = res.to_csv().splitlines()[0], res.to_csv().splitlines()[-1]
    assert head.startswith("phase,secs,interval_p5,interval_p95,")
    p5, p95 = (float(x) for x in total.split(",")[2:4])
    assert p5 < res.total_restart_secs < p95


def test_each_calibration_case_published_total_is_inside_its_runs_range() -> None:
    inside = 0
    for case in load_cases():
        iv = simulate_innodb(_case_scenario(case)).interval()
        published = float(case["published"]["total_restart_secs"]["value"])
        inside += iv["p5"] <= published <= iv["p95"]
    assert inside == 3


def test_replications_spread_is_the_first_source() -> None:
    one = simulate_innodb(SCENARIO, replications=1).interval()["sources"]["crash_moment"]
    many = simulate_innodb(SCENARIO, replications=16).interval()["sources"]["crash_moment"]
    assert one["sd_log"] == 0.0
    assert many["sd_log"] > 0.0
    assert "16 replication(s) over the redo rate's jitter" in many["from"]


def test_packaged_held_out_errors_are_fresh() -> None:
    pytest.importorskip("scipy")
    from ndbsim.innodb.held_interval import main as held_main

    assert held_main(["--check"]) == 0
