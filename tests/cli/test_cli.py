import json
import subprocess
import sys

import pytest
from _helpers import ndbsim
from conftest import SCENARIOS


def test_default_scenario_prints_phase_table():
    p = ndbsim("run")
    assert p.returncode == 0, p.stderr
    assert "secs_restore_fragments" in p.stdout and "total_restart_secs" in p.stdout


def test_table_shows_the_overrides_and_warns_when_rows_stay_fixed_as_size_changes():
    p = ndbsim("run", "--set", "data.size=1TB", "--set", "cluster.config.DataMemory=1200G", "--set", "version=8.0.35")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[2] == "with --set data.size=1TB, cluster.config.DataMemory=1200G, version=8.0.35"
    assert "ndbsim: warning: data.rows stays 300M" in p.stderr and "warning" not in p.stdout
    p = ndbsim("run", "--set", "data.size=1TB", "--set", "data.rows=null", "--set", "cluster.config.DataMemory=1200G")
    assert p.returncode == 0, p.stderr
    assert "data.rows stays" not in p.stdout + p.stderr


def test_checkpoint_lines_say_whether_the_base_load_runs_lcps():
    from ndbsim.output.table import checkpoint_lines

    idle = {
        "lcp_cycle_secs": 0.0,
        "lcp_bytes": 30e6,
        "lcp_secs": 7.0,
        "lcp_write_speed": 20e6,
        "redo_bytes_needed": 0.0,
        "redo_peak_bytes": 16e9,
        "redo_capacity_bytes": 64e9,
    }
    lcp, redo = checkpoint_lines(idle)
    assert "none, nothing changes" in lcp and "every" not in lcp
    assert "peaked at" in redo and "(25% at the peak)" in redo
    lcp, _ = checkpoint_lines({**idle, "lcp_cycle_secs": 120.0, "redo_capacity_bytes": 0.0})
    assert "one every 2m00s" in lcp


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_every_scenario_runs_as_json(path):
    p = ndbsim("run", str(path), "--format", "json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["status"] == "ok", d.get("reason")  # every shipped scenario is a restart that completes
    assert d["total_restart_secs"] > 0
    if d.get("kind") != "innodb":
        assert d["scenario"]["cluster"]["config"]["NoOfReplicas"] >= 1  # resolved scenario embedded


def test_csv_and_gantt(tmp_path):
    out = tmp_path / "g.png"
    p = ndbsim("run", "--format", "csv", "--gantt", str(out))
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("node_id,phase,secs")
    assert out.stat().st_size > 1000


def test_output_files_get_the_umask_mode_not_the_temp_files_0600(tmp_path):
    out = tmp_path / "g.png"
    p = subprocess.run(
        ["sh", "-c", f'umask 022 && "{sys.executable}" -m ndbsim run --gantt "{out}"'], capture_output=True, text=True
    )
    assert p.returncode == 0, p.stderr
    assert out.stat().st_mode & 0o777 == 0o644
    assert [x.name for x in tmp_path.iterdir()] == ["g.png"]  # no temp file left beside it


def test_set_override_and_config_ini(tmp_path):
    ini = tmp_path / "config.ini"
    ini.write_text("[ndbd default]\nNoOfReplicas=2\nDataMemory=200G\nHostName=x\n[ndbd]\n[ndbd]\n[ndbd]\n[ndbd]\n")
    p = ndbsim("run", "--config-ini", str(ini), "--version", "7.6.6", "--set", "data.size=100G", "--format", "json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["scenario"]["cluster"]["data_nodes"] == 4
    assert d["scenario"]["cluster"]["config"]["DataMemory"] == 200 * 2**30
    assert d["scenario"]["data"]["size"] == 100 * 2**30


def test_bad_key_is_one_line_exit_2():
    p = ndbsim("run", "--set", "data.sise=1TB")
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and "did you mean 'size'" in p.stderr
    assert "Traceback" not in p.stderr


def test_validate(root):
    assert ndbsim("validate", str(SCENARIOS[0])).returncode == 0


def test_default_scenario_is_the_seed_003_case(root):
    import yaml

    from ndbsim.input.scenario import DEFAULT_SCENARIO

    shipped = yaml.safe_load((root / "scenarios/dbt2-600wh-7.6.6.yaml").read_text())
    shipped["name"] = DEFAULT_SCENARIO["name"]
    assert shipped == DEFAULT_SCENARIO


def test_innodb_scenarios_run_through_the_same_cli(root, tmp_path):
    out = tmp_path / "i.svg"
    p = ndbsim("run", str(root / "scenarios/innodb-tpcc1000-bp52g-flash.yaml"), "--format", "json", "--gantt", str(out))
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["kind"] == "innodb" and "secs_redo_apply" in d["phases"]
    assert out.exists()


def test_csv_carries_the_whole_windows_total_beside_each_nodes(tmp_path):
    p = ndbsim("run", str(SCENARIOS[0].parent / "rolling-4-nodes-8.0.yaml"), "--format", "csv", "-n", "3")
    assert p.returncode == 0, p.stderr
    import csv
    import io

    lines = list(csv.reader(io.StringIO(p.stdout)))
    head = lines[0]
    assert head[:8] == [
        "node_id",
        "phase",
        "secs",
        "node_total_secs",
        "total_restart_secs",
        "total_p5",
        "total_p95",
        "status",
    ]
    assert head[-3:] == ["wave", "node_start_secs", "node_end_secs"]  # a restart of several nodes: its schedule
    assert head[8:10] == ["interval_p5", "interval_p95"]  # the predictive interval reaches the CSV too
    rows = [dict(zip(head, line)) for line in lines[1:]]
    assert all(float(r["interval_p5"]) < float(r["total_restart_secs"]) < float(r["interval_p95"]) for r in rows)
    node = max(float(r["node_total_secs"]) for r in rows)
    whole = {float(r["total_restart_secs"]) for r in rows}
    assert len(whole) == 1 and whole.pop() > 1.5 * node  # two waves, one after the other


def test_params_lists_only_this_versions_parameters():
    p = ndbsim("params", "--version", "8.0.35")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].split()[:2] == ["parameter", "default"]
    unused = next(i for i, line in enumerate(lines) if line.startswith("not in NDB"))
    names = {line.split()[0] for line in lines[1:unused]}
    assert "MaxDiskWriteSpeed" in names and "DiskCheckpointSpeed" not in names
    assert "AutomaticThreadConfig" in names and "NumCPUs" in names  # 8.0.23+
    assert lines[unused] == "not in NDB 8.0.35, ignored if set: DiskCheckpointSpeed, DiskCheckpointSpeedInRestart"
    assert lines[unused + 1].startswith("thread layout at these defaults: main 1, ldm 1")
    old = ndbsim("params", "--version", "7.0.9").stdout
    assert "DiskCheckpointSpeed " in old and "EnableRedoControl" in next(
        line for line in old.splitlines() if line.startswith("not in NDB")
    )


def test_params_diff_lists_differences_with_sources():
    p = ndbsim("params", "--version", "8.4.0", "--diff", "7.6.6")
    assert p.returncode == 0, p.stderr
    rows = {line.split()[0]: line for line in p.stdout.splitlines()[1:]}
    assert "RecoveryWork" in rows and "[RN767]" in rows["RecoveryWork"]
    assert rows["RecoveryWork"].split()[1:3] == ["60", "50"]
    assert "query_threads" in rows and "8.0.23" in rows["query_threads"]
    same = ndbsim("params", "--version", "8.4.0", "--diff", "8.0.35").stdout
    assert "no modelled default or mechanism differs" in same and "[DOC-ADR84]" in same
    mapped = ndbsim("params", "--version", "8.2.0").stdout
    assert "simulates 8.2.0 with the 8.4 profile" in mapped


def test_constants_file_from_calibrate_is_used_by_run_and_check(tmp_path, root):
    import yaml

    packaged = yaml.safe_load((root / "ndbsim/input/profiles/calibrated.yaml").read_text())
    packaged["shared"]["constants"]["suma_handover_gcps"] *= 3  # handover three times as long
    mine = tmp_path / "mine.yaml"
    mine.write_text(yaml.safe_dump(packaged))
    base = json.loads(ndbsim("run", "--format", "json").stdout)
    slow = ndbsim("run", "--format", "json", "--constants", str(mine))
    assert slow.returncode == 0, slow.stderr
    hand = [
        json.loads(slow.stdout)["phases"]["secs_wait_subscription_handover"],
        base["phases"]["secs_wait_subscription_handover"],
    ]
    assert hand[0] == pytest.approx(3 * hand[1])
    p = ndbsim("check", "--constants", str(mine), "--no-claims")
    failed = [line for line in p.stdout.splitlines() if " FAIL " in f" {line} "]
    assert p.returncode == 1 and failed  # seed 003's 5–6 s no longer fits, and only the handover moved
    assert all("secs_wait_subscription_handover" in line for line in failed), failed
    bad = tmp_path / "bad.yaml"
    bad.write_text("x: 1\n")
    p = ndbsim("run", "--constants", str(bad))
    assert p.returncode == 2 and "--constants" in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_validate_checks_the_sets_a_run_would_use(root):
    path = str(root / "scenarios" / "dbt2-600wh-7.6.6.yaml")
    assert ndbsim("validate", path).returncode == 0
    p = ndbsim("validate", path, "--set", "data.size=100G")
    assert p.returncode == 2 and "data.size" in p.stderr and "DataMemory=65.0G" in p.stderr
    p = ndbsim("validate", path, "--set", "cluster.config.DataMemory=120G", "--set", "data.size=100G")
    assert p.returncode == 0, p.stderr
