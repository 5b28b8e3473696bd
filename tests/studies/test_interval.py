"""The predictive interval (issue 43): every answer's range holds the crash moment's spread, the
fitted constants' uncertainty, the defaulted inputs' ranges and the model's error on published
restarts; the constants' covariance is what the fit gives now; the ETA's window holds the true
window of a finished restart cut at every phase boundary; check --cross counts its held-out
totals inside their predictive p5–p95."""

import json
import math

import pytest
import yaml
from _helpers import ndbsim
from conftest import ROOT

from ndbsim.input.restart_info import PHASES
from ndbsim.output.interval import combine
from ndbsim.output.interval.sources import default_ranges, model_sd
from ndbsim.paths import CONSTANTS_UNCERTAINTY_FILE, DEFAULT_RANGES_FILE
from ndbsim.studies.calibration.cases import Row
from ndbsim.studies.calibration.cross import Held, coverage_lines
from ndbsim.studies.eta.replay import read_rows, replay
from ndbsim.studies.eta.session import open_session
from ndbsim.studies.uncertainty.covariance import render, uncertainty_data

THREE_REPLICAS = str(ROOT / "tests" / "data" / "three-replicas-8.4.3.yaml")
DATA = ROOT / "tests" / "data" / "rolling-8.0.35"
START = 1_800_000_000.0


def test_the_packaged_covariance_is_what_the_fit_gives_now():
    """A refit of the constants (``ndbsim calibrate``) without regenerating the file fails here."""
    assert CONSTANTS_UNCERTAINTY_FILE.read_text(encoding="utf-8") == render(uncertainty_data()), (
        "input/data/constants_uncertainty.yaml is stale: run python -m ndbsim.studies.uncertainty.covariance --write"
    )
    data = yaml.safe_load(CONSTANTS_UNCERTAINTY_FILE.read_text())
    # copy_row_secs rests on one fit case (seed 001): said, not hidden
    assert data["constants"]["copy_row_secs"]["weakly_determined"]
    assert all(c["sd_log"] > 0 for c in data["constants"].values())


def test_every_default_range_names_real_phases_and_says_why():
    ranges = default_ranges()
    assert "host.core_speed" in ranges
    for key, r in ranges.items():
        lo, hi = r["range"]
        assert 0 < lo < hi, key
        assert set(r["phases"]) <= set(PHASES), key
        assert len(r["why"]) > 40, key
    assert "GENERATED" not in DEFAULT_RANGES_FILE.read_text()  # fixed by hand, beforehand


@pytest.fixture(scope="module")
def three_replicas():
    p = ndbsim("run", THREE_REPLICAS, "--format", "json", "-n", "7")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_an_8x_run_carries_an_interval_wider_than_its_crash_spread(three_replicas):
    iv, rep = three_replicas["interval"], three_replicas["replications"]
    assert iv["p5"] < iv["p50"] < iv["p95"]
    assert set(iv["sources"]) == {"crash_moment", "constants", "defaults", "model"}
    assert abs(sum(s["share"] for s in iv["sources"].values()) - 1) < 1e-9
    # the crash-moment spread stays available, and the interval holds more than it
    assert rep["n"] == 7 and iv["p95"] - iv["p5"] > 5 * (rep["p95"] - rep["p5"])
    model = iv["sources"]["model"]
    assert "restart: the leave-one-family-out error" in model["from"] and "no published 8." in model["from"]
    # a family with no published restart is as far off as the families predicted without their own
    assert model["sd_log"] == pytest.approx(model_sd("8.0.35")[0])
    assert "widened" not in model["from"]
    assert "host.core_speed" in iv["sources"]["defaults"]["from"]


GIVEN_HOST = ("host.core_speed=1.0", "host.memory_touch_rate=2700000000", "host.disk_latency=0.0001")
"""The three host inputs the three-replica scenario leaves at their defaults, given at those values."""


def test_the_table_shows_the_predictive_range_first():
    """The documented order: the total, the predictive range, its main sources (each wrapped to the
    width), then the crash-moment spread. Since the defaults source is measured at the defaulted
    inputs' range ends it takes 93% of this scenario's variance and the model's 4% is not listed,
    so the run gives the three defaulted host inputs (at their default values: the same total)
    to put the model's error back among the main sources."""
    p = ndbsim("run", THREE_REPLICAS, "-n", "5", *(a for x in GIVEN_HOST for a in ("--set", x)))
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("restart total:"))
    assert lines[i + 1].startswith("predictive p5–p95: ")
    j = next(k for k, line in enumerate(lines) if line.startswith("crash-moment spread: p5 "))
    sources = lines[i + 2 : j]
    assert i + 2 < j and all(line.startswith("  ") for line in sources), sources
    # where its main parts come from: here the model's error, with no 8.x restart published
    assert any(line.startswith("  model: ") for line in sources)
    assert "no published 8." in " ".join(sources)


def test_a_value_the_user_gave_adds_nothing_one_left_at_its_default_does():
    phases = dict.fromkeys(PHASES, 0.0) | {"secs_restore_fragments": 300.0, "secs_index_rebuild": 100.0}
    crash = {"n": 1, "p5": 400.0, "p50": 400.0, "p95": 400.0}
    given = combine(400.0, crash, phases, "7.6.6", {"host": {"threads_per_core": 2}}, [])
    left = [{"key": "host.core_speed", "value": 1.0, "from": "ndbsim default"}]
    defaulted = combine(400.0, crash, phases, "7.6.6", {"host": {"threads_per_core": 2}}, left)
    assert given["sources"]["defaults"]["sd_log"] == 0
    assert defaulted["sources"]["defaults"]["sd_log"] > 0.1
    assert defaulted["p95"] - defaulted["p5"] > given["p95"] - given["p5"]
    # a constant scales its phase: the restore's share carries restore_row_secs' spread
    assert given["sources"]["constants"]["sd_log"] > 0.5 * 0.75 * 0.07


@pytest.mark.xfail(
    strict=True,
    reason=(
        "issue 49's target, not met since the refit on DIH's LCP start hold: the constants' fitted "
        "spreads halved (restore sd_log 0.073 -> 0.039, copy 0.168 -> 0.114), so the window at the "
        "two cuts after only the small early phases finished (35 s, 36 s) misses the true 624 s by "
        "8.3 s and 4.1 s: 15 of 19 cuts hold it; nothing finished there yet shows the hosts 24% "
        "faster than the scenario says (calibration/README, 'ETA')"
    ),
)
def test_the_eta_window_holds_the_shipped_restart_in_nine_cuts_of_ten(tmp_path):
    """Before issue 43 the window was the crash spread alone: 10 of 19 cuts held the true 624 s."""
    sets = [a for s in (DATA / "init-sets.txt").read_text().splitlines() if s and s[0] != "#" for a in ("-s", s)]
    p = ndbsim("init", "--config-ini", str(DATA / "config.ini"), *sets, "-o", "my.yaml", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    path = tmp_path / "my.yaml"
    rows = read_rows(str(DATA / "restart_info.csv"))
    cuts = replay(open_session(path, None, None, []), rows, 0, START)
    cuts += replay(open_session(path, None, None, []), rows, 1, START)
    inside = [c["window_p5"] - 0.5 <= c["truth"] <= c["window_p95"] + 0.5 for c in cuts]
    # Before a column has finished anywhere the window is run's interval, and this scenario's hosts
    # (given, so no defaults' width) are 24% faster than the rows: the model's measured error
    # (leave-one-family-out, issue 49) does not stretch to that, so the first wave's first two cuts
    # miss it; from the first finished phase on, every cut holds it (benchmarks/eta_coverage.py:
    # 55 of 61 cuts over this restart and two of ndbsim's own, 90%).
    assert sum(inside) >= len(cuts) - 2, [(c["cut"], c["window_p5"], c["window_p95"]) for c in cuts]
    assert all(ok for ok, c in zip(inside, cuts) if c["fit_nodes"] or c["fit_phases"] > 4), cuts
    restored = [c for c in cuts if c["phase"] in ("secs_index_rebuild", "secs_wait_lcp_for_restart", "done")]
    assert restored and all(abs(c["error"]) <= 0.10 for c in restored)
    widths = sorted((c["window_p95"] - c["window_p5"]) / c["truth"] for c in restored)
    assert widths[len(widths) // 2] <= 0.25
    # it narrows as phases finish: the last cut of a wave is narrower than its first
    assert cuts[-1]["window_p95"] - cuts[-1]["window_p5"] < cuts[0]["window_p95"] - cuts[0]["window_p5"]


def test_check_cross_ends_with_its_held_out_coverage():
    def held(name, published, p5, p95):
        row = Row(name, "fit", "total_restart_secs", published, 1000.0, 50.0, False)
        return Held(name, [row], 1, {"p5": p5, "p50": 1000.0, "p95": p95})

    found = [held("a", 900.0, 800.0, 1200.0), held("b", 1500.0, 800.0, 1200.0), Held("c", [], 1, None)]
    lines = coverage_lines(found)
    assert "held-out coverage: 1 of 2" in lines
    assert lines[-1] == "median width (p95/p5): ×1.50"
    assert any("inside" in line for line in lines) and any("outside" in line for line in lines)
    assert math.isfinite(found[0].interval["p95"])


def test_advise_and_solve_variants_and_compare_sides_carry_the_interval():
    from ndbsim.input import scenario as sc
    from ndbsim.studies.runs import evaluate

    v = evaluate(sc.copy_raw(sc.DEFAULT_SCENARIO), ("host.cpu_cores=16",), 1, 3)
    iv = v.interval
    # the median moves only by the defaults' ranges not centred on their values (a faster disk
    # than 0.1 ms is rarer than a slower one)
    assert iv["p5"] < iv["p50"] < iv["p95"] and iv["p50"] == pytest.approx(v.median, rel=0.05)
    assert iv["sources"]["model"]["p50"] == pytest.approx(v.median)
    # a variant runs without its header: its defaulted inputs come from the scenario's origins
    assert "host.core_speed" in iv["sources"]["defaults"]["from"]
    assert "host.cpu_cores" not in iv["sources"]["defaults"]["from"]  # the --set gave it
    p = ndbsim("compare", "scenarios/rolling-4-nodes-8.0.yaml", "-s", "host.core_speed=1.5", "-f", "json", cwd=ROOT)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["a"]["interval"]["p95"] > d["b"]["interval"]["p95"] > d["b"]["interval"]["p5"]
