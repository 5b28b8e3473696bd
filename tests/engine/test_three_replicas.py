"""Three replicas (issue 32): two starting nodes of one node group copy one after the other, waves may restart up to
NoOfReplicas − 1 nodes of a node group and say which node groups run on a single replica, and
solve plan runs every plan the replica count allows. The cluster is a user's: an 8.4.3
config.ini with NodeIds 21–23 and 31–33 and a ThreadConfig string, through ndbsim init."""

import json

import pytest
from _helpers import ndbsim

from ndbsim.input.restart_info import PHASES

CONFIG_INI = """
[ndbd default]
NoOfReplicas=3
DataMemory=96G
ThreadConfig=main,rep,recv={count=4},send={count=4},ldm={count=6},query={count=6},io
NoOfFragmentLogFiles=64
FragmentLogFileSize=1G

[ndb_mgmd]
NodeId=1
HostName=mgm1
""" + "".join(f"\n[ndbd]\nNodeId={n}\nNodeGroup={n // 10 - 2}\nHostName=d{n}\n" for n in (21, 22, 23, 31, 32, 33))

SETS = (
    "restart.type=rolling",
    "host.cpu_cores=16",
    "data.size=60GB",
    "data.tables=20",
    "data.ordered_indexes=10",
    "workload.updates_per_s=2000",
    "workload.inserts_per_s=200",
)
"""A rolling restart of the cluster under a light load: the copy is mostly the live node's scan."""

TWO_A_GROUP = "restart.plan=[[21, 22, 31, 32], [23, 33]]"
COPY = "secs_to_synchronize_starting_node"


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    d = tmp_path_factory.mktemp("three")
    ini = d / "config.ini"
    ini.write_text(CONFIG_INI)
    out = ndbsim("init", "--config-ini", str(ini), "--version", "8.4.3", "-o", str(d / "s.yaml"))
    assert out.returncode == 0, out.stderr
    return str(d / "s.yaml")


def _run(scenario, *sets):
    args = ["run", scenario, "-f", "json"]
    for s in (*SETS, *sets):
        args += ["--set", s]
    out = ndbsim(*args)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _node(d, nid):
    return next(n for n in d["nodes"] if n["node_id"] == nid)


@pytest.fixture(scope="module")
def per_group(scenario):
    return _run(scenario)


@pytest.fixture(scope="module")
def two_a_group(scenario):
    return _run(scenario, TWO_A_GROUP)


def _copy_span(d, nid):
    """(start, end) of a node's copy, in seconds from its wave's start (its phases in order)."""
    phases = _node(d, nid)["restart_info"]
    start = sum(phases.get(p, 0.0) for p in PHASES[: PHASES.index(COPY)])
    return start, start + phases[COPY]


def test_two_copies_of_one_node_group_run_one_after_the_other(per_group, two_a_group):
    """DbdihMain.cpp, Dbdih::execUPDATE_TOREQ: one take-over per node group (activeTakeOver); the
    refused node asks again every 5 s (Dbdih::execUPDATE_TOREF), its wait inside its own copy."""
    for first, second, live in ((21, 22, 23), (31, 32, 33)):
        a, b = _copy_span(two_a_group, first), _copy_span(two_a_group, second)
        why = _node(two_a_group, second)["why"][COPY]
        assert "takeover_wait_secs" not in _node(two_a_group, first)["why"][COPY]["figures"]
        assert why["figures"]["waited_for_node"] == first
        # the second asked while the first copied and got the take-over at its first retry after
        assert b[0] < a[1] and why["figures"]["takeover_wait_secs"] > 0
        assert a[1] <= b[0] + why["figures"]["takeover_wait_secs"] <= a[1] + 5.0 + 1e-6
        assert "Dbdih::execUPDATE_TOREQ" in why["mechanism"]
        # one copy at a time from the live node, none served twice at once
        for nid in (first, second):
            figures = _node(two_a_group, nid)["why"][COPY]["figures"]
            assert figures["live_node"] == live and figures.get("copies_served", 1) == 1
        # the second's copy holds the wait and its own copy, which ships more: its target moved on
        alone = _node(per_group, second)["phases"][COPY]
        assert _node(two_a_group, second)["phases"][COPY] >= why["figures"]["takeover_wait_secs"] + 0.9 * alone
    # node groups take over independently: the first copies of both node groups overlap
    a, b = _copy_span(two_a_group, 21), _copy_span(two_a_group, 31)
    assert max(a[0], b[0]) < min(a[1], b[1])
    # the wave's last nodes copy from two live nodes, one copy each, as in the per-node-group plan
    last = _node(two_a_group, 23)["why"][COPY]["figures"]
    assert last["live_nodes"] == "21, 22" and last["copies_served"] == 1


def test_per_node_group_copies_from_both_live_nodes_and_keeps_two_replicas(per_group):
    why = _node(per_group, 21)["why"][COPY]
    assert why["figures"]["live_nodes"] == "22, 23" and why["figures"]["copies_served"] == 1
    # each live node serves this copy alone (the scan may be the copy's slower side, never shared)
    assert "serving" not in why["bottleneck"]
    assert all(w["single_replica"] == [] for w in per_group["schedule"]["waves"])
    assert not any("single replica" in w for w in per_group["warnings"])


def test_a_wave_leaving_one_replica_is_named_with_its_node_group_and_length(two_a_group):
    first, second = two_a_group["schedule"]["waves"]
    assert [(g["node_group"], g["live_node"], g["restarting"]) for g in first["single_replica"]] == [
        (0, 23, [21, 22]),
        (1, 33, [31, 32]),
    ]
    for g in first["single_replica"]:
        assert 0 < g["secs"] <= first["secs"]
    assert second["single_replica"] == []
    (warning,) = [w for w in two_a_group["warnings"] if "single replica" in w]
    assert "wave 1" in warning and "node group 0" in warning and "node 23" in warning and "node group 1" in warning


def test_the_table_says_it_too(scenario):
    args = ["run", scenario, "-n", "3"]
    for s in (*SETS, TWO_A_GROUP):
        args += ["--set", s]
    out = ndbsim(*args)
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stdout.splitlines() if x.startswith("wave 1 "))
    assert "single replica: node group 0 on node 23 for" in line and "node group 1 on node 33" in line
    # one warning for the wave, whatever each replication's seconds (the schedule gives them)
    assert out.stderr.count("single replica in wave 1") == 1


def test_two_replicas_state_the_single_replica_without_a_warning():
    out = ndbsim("run", "scenarios/rolling-4-nodes-8.0.yaml", "-n", "1", "-f", "json")
    d = json.loads(out.stdout)
    assert [[g["node_group"] for g in w["single_replica"]] for w in d["schedule"]["waves"]] == [[0, 1], [0, 1]]
    assert not any("single replica" in w for w in d["warnings"])


def test_solve_plan_runs_every_plan_three_replicas_allow(scenario):
    args = ["solve", "plan", scenario, "--window", "12m", "-n", "1", "-f", "json"]
    for s in SETS:
        args += ["--set", s]
    out = ndbsim(*args)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    plans = {p["plan"]: p for p in d["plans"]}
    assert len(plans) >= 3
    assert {"one-at-a-time", "per-node-group", "[[21, 22, 31, 32], [23, 33]]"} <= set(plans)
    # safest first: plans keeping two replicas before those leaving one
    kept = [p["replicas_kept"] for p in d["plans"]]
    assert kept == sorted(kept, reverse=True) and kept[0] == 2 and kept[-1] == 1
    two = plans["[[21, 22, 31, 32], [23, 33]]"]
    assert two["window_secs"] < plans["per-node-group"]["window_secs"] < plans["one-at-a-time"]["window_secs"]
    assert [g["node_group"] for g in two["single_replica"]] == [0, 1] and "single replica" in two["exposure"]
    assert plans["per-node-group"]["single_replica"] == []
    # the answer is the safest plan that fits, verified by its run
    fitting = [p for p in d["plans"] if p["fits"]]
    assert d["shown"] == fitting[0]["plan"] and d["answer_run"]["total_restart_secs"] <= 12 * 60
