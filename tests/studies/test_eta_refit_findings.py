"""``ndbsim eta``'s refitted host figures (issue 47): a figure is printed as a finding only when
the finished phases determine it (``refit.DETERMINED``), with its p5-p95; the rows the snapshot
holds of an earlier restart are named as not used. On the shipped rolling restart
(tests/data/rolling-8.0.35, NodeIds 11-14, waves [11, 13] then [12, 14])."""

from __future__ import annotations

import json
import re

import pytest
from _helpers import ETA_START as START
from _helpers import eta_cluster, ndbsim

from ndbsim.studies.eta.replay import _row_at, snapshot_text

WAVES = [[11, 13], [12, 14]]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    return eta_cluster(tmp_path_factory, "eta-findings")


def _eta(cluster, name: str, text: str) -> tuple[str, dict]:
    (cluster["dir"] / name).write_text(text)
    t = ndbsim("eta", "my.yaml", "--ndbinfo", name, cwd=cluster["dir"])
    j = ndbsim("eta", "my.yaml", "--ndbinfo", name, "-f", "json", cwd=cluster["dir"])
    assert t.returncode == 0 and j.returncode == 0, (t.stderr, j.stderr)
    return " ".join(t.stdout.split()), json.loads(j.stdout)


def test_a_figure_no_finished_phase_determines_is_not_a_finding(cluster):
    # 200 s in, wave 1 has finished its restore but no phase that tells the disk's latency: the
    # fit moves disk_latency, but its posterior sd stays the prior's
    text, d = _eta(cluster, "restore.tsv", snapshot_text(cluster["rows"], WAVES, START, START + 200))
    assert "disk_latency" in d["fit"]["fitted"] and "disk_latency" in d["fit"]["not_determined"]
    assert "disk_latency" not in d["fit"]["determined"]
    assert not re.search(r"disk_latency [+-]\d+%", text), text
    assert "not determined by the finished phases (not a finding): " in text
    assert "disk_latency" in text.split("not determined by the finished phases")[1].split("simulated:")[0]


def test_a_determined_figure_is_printed_with_its_range(cluster):
    # wave 1 done and wave 2 restoring: its complete rows tell core speed (they ran ~25% slower)
    text, d = _eta(cluster, "wave2.tsv", snapshot_text(cluster["rows"], WAVES, START, START + 500))
    core = d["fit"]["determined"]["core_speed"]
    assert core["p5"] < core["value"] < core["p95"]
    m = re.search(r"core_speed ([+-]\d+)% of the scenario's \(p5-p95 ([+-]\d+)% to ([+-]\d+)%\)", text)
    assert m, text
    mid, lo, hi = (int(x) for x in m.groups())
    assert lo < mid < hi and mid < 0  # slower hosts than the scenario's


def test_a_row_of_a_node_not_restarting_now_is_named_as_not_used(cluster):
    # wave 1 restarting; node 14 (wave 2) still shows its restart of a month ago
    text = snapshot_text(cluster["rows"], WAVES, START, START + 100)
    cells, _ = _row_at(cluster["rows"][14], START - 30 * 86400, START - 29 * 86400)
    head, tail = text.split("\nndbsim_table\nend\n")
    text = f"{head}\n{chr(9).join(cells)}\nndbsim_table\nend\n{tail}"
    out, d = _eta(cluster, "earlier.tsv", text)
    said = "node 14's restart_info row is of an earlier restart (it is not restarting now): not used"
    assert out.count(said) == 1, out
    assert said in d["warnings"]
    assert not any("node 12's" in w for w in d["warnings"])
    by = {n["node_id"]: n for n in d["nodes"]}
    assert by[14]["status"] == "waiting"


def test_a_row_of_a_node_the_scenario_does_not_restart_is_named_as_not_used(cluster):
    # a node restart of node 11; node 13 shows the rolling restart it had a month ago
    text = snapshot_text(cluster["rows"], [[11]], START, START + 100)
    cells, _ = _row_at(cluster["rows"][13], START - 30 * 86400, START - 29 * 86400)
    head, tail = text.split("\nndbsim_table\nend\n")
    (cluster["dir"] / "node.tsv").write_text(f"{head}\n{chr(9).join(cells)}\nndbsim_table\nend\n{tail}")
    sets = ("--set", "restart.type=node", "--set", "restart.nodes=[11]")
    p = ndbsim("eta", "my.yaml", "--ndbinfo", "node.tsv", *sets, "-f", "json", cwd=cluster["dir"])
    assert p.returncode == 0, p.stderr
    said = "node 13's restart_info row is of an earlier restart (the scenario does not restart it): not used"
    assert said in json.loads(p.stdout)["warnings"]
