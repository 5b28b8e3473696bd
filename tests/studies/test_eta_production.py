"""``ndbsim eta`` on a production cluster (issue 40): data nodes up for months, a snapshot's
seconds held to what NDB's ndbinfo columns can hold (the same bound in ``init --ndbinfo``,
``eta`` and ``calibrate --restart-info``), and the snapshot's release against the scenario's."""

from __future__ import annotations

import json
import math
import re

import pytest
from _helpers import ETA_DATA as DATA
from _helpers import ETA_START as START
from _helpers import eta_cluster, ndbsim
from conftest import ROOT

from ndbsim.errors import InputError
from ndbsim.input.ndbinfo import NUMBER64_MAX, NUMBER_MAX, seconds_problem
from ndbsim.input.snapshot.read import parse_snapshot
from ndbsim.studies.calibration.restart_rows import observations
from ndbsim.studies.eta.release import check_release
from ndbsim.studies.eta.replay import UP_BEFORE, cut_times, read_rows, snapshot_text, wave_starts
from ndbsim.studies.eta.session import open_session

WAVES = [[11, 13], [12, 14]]
DAYS_90 = 7_776_000
"""Ninety days of uptime, in seconds: the nodes not yet restarted, as on a production cluster."""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    return eta_cluster(tmp_path_factory, "eta-production")


def _one_line(p) -> str:
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr, p.stderr
    return p.stderr


def test_every_phase_boundary_answers_with_the_waiting_nodes_up_90_days(cluster):
    # the cuts tests/studies/test_eta.py replays at every phase boundary of both waves (each must
    # answer there) show the nodes not yet restarted up 90 days, as on a production cluster
    assert UP_BEFORE == DAYS_90
    rows = cluster["rows"]
    for at in cut_times(rows, WAVES, 0, START):
        text = snapshot_text(rows, WAVES, START, at)
        assert text.count(f"\t{DAYS_90}\tSTARTED") == (2 if at < wave_starts(rows, WAVES, START)[1] else 0)
    # through the command line, as a user runs it: exit 0, the waiting nodes shown as such
    at = cut_times(rows, WAVES, 0, START)[6]
    (cluster["dir"] / "90d.tsv").write_text(snapshot_text(rows, WAVES, START, at, up_before=DAYS_90))
    p = ndbsim("eta", "my.yaml", "--ndbinfo", "90d.tsv", "-n", "2", "-f", "json", cwd=cluster["dir"])
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    by = {n["node_id"]: n for n in d["nodes"]}
    assert by[12]["status"] == by[14]["status"] == "waiting" and by[11]["status"] == "restarting"
    assert d["plan_end"]["p5"] <= d["plan_end"]["p50"] <= d["plan_end"]["p95"] < at + 3600


def test_the_bounds_are_what_ndbinfos_columns_hold():
    # nodes.uptime is Ndbinfo::Number64, restart_info's seconds Ndbinfo::Number (NdbinfoTables.cpp)
    assert seconds_problem(DAYS_90, "nodes", "uptime") is None
    assert seconds_problem(20 * 365 * 86400, "nodes", "uptime") is None  # twenty years
    assert seconds_problem(NUMBER_MAX, "restart_info", "secs_to_allocate_node_id") is None
    assert "0-4294967295" in seconds_problem(NUMBER_MAX + 1, "restart_info", "secs_to_allocate_node_id")
    assert f"0-{NUMBER64_MAX}" in seconds_problem(2e19, "nodes", "uptime")
    for bad in (-1.0, math.inf, math.nan):
        assert seconds_problem(bad, "nodes", "uptime") is not None


def _export(tmp_path, allocate: int, uptime: int):
    """The 8.0.35 export with node 12 down ``allocate`` s before its restart and every node up ``uptime`` s."""
    text = (ROOT / "tests" / "ndbinfo" / "export-8.0.35.tsv").read_text()
    text = re.sub(r"(?m)^(1[1-4])\t86400\tSTARTED", lambda m: f"{m.group(1)}\t{uptime}\tSTARTED", text)
    row = next(line for line in text.splitlines() if line.startswith("12\tRestart completed"))
    cells = row.split("\t")
    cells[4] = str(allocate)  # secs_to_allocate_node_id
    cells[-1] = str(int(cells[-1]) + allocate)  # total_restart_secs counts it too
    (tmp_path / "export.tsv").write_text(text.replace(row, "\t".join(cells)))
    return tmp_path / "export.tsv"


def test_init_eta_and_calibrate_hold_a_snapshot_to_the_same_bounds(tmp_path, cluster):
    # a node stopped two weeks for repair, the others up 90 days: every command reads it
    _export(tmp_path, 14 * 86400, DAYS_90)
    p = ndbsim("init", "--ndbinfo", "export.tsv", "-o", "mine.yaml", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    (row,) = observations(tmp_path / "mine.restart_info.csv")
    assert row["phases"]["secs_to_allocate_node_id"] == 14 * 86400
    # a value no Uint32 column holds: each one refuses it, naming the column and NDB's range
    _export(tmp_path, NUMBER_MAX + 1, DAYS_90)
    line = _one_line(ndbsim("init", "--ndbinfo", "export.tsv", "-o", "bad.yaml", cwd=tmp_path))
    assert "secs_to_allocate_node_id=4.29497e+09" in line and "0-4294967295" in line
    assert not (tmp_path / "bad.yaml").exists()
    csv = tmp_path / "mine.restart_info.csv"
    csv.write_text(csv.read_text().replace(str(14 * 86400), str(NUMBER_MAX + 1)))
    with pytest.raises(InputError, match="4294967295"):
        observations(csv)
    rows, d = cluster["rows"], cluster["dir"]
    at = cut_times(rows, WAVES, 1, START)[3]
    text = snapshot_text(rows, WAVES, START, at)  # wave 1 done, wave 2 under way
    restarted = next(ln for ln in text.splitlines() if ln.startswith("11\tRestart completed"))
    bad_row = restarted.split("\t")
    bad_row[4] = str(NUMBER_MAX + 1)
    (d / "u32.tsv").write_text(text.replace(restarted, "\t".join(bad_row)))
    line = _one_line(ndbsim("eta", "my.yaml", "--ndbinfo", "u32.tsv", cwd=d))
    assert "ndbinfo.restart_info" in line and "0-4294967295" in line
    first_wave = cut_times(rows, WAVES, 0, START)[3]
    (d / "u64.tsv").write_text(snapshot_text(rows, WAVES, START, first_wave, up_before=2e19))
    line = _one_line(ndbsim("eta", "my.yaml", "--ndbinfo", "u64.tsv", cwd=d))
    assert "ndbinfo.nodes" in line and "uptime" in line and f"0-{NUMBER64_MAX}" in line


def test_a_snapshot_of_another_release_is_named_in_one_line(cluster):
    rows, d = cluster["rows"], cluster["dir"]
    at = cut_times(rows, WAVES, 0, START)[5]
    (d / "843.tsv").write_text(snapshot_text(rows, WAVES, START, at, release="8.4.3"))
    line = _one_line(ndbsim("eta", "my.yaml", "--ndbinfo", "843.tsv", cwd=d))
    assert "8.4.3" in line and "8.0.35" in line and "sql_node_ndb_version" in line
    assert "ndb-8.4.3" in line and "--set version=8.4.3" in line
    # the SQL node on 8.0.35 but a data node on 8.4.3 (processes.node_version): named the same way
    text = snapshot_text(rows, WAVES, START, at).replace("\n13\tNDB\t8.0.35\n", "\n13\tNDB\t8.4.3\n")
    (d / "node843.tsv").write_text(text)
    line = _one_line(ndbsim("eta", "my.yaml", "--ndbinfo", "node843.tsv", cwd=d))
    assert "data node 13 runs NDB 8.4.3" in line and "8.0.35" in line
    # the same release goes on
    (d / "same.tsv").write_text(snapshot_text(rows, WAVES, START, at))
    assert ndbsim("eta", "my.yaml", "--ndbinfo", "same.tsv", "-n", "2", cwd=d).returncode == 0


def test_an_upgrade_takes_both_of_its_releases_and_no_other():
    snap = parse_snapshot(snapshot_text(read_rows(str(DATA / "restart_info.csv")), WAVES, START, START + 1), "s")
    nodes = [11, 12, 13, 14]
    check_release(snap, "8.0.35", None, nodes)
    check_release(snap, "8.0", None, nodes)  # a release line takes any of its patches
    with pytest.raises(InputError, match=r"runs NDB 8\.0\.35 .* but the scenario simulates 8\.0\.36"):
        check_release(snap, "8.0.36", None, nodes)
    # mid-upgrade from 7.6.30 to 8.0.35: the SQL node still on the old release, one data node on each
    snap.sql_node_version = "ndb-7.6.30"
    snap.node_releases.update({11: "8.0.35", 12: "7.6.30"})
    check_release(snap, "7.6.30", "8.0.35", nodes)
    with pytest.raises(InputError, match=r"SQL node runs NDB 7\.6\.30 .* the scenario upgrades 7\.5\.10 to 8\.0\.35"):
        check_release(snap, "7.5.10", "8.0.35", nodes)
    snap.node_releases[13] = "8.4.3"
    with pytest.raises(
        InputError, match=r"data node 13 runs NDB 8\.4\.3 but the scenario upgrades 7\.6\.30 to 8\.0\.35"
    ):
        check_release(snap, "7.6.30", "8.0.35", nodes)


def test_the_shipped_upgrade_scenario_takes_a_snapshot_from_either_release():
    session = open_session(ROOT / "scenarios" / "upgrade-7.5-to-8.0-4-nodes.yaml", 2, None, [])
    assert (session.version, session.upgrade_to) == ("7.5.10", "8.0.35")
    rows = read_rows(str(DATA / "restart_info.csv"))
    snap = parse_snapshot(snapshot_text(rows, WAVES, START, START + 1, release="7.5.10"), "s")
    snap.node_releases = {1: "8.0.35", 2: "7.5.10", 3: "7.5.10", 4: "7.5.10"}
    check_release(snap, session.version, session.upgrade_to, session.data_nodes)
    snap.sql_node_version = "ndb-8.0.35"  # the SQL nodes upgraded first: still the upgrade's releases
    check_release(snap, session.version, session.upgrade_to, session.data_nodes)
    snap.node_releases[2] = "8.4.3"
    with pytest.raises(InputError, match=r"data node 2 runs NDB 8\.4\.3 but the scenario upgrades 7\.5\.10 to"):
        check_release(snap, session.version, session.upgrade_to, session.data_nodes)
