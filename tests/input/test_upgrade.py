"""Upgrade and maintenance windows: initial rolling restarts, restart.upgrade_to, and the
per-node schedule of every restart of several nodes (table, JSON, CSV, Gantt)."""

import csv
import dataclasses
import io
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT

from ndbsim.engine.prepare import prepare
from ndbsim.engine.records import NodeRun
from ndbsim.engine.restart.node_restart import NodeRestart
from ndbsim.engine.restart.pipeline import copy_features
from ndbsim.engine.runtime import Runtime
from ndbsim.errors import InputError
from ndbsim.input import scenario as sc
from ndbsim.input.upgrade import check_upgrade, needs_initial
from ndbsim.models.load import load
from ndbsim.output.table import phase_table

UPGRADE = ROOT / "scenarios" / "upgrade-7.5-to-8.0-4-nodes.yaml"
ROLLING = ROOT / "scenarios" / "rolling-4-nodes-8.0.yaml"


def run(path, *sets, n=1):
    return load(path, overrides=list(sets)).run(replications=n)


def cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "ndbsim", *args], cwd=cwd, capture_output=True, text=True)


@pytest.fixture(scope="module")
def upgrade():
    return run(UPGRADE, n=3)


def test_upgrade_window_adds_up(upgrade):
    """4 nodes, 7.5.10 -> 8.0.35, initial rolling under 20k updates/s: two waves of one node per
    group; the waves follow one another and add up to the printed window."""
    assert upgrade.status == "ok"
    sch = upgrade.schedule()
    assert [w["nodes"] for w in sch["waves"]] == [[1, 3], [2, 4]]
    assert sch["window_secs"] == upgrade.total_restart_secs  # odd count: the median replication's
    assert sum(w["secs"] for w in sch["waves"]) == pytest.approx(sch["window_secs"], rel=1e-12)
    assert sch["waves"][1]["start_secs"] == sch["waves"][0]["end_secs"]
    for x in sch["nodes"]:
        assert x["release"] == "8.0.35"
        assert x["end_secs"] - x["start_secs"] == pytest.approx(x["node_total_secs"])
    assert max(x["end_secs"] for x in sch["nodes"]) == pytest.approx(sch["window_secs"])
    table = phase_table(upgrade)
    window = sch["window_secs"]
    assert f"window: {window:.1f} s = " in table
    assert "wave 2 (nodes 2, 4)" in table


def test_upgraded_nodes_run_their_own_release_while_the_lcp_stays_old(upgrade):
    """Each node copies with 8.0's two-pass copy and rebuilds its indexes offline (7.5 copies in
    one pass), while the cluster keeps 7.5's full LCP and its end-of-restart wait."""
    old = run(UPGRADE, "restart.upgrade_to=null")
    new = upgrade.first
    assert upgrade.first.checkpoint["policy"] == old.first.checkpoint["policy"] == "full"
    assert all(upgrade.phases(n)["secs_index_rebuild"] > 0 for n in upgrade.node_ids())
    assert all(old.phases(n)["secs_index_rebuild"] == 0 for n in old.node_ids())
    for x in new.nodes:
        assert "local_lcp_bytes" not in x.facts.as_dict()  # no partial-LCP local LCP in a 7.5 cluster
        assert x.facts.copied_rows >= 40 * 2**30 / 250  # --initial: every row copied
    # each node's own steps change; its end may not: DIH holds the LCP start for a node about
    # to need it (Dbdih::check_stall_lcp_start), and the wait for it takes up the difference
    waits = [upgrade.phases(n)["secs_wait_lcp_for_restart"] for n in upgrade.node_ids()]
    assert waits != [old.phases(n)["secs_wait_lcp_for_restart"] for n in old.node_ids()]


def test_initial_rolling_restarts_every_node_initial_in_waves():
    r = run(ROLLING, "restart.type=initial-rolling")
    assert r.status == "ok"
    assert [(n.node_id, n.wave, n.kind) for n in r.first.nodes] == [
        (1, 1, "initial"),
        (3, 1, "initial"),
        (2, 2, "initial"),
        (4, 2, "initial"),
    ]
    assert all(n.facts.restore_bytes is None for n in r.first.nodes)  # nothing of its own to restore
    plain = run(ROLLING)
    assert r.total_restart_secs > plain.total_restart_secs  # copying everything takes longer


def test_two_pass_copy_needs_equal_lqh_workers():
    """The starting node's DIH turns TwoPassInitialNodeRestartCopy off when a live node runs another
    number of LQH workers (Dbdih::execREAD_NODESCONF)."""
    resolved = load(UPGRADE).prepared
    rng = np.random.default_rng(1)
    rt = Runtime(prepare(resolved, rng), rng)
    node = rt.nodes[0]
    r = NodeRestart(rt, node, NodeRun(node_id=1, kind="initial", start=0.0), crash=0.0, initial=True)
    node.restarting = True
    assert rt.restarted_as.ldm == rt.sz.ldm == 8
    assert copy_features(r).two_pass_copy
    rt.restarted_as = dataclasses.replace(rt.restarted_as, ldm=4)
    assert not copy_features(r).two_pass_copy
    for n in rt.nodes[1:]:
        n.upgraded = True  # every live node now runs 4 LQH workers too
    assert copy_features(r).two_pass_copy


@pytest.mark.parametrize(
    ("version", "target", "kind", "field", "words"),
    [
        ("7.5.10", "7.5.4", "initial-rolling", "restart.upgrade_to", "not newer than version 7.5.10"),
        ("8.0.35", "8.0.35", "rolling", "restart.upgrade_to", "not newer"),
        ("7.5.10", "9.9.1", "initial-rolling", "restart.upgrade_to", "not modelled"),
        ("7.5.10", "8.0.35", "rolling", "restart.type", "--initial; use restart.type=initial-rolling"),
        ("7.6.6", "8.0.35", "system", "restart.type", "use restart.type=rolling or initial-rolling"),
        ("7.2.10", "8.0.35", "initial-rolling", "restart.upgrade_to", "upgrade in stages"),
        ("7.6.3", "8.0.35", "initial-rolling", "restart.upgrade_to", "7.6.4 and later"),
        ("8.0.18", "8.4.0", "rolling", "restart.upgrade_to", "8.0.19"),
    ],
)
def test_bad_upgrades_name_the_field(version, target, kind, field, words):
    with pytest.raises(InputError) as e:
        check_upgrade(version, target, kind)
    assert e.value.field == field and words in e.value.message


def test_good_upgrade_paths_pass():
    check_upgrade("7.6.6", "8.0.35", "rolling")  # both have the partial LCP: no --initial needed
    check_upgrade("8.0.19", "8.4.0", "rolling")
    check_upgrade("7.5.10", "7.6.6", "initial-rolling")
    check_upgrade("7.6.6", "8.0.35", "node")
    assert [".".join(map(str, b)) for b in needs_initial((7, 5, 10), (8, 0, 35))] == ["7.6.2", "7.6.4"]
    assert needs_initial((7, 6, 6), (8, 0, 35)) == []


def test_an_older_release_is_one_line_exit_2_and_no_files(tmp_path):
    chart = tmp_path / "g.png"
    p = cli("run", str(UPGRADE), "--set", "restart.upgrade_to=7.4.12", "--gantt", str(chart))
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and "restart.upgrade_to" in p.stderr and "Traceback" not in p.stderr
    assert not chart.exists() and not list(tmp_path.iterdir())


def test_upgrade_checks_the_new_release_config():
    """A value the new release does not accept is an error naming that release."""
    with pytest.raises(InputError) as e:
        load(UPGRADE, overrides=["cluster.config.NoOfFragmentLogParts=5", "restart.upgrade_to=8.0.35"])
    assert e.value.field == "cluster.config.NoOfFragmentLogParts"
    assert "on the upgrade's release 8.0.35" in e.value.message


def test_schedule_in_json_and_csv_only_for_several_nodes(upgrade):
    d = json.loads(upgrade.to_json())
    assert d["schedule"]["waves"][0]["nodes"] == [1, 3]
    assert d["scenario"]["restart"]["upgrade_to"] == "8.0.35"
    head, row = list(csv.reader(io.StringIO(upgrade.to_csv())))[:2]
    assert "status" in head and head[-3:] == ["wave", "node_start_secs", "node_end_secs"]
    assert row[0] == "1" and row[-3] == "1" and float(row[-2]) == 0.0
    single = run(ROOT / "scenarios" / "dbt2-600wh-7.6.6.yaml")
    assert "schedule" not in json.loads(single.to_json())
    assert "upgrade_to" not in json.loads(single.to_json())["scenario"]["restart"]
    single_head = next(csv.reader(io.StringIO(single.to_csv())))
    assert "status" in single_head and "wave" not in single_head
    assert "schedule" not in phase_table(single)


def test_gantt_labels_the_waves(upgrade, tmp_path):
    from ndbsim.output.plot import gantt

    fig = gantt(upgrade, tmp_path / "u.png")
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["wave 1 · node 1", "wave 1 · node 3", "wave 2 · node 2", "wave 2 · node 4"]
    notes = [t.get_text() for t in ax.texts]
    assert any(s.startswith("wave 1: ") for s in notes) and any(s.startswith("wave 2: ") for s in notes)
    assert "7.5.10 → 8.0.35" in ax.get_title()
    assert (tmp_path / "u.png").stat().st_size > 0


def test_stuck_wave_has_no_length():
    """A wave whose copy never converges has no end: the schedule says so (null in JSON)."""
    r = run(ROLLING, "workload.inserts_per_s=5e6")
    sch = r.schedule()
    assert r.status == "non-converging"
    assert math.isinf(sch["waves"][0]["secs"])
    assert json.loads(r.to_json())["schedule"]["waves"][0]["secs"] is None


def test_partial_upgrade_warns_the_cluster_stays_mixed():
    r = run(ROLLING, "version=7.6.6", "restart.upgrade_to=8.0.35", "restart.nodes=[1,3]")
    assert any("stays mixed" in w for w in r.warnings)
    assert sc.ROLLING_TYPES == ("rolling", "initial-rolling")
