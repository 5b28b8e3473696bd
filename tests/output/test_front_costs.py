"""What ``ndbsim.simulate`` does around the engine, done once: the scenario described once per
run (with each value's origin), class-level key walks made once per class, and a raw scenario
copied as ``copy.deepcopy`` would copy it."""

from __future__ import annotations

import copy
import os
import subprocess
import sys

import ndbsim
from ndbsim.input.scenario import DEFAULT_SCENARIO, Scenario, copy_raw, provenance
from ndbsim.models.load import load
from ndbsim.models.ndb import run_resolved
from ndbsim.output import explain, origins


def test_simulate_describes_the_scenario_once_with_its_origins(monkeypatch):
    calls = []
    real = explain.describe

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(explain, "describe", counting)
    result = ndbsim.simulate(replications=1, data__size="10GB")
    assert len(calls) == 1
    loaded = load(None, sets={"data.size": "10GB"}, set_origin=provenance.PYTHON_ARG)
    assert result.explained == real(loaded.prepared, loaded.origins, loaded.prepared.node_ids)
    assert all(d["key"] != "data.size" for d in result.explained["defaulted"])


def test_run_resolved_still_describes_by_default_and_skips_it_when_told():
    resolved = load(None).prepared
    described = run_resolved(resolved, seed=1, replications=1)
    bare = run_resolved(resolved, seed=1, replications=1, explained=False)
    assert described.explained["simulated"]["data_nodes"] == 2
    assert bare.explained == {}
    assert bare.to_dict()["replications"] == described.to_dict()["replications"]


def test_the_keys_of_a_model_class_are_walked_once():
    assert origins.leaf_keys(Scenario) is origins.leaf_keys(Scenario)
    keys = origins.explained_keys(Scenario, explain.EXPLAINED_SECTIONS)
    assert "host.cpu_cores" in keys and "version" in keys
    assert not any(k.startswith(("simulation.", "cluster.config")) for k in keys)


def test_copy_raw_copies_as_deepcopy_does():
    shared = {"size": "1TB", "tables": [{"name": "t", "rows": 1}]}
    raw = {"data": shared, "alias": shared, "pair": (1, [2]), "n": None}
    got = copy_raw(raw)
    assert got == copy.deepcopy(raw)
    assert got["alias"] is got["data"] and got["data"] is not shared  # an alias stays one value
    assert got["data"]["tables"][0] is not shared["tables"][0]
    assert got["pair"][1] is not raw["pair"][1]  # other containers go through deepcopy
    got["data"]["size"] = "2TB"
    assert shared["size"] == "1TB"
    fresh = copy_raw(DEFAULT_SCENARIO)
    fresh["cluster"]["data_nodes"] = 99
    assert DEFAULT_SCENARIO["cluster"]["data_nodes"] == 2


def test_the_command_line_runs_blas_single_threaded_unless_told():
    from ndbsim.cli import app as cli

    code = (
        "import os\nfrom ndbsim.cli.app import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "print(os.environ.get('OPENBLAS_NUM_THREADS'))\n"
    )
    for given, expected in ((None, cli.BLAS_THREADS["OPENBLAS_NUM_THREADS"]), ("4", "4")):
        env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
        if given is not None:
            env["OPENBLAS_NUM_THREADS"] = given
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
        assert p.stdout.strip().splitlines()[-1] == expected
