"""One figure per scenario: the same scenario, seed and replications give the same total in
``ndbsim run``, ``simulate()``, advise's base row, a one-point sweep and solve's verifying runs
(every path seeds replication ``r`` with the same stream)."""

import io
import json
import statistics

import pandas as pd
import pytest
from _helpers import ndbsim as ndbsim_cli
from conftest import ROOT

import ndbsim

SCENARIO = str(ROOT / "scenarios" / "rolling-4-nodes-8.0.yaml")
SEED, N = 7, 3


@pytest.fixture(scope="module")
def run_total():
    p = ndbsim_cli("run", SCENARIO, "-n", str(N), "--seed", str(SEED), "-f", "json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["total_restart_secs"]


def test_simulate_gives_runs_total(run_total):
    # JSON writes seconds to nine decimals, so "the same" is to the nanosecond
    assert ndbsim.simulate(SCENARIO, seed=SEED, replications=N).total_restart_secs == pytest.approx(run_total, abs=1e-9)


def test_advise_base_row_is_runs_total(run_total):
    p = ndbsim_cli(
        "advise", SCENARIO, "-n", str(N), "--seed", str(SEED), "-w", "1", "-l", "BuildIndexThreads", "-f", "json"
    )
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["base"]["total_restart_secs"] == run_total


def test_a_one_point_sweep_is_runs_total(run_total, tmp_path):
    spec = tmp_path / "one.yaml"
    spec.write_text(
        f"base: {SCENARIO}\nfactors:\n  simulation.seed: [{SEED}]\nreplications: {N}\nseed: {SEED}\n", encoding="utf-8"
    )
    p = ndbsim_cli("sweep", str(spec), "-w", "1")
    assert p.returncode == 0, p.stderr
    df = pd.read_csv(io.StringIO(p.stdout))
    assert set(df["seed"]) == {SEED} and len(df) == N
    assert statistics.median(df["total_restart_secs"]) == pytest.approx(run_total, abs=1e-9)


def test_solves_verifying_run_is_runs_total_with_its_settings():
    p = ndbsim_cli("solve", "lcp-speed", SCENARIO, "--window", "9m", "-n", str(N), "--seed", str(SEED), "-f", "json")
    assert p.returncode == 0, p.stderr
    a = json.loads(p.stdout)
    sets = [x for s in a["set"] for x in ("--set", s)]
    r = ndbsim_cli("run", SCENARIO, "-n", str(N), "--seed", str(SEED), "-f", "json", *sets)
    assert json.loads(r.stdout)["total_restart_secs"] == a["answer_run"]["total_restart_secs"]
