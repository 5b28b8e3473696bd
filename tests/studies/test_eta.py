"""``ndbsim eta`` (issue 33) on the shipped rolling restart (tests/data/rolling-8.0.35, NodeIds
11-14): snapshots cut from its rows at every phase boundary of the second wave, a snapshot with
nothing finished against ``run``, restart_info's status columns as NDB writes them, and the bad
snapshots that are one line and exit 2."""

from __future__ import annotations

import json
import math
import shutil

import pytest
from _helpers import ETA_START as START
from _helpers import eta_cluster, ndbsim

from ndbsim.errors import InputError
from ndbsim.input.snapshot.read import parse_snapshot
from ndbsim.input.snapshot.status import STATES, state_of
from ndbsim.studies.eta.replay import cut_times, replay, snapshot_text
from ndbsim.studies.eta.session import open_session


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    return eta_cluster(tmp_path_factory, "eta")


def _write(cluster, name: str, at: float) -> str:
    waves = [[11, 13], [12, 14]]
    (cluster["dir"] / name).write_text(snapshot_text(cluster["rows"], waves, START, at))
    return name


def test_the_states_follow_fill_row_with_node_restart_status():
    # the enum value with get_status_str's text, and the manual's number with it
    assert state_of("Restore fragments ongoing", 12, "x").current == "secs_restore_fragments"
    assert state_of("Restart completed", 19, "x").complete
    assert state_of("Restart completed", 12, "x").complete  # the manual's numbering
    assert state_of("Node failed, fail handling ongoing", 2, "x").current == "secs_to_complete_node_failure"
    # each master state finishes one more column than the one before it, in NDB's order
    master = [s for s in STATES if not s.coarse]
    assert [s.finished for s in master] == sorted(s.finished for s in master)
    with pytest.raises(InputError, match="not a state ndbsim knows"):
        state_of("Rebooting the universe", 12, "node 12")
    with pytest.raises(InputError, match="not a state ndbsim knows"):
        state_of("Restore fragments ongoing", 7, "node 12")


def test_error_shrinks_as_phases_complete_and_is_within_10pct_after_restore(cluster):
    session = open_session(cluster["scenario"], None, None, [])
    assert session.waves == [[11, 13], [12, 14]]
    cuts = replay(session, cluster["rows"], 1, START)
    assert len(cuts) >= 8
    truth = cuts[0]["truth"]
    assert truth == 624
    after_restore = [c for c in cuts if c["state"] not in ("NODE_FAILED", "NODE_FAILURE_COMPLETED")][4:]
    assert all(abs(c["error"]) <= 0.10 for c in after_restore), cuts
    # the last cut is the restart's end, as restart_info tells it
    assert cuts[-1]["phase"] == "done" and cuts[-1]["window_p50"] == pytest.approx(truth)
    # wave 1's rows carry the slower hosts: the fit moves the prediction from the scenario's
    first = cuts[0]
    assert first["fit_nodes"] == 2 and abs(first["error"]) < 0.10


def test_in_the_first_wave_the_error_shrinks_as_the_phases_finish(cluster):
    # no complete row yet: the ETA starts as run's (hosts faster than the rows) and closes in
    cuts = replay(open_session(cluster["scenario"], None, None, []), cluster["rows"], 0, START)
    # every phase boundary answers, with the nodes of wave 2 up 90 days (replay.UP_BEFORE)
    assert len(cuts) == len(cut_times(cluster["rows"], [[11, 13], [12, 14]], 0, START))
    assert all(c["window_p5"] <= c["window_p50"] <= c["window_p95"] < math.inf for c in cuts), cuts
    first, last = cuts[0], cuts[-1]
    assert first["fit_nodes"] == 0 and first["fit_phases"] == 0 and first["error"] < -0.15
    restored = next(i for i, c in enumerate(cuts) if c["phase"] == "secs_index_rebuild")
    assert all(abs(c["error"]) <= 0.10 for c in cuts[restored:]), cuts
    assert abs(last["error"]) < abs(first["error"]) / 10


def test_a_snapshot_with_nothing_finished_is_runs_prediction(cluster):
    name = _write(cluster, "first.tsv", START)
    eta = ndbsim("eta", "my.yaml", "--ndbinfo", name, "-f", "json", cwd=cluster["dir"])
    assert eta.returncode == 0, eta.stderr
    run = ndbsim("run", "my.yaml", "-n", "10", "-f", "json", cwd=cluster["dir"])
    d, r = json.loads(eta.stdout), json.loads(run.stdout)
    assert d["fit"]["nodes"] == 0 and d["fit"]["phases"] == 0
    assert d["window_secs"]["p50"] == pytest.approx(r["total_restart_secs"], abs=1e-6)


def test_same_snapshot_same_bytes(cluster):
    name = _write(cluster, "again.tsv", START + 312 + 100)
    a = ndbsim("eta", "my.yaml", "--ndbinfo", name, "-f", "json", cwd=cluster["dir"])
    b = ndbsim("eta", "my.yaml", "--ndbinfo", name, "-f", "json", cwd=cluster["dir"])
    assert a.returncode == 0 and a.stdout == b.stdout


def test_json_per_node(cluster):
    name = _write(cluster, "mid.tsv", START + 312 + 200)
    p = ndbsim("eta", "my.yaml", "--ndbinfo", name, "-f", "json", cwd=cluster["dir"])
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    by = {n["node_id"]: n for n in d["nodes"]}
    assert by[11]["status"] == "done" and by[11]["elapsed_secs"] == 312
    assert by[12]["status"] == "restarting" and by[12]["phase"] == "secs_index_rebuild"
    assert by[12]["phase_secs_from"] == "nodes.uptime"
    assert by[12]["predicted_end"]["p5"] <= by[12]["predicted_end"]["p95"]
    assert d["fit"]["nodes"] == 2 and d["fit"]["phases"] > 0 and d["fit"]["rows"]
    assert math.isclose(d["spent_secs"], 512, abs_tol=3)


def _one_line(p) -> str:
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert "Traceback" not in p.stderr
    return p.stderr


def test_bad_snapshots_are_one_line_and_exit_2(cluster):
    d = cluster["dir"]
    good = snapshot_text(cluster["rows"], [[11, 13], [12, 14]], START, START + 400)
    (d / "other.tsv").write_text(
        good.replace("\n11\t", "\n1\t").replace("\n12\t", "\n2\t").replace("\n13\t", "\n3\t").replace("\n14\t", "\n4\t")
    )
    assert "another cluster" in _one_line(ndbsim("eta", "my.yaml", "--ndbinfo", "other.tsv", cwd=d))
    (d / "absent.tsv").write_text(good.replace("\n14\t", "\n15\t"))
    assert "not a data node of the scenario" in _one_line(ndbsim("eta", "my.yaml", "--ndbinfo", "absent.tsv", cwd=d))
    (d / "status.tsv").write_text(good.replace("Restore fragments ongoing", "Defragmenting"))
    assert "not a state ndbsim knows" in _one_line(ndbsim("eta", "my.yaml", "--ndbinfo", "status.tsv", cwd=d))
    (d / "cut.tsv").write_text(good.replace("ndbsim_table\nend\n", ""))
    assert "end marker" in _one_line(ndbsim("eta", "my.yaml", "--ndbinfo", "cut.tsv", cwd=d))


def test_an_older_snapshot_in_a_session_is_refused(cluster):
    session = open_session(cluster["scenario"], 2, None, [])
    waves = session.waves
    session.update(parse_snapshot(snapshot_text(cluster["rows"], waves, START, START + 400), "a"))
    with pytest.raises(InputError, match="older than the previous snapshot"):
        session.update(parse_snapshot(snapshot_text(cluster["rows"], waves, START, START + 300), "b"))


def test_snapshot_script_has_what_eta_reads():
    p = ndbsim("ndbinfo-sql", "--snapshot")
    assert p.returncode == 0
    for part in ("'snapshot' AS ndbsim_table", "UNIX_TIMESTAMP", "ndbinfo.nodes", "ndbinfo.restart_info", "'end'"):
        assert part in p.stdout
    assert "SLEEP" not in p.stdout
    full = ndbsim("ndbinfo-sql").stdout
    assert "'snapshot' AS ndbsim_table" in full


def test_eta_help_has_examples():
    p = ndbsim("eta", "-h")
    assert p.returncode == 0 and "Examples:" in p.stdout and "--watch 30s" in p.stdout
    assert shutil.which("true")
