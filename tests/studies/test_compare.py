"""ndbsim compare: two runs side by side, the difference and the why on each side."""

import csv
import io
import json

from _helpers import BASE, ndbsim


def test_one_scenario_against_itself_with_set_changes():
    out = ndbsim("compare", BASE, "--set", "version=8.0.35", "-f", "json")
    assert out.returncode == 0, out.stderr
    cmp = json.loads(out.stdout)
    assert cmp["a"]["version"] == "7.6.6" and cmp["b"]["version"] == "8.0.35"
    row = cmp["nodes"][0]["phases"]["secs_wait_lcp_for_restart"]
    assert abs(row["diff"] - (row["b"] - row["a"])) < 1e-6 and row["diff"] < -60
    assert row["why_a"]["figures"]["local_lcp_bytes"] > row["why_b"]["figures"]["local_lcp_bytes"]
    t = cmp["total_restart_secs"]
    assert abs(t["diff"] - (t["b"] - t["a"])) < 1e-6


def test_each_side_is_what_run_prints_with_the_same_seed_and_replications():
    cmp = json.loads(ndbsim("compare", BASE, "--set", "cluster.config.RecoveryWork=25", "-n", "3", "-f", "json").stdout)
    assert cmp["replications"] == 3
    run = json.loads(ndbsim("run", BASE, "--set", "cluster.config.RecoveryWork=25", "-n", "3", "-f", "json").stdout)
    assert cmp["b"]["total_restart_secs"] == run["total_restart_secs"]


def test_two_config_ini_files_on_the_same_data(tmp_path):
    a, b = tmp_path / "a.ini", tmp_path / "b.ini"
    a.write_text("[ndbd default]\nNoOfReplicas=2\nMaxDiskWriteSpeedOwnRestart=200M\n[ndbd]\n[ndbd]\n")
    b.write_text("[ndbd default]\nNoOfReplicas=2\nMaxDiskWriteSpeedOwnRestart=50M\n[ndbd]\n[ndbd]\n")
    out = ndbsim("compare", BASE, "--config-ini", str(a), "--config-ini", str(b), "-f", "csv")
    assert out.returncode == 0, out.stderr
    rows = {r["phase"]: r for r in csv.DictReader(io.StringIO(out.stdout))}
    wait = rows["secs_wait_lcp_for_restart"]
    assert float(wait["b_secs"]) > float(wait["a_secs"])  # a slower own-restart LCP waits longer
    assert "MaxDiskWriteSpeedOwnRestart" in wait["b_bottleneck"]


def test_two_scenarios_as_a_table_written_to_a_file(tmp_path):
    out_file = tmp_path / "cmp.txt"
    out = ndbsim("compare", BASE, "scenarios/dbt2-600wh-7.5.10.yaml", "-o", str(out_file))
    assert out.returncode == 0, out.stderr
    assert f"wrote {out_file}" in out.stderr
    text = out_file.read_text()
    assert "B − A" in text and "restart total: A" in text and "    A: " in text


def test_nothing_to_compare_is_an_input_error():
    out = ndbsim("compare", BASE)
    assert out.returncode == 2
    assert out.stderr.startswith("ndbsim: error:") and len(out.stderr.strip().splitlines()) == 1


def test_two_config_ini_files_say_which_parameters_differ_and_each_sides_warnings(tmp_path):
    a, b = tmp_path / "a.ini", tmp_path / "b.ini"
    a.write_text("[ndbd default]\nNoOfReplicas=2\nRecoveryWork=50\nODirect=1\n[ndbd]\n[ndbd]\n")
    b.write_text("[ndbd default]\nNoOfReplicas=2\nRecoveryWork=80\nCompressedLCP=1\n[ndbd]\n[ndbd]\n")
    table = ndbsim("compare", BASE, "--config-ini", str(a), "--config-ini", str(b), "-n", "1")
    assert table.returncode == 0, table.stderr
    assert "what differs" in table.stdout and "cluster.config.RecoveryWork: A 50 · B 80" in table.stdout
    assert "a.ini: ODirect is not simulated" in table.stderr and "b.ini: CompressedLCP is not simulated" in table.stderr
    cmp = json.loads(
        ndbsim("compare", BASE, "--config-ini", str(a), "--config-ini", str(b), "-n", "1", "-f", "json").stdout
    )
    assert [d["key"] for d in cmp["differences"]] == ["cluster.config.RecoveryWork"]
    assert any("ODirect" in w for w in cmp["a"]["warnings"]) and not any("ODirect" in w for w in cmp["b"]["warnings"])
    assert any("CompressedLCP" in w for w in cmp["b"]["warnings"])
