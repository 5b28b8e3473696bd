"""One range everywhere (issue 49 item 4): run, compare, report, advise and solve give the same
scenario the same predictive p5–p95, and solve's --quantile reads the same distribution. Compare
used to drop the defaults source (A 9m52s–18m09s where run printed 9m09s–20m38s) and solve's
plans took the crash moment's spread ("p95 29m11s fits" beside a predictive p95 of 45m39s)."""

from __future__ import annotations

import json
import re

import pytest
from _helpers import ndbsim as cli
from conftest import ROOT

from ndbsim.input.units import format_secs
from ndbsim.output.interval import range_text
from ndbsim.studies.advise.study import advise_full
from ndbsim.studies.solve import solve

ROLLING = str(ROOT / "scenarios" / "rolling-4-nodes-8.0.yaml")
N, SEED = "10", "1"


@pytest.fixture(scope="module")
def run_range():
    p = cli("run", ROLLING, "-n", N, "--seed", SEED, "-f", "json")
    assert p.returncode == 0, p.stderr
    iv = json.loads(p.stdout)["interval"]
    return iv["p5"], iv["p95"]


def test_run_compare_report_advise_and_solve_give_the_same_range(run_range, tmp_path):
    p5, p95 = run_range
    shown = f"{format_secs(p5)}–{format_secs(p95)}"
    cmp = cli("compare", ROLLING, ROLLING, "-n", N, "--seed", SEED, "-f", "json")
    assert cmp.returncode == 0, cmp.stderr
    a = json.loads(cmp.stdout)["a"]["interval"]
    assert (a["p5"], a["p95"]) == pytest.approx((p5, p95), rel=1e-9)
    out = tmp_path / "r.html"
    rep = cli(
        "report",
        ROLLING,
        "-n",
        N,
        "--seed",
        SEED,
        "--lever",
        "RecoveryWork",
        "--advise-replications",
        "2",
        "-o",
        str(out),
    )
    assert rep.returncode == 0, rep.stderr
    html = out.read_text()
    # the managers' summary says it in words; "The range, for engineers" prints the same range
    assert f"should take between {format_secs(p5)} and {format_secs(p95)}" in html, shown
    assert re.search(r"<h2>The range, for engineers</h2>\s*<p>Predictive p5–p95 " + re.escape(shown), html), shown
    adv = advise_full(ROLLING, levers=["RecoveryWork"], replications=int(N), seed=int(SEED))
    assert range_text(adv.base.interval) == shown
    ans = solve("plan", ROLLING, window="25m", replications=int(N), seed=int(SEED), quantile=0.95)
    assert ans.shown == "per-node-group" and range_text(ans.outcome.interval) == shown


def test_solve_quantile_is_the_predictive_quantile(run_range):
    """The plan one-at-a-time's crash-moment p95 (15m46s) fits 25m; its predictive p95 (31m49s)
    does not, so the answer is the per-node-group plan, whose p95 is run's predictive p95."""
    _, p95 = run_range
    ans = solve("plan", ROLLING, window="25m", replications=int(N), seed=int(SEED), quantile=0.95)
    row = {r["plan"]: r for r in ans.plans}
    assert not row["one-at-a-time"]["fits"] and row["per-node-group"]["window_secs"] == pytest.approx(p95, rel=1e-9)


def test_compare_keeps_the_defaults_source_of_an_init_scenario(tmp_path):
    """The 900G disk-data 8.0.35 cluster as ``ndbsim init`` writes it: compare's A used to print
    32m13s–1h00m09s beside run's 29m36s–1h11m09s (the defaults source dropped)."""
    data = ROOT / "tests" / "data" / "disk-data-8.0.35"
    sets = [x for x in (data / "init-sets.txt").read_text().splitlines() if x and not x.startswith("#")]
    path = tmp_path / "disk.yaml"
    args = [a for x in sets for a in ("--set", x)]
    p = cli("init", "--config-ini", str(data / "config.ini"), "--version", "8.0.35", *args, "-o", str(path))
    assert p.returncode == 0, p.stderr
    run = json.loads(cli("run", str(path), "-n", "2", "-f", "json").stdout)["interval"]
    cmp = json.loads(cli("compare", str(path), str(path), "-n", "2", "-f", "json").stdout)["a"]["interval"]
    assert cmp["sources"]["defaults"]["from"] == run["sources"]["defaults"]["from"]
    assert (cmp["p5"], cmp["p95"]) == pytest.approx((run["p5"], run["p95"]), rel=1e-9)
