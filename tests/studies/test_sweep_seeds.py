"""A sweep row is reproduced by ``ndbsim run`` / ``ndbsim.simulate`` with the row's seed, for
both models: every path seeds replications through the model's one ``streams`` function."""

import json
import subprocess
import sys

import pytest
from conftest import ROOT

import ndbsim

INNODB_FILE = ROOT / "scenarios" / "innodb-tpcc1000-bp144g-flash.yaml"
NDB_FILE = ROOT / "scenarios" / "mysql51-1gb-onr-idle.yaml"


@pytest.mark.parametrize(
    "base,key,value",
    [(INNODB_FILE, "workload.run_time", 120), (NDB_FILE, "cluster.config.TimeBetweenLocalCheckpoints", 21)],
)
def test_a_sweep_row_equals_simulate_with_its_seed(base, key, value):
    df = ndbsim.sweep(base, {key: [value]}, replications=3, seed=11, workers=1, progress=False)
    assert list(df["status"]) == ["ok"] * 3
    seed = int(df["seed"].iloc[0])
    r = ndbsim.simulate(base, overrides=[f"{key}={value}"], seed=seed, replications=3)
    totals = [rep.total_restart_secs for rep in r.replications]
    assert list(df["total_restart_secs"]) == totals
    assert len(set(totals)) == 3  # the replications differ, so the comparison pins each stream


def test_an_innodb_sweep_row_equals_ndbsim_run_with_its_seed():
    df = ndbsim.sweep(INNODB_FILE, {"workload.run_time": [60, 120]}, seed=3, workers=1, progress=False)
    row = df.iloc[1]
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "ndbsim",
            "run",
            str(INNODB_FILE),
            "--set",
            "workload.run_time=120",
            "--seed",
            str(row["seed"]),
            "-n",
            "1",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["total_restart_secs"] == pytest.approx(row["total_restart_secs"], rel=1e-9, abs=0)


@pytest.mark.parametrize("seed", [0, 7, 2**32 - 1, 2**63 + 5])
def test_ndb_streams_are_the_root_seeds_spawned_children(seed):
    import numpy as np

    from ndbsim.models.ndb import streams

    children = np.random.SeedSequence(seed).spawn(3)
    for made, child in zip(streams(seed, 3), children, strict=True):
        expected = np.random.Generator(np.random.PCG64(child))
        assert made.bit_generator.state == expected.bit_generator.state
        assert made.random(4).tolist() == expected.random(4).tolist()
